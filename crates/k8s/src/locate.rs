//! Field paths to positions: finds the line and column of `spec.template.spec.containers[0].image`
//! in a YAML document's text, so a conversion error points at the field rather than at the
//! document's first line.
//!
//! serde-saphyr reports locations for syntax errors only (its deserializer hands the loader plain
//! values), so this is a small resolver over the text: block mappings and sequences (including a
//! sequence at its parent key's indentation), flow collections spanning lines, quoted keys, block
//! scalars and comments. It is best effort and bounded: each path segment scans forward only, so a
//! lookup costs at most (segments × document length); a segment it cannot follow (an alias, a
//! merge key, a complex key) leaves the position at the deepest field found.

/// One step of a field path (also read by `locate_json.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `a.b[2].c` → `[Key(a), Key(b), Index(2), Key(c)]`; `None` for a malformed path.
pub(crate) fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(at) => part.split_at(at),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']')?;
            out.push(Step::Index(inner[..end].parse().ok()?));
            rest = &inner[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// A position in the document: 0-based line index and byte column.
type Pos = (usize, usize);

struct Doc<'a> {
    lines: Vec<&'a str>,
}

/// The byte offset where a line's content starts (`None`: blank or comment only).
fn indent(line: &str) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.trim().is_empty() || trimmed.starts_with('#') {
        None
    } else {
        Some(line.len() - trimmed.len())
    }
}

/// A sequence entry indicator at the start of `text`: `-` then a space or the end.
fn is_dash(text: &str) -> bool {
    text == "-" || text.starts_with("- ") || text.starts_with("-\t")
}

/// Reads a block mapping key at the start of `text`: the key and the byte offset just after the
/// `:` (and the spaces after it).
fn block_key(text: &str) -> Option<(String, usize)> {
    let (key, after) = if let Some(quote) = text.chars().next().filter(|c| *c == '"' || *c == '\'')
    {
        let end = text[1..].find(quote)? + 1;
        (text[1..end].to_owned(), end + 1)
    } else {
        let mut end = None;
        for (i, c) in text.char_indices() {
            if c == ':' {
                let next = text[i + 1..].chars().next();
                if next.is_none_or(|n| n == ' ' || n == '\t') {
                    end = Some(i);
                    break;
                }
            }
            if c == '#' && i > 0 && text[..i].ends_with(' ') {
                return None;
            }
        }
        let end = end?;
        (text[..end].trim_end().to_owned(), end)
    };
    let rest = text[after..].strip_prefix(':')?;
    let spaces = rest.len() - rest.trim_start().len();
    Some((key, after + 1 + spaces))
}

/// Whether the rest of a line after `key:` holds no value of its own (the value is below).
fn no_inline_value(rest: &str) -> bool {
    let rest = rest.trim();
    rest.is_empty()
        || rest.starts_with('#')
        || rest.starts_with('|')
        || rest.starts_with('>')
        || ((rest.starts_with('&') || rest.starts_with('!')) && !rest.contains(' '))
}

impl Doc<'_> {
    /// The first content line after `line`.
    fn next_content(&self, line: usize) -> Option<usize> {
        (line + 1..self.lines.len()).find(|&l| indent(self.lines[l]).is_some())
    }

    /// The start of the value whose key (or dash) ends at `(line, col)`: on the same line when
    /// there is one, else the next content line.
    fn value_at(&self, line: usize, col: usize) -> Option<Pos> {
        let rest = self.lines[line].get(col..).unwrap_or("");
        if no_inline_value(rest) {
            let next = self.next_content(line)?;
            Some((next, indent(self.lines[next])?))
        } else {
            Some((line, col))
        }
    }

    /// Follows `steps` from the node at `pos`; `best` is updated with each field found.
    fn find(&self, pos: Pos, steps: &[Step<'_>], best: &mut Pos) {
        let Some(step) = steps.first() else {
            return;
        };
        let text = self.lines[pos.0].get(pos.1..).unwrap_or("");
        if text.starts_with('{') || text.starts_with('[') {
            let mut cursor = Cursor {
                doc: self,
                line: pos.0,
                col: pos.1,
            };
            cursor.find(steps, best);
            return;
        }
        let col = pos.1;
        // Lines that belong to this node: from `pos` while the indentation stays >= col.
        let mut line = pos.0;
        let mut first = true;
        let mut index = 0;
        loop {
            let here = if first {
                Some(col)
            } else {
                indent(self.lines[line])
            };
            if let Some(at) = here {
                if at < col {
                    return;
                }
                let text = &self.lines[line][at..];
                if at == col {
                    match step {
                        Step::Index(wanted) if is_dash(text) => {
                            if index == *wanted {
                                *best = (line, at);
                                let item = at + 1 + (text.len() - 1 - text[1..].trim_start().len());
                                if let Some(value) = self.value_at(line, item) {
                                    self.find(value, &steps[1..], best);
                                }
                                return;
                            }
                            index += 1;
                        }
                        Step::Key(wanted) if !is_dash(text) => {
                            if let Some((key, value_col)) = block_key(text)
                                && let Some(rest) = key_matches(&key, wanted, steps)
                            {
                                *best = (line, at);
                                if let Some(value) = self.value_at(line, at + value_col) {
                                    self.find(value, &steps[rest..], best);
                                }
                                return;
                            }
                        }
                        // A key at a sequence's indentation ends the sequence.
                        Step::Index(_) => return,
                        // A dash at a mapping's indentation is a sequence under the key
                        // before it: skipped.
                        Step::Key(_) => {}
                    }
                }
            }
            first = false;
            line += 1;
            if line >= self.lines.len() {
                return;
            }
        }
    }
}

