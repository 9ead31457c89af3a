//! A List read item by item is the List read whole: every document of tests/corpus (public,
//! sources in tests/corpus/SOURCES.md) and tests/scenarios written as a `kubectl get -o yaml`
//! List's item, and hand-made items for each YAML shape the split must keep or refuse.

use crate::test_files::corpus_and_scenario_files;

use super::super::{BodyParse, parse_body, parse_whole, split as split_documents};
use super::{MIN_SPLIT_BYTES, Splitting, Step, split};
use crate::raw::Limits;

const LIMITS: Limits = Limits {
    max_documents: 100_000,
    max_depth: 64,
};

/// A document's text as a List item, as kubectl writes one: its first content line after `- `,
/// every other line two columns right (empty lines stay empty).
fn as_item(document: &str) -> String {
    let mut out = String::new();
    let mut started = false;
    for line in document.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if !started {
            let trimmed = bare.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') || bare == "---" {
                continue;
            }
            started = true;
            out.push_str("- ");
        } else if bare.is_empty() {
            out.push_str(line);
            continue;
        } else {
            out.push_str("  ");
        }
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// A List of `items`, repeated until it is big enough to be split.
fn list_of(items: &[String]) -> String {
    let mut text = String::from("apiVersion: v1\nitems:\n");
    while text.len() < MIN_SPLIT_BYTES {
        for item in items {
            text.push_str(item);
        }
    }
    text.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    text
}

/// The document read as the reader reads it (item by item when it can) is the document read
/// whole, errors included.
fn assert_same(document: &str, what: &str) {
    assert_eq!(
        format!("{:?}", parse_body(document, &LIMITS)),
        format!("{:?}", parse_whole(document, &LIMITS)),
        "{what:?}"
    );
}

fn value(parsed: BodyParse) -> serde_json::Value {
    match parsed {
        BodyParse::Value(value) => value,
        other => panic!("not a value: {other:?}"),
    }
}

/// The List of `items` (each with where it came from) read item by item equals it read whole;
/// a difference names the first item that differs.
fn assert_reads_the_same(items: &[(String, String)]) {
    let texts: Vec<String> = items.iter().map(|(_, item)| item.clone()).collect();
    let list = list_of(&texts);
    assert!(split(&list).is_some(), "the List is read item by item");
    let whole = value(parse_whole(&list, &LIMITS));
    let by_items = value(parse_body(&list, &LIMITS));
    if whole != by_items {
        let (a, b) = (&whole["items"], &by_items["items"]);
        let at = (0..).find(|&i| a.get(i) != b.get(i)).expect("a difference");
        panic!(
            "item {at} ({}) differs:\n{:?}\n{:?}",
            items[at % items.len()].0,
            a.get(at),
            b.get(at)
        );
    }
}

#[test]
fn every_corpus_and_scenario_document_reads_the_same_as_an_item() {
    let files = corpus_and_scenario_files();
    let mut items = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        for segment in split_documents(&text, LIMITS.max_documents) {
            let document = &text[segment.start..segment.end];
            let item = as_item(document);
            if !item.is_empty() && matches!(parse_whole(document, &LIMITS), BodyParse::Value(_)) {
                items.push((
                    format!("{} document {}", path.display(), segment.index),
                    item,
                ));
            }
        }
    }
    // A document the split refuses as an item is read whole, the same; the only ones refused
    // are written in flow style (JSON: no plain first key), the rest are split.
    let (kept, refused): (Vec<_>, Vec<_>) = items
        .into_iter()
        .partition(|(_, item)| split(&list_of(std::slice::from_ref(item))).is_some());
    for (what, item) in &refused {
        assert_same(&list_of(std::slice::from_ref(item)), what);
    }
    let not_flow: Vec<&String> = refused
        .iter()
        .filter(|(_, item)| !item.starts_with("- {"))
        .map(|(what, _)| what)
        .collect();
    assert!(
        kept.len() > 80 && not_flow.is_empty(),
        "{} split; refused: {not_flow:?}",
        kept.len()
    );
    assert_reads_the_same(&kept);
}

