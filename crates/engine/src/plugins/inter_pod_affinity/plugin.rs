//! Plugin args and namespace-selector expansion (`plugin.go`).

use crate::framework::{AffinityTerm, Snapshot};
use crate::model::Selector;

/// Plugin args (`InterPodAffinityArgs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinityArgs {
    /// `hardPodAffinityWeight` (default 1, 0..100).
    pub hard_pod_affinity_weight: i32,
    /// `ignorePreferredTermsOfExistingPods` (default false).
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for AffinityArgs {
    fn default() -> Self {
        AffinityArgs {
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

/// `mergeAffinityTermNamespacesIfNotEmpty`: a non-empty namespace selector on the incoming pod's
/// term is replaced by the names of the Namespaces it selects; `{}` (all namespaces) is kept.
pub fn merge_term_namespaces(term: &mut AffinityTerm, snapshot: &Snapshot) {
    if term.namespace_selector.is_empty() {
        return;
    }
    for (name, labels) in &snapshot.namespaces {
        if term.namespace_selector.matches(labels) {
            term.namespaces.insert(name.clone());
        }
    }
    term.namespace_selector = Selector::Nothing;
}
