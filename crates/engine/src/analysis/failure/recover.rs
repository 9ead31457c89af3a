//! Recovery: the failed domain comes back and what is still Pending is scheduled again (the
//! scheduler does not rebalance running pods).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::PodInfo;
use crate::model::Pod;
use crate::scheduler::{self, Options};

use super::base::Base;
use super::*;

/// What a failure left, for its recovery.
pub(super) struct AfterFailure {
    /// Arena ids (in the settled snapshot) of the pods that were on the failed nodes.
    pub(super) gone: Vec<usize>,
    /// The replicas placed after the failure, bound, in binding order.
    pub(super) placed: Vec<Pod>,
    /// Their zones (`namespace/name` to zone).
    pub(super) placed_zones: BTreeMap<String, String>,
}

/// Brings the failed nodes back as they were before (empty) and retries the Pending replacements.
pub(super) fn recover(
    base: &Base,
    after: AfterFailure,
    pending: Vec<(usize, Pod, String)>,
    mut running: Vec<Vec<String>>,
    options: &Options,
) -> Recovery {
    let mut placed_zones = after.placed_zones;
    if pending.is_empty() {
        // Nothing to retry, and the scheduler does not move running pods back.
        return Recovery {
            placed: alloc::vec![Vec::new(); running.len()],
            zones: running
                .iter()
                .map(|keys| base.per_zone(keys, &placed_zones))
                .collect(),
            running: running.iter().map(Vec::len).collect(),
        };
    }
    // The settled cluster without the pods that were on the failed nodes (which are back, as
    // they were, empty), with the replicas placed since.
    let mut snapshot = crate::framework::Snapshot::clone(&base.snapshot);
    for &id in &after.gone {
        snapshot.remove(id);
    }
    for pod in after.placed {
        let node = pod
            .node_name
            .as_deref()
            .and_then(|name| snapshot.node_index.get(name).copied());
        if let Some(node) = node {
            let version = snapshot.version;
            snapshot.bind(PodInfo::bound(pod, version), node);
        }
    }
    let pods: Vec<Pod> = pending.iter().map(|(_, p, _)| p.clone()).collect();
    let decisions = scheduler::simulate_on(&mut snapshot, &pods, options);
    let order = scheduler::queue_order(&pods);
    let mut placed: Vec<Vec<(String, String)>> = alloc::vec![Vec::new(); running.len()];
    for (decision, &index) in decisions.iter().zip(&order) {
        if let Some(node) = &decision.node {
            let (workload, pod, replaces) = &pending[index];
            running[*workload].push(pod.key());
            placed[*workload].push((replaces.clone(), node.clone()));
            if let Some(zone) = base.zone_of_node.get(node) {
                placed_zones.insert(pod.key(), zone.clone());
            }
        }
    }
    Recovery {
        placed,
        zones: running
            .iter()
            .map(|keys| base.per_zone(keys, &placed_zones))
            .collect(),
        running: running.iter().map(Vec::len).collect(),
    }
}
