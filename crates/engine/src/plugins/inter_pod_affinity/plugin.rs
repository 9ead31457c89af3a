//! Plugin args and namespace-selector expansion (`plugin.go`).

pub use crate::config::AffinityArgs;
use crate::framework::{AffinityTerm, Snapshot};
use crate::model::Selector;

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
