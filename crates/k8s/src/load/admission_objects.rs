//! The objects two default admission plugins read when a pod is created, applied once every
//! object is read (they may come after the workloads in the input):
//! - LimitRange (`plugin/pkg/admission/limitranger/admission.go`, `PodMutateLimitFunc`): each
//!   container and init container gets the namespace's default limits and requests it lacks;
//! - RuntimeClass (`plugin/pkg/admission/runtimeclass/admission.go`): a pod naming one gets its
//!   `overhead.podFixed` and its `scheduling` node selector and tolerations.
//!
//! They apply to the pods controllers create now and to hand-written bound pods; a pod the API
//! server stored (it has a `uid` or a `creationTimestamp`) went through them when it was created.

use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::api::node::v1 as node_api;
use serde_json::Value;
use spreadlab_engine::model::{Labels, Pod, ResourceList, Toleration};

use super::{Failure, Loader, Place, Target, object_name};
use crate::convert::{namespace_or, nonnegative_resource_list};
use crate::error::InputError;

/// A LimitRange's `Container` defaults, after `SetDefaults_LimitRangeItem`
/// (`pkg/apis/core/v1/defaults.go`: a default limit from `max`, a default request from the
/// default limit, then from `min`).
pub(crate) struct LimitRangeDefaults {
    namespace: String,
    name: String,
    limits: ResourceList,
    requests: ResourceList,
    /// The `Container` items' `min` and `max`, enforced after the defaults
    /// (`PodValidateLimitFunc`).
    bounds: Vec<Bound>,
}

/// One `min` or `max` of a `Container` item.
struct Bound {
    max: bool,
    resource: String,
    /// In the engine's units (milli-cpu, bytes, counts).
    amount: i64,
    /// As written in the LimitRange.
    written: String,
}

/// What a RuntimeClass gives the pods that name it.
pub(crate) struct RuntimeClassInfo {
    overhead: Option<ResourceList>,
    node_selector: Option<Labels>,
    tolerations: Vec<Toleration>,
}

/// A pod (a workload's template, or a hand-written bound pod) still to go through LimitRanger
/// and RuntimeClass.
pub(crate) struct Admit {
    pub(crate) target: Target,
    pub(crate) runtime_class_name: Option<String>,
    pub(crate) place: Place,
    /// The pod spec's path in the object (`spec`, `spec.template.spec`).
    pub(crate) path: &'static str,
}

