//! The requests of a pod already on a node while an in-place resize is under way, as the scheduler
//! cache counts them (`PodInfo.CalculateResource`, pkg/scheduler/framework/types.go, calling
//! `resource.PodRequests` with `UseStatusResources`, k8s.io/component-helpers/resource/helpers.go):
//! the largest of what the spec asks, what the kubelet allocated and what it actuated. The rule
//! changed twice: pod-level status counts from v1.36 (InPlacePodLevelResourcesVerticalScaling,
//! beta and on; alpha and off in v1.35), and v1.37 takes the largest of the three totals instead of
//! summing each container's largest.

use alloc::string::String;

use crate::model::resources::{CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, MEMORY};
use crate::model::{Container, Pod, Resource, ResourceList, ResourceStatus};
use crate::version::KubeVersion;

/// `max(a, b...)` (helpers.go): every name of any list, at its largest.
fn max_of(lists: &[Option<&ResourceList>]) -> ResourceList {
    let mut result = ResourceList::new();
    for list in lists.iter().flatten() {
        for (name, amount) in *list {
            let entry = result.entry(name.clone()).or_insert(*amount);
            *entry = (*entry).max(*amount);
        }
    }
    result
}

/// `addResourceList`.
fn add_into(into: &mut ResourceList, list: &ResourceList) {
    for (name, amount) in list {
        let entry = into.entry(name.clone()).or_insert(0);
        *entry = entry.wrapping_add(*amount);
    }
}

/// `maxResourceList`.
fn max_into(into: &mut ResourceList, list: &ResourceList) {
    for (name, amount) in list {
        let entry = into.entry(name.clone()).or_insert(*amount);
        *entry = (*entry).max(*amount);
    }
}

/// `IsSupportedPodLevelResource`: cpu, memory and hugepages.
fn supported_pod_level(name: &str) -> bool {
    name == CPU || name == MEMORY || name.starts_with("hugepages-")
}

/// `IsPodLevelRequestsSet`.
fn pod_level_requests_set(pod: &Pod) -> bool {
    pod.pod_requests
        .keys()
        .any(|name| supported_pod_level(name))
}

/// Which of a container's lists one aggregate reads.
#[derive(Clone, Copy)]
enum Pick {
    /// Before v1.37: per container, the largest of spec, actuated and allocated.
    Legacy,
    /// v1.37 `containerSpecRequests`.
    Spec,
    /// v1.37 `containerAllocatedRequests`.
    Allocated,
    /// v1.37 `containerActuatedRequests`.
    Actuated,
}

/// A container's requests for one aggregate (`determineContainerReqs`/`determineEffectiveRequests`
/// before v1.37, the `container*Requests` functions in v1.37).
fn container_list(pick: Pick, container: &Container, init: bool, infeasible: bool) -> ResourceList {
    let spec = &container.requests;
    let status = container.status.as_ref();
    match pick {
        // Before v1.37 a plain init container counts its spec, as does a container whose status
        // has no `resources`.
        Pick::Legacy => match status {
            Some(status) if status.resources_set && (!init || container.restart_policy_always) => {
                let reported = [status.actuated.as_ref(), status.allocated.as_ref()];
                if infeasible {
                    max_of(&reported)
                } else {
                    max_of(&[Some(spec), reported[0], reported[1]])
                }
            }
            _ => spec.clone(),
        },
        Pick::Spec => spec.clone(),
        Pick::Allocated => match status.and_then(|s| s.allocated.as_ref()) {
            Some(allocated) => allocated.clone(),
            None if infeasible => ResourceList::new(),
            None => spec.clone(),
        },
        Pick::Actuated => {
            let actuated = status
                .filter(|s| s.resources_set)
                .and_then(|s| s.actuated.as_ref());
            match actuated.or_else(|| status.and_then(|s| s.allocated.as_ref())) {
                Some(list) => list.clone(),
                None if infeasible => ResourceList::new(),
                None => spec.clone(),
            }
        }
    }
}

/// `applyNonMissing`: the defaults for names the list lacks.
fn with_defaults(mut list: ResourceList, defaults: &ResourceList) -> ResourceList {
    for (name, amount) in defaults {
        list.entry(name.clone()).or_insert(*amount);
    }
    list
}

