//! Zone and node failure: which replicas are lost, where their replacements land or why they stay
//! Pending, which PodDisruptionBudgets a drain would violate, the worst single failure, and what
//! happens when the domain comes back (the scheduler does not rebalance).
//!
//! Two failure modes, because Kubernetes treats them differently:
//! - [`FailureMode::Removed`]: the nodes are deleted (the pod garbage collector deletes their pods);
//!   their topology domains disappear from every spread computation.
//! - [`FailureMode::Unreachable`]: the nodes stay, `NotReady`, tainted
//!   `node.kubernetes.io/unreachable` `NoSchedule` and `NoExecute` by the node lifecycle
//!   controller, and their pods are evicted. Under the default `nodeTaintsPolicy: Ignore` the
//!   unreachable zone still counts as a spread domain with no matching pods, which can hold
//!   every replacement back (`maxSkew` is measured against its zero).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::disruption::{self, Budget, Ownership};
use super::{Placement, per_zone, zone_of};
use crate::model::{Cluster, Pod, Taint, TaintEffect};
use crate::scheduler::{self, Options};

/// The taint the node lifecycle controller puts on nodes whose kubelet stopped reporting.
pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// How the nodes fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureMode {
    /// Deleted from the cluster with their pods.
    Removed,
    /// Still present but unreachable: tainted, their pods evicted.
    Unreachable,
}

impl FailureMode {
    /// `removed` or `unreachable`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureMode::Removed => "removed",
            FailureMode::Unreachable => "unreachable",
        }
    }
}

/// What fails.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Domain {
    /// Every node of a zone (`topology.kubernetes.io/zone`; [`super::NO_ZONE`] for nodes without).
    Zone(String),
    /// One node.
    Node(String),
}

impl Domain {
    /// `zone=<value>` or `node=<name>`.
    pub fn describe(&self) -> String {
        match self {
            Domain::Zone(zone) => alloc::format!("zone={zone}"),
            Domain::Node(node) => alloc::format!("node={node}"),
        }
    }
}

/// One replica's replacement after the failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// The lost replica it replaces (`namespace/name`); for a replica that was already Pending
    /// before the failure, that replica.
    pub replaces: String,
    /// Whether the replica was already Pending before the failure (it is retried too).
    pub was_pending: bool,
    /// Where it lands, or `None` when Pending.
    pub node: Option<String>,
    /// The zone of `node`.
    pub zone: Option<String>,
    /// The FitError message when Pending.
    pub message: Option<String>,
}

/// One workload's fate in a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadImpact {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Replicas running before the failure (after settling).
    pub running_before: usize,
    /// Replicas per zone before.
    pub zones_before: BTreeMap<String, usize>,
    /// Replicas lost (`namespace/name`).
    pub lost: Vec<String>,
    /// Replicas still running right after the failure (before any replacement).
    pub surviving: usize,
    /// Replacements, in scheduling order.
    pub replacements: Vec<Replacement>,
    /// Replicas running once the replacements are scheduled.
    pub running_after: usize,
    /// Replicas per zone after the replacements.
    pub zones_after: BTreeMap<String, usize>,
}

/// A PodDisruptionBudget against the failure of a domain, with its budget computed as the
/// disruption controller does on the settled cluster ([`super::disruption`]): what a sudden loss
/// does to it, and what a drain of the same domain (evictions through the API) would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdbImpact {
    /// `namespace/name`.
    pub pdb: String,
    /// The budget before the failure (`disruptionsAllowed` as the controller computes it).
    pub budget: Budget,
    /// `budget.disruptions_allowed`.
    pub disruptions_allowed: i32,
    /// Matching pods on the failed nodes.
    pub evicted: usize,
    /// Healthy matching pods right after a sudden loss of the domain.
    pub healthy_after_failure: i32,
    /// Healthy matching pods once the replacements are scheduled.
    pub healthy_after_replacements: i32,
    /// `desiredHealthy − healthy_after_failure` when positive: how far below its budget the
    /// sudden loss takes the workload (an outage does not ask the budget).
    pub shortfall: i32,
    /// The same once the replacements are scheduled.
    pub shortfall_after_replacements: i32,
    /// Whether the sudden loss leaves fewer healthy pods than `desiredHealthy`.
    pub violated: bool,
    /// Draining the domain instead (cordon, then evictions).
    pub drain: DrainImpact,
}

