//! The pictures of the What-if results: what each SVG chart draws, read off the engine's reports
//! (a rollout's replicas per step and per zone, capacity per zone, the tie-break outcomes, a
//! failure before and after per zone). Plain data, tested natively; `components::pictures` only
//! lays it out. Nothing here decides a placement: every count is a field of a report or a sum of
//! its fields.

use std::collections::{BTreeMap, BTreeSet};

use spreadlab_engine::analysis::capacity::CapacityReport;
use spreadlab_engine::analysis::failure::{Domain, FailureReport};
use spreadlab_engine::analysis::rollout::{RolloutOutcome, RolloutReport};
use spreadlab_engine::analysis::tie_break::RiskReport;

/// One step of a rollout, as its column draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutColumn {
    /// Step number, from 0.
    pub step: usize,
    /// Seconds since the rollout began.
    pub time: u64,
    /// Available replicas of both revisions.
    pub available: usize,
    /// Replicas short of the desired count being available.
    pub unavailable: usize,
    /// Pods the ReplicaSets ask for beyond the desired count (what `maxSurge` bounds).
    pub surge: usize,
    /// Pods not scheduled.
    pub pending: usize,
    /// Per zone of [`RolloutPicture::zones`]: (new revision running, old revision running).
    pub zones: Vec<(usize, usize)>,
}

/// A rollout over time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutPicture {
    /// `Kind/namespace/name`, and the change for an alternative.
    pub workload: String,
    /// The replicas the simulation followed (the desired count, or fewer when more were asked
    /// than could ever fit: `RolloutReport::simulated_replicas`).
    pub desired: usize,
    /// One column per step.
    pub columns: Vec<RolloutColumn>,
    /// Every zone a replica runs in at some step, sorted.
    pub zones: Vec<String>,
    /// Where it stalls: the step and the scheduler's message.
    pub stall: Option<(usize, String)>,
    /// The tallest column: the desired count plus the largest surge (at least 1).
    pub scale: usize,
    /// The most replicas of one zone at one step (at least 1).
    pub zone_scale: usize,
}

/// The rollout of `report`, column by column.
pub fn rollout(report: &RolloutReport) -> RolloutPicture {
    timeline(
        report.workload.clone(),
        report.simulated_replicas,
        &report.outcome,
    )
}

/// The same rollout under each of the report's alternatives (`Alternative::change`).
pub fn alternatives(report: &RolloutReport) -> Vec<RolloutPicture> {
    report
        .alternatives
        .iter()
        .map(|a| {
            timeline(
                format!("{} — {}", report.workload, a.change),
                report.simulated_replicas,
                &a.outcome,
            )
        })
        .collect()
}

/// One outcome of `desired` replicas, column by column.
fn timeline(workload: String, desired: usize, outcome: &RolloutOutcome) -> RolloutPicture {
    let zones: Vec<String> = outcome
        .steps
        .iter()
        .flat_map(|s| s.new.zones.keys().chain(s.old.zones.keys()))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let columns: Vec<RolloutColumn> = outcome
        .steps
        .iter()
        .map(|s| RolloutColumn {
            step: s.step,
            time: s.time,
            available: s.available,
            unavailable: desired.saturating_sub(s.available),
            surge: (s.new.replicas + s.old.replicas).saturating_sub(desired),
            pending: s.new.pending + s.old.pending,
            zones: zones
                .iter()
                .map(|z| {
                    (
                        s.new.zones.get(z).copied().unwrap_or(0),
                        s.old.zones.get(z).copied().unwrap_or(0),
                    )
                })
                .collect(),
        })
        .collect();
    let stall = match (outcome.completed, outcome.stalled_at_step) {
        (false, Some(step)) => Some((step, outcome.reason.clone().unwrap_or_default())),
        _ => None,
    };
    let scale = columns
        .iter()
        .map(|c| desired.max(c.available) + c.surge)
        .max()
        .unwrap_or(0)
        .max(1);
    let zone_scale = columns
        .iter()
        .flat_map(|c| c.zones.iter().map(|(n, o)| n + o))
        .max()
        .unwrap_or(0)
        .max(1);
    RolloutPicture {
        workload,
        desired,
        columns,
        zones,
        stall,
        scale,
        zone_scale,
    }
}

/// One zone's bar of the capacity picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneCapacity {
    /// Zone name.
    pub zone: String,
    /// The workload's replicas running there once the missing ones are placed.
    pub running: usize,
    /// Extra replicas that land there, one after another, before one does not fit.
    pub additional: usize,
}

/// A workload's capacity headroom per zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapacityPicture {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Every zone of the cluster, sorted.
    pub zones: Vec<ZoneCapacity>,
    /// What stops the next replica (`resources`, `spread`, ...), when something does.
    pub limit: Option<&'static str>,
    /// Nodes rejecting the next replica, per plugin (its first failing plugin), most first.
    pub rejections: Vec<(String, usize)>,
    /// The search bound, when the search stopped there before any replica failed.
    pub bounded: Option<usize>,
    /// The kube-scheduler message of the first replica that does not fit.
    pub message: Option<String>,
    /// The longest bar (at least 1).
    pub scale: usize,
}

