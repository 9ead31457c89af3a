//! Tie-break risk: the real scheduler picks at random among equally scored nodes (and among
//! equally ranked preemption candidates), so one manifest can end up well or badly spread. This
//! settles the cluster under many seeded tie-break sequences ([`TieBreak::Seeded`]) and reports,
//! per workload, how concentrated its replicas end up and how often losing one node or one zone
//! would take out more than half of them.
//!
//! Not modelled: with 100 nodes or more the real scheduler also scores only a sample of the
//! feasible nodes from a rotating start (`percentageOfNodesToScore`), which adds more variation.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::settle::place;
use super::{Scenario, zone_of};
use crate::scheduler::{Detail, Options, TieBreak};

/// One workload's outcome over the runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RiskReport {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Runs made.
    pub runs: usize,
    /// How many runs put exactly `k` replicas on their busiest node, by `k`.
    pub max_per_node: BTreeMap<usize, usize>,
    /// How many runs put `k` replicas in their busiest zone, by `k`.
    pub max_per_zone: BTreeMap<usize, usize>,
    /// Runs where one node holds more than half of the desired replicas.
    pub node_loss_over_half: usize,
    /// Runs where one zone holds more than half of the desired replicas.
    pub zone_loss_over_half: usize,
    /// Runs where some replica stayed Pending.
    pub runs_with_pending: usize,
}

impl RiskReport {
    /// `count` runs as a share of all runs, in percent (0 without runs).
    pub fn share_of_runs(&self, count: usize) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            (count as f64) * 100.0 / self.runs as f64
        }
    }
}

/// Settles the scenario with `runs` seeded tie-break sequences (seeds `0..runs`): each run is a
/// placement of its own, so this starts from the scenario, not from a settled one.
pub fn tie_break_risk(scenario: &Scenario, runs: usize, options: &Options) -> Vec<RiskReport> {
    let (cluster, workloads) = (&scenario.cluster, &scenario.workloads);
    let mut reports: Vec<RiskReport> = workloads
        .iter()
        .map(|w| RiskReport {
            workload: w.key.clone(),
            desired: w.desired,
            runs,
            max_per_node: BTreeMap::new(),
            max_per_zone: BTreeMap::new(),
            node_loss_over_half: 0,
            zone_loss_over_half: 0,
            runs_with_pending: 0,
        })
        .collect();
    let zone_by_node: BTreeMap<&str, &str> = cluster
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), zone_of(n)))
        .collect();
    for seed in 0..runs as u64 {
        let options = Options {
            detail: Detail::None,
            tie_break: TieBreak::Seeded(seed),
            ..options.clone()
        };
        let settled = place(cluster, workloads, &options);
        let node_of: BTreeMap<String, &str> = settled
            .cluster
            .pods
            .iter()
            .filter_map(|p| p.node_name.as_deref().map(|n| (p.key(), n)))
            .collect();
        for (index, report) in reports.iter_mut().enumerate() {
            let mut per_node: BTreeMap<&str, usize> = BTreeMap::new();
            let mut per_zone: BTreeMap<&str, usize> = BTreeMap::new();
            for key in &settled.members[index] {
                if let Some(node) = node_of.get(key) {
                    *per_node.entry(node).or_insert(0) += 1;
                    let zone = zone_by_node.get(node).copied().unwrap_or(super::NO_ZONE);
                    *per_zone.entry(zone).or_insert(0) += 1;
                }
            }
            let max_node = per_node.values().copied().max().unwrap_or(0);
            let max_zone = per_zone.values().copied().max().unwrap_or(0);
            *report.max_per_node.entry(max_node).or_insert(0) += 1;
            *report.max_per_zone.entry(max_zone).or_insert(0) += 1;
            if max_node * 2 > report.desired {
                report.node_loss_over_half += 1;
            }
            if max_zone * 2 > report.desired {
                report.zone_loss_over_half += 1;
            }
            if !settled.pending[index].is_empty() {
                report.runs_with_pending += 1;
            }
        }
    }
    reports
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::analysis::testing::{cluster, deployment, scenario, with_cpu};
    use crate::framework::testing::{node, pod};

    /// Four replicas without spread rules on four identical nodes of two zones: every pick is a
    /// tie among the least loaded nodes, so seeded runs differ, but each replica goes to an empty
    /// node first (LeastAllocated/BalancedAllocation prefer them): one per node in every run.
    /// The zones then hold two each: exactly half, never more.
    #[test]
    fn seeded_runs_vary_but_scores_still_spread_replicas() {
        let cluster = cluster(vec![
            node("n1", &[("topology.kubernetes.io/zone", "a")]),
            node("n2", &[("topology.kubernetes.io/zone", "a")]),
            node("n3", &[("topology.kubernetes.io/zone", "b")]),
            node("n4", &[("topology.kubernetes.io/zone", "b")]),
        ]);
        let template = with_cpu(pod("", &[("app", "web")], None), 500);
        let workloads = vec![deployment("web", template, 4)];
        let reports = tie_break_risk(&scenario(&cluster, &workloads), 40, &Options::default());
        let report = &reports[0];
        assert_eq!(report.runs, 40);
        assert_eq!(report.max_per_node.get(&1), Some(&40));
        assert_eq!(report.node_loss_over_half, 0);
        assert_eq!(report.zone_loss_over_half, 0);
        // The zone split is 2/2 in every run here (n3/n4 tie with n1/n2 only while empty).
        assert_eq!(report.max_per_zone.get(&2), Some(&40));
    }
}
