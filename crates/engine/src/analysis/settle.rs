//! The settled scenario: the snapshot's bound pods plus every workload's missing replicas placed
//! where the scheduler puts them (one simulation in queue order, `schedule_one.go` per pod).
//! Settled once, it is what the simulation report and every analysis start from.

use alloc::borrow::Cow;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::OnceCell;

use crate::framework::Snapshot;
use crate::model::{Cluster, Pod, Scenario, Workload};
use crate::scheduler::{self, Detail, Options, PodDecision, Simulation};
use crate::version::KubeVersion;

/// The settled scenario: the input with every workload's missing replicas scheduled and bound.
#[derive(Clone, Debug)]
pub struct Settled {
    /// The scenario as given (the input cluster and the workloads).
    pub scenario: Scenario,
    /// The cluster with the placed replicas bound (`node_name` set), in the input's pod order
    /// followed by the placed ones in scheduling order. Read-only once [`Settled::snapshot`]
    /// was asked for: the snapshot kept then is of this cluster (settle again to change it).
    pub cluster: Cluster,
    /// Per workload (same order as [`Scenario::workloads`]): the keys of its replicas bound in
    /// [`Settled::cluster`] (its running bound replicas, then the placed ones).
    pub members: Vec<Vec<String>>,
    /// Per workload: its replicas left Pending, with their decisions.
    pub pending: Vec<Vec<(Pod, PodDecision)>>,
    /// The scheduler's decision for every created replica, in scheduling order, and the
    /// snapshot after binding.
    pub simulation: Simulation,
    /// Per decision of [`Settled::simulation`]: the index of the workload that created the pod.
    pub owners: Vec<usize>,
    /// The per-node detail the decisions carry.
    pub detail: Detail,
    /// `Snapshot::new` of [`Settled::cluster`], built by the first analysis that asks for it
    /// ([`Settled::snapshot`]) and shared by the others.
    snapshot: SharedSnapshot,
}

/// A settled cluster's `Snapshot::new`, built once on demand for one Kubernetes version.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedSnapshot(OnceCell<Snapshot>);

impl SharedSnapshot {
    /// `Snapshot::new(cluster, version)`: the one kept here when it is for `version` (built now
    /// if none is), a new one otherwise. `cluster` must be the cluster this one is kept for.
    fn get(&self, cluster: &Cluster, version: KubeVersion) -> Cow<'_, Snapshot> {
        let kept = self.0.get_or_init(|| Snapshot::new(cluster, version).0);
        if kept.version == version {
            Cow::Borrowed(kept)
        } else {
            Cow::Owned(Snapshot::new(cluster, version).0)
        }
    }
}

/// What an analysis follows in a settled cluster: every workload, or one of them
/// ([`Settled::placement_of`]) while the others stay where they are. Borrowed from one
/// [`Settled`], so its parts always agree.
#[derive(Clone, Copy, Debug)]
pub struct Placement<'a> {
    /// The settled cluster.
    pub cluster: &'a Cluster,
    /// The followed workloads.
    pub workloads: &'a [Workload],
    /// Per followed workload: its bound replicas' keys.
    pub members: &'a [Vec<String>],
    /// Per followed workload: its Pending replicas.
    pub pending: &'a [Vec<(Pod, PodDecision)>],
    /// The settled cluster's shared snapshot, when borrowed from a [`Settled`] together with
    /// `cluster` (a placement of another cluster must set `None`).
    pub(crate) shared: Option<&'a SharedSnapshot>,
}

impl<'a> Placement<'a> {
    /// `Snapshot::new` of the settled cluster (shared with the other analyses of the same
    /// [`Settled`]: the caller clones it to change it).
    pub fn snapshot(self, version: KubeVersion) -> Cow<'a, Snapshot> {
        match self.shared {
            Some(shared) => shared.get(self.cluster, version),
            None => Cow::Owned(Snapshot::new(self.cluster, version).0),
        }
    }
}

