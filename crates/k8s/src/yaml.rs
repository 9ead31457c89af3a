//! YAML text to untyped documents. This is the only module that uses the YAML crate
//! (`serde-saphyr`, chosen by measurement: see `crates/k8s/Cargo.toml`).
//!
//! The stream is split into documents here, at `---` / `...` marker lines (which YAML forbids
//! inside any scalar at column 0), and each document is parsed on its own: a syntax error costs
//! one document, not the rest of the file, and each document's start line is known. Empty and
//! comment-only documents (as `helm template` emits) are counted but not returned.
//!
//! Bounds: a document with more than [`MAX_ALIASES`] alias uses is rejected unread; while reading,
//! every value produced (alias expansions included) is counted against a budget proportional to
//! the document's size, and nesting is limited to `max_depth`. serde-saphyr enforces its own
//! budget too (events, nodes, anchors, alias replays), sized here from the document's length, and
//! rejects duplicate mapping keys as kubectl's strict decoding does.

use core::cell::Cell;

use serde::de::DeserializeSeed;
use serde_json::Value;

use crate::error::InputError;
use crate::raw::{Limits, RawDocument};

mod cache;
mod list;
mod tree;
pub use cache::{CacheReads, DocumentCache, Warmup, WarmupProgress};
pub(crate) use list::list_item_starts;
use tree::Bounded;

/// Alias uses (`*name`) accepted in one document.
pub(crate) const MAX_ALIASES: usize = 1_000;

/// Values one document may expand to: generous for real manifests (about one value per byte
/// without aliases), far below what an alias bomb needs.
fn value_budget(document_len: usize) -> usize {
    document_len.saturating_mul(10).saturating_add(100_000)
}

/// Parses a YAML stream into its non-empty documents; each failure is one `Err` (without `file`,
/// which the caller fills) and reading goes on with the next document.
pub(crate) fn parse_documents(text: &str, limits: &Limits) -> Vec<Result<RawDocument, InputError>> {
    parse_documents_with(text, limits, None)
}

/// [`parse_documents`], taking each document whose text `cache` holds from it (and keeping the
/// others there): the result is the same, parsed or not. The caller begins and finishes the
/// cache's read ([`DocumentCache::begin`]).
pub(crate) fn parse_documents_with(
    text: &str,
    limits: &Limits,
    mut cache: Option<&mut DocumentCache>,
) -> Vec<Result<RawDocument, InputError>> {
    let mut results = Vec::new();
    for segment in split(text, limits.max_documents) {
        if segment.index >= limits.max_documents {
            results.push(Err(InputError {
                document: Some(segment.index),
                line: Some(segment.first_line),
                message: format!(
                    "more than {} documents; the rest is not read",
                    limits.max_documents
                ),
                ..InputError::default()
            }));
            break;
        }
        let Some(content_line) = segment.content_line else {
            continue;
        };
        let body = &text[segment.start..segment.end];
        let (parsed, item_starts) = match cache.as_deref_mut() {
            Some(cache) => cache.parse(body, limits),
            None => read_body(body, limits),
        };
        if let Some(result) = place(&segment, content_line, parsed, item_starts) {
            results.push(result);
        }
    }
    results
}

/// One document's text parsed on its own: what it reads to, with lines counted from its first
/// line (`---` or not), so that the same text anywhere in a stream parses to the same value.
#[derive(Clone, Debug)]
pub(crate) enum BodyParse {
    /// Nothing but `null` (an empty document): counted, not returned.
    Null,
    /// The document.
    Value(Value),
    /// Rejected unread: this many alias uses.
    TooManyAliases(usize),
    /// The parser's error: its location (1-based line in the text, column) and message.
    Invalid(Option<(usize, usize)>, String),
}

/// [`read_body`]'s parse alone (tests compare it with a whole parse).
#[cfg(test)]
pub(crate) fn parse_body(body: &str, limits: &Limits) -> BodyParse {
    read_body(body, limits).0
}

/// Parses one document's text (between its markers), and says where the items of a List read
/// item by item begin ([`ItemStarts`]). A big `kind: List` is read item by item, natively on
/// several threads ([`list`]); the value is the same.
fn read_body(body: &str, limits: &Limits) -> (BodyParse, ItemStarts) {
    match list::parse_list(body, limits, list::parse_items) {
        Some((parsed, starts)) => (parsed, Some(starts)),
        None => (parse_whole(body, limits), None),
    }
}

