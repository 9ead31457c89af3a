//! A big `kind: List` document (what `kubectl get ... -o yaml` prints) read item by item: each
//! item of its `items` sequence is parsed as a document of its own, so items can be cached, parsed
//! in slices between a browser's frames, and (natively) on several threads.
//!
//! kubectl writes every item at column 0 as `- ` with the item's lines indented by two spaces
//! (items indented under `items:`, `  - `, are read the same way). An item's text moved left to
//! column 0 is the same YAML node on its own (block structure is relative to the parent's
//! indentation), so its parse is the value the whole document holds at that place. The split is
//! refused whenever that might not hold, and the caller then parses the whole document as before:
//! - the document has an alias (`*name`): an item could refer to another item's anchor;
//! - a lone `\r` (a line break to YAML) or a byte order mark past the start;
//! - a quote, bracket or block scalar before `items:` (it could hold an `items:` line), or an
//!   `items:` line past the first 64 KiB (kubectl writes it second);
//! - an item that does not begin with a plain key (a scalar item: a block scalar's indentation
//!   indicator counts from the sequence's indentation, not the item's);
//! - a line in the items is neither an item's `- `, indented as an item's inside, nor empty (a
//!   comment at column 0, a tab, one space too few), or becomes a marker, directive or tab-led
//!   line once moved;
//! - what is left once the items are taken out (the skeleton) does not read as a mapping whose
//!   `items` is empty (null).
//!
//! An item or skeleton that fails to parse also sends the caller to the whole document, so that
//! every error keeps the location and message a whole parse gives. Depth: an item's root is level
//! 3 of the document (the List, `items`, the item), so items are read under `max_depth - 2`.

use serde_json::Value;

use super::{BodyParse, line_aliases, parse_whole};
use crate::raw::Limits;

/// Documents shorter than this are parsed whole (splitting one buys nothing).
pub(crate) const MIN_SPLIT_BYTES: usize = 256 << 10;

/// A document whose `items:` line starts past this byte is parsed whole (kubectl writes
/// `apiVersion` and then `items`).
const MAX_HEAD_BYTES: usize = 64 << 10;

/// A List document taken apart: its skeleton (the document without its items) and each item's
/// text moved two columns left.
#[derive(Debug)]
pub(crate) struct ListSplit {
    /// The document with the lines of its items taken out (`items:` stays, reading as null).
    pub skeleton: String,
    /// Each item as a document of its own.
    pub items: Vec<String>,
    /// Where each item's first line starts in the document (byte offset).
    pub starts: Vec<usize>,
}

/// The limits one item is read under (its root is the document's level 3); `None` when the
/// document's own limit leaves an item no room.
pub(crate) fn item_limits(limits: &Limits) -> Option<Limits> {
    Some(Limits {
        max_documents: limits.max_documents,
        max_depth: limits.max_depth.checked_sub(2).filter(|&d| d > 0)?,
    })
}

/// A `kind: List` document read item by item, each item by `parse_items`, with where each item
/// begins (byte offsets of their `- ` lines); `None` when it is not one that can be, or a part of
/// it did not parse (the whole document is parsed then).
pub(crate) fn parse_list(
    body: &str,
    limits: &Limits,
    parse_items: impl FnOnce(Vec<String>, &Limits) -> Vec<BodyParse>,
) -> Option<(BodyParse, Vec<usize>)> {
    item_limits(limits)?;
    parse_split(split(body)?, limits, parse_items)
}

/// [`parse_list`] of a List already taken apart (by [`split`], of the same text).
pub(crate) fn parse_split(
    split: ListSplit,
    limits: &Limits,
    parse_items: impl FnOnce(Vec<String>, &Limits) -> Vec<BodyParse>,
) -> Option<(BodyParse, Vec<usize>)> {
    let item_limits = item_limits(limits)?;
    let ListSplit {
        skeleton,
        items,
        starts,
    } = split;
    let skeleton = parse_whole(&skeleton, limits);
    if !matches!(skeleton, BodyParse::Value(_)) {
        return None;
    }
    assemble(skeleton, parse_items(items, &item_limits)).map(|parsed| (parsed, starts))
}

