//! Score half of PodTopologySpread (`scoring.go`: `initPreScoreState`, `PreScore`, `Score`,
//! `NormalizeScore`).
//!
//! Domains and their normalizing weights `ln(size + 2)` come from the filtered nodes, counts from
//! all nodes; the hostname key is counted on the node itself at Score time.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::common::{
    DefaultingType, SpreadArgs, SpreadConstraint, get_constraints, node_has_all_keys,
};
use crate::framework::{NodeInfo, PodInfo, Snapshot};
use crate::model::{LABEL_HOSTNAME, WhenUnsatisfiable};
use crate::plugins::helper::MAX_NODE_SCORE;

/// `preScoreState`.
#[derive(Clone, Debug, PartialEq)]
pub struct PreScoreState {
    /// The soft constraints (or the defaults).
    pub constraints: Vec<SpreadConstraint>,
    /// Filtered nodes (snapshot indexes) lacking a topology key: scored 0.
    pub ignored_nodes: BTreeSet<usize>,
    /// Per constraint: topology value to matching pod count (not used for the hostname key).
    pub topology_value_to_pod_counts: Vec<BTreeMap<String, i64>>,
    /// Per constraint: `ln(size + 2)`.
    pub topology_normalizing_weight: Vec<f64>,
    /// Per constraint: the `size` given to the weight.
    pub topology_size: Vec<usize>,
    /// Per constraint: matching pods on each node (snapshot index), read once at PreScore and
    /// reused by Score for the hostname key.
    pub node_match_counts: Vec<Vec<u32>>,
}

/// `topologyNormalizingWeight`.
pub fn topology_normalizing_weight(size: usize) -> f64 {
    libm::log((size + 2) as f64)
}

/// PreScore over the filtered nodes (snapshot indexes); `None` is Skip (no nodes, or no soft constraints).
pub fn pre_score(
    args: &SpreadArgs,
    pod: &PodInfo,
    snapshot: &Snapshot,
    filtered: &[usize],
) -> Option<PreScoreState> {
    if snapshot.nodes.is_empty() {
        return None;
    }
    let constraints = get_constraints(args, pod, snapshot, WhenUnsatisfiable::ScheduleAnyway);
    if constraints.is_empty() {
        return None;
    }
    // Only pods that received the built-in system defaults may be scored on nodes lacking a key.
    let require_all_topologies = !pod.pod.topology_spread_constraints.is_empty()
        || args.defaulting_type != DefaultingType::System;
    let mut ignored_nodes = BTreeSet::new();
    let mut counts: Vec<BTreeMap<String, i64>> =
        constraints.iter().map(|_| BTreeMap::new()).collect();
    let mut topology_size = alloc::vec![0usize; constraints.len()];
    for &node_index in filtered {
        let labels = &snapshot.nodes[node_index].node.labels;
        if require_all_topologies && !node_has_all_keys(labels, &constraints) {
            ignored_nodes.insert(node_index);
            continue;
        }
        for (index, constraint) in constraints.iter().enumerate() {
            if constraint.topology_key == LABEL_HOSTNAME {
                continue;
            }
            let value = labels
                .get(&constraint.topology_key)
                .cloned()
                .unwrap_or_default();
            if let alloc::collections::btree_map::Entry::Vacant(entry) = counts[index].entry(value)
            {
                entry.insert(0);
                topology_size[index] += 1;
            }
        }
    }
    let weights = constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| {
            if constraint.topology_key == LABEL_HOSTNAME {
                topology_size[index] = filtered.len() - ignored_nodes.len();
            }
            topology_normalizing_weight(topology_size[index])
        })
        .collect();
    let needs_affinity = constraints
        .iter()
        .any(|c| c.node_affinity_policy == crate::model::NodeInclusionPolicy::Honor);
    let node_match_counts: Vec<Vec<u32>> = constraints
        .iter()
        .map(|c| snapshot.with_match_counts(&pod.pod.namespace, &c.selector, |n| n.to_vec()))
        .collect();
    for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
        let node = &node_info.node;
        if require_all_topologies && !node_has_all_keys(&node.labels, &constraints) {
            continue;
        }
        let affinity_matches = needs_affinity && pod.pod.matches_required_node_affinity(node);
        for (index, constraint) in constraints.iter().enumerate() {
            if !constraint.matches_node_inclusion_policies(pod, node, affinity_matches) {
                continue;
            }
            let value = node
                .labels
                .get(&constraint.topology_key)
                .map(String::as_str)
                .unwrap_or("");
            if let Some(count) = counts[index].get_mut(value) {
                *count += node_match_counts[index][node_index] as i64;
            }
        }
    }
    Some(PreScoreState {
        constraints,
        ignored_nodes,
        topology_value_to_pod_counts: counts,
        topology_normalizing_weight: weights,
        topology_size,
        node_match_counts,
    })
}

/// `scoreForCount`: `cnt × weight + (maxSkew − 1)`.
fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    count as f64 * weight + (max_skew - 1) as f64
}

/// Raw score: the weighted matching-pod counts of the node's domains, rounded once.
pub fn score(state: &PreScoreState, node_index: usize, node: &NodeInfo) -> i64 {
    if state.ignored_nodes.contains(&node_index) {
        return 0;
    }
    let mut score = 0.0f64;
    for (index, constraint) in state.constraints.iter().enumerate() {
        let Some(value) = node.node.labels.get(&constraint.topology_key) else {
            continue;
        };
        let count = if constraint.topology_key == LABEL_HOSTNAME {
            state.node_match_counts[index][node_index] as i64
        } else {
            state.topology_value_to_pod_counts[index]
                .get(value)
                .copied()
                .unwrap_or(0)
        };
        score += score_for_count(
            count,
            constraint.max_skew,
            state.topology_normalizing_weight[index],
        );
    }
    libm::round(score) as i64
}

/// NormalizeScore: `100 × (max + min − s) / max` over non-ignored nodes; ignored nodes get 0.
pub fn normalize_score(state: &PreScoreState, nodes: &[usize], scores: &mut [i64]) {
    let mut min_score = i64::MAX;
    let mut max_score = 0i64;
    for (position, score) in scores.iter().enumerate() {
        if state.ignored_nodes.contains(&nodes[position]) {
            continue;
        }
        min_score = min_score.min(*score);
        max_score = max_score.max(*score);
    }
    for (position, score) in scores.iter_mut().enumerate() {
        if state.ignored_nodes.contains(&nodes[position]) {
            *score = 0;
        } else if max_score == 0 {
            *score = MAX_NODE_SCORE;
        } else {
            *score = MAX_NODE_SCORE * (max_score + min_score - *score) / max_score;
        }
    }
}