/// Whether a mapping key matches the next steps: keys may contain dots (label keys like
/// `topology.kubernetes.io/zone`), which the path cannot tell from nesting. Returns how many
/// steps the key consumed.
fn key_matches(key: &str, wanted: &str, steps: &[Step<'_>]) -> Option<usize> {
    if key == wanted {
        return Some(1);
    }
    let mut joined = String::from(wanted);
    for (i, step) in steps.iter().enumerate().skip(1) {
        let Step::Key(next) = step else {
            return None;
        };
        joined.push('.');
        joined.push_str(next);
        if key == joined {
            return Some(i + 1);
        }
        if !key.starts_with(joined.as_str()) {
            return None;
        }
    }
    None
}

/// A reader over a flow collection that may span lines.
struct Cursor<'d, 'a> {
    doc: &'d Doc<'a>,
    line: usize,
    col: usize,
}

impl Cursor<'_, '_> {
    fn peek(&self) -> Option<char> {
        let line = self.doc.lines.get(self.line)?;
        match line[self.col..].chars().next() {
            Some(c) => Some(c),
            None => Some('\n'),
        }
    }

    fn bump(&mut self) {
        let Some(line) = self.doc.lines.get(self.line) else {
            return;
        };
        match line[self.col..].chars().next() {
            Some(c) => self.col += c.len_utf8(),
            None => {
                self.line += 1;
                self.col = 0;
            }
        }
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c == '#' {
                self.line += 1;
                self.col = 0;
            } else if c.is_whitespace() {
                self.bump();
            } else {
                return;
            }
        }
    }

    /// Skips a quoted scalar starting at the quote.
    fn skip_quoted(&mut self, quote: char) {
        self.bump();
        while let Some(c) = self.peek() {
            self.bump();
            if c == '\\' && quote == '"' {
                self.bump();
            } else if c == quote {
                if quote == '\'' && self.peek() == Some('\'') {
                    self.bump();
                } else {
                    return;
                }
            }
        }
    }

    /// Skips one flow value (scalar or nested collection), stopping before `,` `}` `]` or `:`
    /// at depth 0.
    fn skip_value(&mut self, stop_at_colon: bool) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '"' | '\'' => {
                    self.skip_quoted(c);
                    continue;
                }
                '{' | '[' => depth += 1,
                '}' | ']' if depth == 0 => return,
                '}' | ']' => depth -= 1,
                ',' if depth == 0 => return,
                ':' if depth == 0 && stop_at_colon => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// The scalar key at the cursor (quoted or plain), leaving the cursor before the `:`.
    fn key(&mut self) -> String {
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                let (line, col) = (self.line, self.col);
                self.skip_quoted(q);
                if self.line == line {
                    let text =
                        &self.doc.lines[line][col + 1..self.col.saturating_sub(1).max(col + 1)];
                    return text.to_owned();
                }
                String::new()
            }
            _ => {
                let (line, col) = (self.line, self.col);
                self.skip_value(true);
                if self.line == line {
                    self.doc.lines[line][col..self.col].trim().to_owned()
                } else {
                    self.doc.lines[line][col..].trim().to_owned()
                }
            }
        }
    }

    /// Follows `steps` into the flow collection at the cursor.
    fn find(&mut self, steps: &[Step<'_>], best: &mut Pos) {
        let Some(step) = steps.first() else {
            return;
        };
        let open = self.peek();
        self.bump();
        let mut index = 0;
        loop {
            self.skip_space();
            match self.peek() {
                None | Some('}' | ']') => return,
                Some(',') => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            let start = (self.line, self.col);
            match (open, step) {
                (Some('['), Step::Index(wanted)) => {
                    if index == *wanted {
                        *best = start;
                        self.descend(&steps[1..], best);
                        return;
                    }
                    index += 1;
                    self.skip_value(false);
                }
                (Some('{'), Step::Key(wanted)) => {
                    let key = self.key();
                    self.skip_space();
                    if self.peek() == Some(':') {
                        self.bump();
                    }
                    self.skip_space();
                    if let Some(rest) = key_matches(&key, wanted, steps) {
                        *best = start;
                        self.descend(&steps[rest..], best);
                        return;
                    }
                    self.skip_value(false);
                }
                _ => return,
            }
        }
    }

    /// Continues into the value at the cursor when it is a collection.
    fn descend(&mut self, steps: &[Step<'_>], best: &mut Pos) {
        if !steps.is_empty() && matches!(self.peek(), Some('{' | '[')) {
            self.find(steps, best);
        }
    }
}

/// The 1-based (line, column) of the field at `path` in the YAML document `body`, whose first
/// line is line `first_line` of its source; `None` for an empty or malformed path. When only part
/// of the path is found, the position of the deepest field found.
pub(crate) fn field_position(body: &str, first_line: usize, path: &str) -> Option<(usize, usize)> {
    let steps = steps(path).filter(|s| !s.is_empty())?;
    let doc = Doc {
        lines: body.split('\n').map(|l| l.trim_end_matches('\r')).collect(),
    };
    // The root node: the first content line that is not a marker or directive.
    let root = (0..doc.lines.len()).find(|&l| {
        let line = doc.lines[l];
        indent(line).is_some() && !line.starts_with("---") && !line.starts_with('%')
    })?;
    let root_line = doc.lines[root];
    let root_col = indent(root_line)?;
    let mut best = (usize::MAX, 0);
    doc.find((root, root_col), &steps, &mut best);
    if best.0 == usize::MAX {
        return None;
    }
    let column = doc.lines[best.0][..best.1].chars().count() + 1;
    Some((first_line + best.0, column))
}

/// How many errors and warnings of one load get a field position (each costs a scan of its
/// document; the rest keep the document's start line).
pub(crate) const MAX_LOCATED: usize = 1_000;

/// Moves every conversion error and warning of `loaded` (those with a document and a field path
/// but no column: the parser's syntax errors already have one) from its document's start line to
/// its field's line and column (YAML here, JSON in `locate_json.rs`).
pub(crate) fn locate_fields(
    sources: &[crate::Source],
    limit: usize,
    mut item_starts: std::collections::HashMap<(usize, usize), Vec<usize>>,
    loaded: &mut crate::Loaded,
) {
    let mut segments: Vec<Option<Vec<crate::yaml::Segment>>> = Vec::new();
    segments.resize_with(sources.len(), || None);
    let mut lists = std::collections::HashMap::new();
    let mut budget = MAX_LOCATED;
    let places = loaded
        .errors
        .iter_mut()
        .map(|e| (&e.file, e.document, &e.path, &mut e.line, &mut e.column))
        .chain(
            loaded
                .warnings
                .iter_mut()
                .map(|w| (&w.file, w.document, &w.path, &mut w.line, &mut w.column)),
        );
    for (file, document, path, line, column) in places {
        let (Some(document), Some(path), None) = (document, path.as_deref(), *column) else {
            continue;
        };
        let Some(source) = sources.iter().position(|s| &s.name == file) else {
            continue;
        };
        let text = &sources[source].text;
        if budget == 0 {
            continue;
        }
        budget -= 1;
        if crate::raw::looks_like_json(text.strip_prefix('\u{feff}').unwrap_or(text)) {
            if let Some((at_line, at_column)) =
                crate::locate_json::field_position(text, document, path)
            {
                *line = Some(at_line);
                *column = Some(at_column);
            }
            continue;
        }
        let split = segments[source].get_or_insert_with(|| crate::yaml::split(text, limit));
        let Some(segment) = split.iter().find(|s| s.index == document) else {
            continue;
        };
        let body = &text[segment.start..segment.end];
        // In a big List, `items[N]....` is looked for in item N alone (its lines found once).
        let in_item = item_path(path).and_then(|(item, rest)| {
            lists
                .entry((source, document))
                .or_insert_with(|| {
                    let starts = item_starts.remove(&(source, document));
                    ListItems::new(body, segment.first_line, starts)
                })
                .as_ref()?
                .position(body, item, rest)
        });
        if let Some((at_line, at_column)) =
            in_item.or_else(|| field_position(body, segment.first_line, path))
        {
            *line = Some(at_line);
            *column = Some(at_column);
        }
    }
}

/// `items[N].rest` → `(N, rest)` (`rest` empty for the item itself).
fn item_path(path: &str) -> Option<(usize, &str)> {
    let rest = path.strip_prefix("items[")?;
    let (index, rest) = rest.split_once(']')?;
    let rest = match rest.strip_prefix('.') {
        Some(rest) => rest,
        None if rest.is_empty() => rest,
        None => return None,
    };
    Some((index.parse().ok()?, rest))
}

/// The items of a big `kind: List` document read item by item (`yaml::list`): where each
/// begins, and its line.
struct ListItems {
    starts: Vec<usize>,
    lines: Vec<usize>,
}

impl ListItems {
    /// The items of `body` (whose first line is `first_line`), or `None` when it is not a List
    /// the loader reads item by item. `starts`: where they begin, when the read found it.
    fn new(body: &str, first_line: usize, starts: Option<Vec<usize>>) -> Option<ListItems> {
        let starts = match starts {
            Some(starts) => starts,
            None => crate::yaml::list_item_starts(body)?,
        };
        let mut lines = Vec::with_capacity(starts.len());
        let (mut line, mut from) = (first_line, 0);
        for &start in &starts {
            line += body.as_bytes()[from..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            lines.push(line);
            from = start;
        }
        Some(ListItems { starts, lines })
    }

    /// The position of `rest` in item `item` of `body`: the item's own text read as a
    /// one-entry sequence (it begins with its `- `).
    fn position(&self, body: &str, item: usize, rest: &str) -> Option<(usize, usize)> {
        let start = *self.starts.get(item)?;
        let end = self.starts.get(item + 1).copied().unwrap_or(body.len());
        let path = if rest.is_empty() {
            String::from("[0]")
        } else {
            format!("[0].{rest}")
        };
        field_position(&body[start..end], self.lines[item], &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected positions are read off the test texts by hand (1-based line and column).

    #[test]
    fn block_mappings_and_sequences() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n      - name: b\n        resources:\n          requests:\n            cpu: lots\n";
        assert_eq!(
            field_position(
                text,
                1,
                "spec.template.spec.containers[1].resources.requests.cpu"
            ),
            Some((12, 13))
        );
        assert_eq!(
            field_position(text, 1, "spec.template.spec.containers[0].image"),
            Some((8, 9))
        );
        assert_eq!(
            field_position(text, 1, "spec.template.spec.containers[1]"),
            Some((9, 7))
        );
        // Offset by the document's first line in its source.
        assert_eq!(field_position(text, 10, "kind"), Some((11, 1)));
    }

    #[test]
    fn indented_sequences_comments_quotes_and_block_scalars() {
        let text = "# a pod\nmetadata:\n  annotations:\n    note: |\n      cpu: not a key\n  \"name\": p # the name\nspec:\n  containers:\n    - name: c\n      ports:\n        - containerPort: 80\n        - containerPort: x\n";
        assert_eq!(field_position(text, 1, "metadata.name"), Some((6, 3)));
        assert_eq!(
            field_position(text, 1, "spec.containers[0].ports[1].containerPort"),
            Some((12, 11))
        );
    }

    #[test]
    fn flow_collections_over_lines() {
        let text = "kind: Pod\nspec:\n  containers: [{name: a, image: 'x'},\n    {name: b, resources: {requests: {cpu: \"2\", memory: oops}}}]\n";
        assert_eq!(
            field_position(text, 1, "spec.containers[1].resources.requests.memory"),
            Some((4, 48))
        );
        assert_eq!(
            field_position(text, 1, "spec.containers[0].image"),
            Some((3, 26))
        );
    }

    #[test]
    fn load_errors_point_at_their_field() {
        // A List of two nodes (the second with a bad quantity) after a first document.
        let text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: a}\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: b}\n    status:\n      allocatable:\n        cpu: lots\n";
        let sources = [crate::Source {
            name: "in.yaml".into(),
            text: text.into(),
        }];
        let loaded = crate::load(&sources, &crate::LoadOptions::default());
        let error = loaded
            .errors
            .iter()
            .find(|e| e.object.as_deref() == Some("Node/b"))
            .expect("the bad quantity is an error");
        assert_eq!(
            error.path.as_deref(),
            Some("items[1].status.allocatable.cpu")
        );
        assert_eq!((error.line, error.column), (Some(16), Some(9)));
    }

    #[test]
    fn dotted_keys_list_items_and_partial_paths() {
        let text = "kind: List\nitems:\n- kind: Node\n  metadata:\n    labels:\n      topology.kubernetes.io/zone: a\n- kind: Node\n  status:\n    allocatable: {cpu: x}\n";
        assert_eq!(
            field_position(
                text,
                1,
                "items[0].metadata.labels.topology.kubernetes.io/zone"
            ),
            Some((6, 7))
        );
        assert_eq!(
            field_position(text, 1, "items[1].status.allocatable.cpu"),
            Some((9, 19))
        );
        // A missing field: the deepest one found.
        assert_eq!(
            field_position(text, 1, "items[1].status.capacity.cpu"),
            Some((8, 3))
        );
        assert_eq!(field_position(text, 1, "nothing"), None);
        assert_eq!(field_position(text, 1, ""), None);
        assert_eq!(field_position(text, 1, "items[x]"), None);
    }
}
