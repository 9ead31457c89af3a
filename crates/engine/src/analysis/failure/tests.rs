//! The failure analysis' unit tests (expected values hand-derived, as each says).

use alloc::vec;

use super::*;
use crate::analysis::Workload;
use crate::analysis::testing::{app, deployment, pdb, settled, with_cpu, zone_spread};
use crate::framework::testing::{node, pod};
use crate::model::{IntOrPercent, LABEL_ZONE};

/// Three zones, one node each; three replicas with a hard zone spread (maxSkew 1).
fn spread_setup() -> (Cluster, Vec<Workload>) {
    let nodes = ["a", "b", "c"]
        .iter()
        .map(|z| node(&alloc::format!("node-{z}"), &[(LABEL_ZONE, z)]))
        .collect();
    let mut template = pod("", &[("app", "web")], None);
    template.containers.push(crate::model::Container {
        name: "c".into(),
        ..Default::default()
    });
    template
        .topology_spread_constraints
        .push(zone_spread(app("web")));
    let cluster = Cluster {
        nodes,
        ..Cluster::default()
    };
    (cluster, vec![deployment("web", template, 3)])
}

/// Removing a zone removes its domain: the replacement lands in another zone (skew 2 vs 1 is
/// fine with only two domains left). An unreachable zone stays a domain with zero pods under
/// nodeTaintsPolicy Ignore, so the replacement cannot go anywhere (skew would be 2 > 1), and
/// it lands back in the zone once it recovers.
#[test]
fn unreachable_zone_blocks_replacements_removed_zone_does_not() {
    let (cluster, workloads) = spread_setup();
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    assert_eq!(settled.members[0].len(), 3);
    let zone = Domain::Zone("a".into());

    let removed = fail(&settled, &zone, FailureMode::Removed, &options);
    let impact = &removed.workloads[0];
    assert_eq!(impact.lost.len(), 1);
    assert_eq!(impact.surviving, 2);
    assert_eq!(impact.replacements.len(), 1);
    assert!(impact.replacements[0].node.is_some());
    assert_eq!(impact.running_after, 3);

    let unreachable = fail(&settled, &zone, FailureMode::Unreachable, &options);
    let impact = &unreachable.workloads[0];
    assert_eq!(impact.running_after, 2);
    let replacement = &impact.replacements[0];
    assert_eq!(replacement.node, None);
    assert!(
        replacement
            .message
            .as_deref()
            .unwrap()
            .contains("2 node(s) didn't match pod topology spread constraints")
    );
    // Recovery: the zone comes back empty and the Pending replacement lands there.
    assert_eq!(unreachable.recovery.running[0], 3);
    assert_eq!(unreachable.recovery.placed[0][0].1, "node-a");
}

/// A namespace with a `/` in it (nothing forbids one in the input): the replica in the removed
/// zone is lost and replaced as in any other namespace (pod keys are `namespace/name`).
#[test]
fn a_slash_in_the_namespace_loses_and_replaces_as_any_other() {
    let (cluster, mut workloads) = spread_setup();
    for pod in &mut workloads[0].to_create {
        pod.namespace = "team/a".into();
    }
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    let removed = fail(
        &settled,
        &Domain::Zone("a".into()),
        FailureMode::Removed,
        &options,
    );
    let impact = &removed.workloads[0];
    assert_eq!((impact.lost.len(), impact.surviving), (1, 2));
    assert_eq!(impact.replacements.len(), 1);
    assert_eq!(impact.running_after, 3);
}

/// Settling counts a running replica in a namespace holding a `/` as a member, as it counts any
/// other: its key is tried at every `/`, not only the first.
#[test]
fn a_slash_in_the_namespace_of_a_running_replica_is_still_a_member() {
    let (mut cluster, mut workloads) = spread_setup();
    let mut running = workloads[0].template.clone();
    (running.namespace, running.name) = ("team/a".into(), "web-r".into());
    running.node_name = Some("node-a".into());
    workloads[0].running.push(running.key());
    workloads[0].to_create.pop();
    cluster.pods.push(alloc::sync::Arc::new(running));
    let settled = settled(&cluster, &workloads, &Options::default());
    let mut members = settled.members[0].clone();
    members.sort();
    assert_eq!(members, ["default/web-0", "default/web-1", "team/a/web-r"]);
}

