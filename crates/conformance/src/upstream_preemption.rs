//! Runner for the DefaultPreemption tables, `tests/upstream/defaultpreemption/*.yaml` (files with
//! `runner: preemption`; format: `tests/upstream/README.md`, "Preemption tables").
//!
//! Each case builds a profile with the Filter and PreFilter plugins the upstream case registers,
//! runs PreFilter, then the engine's `default_preemption::post_filter` with the case's node
//! statuses (by default every node Unschedulable, as upstream's DryRunPreemption examines every
//! node it is given), and compares what upstream asserts.

use std::collections::BTreeSet;

use serde_json::Value;
use spreadlab_engine::framework::runtime::run_pre_filter;
use spreadlab_engine::framework::{Code, PluginName, PodInfo, Profile, Snapshot, Status};
use spreadlab_engine::plugins::default_preemption::{self, Candidate, PreemptionOutcome};

use crate::upstream::CaseResult;
use spreadlab_engine::KubeVersion;

/// Runs every case of one preemption table.
pub(crate) fn run_file(file: &str, doc: &Value, version: KubeVersion) -> Vec<CaseResult> {
    crate::upstream::run_cases(file, doc, |case| run_case(case, version))
}

/// The profile upstream's case builds: its plugins at Filter and PreFilter, no Score, and
/// DefaultPreemption (run here directly).
fn profile_for(case: &Value, version: KubeVersion) -> Result<Profile, String> {
    let mut profile = Profile::default_for(version);
    profile.filters = case["plugins"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            p.as_str()
                .and_then(PluginName::parse)
                .ok_or_else(|| format!("unknown plugin {p}"))
        })
        .collect::<Result<_, _>>()?;
    profile.scores.clear();
    Ok(profile)
}

/// A candidate as the tables write it: node, victims sorted by name (upstream's test sorts
/// them), PDB violations.
fn candidate_value(snapshot: &Snapshot, candidate: &Candidate) -> Value {
    let mut victims: Vec<String> = candidate
        .victims
        .iter()
        .map(|v| snapshot.pod(*v).pod.name.clone())
        .collect();
    victims.sort();
    serde_json::json!({
        "node": snapshot.nodes[candidate.node].node.name,
        "victims": victims,
        "numPDBViolations": candidate.num_pdb_violations,
    })
}

/// Upstream's `calculateNumCandidates` for the case's DefaultPreemptionArgs.
fn num_candidates(args: &Value, num_nodes: usize) -> usize {
    let percentage = args["minCandidateNodesPercentage"].as_u64().unwrap_or(10) as usize;
    let absolute = args["minCandidateNodesAbsolute"].as_u64().unwrap_or(100) as usize;
    (num_nodes * percentage / 100).max(absolute).min(num_nodes)
}

/// Upstream's `DryRunPreemption` walk with parallelism 1: nodes (sorted by name, as upstream's
/// test sorts them) from `offset`; candidates go to a non-violating and a violating list, each
/// holding at most `wanted` (`candidateList.add` drops the rest); the walk stops once a
/// non-violating one is held and both hold `wanted` together. The engine found every node's
/// candidate; this keeps those the walk keeps (non-violating first, as upstream returns them).
fn dry_run_walk(
    snapshot: &Snapshot,
    candidates: &[Candidate],
    offset: usize,
    wanted: usize,
) -> Vec<Candidate> {
    let mut order: Vec<usize> = (0..snapshot.num_nodes()).collect();
    order.sort_by(|a, b| {
        snapshot.nodes[*a]
            .node
            .name
            .cmp(&snapshot.nodes[*b].node.name)
    });
    let (mut non_violating, mut violating): (Vec<Candidate>, Vec<Candidate>) = Default::default();
    for step in 0..order.len() {
        let node = order[(offset + step) % order.len()];
        if let Some(candidate) = candidates.iter().find(|c| c.node == node) {
            let list = if candidate.num_pdb_violations == 0 {
                &mut non_violating
            } else {
                &mut violating
            };
            if list.len() < wanted {
                list.push(candidate.clone());
            }
            if !non_violating.is_empty() && non_violating.len() + violating.len() >= wanted {
                break;
            }
        }
    }
    non_violating.extend(violating);
    non_violating
}

