//! Controls that rewrite the manifest text: the text stays the source of truth.
//!
//! A line-level YAML editor for the two shapes people write (and the fixtures use):
//! block items (`- maxSkew: 1` then one field per line) and flow items (`- {maxSkew: 1, ...}`).
//! It finds every `topologySpreadConstraints` item and every `replicas:` line, and changes one
//! field while keeping every other byte (comments, order, style) as it was. It knows YAML layout,
//! not scheduling: what a value means is the engine's business once the text is re-read.

mod owners;

/// A field of a topology spread constraint that the controls change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// `maxSkew` (required, > 0).
    MaxSkew,
    /// `minDomains` (optional; only with DoNotSchedule).
    MinDomains,
    /// `whenUnsatisfiable` (DoNotSchedule | ScheduleAnyway).
    WhenUnsatisfiable,
    /// `nodeAffinityPolicy` (Honor | Ignore; unset means Honor).
    NodeAffinityPolicy,
    /// `nodeTaintsPolicy` (Honor | Ignore; unset means Ignore).
    NodeTaintsPolicy,
    /// `matchLabelKeys` (a list of label keys).
    MatchLabelKeys,
}

impl Field {
    /// Every field, in control order.
    pub const ALL: [Field; 6] = [
        Field::MaxSkew,
        Field::MinDomains,
        Field::WhenUnsatisfiable,
        Field::NodeAffinityPolicy,
        Field::NodeTaintsPolicy,
        Field::MatchLabelKeys,
    ];

    /// The YAML key.
    pub fn key(self) -> &'static str {
        match self {
            Field::MaxSkew => "maxSkew",
            Field::MinDomains => "minDomains",
            Field::WhenUnsatisfiable => "whenUnsatisfiable",
            Field::NodeAffinityPolicy => "nodeAffinityPolicy",
            Field::NodeTaintsPolicy => "nodeTaintsPolicy",
            Field::MatchLabelKeys => "matchLabelKeys",
        }
    }
}

/// One `topologySpreadConstraints` item found in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintSite {
    /// 0-based line of the item's `- `.
    pub line: usize,
    /// Written as a flow mapping (`- {...}`).
    pub flow: bool,
    /// `Kind/name` of the enclosing document, when found.
    pub owner: String,
    /// Fields as written: key, raw value text (a block list is given as `[a, b]`).
    pub fields: Vec<(String, String)>,
}

impl ConstraintSite {
    /// The raw value of `field`, if written.
    pub fn get(&self, field: Field) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == field.key())
            .map(|(_, v)| v.as_str())
    }

    /// Short label: `Deployment/web · topology.kubernetes.io/zone (line 12)`.
    pub fn label(&self) -> String {
        let key = self
            .fields
            .iter()
            .find(|(k, _)| k == "topologyKey")
            .map_or("?", |(_, v)| v.as_str());
        format!("{} · {} (line {})", self.owner, key, self.line + 1)
    }
}

/// A `replicas:` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicasSite {
    /// 0-based line.
    pub line: usize,
    /// `Kind/name` of the enclosing document.
    pub owner: String,
    /// The value.
    pub value: i64,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// Removes a trailing ` # comment` (outside quotes).
fn strip_comment(value: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (index, ch) in value.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '"' || ch == '\'' => quote = Some(ch),
            None if ch == '#' && previous.is_whitespace() => return value[..index].trim_end(),
            None => {}
        }
        previous = ch;
    }
    value.trim_end()
}

/// Splits a flow mapping's inside at top-level commas.
fn split_flow(inside: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut current = String::new();
    for ch in inside.chars() {
        match quote {
            Some(q) => {
                if ch == q {
                    quote = None;
                }
                current.push(ch);
            }
            None => match ch {
                '"' | '\'' => {
                    quote = Some(ch);
                    current.push(ch);
                }
                '{' | '[' => {
                    depth += 1;
                    current.push(ch);
                }
                '}' | ']' => {
                    depth -= 1;
                    current.push(ch);
                }
                ',' if depth == 0 => {
                    parts.push(current.trim().to_string());
                    current.clear();
                }
                _ => current.push(ch),
            },
        }
    }
    if !current.trim().is_empty() {
        parts.push(current.trim().to_string());
    }
    parts
}