/// A drain of the failed domain as `kubectl drain` does it: the nodes are cordoned (the node
/// lifecycle controller then taints them `node.kubernetes.io/unschedulable:NoSchedule`), their
/// pods are evicted through the eviction API, which refuses an eviction while a budget covering
/// the pod has `disruptionsAllowed` below 1 (`pkg/registry/core/pod/storage/eviction.go`), and the
/// workloads' controllers create replacements that the scheduler places on the other nodes. A
/// refused eviction is retried; the drain blocks, it does not violate the budget, when Pending
/// replacements keep `disruptionsAllowed` at 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainImpact {
    /// Matching pods evicted.
    pub evictions: usize,
    /// Matching pods the eviction API keeps refusing: the drain never finishes.
    pub blocked: usize,
    /// Replacements of evicted matching pods that stay Pending (`namespace/name`).
    pub pending_replacements: Vec<String>,
    /// The scheduler's message for the first Pending replacement.
    pub message: Option<String>,
    /// Healthy matching pods when the drain finishes or blocks.
    pub healthy_at_end: i32,
}

impl DrainImpact {
    /// Whether the drain blocks on this budget.
    pub fn blocks(&self) -> bool {
        self.blocked > 0
    }
}

/// The domain back (empty nodes, untainted): where Pending replacements land now, and the
/// distribution the cluster keeps (the scheduler does not move running pods back).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// Per workload (as in [`FailureReport::workloads`]): replacements placed only after the
    /// domain came back, `(replaces, node)`.
    pub placed: Vec<Vec<(String, String)>>,
    /// Per workload: replicas per zone after recovery.
    pub zones: Vec<BTreeMap<String, usize>>,
    /// Per workload: replicas running after recovery.
    pub running: Vec<usize>,
}

/// The outcome of one failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureReport {
    /// What failed.
    pub domain: Domain,
    /// How.
    pub mode: FailureMode,
    /// The failed nodes.
    pub failed_nodes: Vec<String>,
    /// Pods that were on them (every owner).
    pub pods_gone: usize,
    /// Per workload, in the order given.
    pub workloads: Vec<WorkloadImpact>,
    /// Every PodDisruptionBudget matching a pod that is gone.
    pub pdbs: Vec<PdbImpact>,
    /// After the domain comes back.
    pub recovery: Recovery,
    /// What the numbers assume about time and controllers ([`UNREACHABLE_NOTE`] for unreachable
    /// nodes).
    pub notes: Vec<String>,
}

/// The message of a StatefulSet replica lost on an unreachable node.
pub const STATEFUL_SET_HELD: &str = "not replaced: the pod stays Terminating on the unreachable node, and the StatefulSet controller recreates it only once it is deleted (when the node comes back, or by a force delete)";

/// The note on unreachable failures: when the pods actually leave.
pub const UNREACHABLE_NOTE: &str = "pods on unreachable nodes are evicted when their node.kubernetes.io/unreachable:NoExecute toleration expires (300 s, added by the DefaultTolerationSeconds admission plugin, unless the pod sets its own): Deployment and ReplicaSet replacements are created then; StatefulSet pods stay Terminating and are not replaced";

/// Whether `domain` names a zone or node of `cluster`: `Err` with the known zones (sorted) or
/// node names (in node order) when it does not, so a typo is not a failure of nothing.
pub fn check_domain(cluster: &Cluster, domain: &Domain) -> Result<(), Vec<String>> {
    let (found, known): (bool, Vec<String>) = match domain {
        Domain::Zone(zone) => {
            let zones = super::zones(cluster);
            (
                zones.contains(&zone.as_str()),
                zones.into_iter().map(String::from).collect(),
            )
        }
        Domain::Node(name) => (
            cluster.nodes.iter().any(|n| n.name == *name),
            cluster.nodes.iter().map(|n| n.name.clone()).collect(),
        ),
    };
    if found { Ok(()) } else { Err(known) }
}

/// Fails `domain` in the settled cluster, reschedules the lost replicas (and the ones already
/// Pending) in queue order, then brings the domain back and retries what is still Pending.
pub fn fail<'a>(
    settled: impl Into<Placement<'a>>,
    domain: &Domain,
    mode: FailureMode,
    options: &Options,
) -> FailureReport {
    fail_with(settled.into(), domain, mode, options, true)
}

/// [`fail`] without the recovery step (its [`Recovery`] is what the failure left: nothing
/// placed later), for callers that only need the failure itself (lint).
pub fn fail_without_recovery<'a>(
    settled: impl Into<Placement<'a>>,
    domain: &Domain,
    mode: FailureMode,
    options: &Options,
) -> FailureReport {
    fail_with(settled.into(), domain, mode, options, false)
}

