//! LeastAllocated scoring (`least_allocated.go`): favours nodes with more free capacity.

use super::resource_allocation::ResourceSpec;
use crate::plugins::helper::MAX_NODE_SCORE;

/// `leastRequestedScore`.
fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    ((capacity - requested) * MAX_NODE_SCORE) / capacity
}

/// `leastResourceScorer`: the weighted mean of per-resource scores, integer division.
pub fn least_resource_scorer(
    resources: &[ResourceSpec],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    let (mut node_score, mut weight_sum) = (0i64, 0i64);
    for index in 0..requested.len() {
        if allocatable[index] == 0 {
            continue;
        }
        let weight = resources[index].weight;
        node_score += least_requested_score(requested[index], allocatable[index]) * weight;
        weight_sum += weight;
    }
    if weight_sum == 0 {
        0
    } else {
        node_score / weight_sum
    }
}