fn split_key_value(entry: &str) -> Option<(String, String)> {
    let (key, value) = entry.split_once(':')?;
    Some((key.trim().to_string(), value.trim().to_string()))
}

/// One item's extent: lines `first..end`, its content column.
struct Item {
    first: usize,
    end: usize,
    column: usize,
}

fn items(lines: &[&str]) -> Vec<Item> {
    let mut found = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let trimmed = line.trim_start();
        let rest = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        if !rest.starts_with("topologySpreadConstraints:") {
            index += 1;
            continue;
        }
        let key_indent = indent_of(line) + (trimmed.len() - rest.len());
        let mut item_indent: Option<usize> = None;
        let mut current: Option<Item> = None;
        let mut next = index + 1;
        while next < lines.len() {
            let line = lines[next];
            if is_blank_or_comment(line) {
                next += 1;
                continue;
            }
            let indent = indent_of(line);
            let starts_item = line.trim_start().starts_with("- ");
            if indent < key_indent || (indent == key_indent && !starts_item) {
                break;
            }
            match item_indent {
                None if starts_item => item_indent = Some(indent),
                None => break,
                Some(_) => {}
            }
            let item_column = item_indent.unwrap_or(indent);
            if starts_item && indent == item_column {
                if let Some(done) = current.take() {
                    found.push(done);
                }
                current = Some(Item {
                    first: next,
                    end: next + 1,
                    column: indent + 2,
                });
            } else if indent > item_column {
                if let Some(item) = current.as_mut() {
                    item.end = next + 1;
                }
            } else {
                break;
            }
            next += 1;
        }
        if let Some(done) = current.take() {
            found.push(done);
        }
        index = next;
    }
    found
}

/// Block fields of an item: (line, key, value); a block list value is folded into `[a, b]`.
fn block_fields(lines: &[&str], item: &Item) -> Vec<(usize, String, String)> {
    let mut fields = Vec::new();
    let mut index = item.first;
    while index < item.end {
        let line = lines[index];
        let content = if index == item.first {
            &line[item.column..]
        } else if indent_of(line) == item.column && !is_blank_or_comment(line) {
            line.trim_start()
        } else {
            index += 1;
            continue;
        };
        if let Some((key, value)) = split_key_value(strip_comment(content)) {
            let mut value = value;
            if value.is_empty() {
                // A block list or mapping below.
                let mut entries = Vec::new();
                let mut below = index + 1;
                while below < item.end
                    && (indent_of(lines[below]) > item.column || is_blank_or_comment(lines[below]))
                {
                    if let Some(entry) = lines[below].trim().strip_prefix("- ") {
                        entries.push(strip_comment(entry).to_string());
                    }
                    below += 1;
                }
                if !entries.is_empty() {
                    value = format!("[{}]", entries.join(", "));
                }
            }
            fields.push((index, key, value));
        }
        index += 1;
    }
    fields
}

/// Every `topologySpreadConstraints` item, in text order.
pub fn constraints(text: &str) -> Vec<ConstraintSite> {
    let lines: Vec<&str> = text.split('\n').collect();
    let owners = owners::Owners::new();
    items(&lines)
        .into_iter()
        .map(|item| {
            let first = &lines[item.first][item.column..];
            let flow = first.trim_start().starts_with('{');
            let fields = if flow {
                let inside = strip_comment(first.trim());
                let inside = inside.trim_start_matches('{').trim_end_matches('}');
                split_flow(inside)
                    .iter()
                    .filter_map(|e| split_key_value(e))
                    .collect()
            } else {
                block_fields(&lines, &item)
                    .into_iter()
                    .map(|(_, k, v)| (k, v))
                    .collect()
            };
            ConstraintSite {
                line: item.first,
                flow,
                owner: owners.owner_of(&lines, item.first),
                fields,
            }
        })
        .collect()
}

