//! The Deployment controller on a clock (`pkg/controller/deployment/rolling.go`, `recreate.go`,
//! `sync.go`), its ReplicaSets' controller choosing pods to delete
//! (`pkg/controller/controller_utils.go` `ActivePodsWithRanks`) and the scheduler placing the
//! new revision's pods, step by step.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::analysis::zone_of;
use crate::framework::{PodId, Snapshot};
use crate::model::{Cluster, Pod};
use crate::scheduler::{self, Detail, Options};

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Pending {
        message: String,
    },
    Bound {
        id: PodId,
        node: usize,
        scheduled_at: u64,
    },
    Terminating {
        id: PodId,
        until: u64,
    },
    Gone,
}

#[derive(Clone, Debug)]
struct SimPod {
    pod: Pod,
    /// 0 for the new ReplicaSet, `1..` for old ones.
    rs: usize,
    state: State,
}

struct Sim<'a> {
    snapshot: Snapshot,
    pods: Vec<SimPod>,
    /// `spec.replicas` per ReplicaSet (index 0: new).
    rs_replicas: Vec<usize>,
    replicas: usize,
    spec: &'a RolloutSpec,
    assumptions: &'a Assumptions,
    options: Options,
    template: &'a Pod,
    base_name: String,
    created: usize,
    time: u64,
    /// Pods removed since the Pending pods were last tried.
    changed_since_retry: bool,
}