#[test]
fn the_items_of_real_kubectl_lists_read_the_same() {
    // Lists as kubectl printed them (popeye's fixtures, kubectl's own test data, the scenarios'
    // cluster snapshots): their items, as they are written.
    let files = corpus_and_scenario_files();
    let mut items = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let Some(at) = text.find("\nitems:\n") else {
            continue;
        };
        let rest = &text[at + "\nitems:\n".len()..];
        // Items written at column 0 (kubectl) or indented under `items:`, moved to column 0.
        let indent = if rest.starts_with("- ") { "" } else { "  " };
        let mut current: Option<String> = None;
        for line in rest.split_inclusive('\n') {
            if let Some(line) = line.strip_prefix(indent).filter(|l| l.starts_with("- ")) {
                items.extend(
                    current
                        .take()
                        .map(|item| (path.display().to_string(), item)),
                );
                current = Some(line.to_string());
            } else if line.trim_end().is_empty() {
                if let Some(item) = current.as_mut() {
                    item.push_str(line);
                }
            } else if let Some(line) = line.strip_prefix(indent).filter(|l| l.starts_with("  ")) {
                if let Some(item) = current.as_mut() {
                    item.push_str(line);
                }
            } else {
                break;
            }
        }
        items.extend(current.map(|item| (path.display().to_string(), item)));
    }
    for (_, item) in &mut items {
        if !item.ends_with('\n') {
            item.push('\n');
        }
    }
    assert!(items.len() > 100, "{} items", items.len());
    assert_reads_the_same(&items);
}

#[test]
fn yaml_shapes_inside_items_read_the_same() {
    let items = [
        // Block scalars, kept and folded, with an indentation indicator and empty lines.
        "- a: |\n    one\n\n    two\n  b: >-\n    folded\n    text\n  c: |2\n      indented\n",
        // Multi-line plain and quoted scalars, flow collections over lines.
        "- a: plain\n    continued\n  b: \"double\n    quoted\"\n  c: {x: 1,\n    y: [2, 3]}\n",
        // Nested sequences in compact form, sequences of mappings, comments.
        "- a:\n  - - x\n    - y # comment\n  # a comment line\n  - - {z: 1}\n",
        // CRLF line ends.
        "- a: 1\r\n  b:\r\n    c: 2\r\n",
        // Anchors without aliases, tags, quoted and complex keys, a block scalar in a sequence.
        "- a: &top !!str 1\n  \"quoted key\": '2'\n  ? complex\n  : value\n  l:\n  - |2\n      two more\n",
    ];
    for item in items {
        let list = list_of(&[item.to_string()]);
        assert!(split(&list).is_some(), "{item:?} is split");
        assert_same(&list, item);
    }
}

#[test]
fn doubtful_lists_are_read_whole() {
    let refused = [
        // An alias may point into another item.
        "- a: &x 1\n- b: *x\n",
        // A comment at column 0 between items.
        "- a: 1\n# between\n- b: 2\n",
        // A line with one space of indentation, and a tab.
        "- a: 1\n b: 2\n",
        "- a: |\n  \tx\n",
        // A line that would become a document marker once moved.
        "- a: x\n  ---\n",
        // `-` with nothing after it.
        "-\n  a: 1\n",
        // Items that are not mappings with a plain first key: null, scalars, a block scalar
        // whose indentation indicator counts from the sequence, a nested sequence, an anchor.
        "- \n- null\n",
        "- just text\n",
        "- |1\n   abc\n",
        "- - x\n  - y\n",
        "- &top a: 1\n",
        "- \"quoted key\": 1\n",
        // A lone `\r` (a line break to YAML, not to the split), a byte order mark inside.
        "- a: 1\rb: 2\n",
        "- a: 1\n  \u{feff}b: 2\n",
        // An alias the simple count misses, beside an anchor.
        "- a: &x 1\n  b: [a \"q, *x]\n",
    ];
    for item in refused {
        let list = list_of(&[item.to_string()]);
        assert!(split(&list).is_none(), "{item:?} is not split");
        assert_same(&list, item);
    }
    // Items indented under `items:` (another valid style) are read item by item too, and the
    // same; one with an item's inside one column short is read whole.
    let mut indented = String::from("apiVersion: v1\nitems:\n");
    while indented.len() < MIN_SPLIT_BYTES {
        indented.push_str("  - a: 1\n    b: [x]\n");
    }
    assert!(split(&indented).is_some());
    assert_same(&indented, "items under `items:`");
    indented.push_str("  - a: 1\n   b: 2\n");
    assert!(split(&indented).is_none());
    // A byte order mark inside is refused even after one at the start.
    let marked = format!("\u{feff}{}", list_of(&["- a: 1\n  \u{feff}b: 2\n".into()]));
    assert!(split(&marked).is_none());
    // A head whose quoted value could hold the `items:` line.
    let quoted = format!(
        "kind: List\na: \"\n{}",
        list_of(&["- a: 1\n".into()]).replacen("\nitems:", "\n\"\nitems:", 1)
    );
    assert!(split(&quoted).is_none());
    assert_same(&quoted, "a quoted head");
    let twice = list_of(&["- a: 1\n".into()]) + "items:\n- b: 2\n";
    assert!(split(&twice).is_none());
    assert!(matches!(
        parse_body(&twice, &LIMITS),
        BodyParse::Invalid(..)
    ));
}

