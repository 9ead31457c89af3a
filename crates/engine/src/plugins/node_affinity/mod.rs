//! NodeAffinity: `spec.nodeSelector` and required node affinity filter, preferred terms score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go` and
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go` (v0.35).

mod filtering;
mod scoring;

pub use filtering::{PreFilterState, filter, pre_filter};

use crate::model::NodeAffinity;

/// Plugin args (`NodeAffinityArgs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeAffinityArgs {
    /// `addedAffinity`: node affinity the profile enforces on every pod.
    pub added_affinity: Option<NodeAffinity>,
}
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// `ErrReasonPod`.
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// `errReasonEnforced`.
pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
/// `errReasonConflict`.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";
