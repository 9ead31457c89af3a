//! Expected output and comparison: the real scheduler's recorded lines (`expected.jsonl`),
//! normalised where upstream is nondeterministic (Go map order of scalar reasons), against the
//! engine's decisions, field by field.

use crate::scenarios::UNMODELLED_SCORE_PLUGIN;
use serde_json::{Map, Value, json};
use spreadlab_engine::framework::Status;
use spreadlab_engine::scheduler::PodDecision;
use std::collections::{BTreeMap, BTreeSet};

/// Reads `expected.jsonl`: one JSON object per line.
pub fn parse_jsonl(text: &str) -> Result<Vec<Value>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", index + 1))
        })
        .collect()
}

/// `Insufficient <resource>` for a resource NodeResourcesFit checks after the fixed ones (pods,
/// cpu, memory, ephemeral-storage): upstream iterates the pod's scalar resources over a Go map,
/// so their relative order is random.
fn is_scalar_insufficient(reason: &str) -> bool {
    reason
        .strip_prefix("Insufficient ")
        .is_some_and(|resource| {
            !matches!(resource, "pods" | "cpu" | "memory" | "ephemeral-storage")
        })
}

/// Reasons with the Go-map-ordered ones (several `Insufficient <scalar>`) sorted among their
/// positions; every other reason keeps its place.
pub fn normalize_reasons(reasons: &[String]) -> Vec<String> {
    let mut scalars: Vec<&String> = reasons
        .iter()
        .filter(|r| is_scalar_insufficient(r))
        .collect();
    scalars.sort();
    let mut scalars = scalars.into_iter();
    reasons
        .iter()
        .map(|r| {
            if is_scalar_insufficient(r) {
                scalars.next().cloned().unwrap_or_default()
            } else {
                r.clone()
            }
        })
        .collect()
}

/// The oracle's output with Go-map-ordered reasons normalized (for comparing two oracle runs).
pub fn normalize_oracle_line(line: &Value) -> Value {
    let mut line = line.clone();
    let normalize = |status: &mut Value| {
        if let Some(reasons) = status.get_mut("reasons") {
            let strings: Vec<String> = reasons
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| r.as_str().unwrap_or_default().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            *reasons = json!(normalize_reasons(&strings));
        }
    };
    if let Some(filter) = line.get_mut("filter").and_then(Value::as_object_mut) {
        filter.values_mut().for_each(normalize);
    }
    for key in ["preFilter", "postFilter"] {
        if let Some(status) = line.get_mut(key) {
            normalize(status);
        }
    }
    line
}