/// Runs one case; the returned list holds every mismatch.
fn run_case(case: &Value, version: KubeVersion) -> Result<Vec<String>, String> {
    let profile = profile_for(case, version)?;
    let objects = crate::upstream_objects::complete_objects(
        case["objects"].as_array().cloned().unwrap_or_default(),
    );
    let options = spreadlab_k8s::LoadOptions {
        default_namespace: String::new(),
        ..Default::default()
    };
    let loaded = spreadlab_k8s::load_values("fixture", objects, &options);
    if let Some(error) = loaded.errors.first() {
        return Err(format!("objects: {error}"));
    }
    let (mut snapshot, _) = Snapshot::new(&loaded.cluster, version);
    let pod_value = &case["pod"];
    let pod = PodInfo::new(crate::upstream::engine_pod(pod_value)?);
    let (state, pre_filter) = run_pre_filter(&profile, &snapshot, &pod);
    let expect = &case["expect"];
    let mut problems = Vec::new();
    if !pre_filter.status.is_success() {
        problems.push(format!("PreFilter: {}", pre_filter.status.code));
    }

    // The Filter statuses PostFilter is given: the case's, or Unschedulable everywhere.
    let statuses: Vec<Option<Status>> = (0..snapshot.num_nodes())
        .map(|i| {
            let name = &snapshot.nodes[i].node.name;
            match case["nodeStatuses"].as_object() {
                None => Some(Status::new(Code::Unschedulable, "")),
                Some(map) => map
                    .get(name)
                    .and_then(Value::as_str)
                    .and_then(Code::parse)
                    .map(|code| Status::new(code, "")),
            }
        })
        .collect();
    let nominated = pod_value["status"]["nominatedNodeName"]
        .as_str()
        .and_then(|name| snapshot.node_index.get(name).copied())
        .map(|node| {
            let code = case["nominatedNodeStatus"]
                .as_str()
                .and_then(Code::parse)
                .unwrap_or(Code::Success);
            (node, code)
        });
    let outcome = default_preemption::post_filter(
        &profile,
        &mut snapshot,
        &state,
        &pod,
        &statuses,
        nominated,
    );
    let node_name = |i: usize| snapshot.nodes[i].node.name.clone();
    let (all, tied): (Vec<Candidate>, Vec<String>) = match &outcome {
        PreemptionOutcome::Nominated(found) => (
            found.candidates.clone(),
            found
                .tied
                .iter()
                .map(|&t| node_name(found.candidates[t].node))
                .collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    };

    if let Some(expected) = expect["bestNode"].as_array() {
        let accepted: BTreeSet<&str> = expected.iter().filter_map(Value::as_str).collect();
        // Upstream picks any of the tied candidates: each must be one it accepts.
        if tied.is_empty() || tied.iter().any(|t| !accepted.contains(t.as_str())) {
            problems.push(format!(
                "best nodes {tied:?}, upstream accepts {accepted:?}"
            ));
        }
    }
    if let Some(expected) = expect["candidates"].as_array() {
        let got: Vec<Candidate> = match case["offset"].as_u64() {
            Some(offset) => {
                let wanted = num_candidates(&case["args"], snapshot.num_nodes());
                dry_run_walk(&snapshot, &all, offset as usize, wanted)
            }
            None => all.clone(),
        };
        let mut got: Vec<Value> = got.iter().map(|c| candidate_value(&snapshot, c)).collect();
        got.sort_by(|a, b| a["node"].as_str().cmp(&b["node"].as_str()));
        if &got != expected {
            problems.push(format!(
                "candidates {}, upstream {}",
                Value::from(got),
                Value::from(expected.clone())
            ));
        }
    }
    for key in ["postFilter", "preempt"] {
        let want = &expect[key];
        if want.is_null() {
            continue;
        }
        check_result(
            &mut problems,
            key,
            want,
            &outcome,
            &snapshot,
            &tied,
            profile.version,
        );
    }
    if let Some(eligible) = expect["eligible"].as_bool() {
        let got = !matches!(outcome, PreemptionOutcome::Failed(_));
        if got != eligible {
            problems.push(format!("eligible {got}, upstream {eligible}"));
        }
    }
    Ok(problems)
}

/// Checks a PostFilter or Preempt result: `nominatedNode` (a name; `""` for a result that
/// clears the nomination; null for no result), `code` and `message` of the status, and (Preempt)
/// `victims`, the pods deleted.
fn check_result(
    problems: &mut Vec<String>,
    key: &str,
    want: &Value,
    outcome: &PreemptionOutcome,
    snapshot: &Snapshot,
    tied: &[String],
    version: KubeVersion,
) {
    let all: &[Candidate] = match outcome {
        PreemptionOutcome::Nominated(found) => &found.candidates,
        _ => &[],
    };
    let (nominated, code, message): (Value, &str, String) = match outcome {
        PreemptionOutcome::Nominated(found) => {
            // Upstream picks among the tied at random: the case must not depend on it.
            if tied.len() == 1 {
                let best = &found.candidates[found.tied[0]];
                let message =
                    default_preemption::success_message(version, &tied[0], best.victims.len())
                        .unwrap_or_default();
                (Value::from(tied[0].clone()), "Success", message)
            } else {
                (
                    Value::from(format!("one of {tied:?}")),
                    "Success",
                    String::new(),
                )
            }
        }
        PreemptionOutcome::NoCandidates(message) => {
            (Value::from(""), "Unschedulable", message.clone())
        }
        PreemptionOutcome::Failed(message) => (Value::Null, "Unschedulable", message.clone()),
        PreemptionOutcome::Error(message) => (Value::Null, "Error", message.clone()),
    };
    if want.get("nominatedNode").is_some_and(|n| *n != nominated) {
        problems.push(format!(
            "{key}: nominated node {nominated}, upstream {}",
            want["nominatedNode"]
        ));
    }
    if let Some(want_code) = want["code"].as_str()
        && want_code != code
    {
        problems.push(format!("{key}: code {code}, upstream {want_code}"));
    }
    if let Some(want_message) = want["message"].as_str()
        && want_message != message
    {
        problems.push(format!(
            "{key}: message {message:?}, upstream {want_message:?}"
        ));
    }
    if let Some(victims) = want["victims"].as_array() {
        let want: BTreeSet<&str> = victims.iter().filter_map(Value::as_str).collect();
        let got: BTreeSet<String> = match nominated.as_str() {
            Some(node) if !node.is_empty() => all
                .iter()
                .filter(|c| snapshot.nodes[c.node].node.name == node)
                .flat_map(|c| c.victims.iter())
                .filter(|v| !snapshot.pod(**v).pod.terminating)
                .map(|v| snapshot.pod(*v).pod.name.clone())
                .collect(),
            _ => BTreeSet::new(),
        };
        let got_ref: BTreeSet<&str> = got.iter().map(String::as_str).collect();
        if got_ref != want {
            problems.push(format!("{key}: victims {got:?}, upstream {want:?}"));
        }
    }
}
