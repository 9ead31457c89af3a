//! NodeResourcesFit and NodeResourcesBalancedAllocation.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/noderesources/` (`fit.go`,
//! `resource_allocation.go`, `least_allocated.go`, `most_allocated.go`,
//! `requested_to_capacity_ratio.go`, `balanced_allocation.go`), file for file.

mod balanced_allocation;
mod fit;
mod least_allocated;
mod most_allocated;
mod requested_to_capacity_ratio;
mod resource_allocation;

pub use balanced_allocation::{BalancedAllocationArgs, balanced_pre_score, balanced_score};
pub use fit::{
    FitArgs, InsufficientResource, ScoringStrategy, fit_filter, fit_pre_score, fit_score,
    fits_request,
};
pub use requested_to_capacity_ratio::UtilizationShapePoint;
pub use resource_allocation::{ResourceSpec, pod_resource_request_list};
