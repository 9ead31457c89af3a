//! Field paths to positions in JSON text, as `locate.rs` does for YAML: serde_json hands the
//! loader plain values without spans, so a conversion error in a JSON file would point at the
//! document's first line. This scanner walks the text once along the path (skipping every other
//! value without building it) and returns the line and column of the deepest field found: the
//! key's opening quote, or an array element's first byte.

use crate::locate::{Step, steps};

struct Scanner<'t> {
    text: &'t [u8],
    at: usize,
}

impl<'t> Scanner<'t> {
    fn skip_space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// A string at `at` (its quotes included); the raw bytes between the quotes.
    fn string(&mut self) -> Option<&'t [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let text: &'t [u8] = self.text;
        let start = self.at + 1;
        let mut i = start;
        while i < text.len() {
            match text[i] {
                b'\\' => i += 2,
                b'"' => {
                    self.at = i + 1;
                    return Some(&text[start..i]);
                }
                _ => i += 1,
            }
        }
        None
    }

    /// Skips one value (a string, or nested brackets counted outside strings, or a scalar).
    fn skip_value(&mut self) -> Option<()> {
        self.skip_space();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                while let Some(byte) = self.peek() {
                    match byte {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
                None
            }
            _ => {
                while let Some(byte) = self.peek() {
                    if matches!(byte, b',' | b'}' | b']') || byte.is_ascii_whitespace() {
                        break;
                    }
                    self.at += 1;
                }
                Some(())
            }
        }
    }

    /// Follows `steps` from the value at `at`, recording in `best` the start of each step found.
    fn follow(&mut self, steps: &[Step<'_>], best: &mut Option<usize>) -> Option<()> {
        let Some((step, rest)) = steps.split_first() else {
            return Some(());
        };
        self.skip_space();
        match (step, self.peek()?) {
            (Step::Key(wanted), b'{') => {
                self.at += 1;
                loop {
                    self.skip_space();
                    if self.peek()? == b'}' {
                        return None;
                    }
                    let key_at = self.at;
                    let key = self.string()?;
                    self.skip_space();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.at += 1;
                    if key == wanted.as_bytes() {
                        *best = Some(key_at);
                        return self.follow(rest, best);
                    }
                    self.skip_value()?;
                    self.skip_space();
                    if self.peek()? == b',' {
                        self.at += 1;
                    }
                }
            }
            (Step::Index(wanted), b'[') => {
                self.at += 1;
                for index in 0.. {
                    self.skip_space();
                    if self.peek()? == b']' {
                        return None;
                    }
                    if index == *wanted {
                        *best = Some(self.at);
                        return self.follow(rest, best);
                    }
                    self.skip_value()?;
                    self.skip_space();
                    if self.peek()? == b',' {
                        self.at += 1;
                    }
                }
                None
            }
            _ => None,
        }
    }
}

/// The 1-based line and column of `path` in document `document` of a JSON text (a stream of
/// values; a byte order mark is skipped), or of the deepest part of the path found; `None` when
/// not even its first step is found.
pub(crate) fn field_position(text: &str, document: usize, path: &str) -> Option<(usize, usize)> {
    let steps = steps(path).filter(|s| !s.is_empty())?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut scanner = Scanner {
        text: body.as_bytes(),
        at: 0,
    };
    for _ in 0..document {
        scanner.skip_value()?;
    }
    let mut best = None;
    let _ = scanner.follow(&steps, &mut best);
    let offset = best? + (text.len() - body.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
        .chars()
        .count()
        + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Positions read off the texts by hand (1-based line and column).
    #[test]
    fn keys_and_elements_are_found_line_by_line() {
        let text = "{\n  \"kind\": \"Deployment\",\n  \"metadata\": {\"name\": \"x\\\"y\"},\n  \"spec\": {\n    \"template\": {\"spec\": {\"containers\": [\n      {\"name\": \"a\"},\n      {\"name\": \"b\", \"image\": 7}\n    ]}}\n  }\n}\n";
        assert_eq!(
            field_position(text, 0, "spec.template.spec.containers[1].image"),
            Some((7, 21))
        );
        assert_eq!(
            field_position(text, 0, "spec.template.spec.containers[0]"),
            Some((6, 7))
        );
        // The deepest part found when the rest is not there.
        assert_eq!(
            field_position(text, 0, "spec.template.spec.volumes[0]"),
            Some((5, 18))
        );
        assert_eq!(field_position(text, 0, "status"), None);
        // The second document of a stream.
        let stream = "{\"a\": 1}\n{\"kind\": \"Pod\",\n \"spec\": {}}";
        assert_eq!(field_position(stream, 1, "spec"), Some((3, 2)));
    }
}