impl Loader<'_> {
    pub(super) fn add_limit_range(&mut self, place: &Place, value: Value) -> Result<(), Failure> {
        let range: core_api::LimitRange = self.typed(place, value)?;
        let namespace = namespace_or(&range.metadata, &self.options.default_namespace);
        let name = object_name(place, &range.metadata)?;
        let mut defaults = LimitRangeDefaults {
            namespace,
            name,
            limits: ResourceList::new(),
            requests: ResourceList::new(),
            bounds: Vec::new(),
        };
        let items = range.spec.map(|spec| spec.limits).unwrap_or_default();
        for (index, item) in items.iter().enumerate() {
            if item.type_ != "Container" {
                continue;
            }
            let list = |list: Option<&std::collections::BTreeMap<_, _>>, field: &str| {
                nonnegative_resource_list(list, &format!("spec.limits[{index}].{field}"))
                    .map_err(|e| place.convert_error(e))
            };
            let max = list(item.max.as_ref(), "max")?;
            let min = list(item.min.as_ref(), "min")?;
            for (is_max, parsed, written) in [(true, &max, &item.max), (false, &min, &item.min)] {
                for (resource, amount) in parsed {
                    defaults.bounds.push(Bound {
                        max: is_max,
                        resource: resource.clone(),
                        amount: *amount,
                        written: written
                            .as_ref()
                            .and_then(|w| w.get(resource))
                            .map(|q| q.0.clone())
                            .unwrap_or_default(),
                    });
                }
            }
            let mut default = list(item.default.as_ref(), "default")?;
            let mut default_request = list(item.default_request.as_ref(), "defaultRequest")?;
            for (name, amount) in max {
                default.entry(name).or_insert(amount);
            }
            for (name, amount) in &default {
                default_request.entry(name.clone()).or_insert(*amount);
            }
            for (name, amount) in min {
                default_request.entry(name).or_insert(amount);
            }
            // `defaultContainerResourceRequirements`: a later item overwrites an earlier one.
            defaults.limits.extend(default);
            defaults.requests.extend(default_request);
        }
        self.limit_ranges.push(defaults);
        Ok(())
    }

    pub(super) fn add_runtime_class(&mut self, place: &Place, value: Value) -> Result<(), Failure> {
        let class: node_api::RuntimeClass = self.typed(place, value)?;
        let name = object_name(place, &class.metadata)?;
        let overhead = match class.overhead.as_ref().and_then(|o| o.pod_fixed.as_ref()) {
            Some(fixed) => Some(
                nonnegative_resource_list(Some(fixed), &"overhead.podFixed")
                    .map_err(|e| place.convert_error(e))?,
            ),
            None => None,
        };
        let scheduling = class.scheduling.unwrap_or_default();
        let mut tolerations = Vec::new();
        for (index, toleration) in scheduling.tolerations.iter().flatten().enumerate() {
            let path = format!("scheduling.tolerations[{index}]");
            tolerations.push(
                crate::convert::convert_toleration(toleration, &path)
                    .map_err(|e| place.convert_error(e))?,
            );
        }
        self.runtime_classes.insert(
            name,
            RuntimeClassInfo {
                overhead,
                node_selector: scheduling.node_selector,
                tolerations,
            },
        );
        Ok(())
    }

    /// LimitRanger, then RuntimeClass, on every pod waiting for them.
    pub(super) fn apply_admission_objects(&mut self) {
        let mut ranges = std::mem::take(&mut self.limit_ranges);
        // The plugin walks the namespace's LimitRanges in the informer's order; by name here.
        ranges.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let classes = std::mem::take(&mut self.runtime_classes);
        for admit in std::mem::take(&mut self.to_admit) {
            let pod = match admit.target {
                Target::Workload(index) => &mut self.loaded.workloads[index].template,
                Target::BoundPod(index) => {
                    std::sync::Arc::make_mut(&mut self.loaded.cluster.pods[index])
                }
            };
            let own: Vec<&LimitRangeDefaults> = ranges
                .iter()
                .filter(|r| r.namespace == pod.namespace)
                .collect();
            for range in &own {
                merge_container_defaults(pod, range);
            }
            let violations: Vec<String> = own
                .iter()
                .flat_map(|range| limit_violations(pod, range))
                .collect();
            if !violations.is_empty() {
                let message = if violations.len() == 1 {
                    violations[0].clone()
                } else {
                    format!("[{}]", violations.join(", "))
                };
                let path = format!("{}.containers", admit.path);
                let error: InputError = *admit.place.error(
                    Some(&path),
                    format!("the API server rejects this pod at creation (LimitRanger): {message}"),
                );
                self.loaded.errors.push(error);
            }
            let rejection = runtime_class(pod, admit.runtime_class_name.as_deref(), &classes);
            match rejection {
                Ok(None) => {}
                Ok(Some(warning)) => {
                    let path = format!("{}.runtimeClassName", admit.path);
                    self.loaded
                        .warnings
                        .push(admit.place.warning(Some(&path), warning));
                }
                Err((field, message)) => {
                    let path = format!("{}.{field}", admit.path);
                    let error: InputError = *admit.place.error(
                        Some(&path),
                        format!("the API server rejects this pod at creation: {message}"),
                    );
                    self.loaded.errors.push(error);
                }
            }
        }
    }
}

/// `mergeContainerResources`: defaults for what a container lacks.
fn merge_container_defaults(pod: &mut Pod, range: &LimitRangeDefaults) {
    for container in pod
        .containers
        .iter_mut()
        .chain(pod.init_containers.iter_mut())
    {
        for (name, amount) in &range.limits {
            container.limits.entry(name.clone()).or_insert(*amount);
        }
        for (name, amount) in &range.requests {
            container.requests.entry(name.clone()).or_insert(*amount);
        }
    }
}

