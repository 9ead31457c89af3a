//! Plugin args and namespace-selector expansion (`plugin.go`).

pub use crate::config::AffinityArgs;
use crate::framework::{AffinityTerm, Snapshot};
use crate::model::Selector;
use crate::version::KubeVersion;

/// `mergeAffinityTermNamespacesIfNotEmpty`: a non-empty namespace selector on the incoming pod's
/// term is replaced by the names of the Namespaces it selects; `{}` (all namespaces) is kept.
///
/// Up to v1.36 the function took the term by value (interpodaffinity/plugin.go): the names
/// reached the shared set, but the selector was never replaced, and the incoming pod's terms are
/// matched with nil namespace labels (`podMatchesAllAffinityTerms`, `processTerms`). A selector
/// that matches the empty label set (only `NotIn`/`DoesNotExist`) therefore matched pods of
/// every namespace; v1.37 takes a pointer and really merges.
pub fn merge_term_namespaces(term: &mut AffinityTerm, snapshot: &Snapshot, version: KubeVersion) {
    if term.namespace_selector.is_empty() {
        return;
    }
    for (name, labels) in &snapshot.namespaces {
        if term.namespace_selector.matches(labels) {
            term.namespaces.insert(name.clone());
        }
    }
    let every_namespace = !version.since(37)
        && term
            .namespace_selector
            .matches(&crate::model::Labels::default());
    term.namespace_selector = if every_namespace {
        Selector::Requirements(alloc::vec::Vec::new())
    } else {
        Selector::Nothing
    };
}