fn fail_with(
    settled: Placement<'_>,
    domain: &Domain,
    mode: FailureMode,
    options: &Options,
    recover_after: bool,
) -> FailureReport {
    let workloads = settled.workloads;
    let before = settled.cluster;
    let failed: BTreeSet<String> = before
        .nodes
        .iter()
        .filter(|n| match domain {
            Domain::Zone(zone) => zone_of(n) == zone,
            Domain::Node(name) => n.name == *name,
        })
        .map(|n| n.name.clone())
        .collect();
    let on_failed = |node: &Option<String>| node.as_ref().is_some_and(|n| failed.contains(n));
    let gone: Vec<&crate::model::Pod> = before
        .pods
        .iter()
        .filter(|p| on_failed(&p.node_name))
        .collect();
    let gone_keys: BTreeSet<String> = gone.iter().map(|p| p.key()).collect();

    let owners = Ownership::of(settled);
    let pending_before: Vec<&Pod> = settled.pending.iter().flatten().map(|(p, _)| p).collect();
    // Budgets that select a pod that is gone, with their status before the failure.
    let affected: Vec<(usize, Budget, usize)> = before
        .pdbs
        .iter()
        .enumerate()
        .filter_map(|(index, pdb)| {
            let evicted = gone
                .iter()
                .filter(|p| !p.terminating && disruption::selects(pdb, p))
                .count();
            (evicted > 0).then(|| {
                (
                    index,
                    disruption::budget(before, &pending_before, pdb, &owners),
                    evicted,
                )
            })
        })
        .collect();

    let mut after = before.clone();
    after.pods.retain(|p| !on_failed(&p.node_name));
    let healthy_after_failure: Vec<i32> = affected
        .iter()
        .map(|(index, _, _)| {
            disruption::budget(&after, &pending_before, &before.pdbs[*index], &owners)
                .current_healthy
        })
        .collect();
    match mode {
        FailureMode::Removed => after.nodes.retain(|n| !failed.contains(&n.name)),
        FailureMode::Unreachable => {
            for node in after.nodes.iter_mut().filter(|n| failed.contains(&n.name)) {
                for effect in [TaintEffect::NoSchedule, TaintEffect::NoExecute] {
                    node.taints.push(Taint {
                        key: TAINT_UNREACHABLE.into(),
                        value: String::new(),
                        effect,
                    });
                }
            }
        }
    }

    // Replacements: each lost replica is recreated unbound (same labels; a StatefulSet keeps the
    // name, other controllers' new names do not matter to scheduling); Pending ones retry.
    // On an unreachable node a StatefulSet's pod is marked for deletion once its toleration
    // expires but stays Terminating: the kubelet cannot confirm it, and the StatefulSet
    // controller creates a pod of that name only once the old one is gone (no force delete).
    let mut held: Vec<(usize, crate::model::Pod, String)> = Vec::new();
    let mut pods = Vec::new();
    let mut owner: Vec<(usize, String, bool)> = Vec::new();
    let pod_by_key: BTreeMap<String, &crate::model::Pod> =
        gone.iter().map(|p| (p.key(), *p)).collect();
    for (index, members) in settled.members.iter().enumerate() {
        let stateful = workloads
            .get(index)
            .is_some_and(|w| w.key.starts_with("StatefulSet/"));
        for key in members.iter().filter(|k| gone_keys.contains(*k)) {
            if let Some(pod) = pod_by_key.get(key) {
                let mut replacement = (*pod).clone();
                replacement.node_name = None;
                if stateful && mode == FailureMode::Unreachable {
                    held.push((index, replacement, key.clone()));
                    continue;
                }
                pods.push(replacement);
                owner.push((index, key.clone(), false));
            }
        }
        for (pod, _) in &settled.pending[index] {
            pods.push(pod.clone());
            owner.push((index, pod.key(), true));
        }
    }
    let simulation = scheduler::simulate(&after, &pods, options);
    let order = scheduler::queue_order(&pods);
    let zone_by_node: BTreeMap<&str, &str> = before
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), zone_of(n)))
        .collect();
    let mut replacements: Vec<Vec<Replacement>> = alloc::vec![Vec::new(); workloads.len()];
    let mut placed_keys: Vec<Vec<String>> = alloc::vec![Vec::new(); workloads.len()];
    let mut still_pending: Vec<(usize, crate::model::Pod, String)> = Vec::new();
    for (decision, &index) in simulation.decisions.iter().zip(&order) {
        let (workload, replaces, was_pending) = &owner[index];
        if let Some(node) = &decision.node {
            let mut pod = pods[index].clone();
            pod.node_name = Some(node.clone());
            placed_keys[*workload].push(pod.key());
            after.pods.push(pod);
        } else {
            still_pending.push((*workload, pods[index].clone(), replaces.clone()));
        }
        replacements[*workload].push(Replacement {
            replaces: replaces.clone(),
            was_pending: *was_pending,
            node: decision.node.clone(),
            zone: decision
                .node
                .as_deref()
                .and_then(|n| zone_by_node.get(n))
                .map(|z| String::from(*z)),
            message: decision.message.clone(),
        });
    }

    for (workload, pod, replaces) in held {
        replacements[workload].push(Replacement {
            replaces: replaces.clone(),
            was_pending: false,
            node: None,
            zone: None,
            message: Some(String::from(STATEFUL_SET_HELD)),
        });
        still_pending.push((workload, pod, replaces));
    }

    let mut impacts = Vec::with_capacity(workloads.len());
    let mut running_keys: Vec<Vec<String>> = Vec::with_capacity(workloads.len());
    for (index, workload) in workloads.iter().enumerate() {
        let members = &settled.members[index];
        let lost: Vec<String> = members
            .iter()
            .filter(|k| gone_keys.contains(*k))
            .cloned()
            .collect();
        let mut running: Vec<String> = members
            .iter()
            .filter(|k| !gone_keys.contains(*k))
            .cloned()
            .collect();
        let surviving = running.len();
        running.extend(placed_keys[index].iter().cloned());
        impacts.push(WorkloadImpact {
            workload: workload.key.clone(),
            desired: workload.desired,
            running_before: members.len(),
            zones_before: per_zone(before, members),
            lost,
            surviving,
            replacements: core::mem::take(&mut replacements[index]),
            running_after: running.len(),
            zones_after: per_zone(&after, &running),
        });
        running_keys.push(running);
    }

    let pdbs = affected
        .iter()
        .zip(healthy_after_failure)
        .map(|((index, budget, evicted), healthy_after_failure)| {
            let pdb = &before.pdbs[*index];
            let unbound: Vec<&Pod> = still_pending.iter().map(|(_, p, _)| p).collect();
            let healthy_after_replacements =
                disruption::budget(&after, &unbound, pdb, &owners).current_healthy;
            let shortfall = (budget.desired_healthy - healthy_after_failure).max(0);
            PdbImpact {
                pdb: alloc::format!("{}/{}", pdb.namespace, pdb.name),
                budget: *budget,
                disruptions_allowed: budget.disruptions_allowed,
                evicted: *evicted,
                healthy_after_failure,
                healthy_after_replacements,
                shortfall,
                shortfall_after_replacements: (budget.desired_healthy - healthy_after_replacements)
                    .max(0),
                violated: shortfall > 0,
                drain: DrainImpact::default(),
            }
        })
        .collect::<Vec<_>>();
    let mut pdbs = pdbs;
    if !pdbs.is_empty() {
        let drains = drain(settled, &failed, &owners, options);
        for (impact, (index, _, _)) in pdbs.iter_mut().zip(&affected) {
            impact.drain = drains[*index].clone();
        }
    }

    let recovery = if recover_after {
        recover(before, after, still_pending, running_keys, options)
    } else {
        recover(before, after, Vec::new(), running_keys, options)
    };
    FailureReport {
        domain: domain.clone(),
        mode,
        failed_nodes: failed.into_iter().collect(),
        pods_gone: gone.len(),
        workloads: impacts,
        pdbs,
        recovery,
        notes: match mode {
            FailureMode::Unreachable => alloc::vec![String::from(UNREACHABLE_NOTE)],
            FailureMode::Removed => Vec::new(),
        },
    }
}

