//! NodeResourcesFit (`fit.go`): the Filter compares the pod's requests with free allocatable; the
//! Score applies the configured strategy (LeastAllocated by default).

pub use crate::config::{FitArgs, ScoringStrategy};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::least_allocated::least_resource_scorer;
use super::most_allocated::most_resource_scorer;
use super::requested_to_capacity_ratio::requested_to_capacity_ratio_scorer;
use super::resource_allocation::{pod_resource_request_list, score_with};
use crate::framework::{Code, NodeInfo, PodInfo, Status};
use crate::model::resources::{CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_extended_resource_name};

/// One resource the node lacks (`InsufficientResource`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InsufficientResource {
    /// Resource name.
    pub resource: String,
    /// The reason string (`Insufficient cpu`, `Too many pods`).
    pub reason: String,
    /// Requested by the pod.
    pub requested: i64,
    /// Already used on the node.
    pub used: i64,
    /// Node allocatable.
    pub capacity: i64,
    /// The request exceeds allocatable: it would not fit an empty node.
    pub unresolvable: bool,
}

/// `fitsRequest`: every resource the node lacks, in upstream order (pods, cpu, memory,
/// ephemeral-storage, then scalar resources; upstream walks scalars in Go map order, spreadlab in
/// name order).
pub fn fits_request(args: &FitArgs, pod: &PodInfo, node: &NodeInfo) -> Vec<InsufficientResource> {
    let mut insufficient = Vec::new();
    let allowed_pods = node.allocatable.allowed_pod_number;
    let n_pods = node.pods.len() as i64;
    if n_pods + 1 > allowed_pods {
        insufficient.push(InsufficientResource {
            resource: String::from(PODS),
            reason: String::from("Too many pods"),
            requested: 1,
            used: n_pods,
            capacity: allowed_pods,
            unresolvable: false,
        });
    }
    let request = &pod.requests;
    if request.is_zero_request() {
        return insufficient;
    }
    let mut check = |name: &str, requested: i64, allocatable: i64, used: i64| {
        if requested > 0 && requested > allocatable - used {
            insufficient.push(InsufficientResource {
                resource: String::from(name),
                reason: format!("Insufficient {name}"),
                requested,
                used,
                capacity: allocatable,
                unresolvable: requested > allocatable,
            });
        }
    };
    check(
        CPU,
        request.milli_cpu,
        node.allocatable.milli_cpu,
        node.requested.milli_cpu,
    );
    check(
        MEMORY,
        request.memory,
        node.allocatable.memory,
        node.requested.memory,
    );
    check(
        EPHEMERAL_STORAGE,
        request.ephemeral_storage,
        node.allocatable.ephemeral_storage,
        node.requested.ephemeral_storage,
    );
    for (name, quantity) in &request.scalar {
        if *quantity == 0 {
            continue;
        }
        if is_extended_resource_name(name) {
            let prefix = name.split('/').next().unwrap_or("");
            if args.ignored_resources.contains(name)
                || args.ignored_resource_groups.contains(prefix)
            {
                continue;
            }
        }
        let allocatable = node.allocatable.scalar.get(name).copied().unwrap_or(0);
        let used = node.requested.scalar.get(name).copied().unwrap_or(0);
        check(name, *quantity, allocatable, used);
    }
    insufficient
}

/// Filter: all reasons kept; `UnschedulableAndUnresolvable` when any request exceeds allocatable.
pub fn fit_filter(args: &FitArgs, pod: &PodInfo, node: &NodeInfo) -> Status {
    let insufficient = fits_request(args, pod, node);
    if insufficient.is_empty() {
        return Status::success();
    }
    let code = if insufficient.iter().any(|r| r.unresolvable) {
        Code::UnschedulableAndUnresolvable
    } else {
        Code::Unschedulable
    };
    Status::with_reasons(code, insufficient.into_iter().map(|r| r.reason).collect())
}

/// PreScore: the pod's non-zero request per scored resource (never skips).
pub fn fit_pre_score(args: &FitArgs, pod: &PodInfo) -> Vec<i64> {
    pod_resource_request_list(pod, &args.resources, false)
}

/// Score with the configured strategy over the node's non-zero requests (no NormalizeScore).
pub fn fit_score(args: &FitArgs, pod_requests: &[i64], node: &NodeInfo) -> i64 {
    let resources = &args.resources;
    match &args.strategy {
        ScoringStrategy::LeastAllocated => {
            score_with(node, resources, pod_requests, false, |r, a| {
                least_resource_scorer(resources, r, a)
            })
        }
        ScoringStrategy::MostAllocated => {
            score_with(node, resources, pod_requests, false, |r, a| {
                most_resource_scorer(resources, r, a)
            })
        }
        ScoringStrategy::RequestedToCapacityRatio(shape) => {
            score_with(node, resources, pod_requests, false, |r, a| {
                requested_to_capacity_ratio_scorer(shape, resources, r, a)
            })
        }
    }
}
