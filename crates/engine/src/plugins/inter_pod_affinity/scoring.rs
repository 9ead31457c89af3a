//! Score half of InterPodAffinity (`scoring.go`: `PreScore`, `processExistingPod`, `Score`,
//! `NormalizeScore`).

use alloc::collections::BTreeMap;
use alloc::string::String;

use super::plugin::{AffinityArgs, merge_term_namespaces};
use crate::framework::{AffinityTerm, NodeInfo, PodInfo, Snapshot, WeightedAffinityTerm};
use crate::model::{Labels, Node, Pod};
use crate::plugins::helper::MAX_NODE_SCORE;

/// `preScoreState.topologyScore`: topology key to value to score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreScoreState {
    /// Accumulated scores per topology pair.
    pub topology_score: BTreeMap<String, BTreeMap<String, i64>>,
}

fn process_term(
    scores: &mut BTreeMap<String, BTreeMap<String, i64>>,
    term: &AffinityTerm,
    weight: i32,
    pod: &Pod,
    namespace_labels: &Labels,
    node: &Node,
    multiplier: i32,
) {
    if term.matches(pod, namespace_labels)
        && let Some(value) = node.labels.get(&term.topology_key)
    {
        *scores
            .entry(term.topology_key.clone())
            .or_default()
            .entry(value.clone())
            .or_insert(0) += (weight.wrapping_mul(multiplier)) as i64;
    }
}

fn process_terms(
    scores: &mut BTreeMap<String, BTreeMap<String, i64>>,
    terms: &[WeightedAffinityTerm],
    pod: &Pod,
    namespace_labels: &Labels,
    node: &Node,
    multiplier: i32,
) {
    for term in terms {
        process_term(
            scores,
            &term.term,
            term.weight,
            pod,
            namespace_labels,
            node,
            multiplier,
        );
    }
}

/// PreScore over the filtered nodes; `Ok(None)` is Skip, `Err` an Error status.
pub fn pre_score(
    args: &AffinityArgs,
    pod: &PodInfo,
    snapshot: &Snapshot,
    filtered: &[usize],
    version: crate::version::KubeVersion,
) -> Result<Option<PreScoreState>, String> {
    if filtered.is_empty() {
        return Ok(None);
    }
    let has_preferred_affinity = pod
        .pod
        .affinity
        .pod_affinity
        .as_ref()
        .is_some_and(|a| !a.preferred.is_empty());
    let has_preferred_anti_affinity = pod
        .pod
        .affinity
        .pod_anti_affinity
        .as_ref()
        .is_some_and(|a| !a.preferred.is_empty());
    let has_constraints = has_preferred_affinity || has_preferred_anti_affinity;
    if args.ignore_preferred_terms_of_existing_pods && !has_constraints {
        return Ok(None);
    }
    if !has_constraints && snapshot.n_nodes_with_affinity_pods == 0 {
        return Ok(None);
    }
    if let Some(error) = &pod.parse_error {
        return Err(alloc::format!("failed to parse pod: {error}"));
    }
    let mut preferred_affinity = pod.preferred_affinity_terms.clone();
    let mut preferred_anti_affinity = pod.preferred_anti_affinity_terms.clone();
    for term in preferred_affinity
        .iter_mut()
        .chain(preferred_anti_affinity.iter_mut())
    {
        merge_term_namespaces(&mut term.term, snapshot, version);
    }
    let namespace_labels = snapshot
        .namespace_labels(&pod.pod.namespace)
        .cloned()
        .unwrap_or_default();
    let no_labels = Labels::new();
    let mut topology_score: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for node_info in &snapshot.nodes {
        let node = &node_info.node;
        let pods = if has_constraints {
            &node_info.pods
        } else {
            &node_info.pods_with_affinity
        };
        if node.labels.is_empty() {
            continue;
        }
        for id in pods {
            let existing = snapshot.pod(*id);
            process_terms(
                &mut topology_score,
                &preferred_affinity,
                &existing.pod,
                &no_labels,
                node,
                1,
            );
            process_terms(
                &mut topology_score,
                &preferred_anti_affinity,
                &existing.pod,
                &no_labels,
                node,
                -1,
            );
            if args.hard_pod_affinity_weight > 0 {
                for term in &existing.required_affinity_terms {
                    process_term(
                        &mut topology_score,
                        term,
                        args.hard_pod_affinity_weight,
                        &pod.pod,
                        &namespace_labels,
                        node,
                        1,
                    );
                }
            }
            process_terms(
                &mut topology_score,
                &existing.preferred_affinity_terms,
                &pod.pod,
                &namespace_labels,
                node,
                1,
            );
            process_terms(
                &mut topology_score,
                &existing.preferred_anti_affinity_terms,
                &pod.pod,
                &namespace_labels,
                node,
                -1,
            );
        }
    }
    if topology_score.is_empty() {
        return Ok(None);
    }
    Ok(Some(PreScoreState { topology_score }))
}

/// Raw score: the sum over the node's topology pairs (may be negative).
pub fn score(state: &PreScoreState, node: &NodeInfo) -> i64 {
    state
        .topology_score
        .iter()
        .filter_map(|(key, values)| {
            node.node
                .labels
                .get(key)
                .map(|v| values.get(v).copied().unwrap_or(0))
        })
        .sum()
}

/// NormalizeScore: `trunc(100 × ((s − min) / (max − min)))` in f64; all 0 when max == min.
pub fn normalize_score(state: &PreScoreState, scores: &mut [i64]) {
    if state.topology_score.is_empty() {
        return;
    }
    let min = scores.iter().copied().fold(i64::MAX, i64::min);
    let max = scores.iter().copied().fold(i64::MIN, i64::max);
    let diff = max.wrapping_sub(min);
    for score in scores.iter_mut() {
        let mut value = 0.0f64;
        if diff > 0 {
            value = MAX_NODE_SCORE as f64 * ((*score - min) as f64 / diff as f64);
        }
        *score = value as i64;
    }
}