impl Settled {
    /// Every workload.
    pub fn placement(&self) -> Placement<'_> {
        Placement {
            cluster: &self.cluster,
            workloads: &self.scenario.workloads,
            members: &self.members,
            pending: &self.pending,
            shared: Some(&self.snapshot),
        }
    }

    /// `Snapshot::new` of [`Settled::cluster`] for `version`, built once and shared by the
    /// analyses that read the settled cluster (lint, a failure sweep): clone it to change it.
    pub fn snapshot(&self, version: KubeVersion) -> Cow<'_, Snapshot> {
        self.snapshot.get(&self.cluster, version)
    }

    /// Workload `index` alone (the others' pods stay bound where they are); `None` when there
    /// is no such workload.
    pub fn placement_of(&self, index: usize) -> Option<Placement<'_>> {
        let one = index..index.checked_add(1)?;
        Some(Placement {
            cluster: &self.cluster,
            workloads: self.scenario.workloads.get(one.clone())?,
            members: self.members.get(one.clone())?,
            pending: self.pending.get(one)?,
            shared: Some(&self.snapshot),
        })
    }

    /// The claim volumes of pod `namespace/name` (a bound or placed pod, or a Pending replica)
    /// and where their volumes live once the placed replicas' claims are bound.
    pub fn volume_summaries(
        &self,
        namespace: &str,
        name: &str,
    ) -> Vec<crate::model::VolumeSummary> {
        let bound = self
            .cluster
            .pods
            .iter()
            .map(|p| &**p)
            .find(|p| p.namespace == namespace && p.name == name);
        let pending = || {
            self.pending
                .iter()
                .flatten()
                .map(|(p, _)| p)
                .find(|p| p.namespace == namespace && p.name == name)
        };
        bound
            .or_else(pending)
            .map(|pod| self.cluster.storage.volume_summaries(pod))
            .unwrap_or_default()
    }

    /// The decision of the `index`-th scheduled pod (scheduling order, as in
    /// [`Settled::simulation`]) with every per-node detail ([`Detail::All`]), computed on demand
    /// when the settled decisions were made with less: the earlier pods are scheduled and bound
    /// again without detail (their decisions do not depend on it) and the pod's cycle runs once
    /// more with it. `options` must be the ones [`settle`] was given (their detail aside); `None`
    /// past the last decision.
    pub fn explained(&self, index: usize, options: &Options) -> Option<PodDecision> {
        let decision = self.simulation.decisions.get(index)?;
        if decision.explanation.is_some() || self.detail == Detail::All {
            return Some(decision.clone());
        }
        let pods: Vec<Pod> = self
            .scenario
            .workloads
            .iter()
            .flat_map(|w| w.to_create.iter().cloned())
            .collect();
        let order = scheduler::queue_order(&pods);
        let quiet = Options {
            detail: Detail::None,
            ..options.clone()
        };
        let (mut snapshot, _) =
            crate::framework::Snapshot::new(&self.scenario.cluster, options.profile.version);
        scheduler::enqueue_waiting(&mut snapshot, &pods, options.profile.version);
        for &earlier in order.get(..index)? {
            scheduler::schedule_and_bind(&mut snapshot, &pods[earlier], &quiet);
        }
        let detailed = Options {
            detail: Detail::All,
            ..options.clone()
        };
        let info = crate::framework::PodInfo::new(pods[*order.get(index)?].clone());
        let cycle = scheduler::schedule_one(&mut snapshot, &info, &detailed);
        Some(PodDecision {
            explanation: cycle.explanation,
            ..decision.clone()
        })
    }

    /// The workloads, in input order.
    pub fn workloads(&self) -> &[Workload] {
        &self.scenario.workloads
    }

    /// How many of workload `index`'s replicas stay Pending: those built and left Pending, plus
    /// those counted and not built ([`Workload::not_built`], each Pending as the last built one).
    /// 0 when there is no such workload.
    pub fn pending_count(&self, index: usize) -> usize {
        let built = self.pending.get(index).map_or(0, Vec::len);
        let counted = self
            .scenario
            .workloads
            .get(index)
            .map_or(0, |w| w.not_built);
        built.saturating_add(counted)
    }
}

