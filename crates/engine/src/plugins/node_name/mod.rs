//! NodeName: a pod that names a node only fits that node.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodename/node_name.go`.

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
