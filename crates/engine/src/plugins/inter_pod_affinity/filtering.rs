//! Filter half of InterPodAffinity (`filtering.go`: `PreFilter`, `Filter`, `AddPod`/`RemovePod`).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::plugin::merge_term_namespaces;
use super::{
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
};
use crate::framework::{AffinityTerm, Code, NodeInfo, PodInfo, Snapshot, Status};
use crate::model::{Labels, Node, Pod};

/// `topologyToMatchedTermCount`: (topology key, value) to a count; zero entries are removed.
pub type TopologyCounts = BTreeMap<(String, String), i64>;

fn update(counts: &mut TopologyCounts, node: &Node, key: &str, value: i64) {
    if let Some(topology_value) = node.labels.get(key) {
        let pair = (String::from(key), topology_value.clone());
        let entry = counts.entry(pair.clone()).or_insert(0);
        *entry += value;
        if *entry == 0 {
            counts.remove(&pair);
        }
    }
}

/// `podMatchesAllAffinityTerms`: false for no terms.
fn pod_matches_all_terms(terms: &[AffinityTerm], pod: &Pod) -> bool {
    let no_labels = Labels::new();
    !terms.is_empty() && terms.iter().all(|t| t.matches(pod, &no_labels))
}

fn update_with_affinity_terms(
    counts: &mut TopologyCounts,
    terms: &[AffinityTerm],
    pod: &Pod,
    node: &Node,
    value: i64,
) {
    if pod_matches_all_terms(terms, pod) {
        for term in terms {
            update(counts, node, &term.topology_key, value);
        }
    }
}

fn update_with_anti_affinity_terms(
    counts: &mut TopologyCounts,
    terms: &[AffinityTerm],
    pod: &Pod,
    namespace_labels: &Labels,
    node: &Node,
    value: i64,
) {
    for term in terms {
        if term.matches(pod, namespace_labels) {
            update(counts, node, &term.topology_key, value);
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
    pub fn update_with_pod(&mut self, updated: &PodInfo, node: &Node, delta: i64, incoming: &Pod) {
        update_with_anti_affinity_terms(
            &mut self.existing_anti_affinity_counts,
            &updated.required_anti_affinity_terms,
            incoming,
            &self.namespace_labels,
            node,
            delta,
        );
        update_with_affinity_terms(
            &mut self.affinity_counts,
            &self.required_affinity_terms,
            &updated.pod,
            node,
            delta,
        );
        let no_labels = Labels::new();
        update_with_anti_affinity_terms(
            &mut self.anti_affinity_counts,
            &self.required_anti_affinity_terms,
            &updated.pod,
            &no_labels,
            node,
            delta,
        );
    }
}

/// PreFilter: `Skip` when no existing pod's anti-affinity matches and the pod has no required terms.
pub fn pre_filter(pod: &PodInfo, snapshot: &Snapshot) -> (Status, Option<PreFilterState>) {
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
        merge_term_namespaces(term, snapshot);
    }
    let namespace_labels = snapshot
        .namespace_labels(&pod.pod.namespace)
        .cloned()
        .unwrap_or_default();
    let mut existing_anti_affinity_counts = TopologyCounts::new();
    if snapshot.n_nodes_with_required_anti_affinity_pods > 0 {
        for node_info in &snapshot.nodes {
            for id in &node_info.pods_with_required_anti_affinity {
                let existing = snapshot.pod(*id);
                update_with_anti_affinity_terms(
                    &mut existing_anti_affinity_counts,
                    &existing.required_anti_affinity_terms,
                    &pod.pod,
                    &namespace_labels,
                    &node_info.node,
                    1,
                );
            }
        }
    }
    let mut affinity_counts = TopologyCounts::new();
    let mut anti_affinity_counts = TopologyCounts::new();
    if !required_affinity_terms.is_empty() || !required_anti_affinity_terms.is_empty() {
        let no_labels = Labels::new();
        for node_info in &snapshot.nodes {
            for id in &node_info.pods {
                let existing = &snapshot.pod(*id).pod;
                update_with_affinity_terms(
                    &mut affinity_counts,
                    &required_affinity_terms,
                    existing,
                    &node_info.node,
                    1,
                );
                update_with_anti_affinity_terms(
                    &mut anti_affinity_counts,
                    &required_anti_affinity_terms,
                    existing,
                    &no_labels,
                    &node_info.node,
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

fn count(counts: &TopologyCounts, key: &str, value: &str) -> i64 {
    // The map is keyed by owned strings; a range query avoids allocating a lookup key.
    counts
        .range((String::from(key), String::from(value))..)
        .next()
        .filter(|((k, v), _)| k == key && v == value)
        .map_or(0, |(_, c)| *c)
}

/// `satisfyPodAffinity`, including the first-pod exception.
fn satisfy_pod_affinity(state: &PreFilterState, pod: &Pod, node: &Node) -> bool {
    let mut pods_exist = true;
    for term in &state.required_affinity_terms {
        match node.labels.get(&term.topology_key) {
            Some(value) => {
                if count(&state.affinity_counts, &term.topology_key, value) <= 0 {
                    pods_exist = false;
                }
            }
            // All topology labels must exist on the node.
            None => return false,
        }
    }
    if !pods_exist {
        // The first pod of a group that has affinity to itself may go anywhere its topology keys exist.
        return state.affinity_counts.is_empty()
            && pod_matches_all_terms(&state.required_affinity_terms, pod);
    }
    true
}

/// `satisfyPodAntiAffinity`.
fn satisfy_pod_anti_affinity(state: &PreFilterState, node: &Node) -> bool {
    if state.anti_affinity_counts.is_empty() {
        return true;
    }
    !state.required_anti_affinity_terms.iter().any(|term| {
        node.labels
            .get(&term.topology_key)
            .is_some_and(|value| count(&state.anti_affinity_counts, &term.topology_key, value) > 0)
    })
}

/// `satisfyExistingPodsAntiAffinity`: any node label pair with a count rejects the node.
fn satisfy_existing_pods_anti_affinity(state: &PreFilterState, node: &Node) -> bool {
    if state.existing_anti_affinity_counts.is_empty() {
        return true;
    }
    !node
        .labels
        .iter()
        .any(|(key, value)| count(&state.existing_anti_affinity_counts, key, value) > 0)
}

/// Filter: affinity (UnschedulableAndUnresolvable), then anti-affinity, then existing pods'
/// anti-affinity (both Unschedulable).
pub fn filter(state: &PreFilterState, pod: &PodInfo, node: &NodeInfo) -> Status {
    if !satisfy_pod_affinity(state, &pod.pod, &node.node) {
        return Status::new(
            Code::UnschedulableAndUnresolvable,
            ERR_REASON_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if !satisfy_pod_anti_affinity(state, &node.node) {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    if !satisfy_existing_pods_anti_affinity(state, &node.node) {
        return Status::new(
            Code::Unschedulable,
            ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
        );
    }
    Status::success()
}