/// Where the items of a `kind: List` document read item by item begin (byte offsets of their
/// `- ` lines in the document's text), for locating a field of an item without taking the
/// document apart again; `None` for a document read whole.
pub(crate) type ItemStarts = Option<Vec<usize>>;

/// Parses one document's text as one whole.
pub(crate) fn parse_whole(body: &str, limits: &Limits) -> BodyParse {
    let aliases = count_aliases(body);
    if aliases > MAX_ALIASES {
        return BodyParse::TooManyAliases(aliases);
    }
    let budget = Cell::new(value_budget(body.len()));
    let seed = Bounded {
        budget: &budget,
        depth: 0,
        max_depth: limits.max_depth,
    };
    let options = saphyr_options(body.len(), limits);
    let parsed = serde_saphyr::with_deserializer_from_str_with_options(body, options, |de| {
        seed.deserialize(de)
    });
    match parsed {
        Ok(Value::Null) => BodyParse::Null,
        Ok(value) => BodyParse::Value(value),
        Err(error) => BodyParse::Invalid(
            error
                .location()
                .filter(|l| l.line() > 0)
                .map(|l| (l.line() as usize, l.column() as usize)),
            error.to_string(),
        ),
    }
}

/// A document's parse placed in its stream: its index, and lines counted from the stream's start.
fn place(
    segment: &Segment,
    content_line: usize,
    parsed: BodyParse,
    item_starts: ItemStarts,
) -> Option<Result<RawDocument, InputError>> {
    let document_error = |line: usize, column: Option<usize>, message: String| InputError {
        document: Some(segment.index),
        line: Some(line),
        column,
        message,
        ..InputError::default()
    };
    match parsed {
        BodyParse::Null => None,
        BodyParse::Value(value) => Some(Ok(RawDocument {
            index: segment.index,
            start_line: content_line,
            value,
            item_starts,
        })),
        BodyParse::TooManyAliases(aliases) => Some(Err(document_error(
            content_line,
            None,
            format!("{aliases} YAML alias uses (limit {MAX_ALIASES}); rejected unread"),
        ))),
        BodyParse::Invalid(location, message) => {
            let offset = segment.first_line - 1;
            let location = location.map(|(line, column)| (line + offset, column));
            let message = relocate_message(&message, offset, location);
            let (line, column) = match location {
                Some((line, column)) => (line, Some(column)),
                None => (content_line, None),
            };
            Some(Err(document_error(line, column, message)))
        }
    }
}

/// serde-saphyr's options for one document: strict duplicate keys, no source snippets in messages
/// (the caller reports file, line and column), and a budget that grows with the document so that a
/// 5,000-node `kubectl get -o yaml` List passes while alias bombs and deep nesting do not.
fn saphyr_options(document_len: usize, limits: &Limits) -> serde_saphyr::Options {
    let size_scaled = document_len.saturating_mul(2).max(1_000_000);
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_events: size_scaled,
            max_nodes: size_scaled,
            max_total_scalar_bytes: document_len.max(64 * 1024 * 1024),
            max_depth: limits.max_depth.saturating_add(1),
        },
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        // YAML 1.2 core schema: only true/false are booleans (a key `y:` stays the string "y").
        strict_booleans: true,
        with_snippet: false,
    }
}

/// A document's byte range and lines.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) index: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// 1-based line of `start`.
    pub(crate) first_line: usize,
    /// 1-based line of the first content (not blank, comment or directive); `None` when empty.
    content_line: Option<usize>,
}

/// Whether a line is a marker: `---` or `...` followed by nothing or whitespace.
fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

