//! Compare mode: the pinned baseline against the current scenario, both simulated by the engine.
//! Which pods move, which become Pending or get placed, which zones change, and why, read off
//! the two results (the scheduler's message for a Pending pod; for a moved one, the current
//! verdict of the node it left). Nothing here schedules.
//!
//! Pods are matched by their workload and their order in it (a changed template gives the
//! replicas new names: a new pod-template-hash), and bare pods by name.

use std::collections::BTreeMap;

use spreadlab_engine::analysis::zone_of;

use crate::model::{Analysis, pod_key};

/// Where a pod ended up in one of the two results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Placed on this node, in this zone.
    Placed {
        /// Node name.
        node: String,
        /// Its zone.
        zone: String,
    },
    /// Pending, with the scheduler's message.
    Pending(String),
    /// Not in this result (the workload has fewer replicas, or the pod is gone).
    Absent,
}

/// How a pod's outcome changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Placed in both, on different nodes.
    Moved,
    /// Placed before, Pending now.
    NowPending,
    /// Pending before, placed now.
    NowPlaced,
    /// Only in the current result.
    Added,
    /// Only in the baseline.
    Removed,
    /// Pending in both, with another message.
    OtherReason,
}

/// One pod whose outcome changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodChange {
    /// What changed.
    pub kind: Kind,
    /// The pod (`namespace/name`; the current name when it exists in both).
    pub pod: String,
    /// Its outcome in the baseline.
    pub before: Outcome,
    /// Its outcome now.
    pub after: Outcome,
    /// Why, from the current result: the node it left, failing or outscored now.
    pub reason: Option<String>,
}

/// Placed pods per zone, before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneCount {
    /// Zone.
    pub zone: String,
    /// Pods the baseline placed there.
    pub before: usize,
    /// Pods placed there now.
    pub after: usize,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// Pods whose outcome changed, in the current scheduling order (then the removed ones).
    pub changes: Vec<PodChange>,
    /// Pods with the same outcome in both.
    pub unchanged: usize,
    /// Every zone of either result with its placed pods.
    pub zones: Vec<ZoneCount>,
}

/// Each decision of `analysis` under its match key, with its outcome, in scheduling order.
fn outcomes(analysis: &Analysis) -> Vec<(String, String, Outcome)> {
    let zones: BTreeMap<&str, &str> = analysis
        .settled
        .cluster
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), zone_of(n)))
        .collect();
    let workloads = analysis.settled.workloads();
    let mut seen: BTreeMap<usize, usize> = BTreeMap::new();
    analysis
        .decisions()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let pod = pod_key(d);
            let key = match analysis
                .settled
                .owners
                .get(i)
                .and_then(|w| workloads.get(*w).map(|wl| (*w, wl)))
            {
                Some((w, workload)) if !d.waiting => {
                    let n = seen.entry(w).or_insert(0);
                    *n += 1;
                    format!("{} #{}", workload.key, *n)
                }
                _ => pod.clone(),
            };
            let outcome = match &d.node {
                Some(node) => Outcome::Placed {
                    node: node.clone(),
                    zone: zones
                        .get(node.as_str())
                        .copied()
                        .unwrap_or_default()
                        .to_string(),
                },
                None => Outcome::Pending(d.message.clone().unwrap_or_default()),
            };
            (key, pod, outcome)
        })
        .collect()
}

/// Why the pod `pod` of `after` is no longer on `left`: that node's verdict in the current
/// cycle (the engine's per-node detail, computed on demand).
fn why_moved(after: &Analysis, pod: &str, left: &str, now: &str) -> Option<String> {
    let decision = after.explained_pod(pod)?;
    let explanation = decision.explanation.as_ref()?;
    let verdict = explanation.nodes.iter().find(|v| v.node == left)?;
    if !verdict.filter.is_success() {
        let plugin = verdict
            .filter
            .plugin
            .map(|p| p.to_string())
            .unwrap_or_default();
        return Some(format!(
            "{left} now fails {plugin}: {}",
            verdict.filter.message()
        ));
    }
    let total = |node: &str| {
        explanation
            .nodes
            .iter()
            .find(|v| v.node == node)
            .and_then(|v| v.total)
    };
    match (total(now), verdict.total) {
        (Some(new), Some(old)) if new == old => Some(format!(
            "{left} still fits and ties with {now} ({new}): the scheduler picks among tied nodes at random"
        )),
        (Some(new), Some(old)) => Some(format!(
            "{left} still fits but {now} scores higher ({new} vs {old})"
        )),
        _ => Some(format!("{left} still fits; {now} was chosen")),
    }
}

/// The baseline `before` against the current `after`.
pub fn compare(before: &Analysis, after: &Analysis) -> Comparison {
    let old = outcomes(before);
    let new = outcomes(after);
    let old_by_key: BTreeMap<&str, (&str, &Outcome)> = old
        .iter()
        .map(|(k, p, o)| (k.as_str(), (p.as_str(), o)))
        .collect();
    let new_keys: std::collections::BTreeSet<&str> =
        new.iter().map(|(k, _, _)| k.as_str()).collect();
    let mut changes = Vec::new();
    let mut unchanged = 0;
    for (key, pod, outcome) in &new {
        let before_outcome = old_by_key
            .get(key.as_str())
            .map_or(&Outcome::Absent, |(_, o)| *o);
        let kind = match (before_outcome, outcome) {
            (Outcome::Absent, _) => Some(Kind::Added),
            (Outcome::Placed { node: a, .. }, Outcome::Placed { node: b, .. }) if a != b => {
                Some(Kind::Moved)
            }
            (Outcome::Placed { .. }, Outcome::Pending(_)) => Some(Kind::NowPending),
            (Outcome::Pending(_), Outcome::Placed { .. }) => Some(Kind::NowPlaced),
            (Outcome::Pending(a), Outcome::Pending(b)) if a != b => Some(Kind::OtherReason),
            _ => None,
        };
        let Some(kind) = kind else {
            unchanged += 1;
            continue;
        };
        let reason = match (kind, before_outcome, outcome) {
            (
                Kind::Moved,
                Outcome::Placed { node: left, .. },
                Outcome::Placed { node: now, .. },
            ) => why_moved(after, pod, left, now),
            (Kind::NowPending | Kind::OtherReason, _, Outcome::Pending(message)) => {
                Some(message.clone())
            }
            _ => None,
        };
        changes.push(PodChange {
            kind,
            pod: pod.clone(),
            before: before_outcome.clone(),
            after: outcome.clone(),
            reason,
        });
    }
    for (key, pod, outcome) in &old {
        if !new_keys.contains(key.as_str()) {
            changes.push(PodChange {
                kind: Kind::Removed,
                pod: pod.clone(),
                before: outcome.clone(),
                after: Outcome::Absent,
                reason: None,
            });
        }
    }
    let mut zones: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (slot, list) in [(0, &old), (1, &new)] {
        for (_, _, outcome) in list {
            if let Outcome::Placed { zone, .. } = outcome {
                let entry = zones.entry(zone.clone()).or_insert((0, 0));
                if slot == 0 {
                    entry.0 += 1;
                } else {
                    entry.1 += 1;
                }
            }
        }
    }
    Comparison {
        changes,
        unchanged,
        zones: zones
            .into_iter()
            .map(|(zone, (before, after))| ZoneCount {
                zone,
                before,
                after,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
