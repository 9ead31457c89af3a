//! MostAllocated scoring (`most_allocated.go`): favours fuller nodes (bin packing).

use super::resource_allocation::ResourceSpec;
use crate::plugins::helper::MAX_NODE_SCORE;

/// `mostRequestedScore`: requests above capacity count as capacity.
fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    requested.min(capacity) * MAX_NODE_SCORE / capacity
}

/// `mostResourceScorer`.
pub fn most_resource_scorer(
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
        node_score += most_requested_score(requested[index], allocatable[index]) * weight;
        weight_sum += weight;
    }
    if weight_sum == 0 {
        0
    } else {
        node_score / weight_sum
    }
}