/// Sets (`Some`) or removes (`None`) `field` of the `index`-th constraint. `None` when there is
/// no such constraint.
pub fn set_field(text: &str, index: usize, field: Field, value: Option<&str>) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let item = items(&lines).into_iter().nth(index)?;
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let first = &lines[item.first][item.column..];
    if first.trim_start().starts_with('{') {
        let (body, comment) = match first.find('}') {
            Some(close) => (&first[..=close], &first[close + 1..]),
            None => (first, ""),
        };
        let inside = body.trim().trim_start_matches('{').trim_end_matches('}');
        let mut entries: Vec<(String, String)> = split_flow(inside)
            .iter()
            .filter_map(|e| split_key_value(e))
            .collect();
        let position = entries.iter().position(|(k, _)| k == field.key());
        match (position, value) {
            (Some(at), Some(value)) => entries[at].1 = value.to_string(),
            (Some(at), None) => {
                entries.remove(at);
            }
            (None, Some(value)) => {
                // After maxSkew (or first).
                let at = entries
                    .iter()
                    .position(|(k, _)| k == "maxSkew")
                    .map_or(0, |p| p + 1);
                entries.insert(at, (field.key().to_string(), value.to_string()));
            }
            (None, None) => return Some(text.to_string()),
        }
        let joined: Vec<String> = entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        out[item.first] = format!(
            "{}{{{}}}{}",
            &lines[item.first][..item.column],
            joined.join(", "),
            comment
        );
        return Some(out.join("\n"));
    }
    let fields = block_fields(&lines, &item);
    let existing = fields.iter().find(|(_, k, _)| k == field.key());
    let pad = " ".repeat(item.column);
    match (existing, value) {
        (Some((line, _, _)), value) => {
            let line = *line;
            // The value's own block lines (a list below the key).
            let mut end = line + 1;
            while end < item.end && indent_of(lines[end]) > item.column {
                end += 1;
            }
            let prefix = if line == item.first {
                lines[line][..item.column].to_string()
            } else {
                pad.clone()
            };
            match value {
                Some(value) => {
                    out.splice(line..end, [format!("{prefix}{}: {value}", field.key())]);
                }
                None if line == item.first => {
                    // The item's first field goes: the next field takes the `- `.
                    let next = fields.iter().find(|(l, _, _)| *l >= end)?;
                    let moved = format!("{prefix}{}", lines[next.0].trim_start());
                    out[next.0] = moved;
                    out.drain(line..end);
                }
                None => {
                    out.drain(line..end);
                }
            }
        }
        (None, Some(value)) => {
            let after = fields
                .iter()
                .find(|(_, k, _)| k == "maxSkew")
                .map_or(item.first, |(l, _, _)| *l);
            out.insert(after + 1, format!("{pad}{}: {value}", field.key()));
        }
        (None, None) => {}
    }
    Some(out.join("\n"))
}

/// Every `replicas: N` line, in text order.
pub fn replicas(text: &str) -> Vec<ReplicasSite> {
    let lines: Vec<&str> = text.split('\n').collect();
    let owners = owners::Owners::new();
    lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| {
            let value = line.trim_start().strip_prefix("replicas:")?;
            let value: i64 = strip_comment(value).trim().parse().ok()?;
            Some(ReplicasSite {
                line: index,
                owner: owners.owner_of(&lines, index),
                value,
            })
        })
        .collect()
}

/// Sets the `index`-th `replicas:` line to `value`.
pub fn set_replicas(text: &str, index: usize, value: i64) -> Option<String> {
    let site = replicas(text).into_iter().nth(index)?;
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let line = &lines[site.line];
    let pad = &line[..indent_of(line)];
    let comment = line
        .find(" #")
        .map(|at| line[at..].to_string())
        .unwrap_or_default();
    lines[site.line] = format!("{pad}replicas: {value}{comment}");
    Some(lines.join("\n"))
}

/// Strategy presets the controls offer (the `strategy:` value written, as a flow mapping).
pub const STRATEGIES: [(&str, &str); 4] = [
    (
        "RollingUpdate maxSurge 25%, maxUnavailable 25% (the default)",
        "{type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}",
    ),
    (
        "RollingUpdate maxSurge 1, maxUnavailable 0",
        "{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}",
    ),
    (
        "RollingUpdate maxSurge 0, maxUnavailable 1",
        "{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}",
    ),
    ("Recreate", "{type: Recreate}"),
];

