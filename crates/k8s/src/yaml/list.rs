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
//! - a quote, bracket or block scalar before `items:` (it could hold an `items:` line);
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

use super::{BodyParse, count_aliases, parse_whole};
use crate::raw::Limits;

/// Documents shorter than this are parsed whole (splitting one buys nothing).
pub(crate) const MIN_SPLIT_BYTES: usize = 256 << 10;

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

/// A `kind: List` document read item by item, each item by `parse_items`; `None` when it is not
/// one that can be, or a part of it did not parse (the whole document is parsed then).
pub(crate) fn parse_list(
    body: &str,
    limits: &Limits,
    parse_items: impl FnOnce(Vec<String>, &Limits) -> Vec<BodyParse>,
) -> Option<BodyParse> {
    let item_limits = item_limits(limits)?;
    let split = split(body)?;
    let skeleton = parse_whole(&split.skeleton, limits);
    if !matches!(skeleton, BodyParse::Value(_)) {
        return None;
    }
    assemble(skeleton, parse_items(split.items, &item_limits))
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
    if body.len() < MIN_SPLIT_BYTES || !body.contains("\nitems:") || !plain_text(body) {
        return None;
    }
    let mut skeleton = String::new();
    let mut items: Vec<String> = Vec::new();
    let mut starts = Vec::new();
    let mut offset = 0;
    // Before `items:`, inside the items, after them.
    #[derive(PartialEq)]
    enum Part {
        Head,
        Items,
        Tail,
    }
    let mut part = Part::Head;
    // The items' `- ` and their other lines: kubectl writes `- ` at column 0; `  - ` (items
    // indented under `items:`) is read the same way, moved two more columns.
    let (mut entry, mut inner) = (String::new(), String::new());
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let at = offset;
        offset += line.len();
        match part {
            Part::Head => {
                // A quote, bracket or block scalar before `items:` could hold an `items:` line.
                let trimmed = bare.trim_start();
                if !trimmed.starts_with('#') && bare.contains(['"', '\'', '[', '{', '|', '>']) {
                    return None;
                }
                skeleton.push_str(line);
                if bare == "items:" {
                    part = Part::Items;
                }
            }
            Part::Items => {
                if entry.is_empty() {
                    let indent = line.len() - line.trim_start_matches(' ').len();
                    if indent > 8 || !line[indent..].starts_with("- ") {
                        return None;
                    }
                    entry = format!("{}- ", " ".repeat(indent));
                    inner = " ".repeat(indent + 2);
                }
                if let Some(rest) = line.strip_prefix(entry.as_str()) {
                    check_moved(rest)?;
                    // An item must be a mapping whose first key is plain: a scalar item (a
                    // block scalar's indentation is counted from the sequence, not the item).
                    let first = rest.trim_end_matches(['\n', '\r']);
                    let key = first.ends_with(':') || first.contains(": ");
                    if !key || !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                        return None;
                    }
                    items.push(String::from(rest));
                    starts.push(at);
                } else if let Some(rest) = line.strip_prefix(inner.as_str()) {
                    check_moved(rest)?;
                    items.last_mut()?.push_str(rest);
                } else if bare.is_empty() {
                    items.last_mut()?.push_str(line);
                } else if line.starts_with([' ', '\t', '#', '-']) {
                    return None;
                } else {
                    skeleton.push_str(line);
                    part = Part::Tail;
                }
            }
            Part::Tail => {
                // A second sequence at column 0 after the items would be a second `items`.
                if line.starts_with("- ") || line.starts_with("items:") {
                    return None;
                }
                skeleton.push_str(line);
            }
        }
    }
    (part != Part::Head && !items.is_empty()).then_some(ListSplit {
        skeleton,
        items,
        starts,
    })
}

/// Whether the document has nothing that could tie one item to another or make the parser see
/// other lines than `split` does: no alias (an anchor and a `*` both present are refused, as
/// alias detection outside a parser is approximate), no lone `\r` (a line break to YAML), no
/// byte order mark past the start.
fn plain_text(body: &str) -> bool {
    if count_aliases(body) > 0 || (body.contains('&') && body.contains('*')) {
        return false;
    }
    if body
        .strip_prefix('\u{feff}')
        .unwrap_or(body)
        .contains('\u{feff}')
    {
        return false;
    }
    let bytes = body.as_bytes();
    !body.contains('\r')
        || !bytes
            .iter()
            .enumerate()
            .any(|(at, &b)| b == b'\r' && bytes.get(at + 1) != Some(&b'\n'))
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