/// The capacity picture of `report`: `running` is the workload's running replicas per zone
/// (`analysis::per_zone` of its members), `zones` every zone of the cluster.
pub fn capacity(
    report: &CapacityReport,
    running: &BTreeMap<String, usize>,
    zones: &[&str],
) -> CapacityPicture {
    let mut names: BTreeSet<&str> = zones.iter().copied().collect();
    names.extend(running.keys().map(String::as_str));
    names.extend(report.per_zone.keys().map(String::as_str));
    let zones: Vec<ZoneCapacity> = names
        .into_iter()
        .map(|zone| ZoneCapacity {
            zone: zone.to_string(),
            running: running.get(zone).copied().unwrap_or(0),
            additional: report.per_zone.get(zone).copied().unwrap_or(0),
        })
        .collect();
    let mut rejections: Vec<(String, usize)> = report
        .rejections
        .iter()
        .map(|(plugin, nodes)| (plugin.to_string(), *nodes))
        .collect();
    rejections.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let scale = zones
        .iter()
        .map(|z| z.running + z.additional)
        .max()
        .unwrap_or(0)
        .max(1);
    CapacityPicture {
        workload: report.workload.clone(),
        zones,
        limit: report.limit.map(|l| l.as_str()),
        rejections,
        bounded: report.bounded.then_some(report.search_limit),
        message: report.message.clone(),
        scale,
    }
}

/// How many runs put `k` replicas on their busiest node (or zone), for every `k` in range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// `(k, runs)` for every `k` from the smallest to the largest seen (runs 0 in between).
    pub bars: Vec<(usize, usize)>,
    /// Runs where one node (zone) holds more than half of the desired replicas: the engine's
    /// count (`node_loss_over_half` / `zone_loss_over_half`).
    pub stacking: usize,
    /// The most runs of one bar (at least 1).
    pub scale: usize,
}

impl Histogram {
    fn from(counts: &BTreeMap<usize, usize>, stacking: usize) -> Histogram {
        let (low, high) = match (counts.keys().next(), counts.keys().next_back()) {
            (Some(low), Some(high)) => (*low, *high),
            _ => (0, 0),
        };
        let bars: Vec<(usize, usize)> = if counts.is_empty() {
            Vec::new()
        } else {
            (low..=high)
                .map(|k| (k, counts.get(&k).copied().unwrap_or(0)))
                .collect()
        };
        let scale = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
        Histogram {
            bars,
            stacking,
            scale,
        }
    }
}

/// The outcomes of a workload's seeded tie-break runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RiskPicture {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas: a bar above half of it is a run where one node (zone) holds most.
    pub desired: usize,
    /// Runs made.
    pub runs: usize,
    /// Replicas on the busiest node, over the runs.
    pub per_node: Histogram,
    /// Replicas in the busiest zone, over the runs.
    pub per_zone: Histogram,
    /// Runs where some replica stayed Pending.
    pub runs_with_pending: usize,
}

impl RiskPicture {
    /// Whether a bar for `k` replicas on one node (zone) holds more than half of the desired
    /// replicas: the rule the engine counts `*_loss_over_half` by.
    pub fn stacks(&self, k: usize) -> bool {
        k * 2 > self.desired
    }
}

/// The tie-break picture of `report`.
pub fn risk(report: &RiskReport) -> RiskPicture {
    RiskPicture {
        workload: report.workload.clone(),
        desired: report.desired,
        runs: report.runs,
        per_node: Histogram::from(&report.max_per_node, report.node_loss_over_half),
        per_zone: Histogram::from(&report.max_per_zone, report.zone_loss_over_half),
        runs_with_pending: report.runs_with_pending,
    }
}

/// One zone of a workload in a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneChange {
    /// Zone name.
    pub zone: String,
    /// Replicas there before the failure.
    pub before: usize,
    /// Replicas there once the replacements are scheduled.
    pub after: usize,
    /// Whether a failed node is in this zone.
    pub failed: bool,
}

/// One workload before and after a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailurePicture {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Every zone of the cluster (and any the report names), sorted.
    pub zones: Vec<ZoneChange>,
    /// Replicas lost with the failed nodes.
    pub lost: usize,
    /// Replacements placed.
    pub replaced: usize,
    /// Replacements (or replicas Pending before) that stay Pending.
    pub pending: usize,
    /// The longest bar (at least 1).
    pub scale: usize,
}

/// One picture per workload of `report`. `zones` is every zone of the cluster and `zone_of_node`
/// gives a failed node's zone (`analysis::zone_of`).
pub fn failure(
    report: &FailureReport,
    zones: &[&str],
    zone_of_node: impl Fn(&str) -> Option<String>,
) -> Vec<FailurePicture> {
    let mut failed: BTreeSet<String> = report
        .failed_nodes
        .iter()
        .filter_map(|n| zone_of_node(n))
        .collect();
    if let Domain::Zone(zone) = &report.domain {
        failed.insert(zone.clone());
    }
    report
        .workloads
        .iter()
        .map(|w| {
            let mut names: BTreeSet<&str> = zones.iter().copied().collect();
            names.extend(w.zones_before.keys().map(String::as_str));
            names.extend(w.zones_after.keys().map(String::as_str));
            let zones: Vec<ZoneChange> = names
                .into_iter()
                .map(|zone| ZoneChange {
                    zone: zone.to_string(),
                    before: w.zones_before.get(zone).copied().unwrap_or(0),
                    after: w.zones_after.get(zone).copied().unwrap_or(0),
                    failed: failed.contains(zone),
                })
                .collect();
            let pending = w.replacements.iter().filter(|r| r.node.is_none()).count();
            let scale = zones
                .iter()
                .map(|z| z.before.max(z.after))
                .max()
                .unwrap_or(0)
                .max(1);
            FailurePicture {
                workload: w.workload.clone(),
                desired: w.desired,
                zones,
                lost: w.lost.len(),
                replaced: w.replacements.len() - pending,
                pending,
                scale,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
