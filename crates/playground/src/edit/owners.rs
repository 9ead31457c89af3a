//! Which object a line of the text belongs to (`Kind/name`, for the controls' labels), found in
//! one pass: objects begin after every `---` and at each item of a `kind: List`'s `items` (what
//! `kubectl get -o yaml` prints), so a snapshot of thousands of objects is not rescanned from its
//! first line for every site.

use super::{indent_of, split_flow, split_key_value, strip_comment};

/// Where each object of a text begins: its first line and the column of its top-level keys
/// (found on the first question: a text without sites is not scanned).
pub(super) struct Owners {
    starts: std::cell::OnceCell<Vec<(usize, usize)>>,
}

impl Owners {
    /// The objects of a text, found when first asked.
    pub(super) fn new() -> Owners {
        Owners {
            starts: std::cell::OnceCell::new(),
        }
    }

    /// The objects of `lines`.
    fn starts(lines: &[&str]) -> Vec<(usize, usize)> {
        let mut starts = vec![(0, 0)];
        // Inside a List's `items`: the column of its items' `- ` once seen.
        let mut items: Option<Option<usize>> = None;
        for (index, line) in lines.iter().enumerate() {
            let bare = line.trim_end();
            if bare == "---" || bare.starts_with("--- ") {
                starts.push((index + 1, 0));
                items = None;
                continue;
            }
            if bare == "items:" {
                items = Some(None);
                continue;
            }
            let Some(column) = items else {
                continue;
            };
            let trimmed = bare.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indent = indent_of(line);
            let dash = trimmed.starts_with("- ") || trimmed == "-";
            match column {
                None if dash => {
                    items = Some(Some(indent));
                    starts.push((index, indent + 2));
                }
                // `items:` holds no sequence here: not a List's.
                None => items = None,
                Some(column) if dash && indent == column => starts.push((index, column + 2)),
                Some(column) if indent > column => {}
                // The List's own keys again (`kind: List`, `metadata:`).
                Some(_) => {
                    items = None;
                    starts.push((index, 0));
                }
            }
        }
        starts
    }

    /// `Kind/name` of the object holding line `at`: its `kind` and `metadata.name` (block or
    /// flow) found between its first line and `at`.
    pub(super) fn owner_of(&self, lines: &[&str], at: usize) -> String {
        let starts = self.starts.get_or_init(|| Owners::starts(lines));
        let (start, column) = starts[starts.partition_point(|&(l, _)| l <= at) - 1];
        let mut kind = None;
        let mut name = None;
        for (offset, line) in lines[start..=at].iter().enumerate() {
            // An item's first line is read from after its `- `.
            let (line, indent) = if offset == 0 && column > 0 {
                let rest = line.get(column..).unwrap_or("");
                (rest, column)
            } else {
                (*line, indent_of(line))
            };
            let trimmed = line.trim();
            if kind.is_none()
                && indent == column
                && let Some(value) = trimmed.strip_prefix("kind:")
            {
                kind = Some(strip_comment(value).trim().to_string());
            }
            if name.is_none() {
                if let Some(rest) = trimmed.strip_prefix("metadata: {") {
                    name = split_flow(rest.trim_end_matches('}'))
                        .iter()
                        .filter_map(|e| split_key_value(e))
                        .find(|(k, _)| k == "name")
                        .map(|(_, v)| v);
                } else if indent == column + 2
                    && let Some(value) = trimmed.strip_prefix("name:")
                {
                    name = Some(strip_comment(value).trim().to_string());
                }
            }
        }
        format!(
            "{}/{}",
            kind.unwrap_or_else(|| "?".into()),
            name.unwrap_or_else(|| "?".into())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{constraints, replicas};

    #[test]
    fn sites_in_documents_and_list_items_name_their_object() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n---\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n  spec:\n    topologySpreadConstraints:\n    - maxSkew: 1\n      topologyKey: zone\n- kind: Pod\n  metadata: {name: b}\n  spec:\n    topologySpreadConstraints:\n    - {maxSkew: 2, topologyKey: zone}\nkind: List\n---\nkind: List\nitems:\n  - kind: StatefulSet\n    metadata:\n      name: db\n    spec:\n      replicas: 2\n";
        let owners: Vec<String> = constraints(text).into_iter().map(|c| c.owner).collect();
        assert_eq!(owners, ["Pod/a", "Pod/b"]);
        let owners: Vec<String> = replicas(text).into_iter().map(|r| r.owner).collect();
        assert_eq!(owners, ["Deployment/web", "StatefulSet/db"]);
        // An `items:` that holds a mapping is not a List's.
        let text = "kind: Foo\nmetadata:\n  name: x\nitems:\n  a: 1\nspec:\n  replicas: 3\n";
        let owners: Vec<String> = replicas(text).into_iter().map(|r| r.owner).collect();
        assert_eq!(owners, ["Foo/x"]);
    }
}
