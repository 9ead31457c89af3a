//! The What-if view-model: each What-if analysis of the current scenario, computed from the
//! settled scenario the simulation already made (`Analysis::settled`) and handed to the
//! component as the engine's report. Plain Rust, tested natively; the component only renders.

use spreadlab_engine::analysis::capacity::{self, CapacityReport};
use spreadlab_engine::analysis::failure::{self, Domain, FailureMode, FailureReport};
use spreadlab_engine::analysis::lint::{self, Finding};
use spreadlab_engine::analysis::rollout::{self, Assumptions, RolloutReport};
use spreadlab_engine::analysis::tie_break::{self, RiskReport};

use spreadlab_engine::analysis;

use crate::model::Analysis;
use crate::pictures::{self, CapacityPicture, FailurePicture};
use crate::state::{FailMode, FailTarget};

/// How many clones capacity tries at most.
pub const CAPACITY_BOUND: usize = 200;
/// Seeded tie-break runs.
pub const RISK_RUNS: usize = 50;

/// Capacity headroom of every workload (at most [`CAPACITY_BOUND`] more each).
pub fn capacity_reports(analysis: &Analysis) -> Vec<CapacityReport> {
    let options = analysis.options();
    let settled = &analysis.settled;
    (0..settled.workloads().len())
        .map(|i| capacity::capacity(settled, i, CAPACITY_BOUND, &options))
        .collect()
}

/// Every lint finding of the scenario.
pub fn lint_findings(analysis: &Analysis) -> Vec<Finding> {
    lint::lint(&analysis.settled, &analysis.options())
}

/// The failure of `target` in `mode`, from the settled scenario.
pub fn failure_report(analysis: &Analysis, target: &FailTarget, mode: FailMode) -> FailureReport {
    let options = analysis.options();
    let settled: &spreadlab_engine::analysis::Settled = &analysis.settled;
    let domain = match target {
        FailTarget::Zone(zone) => Domain::Zone(zone.clone()),
        FailTarget::Node(node) => Domain::Node(node.clone()),
    };
    let mode = match mode {
        FailMode::Removed => FailureMode::Removed,
        FailMode::Unreachable => FailureMode::Unreachable,
    };
    failure::fail(settled, &domain, mode, &options)
}

/// The rollout of every Deployment or StatefulSet.
pub fn rollout_reports(analysis: &Analysis) -> Vec<RolloutReport> {
    let options = analysis.options();
    let scenario = &analysis.settled.scenario;
    (0..scenario.workloads.len())
        .filter_map(|i| rollout::rollout(scenario, i, &Assumptions::default(), &options))
        .collect()
}

/// Where the replicas can end up under [`RISK_RUNS`] seeded tie-break sequences.
pub fn risk_reports(analysis: &Analysis) -> Vec<RiskReport> {
    tie_break::tie_break_risk(&analysis.settled.scenario, RISK_RUNS, &analysis.options())
}

/// The capacity picture of each of `reports` (made by [`capacity_reports`], so in workload
/// order): the workload's running replicas per zone beside the extra ones that fit.
pub fn capacity_pictures(analysis: &Analysis, reports: &[CapacityReport]) -> Vec<CapacityPicture> {
    let settled = &analysis.settled;
    let zones = analysis::zones(&settled.cluster);
    reports
        .iter()
        .zip(&settled.members)
        .map(|(report, members)| {
            let running = analysis::per_zone(&settled.cluster, members);
            pictures::capacity(report, &running, &zones)
        })
        .collect()
}

/// The before/after picture of each workload of a failure `report` of this analysis.
pub fn failure_pictures(analysis: &Analysis, report: &FailureReport) -> Vec<FailurePicture> {
    let cluster = &analysis.settled.cluster;
    let zones = analysis::zones(cluster);
    // A zone failure can fail thousands of nodes: look each up in one map, not a scan.
    let zone_by_node: std::collections::BTreeMap<&str, &str> = cluster
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), analysis::zone_of(n)))
        .collect();
    pictures::failure(report, &zones, |name| {
        zone_by_node.get(name).map(|zone| zone.to_string())
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::analyse;

    /// Three one-node zones, three replicas with a hard zone spread (maxSkew 1), as in the
    /// engine's failure test: a removed zone is no longer a domain, so its replica is replaced in
    /// another zone (1 vs 2 is skew 1); an unreachable zone stays a domain holding 0 under
    /// nodeTaintsPolicy Ignore, so the replacement stays Pending (skew would be 2).
    pub(crate) const THREE_ZONES: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a, labels: {topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b, labels: {topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-c, labels: {topology.kubernetes.io/zone: c}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
        topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
"#;

    #[test]
    fn a_failure_follows_the_target_and_mode_asked_for() {
        let analysis = analyse(THREE_ZONES);
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        let zone = FailTarget::Zone("a".into());
        let removed = failure_report(&analysis, &zone, FailMode::Removed);
        assert_eq!(removed.mode, FailureMode::Removed);
        assert_eq!(removed.failed_nodes, vec![String::from("node-a")]);
        let impact = &removed.workloads[0];
        assert_eq!((impact.lost.len(), impact.running_after), (1, 3));
        let unreachable = failure_report(&analysis, &zone, FailMode::Unreachable);
        let impact = &unreachable.workloads[0];
        assert_eq!((impact.surviving, impact.running_after), (2, 2));
        assert_eq!(impact.replacements[0].node, None);
        let node = failure_report(
            &analysis,
            &FailTarget::Node("node-b".into()),
            FailMode::Removed,
        );
        assert_eq!(node.failed_nodes, vec![String::from("node-b")]);
    }

    /// Capacity of the same scenario: each 4-cpu node holds 40 replicas of 100m (its 110 pod
    /// slots do not bind first), the spread keeps the zones even, so 120 fit in all: 117 more
    /// than the 3 running, under the view-model's bound of 200.
    #[test]
    fn capacity_and_lint_cover_every_workload() {
        let analysis = analyse(THREE_ZONES);
        let capacity = capacity_reports(&analysis);
        assert_eq!(capacity.len(), 1);
        assert_eq!(capacity[0].workload, "Deployment/default/web");
        assert_eq!(capacity[0].running, 3);
        assert_eq!(capacity[0].additional, 117);
        assert!(rollout_reports(&analysis).len() == 1);
        assert!(
            lint_findings(&analysis)
                .iter()
                .all(|f| f.workload == "Deployment/default/web")
        );
    }
}