/// The sweep finds the worst zone and the N+1 verdict; a PDB that allows no disruption is
/// violated by draining a zone that holds a matching pod.
#[test]
fn sweep_reports_worst_zone_and_pdb() {
    let (mut cluster, workloads) = spread_setup();
    cluster
        .pdbs
        .push(pdb("web", "web", Some(IntOrPercent::Int(3)), None));
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    let sweep = fail_each(
        &settled,
        DomainKind::Zone,
        FailureMode::Unreachable,
        &options,
    );
    assert_eq!(sweep.reports.len(), 3);
    let survival = &sweep.survival[0];
    assert_eq!(survival.min_running_after, 2);
    assert_eq!(survival.min_surviving, 2);
    assert_eq!(survival.percent_after(), 66);
    assert_eq!(survival.worst, Some(Domain::Zone("a".into())));
    // minAvailable 3 of 3: nothing allowed; losing a zone leaves 2 (1 short), and a drain
    // is refused from its first eviction.
    let pdb = &sweep.reports[0].pdbs[0];
    assert!(pdb.violated);
    assert_eq!(
        (pdb.shortfall, pdb.drain.evictions, pdb.drain.blocked),
        (1, 0, 1)
    );
    let nodes = fail_each(&settled, DomainKind::Node, FailureMode::Removed, &options);
    assert_eq!(
        nodes.reports.len(),
        3,
        "one report per node holding a replica"
    );
    assert_eq!(nodes.survival[0].min_running_after, 3);
}

/// Zone a has two nodes, zone b one; each 4-cpu node fits one 3-cpu replica, so the three
/// replicas fill every node. PDB maxUnavailable 1: expected 3, desiredHealthy 2, one
/// disruption allowed (disruption.go `getExpectedPodCount`).
/// - A sudden loss of zone a leaves 1 healthy: 1 short of the budget (an outage does not ask).
/// - Draining zone a evicts the first pod (allowed 1); its replacement cannot fit anywhere
///   (zone a cordoned, node-b full) and stays Pending, so healthy is 2 = desired, allowed 0,
///   and the eviction API refuses the second pod: the drain blocks after 1 eviction.
#[test]
fn drain_blocks_where_a_sudden_loss_violates() {
    let mut nodes = Vec::new();
    for (name, zone) in [("node-a1", "a"), ("node-a2", "a"), ("node-b", "b")] {
        nodes.push(node(name, &[("topology.kubernetes.io/zone", zone)]));
    }
    let template = with_cpu(pod("", &[("app", "web")], None), 3000);
    let workloads = vec![deployment("web", template, 3)];
    let cluster = Cluster {
        nodes,
        pdbs: vec![pdb("web", "web", None, Some(IntOrPercent::Int(1)))],
        ..Cluster::default()
    };
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    assert_eq!(settled.members[0].len(), 3);
    let report = fail(
        &settled,
        &Domain::Zone("a".into()),
        FailureMode::Removed,
        &options,
    );
    let pdb = &report.pdbs[0];
    assert_eq!(
        (
            pdb.budget.expected_pods,
            pdb.budget.desired_healthy,
            pdb.budget.current_healthy,
            pdb.disruptions_allowed
        ),
        (3, 2, 3, 1)
    );
    assert_eq!(pdb.evicted, 2);
    assert_eq!(pdb.healthy_after_failure, 1);
    assert_eq!(pdb.shortfall, 1);
    assert!(pdb.violated);
    assert_eq!(pdb.healthy_after_replacements, 1);
    assert_eq!(pdb.drain.evictions, 1);
    assert_eq!(pdb.drain.blocked, 1);
    assert!(pdb.drain.blocks());
    assert_eq!(pdb.drain.pending_replacements.len(), 1);
    assert!(
        pdb.drain
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("0/3 nodes are available")),
        "{:?}",
        pdb.drain.message
    );
    assert_eq!(pdb.drain.healthy_at_end, 2);
}