/// Whether a piece of a line has no content (blank or a comment).
fn is_blank_or_comment(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// The document being split off.
struct Open {
    start: usize,
    first_line: usize,
    has_marker: bool,
    content_line: Option<usize>,
}

impl Open {
    /// Ends the document at `end`: kept when it had a `---` or content.
    fn close(&self, end: usize, segments: &mut Vec<Segment>) {
        if self.has_marker || self.content_line.is_some() {
            let index = segments.len();
            segments.push(Segment {
                index,
                start: self.start,
                end,
                first_line: self.first_line,
                content_line: self.content_line,
            });
        }
    }
}

/// Splits a YAML stream into documents. The text before the first `---` is a document only when
/// it has content; after that, every `---` starts one (empty or not). Stops after `limit + 1`
/// documents, so a stream of a million `---` lines costs no more than the limit.
pub(crate) fn split(text: &str, limit: usize) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut open = Open {
        start: 0,
        first_line: 1,
        has_marker: false,
        content_line: None,
    };
    let mut offset = 0;
    for (line_index, line) in text.split_inclusive('\n').enumerate() {
        let number = line_index + 1;
        let bare = line.trim_end_matches(['\n', '\r']);
        let bare = if number == 1 {
            bare.trim_start_matches('\u{feff}')
        } else {
            bare
        };
        if is_marker(bare, "---") {
            // A `---` after directives or comments only belongs to the same document.
            if open.has_marker || open.content_line.is_some() {
                open.close(offset, &mut segments);
                if segments.len() > limit {
                    return segments;
                }
                open = Open {
                    start: offset,
                    first_line: number,
                    has_marker: true,
                    content_line: None,
                };
            }
            open.has_marker = true;
            if !is_blank_or_comment(&bare[3..]) {
                open.content_line = Some(number);
            }
        } else if is_marker(bare, "...") {
            open.close(offset, &mut segments);
            if segments.len() > limit {
                return segments;
            }
            open = Open {
                start: offset + line.len(),
                first_line: number + 1,
                has_marker: false,
                content_line: None,
            };
        } else if open.content_line.is_none()
            && !is_blank_or_comment(bare)
            // A `%` line before the `---` is a directive, not content.
            && (open.has_marker || !bare.starts_with('%'))
        {
            open.content_line = Some(number);
        }
        offset += line.len();
    }
    open.close(text.len(), &mut segments);
    segments
}

/// Counts alias uses (`*name` at the start of a token, outside comments and quoted scalars on the
/// same line). An over-count only matters past [`MAX_ALIASES`]; the value budget is the real bound.
fn count_aliases(text: &str) -> usize {
    // Most lines have no `*` at all (found at memchr speed).
    if !text.as_bytes().contains(&b'*') {
        return 0;
    }
    text.lines().map(line_aliases).sum()
}

/// [`count_aliases`] of one line (without its line break).
fn line_aliases(line: &str) -> usize {
    if !line.as_bytes().contains(&b'*') {
        return 0;
    }
    let mut count = 0;
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None => {
                let token_start = matches!(previous, ' ' | '\t' | '[' | '{' | ',');
                if token_start && (c == '"' || c == '\'') {
                    quote = Some(c);
                } else if token_start && c == '#' {
                    break;
                } else if token_start
                    && c == '*'
                    && chars.peek().is_some_and(|n| {
                        !n.is_whitespace() && !matches!(n, '*' | ',' | '[' | ']' | '{' | '}')
                    })
                {
                    count += 1;
                }
            }
        }
        previous = c;
    }
    count
}