/// Items parsed in order; natively on as many threads as the machine has (at most 8), each
/// taking a contiguous run.
pub(crate) fn parse_items(items: Vec<String>, limits: &Limits) -> Vec<BodyParse> {
    #[cfg(not(target_family = "wasm"))]
    {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        if threads > 1 {
            let run = items.len().div_ceil(threads);
            return std::thread::scope(|scope| {
                let handles: Vec<_> = items
                    .chunks(run)
                    .map(|chunk| {
                        scope.spawn(move || {
                            chunk
                                .iter()
                                .map(|item| parse_whole(item, limits))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|handle| {
                        handle
                            .join()
                            .unwrap_or_else(|p| std::panic::resume_unwind(p))
                    })
                    .collect()
            });
        }
    }
    items.iter().map(|item| parse_whole(item, limits)).collect()
}

/// Where each item of a `kind: List` document the reader reads item by item begins (byte
/// offsets of their `- ` lines); `None` for any other document.
pub(crate) fn list_item_starts(body: &str) -> Option<Vec<usize>> {
    Some(split(body)?.starts)
}

/// Takes a `kind: List` document apart at its column-0 items, or `None` when it is not one that
/// can safely be read item by item (see the module's notes).
pub(crate) fn split(body: &str) -> Option<ListSplit> {
    let mut splitting = Splitting::start(body)?;
    loop {
        if let Step::Done(split) = splitting.advance(body, usize::MAX) {
            return split;
        }
    }
}

/// Where a [`Splitting`] is in the document.
#[derive(Debug, PartialEq)]
enum Part {
    /// Before `items:`.
    Head,
    /// Inside the items.
    Items,
    /// After them.
    Tail,
}

/// A [`split`] in progress, resumable: a caller that must not block (a browser's main thread)
/// takes a big document apart a slice at a time ([`Splitting::advance`]), with the same result.
#[derive(Debug)]
pub(crate) struct Splitting {
    /// Bytes of the document scanned.
    offset: usize,
    part: Part,
    /// An item's `- ` and the indentation of its other lines: kubectl writes `- ` at column 0;
    /// `  - ` (items indented under `items:`) is read the same way, moved two more columns.
    entry: String,
    inner: String,
    /// An `&` and a `*` seen (an alias needs an anchor).
    ampersand: bool,
    star: bool,
    split: ListSplit,
}

/// What [`Splitting::advance`] got to.
#[derive(Debug)]
pub(crate) enum Step {
    /// More of the document is left.
    More,
    /// The document is scanned: its split, or `None` when it cannot be read item by item.
    Done(Option<ListSplit>),
}

impl Splitting {
    /// Starts taking `body` apart, or `None` when it is too short to be worth it (what refuses a
    /// split in its text is found line by line, by [`Splitting::advance`]).
    pub(crate) fn start(body: &str) -> Option<Splitting> {
        (body.len() >= MIN_SPLIT_BYTES).then(|| Splitting {
            offset: 0,
            part: Part::Head,
            entry: String::new(),
            inner: String::new(),
            ampersand: false,
            star: false,
            split: ListSplit::empty(),
        })
    }

    /// Bytes of the document scanned so far.
    pub(crate) fn scanned(&self) -> usize {
        self.offset
    }

    /// Scans the next lines of `body` (the text `start` was given), at least one and about
    /// `max_bytes`.
    pub(crate) fn advance(&mut self, body: &str, max_bytes: usize) -> Step {
        let from = self.offset;
        for line in body[from..].split_inclusive('\n') {
            if self.offset > from && self.offset - from >= max_bytes {
                return Step::More;
            }
            let at = self.offset;
            self.offset += line.len();
            if self.line(line, at).is_none() {
                return Step::Done(None);
            }
        }
        let done = self.part != Part::Head && !self.split.items.is_empty();
        Step::Done(done.then(|| std::mem::replace(&mut self.split, ListSplit::empty())))
    }

    /// Takes one line (starting at byte `at`); `None` refuses the split.
    fn line(&mut self, line: &str, at: usize) -> Option<()> {
        self.plain_line(line, at)?;
        let bare = line.trim_end_matches(['\n', '\r']);
        let split = &mut self.split;
        match self.part {
            Part::Head => {
                // kubectl writes `items:` second; a long head is not what it prints.
                if at > MAX_HEAD_BYTES {
                    return None;
                }
                // A quote, bracket or block scalar before `items:` could hold an `items:` line.
                let trimmed = bare.trim_start();
                if !trimmed.starts_with('#') && bare.contains(['"', '\'', '[', '{', '|', '>']) {
                    return None;
                }
                split.skeleton.push_str(line);
                if bare == "items:" {
                    self.part = Part::Items;
                }
            }
            Part::Items => {
                if self.entry.is_empty() {
                    let indent = line.len() - line.trim_start_matches(' ').len();
                    if indent > 8 || !line[indent..].starts_with("- ") {
                        return None;
                    }
                    self.entry = format!("{}- ", " ".repeat(indent));
                    self.inner = " ".repeat(indent + 2);
                }
                if let Some(rest) = line.strip_prefix(self.entry.as_str()) {
                    check_moved(rest)?;
                    // An item must be a mapping whose first key is plain: a scalar item (a
                    // block scalar's indentation is counted from the sequence, not the item).
                    let first = rest.trim_end_matches(['\n', '\r']);
                    let key = first.ends_with(':') || first.contains(": ");
                    if !key || !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                        return None;
                    }
                    split.items.push(String::from(rest));
                    split.starts.push(at);
                } else if let Some(rest) = line.strip_prefix(self.inner.as_str()) {
                    check_moved(rest)?;
                    split.items.last_mut()?.push_str(rest);
                } else if bare.is_empty() {
                    split.items.last_mut()?.push_str(line);
                } else if line.starts_with([' ', '\t', '#', '-']) {
                    return None;
                } else {
                    split.skeleton.push_str(line);
                    self.part = Part::Tail;
                }
            }
            Part::Tail => {
                // A second sequence at column 0 after the items would be a second `items`.
                if line.starts_with("- ") || line.starts_with("items:") {
                    return None;
                }
                split.skeleton.push_str(line);
            }
        }
        Some(())
    }
}

impl Splitting {
    /// Whether a line has nothing that could tie one item to another or make the parser see
    /// other lines than the split does: no alias (and no `&` and `*` both in the document, as
    /// alias detection outside a parser is approximate), no lone `\r` (a line break to YAML), no
    /// byte order mark past the document's start.
    fn plain_line(&mut self, line: &str, at: usize) -> Option<()> {
        // Most lines hold none of the bytes the checks look for (`0xEF` begins a byte order
        // mark): one pass over them.
        if !line
            .bytes()
            .any(|b| matches!(b, b'&' | b'*' | b'\r' | 0xEF))
        {
            return Some(());
        }
        let text = line.strip_suffix('\n').unwrap_or(line);
        if line_aliases(text.strip_suffix('\r').unwrap_or(text)) > 0 {
            return None;
        }
        self.ampersand |= line.contains('&');
        self.star |= line.contains('*');
        if self.ampersand && self.star {
            return None;
        }
        let after_mark = if at == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if after_mark.contains('\u{feff}') {
            return None;
        }
        let bytes = line.as_bytes();
        let lone_cr = line.contains('\r')
            && bytes
                .iter()
                .enumerate()
                .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        (!lone_cr).then_some(())
    }
}

impl ListSplit {
    fn empty() -> ListSplit {
        ListSplit {
            skeleton: String::new(),
            items: Vec::new(),
            starts: Vec::new(),
        }
    }
}

/// Refuses a line that would mean something else at column 0: a document marker, a directive or
/// a leading tab.
fn check_moved(rest: &str) -> Option<()> {
    let marker = |m: &str| {
        rest.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\r', '\n']))
    };
    (!marker("---") && !marker("...") && !rest.starts_with(['%', '\t'])).then_some(())
}

/// The document from its skeleton's parse and its items' parses, or `None` when any of them did
/// not parse to a value (the caller then parses the whole document).
pub(crate) fn assemble(skeleton: BodyParse, items: Vec<BodyParse>) -> Option<BodyParse> {
    let BodyParse::Value(Value::Object(mut map)) = skeleton else {
        return None;
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        match item {
            BodyParse::Value(value) => values.push(value),
            // An empty item (`- ` alone, or `- null`) is a null entry, as in the whole document.
            BodyParse::Null => values.push(Value::Null),
            BodyParse::TooManyAliases(_) | BodyParse::Invalid(..) => return None,
        }
    }
    match map.get_mut("items") {
        Some(slot @ Value::Null) => *slot = Value::Array(values),
        _ => return None,
    }
    Some(BodyParse::Value(Value::Object(map)))
}

#[cfg(test)]
mod tests;
