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

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{node, pod, snapshot};
    use crate::framework::{Code, PodInfo};
    use crate::model::Container;

    fn requesting(cpu: i64, gpu: i64) -> PodInfo {
        let mut p = pod("p", &[], None);
        let mut container = Container {
            name: "c".into(),
            ..Container::default()
        };
        container.requests.insert("cpu".into(), cpu);
        container.requests.insert("nvidia.com/gpu".into(), gpu);
        p.containers.push(container);
        PodInfo::new(p)
    }

    /// All insufficient resources are reported; a request above allocatable is unresolvable.
    #[test]
    fn fit_reports_every_insufficient_resource() {
        let snap = snapshot(vec![node("a", &[])], vec![]);
        let status = super::fit_filter(
            &super::FitArgs::default(),
            &requesting(5000, 1),
            &snap.nodes[0],
        );
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(
            status.reason_strings(),
            vec!["Insufficient cpu", "Insufficient nvidia.com/gpu"]
        );
        // An exact fit passes (the test is strict `>`).
        let status = super::fit_filter(
            &super::FitArgs::default(),
            &requesting(4000, 0),
            &snap.nodes[0],
        );
        assert!(status.is_success());
    }

    /// The worked example of LeastAllocated: (4000-1500)*100/4000 = 62 per resource.
    #[test]
    fn least_allocated_worked_example() {
        let mut existing = pod("e", &[], Some("a"));
        let mut container = Container {
            name: "c".into(),
            ..Container::default()
        };
        container.requests.insert("cpu".into(), 1000);
        container.requests.insert("memory".into(), 2 << 30);
        existing.containers.push(container.clone());
        let snap = snapshot(vec![node("a", &[])], vec![existing]);
        let mut incoming = pod("p", &[], None);
        container.requests.insert("cpu".into(), 500);
        container.requests.insert("memory".into(), 1 << 30);
        incoming.containers.push(container);
        let incoming = PodInfo::new(incoming);
        let args = super::FitArgs::default();
        let requests = super::fit_pre_score(&args, &incoming);
        assert_eq!(super::fit_score(&args, &requests, &snap.nodes[0]), 62);
        let balanced = super::BalancedAllocationArgs::default();
        let requests = super::balanced_pre_score(&balanced, &incoming).unwrap();
        assert_eq!(
            super::balanced_score(
                crate::KubeVersion::V1_35,
                &balanced,
                &requests,
                &snap.nodes[0]
            ),
            100
        );
    }
}
