//! Score half of NodeAffinity (`node_affinity.go` `PreScore`, `Score`, `NormalizeScore`).

use alloc::string::String;
use alloc::vec::Vec;

use super::NodeAffinityArgs;
use crate::framework::{NodeInfo, PodInfo};
use crate::model::PreferredSchedulingTerm;
use crate::plugins::helper::default_normalize_score;

/// The preferred terms that count (weight > 0 and not empty).
#[derive(Clone, Debug)]
pub struct PreScoreState {
    /// Terms kept.
    pub preferred: Vec<PreferredSchedulingTerm>,
}

/// `Ok(None)` (Skip) when neither the pod nor the profile's added affinity has preferred terms;
/// `Err` (status Error) when a preferred term does not parse (`NewPreferredSchedulingTerms`).
pub fn pre_score(args: &NodeAffinityArgs, pod: &PodInfo) -> Result<Option<PreScoreState>, String> {
    let mut preferred: Vec<PreferredSchedulingTerm> = pod
        .pod
        .affinity
        .node_affinity
        .as_ref()
        .map(|a| a.preferred.clone())
        .unwrap_or_default();
    if let Some(added) = &args.added_affinity {
        preferred.extend(added.preferred.iter().cloned());
    }
    let errors: Vec<String> = preferred
        .iter()
        .enumerate()
        .filter(|(_, t)| t.weight != 0)
        .filter_map(|(index, t)| {
            t.preference
                .parse_error
                .as_ref()
                .map(|e| alloc::format!("[{index}].{e}"))
        })
        .collect();
    if let Some(error) = crate::model::validation::aggregate(&errors) {
        return Err(error);
    }
    if preferred.is_empty() {
        return Ok(None);
    }
    let kept = preferred
        .into_iter()
        .filter(|t| {
            t.weight != 0
                && !(t.preference.match_expressions.is_empty()
                    && t.preference.match_fields.is_empty())
        })
        .collect();
    Ok(Some(PreScoreState { preferred: kept }))
}

/// Raw score: the sum of the weights of the matching preferred terms.
pub fn score(state: &PreScoreState, node: &NodeInfo) -> i64 {
    state
        .preferred
        .iter()
        .filter(|t| t.preference.matches(&node.node))
        .map(|t| t.weight as i64)
        .sum()
}

/// `DefaultNormalizeScore(100, reverse=false)`.
pub fn normalize_score(scores: &mut [i64]) {
    default_normalize_score(100, false, scores);
}