impl Sim<'_> {
    fn ready_at(&self, scheduled_at: u64) -> u64 {
        scheduled_at + self.assumptions.ready_after_seconds
    }

    fn is_available(&self, pod: &SimPod) -> bool {
        match pod.state {
            State::Bound { scheduled_at, .. } => {
                self.ready_at(scheduled_at) + self.spec.min_ready_seconds <= self.time
            }
            _ => false,
        }
    }

    fn is_ready(&self, pod: &SimPod) -> bool {
        matches!(pod.state, State::Bound { scheduled_at, .. } if self.ready_at(scheduled_at) <= self.time)
    }

    /// Live pods (Pending or bound, not terminating) of a ReplicaSet.
    fn live(&self, rs: usize) -> impl Iterator<Item = usize> + '_ {
        self.pods.iter().enumerate().filter_map(move |(i, p)| {
            (p.rs == rs && matches!(p.state, State::Pending { .. } | State::Bound { .. }))
                .then_some(i)
        })
    }

    fn available_in(&self, rs: usize) -> usize {
        self.live(rs)
            .filter(|&i| self.is_available(&self.pods[i]))
            .count()
    }

    fn old_sets(&self) -> core::ops::Range<usize> {
        1..self.rs_replicas.len()
    }

    /// One Deployment sync (`rolloutRolling` / `rolloutRecreate`): one scale action at most.
    fn sync_deployment(&mut self) -> Option<String> {
        let replicas = self.replicas;
        let old_total: usize = self.old_sets().map(|i| self.rs_replicas[i]).sum();
        match self.spec.strategy {
            Strategy::OrderedRollingUpdate { .. } | Strategy::OnDelete => None,
            Strategy::Recreate => {
                if old_total > 0 {
                    for i in self.old_sets() {
                        self.rs_replicas[i] = 0;
                    }
                    return Some(String::from("scale old ReplicaSets to 0 (Recreate)"));
                }
                let old_left = self
                    .pods
                    .iter()
                    .any(|p| p.rs > 0 && !matches!(p.state, State::Gone));
                if !old_left && self.rs_replicas[0] != replicas {
                    self.rs_replicas[0] = replicas;
                    return Some(format!("scale new ReplicaSet to {replicas}"));
                }
                None
            }
            Strategy::RollingUpdate { .. } => {
                let (surge, unavailable) = self.spec.strategy.resolve(replicas as i32);
                let (surge, unavailable) = (surge.max(0) as usize, unavailable.max(0) as usize);
                // reconcileNewReplicaSet
                let new = self.rs_replicas[0];
                if new > replicas {
                    self.rs_replicas[0] = replicas;
                    return Some(format!("scale new ReplicaSet down to {replicas}"));
                }
                if new < replicas {
                    let current: usize = self.rs_replicas.iter().sum();
                    let max_total = replicas + surge;
                    if current < max_total {
                        let up = (max_total - current).min(replicas - new);
                        self.rs_replicas[0] = new + up;
                        return Some(format!("scale new ReplicaSet up to {}", new + up));
                    }
                }
                // reconcileOldReplicaSets
                if old_total == 0 {
                    return None;
                }
                let all: usize = self.rs_replicas.iter().sum();
                let min_available = replicas.saturating_sub(unavailable);
                let new_unavailable = self.rs_replicas[0].saturating_sub(self.available_in(0));
                let max_scaled_down = all as i64 - min_available as i64 - new_unavailable as i64;
                if max_scaled_down <= 0 {
                    return None;
                }
                let mut actions = Vec::new();
                // cleanupUnhealthyReplicas: old ReplicaSets' unavailable pods first.
                let mut cleaned = 0usize;
                for i in self.old_sets() {
                    if cleaned as i64 >= max_scaled_down {
                        break;
                    }
                    let spec = self.rs_replicas[i];
                    let available = self.available_in(i);
                    if spec == 0 || spec <= available {
                        continue;
                    }
                    let down = (max_scaled_down as usize - cleaned).min(spec - available);
                    self.rs_replicas[i] = spec - down;
                    cleaned += down;
                    actions.push(format!(
                        "scale old ReplicaSet {i} down to {} (unhealthy pods)",
                        spec - down
                    ));
                }
                // scaleDownOldReplicaSetsForRollingUpdate
                let available: usize = (0..self.rs_replicas.len())
                    .map(|i| self.available_in(i))
                    .sum();
                if available > min_available {
                    let total = available - min_available;
                    let mut done = 0;
                    for i in self.old_sets() {
                        if done >= total {
                            break;
                        }
                        let spec = self.rs_replicas[i];
                        if spec == 0 {
                            continue;
                        }
                        let down = spec.min(total - done);
                        self.rs_replicas[i] = spec - down;
                        done += down;
                        actions.push(format!("scale old ReplicaSet {i} down to {}", spec - down));
                    }
                }
                (!actions.is_empty()).then(|| actions.join("; "))
            }
        }
    }

    /// The ReplicaSet controllers: create or delete pods to match `spec.replicas`.
    fn sync_replica_sets(&mut self) -> Vec<String> {
        let mut actions = Vec::new();
        for rs in 0..self.rs_replicas.len() {
            let live: Vec<usize> = self.live(rs).collect();
            let want = self.rs_replicas[rs];
            if live.len() < want {
                for _ in live.len()..want {
                    let mut pod = self.template.clone();
                    pod.name = format!("{}-{}", self.base_name, self.created);
                    pod.unbind();
                    self.created += 1;
                    actions.push(format!("create {}", pod.name));
                    self.pods.push(SimPod {
                        pod,
                        rs,
                        state: State::Pending {
                            message: String::new(),
                        },
                    });
                }
            } else if live.len() > want {
                let victims = self.pods_to_delete(&live, live.len() - want);
                for index in victims {
                    actions.push(format!("delete {}", self.pods[index].pod.name));
                    self.delete(index);
                }
            }
        }
        actions
    }

    /// `ActivePodsWithRanks` order: unscheduled first, then not Ready, then (Ready) pods on
    /// nodes holding more active pods of the Deployment, of every ReplicaSet (`replica_set.go`
    /// `getPodsRankedByRelatedPodsOnSameNode` over `getIndirectlyRelatedPods`; terminating pods
    /// are not active), then the most recently Ready, then newest.
    fn pods_to_delete(&self, live: &[usize], count: usize) -> Vec<usize> {
        let mut per_node: BTreeMap<usize, usize> = BTreeMap::new();
        for pod in &self.pods {
            if let State::Bound { node, .. } = pod.state {
                *per_node.entry(node).or_insert(0) += 1;
            }
        }
        let mut ranked: Vec<usize> = live.to_vec();
        ranked.sort_by_key(|&i| {
            let pod = &self.pods[i];
            let (bound, ready, colocated, since) = match pod.state {
                State::Bound {
                    node, scheduled_at, ..
                } => (
                    1,
                    u8::from(self.is_ready(pod)),
                    per_node.get(&node).copied().unwrap_or(0),
                    scheduled_at,
                ),
                _ => (0, 0, 0, 0),
            };
            (
                bound,
                ready,
                core::cmp::Reverse(colocated),
                core::cmp::Reverse(since),
                core::cmp::Reverse(i),
            )
        });
        ranked.truncate(count);
        ranked
    }

    fn delete(&mut self, index: usize) {
        let grace = self.spec.termination_grace_seconds;
        let state = core::mem::replace(&mut self.pods[index].state, State::Gone);
        self.pods[index].state = match state {
            State::Bound { id, .. } if grace > 0 => {
                self.snapshot.set_terminating(id);
                State::Terminating {
                    id,
                    until: self.time + grace,
                }
            }
            State::Bound { id, .. } => {
                self.snapshot.remove(id);
                self.changed_since_retry = true;
                State::Gone
            }
            _ => State::Gone,
        };
    }

    /// Schedules the Pending pods in queue order (creation order; one priority).
    fn schedule(&mut self) -> Vec<String> {
        let mut actions = Vec::new();
        for index in 0..self.pods.len() {
            let State::Pending { message } = &self.pods[index].state else {
                continue;
            };
            if !message.is_empty() && !self.changed_since_retry {
                continue;
            }
            let decision = scheduler::schedule_and_bind(
                &mut self.snapshot,
                &self.pods[index].pod,
                &self.options,
            );
            match &decision.node {
                Some(node) => {
                    let node_index = self.snapshot.node_index[node];
                    // A bind appends the pod to the snapshot's arena.
                    let id = self.snapshot.pods.len() - 1;
                    debug_assert!(
                        self.snapshot.pods[id]
                            .as_ref()
                            .is_some_and(|p| p.pod.name == self.pods[index].pod.name)
                    );
                    actions.push(format!("schedule {} on {node}", self.pods[index].pod.name));
                    self.pods[index].state = State::Bound {
                        id,
                        node: node_index,
                        scheduled_at: self.time,
                    };
                }
                None => {
                    self.pods[index].state = State::Pending {
                        message: decision.message.unwrap_or_default(),
                    };
                }
            }
        }
        self.changed_since_retry = false;
        actions
    }

    /// Ends the grace periods that are over.
    fn expire(&mut self) -> Vec<String> {
        let mut actions = Vec::new();
        for pod in &mut self.pods {
            if let State::Terminating { id, until } = pod.state
                && until <= self.time
            {
                self.snapshot.remove(id);
                pod.state = State::Gone;
                self.changed_since_retry = true;
                actions.push(format!("{} is gone", pod.pod.name));
            }
        }
        actions
    }

    fn next_event(&self) -> Option<u64> {
        self.pods
            .iter()
            .filter_map(|p| match p.state {
                State::Bound { scheduled_at, .. } => {
                    let ready = self.ready_at(scheduled_at);
                    let available = ready + self.spec.min_ready_seconds;
                    [ready, available].into_iter().find(|t| *t > self.time)
                }
                State::Terminating { until, .. } => (until > self.time).then_some(until),
                _ => None,
            })
            .min()
    }

    fn counts(&self, new: bool) -> RevisionCounts {
        let mut counts = RevisionCounts {
            replicas: if new {
                self.rs_replicas[0]
            } else {
                self.old_sets().map(|i| self.rs_replicas[i]).sum()
            },
            ..RevisionCounts::default()
        };
        for pod in self.pods.iter().filter(|p| (p.rs == 0) == new) {
            match pod.state {
                State::Pending { .. } => counts.pending += 1,
                State::Bound { node, .. } => {
                    counts.running += 1;
                    if self.is_available(pod) {
                        counts.available += 1;
                    }
                    let zone = zone_of(&self.snapshot.nodes[node].node);
                    *counts.zones.entry(String::from(zone)).or_insert(0) += 1;
                }
                State::Terminating { .. } => counts.terminating += 1,
                State::Gone => {}
            }
        }
        counts
    }

    fn complete(&self) -> bool {
        let new = self.counts(true);
        let old = self.counts(false);
        new.replicas == self.replicas
            && new.available == self.replicas
            && old.replicas == 0
            && old.running + old.pending == 0
    }
}

