//! What the kubelet reports of an in-place resize in a pod's status: each container's actuated and
//! allocated requests, the pod-level ones and whether the resize is infeasible. The scheduler
//! counts a bound pod by them (`PodInfo.CalculateResource`, pkg/scheduler/framework/types.go).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as api;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use spreadlab_engine::model::{self, ResourceStatus};

use super::nonnegative_resource_list;
use crate::error::ConvertError;
use crate::slim::SlimStatus;

/// What the kubelet reports under `path` (a container status, or the pod's `status`): whether
/// `resources` is set, `resources.requests` (actuated) and `allocatedResources`.
fn resource_status(
    resources: Option<&api::ResourceRequirements>,
    allocated: Option<&BTreeMap<String, Quantity>>,
    path: &str,
) -> Result<ResourceStatus, ConvertError> {
    let parsed = |list: Option<&BTreeMap<String, Quantity>>, field: &str| {
        list.map(|list| nonnegative_resource_list(Some(list), &format!("{path}.{field}")))
            .transpose()
    };
    Ok(ResourceStatus {
        resources_set: resources.is_some(),
        actuated: parsed(
            resources.and_then(|r| r.requests.as_ref()),
            "resources.requests",
        )?,
        allocated: parsed(allocated, "allocatedResources")?,
    })
}

/// Gives each container of `converted` the status entry of its name (`containerStatuses` first,
/// then `initContainerStatuses`, as `findContainerStatus` looks), and the pod its pod-level
/// resources and `PodResizePending` reason.
pub(super) fn add_resize_status(
    converted: &mut model::Pod,
    status: Option<&SlimStatus>,
) -> Result<(), ConvertError> {
    let Some(status) = status else {
        return Ok(());
    };
    let lists = [
        (
            "status.containerStatuses",
            status.container_statuses.as_ref(),
        ),
        (
            "status.initContainerStatuses",
            status.init_container_statuses.as_ref(),
        ),
    ];
    for container in converted
        .containers
        .iter_mut()
        .chain(converted.init_containers.iter_mut())
    {
        let found = lists.iter().find_map(|(path, list)| {
            let (index, entry) = list
                .iter()
                .copied()
                .flatten()
                .enumerate()
                .find(|(_, s)| s.name == container.name)?;
            Some((format!("{path}[{index}]"), entry))
        });
        if let Some((path, entry)) = found {
            container.status = Some(resource_status(
                entry.resources.as_ref(),
                entry.allocated_resources.as_ref(),
                &path,
            )?);
        }
    }
    converted.status_resources = resource_status(
        status.resources.as_ref(),
        status.allocated_resources.as_ref(),
        "status",
    )?;
    // `IsPodResizeInfeasible`: the first PodResizePending condition decides.
    converted.resize_infeasible = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodResizePending")
        .is_some_and(|c| c.reason.as_deref() == Some("Infeasible"));
    Ok(())
}
