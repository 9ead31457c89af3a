//! The scheduling queue as the simulation needs it: the order pods are tried in
//! (`PrioritySort`) and what `PriorityQueue.Add` puts in the nominator
//! (`pkg/scheduler/backend/queue/scheduling_queue.go`).

use alloc::vec::Vec;

use crate::framework::{PodInfo, Snapshot};
use crate::model::Pod;
use crate::version::KubeVersion;

/// The scheduling queue order (`PrioritySort.Less`, framework/plugins/queuesort/priority_sort.go):
/// higher priority first, then the earlier queue timestamp. A pod already waiting in the
/// snapshot ([`Pod::waiting`]) entered the queue before any pod the simulation creates, and
/// waiting pods entered it in creation order (`metadata.creationTimestamp`, then input order:
/// the real queue re-stamps a pod after each failed attempt, a history no snapshot records);
/// created pods in input order.
pub fn queue_order(pods: &[Pod]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pods.len()).collect();
    let arrival = |pod: &Pod| (!pod.waiting, pod.created.is_none(), pod.created);
    order.sort_by(|&a, &b| {
        pods[b]
            .priority
            .cmp(&pods[a].priority)
            .then_with(|| arrival(&pods[a]).cmp(&arrival(&pods[b])))
            .then(a.cmp(&b))
    });
    order
}

/// `PriorityQueue.Add` for the pods already waiting ([`Pod::waiting`]): each one that carries
/// `status.nominatedNodeName` (of a node in the snapshot) and is not gated (up to v1.36) is in
/// the nominator before the first cycle, so earlier cycles of pods of no higher priority leave
/// it room there (`RunFilterPluginsWithNominatedPods`). [`simulate`] and [`simulate_on`] call it.
pub fn enqueue_waiting(snapshot: &mut Snapshot, pods: &[Pod], version: KubeVersion) {
    for index in queue_order(pods) {
        let pod = &pods[index];
        if let Some(node) = queued_nomination(snapshot, pod, version).filter(|_| pod.waiting) {
            snapshot.nominate(PodInfo::new(pod.clone()), node);
        }
    }
}

/// Where `PriorityQueue.Add` puts `pod` in the nominator: its `status.nominatedNodeName`, when
/// the node is in the snapshot. Up to v1.36 only a pod that is not gated (the nominator was
/// updated on the way to the active queue, which a gated pod never reaches); v1.37's `Add`
/// records the nomination unconditionally, "even if gated" (backend/queue/scheduling_queue.go).
pub(super) fn queued_nomination(
    snapshot: &Snapshot,
    pod: &Pod,
    version: KubeVersion,
) -> Option<usize> {
    if pod.scheduling_gated && !version.since(37) {
        return None;
    }
    let name = pod.nominated_node_name.as_ref()?;
    snapshot.node_index.get(name).copied()
}