/// The taint the node lifecycle controller puts on cordoned nodes (`TaintNodesByCondition`).
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// Drains `nodes` of the settled cluster (see [`DrainImpact`]): per budget of the cluster, in
/// order. Pods are evicted in the cluster's pod order, a refused one retried after every
/// successful eviction, until nothing more can be evicted.
fn drain(
    settled: Placement<'_>,
    nodes: &BTreeSet<String>,
    owners: &Ownership,
    options: &Options,
) -> Vec<DrainImpact> {
    let mut cluster = settled.cluster.clone();
    for node in cluster.nodes.iter_mut().filter(|n| nodes.contains(&n.name)) {
        node.unschedulable = true;
        if !node.taints.iter().any(|t| t.key == TAINT_UNSCHEDULABLE) {
            node.taints.push(Taint {
                key: TAINT_UNSCHEDULABLE.into(),
                value: String::new(),
                effect: TaintEffect::NoSchedule,
            });
        }
    }
    let member: BTreeSet<&str> = settled
        .members
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut unbound: Vec<Pod> = settled
        .pending
        .iter()
        .flatten()
        .map(|(p, _)| p.clone())
        .collect();
    let mut queue: Vec<String> = cluster
        .pods
        .iter()
        .filter(|p| !p.terminating && p.node_name.as_ref().is_some_and(|n| nodes.contains(n)))
        .map(Pod::key)
        .collect();
    let mut drains = alloc::vec![DrainImpact::default(); cluster.pdbs.len()];
    // Budgets are recomputed only after the cluster changed (an eviction, a replacement).
    let mut budgets: Vec<Option<i32>> = alloc::vec![None; cluster.pdbs.len()];
    loop {
        let mut progress = false;
        let mut index = 0;
        while index < queue.len() {
            let wanted = queue[index].split_once('/');
            let Some(position) = cluster
                .pods
                .iter()
                .position(|p| Some((p.namespace.as_str(), p.name.as_str())) == wanted)
            else {
                queue.remove(index);
                continue;
            };
            let covering: Vec<usize> = cluster
                .pdbs
                .iter()
                .enumerate()
                .filter(|(_, pdb)| disruption::selects(pdb, &cluster.pods[position]))
                .map(|(i, _)| i)
                .collect();
            // The eviction API refuses a pod covered by more than one budget, and one whose
            // budget allows no disruption now.
            let refused = covering.len() > 1
                || covering.iter().any(|&i| {
                    let allowed = *budgets[i].get_or_insert_with(|| {
                        let pending: Vec<&Pod> = unbound.iter().collect();
                        disruption::budget(&cluster, &pending, &cluster.pdbs[i], owners)
                            .disruptions_allowed
                    });
                    allowed < 1
                });
            if refused {
                index += 1;
                continue;
            }
            budgets.iter_mut().for_each(|b| *b = None);
            let evicted = cluster.pods.remove(position);
            queue.remove(index);
            progress = true;
            for &i in &covering {
                drains[i].evictions += 1;
            }
            if !member.contains(evicted.key().as_str()) {
                continue;
            }
            let mut replacement = evicted;
            replacement.node_name = None;
            let simulation =
                scheduler::simulate(&cluster, core::slice::from_ref(&replacement), options);
            match simulation.decisions.first() {
                Some(decision) if decision.node.is_some() => {
                    replacement.node_name = decision.node.clone();
                    cluster.pods.push(replacement);
                }
                decision => {
                    for &i in &covering {
                        drains[i].pending_replacements.push(replacement.key());
                        if drains[i].message.is_none() {
                            drains[i].message = decision.and_then(|d| d.message.clone());
                        }
                    }
                    unbound.push(replacement);
                }
            }
        }
        if !progress {
            break;
        }
    }
    let pending: Vec<&Pod> = unbound.iter().collect();
    for key in &queue {
        if let Some(pod) = cluster.pods.iter().find(|p| p.key() == *key) {
            for (i, pdb) in cluster.pdbs.iter().enumerate() {
                if disruption::selects(pdb, pod) {
                    drains[i].blocked += 1;
                }
            }
        }
    }
    for (i, pdb) in cluster.pdbs.iter().enumerate() {
        drains[i].healthy_at_end =
            disruption::budget(&cluster, &pending, pdb, owners).current_healthy;
    }
    drains
}

