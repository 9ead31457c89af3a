//! RequestedToCapacityRatio scoring (`requested_to_capacity_ratio.go`, `helper/shape_score.go`).

use super::resource_allocation::ResourceSpec;

pub use crate::config::UtilizationShapePoint;

/// `helper.BuildBrokenLinearFunction` evaluated at `p`.
fn broken_linear(shape: &[UtilizationShapePoint], p: i64) -> i64 {
    for (index, point) in shape.iter().enumerate() {
        if p <= point.utilization {
            if index == 0 {
                return shape[0].score;
            }
            let previous = shape[index - 1];
            return previous.score
                + (point.score - previous.score) * (p - previous.utilization)
                    / (point.utilization - previous.utilization);
        }
    }
    shape.last().map_or(0, |p| p.score)
}

/// `buildRequestedToCapacityRatioScorerFunction`.
pub fn requested_to_capacity_ratio_scorer(
    shape: &[UtilizationShapePoint],
    resources: &[ResourceSpec],
    requested: &[i64],
    allocatable: &[i64],
) -> i64 {
    const MAX_UTILIZATION: i64 = 100;
    let (mut node_score, mut weight_sum) = (0i64, 0i64);
    for index in 0..requested.len() {
        if allocatable[index] == 0 {
            continue;
        }
        let resource_score = if requested[index] > allocatable[index] {
            broken_linear(shape, MAX_UTILIZATION)
        } else {
            broken_linear(
                shape,
                requested[index] * MAX_UTILIZATION / allocatable[index],
            )
        };
        if resource_score > 0 {
            node_score += resource_score * resources[index].weight;
            weight_sum += resources[index].weight;
        }
    }
    if weight_sum == 0 {
        0
    } else {
        libm::round(node_score as f64 / weight_sum as f64) as i64
    }
}
