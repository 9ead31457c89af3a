//! Recovery: the failed domain comes back and what is still Pending is scheduled again (the
//! scheduler does not rebalance running pods).

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::analysis::per_zone;
use crate::model::Cluster;
use crate::scheduler::{self, Options};

use super::*;

/// Brings the failed nodes back as they were before (empty) and retries the Pending replacements.
pub(super) fn recover(
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
            after.pods.push(Arc::new(pod));
        }
    }
    Recovery {
        placed,
        zones: running.iter().map(|keys| per_zone(&after, keys)).collect(),
        running: running.iter().map(Vec::len).collect(),
    }
}
