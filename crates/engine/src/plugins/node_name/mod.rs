//! NodeName: a pod that names a node only fits that node.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodename/node_name.go`.

mod filtering;

pub use filtering::filter;

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't match the requested node name";
