//! Filter half of InterPodAffinity (`filtering.go`: `PreFilter`, `Filter`, `AddPod`/`RemovePod`).
//!
//! Upstream keys its counts by (topology key, value) pairs; here each key's counts are indexed by
//! the snapshot's [`TopologyIndex`] for that key, so Filter does no string work per node.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::plugin::merge_term_namespaces;
use super::{
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
};
use crate::framework::{AffinityTerm, Code, PodInfo, Snapshot, Status, TopologyIndex};
use crate::model::{Labels, Pod};

/// The counts of one topology key, by value index.
#[derive(Clone, Debug, PartialEq, Eq)]
struct KeyCounts {
    key: String,
    index: Arc<TopologyIndex>,
    counts: Vec<i64>,
    non_zero: usize,
}

/// `topologyToMatchedTermCount`: (topology key, value) to a count. Upstream deletes entries that
/// reach zero; [`TopologyCounts::is_empty`] has the same meaning as `len(map) == 0`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyCounts {
    keys: Vec<KeyCounts>,
}

impl TopologyCounts {
    /// `topologyToMatchedTermCount.update`: adds `delta` at the node's value of `key`, if it has one.
    fn update(&mut self, snapshot: &Snapshot, node_index: usize, key: &str, delta: i64) {
        let position = match self.keys.iter().position(|k| k.key == key) {
            Some(position) => position,
            None => {
                let index = snapshot.topology_index(key);
                let counts = alloc::vec![0; index.values.len()];
                self.keys.push(KeyCounts {
                    key: String::from(key),
                    index,
                    counts,
                    non_zero: 0,
                });
                self.keys.len() - 1
            }
        };
        let entry = &mut self.keys[position];
        let value = entry.index.node_value[node_index];
        if value == TopologyIndex::NO_VALUE {
            return;
        }
        let count = &mut entry.counts[value as usize];
        let was_zero = *count == 0;
        *count += delta;
        match (was_zero, *count == 0) {
            (true, false) => entry.non_zero += 1,
            (false, true) => entry.non_zero -= 1,
            _ => {}
        }
    }

    /// The count at a node's value of `key` (0 when the node lacks the key).
    fn get(&self, key: &str, node_index: usize) -> i64 {
        self.keys.iter().find(|k| k.key == key).map_or(0, |k| {
            match k.index.node_value[node_index] {
                TopologyIndex::NO_VALUE => 0,
                value => k.counts[value as usize],
            }
        })
    }

    /// Whether counts of topology `key` are kept (even if all are zero now).
    pub fn has_key(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k.key == key)
    }

    /// Whether every count is zero (upstream: the map is empty).
    pub fn is_empty(&self) -> bool {
        self.keys.iter().all(|k| k.non_zero == 0)
    }

    /// The non-zero counts as `(key, value) -> count`, for explanations and tests.
    pub fn to_map(&self) -> BTreeMap<(String, String), i64> {
        let mut map = BTreeMap::new();
        for key in &self.keys {
            for (value, count) in key.index.values.iter().zip(&key.counts) {
                if *count != 0 {
                    map.insert((key.key.clone(), value.clone()), *count);
                }
            }
        }
        map
    }

    /// `satisfyExistingPodsAntiAffinity`'s test: some label (key, value) of the node has a count.
    fn any_label_counted(&self, node_index: usize) -> bool {
        self.keys
            .iter()
            .filter(|k| k.non_zero > 0)
            .any(|k| match k.index.node_value[node_index] {
                TopologyIndex::NO_VALUE => false,
                value => k.counts[value as usize] > 0,
            })
    }
}

/// `podMatchesAllAffinityTerms`: false for no terms.
fn pod_matches_all_terms(terms: &[AffinityTerm], pod: &Pod) -> bool {
    let no_labels = Labels::new();
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod, &no_labels))
}

fn update_with_affinity_terms(
    counts: &mut TopologyCounts,
    snapshot: &Snapshot,
    terms: &[AffinityTerm],
    pod: &Pod,
    node_index: usize,
    value: i64,
) {
    if pod_matches_all_terms(terms, pod) {
        for term in terms {
            counts.update(snapshot, node_index, &term.topology_key, value);
        }
    }
}

fn update_with_anti_affinity_terms(
    counts: &mut TopologyCounts,
    snapshot: &Snapshot,
    terms: &[AffinityTerm],
    pod: &Pod,
    namespace_labels: &Labels,
    node_index: usize,
    value: i64,
) {
    for term in terms {
        if term.matches(pod, namespace_labels) {
            counts.update(snapshot, node_index, &term.topology_key, value);
        }
    }
}

/// `preFilterState`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterState {
    /// Existing pods' required anti-affinity terms matching the incoming pod.
    pub existing_anti_affinity_counts: TopologyCounts,
    /// Incoming pod's required affinity terms matched by existing pods (all terms at once).
    pub affinity_counts: TopologyCounts,
    /// Incoming pod's required anti-affinity terms matched by existing pods (each term).
    pub anti_affinity_counts: TopologyCounts,
    /// The incoming pod's required affinity terms, namespace selectors expanded.
    pub required_affinity_terms: Vec<AffinityTerm>,
    /// The incoming pod's required anti-affinity terms, namespace selectors expanded.
    pub required_anti_affinity_terms: Vec<AffinityTerm>,
    /// Labels of the incoming pod's namespace (empty when the Namespace is unknown).
    pub namespace_labels: Labels,
}

