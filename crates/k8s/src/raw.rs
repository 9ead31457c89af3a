//! Text to untyped documents: JSON detection, the JSON stream reader and the limits every reader
//! enforces (document count, nesting depth, expanded size) before anything is converted.

use serde_json::Value;

use crate::error::InputError;

/// One document of a source, parsed but not yet typed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RawDocument {
    /// 0-based index of the document in its source.
    pub index: usize,
    /// 1-based line where the document's content starts.
    pub start_line: usize,
    /// The document.
    pub value: Value,
    /// Where its items begin, when it is a List the reader took apart (`yaml::ItemStarts`).
    pub item_starts: crate::yaml::ItemStarts,
}

/// The bounds a reader enforces on one source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Documents to read at most; the reader reports one error past it and stops.
    pub max_documents: usize,
    /// Deepest nesting of mappings and sequences accepted.
    pub max_depth: usize,
}

/// Whether the text is JSON: its first non-space character is `{` or `[` (kubectl's sniffing).
pub(crate) fn looks_like_json(text: &str) -> bool {
    matches!(
        text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
            .chars()
            .next(),
        Some('{' | '[')
    )
}

/// The nesting depth of a value: scalars are 0, a mapping or sequence is one more than its deepest
/// child. Iterative, so a caller-built value of any depth cannot overflow the stack here.
pub(crate) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, level)) = stack.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(level + 1);
                stack.extend(items.iter().map(|item| (item, level + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(level + 1);
                stack.extend(map.values().map(|item| (item, level + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// The error for a value nested deeper than the limit.
pub(crate) fn too_deep_message(max_depth: usize) -> String {
    format!("document is nested deeper than {max_depth} levels; rejected before conversion")
}

/// 1-based line of a byte offset, counting from `from` (whose line is `line`).
fn advance_line(text: &str, from: usize, to: usize, line: usize) -> usize {
    line + text.as_bytes()[from..to]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Reads a stream of JSON values (one or more, whitespace-separated). A syntax error ends the
/// stream: JSON cannot be resynchronised, so later documents are lost and the error says where.
pub(crate) fn parse_json(text: &str, limits: &Limits) -> Vec<Result<RawDocument, InputError>> {
    let mut results = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut offset = 0;
    let mut line = 1;
    for index in 0.. {
        // Skip whitespace to find the document's first byte (and line).
        let rest = &text[offset..];
        let start = offset
            + (rest.len()
                - rest
                    .trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
                    .len());
        if start >= text.len() {
            break;
        }
        line = advance_line(text, offset, start, line);
        if index >= limits.max_documents {
            results.push(Err(InputError {
                document: Some(index),
                line: Some(line),
                message: format!(
                    "more than {} documents; the rest is not read",
                    limits.max_documents
                ),
                ..InputError::default()
            }));
            break;
        }
        match stream.next() {
            None => break,
            Some(Ok(value)) => {
                let end = stream.byte_offset();
                if depth(&value) > limits.max_depth {
                    results.push(Err(InputError {
                        document: Some(index),
                        line: Some(line),
                        message: too_deep_message(limits.max_depth),
                        ..InputError::default()
                    }));
                } else {
                    results.push(Ok(RawDocument {
                        index,
                        start_line: line,
                        value,
                        item_starts: None,
                    }));
                }
                line = advance_line(text, start, end, line);
                offset = end;
            }
            Some(Err(error)) => {
                let message = strip_json_location(&error);
                results.push(Err(InputError {
                    document: Some(index),
                    line: (error.line() > 0).then_some(error.line()),
                    column: (error.line() > 0).then_some(error.column()),
                    message,
                    ..InputError::default()
                }));
                break;
            }
        }
    }
    results
}

/// serde_json's message without its ` at line L column C` suffix (the location has its own fields).
fn strip_json_location(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&suffix)
        .map(str::to_owned)
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_documents: 100,
        max_depth: 64,
    };

    #[test]
    fn detects_json_by_first_character() {
        assert!(looks_like_json("  \n{\"a\": 1}"));
        assert!(looks_like_json("[1]"));
        assert!(!looks_like_json("# comment\n{}"));
        assert!(!looks_like_json("a: 1"));
    }

    #[test]
    fn reads_a_json_stream_with_lines() {
        let docs = parse_json("{\"a\": 1}\n\n{\n \"b\": 2}\n", &LIMITS);
        let docs: Vec<RawDocument> = docs.into_iter().map(Result::unwrap).collect();
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[0].index, docs[0].start_line), (0, 1));
        assert_eq!((docs[1].index, docs[1].start_line), (1, 3));
    }

    #[test]
    fn json_syntax_error_has_location() {
        let docs = parse_json("{\"a\": 1}\n{\"b\": }\n", &LIMITS);
        assert!(docs[0].is_ok());
        let error = docs[1].as_ref().unwrap_err();
        assert_eq!(
            (error.document, error.line, error.column),
            (Some(1), Some(2), Some(7))
        );
        assert!(!error.message.contains("at line"), "{}", error.message);
    }

    #[test]
    fn depth_is_counted_without_recursion() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!({"a": [1, {"b": {}}]})), 4);
        assert_eq!(depth(&serde_json::json!({"a": [1, {"b": 2}]})), 3);
        let nested = format!("{}{}", "[".repeat(70), "]".repeat(70));
        let docs = parse_json(&nested, &LIMITS);
        assert!(
            docs[0]
                .as_ref()
                .unwrap_err()
                .message
                .contains("deeper than 64")
        );
    }
}
