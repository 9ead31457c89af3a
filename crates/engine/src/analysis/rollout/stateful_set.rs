//! A StatefulSet's ordered rolling update (`pkg/controller/statefulset/stateful_set_control.go`):
//! ordinals from the highest down to the partition, `maxUnavailable` at a time.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::analysis::zone_of;
use crate::framework::{PodId, Snapshot};
use crate::model::{Cluster, Pod};
use crate::scheduler::{self, Detail, Options};

/// The per-pod identity labels a StatefulSet pod keeps across revisions.
const STATEFUL_IDENTITY_LABELS: [&str; 2] = [
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
];

/// A StatefulSet's rolling update (`pkg/controller/statefulset/stateful_set_control.go`,
/// `updateStatefulSetAfterInvariantEstablished`, MaxUnavailableStatefulSet on by default in
/// v1.35): from the highest ordinal down to `partition`, `maxUnavailable` pods at a time
/// (`getStatefulSetMaxUnavailable`: scaled against `spec.replicas` rounding down, at least 1)
/// are deleted together, recreated under the same name with the new template once they are gone
/// (their grace period over) — one at a time in ordinal order, each Running, Ready and available
/// for `minReadySeconds` before the next, under OrderedReady; all at once under Parallel — and
/// must all be available before the next ones are deleted. A replacement that stays Pending
/// stalls the update: under OrderedReady the controller goes no further; under Parallel with
/// `maxUnavailable` above 1 it would go on deleting within the budget the Pending pod leaves,
/// which the simulation does not follow (it reports the stall at the first Pending replacement).
/// `OnDelete` replaces nothing.
pub(super) fn simulate_stateful_set(
    cluster: &Cluster,
    workload: &Workload,
    template: &Pod,
    spec: &RolloutSpec,
    assumptions: &Assumptions,
    options: &Options,
) -> RolloutOutcome {
    let options = Options {
        detail: Detail::None,
        ..options.clone()
    };
    let (mut snapshot, _) = Snapshot::new(cluster, options.profile.version);
    let mut old: Vec<(usize, PodId, Pod)> = snapshot
        .pods
        .iter()
        .enumerate()
        .filter_map(|(id, p)| p.as_ref().map(|p| (id, p)))
        .filter(|(_, p)| !p.pod.terminating && workload.running.contains(&p.pod.key()))
        .filter_map(|(id, p)| {
            let ordinal = p.pod.name.rsplit('-').next()?.parse().ok()?;
            Some((ordinal, id, Pod::clone(&p.pod)))
        })
        .collect();
    old.sort_by_key(|(ordinal, _, _)| core::cmp::Reverse(*ordinal));
    // Pods already at the template's revision (`controller-revision-hash`, which the loader
    // took from the live pods when the template is theirs) are not replaced.
    let revision = template.labels.get(LABEL_CONTROLLER_REVISION_HASH);
    let (updated, old): (Vec<_>, Vec<_>) = old.into_iter().partition(|(_, _, pod)| {
        revision.is_some() && pod.labels.get(LABEL_CONTROLLER_REVISION_HASH) == revision
    });
    let (partition, max_unavailable, parallel) = match spec.strategy {
        Strategy::OrderedRollingUpdate {
            partition,
            max_unavailable,
            parallel,
        } => (
            partition.max(0) as usize,
            stateful_set_max_unavailable(max_unavailable, workload.desired as i32).max(1) as usize,
            parallel,
        ),
        _ => (usize::MAX, 1, false),
    };
    let zone = |snapshot: &Snapshot, node: &str| {
        snapshot
            .node_index
            .get(node)
            .map_or(crate::analysis::NO_ZONE, |&n| {
                zone_of(&snapshot.nodes[n].node)
            })
            .into()
    };
    // (name, node, available) of the replaced pods; old pods still running by name.
    let mut new: Vec<(String, String, bool)> = updated
        .iter()
        .filter_map(|(_, _, p)| p.node_name.clone().map(|n| (p.name.clone(), n, true)))
        .collect();
    let mut running_old: BTreeMap<String, String> = old
        .iter()
        .filter_map(|(_, _, p)| p.node_name.clone().map(|n| (p.name.clone(), n)))
        .collect();
    let mut steps: Vec<Step> = Vec::new();
    let mut time = 0u64;
    let record = |steps: &mut Vec<Step>,
                  time: u64,
                  actions: Vec<String>,
                  snapshot: &Snapshot,
                  new: &[(String, String, bool)],
                  running_old: &BTreeMap<String, String>,
                  terminating: usize,
                  pending: Vec<(String, String)>| {
        let mut new_counts = RevisionCounts {
            replicas: new.len() + pending.len(),
            running: new.len(),
            available: new.iter().filter(|(_, _, a)| *a).count(),
            pending: pending.len(),
            ..RevisionCounts::default()
        };
        for (_, node, _) in new {
            *new_counts.zones.entry(zone(snapshot, node)).or_insert(0) += 1;
        }
        let mut old_counts = RevisionCounts {
            replicas: running_old.len(),
            running: running_old.len(),
            available: running_old.len(),
            terminating,
            ..RevisionCounts::default()
        };
        for node in running_old.values() {
            *old_counts.zones.entry(zone(snapshot, node)).or_insert(0) += 1;
        }
        let available = new_counts.available + old_counts.available;
        steps.push(Step {
            step: steps.len(),
            time,
            actions,
            new: new_counts,
            old: old_counts,
            available,
            pending,
        });
    };
    record(
        &mut steps,
        0,
        Vec::new(),
        &snapshot,
        &new,
        &running_old,
        0,
        Vec::new(),
    );
    let mut reason = None;
    if spec.strategy == Strategy::OnDelete {
        reason = Some(String::from(
            "updateStrategy OnDelete: the StatefulSet controller replaces a pod only when it is deleted",
        ));
    }
    // The pods to update, highest ordinal first; with every pod available, the controller
    // deletes `maxUnavailable` of them at once (`updateStatefulSetAfterInvariantEstablished`:
    // maxUnavailable minus the unavailable pods, from the highest ordinal down to the partition)
    // and deletes the next ones only when they are all available again.
    let targets: Vec<&(usize, PodId, Pod)> = old
        .iter()
        .filter(|(o, _, _)| *o >= partition && reason.is_none())
        .collect();
    let replacement_for = |pod: &Pod| {
        let mut replacement = template.clone();
        replacement.name = pod.name.clone();
        replacement.unbind();
        for key in STATEFUL_IDENTITY_LABELS {
            if let Some(value) = pod.labels.get(key) {
                replacement.labels.insert(key.into(), value.clone());
            }
        }
        replacement
    };
    'batches: for batch in targets.chunks(max_unavailable) {
        let mut actions = Vec::new();
        for (_, id, pod) in batch {
            snapshot.set_terminating(*id);
            running_old.remove(&pod.name);
            actions.push(format!("delete {}", pod.name));
        }
        record(
            &mut steps,
            time,
            actions,
            &snapshot,
            &new,
            &running_old,
            batch.len(),
            Vec::new(),
        );
        time += spec.termination_grace_seconds;
        for (_, id, _) in batch {
            snapshot.remove(*id);
        }
        // Recreated in ordinal order: OrderedReady (`processReplica` in monotonic mode) creates
        // the lowest missing ordinal and waits for it to be Running, Ready and available before
        // the next; Parallel creates them all at once.
        let ascending: Vec<&Pod> = batch.iter().rev().map(|(_, _, pod)| pod).collect();
        if parallel {
            let mut actions = Vec::new();
            let mut pending = Vec::new();
            for pod in &ascending {
                let decision =
                    scheduler::schedule_and_bind(&mut snapshot, &replacement_for(pod), &options);
                match decision.node {
                    Some(node) => {
                        actions.push(format!(
                            "{} is gone; create {} (new revision); schedule it on {node}",
                            pod.name, pod.name
                        ));
                        new.push((pod.name.clone(), node, false));
                    }
                    None => {
                        actions.push(format!(
                            "{} is gone; create {} (new revision)",
                            pod.name, pod.name
                        ));
                        pending.push((pod.name.clone(), decision.message.unwrap_or_default()));
                    }
                }
            }
            record(
                &mut steps,
                time,
                actions,
                &snapshot,
                &new,
                &running_old,
                0,
                pending.clone(),
            );
            if let Some((_, message)) = pending.into_iter().next() {
                reason = Some(message);
                break 'batches;
            }
            time += assumptions.ready_after_seconds + spec.min_ready_seconds;
            for entry in new.iter_mut() {
                entry.2 = true;
            }
            record(
                &mut steps,
                time,
                ascending
                    .iter()
                    .map(|pod| format!("{} is Ready and available", pod.name))
                    .collect(),
                &snapshot,
                &new,
                &running_old,
                0,
                Vec::new(),
            );
            continue;
        }
        for pod in ascending {
            let decision =
                scheduler::schedule_and_bind(&mut snapshot, &replacement_for(pod), &options);
            let Some(node) = decision.node.clone() else {
                let message = decision.message.unwrap_or_default();
                record(
                    &mut steps,
                    time,
                    alloc::vec![format!(
                        "{} is gone; create {} (new revision)",
                        pod.name, pod.name
                    )],
                    &snapshot,
                    &new,
                    &running_old,
                    0,
                    alloc::vec![(pod.name.clone(), message.clone())],
                );
                reason = Some(message);
                break 'batches;
            };
            new.push((pod.name.clone(), node.clone(), false));
            record(
                &mut steps,
                time,
                alloc::vec![format!(
                    "{} is gone; create {} (new revision); schedule it on {node}",
                    pod.name, pod.name
                )],
                &snapshot,
                &new,
                &running_old,
                0,
                Vec::new(),
            );
            time += assumptions.ready_after_seconds + spec.min_ready_seconds;
            if let Some(last) = new.last_mut() {
                last.2 = true;
            }
            record(
                &mut steps,
                time,
                alloc::vec![format!("{} is Ready and available", pod.name)],
                &snapshot,
                &new,
                &running_old,
                0,
                Vec::new(),
            );
        }
    }
    let completed = reason.is_none();
    let min_available = steps.iter().map(|s| s.available).min().unwrap_or(0);
    RolloutOutcome {
        strategy: spec.strategy,
        resolved: spec.strategy.resolve(workload.desired as i32),
        completed,
        stalled_at_step: (!completed).then(|| steps.len().saturating_sub(1)),
        reason,
        min_available,
        progress_deadline_exceeded_at: None,
        spread: spread_checks(&snapshot, template),
        steps,
    }
}