impl PreFilterState {
    /// `AddPod`/`RemovePod`: applies an existing pod's change (delta ±1) on a node.
    pub fn update_with_pod(
        &mut self,
        snapshot: &Snapshot,
        updated: &PodInfo,
        node_index: usize,
        delta: i64,
        incoming: &Pod,
    ) {
        update_with_anti_affinity_terms(
            &mut self.existing_anti_affinity_counts,
            snapshot,
            &updated.required_anti_affinity_terms,
            incoming,
            &self.namespace_labels,
            node_index,
            delta,
        );
        update_with_affinity_terms(
            &mut self.affinity_counts,
            snapshot,
            &self.required_affinity_terms,
            &updated.pod,
            node_index,
            delta,
        );
        let no_labels = Labels::new();
        update_with_anti_affinity_terms(
            &mut self.anti_affinity_counts,
            snapshot,
            &self.required_anti_affinity_terms,
            &updated.pod,
            &no_labels,
            node_index,
            delta,
        );
    }
}

/// PreFilter: `Skip` when no existing pod's anti-affinity matches and the pod has no required terms.
pub fn pre_filter(
    pod: &PodInfo,
    snapshot: &Snapshot,
    version: crate::version::KubeVersion,
) -> (Status, Option<PreFilterState>) {
    if let Some(error) = &pod.parse_error {
        return (
            Status::new(
                Code::UnschedulableAndUnresolvable,
                alloc::format!("parsing pod: {error}"),
            ),
            None,
        );
    }
    let mut required_affinity_terms = pod.required_affinity_terms.clone();
    let mut required_anti_affinity_terms = pod.required_anti_affinity_terms.clone();
    for term in required_affinity_terms
        .iter_mut()
        .chain(required_anti_affinity_terms.iter_mut())
    {
        merge_term_namespaces(term, snapshot, version);
    }
    let namespace_labels = snapshot
        .namespace_labels(&pod.pod.namespace)
        .cloned()
        .unwrap_or_default();
    let mut existing_anti_affinity_counts = TopologyCounts::default();
    if snapshot.n_nodes_with_required_anti_affinity_pods > 0 {
        for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
            for id in &node_info.pods_with_required_anti_affinity {
                let existing = snapshot.pod(*id);
                update_with_anti_affinity_terms(
                    &mut existing_anti_affinity_counts,
                    snapshot,
                    &existing.required_anti_affinity_terms,
                    &pod.pod,
                    &namespace_labels,
                    node_index,
                    1,
                );
            }
        }
    }
    let mut affinity_counts = TopologyCounts::default();
    let mut anti_affinity_counts = TopologyCounts::default();
    if !required_affinity_terms.is_empty() || !required_anti_affinity_terms.is_empty() {
        let no_labels = Labels::new();
        for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
            for id in &node_info.pods {
                let existing = &snapshot.pod(*id).pod;
                update_with_affinity_terms(
                    &mut affinity_counts,
                    snapshot,
                    &required_affinity_terms,
                    existing,
                    node_index,
                    1,
                );
                update_with_anti_affinity_terms(
                    &mut anti_affinity_counts,
                    snapshot,
                    &required_anti_affinity_terms,
                    existing,
                    &no_labels,
                    node_index,
                    1,
                );
            }
        }
    }
    if existing_anti_affinity_counts.is_empty()
        && required_affinity_terms.is_empty()
        && required_anti_affinity_terms.is_empty()
    {
        return (Status::skip(), None);
    }
    let state = PreFilterState {
        existing_anti_affinity_counts,
        affinity_counts,
        anti_affinity_counts,
        required_affinity_terms,
        required_anti_affinity_terms,
        namespace_labels,
    };
    (Status::success(), Some(state))
}

/// `satisfyPodAffinity`, including the first-pod exception.
fn satisfy_pod_affinity(
    state: &PreFilterState,
    snapshot: &Snapshot,
    pod: &Pod,
    node_index: usize,
) -> bool {
    let labels = &snapshot.nodes[node_index].node.labels;
    let mut pods_exist = true;
    for term in &state.required_affinity_terms {
        if !labels.contains_key(&term.topology_key) {
            // All topology labels must exist on the node.
            return false;
        }
        if state.affinity_counts.get(&term.topology_key, node_index) <= 0 {
            pods_exist = false;
        }
    }
    if !pods_exist {
        // The first pod of a group that has affinity to itself may go anywhere its topology keys exist.
        return state.affinity_counts.is_empty()
            && pod_matches_all_terms(&state.required_affinity_terms, pod);
    }
    true
}

/// `satisfyPodAntiAffinity`: a node without a term's key passes that term.
fn satisfy_pod_anti_affinity(state: &PreFilterState, node_index: usize) -> bool {
    state.anti_affinity_counts.is_empty()
        || !state.required_anti_affinity_terms.iter().any(|term| {
            state
                .anti_affinity_counts
                .get(&term.topology_key, node_index)
                > 0
        })
}

/// Filter: affinity (UnschedulableAndUnresolvable), then anti-affinity, then existing pods'
/// anti-affinity (both Unschedulable).
pub fn filter(
    state: &PreFilterState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    if !satisfy_pod_affinity(state, snapshot, &pod.pod, node_index) {
        return Status::new(
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if !satisfy_pod_anti_affinity(state, node_index) {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if state
        .existing_anti_affinity_counts
        .any_label_counted(node_index)
    {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    Status::success()
}