#[test]
fn an_error_in_one_item_is_the_whole_documents_error() {
    let good = "- a: 1\n  b: [1, 2]\n".to_string();
    let mut list = list_of(&[good]);
    let at = list.len() / 2;
    let at = at + list[at..].find("\n- ").expect("an item") + 1;
    list.insert_str(at, "- broken: [unclosed\n  next: 1\n");
    let expected = parse_whole(&list, &LIMITS);
    assert!(
        matches!(expected, BodyParse::Invalid(Some(_), _)),
        "{expected:?}"
    );
    assert_eq!(
        format!("{:?}", parse_body(&list, &LIMITS)),
        format!("{expected:?}")
    );
    // A duplicate key in one item, and a duplicate top-level key in the skeleton.
    let duplicate = list_of(&["- a: 1\n  a: 2\n".into()]);
    assert_same(&duplicate, "a duplicate key in an item");
    let duplicate = list_of(&["- a: 1\n".into()]) + "kind: List\n";
    assert!(matches!(
        parse_body(&duplicate, &LIMITS),
        BodyParse::Invalid(..)
    ));
}

#[test]
fn an_item_at_the_depth_limit_reads_as_in_the_whole_document() {
    let limits = Limits {
        max_documents: 10,
        max_depth: 8,
    };
    // The List is level 1, `items` 2, the item 3: an item with 5 more levels is at the limit (8),
    // one with 6 is past it.
    for extra in [5, 6] {
        let mut item = String::from("- ");
        for level in 0..extra {
            item.push_str(&format!("l{level}:\n{}", "  ".repeat(level + 2)));
        }
        item.push_str("leaf\n");
        let item = item.replace("leaf\n", "x: leaf\n");
        let list = list_of(&[item]);
        let whole = parse_whole(&list, &limits);
        assert_eq!(
            format!("{:?}", parse_body(&list, &limits)),
            format!("{whole:?}"),
            "{extra} levels"
        );
        assert_eq!(
            matches!(whole, BodyParse::Value(_)),
            extra == 5,
            "{whole:?}"
        );
    }
}

#[test]
fn a_kubectl_list_keeps_its_keys_in_order() {
    let list = list_of(&["- kind: Node\n  metadata:\n    name: n\n".into()]);
    let value = value(parse_body(&list, &LIMITS));
    let keys: Vec<&str> = value
        .as_object()
        .expect("a mapping")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["apiVersion", "items", "kind", "metadata"]);
}

#[test]
fn a_list_taken_apart_in_slices_is_taken_apart_the_same() {
    let items = [
        "- a: 1\n  b: [x, y]\n".to_string(),
        "- c: |\n    text\n\n    more\n  d: 2\n".to_string(),
    ];
    let refused_late = list_of(&items) + "- a: 1\n b: 2\n";
    let head = "x: 1\n".repeat((64 << 10) / 5 + 1);
    let long_head =
        list_of(&items).replacen("apiVersion: v1\n", &format!("apiVersion: v1\n{head}"), 1);
    let cases = [
        (list_of(&items), true),
        (list_of(&items).replace('\n', "\r\n"), true),
        // Refused at its last line, and refused for its long head (read whole either way).
        (refused_late, false),
        (long_head, false),
    ];
    for (list, splits) in cases {
        let whole = split(&list);
        assert_eq!(whole.is_some(), splits);
        for max_bytes in [1, 7, 100, 4096, usize::MAX] {
            let mut splitting = Splitting::start(&list).expect("big enough");
            let mut steps = 0;
            let sliced = loop {
                steps += 1;
                let before = splitting.scanned();
                match splitting.advance(&list, max_bytes) {
                    Step::More => assert!(splitting.scanned() > before, "each step scans"),
                    Step::Done(split) => break split,
                }
            };
            assert_eq!(
                format!("{sliced:?}"),
                format!("{whole:?}"),
                "slices of {max_bytes}"
            );
            if max_bytes == 100 && splits {
                assert!(steps > list.len() / 200, "{steps} steps of about 100 bytes");
            }
        }
    }
}
