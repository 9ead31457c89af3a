//! NodeResourcesBalancedAllocation (`balanced_allocation.go`): up to v1.35 `(1 - std) * 100` of
//! the fractions with the pod; from v1.36 the change the pod makes to that balance.

pub use crate::config::BalancedAllocationArgs;
use alloc::vec::Vec;

use super::resource_allocation::{pod_resource_request_list, score_with};
use crate::framework::{NodeInfo, PodInfo};
use crate::plugins::helper::MAX_NODE_SCORE;
use crate::version::KubeVersion;

/// PreScore: the pod's real requests; `None` (Skip) for a best-effort pod (all zero).
pub fn balanced_pre_score(args: &BalancedAllocationArgs, pod: &PodInfo) -> Option<Vec<i64>> {
    let requests = pod_resource_request_list(pod, &args.resources, true);
    if requests.iter().all(|r| *r == 0) {
        None
    } else {
        Some(requests)
    }
}

/// `balancedResourceScorer` up to v1.35, `balancedResourceScore` from v1.36: one minus the
/// standard deviation of the requested fractions, times 100, in the same float64 order as upstream.
fn balanced_resource_scorer(requested: &[i64], allocatable: &[i64]) -> i64 {
    // Without allocating: the fractions are recomputed for the second pass (same values, same order).
    let fractions = || {
        requested
            .iter()
            .zip(allocatable)
            .filter(|(_, a)| **a != 0)
            .map(|(r, a)| {
                let fraction = *r as f64 / *a as f64;
                if fraction > 1.0 { 1.0 } else { fraction }
            })
    };
    let (mut count, mut total_fraction, mut first, mut second) = (0usize, 0.0f64, 0.0f64, 0.0f64);
    for fraction in fractions() {
        match count {
            0 => first = fraction,
            1 => second = fraction,
            _ => {}
        }
        total_fraction += fraction;
        count += 1;
    }
    let mut std = 0.0f64;
    if count == 2 {
        std = libm::fabs((first - second) / 2.0);
    } else if count > 2 {
        let mean = total_fraction / count as f64;
        let mut sum = 0.0f64;
        for fraction in fractions() {
            sum += (fraction - mean) * (fraction - mean);
        }
        std = libm::sqrt(sum / count as f64);
    }
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// v1.36 `balancedResourceScorer` (kubernetes v1.36.3 `balanced_allocation.go`): the balance with
/// the pod against the balance without it, brought back to [50, 100] (Go's truncating division):
/// `50 + (50 + with - without) / 2`.
fn balanced_change_scorer(requested: &[i64], allocated: &[i64], allocatable: &[i64]) -> i64 {
    let with_pod = balanced_resource_scorer(requested, allocatable);
    let without_pod = balanced_resource_scorer(allocated, allocatable);
    MAX_NODE_SCORE / 2 + (MAX_NODE_SCORE / 2 + with_pod - without_pod) / 2
}

/// Score with the node's real Requested plus the pod's request (and, from v1.36, without it).
pub fn balanced_score(
    version: KubeVersion,
    args: &BalancedAllocationArgs,
    pod_requests: &[i64],
    node: &NodeInfo,
) -> i64 {
    if version.since(36) {
        // v1.36 `calculateNodeAllocatableRequest`: the node's requests without the pod are the
        // requests with it less the pod's, 0 where the resource is skipped (allocatable 0).
        return score_with(
            node,
            &args.resources,
            pod_requests,
            true,
            |requested, allocatable| {
                let allocated: Vec<i64> = requested
                    .iter()
                    .zip(pod_requests)
                    .zip(allocatable)
                    .map(|((r, p), a)| if *a == 0 { 0 } else { r - p })
                    .collect();
                balanced_change_scorer(requested, &allocated, allocatable)
            },
        );
    }
    score_with(
        node,
        &args.resources,
        pod_requests,
        true,
        balanced_resource_scorer,
    )
}
