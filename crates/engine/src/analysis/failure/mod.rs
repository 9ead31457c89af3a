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
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::disruption::{self, Budget, Ownership};
use super::{Placement, zone_of};
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
    let settled = settled.into();
    fail_with(
        settled,
        &Base::new(settled, options.profile.version),
        domain,
        mode,
        options,
        true,
    )
}

/// [`fail`] without the recovery step (its [`Recovery`] is what the failure left: nothing
/// placed later), for callers that only need the failure itself (lint).
pub fn fail_without_recovery<'a>(
    settled: impl Into<Placement<'a>>,
    domain: &Domain,
    mode: FailureMode,
    options: &Options,
) -> FailureReport {
    let settled = settled.into();
    fail_with(
        settled,
        &Base::new(settled, options.profile.version),
        domain,
        mode,
        options,
        false,
    )
}

fn fail_with(
    settled: Placement<'_>,
    base: &Base,
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
        .map(|p| &**p)
        .filter(|p| on_failed(&p.node_name))
        .collect();
    let gone_members = base::gone_members(&gone, settled.members);

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

    // The cluster after the failure, kept as a cluster only for the budgets' arithmetic.
    let mut after: Option<Cluster> = (!affected.is_empty()).then(|| {
        let mut after = before.clone();
        after.pods.retain(|p| !on_failed(&p.node_name));
        after
    });
    let healthy_after_failure: Vec<i32> = match &after {
        Some(after) => affected
            .iter()
            .map(|(index, _, _)| {
                disruption::budget(after, &pending_before, &before.pdbs[*index], &owners)
                    .current_healthy
            })
            .collect(),
        None => Vec::new(),
    };
    let unreachable = [TaintEffect::NoSchedule, TaintEffect::NoExecute].map(|effect| Taint {
        key: TAINT_UNREACHABLE.into(),
        value: String::new(),
        effect,
    });
    if let Some(after) = &mut after {
        match mode {
            FailureMode::Removed => after.nodes.retain(|n| !failed.contains(&n.name)),
            FailureMode::Unreachable => {
                for node in after.nodes.iter_mut().filter(|n| failed.contains(&n.name)) {
                    node.taints.extend(unreachable.iter().cloned());
                }
            }
        }
    }
    // The scheduler's view after the failure, derived from the settled one: what
    // `Snapshot::new` of the cluster after the failure gives.
    let (failed_nodes, gone_ids) = base.failed(&failed);
    let mut snapshot = match mode {
        FailureMode::Removed => base.snapshot.without_nodes(&failed_nodes),
        FailureMode::Unreachable => {
            let mut snapshot = crate::framework::Snapshot::clone(&base.snapshot);
            for &id in &gone_ids {
                snapshot.remove(id);
            }
            for &node in &failed_nodes {
                snapshot.add_taints(node, &unreachable);
            }
            snapshot
        }
    };

    // Replacements: each lost replica is recreated unbound (same labels; a StatefulSet keeps the
    // name, other controllers' new names do not matter to scheduling); Pending ones retry.
    // On an unreachable node a StatefulSet's pod is marked for deletion once its toleration
    // expires but stays Terminating: the kubelet cannot confirm it, and the StatefulSet
    // controller creates a pod of that name only once the old one is gone (no force delete).
    let mut held: Vec<(usize, crate::model::Pod, String)> = Vec::new();
    let mut pods = Vec::new();
    let mut owner: Vec<(usize, String, bool)> = Vec::new();
    for (index, members) in settled.members.iter().enumerate() {
        let stateful = workloads
            .get(index)
            .is_some_and(|w| w.key.starts_with("StatefulSet/"));
        let lost = members
            .iter()
            .filter_map(|key| gone_members.get(key).map(|pod| (key, pod)));
        for (key, pod) in lost {
            let mut replacement = (*pod).clone();
            replacement.unbind();
            if stateful && mode == FailureMode::Unreachable {
                held.push((index, replacement, key.clone()));
                continue;
            }
            pods.push(replacement);
            owner.push((index, key.clone(), false));
        }
        for (pod, _) in &settled.pending[index] {
            pods.push(pod.clone());
            owner.push((index, pod.key(), true));
        }
    }
    let decisions = scheduler::simulate_on(&mut snapshot, &pods, options);
    drop(snapshot);
    let order = scheduler::queue_order(&pods);
    let mut replacements: Vec<Vec<Replacement>> = alloc::vec![Vec::new(); workloads.len()];
    let mut placed_keys: Vec<Vec<String>> = alloc::vec![Vec::new(); workloads.len()];
    // Replicas placed since the settled cluster (key to zone), and the pods, in binding order.
    let mut placed_zones: BTreeMap<String, String> = BTreeMap::new();
    let mut placed_pods: Vec<Pod> = Vec::new();
    let mut still_pending: Vec<(usize, crate::model::Pod, String)> = Vec::new();
    for (decision, &index) in decisions.iter().zip(&order) {
        let (workload, replaces, was_pending) = &owner[index];
        let zone = decision
            .node
            .as_deref()
            .and_then(|n| base.zone_of_node.get(n))
            .cloned();
        if let Some(node) = &decision.node {
            let mut pod = pods[index].clone();
            pod.node_name = Some(node.clone());
            placed_keys[*workload].push(pod.key());
            if let Some(zone) = &zone {
                placed_zones.insert(pod.key(), zone.clone());
            }
            if let Some(after) = &mut after {
                after.pods.push(Arc::new(pod.clone()));
            }
            placed_pods.push(pod);
        } else {
            still_pending.push((*workload, pods[index].clone(), replaces.clone()));
        }
        replacements[*workload].push(Replacement {
            replaces: replaces.clone(),
            was_pending: *was_pending,
            node: decision.node.clone(),
            zone,
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
            .filter(|k| gone_members.contains_key(*k))
            .cloned()
            .collect();
        let mut running: Vec<String> = members
            .iter()
            .filter(|k| !gone_members.contains_key(*k))
            .cloned()
            .collect();
        let surviving = running.len();
        running.extend(placed_keys[index].iter().cloned());
        impacts.push(WorkloadImpact {
            workload: workload.key.clone(),
            desired: workload.desired,
            running_before: members.len(),
            zones_before: base.per_zone(members, &BTreeMap::new()),
            lost,
            surviving,
            replacements: core::mem::take(&mut replacements[index]),
            running_after: running.len(),
            zones_after: base.per_zone(&running, &placed_zones),
        });
        running_keys.push(running);
    }

    let pdbs = affected
        .iter()
        .zip(healthy_after_failure)
        .map(|((index, budget, evicted), healthy_after_failure)| {
            let pdb = &before.pdbs[*index];
            let unbound: Vec<&Pod> = still_pending.iter().map(|(_, p, _)| p).collect();
            let after = after.as_ref().expect("kept while budgets are affected");
            let healthy_after_replacements =
                disruption::budget(after, &unbound, pdb, &owners).current_healthy;
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

    let after_failure = AfterFailure {
        gone: gone_ids,
        placed: placed_pods,
        placed_zones,
    };
    let pending = if recover_after {
        still_pending
    } else {
        Vec::new()
    };
    let recovery = recover(base, after_failure, pending, running_keys, options);
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

/// Which domains a sweep fails one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainKind {
    /// Every zone.
    Zone,
    /// Every node that holds a replica of one of the workloads (a node without one loses none).
    Node,
}

impl DomainKind {
    /// `zone` or `node`.
    pub fn as_str(self) -> &'static str {
        match self {
            DomainKind::Zone => "zone",
            DomainKind::Node => "node",
        }
    }
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
        super::percent(self.min_running_after, self.desired)
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

mod base;
mod drain;
mod recover;
mod sweep;

use base::Base;
pub use drain::TAINT_UNSCHEDULABLE;
use drain::drain;
use recover::{AfterFailure, recover};
pub use sweep::fail_each;

#[cfg(test)]
mod tests;