impl<'a> From<&'a Settled> for Placement<'a> {
    fn from(settled: &'a Settled) -> Placement<'a> {
        settled.placement()
    }
}

/// Places every workload's missing replicas (one simulation, queue order) and binds them; the
/// decisions carry `options.detail`.
pub fn settle(scenario: Scenario, options: &Options) -> Settled {
    let placed = place(&scenario.cluster, &scenario.workloads, options);
    Settled {
        scenario,
        cluster: placed.cluster,
        members: placed.members,
        pending: placed.pending,
        simulation: placed.simulation,
        owners: placed.owners,
        detail: options.detail,
        snapshot: SharedSnapshot::default(),
    }
}

/// [`settle`] without keeping the input: for analyses that try a changed cluster or changed
/// workloads (a remedy, a relaxed rule) and only read where the replicas end up.
pub(crate) struct Placed {
    pub(crate) cluster: Cluster,
    pub(crate) members: Vec<Vec<String>>,
    pub(crate) pending: Vec<Vec<(Pod, PodDecision)>>,
    pub(crate) simulation: Simulation,
    pub(crate) owners: Vec<usize>,
}

/// Places `workloads`' missing replicas on `cluster` (see [`settle`]).
pub(crate) fn place(cluster: &Cluster, workloads: &[Workload], options: &Options) -> Placed {
    let mut pods = Vec::new();
    let mut owner = Vec::new();
    for (index, workload) in workloads.iter().enumerate() {
        for pod in &workload.to_create {
            pods.push(pod.clone());
            owner.push(index);
        }
    }
    let simulation = scheduler::simulate(cluster, &pods, options);
    let mut settled = cluster.clone();
    // The running replicas (few) that are bound pods of the cluster: every pod is looked up
    // among the running keys (each read every way it splits: `Pod::key_splits`) rather than
    // every pod's key sorted into a set.
    let running: BTreeSet<(&str, &str)> = workloads
        .iter()
        .flat_map(|w| &w.running)
        .flat_map(|key| Pod::key_splits(key))
        .collect();
    let bound: BTreeSet<(&str, &str)> = if running.is_empty() {
        BTreeSet::new()
    } else {
        cluster
            .pods
            .iter()
            .filter(|p| p.node_name.is_some())
            .map(|p| (p.namespace.as_str(), p.name.as_str()))
            .filter(|key| running.contains(key))
            .collect()
    };
    let mut members: Vec<Vec<String>> = workloads
        .iter()
        .map(|w| {
            w.running
                .iter()
                .filter(|key| Pod::key_splits(key).any(|k| bound.contains(&k)))
                .cloned()
                .collect()
        })
        .collect();
    let mut pending: Vec<Vec<(Pod, PodDecision)>> = alloc::vec![Vec::new(); workloads.len()];
    let order = scheduler::queue_order(&pods);
    let mut owners = Vec::with_capacity(order.len());
    for (decision, &index) in simulation.decisions.iter().zip(&order) {
        owners.push(owner[index]);
        let mut pod = pods[index].clone();
        match &decision.node {
            Some(node) => {
                pod.node_name = Some(node.clone());
                // Bound: no longer in the queue or the nominator.
                pod.waiting = false;
                pod.nominated_node_name = None;
                members[owner[index]].push(pod.key());
                settled.pods.push(Arc::new(pod));
            }
            None => pending[owner[index]].push((pod, decision.clone())),
        }
    }
    // Claims the placed replicas bound (or had made for them) stay bound.
    settled.storage = simulation.snapshot.storage.clone();
    Placed {
        cluster: settled,
        members,
        pending,
        simulation,
        owners,
    }
}
