//! InterPodAffinity: required pod (anti-)affinity filters, preferred terms and existing pods'
//! terms score. Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/interpodaffinity/`
//! (`plugin.go`, `filtering.go`, `scoring.go`), file for file.

mod filtering;
mod plugin;
mod scoring;

pub use filtering::{PreFilterState, TopologyCounts, filter, pre_filter};
pub use plugin::AffinityArgs;
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";
