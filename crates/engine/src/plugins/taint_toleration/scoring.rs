//! Score half of TaintToleration (`taint_toleration.go` `PreScore`, `Score`, `NormalizeScore`).

use alloc::vec::Vec;

use crate::framework::{NodeInfo, PodInfo};
use crate::model::{TaintEffect, Toleration};
use crate::plugins::helper::default_normalize_score;

/// The pod's tolerations that can tolerate PreferNoSchedule taints (empty effect or PreferNoSchedule).
#[derive(Clone, Debug)]
pub struct PreScoreState {
    /// Tolerations considered.
    pub tolerations_prefer_no_schedule: Vec<Toleration>,
}

/// Never skips.
pub fn pre_score(pod: &PodInfo) -> PreScoreState {
    PreScoreState {
        tolerations_prefer_no_schedule: pod
            .pod
            .tolerations
            .iter()
            .filter(|t| t.effect.is_none() || t.effect == Some(TaintEffect::PreferNoSchedule))
            .cloned()
            .collect(),
    }
}

/// Raw score: the number of PreferNoSchedule taints not tolerated.
pub fn score(state: &PreScoreState, node: &NodeInfo) -> i64 {
    node.node
        .taints
        .iter()
        .filter(|taint| taint.effect == TaintEffect::PreferNoSchedule)
        .filter(|taint| {
            !state
                .tolerations_prefer_no_schedule
                .iter()
                .any(|t| t.tolerates(taint))
        })
        .count() as i64
}

/// `DefaultNormalizeScore(100, reverse=true)`.
pub fn normalize_score(scores: &mut [i64]) {
    default_normalize_score(100, true, scores);
}