/// Brings the failed nodes back as they were before (empty) and retries the Pending replacements.
fn recover(
    before: &Cluster,
    mut after: Cluster,
    pending: Vec<(usize, crate::model::Pod, String)>,
    mut running: Vec<Vec<String>>,
    options: &Options,
) -> Recovery {
    if pending.is_empty() {
        // Nothing to retry, and the scheduler does not move running pods back. Every running
        // replica is on a node `after` still has, so its zones are read from there.
        return Recovery {
            placed: alloc::vec![Vec::new(); running.len()],
            zones: running.iter().map(|keys| per_zone(&after, keys)).collect(),
            running: running.iter().map(Vec::len).collect(),
        };
    }
    after.nodes = before.nodes.clone();
    let pods: Vec<crate::model::Pod> = pending.iter().map(|(_, p, _)| p.clone()).collect();
    let simulation = scheduler::simulate(&after, &pods, options);
    let order = scheduler::queue_order(&pods);
    let mut placed: Vec<Vec<(String, String)>> = alloc::vec![Vec::new(); running.len()];
    for (decision, &index) in simulation.decisions.iter().zip(&order) {
        if let Some(node) = &decision.node {
            let (workload, pod, replaces) = &pending[index];
            let mut pod = pod.clone();
            pod.node_name = Some(node.clone());
            running[*workload].push(pod.key());
            placed[*workload].push((replaces.clone(), node.clone()));
            after.pods.push(pod);
        }
    }
    Recovery {
        placed,
        zones: running.iter().map(|keys| per_zone(&after, keys)).collect(),
        running: running.iter().map(Vec::len).collect(),
    }
}

