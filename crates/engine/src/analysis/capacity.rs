//! Capacity headroom: how many more replicas of a workload fit, cloning its pod template until the
//! first one does not (as `cluster-capacity` does, but with the workload's own spread and
//! affinity, counting the replicas already added), where they land, what stops the next one and
//! whether a HorizontalPodAutoscaler's `maxReplicas` is reachable.

use alloc::collections::BTreeMap;
use alloc::string::String;

use super::{Settled, zone_of};
use crate::framework::{PluginName, PodInfo, Snapshot};
use crate::scheduler::{self, Detail, Options};

/// What stops the next replica, by the plugin that rejects the most nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// NodeResourcesFit: cpu, memory, GPUs, pods.
    Resources,
    /// PodTopologySpread: `maxSkew` or `minDomains`.
    Spread,
    /// InterPodAffinity: required (anti-)affinity.
    Affinity,
    /// Taints, node affinity, host ports, cordons: where the pod may go at all.
    Placement,
    /// The cluster has no node, or a PreFilter rejected the pod outright.
    Other,
}

impl Limit {
    /// `resources`, `spread`, `affinity`, `placement` or `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Resources => "resources",
            Limit::Spread => "spread",
            Limit::Affinity => "affinity",
            Limit::Placement => "placement",
            Limit::Other => "other",
        }
    }

    fn of(plugin: PluginName) -> Limit {
        match plugin {
            PluginName::NodeResourcesFit => Limit::Resources,
            PluginName::PodTopologySpread => Limit::Spread,
            PluginName::InterPodAffinity => Limit::Affinity,
            _ => Limit::Placement,
        }
    }
}

/// The headroom of one workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapacityReport {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Replicas running once the missing ones are placed.
    pub running: usize,
    /// Desired replicas that stay Pending already (then no extra replica fits either).
    pub pending: usize,
    /// Extra replicas that fit, one after another.
    pub additional: usize,
    /// Where the extra replicas land, per zone.
    pub per_zone: BTreeMap<String, usize>,
    /// Whether the search stopped at its bound before any replica failed.
    pub bounded: bool,
    /// The search bound used: the one asked for, or less so that the simulation holds at most
    /// [`super::bound::MAX_SIMULATED_PODS`] pods.
    pub search_limit: usize,
    /// What stops the next replica.
    pub limit: Option<Limit>,
    /// Nodes rejecting the next replica, per plugin (the first failing plugin of each node).
    pub rejections: BTreeMap<PluginName, usize>,
    /// The kube-scheduler message of the first replica that does not fit.
    pub message: Option<String>,
    /// Whether that replica could only be placed by preempting lower-priority pods (the real
    /// scheduler would do it; the count above does not).
    pub would_preempt: bool,
    /// The HorizontalPodAutoscaler's `maxReplicas`, when one targets the workload.
    pub hpa_max_replicas: Option<usize>,
}

impl CapacityReport {
    /// Whether the workload can scale to its HPA's `maxReplicas`: `None` without an HPA, and
    /// `None` when the search stopped at its bound before reaching it (undecided, not
    /// unreachable: see [`CapacityReport::search_stopped_before_hpa_max`]).
    pub fn reaches_hpa_max(&self) -> Option<bool> {
        let max = self.hpa_max_replicas?;
        if self.pending > 0 {
            return Some(false);
        }
        if self.running + self.additional >= max {
            Some(true)
        } else if self.bounded {
            None
        } else {
            Some(false)
        }
    }

    /// [`CapacityReport::rejections`] keyed by plugin name, in name order (as reports show them).
    pub fn rejections_by_name(&self) -> BTreeMap<&'static str, usize> {
        self.rejections
            .iter()
            .map(|(plugin, count)| (plugin.as_str(), *count))
            .collect()
    }

    /// Whether an HPA's `maxReplicas` was not decided because the search stopped at its bound
    /// (`--max`) first.
    pub fn search_stopped_before_hpa_max(&self) -> bool {
        self.hpa_max_replicas.is_some() && self.pending == 0 && self.reaches_hpa_max().is_none()
    }
}

/// Clones workload `index`'s template into the settled cluster until one does not fit, at most
/// `bound` times (and never past [`super::bound::MAX_SIMULATED_PODS`] pods in all), and compares with its HorizontalPodAutoscaler's `maxReplicas`. Clones are named
/// `<template name or workload name>-extra-<n>`. A Pending replica's limit is read from its
/// decision's explanation (a [`Settled`] made with [`Detail::None`] has none: limit "other").
///
/// # Panics
/// When `index` is not a workload of `settled`.
pub fn capacity(
    settled: &Settled,
    index: usize,
    bound: usize,
    options: &Options,
) -> CapacityReport {
    let workload = &settled.workloads()[index];
    let hpa_max_replicas = workload.hpa_max_replicas;
    let bound =
        bound.min(super::bound::MAX_SIMULATED_PODS.saturating_sub(settled.cluster.pods.len()));
    let mut report = CapacityReport {
        workload: workload.key.clone(),
        desired: workload.desired,
        running: settled.members[index].len(),
        pending: settled.pending_count(index),
        additional: 0,
        per_zone: BTreeMap::new(),
        bounded: false,
        search_limit: bound,
        limit: None,
        rejections: BTreeMap::new(),
        message: None,
        would_preempt: false,
        hpa_max_replicas,
    };
    if let Some((_, decision)) = settled.pending[index].first() {
        describe_failure(&mut report, decision);
        return report;
    }
    let options = Options {
        detail: Detail::PendingOnly,
        ..options.clone()
    };
    let (mut snapshot, _) = Snapshot::new(&settled.cluster, options.profile.version);
    let base = workload
        .key
        .rsplit('/')
        .next()
        .unwrap_or(workload.key.as_str());
    for n in 0..bound {
        let mut pod = workload.template.clone();
        pod.name = alloc::format!("{base}-extra-{n}");
        pod.unbind();
        let info = PodInfo::new(pod);
        let decision = scheduler::schedule_one(&mut snapshot, &info, &options);
        match &decision.node {
            Some(node) if decision.preemption.is_none() => {
                let node_index = snapshot.node_index[node];
                let zone = String::from(zone_of(&snapshot.nodes[node_index].node));
                *report.per_zone.entry(zone).or_insert(0) += 1;
                snapshot.bind(info, node_index);
                report.additional += 1;
            }
            _ => {
                describe_failure(&mut report, &decision);
                return report;
            }
        }
    }
    report.bounded = true;
    report
}