/// The Deployment path of [`simulate_rollout`]: the Deployment controller (`rolling.go`,
/// `recreate.go`) and its ReplicaSets' controller on the clock.
pub(super) fn simulate_deployment(
    cluster: &Cluster,
    workload: &Workload,
    template: &Pod,
    spec: &RolloutSpec,
    assumptions: &Assumptions,
    options: &Options,
) -> RolloutOutcome {
    let (key, replicas, old) = (
        workload.key.as_str(),
        workload.desired,
        workload.running.as_slice(),
    );
    let (snapshot, _) = Snapshot::new(cluster, options.profile.version);
    let by_key: BTreeMap<String, PodId> = snapshot
        .pods
        .iter()
        .enumerate()
        .filter_map(|(id, p)| p.as_ref().map(|p| (p.pod.key(), id)))
        .collect();
    // Old ReplicaSets: one per pod-template-hash (ordered below).
    let mut hashes: Vec<String> = Vec::new();
    let mut pods = Vec::new();
    for pod_key in old {
        let Some(&id) = by_key.get(pod_key) else {
            continue;
        };
        let info = snapshot.pod(id);
        if info.pod.terminating {
            continue;
        }
        let hash = info
            .pod
            .labels
            .get(LABEL_POD_TEMPLATE_HASH)
            .cloned()
            .unwrap_or_default();
        // Pods of the template's own revision are the new ReplicaSet's (`FindNewReplicaSet`: the
        // loader gave the template the hash of the ReplicaSet whose template equals it).
        let rs = if template.labels.get(LABEL_POD_TEMPLATE_HASH) == Some(&hash) {
            0
        } else {
            match hashes.iter().position(|h| *h == hash) {
                Some(position) => position + 1,
                None => {
                    hashes.push(hash);
                    hashes.len()
                }
            }
        };
        pods.push(SimPod {
            pod: Pod::clone(&info.pod),
            rs,
            state: State::Bound {
                id,
                node: snapshot.pod_node[id],
                // Running long before the rollout: Ready and available.
                scheduled_at: 0,
            },
        });
    }
    // The Deployment controller scales old ReplicaSets down oldest first
    // (`ReplicaSetsByCreationTimestamp` in rolling.go). A ReplicaSet's creation time is not in
    // the snapshot: its pods' earliest `status.startTime` stands in for it (sets without one
    // last, then in order of first appearance).
    let mut oldest: Vec<Option<i64>> = alloc::vec![None; hashes.len() + 1];
    for pod in &pods {
        if let Some(start) = pod.pod.start_time {
            let entry = &mut oldest[pod.rs];
            *entry = Some(entry.map_or(start, |e: i64| e.min(start)));
        }
    }
    let mut order: Vec<usize> = (1..=hashes.len()).collect();
    order.sort_by_key(|&rs| (oldest[rs].is_none(), oldest[rs], rs));
    let mut renumber = alloc::vec![0usize; hashes.len() + 1];
    for (position, &rs) in order.iter().enumerate() {
        renumber[rs] = position + 1;
    }
    for pod in &mut pods {
        pod.rs = renumber[pod.rs];
    }
    let mut rs_replicas = alloc::vec![0usize; hashes.len() + 1];
    for pod in &pods {
        rs_replicas[pod.rs] += 1;
    }
    let name = key.rsplit('/').next().unwrap_or(key);
    let base_name = match template.labels.get(LABEL_POD_TEMPLATE_HASH) {
        Some(hash) => format!("{name}-{hash}"),
        None => String::from(name),
    };
    let ready_offset = assumptions.ready_after_seconds + spec.min_ready_seconds;
    let mut sim = Sim {
        snapshot,
        pods,
        rs_replicas,
        replicas,
        spec,
        assumptions,
        options: Options {
            detail: Detail::None,
            ..options.clone()
        },
        template,
        base_name,
        created: 0,
        // Old pods count as available from the start.
        time: ready_offset,
        changed_since_retry: true,
    };
    let start = sim.time;
    let mut steps: Vec<Step> = Vec::new();
    let mut last_progress = start;
    let mut deadline_at = None;
    let mut completed = false;
    loop {
        let mut actions = sim.expire();
        for _ in 0..64 {
            let mut round = Vec::new();
            if let Some(action) = sim.sync_deployment() {
                round.push(action);
            }
            round.extend(sim.sync_replica_sets());
            round.extend(sim.schedule());
            if round.is_empty() {
                break;
            }
            actions.extend(round);
        }
        let new = sim.counts(true);
        let old = sim.counts(false);
        let progressed = steps.last().is_none_or(|last| {
            new.replicas > last.new.replicas
                || new.available > last.new.available
                || new.running > last.new.running
                || old.replicas < last.old.replicas
        });
        if progressed {
            last_progress = sim.time;
        } else if deadline_at.is_none() && sim.time - last_progress > spec.progress_deadline_seconds
        {
            deadline_at = Some(last_progress + spec.progress_deadline_seconds - start);
        }
        let pending = sim
            .pods
            .iter()
            .filter_map(|p| match &p.state {
                State::Pending { message } => Some((p.pod.name.clone(), message.clone())),
                _ => None,
            })
            .collect();
        let available = new.available + old.available;
        if !actions.is_empty()
            || steps.is_empty()
            || available != steps.last().map_or(0, |s| s.available)
        {
            steps.push(Step {
                step: steps.len(),
                time: sim.time - start,
                actions,
                new,
                old,
                available,
                pending,
            });
        }
        if sim.complete() {
            completed = true;
            break;
        }
        if steps.len() >= assumptions.max_steps {
            break;
        }
        match sim.next_event() {
            Some(time) => sim.time = time,
            None => break,
        }
    }
    let stalled_at_step = (!completed).then(|| steps.len().saturating_sub(1));
    let reason = if completed {
        None
    } else {
        sim.pods
            .iter()
            .find_map(|p| match &p.state {
                State::Pending { message } if p.rs == 0 => Some(message.clone()),
                _ => None,
            })
            .or_else(|| Some(String::from("the simulation reached its step limit")))
    };
    if !completed && deadline_at.is_none() {
        deadline_at = Some(last_progress + spec.progress_deadline_seconds - start);
    }
    let min_available = steps.iter().map(|s| s.available).min().unwrap_or(0);
    let spread = spread_checks(&sim.snapshot, template);
    RolloutOutcome {
        strategy: spec.strategy,
        resolved: spec.strategy.resolve(replicas as i32),
        completed,
        stalled_at_step,
        reason,
        min_available,
        progress_deadline_exceeded_at: deadline_at,
        steps,
        spread,
    }
}