/// Which domains a sweep fails one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainKind {
    /// Every zone.
    Zone,
    /// Every node that holds a replica of one of the workloads (a node without one loses none).
    Node,
}

/// One workload's survival over a sweep: the N+1 verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survival {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// The failure that leaves the fewest replicas running after rescheduling (the first such
    /// in domain order), if any domain was failed.
    pub worst: Option<Domain>,
    /// Replicas running after rescheduling in the worst failure.
    pub min_running_after: usize,
    /// Fewest replicas still running right after any single failure (before replacements).
    pub min_surviving: usize,
}

impl Survival {
    /// `min_running_after / desired` in percent (100 when nothing is desired), rounded down.
    pub fn percent_after(&self) -> usize {
        (self.min_running_after * 100)
            .checked_div(self.desired)
            .unwrap_or(100)
    }
}

/// Every single failure of one kind, and the N+1 verdict per workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// Zones or nodes.
    pub kind: DomainKind,
    /// How they fail.
    pub mode: FailureMode,
    /// One report per domain, in domain order (zones sorted; nodes in node order).
    pub reports: Vec<FailureReport>,
    /// Per workload.
    pub survival: Vec<Survival>,
}

/// Fails every zone (or every node holding a replica) one at a time.
pub fn fail_each<'a>(
    settled: impl Into<Placement<'a>>,
    kind: DomainKind,
    mode: FailureMode,
    options: &Options,
) -> Sweep {
    let settled: Placement<'a> = settled.into();
    let workloads = settled.workloads;
    let domains: Vec<Domain> = match kind {
        DomainKind::Zone => settled
            .cluster
            .nodes
            .iter()
            .map(|n| String::from(zone_of(n)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(Domain::Zone)
            .collect(),
        DomainKind::Node => {
            let members: BTreeSet<&str> = settled
                .members
                .iter()
                .flatten()
                .map(String::as_str)
                .collect();
            let hosting: BTreeSet<&str> = settled
                .cluster
                .pods
                .iter()
                .filter(|p| members.contains(p.key().as_str()))
                .filter_map(|p| p.node_name.as_deref())
                .collect();
            settled
                .cluster
                .nodes
                .iter()
                .filter(|n| hosting.contains(n.name.as_str()))
                .map(|n| Domain::Node(n.name.clone()))
                .collect()
        }
    };
    let reports: Vec<FailureReport> = domains
        .iter()
        .map(|d| fail(settled, d, mode, options))
        .collect();
    let survival = workloads
        .iter()
        .enumerate()
        .map(|(index, workload)| {
            let running_now = settled.members[index].len();
            let mut survival = Survival {
                workload: workload.key.clone(),
                desired: workload.desired,
                worst: None,
                min_running_after: running_now,
                min_surviving: running_now,
            };
            for report in &reports {
                let impact = &report.workloads[index];
                if survival.worst.is_none() || impact.running_after < survival.min_running_after {
                    survival.worst = Some(report.domain.clone());
                    survival.min_running_after = impact.running_after;
                }
                survival.min_surviving = survival.min_surviving.min(impact.surviving);
            }
            survival
        })
        .collect();
    Sweep {
        kind,
        mode,
        reports,
        survival,
    }
}

#[cfg(test)]
mod tests {
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
        let mut template = with_cpu(pod("", &[("app", "web")], None), 0);
        template.containers[0].requests.clear();
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
}