fn describe_failure(report: &mut CapacityReport, decision: &scheduler::PodDecision) {
    report.message = decision.message.clone();
    report.would_preempt = decision.preemption.is_some();
    let Some(explanation) = &decision.explanation else {
        report.limit = Some(Limit::Other);
        return;
    };
    for verdict in &explanation.nodes {
        if let Some(plugin) = verdict.filter.plugin
            && !verdict.filter.is_success()
        {
            *report.rejections.entry(plugin).or_insert(0) += 1;
        }
    }
    report.limit = Some(
        report
            .rejections
            .iter()
            .max_by_key(|(plugin, count)| (**count, core::cmp::Reverse(**plugin)))
            .map_or(Limit::Other, |(plugin, _)| Limit::of(*plugin)),
    );
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;
    use crate::analysis::Workload;
    use crate::analysis::testing::{self, app, deployment, settled, with_cpu, zone_spread};
    use crate::framework::testing::{node, pod};
    use crate::model::Cluster;

    fn workload(cpu: i64, spread: bool, replicas: usize) -> Workload {
        let mut template = with_cpu(pod("", &[("app", "web")], None), cpu);
        if spread {
            template
                .topology_spread_constraints
                .push(zone_spread(app("web")));
        }
        deployment("web", template, replicas)
    }

    /// Two zones: zone a has two 4-cpu nodes, zone b one. 1-cpu replicas: 12 fit by resources
    /// alone; with a hard zone spread (maxSkew 1) zone b's 4 slots cap zone a at 5, so 9 fit and
    /// the 10th is stopped by PodTopologySpread on zone a's nodes and by resources on zone b's.
    #[test]
    fn spread_limits_headroom_before_resources() {
        let cluster = Cluster {
            nodes: vec![
                node("a1", &[("topology.kubernetes.io/zone", "a")]),
                node("a2", &[("topology.kubernetes.io/zone", "a")]),
                node("b1", &[("topology.kubernetes.io/zone", "b")]),
            ],
            ..Cluster::default()
        };
        let options = Options::default();
        let mut plain = workload(1000, false, 2);
        plain.hpa_max_replicas = Some(20);
        let settled = settled(&cluster, &[plain], &options);
        let report = capacity(&settled, 0, 1000, &options);
        assert_eq!(report.running, 2);
        assert_eq!(report.additional, 10);
        assert_eq!(report.limit, Some(Limit::Resources));
        assert_eq!(
            report.rejections.get(&PluginName::NodeResourcesFit),
            Some(&3)
        );
        assert_eq!(report.reaches_hpa_max(), Some(false));
        assert!(
            report
                .message
                .as_deref()
                .unwrap()
                .starts_with("0/3 nodes are available: 3 Insufficient cpu.")
        );

        let spread = workload(1000, true, 2);
        let settled = testing::settled(&cluster, &[spread], &options);
        let report = capacity(&settled, 0, 1000, &options);
        assert_eq!(report.running + report.additional, 9);
        let zones: Vec<_> = report.per_zone.keys().cloned().collect();
        assert_eq!(zones, vec!["a", "b"]);
        assert_eq!(report.limit, Some(Limit::Spread));
        assert_eq!(
            report.rejections.get(&PluginName::PodTopologySpread),
            Some(&2)
        );
        assert_eq!(
            report.rejections.get(&PluginName::NodeResourcesFit),
            Some(&1)
        );

        let bounded = capacity(&settled, 0, 3, &options);
        assert!(bounded.bounded);
        assert_eq!(bounded.additional, 3);

        // An HPA maximum beyond the search bound is undecided, not unreachable: 2 running + 3
        // found before the bound of 3 stops the search, short of 20.
        let mut scaled = workload(1000, false, 2);
        scaled.hpa_max_replicas = Some(20);
        let settled = testing::settled(&cluster, &[scaled], &options);
        let stopped = capacity(&settled, 0, 3, &options);
        assert_eq!((stopped.bounded, stopped.additional), (true, 3));
        assert_eq!(stopped.reaches_hpa_max(), None);
        assert!(stopped.search_stopped_before_hpa_max());
        // Within the bound the verdict stands: 12 fit in all (the first case), short of 20.
        let searched = capacity(&settled, 0, 1000, &options);
        assert_eq!(searched.reaches_hpa_max(), Some(false));
        assert!(!searched.search_stopped_before_hpa_max());
    }
}
