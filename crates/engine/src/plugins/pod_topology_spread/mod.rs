//! PodTopologySpread: hard constraints filter, soft constraints (and system defaults) score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/podtopologyspread/` (`plugin.go`,
//! `common.go`, `filtering.go`, `scoring.go`), file for file.

mod common;
mod filtering;
mod scoring;

pub use common::{
    DefaultingType, SpreadArgs, SpreadConstraint, default_selector, system_default_constraints,
};
pub use filtering::{DomainTable, PreFilterState, filter, pre_filter};
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// `ErrReasonConstraintsNotMatch`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";