/// The container aggregate with the sidecar formula (`AggregateContainerRequests` before v1.37,
/// `aggregateContainerResourcesByFn` in v1.37).
fn aggregate(pod: &Pod, pick: Pick, defaults: &ResourceList) -> ResourceList {
    let infeasible = pod.resize_infeasible;
    let mut result = ResourceList::new();
    for container in &pod.containers {
        let list = container_list(pick, container, false, infeasible);
        add_into(&mut result, &with_defaults(list, defaults));
    }
    let mut restartable = ResourceList::new();
    let mut init_peak = ResourceList::new();
    for container in &pod.init_containers {
        let list = with_defaults(container_list(pick, container, true, infeasible), defaults);
        if container.restart_policy_always {
            add_into(&mut result, &list);
            add_into(&mut restartable, &list);
            max_into(&mut init_peak, &restartable);
        } else {
            let mut usage = list;
            add_into(&mut usage, &restartable);
            max_into(&mut init_peak, &usage);
        }
    }
    max_into(&mut result, &init_peak);
    result
}

/// `resource.PodRequests` with `UseStatusResources` and the release's pod-level gate, overhead
/// included; `defaults` is `NonMissingContainerRequests`.
fn status_requests(pod: &Pod, version: KubeVersion, defaults: &ResourceList) -> ResourceList {
    let infeasible = pod.resize_infeasible;
    let pod_level_gate = version.since(36);
    let pod_status: &ResourceStatus = &pod.status_resources;
    let mut requests = if version.since(37) {
        let spec = aggregate(pod, Pick::Spec, defaults);
        // Pod-level status totals, when the kubelet reports both, stand for the containers'.
        let (allocated, actuated) = match (&pod_status.allocated, &pod_status.actuated) {
            (Some(allocated), Some(actuated)) if pod_level_gate && pod_status.resources_set => {
                (allocated.clone(), actuated.clone())
            }
            _ => (
                aggregate(pod, Pick::Allocated, defaults),
                aggregate(pod, Pick::Actuated, defaults),
            ),
        };
        if infeasible {
            max_of(&[Some(&actuated), Some(&allocated)])
        } else {
            max_of(&[Some(&spec), Some(&actuated), Some(&allocated)])
        }
    } else {
        aggregate(pod, Pick::Legacy, defaults)
    };
    if pod_level_requests_set(pod) {
        let reported = pod_level_gate && pod_status.resources_set;
        let effective = reported.then(|| {
            let statuses = [pod_status.actuated.as_ref(), pod_status.allocated.as_ref()];
            if infeasible {
                max_of(&statuses)
            } else {
                max_of(&[Some(&pod.pod_requests), statuses[0], statuses[1]])
            }
        });
        if version.since(37) {
            // v1.37 `applyPodLevelResources` writes every supported name of the effective list.
            for (name, amount) in effective.as_ref().unwrap_or(&pod.pod_requests) {
                if supported_pod_level(name) {
                    requests.insert(name.clone(), *amount);
                }
            }
        } else {
            // Before: the names of the spec, each at its effective value (0 when absent).
            for (name, amount) in &pod.pod_requests {
                if supported_pod_level(name) {
                    let value = match &effective {
                        Some(effective) => effective.get(name).copied().unwrap_or(0),
                        None => *amount,
                    };
                    requests.insert(name.clone(), value);
                }
            }
        }
    }
    add_into(&mut requests, &pod.overhead);
    requests
}

/// What a bound pod adds to its node (`PodInfo.CalculateResource` of the release): its requests
/// and the non-zero cpu and memory scoring counts. Only for pods that
/// [`Pod::has_resource_status`]: without a status every release counts the spec.
pub fn bound_requests(pod: &Pod, version: KubeVersion) -> (Resource, i64, i64) {
    let requests = status_requests(pod, version, &ResourceList::new());
    // `getNonMissingContainerRequests`: without pod-level requests both defaults; with them, the
    // defaults of the names the total lacks.
    let mut defaults = ResourceList::new();
    let pod_level = pod_level_requests_set(pod);
    for (name, amount) in [
        (CPU, DEFAULT_MILLI_CPU_REQUEST),
        (MEMORY, DEFAULT_MEMORY_REQUEST),
    ] {
        if !pod_level || !requests.contains_key(name) {
            defaults.insert(String::from(name), amount);
        }
    }
    let non_zero = if defaults.is_empty() {
        requests.clone()
    } else {
        status_requests(pod, version, &defaults)
    };
    let get = |name: &str| non_zero.get(name).copied().unwrap_or(0);
    (Resource::from_list(&requests), get(CPU), get(MEMORY))
}