/// The paths where two JSON values differ (`path: left, right`), for readable failure messages.
pub fn json_differences(path: &str, left: &Value, right: &Value) -> Vec<String> {
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter()
                .flat_map(|k| {
                    json_differences(
                        &format!("{path}.{k}"),
                        a.get(k).unwrap_or(&Value::Null),
                        b.get(k).unwrap_or(&Value::Null),
                    )
                })
                .collect()
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .flat_map(|(i, (x, y))| json_differences(&format!("{path}[{i}]"), x, y))
            .collect(),
        _ if left == right => Vec::new(),
        _ => vec![format!("{path}: {left} vs {right}")],
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn opt_str(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// What the comparison covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Pods compared.
    pub pods: usize,
    /// Per-node filter verdicts compared.
    pub filter_verdicts: usize,
    /// Per-node, per-plugin weighted scores compared.
    pub scores: usize,
    /// Of the pods, those already waiting in the scenario (`creationTimestamp` set).
    pub waiting: usize,
    /// Of the pods, those nominated to a node when their cycle began.
    pub nominated: usize,
    /// Of those, the ones bound to the nominated node without scoring.
    pub nominated_bound: usize,
    /// Pods whose preemption found equally ranked candidate nodes.
    pub tied_candidates: usize,
    /// Pods whose Filter pass stopped at `numFeasibleNodesToFind` (node sampling, 100+ nodes).
    pub sampled: usize,
    /// Pods whose preemption was refused because a pod preempted earlier still terminates on
    /// their nominated node.
    pub terminating_on_nominated: usize,
}

/// Compares the engine's decisions with the oracle's lines, pod by pod. Returns every mismatch,
/// one line each (`<scenario>: <pod>: <field>: spreadlab <x>, oracle <y>`), and what was compared.
pub fn compare(
    scenario: &str,
    decisions: &[PodDecision],
    expected: &[Value],
) -> (Vec<String>, Coverage) {
    let mut problems = Vec::new();
    let mut coverage = Coverage::default();
    if decisions.len() != expected.len() {
        problems.push(format!(
            "{scenario}: pods: spreadlab schedules {}, oracle {}",
            decisions.len(),
            expected.len()
        ));
    }
    for (decision, oracle) in decisions.iter().zip(expected) {
        let key = format!("{}/{}", decision.namespace, decision.name);
        let mut mismatch = |field: &str, ours: String, theirs: String| {
            if ours != theirs {
                problems.push(format!(
                    "{scenario}: {key}: {field}: spreadlab {ours}, oracle {theirs}"
                ));
            }
        };
        coverage.pods += 1;
        coverage.waiting += usize::from(decision.waiting);
        coverage.tied_candidates += usize::from(
            decision
                .preemption
                .as_ref()
                .is_some_and(|p| p.tied_candidates.len() > 1),
        );
        coverage.sampled += usize::from(
            decision
                .real_scheduler_samples
                .is_some_and(|limit| decision.feasible_nodes == limit),
        );
        coverage.nominated += usize::from(decision.nominated_node.is_some());
        coverage.nominated_bound += usize::from(
            decision.nominated_node.is_some() && decision.node == decision.nominated_node,
        );
        coverage.terminating_on_nominated +=
            usize::from(decision.message.as_deref().is_some_and(|m| {
                m.contains("not eligible due to a terminating pod on the nominated node")
            }));
        mismatch(
            "pod",
            format!("{key:?}"),
            format!("{:?}", oracle["pod"].as_str().unwrap_or_default()),
        );
        // A gated pod never reaches a cycle: SchedulingGates' PreEnqueue holds it, and the pod's
        // condition says why (`SCHEDULING_GATED_MSG`); nothing else is compared.
        if let Some(pre_enqueue) = oracle.get("preEnqueue") {
            let gated = decision.node.is_none()
                && decision.message.as_deref()
                    == Some(spreadlab_engine::scheduler::SCHEDULING_GATED_MSG);
            mismatch(
                "preEnqueue",
                format!("{:?}", gated.then_some("SchedulingGates")),
                format!("{:?}", pre_enqueue["plugin"].as_str()),
            );
            continue;
        }
        if let Some(value) = oracle.get("crossCheck") {
            mismatch("crossCheck", "absent".into(), value.to_string());
        }
        // A cycle that failed with an error (a plugin's `Error` status): the error text, and
        // that the pod stays Pending; the oracle records no message, and which nodes were
        // filtered before the error stopped the pass is not compared.
        let ours_error = decision
            .scheduler_error
            .then(|| decision.message.clone())
            .flatten();
        mismatch(
            "error",
            format!("{ours_error:?}"),
            format!("{:?}", opt_str(&oracle["error"])),
        );
        if decision.scheduler_error || oracle.get("error").is_some() {
            mismatch(
                "node",
                format!("{:?}", decision.node),
                format!("{:?}", opt_str(&oracle["node"])),
            );
            continue;
        }
        // Node: the oracle binds the first top-scored node in node input order, as spreadlab does.
        mismatch(
            "node",
            format!("{:?}", decision.node),
            format!("{:?}", opt_str(&oracle["node"])),
        );
        let ours: BTreeSet<String> = decision.tied_nodes.iter().cloned().collect();
        let theirs: BTreeSet<String> = strings(&oracle["topNodes"]).into_iter().collect();
        mismatch("topNodes", format!("{ours:?}"), format!("{theirs:?}"));
        mismatch(
            "message",
            format!("{:?}", decision.message),
            format!("{:?}", opt_str(&oracle["message"])),
        );
        let preemption = decision.preemption.as_ref();
        mismatch(
            "nominatedNode",
            format!("{:?}", preemption.map(|p| p.nominated_node.clone())),
            format!("{:?}", opt_str(&oracle["nominatedNode"])),
        );
        let victims: BTreeSet<String> = preemption
            .map(|p| p.victims.iter().cloned().collect())
            .unwrap_or_default();
        let oracle_victims: BTreeSet<String> = strings(&oracle["victims"]).into_iter().collect();
        mismatch(
            "victims",
            format!("{victims:?}"),
            format!("{oracle_victims:?}"),
        );
        let Some(explanation) = &decision.explanation else {
            mismatch("explanation", "none".into(), "per-node detail".into());
            continue;
        };
        // A pod placed through preemption was filtered again on the nominated node only; its
        // explanation is the first attempt's and the oracle's `filter` too.
        let empty = Map::new();
        let filters = oracle["filter"].as_object().unwrap_or(&empty);
        let ours: BTreeSet<&str> = explanation.nodes.iter().map(|n| n.node.as_str()).collect();
        let theirs: BTreeSet<&str> = filters.keys().map(String::as_str).collect();
        mismatch("filter nodes", format!("{ours:?}"), format!("{theirs:?}"));
        let scores = oracle["scores"].as_object().unwrap_or(&empty);
        for verdict in &explanation.nodes {
            let node = verdict.node.as_str();
            if let Some(status) = filters.get(node) {
                coverage.filter_verdicts += 1;
                let (code, plugin, reasons) = status_parts(&verdict.filter);
                mismatch(
                    &format!("filter[{node}].code"),
                    code,
                    status["code"].as_str().unwrap_or_default().to_owned(),
                );
                mismatch(
                    &format!("filter[{node}].plugin"),
                    plugin,
                    status["plugin"].as_str().unwrap_or_default().to_owned(),
                );
                mismatch(
                    &format!("filter[{node}].reasons"),
                    format!("{:?}", normalize_reasons(&reasons)),
                    format!("{:?}", normalize_reasons(&strings(&status["reasons"]))),
                );
            }
            // Scores: spreadlab does not model DynamicResources, which the oracle scores 0 on
            // every node; it is left out of the comparison (and adds nothing to the totals).
            let oracle_scores: BTreeMap<&str, i64> = scores
                .get(node)
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter(|(plugin, _)| plugin.as_str() != UNMODELLED_SCORE_PLUGIN)
                        .map(|(plugin, score)| {
                            (plugin.as_str(), score.as_i64().unwrap_or(i64::MIN))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let our_scores: BTreeMap<&str, i64> = verdict
                .scores
                .iter()
                .map(|s| (s.plugin.as_str(), s.weighted))
                .collect();
            let scored_here = scores.contains_key(node);
            mismatch(
                &format!("scored[{node}]"),
                verdict.total.is_some().to_string(),
                scored_here.to_string(),
            );
            if verdict.total.is_some() && scored_here {
                for plugin in our_scores
                    .keys()
                    .chain(oracle_scores.keys())
                    .collect::<BTreeSet<_>>()
                {
                    coverage.scores += 1;
                    mismatch(
                        &format!("scores[{node}][{plugin}]"),
                        format!("{:?}", our_scores.get(plugin)),
                        format!("{:?}", oracle_scores.get(plugin)),
                    );
                }
                mismatch(
                    &format!("totals[{node}]"),
                    format!("{:?}", verdict.total),
                    format!("{:?}", oracle["totals"][node].as_i64()),
                );
            }
        }
    }
    (problems, coverage)
}

fn status_parts(status: &Status) -> (String, String, Vec<String>) {
    (
        status.code.as_str().to_owned(),
        status
            .plugin
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default(),
        status.reason_strings(),
    )
}