/// `PodValidateLimitFunc`'s `Container` checks (`minConstraint`, `maxConstraint`), with their
/// messages; amounts are compared in the engine's units and written as the LimitRange writes
/// its own, a container's in canonical form.
fn limit_violations(pod: &Pod, range: &LimitRangeDefaults) -> Vec<String> {
    let mut out = Vec::new();
    for container in pod.containers.iter().chain(&pod.init_containers) {
        for bound in &range.bounds {
            let name = &bound.resource;
            let request = container.requests.get(name).copied();
            let limit = container.limits.get(name).copied();
            let (kind, text) = (
                if bound.max { "maximum" } else { "minimum" },
                &bound.written,
            );
            let shown = |amount: i64| canonical(name, amount);
            let problem = if bound.max {
                match (limit, request) {
                    (None, _) => Some(String::from(".  No limit is specified")),
                    (Some(l), _) if l > bound.amount => {
                        Some(format!(", but limit is {}", shown(l)))
                    }
                    (_, Some(r)) if r > bound.amount => {
                        Some(format!(", but request is {}", shown(r)))
                    }
                    _ => None,
                }
            } else {
                match (request, limit) {
                    (None, _) => Some(String::from(".  No request is specified")),
                    (Some(r), _) if r < bound.amount => {
                        Some(format!(", but request is {}", shown(r)))
                    }
                    (_, Some(l)) if l < bound.amount => {
                        Some(format!(", but limit is {}", shown(l)))
                    }
                    _ => None,
                }
            };
            if let Some(problem) = problem {
                out.push(format!(
                    "{kind} {name} usage per Container is {text}{problem}"
                ));
            }
        }
    }
    out
}

/// An amount in the engine's units as `resource.Quantity` prints it canonically: cpu in cores or
/// millicores, other resources with the largest exact binary suffix (`Ki` … `Ei`), else a
/// decimal one (`k` … `E`), else plain.
fn canonical(resource: &str, amount: i64) -> String {
    if resource == spreadlab_engine::model::resources::CPU {
        return if amount % 1000 == 0 {
            (amount / 1000).to_string()
        } else {
            format!("{amount}m")
        };
    }
    if amount != 0 {
        for (suffix, shift) in [
            ("Ei", 60),
            ("Pi", 50),
            ("Ti", 40),
            ("Gi", 30),
            ("Mi", 20),
            ("Ki", 10),
        ] {
            if amount % (1i64 << shift) == 0 {
                return format!("{}{suffix}", amount >> shift);
            }
        }
        for (suffix, power) in [
            ("E", 18),
            ("P", 15),
            ("T", 12),
            ("G", 9),
            ("M", 6),
            ("k", 3),
        ] {
            let unit = 10i64.pow(power);
            if amount % unit == 0 {
                return format!("{}{suffix}", amount / unit);
            }
        }
    }
    amount.to_string()
}

/// `setOverhead`, `setScheduling` and `validateOverhead`. `Ok(Some(_))`: a warning (the class is
/// not in the input); `Err((field, message))`: the plugin's rejection.
fn runtime_class(
    pod: &mut Pod,
    name: Option<&str>,
    classes: &std::collections::BTreeMap<String, RuntimeClassInfo>,
) -> Result<Option<String>, (&'static str, String)> {
    let Some(name) = name else {
        if !pod.overhead.is_empty() {
            return Err((
                "overhead",
                String::from(
                    "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
                ),
            ));
        }
        return Ok(None);
    };
    let Some(class) = classes.get(name) else {
        return Ok(Some(format!(
            "RuntimeClass {name:?} is not in the input: its overhead and scheduling (node \
             selector, tolerations) are not applied (add `kubectl get runtimeclasses -o yaml`; \
             if it does not exist, the API server rejects the pod: pod rejected: RuntimeClass \
             {name:?} not found)"
        )));
    };
    match &class.overhead {
        Some(overhead) => {
            if !pod.overhead.is_empty() && pod.overhead != *overhead {
                return Err((
                    "overhead",
                    String::from(
                        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
                    ),
                ));
            }
            pod.overhead = overhead.clone();
        }
        None if !pod.overhead.is_empty() => {
            return Err((
                "overhead",
                String::from(
                    "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
                ),
            ));
        }
        None => {}
    }
    if let Some(selector) = &class.node_selector {
        for (key, value) in selector {
            if let Some(existing) = pod.node_selector.get(key)
                && existing != value
            {
                return Err((
                    "nodeSelector",
                    format!(
                        "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; \
                         pod.spec.nodeSelector[{key}] = {existing}"
                    ),
                ));
            }
            pod.node_selector.insert(key.clone(), value.clone());
        }
    }
    // `tolerations.MergeTolerations` also drops tolerations another one covers; which of two
    // overlapping tolerations is kept changes no scheduling verdict, so an equal one is enough.
    for toleration in &class.tolerations {
        if !pod.tolerations.contains(toleration) {
            pod.tolerations.push(toleration.clone());
        }
    }
    Ok(None)
}
