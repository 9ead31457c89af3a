//! Score half of PodTopologySpread (`scoring.go`: `initPreScoreState`, `PreScore`, `Score`,
//! `NormalizeScore`).
//!
//! Domains and their normalizing weights `ln(size + 2)` come from the filtered nodes, counts from
//! all nodes; the hostname key is counted on the node itself at Score time.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use alloc::sync::Arc;

use super::common::{
    DefaultingType, InclusionReads, SpreadArgs, SpreadConstraint, get_constraints,
};
use crate::framework::{NodeInfo, PodInfo, Snapshot, TopologyIndex};
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
    /// Per constraint: the snapshot's values of its key, and per value index the count of
    /// `topology_value_to_pod_counts` (`None`: not a domain of the filtered nodes), so that Score
    /// does no string lookups.
    domains: Vec<Domains>,
}

/// One constraint's counts by value index (see [`PreScoreState`]).
#[derive(Clone, Debug, PartialEq)]
struct Domains {
    index: Arc<TopologyIndex>,
    /// One slot per value, and a last one for nodes without the key.
    counts: Vec<Option<i64>>,
    /// The slot of nodes without the key: upstream reads their value as `""`, the same domain
    /// as a label with the empty value.
    empty: usize,
}

impl Domains {
    fn new(index: Arc<TopologyIndex>) -> Domains {
        let counts = alloc::vec![None; index.values.len() + 1];
        let empty = index
            .values
            .iter()
            .position(String::is_empty)
            .unwrap_or(index.values.len());
        Domains {
            index,
            counts,
            empty,
        }
    }

    /// The slot of node `n`'s value (`""` when it lacks the key).
    fn slot(&self, n: usize) -> usize {
        match self.index.node_value[n] {
            TopologyIndex::NO_VALUE => self.empty,
            value => value as usize,
        }
    }

    /// The value a slot stands for.
    fn value(&self, slot: usize) -> String {
        self.index.values.get(slot).cloned().unwrap_or_default()
    }
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
    let mut domains: Vec<Domains> = constraints
        .iter()
        .map(|c| Domains::new(snapshot.topology_index(&c.topology_key)))
        .collect();
    let has_all_keys = |domains: &[Domains], n: usize| {
        domains
            .iter()
            .all(|d| d.index.node_value[n] != TopologyIndex::NO_VALUE)
    };
    let mut ignored_nodes = BTreeSet::new();
    let mut topology_size = alloc::vec![0usize; constraints.len()];
    for &node_index in filtered {
        if require_all_topologies && !has_all_keys(&domains, node_index) {
            ignored_nodes.insert(node_index);
            continue;
        }
        for (index, constraint) in constraints.iter().enumerate() {
            if constraint.topology_key == LABEL_HOSTNAME {
                continue;
            }
            let slot = domains[index].slot(node_index);
            if domains[index].counts[slot].is_none() {
                domains[index].counts[slot] = Some(0);
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
    // The inclusion policies read the node only when one of them must be asked per node.
    let reads = InclusionReads::of(pod, &constraints);
    let node_match_counts: Vec<Vec<u32>> = constraints
        .iter()
        .map(|c| snapshot.with_match_counts(&pod.pod.namespace, &c.selector, |n| n.to_vec()))
        .collect();
    for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
        if require_all_topologies && !has_all_keys(&domains, node_index) {
            continue;
        }
        let node = reads.nodes.then(|| &*node_info.node);
        let affinity_matches = node.is_some_and(|n| reads.affinity_matches(pod, n));
        for (index, constraint) in constraints.iter().enumerate() {
            if let Some(node) = node
                && !constraint.matches_node_inclusion_policies(pod, node, affinity_matches)
            {
                continue;
            }
            let table = &mut domains[index];
            let slot = table.slot(node_index);
            if let Some(count) = &mut table.counts[slot] {
                *count += node_match_counts[index][node_index] as i64;
            }
        }
    }
    let topology_value_to_pod_counts = domains
        .iter()
        .map(|table| {
            table
                .counts
                .iter()
                .enumerate()
                .filter_map(|(slot, count)| count.map(|c| (table.value(slot), c)))
                .collect()
        })
        .collect();
    Some(PreScoreState {
        constraints,
        ignored_nodes,
        topology_value_to_pod_counts,
        topology_normalizing_weight: weights,
        topology_size,
        node_match_counts,
        domains,
    })
}

/// `scoreForCount`: `cnt × weight + (maxSkew − 1)`.
fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    count as f64 * weight + (max_skew - 1) as f64
}

/// Raw score: the weighted matching-pod counts of the node's domains, rounded once.
pub fn score(state: &PreScoreState, node_index: usize, _node: &NodeInfo) -> i64 {
    if state.ignored_nodes.contains(&node_index) {
        return 0;
    }
    let mut score = 0.0f64;
    for (index, constraint) in state.constraints.iter().enumerate() {
        let table = &state.domains[index];
        // A node without the key adds nothing.
        let value = table.index.node_value[node_index];
        if value == TopologyIndex::NO_VALUE {
            continue;
        }
        let count = if constraint.topology_key == LABEL_HOSTNAME {
            state.node_match_counts[index][node_index] as i64
        } else {
            table.counts[value as usize].unwrap_or(0)
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