/// Rewrites `line N` in the parser's message by `offset` (it parsed one document, not the file)
/// and drops the first ` at line L column C`, which the error's own fields carry.
fn relocate_message(message: &str, offset: usize, location: Option<(usize, usize)>) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(found) = rest.find("line ") {
        let (before, after) = rest.split_at(found + "line ".len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(number) => out.push_str(&(number + offset).to_string()),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    if let Some((line, column)) = location {
        for own in [
            format!(" at line {line}, column {column}"),
            format!(" at line {line} column {column}"),
        ] {
            if let Some(found) = out.find(&own) {
                out.replace_range(found..found + own.len(), "");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_documents: 1000,
        max_depth: 64,
    };

    fn ok_values(text: &str) -> Vec<(usize, usize, Value)> {
        parse_documents(text, &LIMITS)
            .into_iter()
            .map(|r| r.unwrap())
            .map(|d| (d.index, d.start_line, d.value))
            .collect()
    }

    #[test]
    fn splits_helm_output_and_skips_comment_only_documents() {
        let text = "---\n# Source: chart/templates/empty.yaml\n---\n# Source: chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n---\n\n---\nkind: Pod\n";
        let docs = ok_values(text);
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[0].0, docs[0].1), (1, 5));
        assert_eq!(docs[0].2["kind"], "ConfigMap");
        assert_eq!((docs[1].0, docs[1].1), (3, 10));
    }

    #[test]
    fn leading_comments_are_not_a_document() {
        let docs = ok_values("# just a comment\n---\na: 1\n...\n# trailing\n---\nb: 2\n");
        assert_eq!(
            docs.iter().map(|d| (d.0, d.1)).collect::<Vec<_>>(),
            vec![(0, 3), (1, 7)]
        );
        let docs = ok_values("a: 1\n---\nb: 2");
        assert_eq!(
            docs.iter().map(|d| (d.0, d.1)).collect::<Vec<_>>(),
            vec![(0, 1), (1, 3)]
        );
    }

    #[test]
    fn directives_stay_with_their_document() {
        let docs = ok_values("%YAML 1.2\n---\na: 1\n");
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].2["a"], 1);
    }

    #[test]
    fn syntax_error_is_located_in_the_file_and_reading_goes_on() {
        let text = "a: 1\n---\nb: [1, 2\nc: 3\n---\nd: 4\n";
        let results = parse_documents(text, &LIMITS);
        assert_eq!(results.len(), 3);
        let error = results[1].as_ref().unwrap_err();
        assert_eq!(error.document, Some(1));
        // The unterminated flow sequence is detected at the start of line 4 (1-based, file-wide).
        assert_eq!((error.line, error.column), (Some(4), Some(2)));
        assert!(error.message.contains("':'"), "{}", error.message);
        assert!(
            !error.message.contains("line"),
            "the location is in the fields: {}",
            error.message
        );
        assert_eq!(results[2].as_ref().unwrap().value["d"], 4);
    }

    #[test]
    fn billion_laughs_is_rejected() {
        let mut text = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for (name, previous) in [
            ("b", "a"),
            ("c", "b"),
            ("d", "c"),
            ("e", "d"),
            ("f", "e"),
            ("g", "f"),
            ("h", "g"),
            ("i", "h"),
        ] {
            let refs = vec![format!("*{previous}"); 9].join(",");
            text.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let results = parse_documents(&text, &LIMITS);
        assert!(results[0].is_err());
    }

    #[test]
    fn quadratic_alias_expansion_is_bounded_by_the_value_budget() {
        // One 2,000-value anchor referenced 900 times (under the alias count limit): 1.8M values.
        let big: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
        let mut text = format!("a: &a [{}]\nb: [", big.join(","));
        text.push_str(&vec!["*a"; 900].join(","));
        text.push_str("]\n");
        let error = parse_documents(&text, &LIMITS).remove(0).unwrap_err();
        assert!(
            error.message.contains("too many values"),
            "{}",
            error.message
        );
    }

    #[test]
    fn too_many_aliases_is_rejected_unread() {
        let text = format!("a: &a 1\nb: [{}]\n", vec!["*a"; 1001].join(", "));
        let error = parse_documents(&text, &LIMITS).remove(0).unwrap_err();
        assert!(
            error.message.contains("1001 YAML alias uses"),
            "{}",
            error.message
        );
    }

    #[test]
    fn counts_aliases_not_globs_or_quotes() {
        assert_eq!(count_aliases("a: *x\nb: [*y, *z]\n"), 3);
        assert_eq!(
            count_aliases("a: \"*x\"\nb: '*y' # *z\nc: 2*3\nd: * x\n"),
            0
        );
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let text = format!("{}1{}", "[".repeat(65), "]".repeat(65));
        let error = parse_documents(&text, &LIMITS).remove(0).unwrap_err();
        assert!(
            error.message.contains("deeper than 64"),
            "{}",
            error.message
        );
        let text = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse_documents(&text, &LIMITS).remove(0).is_ok());
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let results = parse_documents("metadata:\n  name: a\n  name: b\n", &LIMITS);
        let error = results[0].as_ref().unwrap_err();
        assert!(error.message.contains("duplicate"), "{}", error.message);
        assert_eq!(error.line, Some(3));
    }

    #[test]
    fn merge_keys_and_scalar_keys() {
        let docs = ok_values("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nports:\n  80: http\n");
        assert_eq!(docs[0].2["m"], serde_json::json!({"x": 1, "y": 3}));
        assert_eq!(docs[0].2["ports"]["80"], "http");
    }

    #[test]
    fn document_limit_stops_reading() {
        let limits = Limits {
            max_documents: 2,
            max_depth: 64,
        };
        let results = parse_documents("a: 1\n---\nb: 2\n---\nc: 3\n---\nd: 4\n", &limits);
        assert_eq!(results.len(), 3);
        assert!(
            results[2]
                .as_ref()
                .unwrap_err()
                .message
                .contains("more than 2 documents")
        );
    }
}