/// The document (lines `start..end`) around line `at`.
fn document_bounds(lines: &[&str], at: usize) -> (usize, usize) {
    let mut start = at;
    while start > 0 && lines[start - 1].trim_end() != "---" {
        start -= 1;
    }
    let mut end = at + 1;
    while end < lines.len() && lines[end].trim_end() != "---" {
        end += 1;
    }
    (start, end)
}

/// The `strategy:` written beside the `index`-th `replicas:` line (same indent, same document):
/// its first line and the end of its block, and its value folded to one line.
fn strategy_site(lines: &[&str], replicas_line: usize) -> Option<(usize, usize, String)> {
    let indent = indent_of(lines[replicas_line]);
    let (start, end) = document_bounds(lines, replicas_line);
    let line = (start..end).find(|&l| {
        indent_of(lines[l]) == indent && lines[l].trim_start().starts_with("strategy:")
    })?;
    let mut block_end = line + 1;
    while block_end < end
        && (indent_of(lines[block_end]) > indent || lines[block_end].trim().is_empty())
    {
        block_end += 1;
    }
    let value: Vec<&str> = lines[line..block_end]
        .iter()
        .map(|l| strip_comment(l.trim()))
        .collect();
    let value = value.join(" ");
    let value = value.trim_start_matches("strategy:").trim().to_string();
    Some((line, block_end, value))
}

/// The `strategy:` value beside the `index`-th `replicas:` line, as written (folded to one line).
pub fn strategy(text: &str, index: usize) -> Option<String> {
    let site = replicas(text).into_iter().nth(index)?;
    let lines: Vec<&str> = text.split('\n').collect();
    strategy_site(&lines, site.line).map(|(_, _, value)| value)
}

/// [`strategy`] of every `replicas:` line (`sites`: [`replicas`] of `text`), in one pass.
pub fn strategies(text: &str, sites: &[ReplicasSite]) -> Vec<Option<String>> {
    let lines: Vec<&str> = text.split('\n').collect();
    sites
        .iter()
        .map(|site| strategy_site(&lines, site.line).map(|(_, _, value)| value))
        .collect()
}

