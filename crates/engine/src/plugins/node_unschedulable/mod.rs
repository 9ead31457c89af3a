//! NodeUnschedulable: rejects cordoned nodes unless the pod tolerates the unschedulable taint.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go`.

mod filtering;

pub use filtering::filter;

/// `ErrReasonUnschedulable`.
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
/// `v1.TaintNodeUnschedulable`.
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
