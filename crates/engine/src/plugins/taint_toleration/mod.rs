//! TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`.

mod filtering;
mod scoring;

pub use filtering::filter;
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// The v1.35 filter reason (PR #134740): key and value are no longer printed.
pub const ERR_REASON_UNTOLERATED: &str = "node(s) had untolerated taint(s)";