/// Writes `strategy: <value>` beside the `index`-th `replicas:` line (replacing a written one,
/// block or flow), or removes it (`None`).
pub fn set_strategy(text: &str, index: usize, value: Option<&str>) -> Option<String> {
    let site = replicas(text).into_iter().nth(index)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let pad = " ".repeat(indent_of(lines[site.line]));
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let replacement = value.map(|v| format!("{pad}strategy: {v}"));
    match strategy_site(&lines, site.line) {
        Some((first, end, _)) => {
            out.splice(first..end, replacement);
        }
        None => {
            if let Some(line) = replacement {
                out.insert(site.line + 1, line);
            }
        }
    }
    Some(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "\
kind: Deployment
metadata: {name: fs, namespace: ml}
spec:
  replicas: 8 # eight
  template:
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          minDomains: 5
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: DoNotSchedule
          matchLabelKeys:
            - pod-template-hash
        - maxSkew: 2
          topologyKey: zone
          whenUnsatisfiable: ScheduleAnyway
      containers: []
";

    const FLOW: &str = "\
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: vllm}}}
";

    #[test]
    fn finds_block_and_flow_items() {
        let sites = constraints(BLOCK);
        assert_eq!(sites.len(), 2);
        assert_eq!(sites[0].owner, "Deployment/fs");
        assert_eq!(sites[0].get(Field::MinDomains), Some("5"));
        assert_eq!(
            sites[0].get(Field::MatchLabelKeys),
            Some("[pod-template-hash]")
        );
        assert_eq!(sites[1].get(Field::MaxSkew), Some("2"));
        assert_eq!(sites[1].get(Field::MinDomains), None);
        let flow = constraints(FLOW);
        assert_eq!(flow.len(), 1);
        assert!(flow[0].flow);
        assert_eq!(flow[0].owner, "Deployment/vllm");
        assert_eq!(flow[0].get(Field::WhenUnsatisfiable), Some("DoNotSchedule"));
        assert_eq!(
            flow[0].label(),
            "Deployment/vllm · topology.kubernetes.io/zone (line 8)"
        );
    }

    #[test]
    fn changes_inserts_and_removes_block_fields() {
        let changed = set_field(BLOCK, 0, Field::MinDomains, Some("3")).unwrap();
        assert!(changed.contains("          minDomains: 3\n"));
        assert_eq!(changed.lines().count(), BLOCK.lines().count());
        let removed = set_field(BLOCK, 0, Field::MatchLabelKeys, None).unwrap();
        assert!(!removed.contains("pod-template-hash"));
        assert_eq!(constraints(&removed)[0].get(Field::MatchLabelKeys), None);
        assert_eq!(constraints(&removed).len(), 2);
        let inserted = set_field(BLOCK, 1, Field::NodeTaintsPolicy, Some("Honor")).unwrap();
        assert!(inserted.contains("        - maxSkew: 2\n          nodeTaintsPolicy: Honor\n"));
        let first_removed = set_field(BLOCK, 1, Field::MaxSkew, None).unwrap();
        assert!(first_removed.contains("        - topologyKey: zone\n"));
        // Everything else is byte for byte the same.
        let back = set_field(&changed, 0, Field::MinDomains, Some("5")).unwrap();
        assert_eq!(back, BLOCK);
    }

    #[test]
    fn changes_flow_fields() {
        let changed = set_field(FLOW, 0, Field::MinDomains, Some("2")).unwrap();
        assert!(changed.contains("- {maxSkew: 1, minDomains: 2, topologyKey:"));
        assert!(changed.contains("labelSelector: {matchLabels: {app: vllm}}}"));
        let policy = set_field(
            &changed,
            0,
            Field::WhenUnsatisfiable,
            Some("ScheduleAnyway"),
        );
        assert!(
            policy
                .unwrap()
                .contains("whenUnsatisfiable: ScheduleAnyway")
        );
        let removed = set_field(&changed, 0, Field::MinDomains, None).unwrap();
        assert_eq!(removed, FLOW);
        assert!(set_field(FLOW, 1, Field::MaxSkew, Some("2")).is_none());
    }

    #[test]
    fn strategy_is_written_beside_replicas() {
        assert_eq!(strategy(BLOCK, 0), None);
        let recreate = set_strategy(BLOCK, 0, Some("{type: Recreate}")).unwrap();
        assert!(recreate.contains("  replicas: 8 # eight\n  strategy: {type: Recreate}\n"));
        assert_eq!(strategy(&recreate, 0).as_deref(), Some("{type: Recreate}"));
        let block = BLOCK.replace(
            "  replicas: 8 # eight\n",
            "  replicas: 8 # eight\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxSurge: 1}\n",
        );
        assert_eq!(
            strategy(&block, 0).as_deref(),
            Some("type: RollingUpdate rollingUpdate: {maxSurge: 1}")
        );
        let replaced = set_strategy(&block, 0, Some(STRATEGIES[3].1)).unwrap();
        assert_eq!(replaced, recreate);
        assert_eq!(set_strategy(&replaced, 0, None).unwrap(), BLOCK);
        // All at once, as each alone.
        let both = format!("{recreate}---\n{block}");
        let sites = replicas(&both);
        let each: Vec<Option<String>> = (0..sites.len()).map(|i| strategy(&both, i)).collect();
        assert_eq!(strategies(&both, &sites), each);
        assert_eq!(each.iter().flatten().count(), 2);
    }

    #[test]
    fn replicas_keep_comments() {
        let sites = replicas(BLOCK);
        assert_eq!(sites.len(), 1);
        assert_eq!(sites[0].value, 8);
        assert_eq!(sites[0].owner, "Deployment/fs");
        let changed = set_replicas(BLOCK, 0, 3).unwrap();
        assert!(changed.contains("  replicas: 3 # eight\n"));
    }
}
