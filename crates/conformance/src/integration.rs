//! Upstream's scheduler integration tests (`test/integration/scheduler/`) ported as whole-scheduler
//! scenarios: `tests/integration/<folder>/<TestName>.yaml` (format: `tests/integration/README.md`).
//!
//! Each case is a scenario in the oracle's format (`objects`, `schedule`) plus what the upstream
//! test asserts about its pods (`expect`). Two judges:
//! - the real kube-scheduler (the Go oracle, default profile) must satisfy upstream's assertions,
//!   which shows the port is faithful ([`check_upstream`]);
//! - spreadlab must agree with the oracle pod by pod, as in the random differential
//!   ([`crate::judge::judge_following`]): node, message, per-node verdicts, scores, victims.
//!
//! The oracle's answers are recorded next to each table (`<TestName>.oracle.jsonl`, written by
//! `cargo run -p spreadlab-conformance --bin record-integration`), so the engine is judged without
//! Go; with `SPREADLAB_ORACLE` set (as `scripts/test.sh` does) the tests also ask the live oracle.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::compare::parse_jsonl;
use crate::differential::{Oracle, Prepared, prepare};

/// `tests/integration`.
pub fn integration_root() -> PathBuf {
    crate::upstream::fixtures_root().join("integration")
}

/// One case of a table.
#[derive(Clone, Debug)]
pub struct Case {
    /// Upstream case name, verbatim.
    pub name: String,
    /// Why the case is not run (a feature gate off by default in v1.35, a custom profile, ...).
    pub skip: Option<String>,
    /// The scenario in the oracle's format: `name`, `objects` (the table's shared objects, then
    /// the case's), `schedule`.
    pub scenario: Value,
    /// Upstream's assertions, per pod `namespace/name`.
    pub expect: Map<String, Value>,
}

/// One table file.
#[derive(Clone, Debug)]
pub struct Table {
    /// The file, relative to [`integration_root`].
    pub file: String,
    /// Its cases, in file order.
    pub cases: Vec<Case>,
}

impl Table {
    /// The file holding the oracle's recorded answers: `<TestName>.oracle.jsonl` beside the table.
    pub fn recording(&self) -> PathBuf {
        integration_root().join(self.file.replace(".yaml", ".oracle.jsonl"))
    }
}

/// Reads one table. Malformed tables are an `Err` naming the file and case.
pub fn load_table(path: &Path) -> Result<Table, String> {
    let file = path
        .strip_prefix(integration_root())
        .unwrap_or(path)
        .display()
        .to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: cannot read: {e}"))?;
    let doc: Value =
        serde_saphyr::from_str(&text).map_err(|e| format!("{file}: invalid YAML: {e}"))?;
    for field in ["file", "test", "version"] {
        if !doc["source"][field].is_string() {
            return Err(format!("{file}: source.{field} is missing"));
        }
    }
    let shared = doc["objects"].as_array().cloned().unwrap_or_default();
    let cases = doc["cases"]
        .as_array()
        .ok_or_else(|| format!("{file}: no cases"))?;
    let mut out = Vec::with_capacity(cases.len());
    for (index, case) in cases.iter().enumerate() {
        let name = case["name"]
            .as_str()
            .ok_or_else(|| format!("{file}: cases[{index}].name is missing"))?
            .to_owned();
        let mut objects = shared.clone();
        objects.extend(case["objects"].as_array().cloned().unwrap_or_default());
        let schedule = case["schedule"]
            .as_array()
            .cloned()
            .ok_or_else(|| format!("{file}: {name}: schedule is missing"))?;
        let expect = case["expect"].as_object().cloned().unwrap_or_default();
        let skip = case["skip"].as_str().map(str::to_owned);
        if out.iter().any(|c: &Case| c.name == name) {
            return Err(format!("{file}: case name {name:?} is used twice"));
        }
        if skip.is_none() && expect.is_empty() {
            return Err(format!("{file}: {name}: expect is missing"));
        }
        out.push(Case {
            scenario: json!({"name": format!("{file}: {name}"), "objects": objects, "schedule": schedule}),
            name,
            skip,
            expect,
        });
    }
    Ok(Table { file, cases: out })
}

/// Every table under [`integration_root`], sorted by path.
pub fn tables() -> Result<Vec<Table>, String> {
    crate::upstream::yaml_files(&integration_root())
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "README.yaml"))
        .map(|p| load_table(p))
        .collect()
}

/// A case's prepared scenario with the oracle's lines, or why either failed.
pub type Answer = Result<(Prepared, Vec<Value>), String>;

/// Prepares every runnable (not skipped) case of `cases` and asks the oracle about them all in one
/// process (`-batch`). Each entry is the case, and its prepared scenario with the oracle's lines,
/// or why either failed.
pub fn ask_oracle<'c>(oracle: &Oracle, cases: &[&'c Case]) -> Vec<(&'c Case, Answer)> {
    let prepared: Vec<Result<Prepared, String>> =
        cases.iter().map(|c| prepare(&c.scenario)).collect();
    let inputs: Vec<Value> = prepared
        .iter()
        .filter_map(|p| p.as_ref().ok().map(|p| p.input.clone()))
        .collect();
    let mut answers = oracle.run_batch(&inputs).into_iter();
    cases
        .iter()
        .zip(prepared)
        .map(|(case, prepared)| {
            let answer = prepared.and_then(|p| {
                let lines = answers.next().unwrap_or_else(|| Err("no answer".into()))?;
                Ok((p, lines))
            });
            (*case, answer)
        })
        .collect()
}