/// The three-zone spread with PDB minAvailable 2: one disruption allowed. Losing zone a
/// leaves 2 healthy = desiredHealthy: not violated. Draining zone a evicts its pod (allowed
/// 1); the replacement stays Pending, because the cordoned zone is still a spread domain with
/// no matching pod under nodeTaintsPolicy Ignore (skew 2 > 1 on b and c), but nothing else
/// is left to evict: the drain does not block.
#[test]
fn pdb_not_violated_and_drain_not_blocked() {
    let (mut cluster, workloads) = spread_setup();
    cluster
        .pdbs
        .push(pdb("web", "web", Some(IntOrPercent::Int(2)), None));
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    let report = fail(
        &settled,
        &Domain::Zone("a".into()),
        FailureMode::Unreachable,
        &options,
    );
    let pdb = &report.pdbs[0];
    assert_eq!(pdb.disruptions_allowed, 1);
    assert_eq!(pdb.healthy_after_failure, 2);
    assert!(!pdb.violated);
    assert_eq!(pdb.shortfall, 0);
    assert_eq!(pdb.drain.evictions, 1);
    assert!(!pdb.drain.blocks());
    assert_eq!(pdb.drain.pending_replacements.len(), 1);
    assert!(
        pdb.drain
            .message
            .as_deref()
            .is_some_and(|m| m.contains("didn't match pod topology spread constraints")),
        "{:?}",
        pdb.drain.message
    );
}

/// One node unreachable (zone a's only node): zones b and c hold one replica each and
/// node-a still makes zone a a domain with 0 under nodeTaintsPolicy Ignore, so placing the
/// replacement in b or c gives skew 2 > 1: Pending, as for the zone.
#[test]
fn unreachable_node_keeps_its_domain() {
    let (cluster, workloads) = spread_setup();
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    let report = fail(
        &settled,
        &Domain::Node("node-a".into()),
        FailureMode::Unreachable,
        &options,
    );
    assert_eq!(report.failed_nodes, vec![String::from("node-a")]);
    let impact = &report.workloads[0];
    assert_eq!((impact.surviving, impact.running_after), (2, 2));
    assert_eq!(impact.replacements[0].node, None);
    assert!(report.pdbs.is_empty());
}

/// A zone or node the cluster does not have is reported with the known values.
#[test]
fn unknown_domains_are_rejected_with_the_known_values() {
    let (cluster, _) = spread_setup();
    assert_eq!(check_domain(&cluster, &Domain::Zone("b".into())), Ok(()));
    assert_eq!(
        check_domain(&cluster, &Domain::Zone("zone-b".into())),
        Err(vec![String::from("a"), "b".into(), "c".into()])
    );
    assert_eq!(
        check_domain(&cluster, &Domain::Node("node-c".into())),
        Ok(())
    );
    assert_eq!(
        check_domain(&cluster, &Domain::Node("node-x".into())),
        Err(vec![
            String::from("node-a"),
            "node-b".into(),
            "node-c".into()
        ])
    );
}

/// The three-zone spread as a StatefulSet: on an unreachable node its pod stays Terminating
/// and is not replaced (no force delete), so it is not even tried; when the zone is back it
/// is recreated there. Removed nodes delete their pods: the replacement is scheduled.
#[test]
fn stateful_set_pods_on_unreachable_nodes_are_not_replaced() {
    let (cluster, mut workloads) = spread_setup();
    workloads[0].key = "StatefulSet/default/web".into();
    let options = Options::default();
    let settled = settled(&cluster, &workloads, &options);
    let zone = Domain::Zone("a".into());
    let report = fail(&settled, &zone, FailureMode::Unreachable, &options);
    let impact = &report.workloads[0];
    assert_eq!(impact.replacements.len(), 1);
    assert_eq!(impact.replacements[0].node, None);
    assert_eq!(
        impact.replacements[0].message.as_deref(),
        Some(STATEFUL_SET_HELD)
    );
    assert_eq!(impact.running_after, 2);
    assert_eq!(report.recovery.placed[0][0].1, "node-a");
    assert_eq!(report.notes, vec![String::from(UNREACHABLE_NOTE)]);
    let removed = fail(&settled, &zone, FailureMode::Removed, &options);
    assert!(removed.workloads[0].replacements[0].node.is_some());
    assert!(removed.notes.is_empty());
}
