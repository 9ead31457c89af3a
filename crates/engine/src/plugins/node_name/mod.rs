//! NodeName: a pod that names a node only fits that node.
//! Mirrors `pkg/scheduler/framework/plugins/nodename/node_name.go` (v1.35; the PreFilter is v1.37's).

mod filtering;

pub use filtering::filter;

/// Whether Filter tells nodes apart by name: only for a pod that names a node (`spec.nodeName`).
/// Otherwise alike nodes get the same verdict (`framework/classes.rs`).
pub fn reads_node_identity(pod: &crate::framework::PodInfo) -> bool {
    pod.pod
        .node_name
        .as_deref()
        .is_some_and(|name| !name.is_empty())
}

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// v1.37 `PreFilter`: a pod that names a node narrows the cycle to it
/// (`PreFilterResult{NodeNames: {spec.nodeName}}`); otherwise every node.
pub fn pre_filter_node_names(
    pod: &crate::framework::PodInfo,
) -> Option<alloc::collections::BTreeSet<alloc::string::String>> {
    pod.pod
        .node_name
        .as_deref()
        .filter(|name| !name.is_empty())
        .map(|name| alloc::collections::BTreeSet::from([alloc::string::String::from(name)]))
}
