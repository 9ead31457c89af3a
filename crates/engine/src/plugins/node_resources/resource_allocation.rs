//! Shared scorer plumbing (`resource_allocation.go`): per-resource (allocatable, requested) pairs.

pub use crate::config::ResourceSpec;
use alloc::vec::Vec;

use crate::framework::{NodeInfo, PodInfo};
use crate::model::resources::{CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource_name};

/// `calculatePodResourceRequestList`: the pod's request per configured resource, with the non-zero
/// cpu/memory defaults unless `use_requested`.
pub fn pod_resource_request_list(
    pod: &PodInfo,
    resources: &[ResourceSpec],
    use_requested: bool,
) -> Vec<i64> {
    if use_requested {
        return resources
            .iter()
            .map(|spec| pod.requests.get(&spec.name))
            .collect();
    }
    // NodeResourcesFit's scorer is built without pod-level resources in v1.35 (the oracle shows the
    // container aggregate with non-zero defaults, not `spec.resources.requests`, in its scores),
    // while BalancedAllocation and the Filter use them.
    let requests = crate::framework::pod_requests(&pod.pod, true, true);
    resources
        .iter()
        .map(|spec| requests.get(&spec.name))
        .collect()
}

/// `calculateResourceAllocatableRequest`: (allocatable, node requested + pod request) for one resource;
/// `(0, 0)` for a scalar resource the pod does not request or the node does not have.
pub fn allocatable_and_requested(
    node: &NodeInfo,
    name: &str,
    pod_request: i64,
    use_requested: bool,
) -> (i64, i64) {
    if pod_request == 0 && is_scalar_resource_name(name) {
        return (0, 0);
    }
    match name {
        CPU => {
            let used = if use_requested {
                node.requested.milli_cpu
            } else {
                node.non_zero_milli_cpu
            };
            (node.allocatable.milli_cpu, used + pod_request)
        }
        MEMORY => {
            let used = if use_requested {
                node.requested.memory
            } else {
                node.non_zero_memory
            };
            (node.allocatable.memory, used + pod_request)
        }
        EPHEMERAL_STORAGE => (
            node.allocatable.ephemeral_storage,
            node.requested.ephemeral_storage + pod_request,
        ),
        _ => match node.allocatable.scalar.get(name) {
            Some(allocatable) => (
                *allocatable,
                node.requested.scalar.get(name).copied().unwrap_or(0) + pod_request,
            ),
            None => (0, 0),
        },
    }
}

/// `resourceAllocationScorer.score`: builds the (requested, allocatable) vectors and applies `scorer`.
pub fn score_with(
    node: &NodeInfo,
    resources: &[ResourceSpec],
    pod_requests: &[i64],
    use_requested: bool,
    scorer: impl Fn(&[i64], &[i64]) -> i64,
) -> i64 {
    let mut requested = alloc::vec![0i64; resources.len()];
    let mut allocatable = alloc::vec![0i64; resources.len()];
    for (index, spec) in resources.iter().enumerate() {
        let (alloc, req) =
            allocatable_and_requested(node, &spec.name, pod_requests[index], use_requested);
        if alloc == 0 {
            continue;
        }
        allocatable[index] = alloc;
        requested[index] = req;
    }
    scorer(&requested, &allocatable)
}