/// A stable fingerprint of a prepared oracle input (FNV-1a 64 over its JSON text), recorded with
/// the answers so that a table edited after recording is caught.
pub fn fingerprint(input: &Value) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in input.to_string().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// One recorded answer: `{"case": name, "input": fingerprint, "lines": [oracle lines]}`.
pub fn recording_line(case: &str, input: &Value, lines: &[Value]) -> Value {
    json!({"case": case, "input": fingerprint(input), "lines": lines})
}

/// Reads a table's recording: case name to (fingerprint, oracle lines).
pub fn read_recording(table: &Table) -> Result<Vec<(String, String, Vec<Value>)>, String> {
    let path = table.recording();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: cannot read ({e}); run `cargo run -p spreadlab-conformance --bin record-integration`",
            path.display()
        )
    })?;
    parse_jsonl(&text)?
        .into_iter()
        .map(|line| {
            let case = line["case"].as_str().unwrap_or_default().to_owned();
            let input = line["input"].as_str().unwrap_or_default().to_owned();
            let lines = line["lines"].as_array().cloned().unwrap_or_default();
            Ok((case, input, lines))
        })
        .collect()
}

/// Checks upstream's assertions against the real scheduler's answer for a case (oracle lines,
/// one per scheduled pod). Every broken assertion is a line. Keys of `expect` are pods
/// (`namespace/name`); each value holds any of:
/// - `scheduled: true|false`: the pod is bound (after preemption, on the retry) or not;
/// - `node: X`, `nodeIn: [X, Y]`: where it is bound;
/// - `victims: [ns/name, ...]`: the pods its preemption evicts (as a set);
/// - `nominatedNode: X`: the node its preemption nominates;
/// - `message: "..."`: the FitError message of its failed cycle.
pub fn check_upstream(expect: &Map<String, Value>, lines: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    for (pod, want) in expect {
        let Some(line) = lines.iter().find(|l| l["pod"] == pod.as_str()) else {
            problems.push(format!("{pod}: not scheduled in this case"));
            continue;
        };
        let node = line["node"].as_str();
        let Some(want) = want.as_object() else {
            problems.push(format!("{pod}: its expectation is not a map"));
            continue;
        };
        for (key, value) in want {
            let holds = match key.as_str() {
                "scheduled" => value.as_bool() == Some(node.is_some()),
                "node" => node.is_some() && value.as_str() == node,
                "nodeIn" => value
                    .as_array()
                    .is_some_and(|nodes| node.is_some_and(|n| nodes.iter().any(|v| v == n))),
                "victims" => {
                    let sorted = |v: &Value| {
                        let mut names: Vec<String> = v
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(|s| s.as_str().map(str::to_owned))
                                    .collect()
                            })
                            .unwrap_or_default();
                        names.sort();
                        names
                    };
                    sorted(value) == sorted(&line["victims"])
                }
                "nominatedNode" => line["nominatedNode"] == *value,
                "message" => line["message"] == *value,
                other => {
                    problems.push(format!("{pod}: unknown expectation `{other}`"));
                    continue;
                }
            };
            if !holds {
                problems.push(format!(
                    "{pod}: upstream expects {key} = {value}; the real scheduler gave node {}, victims {}, nominated {}, message {}",
                    line["node"], line["victims"], line["nominatedNode"], line["message"]
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of assertion fails when the answer differs, and holds when it matches.
    #[test]
    fn assertions_are_checked() {
        let lines = vec![
            json!({"pod": "ns/a", "node": "n1", "victims": ["ns/v2", "ns/v1"], "nominatedNode": "n1", "message": "m"}),
            json!({"pod": "ns/b", "node": null, "victims": null, "nominatedNode": null, "message": "0/1 nodes are available"}),
        ];
        let expect = |v: Value| v.as_object().cloned().unwrap();
        let ok = expect(json!({
            "ns/a": {"scheduled": true, "node": "n1", "nodeIn": ["n0", "n1"], "victims": ["ns/v1", "ns/v2"], "nominatedNode": "n1"},
            "ns/b": {"scheduled": false, "message": "0/1 nodes are available"},
        }));
        assert!(check_upstream(&ok, &lines).is_empty());
        let bad = expect(json!({
            "ns/a": {"scheduled": false, "node": "n2", "nodeIn": ["n0"], "victims": ["ns/v1"], "nominatedNode": "n2"},
            "ns/b": {"scheduled": true, "node": "n1", "message": "other"},
            "ns/c": {"scheduled": true},
        }));
        assert_eq!(check_upstream(&bad, &lines).len(), 9);
        assert_eq!(
            check_upstream(&expect(json!({"ns/a": {"fits": true}})), &lines).len(),
            1
        );
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(fingerprint(&json!({"a": 1})), fingerprint(&json!({"a": 1})));
        assert_ne!(fingerprint(&json!({"a": 1})), fingerprint(&json!({"a": 2})));
    }
}
