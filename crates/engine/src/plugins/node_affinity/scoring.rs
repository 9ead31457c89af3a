//! Score half of NodeAffinity (`node_affinity.go` `PreScore`, `Score`, `NormalizeScore`).

use alloc::vec::Vec;

use crate::framework::{NodeInfo, PodInfo};
use crate::model::PreferredSchedulingTerm;
use crate::plugins::helper::default_normalize_score;

/// The preferred terms that count (weight > 0 and not empty).
#[derive(Clone, Debug)]
pub struct PreScoreState {
    /// Terms kept.
    pub preferred: Vec<PreferredSchedulingTerm>,
}

/// `None` (Skip) when the pod has no preferred terms.
pub fn pre_score(pod: &PodInfo) -> Option<PreScoreState> {
    let preferred: Vec<PreferredSchedulingTerm> = pod
        .pod
        .affinity
        .node_affinity
        .as_ref()
        .map(|a| a.preferred.clone())
        .unwrap_or_default();
    if preferred.is_empty() {
        return None;
    }
    let kept = preferred
        .into_iter()
        .filter(|t| t.weight != 0 && !(t.preference.match_expressions.is_empty() && t.preference.match_fields.is_empty()))
        .collect();
    Some(PreScoreState { preferred: kept })
}

/// Raw score: the sum of the weights of the matching preferred terms.
pub fn score(state: &PreScoreState, node: &NodeInfo) -> i64 {
    state.preferred.iter().filter(|t| t.preference.matches(&node.node)).map(|t| t.weight as i64).sum()
}

/// `DefaultNormalizeScore(100, reverse=false)`.
pub fn normalize_score(scores: &mut [i64]) {
    default_normalize_score(100, false, scores);
}
