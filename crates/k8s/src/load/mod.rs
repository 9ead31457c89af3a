//! The loader: untyped documents to typed objects, dispatched by kind into the cluster snapshot
//! or the workloads. Every failure becomes an [`InputError`] naming file, document, object and
//! field path; the object is skipped and loading goes on.

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::autoscaling::v2 as autoscaling;
use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use serde_json::Value;
use spreadlab_engine::analysis::rollout::RolloutSpec;
use spreadlab_engine::model::{Namespace, Pod, PodDisruptionBudget, Selector, Service};

use crate::admission::{self, PriorityClass};
use crate::convert::{convert_node, label_selector, labels, namespace_or};
use crate::error::{ConvertError, InputError, InputWarning, join_path};
use crate::workload::WorkloadKind;
use crate::{LoadOptions, Loaded};

mod admission_objects;
mod ceiling;
mod fields;
mod identity;
use identity::{named, object_name};
mod revisions;
mod storage;
mod typed_read;
pub(crate) use typed_read::read_typed;
mod validation;
mod versions;
mod workloads;

use admission_objects::{Admit, LimitRangeDefaults, RuntimeClassInfo};
use fields::type_name;
use revisions::{LiveControllerRevision, LiveReplicaSet};
use validation::{checked_replicas, deployment_spec, pdb_spec, stateful_set_spec};

/// Errors inside the loader are boxed (an [`InputError`] is large); they are unboxed into
/// [`Loaded::errors`].
type Failure = Box<InputError>;

/// Where an object was read, for its messages.
#[derive(Clone, Debug)]
struct Place {
    file: String,
    document: Option<usize>,
    line: Option<usize>,
    /// `Kind/namespace/name` once known.
    object: Option<String>,
    /// The object's path inside its document (`items[3]` for a List item), empty at the root.
    prefix: String,
}

impl Place {
    /// The root of document `document` of `file`.
    fn document(file: &str, document: usize) -> Place {
        Place {
            file: file.to_owned(),
            document: Some(document),
            line: None,
            object: None,
            prefix: String::new(),
        }
    }

    fn error(&self, path: Option<&str>, message: impl Into<String>) -> Failure {
        let path = match path {
            Some(path) => Some(join_path(&self.prefix, path)),
            None => Some(self.prefix.clone()),
        };
        Box::new(InputError {
            file: self.file.clone(),
            document: self.document,
            object: self.object.clone(),
            path: path.filter(|p| !p.is_empty()),
            line: self.line,
            column: None,
            message: message.into(),
        })
    }

    fn convert_error(&self, error: ConvertError) -> Failure {
        self.error(Some(&error.path), error.message)
    }

    fn warning(&self, path: Option<&str>, message: impl Into<String>) -> InputWarning {
        (*self.error(path, message)).into()
    }
}

/// Which pod a pending priority resolution is for.
#[derive(Clone, Copy, Debug)]
enum Target {
    Workload(usize),
    BoundPod(usize),
}

/// A pod whose priority comes from a PriorityClass, resolved once every class is read.
#[derive(Debug)]
struct PendingPriority {
    target: Target,
    class_name: Option<String>,
    explicit_priority: Option<i32>,
    explicit_preemption_policy: bool,
    place: Place,
    /// Path of `priorityClassName` in the object.
    path: String,
}

/// A workload's parts, before admission.
struct NewWorkload {
    kind: WorkloadKind,
    namespace: String,
    name: String,
    replicas: i32,
    selector: Selector,
    template: Pod,
    priority_class_name: Option<String>,
    explicit_priority: Option<i32>,
    explicit_preemption_policy: bool,
    priority_path: &'static str,
    rollout: Option<RolloutSpec>,
    /// `runtimeClassName` of the pod spec.
    runtime_class_name: Option<String>,
}

impl NewWorkload {
    /// A workload created from a pod template: its priority comes from the template's spec.
    fn from_template(
        kind: WorkloadKind,
        namespace: String,
        name: String,
        replicas: i32,
        selector: Selector,
        template: Pod,
        template_spec: Option<&core_api::PodSpec>,
    ) -> NewWorkload {
        NewWorkload {
            kind,
            namespace,
            name,
            replicas,
            selector,
            template,
            priority_class_name: template_spec
                .and_then(|s| s.priority_class_name.clone())
                .filter(|n| !n.is_empty()),
            explicit_priority: template_spec.and_then(|s| s.priority),
            explicit_preemption_policy: template_spec
                .is_some_and(|s| s.preemption_policy.is_some()),
            priority_path: "spec.template.spec.priorityClassName",
            rollout: None,
            runtime_class_name: template_spec.and_then(|s| s.runtime_class_name.clone()),
        }
    }
}

pub(crate) struct Loader<'o> {
    options: &'o LoadOptions,
    loaded: Loaded,
    objects: usize,
    stopped: bool,
    pending: Vec<PendingPriority>,
    /// ReplicaSet workloads owned by a Deployment, ControllerRevisions owned by a StatefulSet.
    live_replica_sets: Vec<LiveReplicaSet>,
    live_controller_revisions: Vec<LiveControllerRevision>,
    /// Each Deployment's and StatefulSet's workload index and template fingerprint
    /// (`crate::revision`).
    deployment_templates: Vec<(usize, Option<Value>)>,
    stateful_set_templates: Vec<(usize, Option<Value>)>,
    /// LimitRanges' container defaults, RuntimeClasses, and the pods they apply to once read.
    limit_ranges: Vec<LimitRangeDefaults>,
    runtime_classes: std::collections::BTreeMap<String, RuntimeClassInfo>,
    to_admit: Vec<Admit>,
    /// Objects not read: replaced by a later source, or duplicated in theirs.
    skips: std::collections::HashMap<identity::Slot, identity::Skip>,
    /// The index of the source being read.
    source: usize,
    /// Kubelet minor versions already warned about (`LoadOptions::kubernetes_version`).
    kubelet_minors_warned: std::collections::BTreeSet<String>,
}

impl<'o> Loader<'o> {
    pub(crate) fn new(options: &'o LoadOptions) -> Loader<'o> {
        Loader {
            options,
            loaded: Loaded::default(),
            objects: 0,
            stopped: false,
            pending: Vec::new(),
            live_replica_sets: Vec::new(),
            kubelet_minors_warned: std::collections::BTreeSet::new(),
            live_controller_revisions: Vec::new(),
            deployment_templates: Vec::new(),
            stateful_set_templates: Vec::new(),
            limit_ranges: Vec::new(),
            runtime_classes: std::collections::BTreeMap::new(),
            to_admit: Vec::new(),
            skips: std::collections::HashMap::new(),
            source: 0,
        }
    }

    /// Goes on from a finished load ([`crate::load_onto`]): its objects stay, new ones are added.
    pub(crate) fn resume(&mut self, loaded: Loaded) {
        self.loaded = loaded;
    }

    /// Records an error about a whole source or document.
    pub(crate) fn source_error(&mut self, file: &str, mut error: InputError) {
        error.file = file.to_owned();
        self.loaded.errors.push(error);
    }

    /// Reads one document: an object, a List, a sequence of objects, or null (skipped).
    pub(crate) fn add_document(
        &mut self,
        file: &str,
        document: usize,
        line: Option<usize>,
        value: Value,
    ) {
        let place = Place {
            line,
            ..Place::document(file, document)
        };
        self.add_value(place, value, None);
    }

    /// Counts an object against `max_documents`; `false` (with the error, once) past it.
    fn count_object(&mut self, place: &Place) -> bool {
        self.objects += 1;
        if self.objects > self.options.max_documents {
            self.stopped = true;
            let message = format!(
                "more than {} objects in this load; the rest is not read",
                self.options.max_documents
            );
            self.loaded.errors.push(*place.error(None, message));
            return false;
        }
        true
    }

    fn add_value(&mut self, mut place: Place, value: Value, list_item: Option<(&str, &str)>) {
        if self.stopped {
            return;
        }
        let mut map = match value {
            Value::Null => return,
            Value::Array(items) => {
                for (index, item) in items.into_iter().enumerate() {
                    let item_place = Place {
                        prefix: format!("{}[{index}]", place.prefix),
                        ..place.clone()
                    };
                    self.add_value(item_place, item, None);
                }
                return;
            }
            Value::Object(map) => map,
            other => {
                let message = format!(
                    "expected a Kubernetes object (a mapping with `kind`), found {}",
                    type_name(&other)
                );
                self.loaded.errors.push(*place.error(None, message));
                return;
            }
        };
        // Items of a typed list read from the API (`PodList`) may omit their kind.
        if let Some((item_kind, api_version)) = list_item
            && !item_kind.is_empty()
            && !map.contains_key("kind")
        {
            map.insert("kind".into(), Value::String(item_kind.to_owned()));
            if !api_version.is_empty() {
                map.entry("apiVersion")
                    .or_insert_with(|| Value::String(api_version.to_owned()));
            }
        }
        let kind = match map.get("kind") {
            Some(Value::String(kind)) if !kind.is_empty() => kind.clone(),
            Some(other) if !other.is_null() && !other.is_string() => {
                let message = format!("invalid type: {}, expected a string", type_name(other));
                self.loaded.errors.push(*place.error(Some("kind"), message));
                return;
            }
            _ => {
                self.loaded.errors.push(*place.error(
                    Some("kind"),
                    "missing field `kind`: not a Kubernetes object",
                ));
                return;
            }
        };
        if let Some(item_kind) = kind.strip_suffix("List") {
            let api_version = map
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            match map.remove("items") {
                None | Some(Value::Null) => {}
                Some(Value::Array(items)) => {
                    for (index, item) in items.into_iter().enumerate() {
                        let item_place = Place {
                            prefix: join_path(&place.prefix, &format!("items[{index}]")),
                            ..place.clone()
                        };
                        self.add_value(item_place, item, Some((item_kind, &api_version)));
                    }
                }
                Some(other) => {
                    place.object = Some(kind.clone());
                    let message =
                        format!("invalid type: {}, expected a sequence", type_name(&other));
                    self.loaded
                        .errors
                        .push(*place.error(Some("items"), message));
                }
            }
            return;
        }
        if !self.count_object(&place) {
            return;
        }
        place.object = Some(self.object_id(&kind, &map));
        if self.skipped(&place) {
            return;
        }
        if let Err(error) = self.add_object(&place, &kind, Value::Object(map)) {
            self.loaded.errors.push(*error);
        }
    }

    fn add_object(&mut self, place: &Place, kind: &str, value: Value) -> Result<(), Failure> {
        let default_namespace = self.options.default_namespace.clone();
        match kind {
            "Node" => {
                let mut node: core_api::Node = self.typed(place, value)?;
                let defaulted = admission::default_node_allocatable(&mut node);
                let name = object_name(place, &node.metadata)?;
                self.check_kubelet_version(place, &name, &node);
                let node = convert_node(&node).map_err(|mut e| {
                    if defaulted && e.path.starts_with("status.allocatable") {
                        e.path = e.path.replacen("status.allocatable", "status.capacity", 1);
                    }
                    place.convert_error(e)
                })?;
                self.loaded
                    .cluster
                    .nodes
                    .push(spreadlab_engine::model::Node { name, ..node });
            }
            "Pod" => {
                let pod: core_api::Pod = self.typed(place, value)?;
                self.add_pod(place, crate::slim::SlimPod::from(pod))?
            }
            "Namespace" => {
                let namespace: core_api::Namespace = self.typed(place, value)?;
                let name = object_name(place, &namespace.metadata)?;
                let mut labels = labels(&namespace.metadata);
                admission::default_namespace_labels(&name, &mut labels);
                self.loaded
                    .cluster
                    .namespaces
                    .push(Namespace { name, labels });
            }
            "Service" => {
                let service: core_api::Service = self.typed(place, value)?;
                self.loaded.cluster.services.push(Service {
                    namespace: namespace_or(&service.metadata, &default_namespace),
                    name: object_name(place, &service.metadata)?,
                    selector: service.spec.and_then(|spec| spec.selector),
                });
            }
            "ReplicaSet" => {
                fields::require_field(place, &value, "spec")?;
                let set: apps::ReplicaSet = self.typed(place, value)?;
                let spec = set.spec;
                self.add_controller_workload(
                    place,
                    WorkloadKind::ReplicaSet,
                    &set.metadata,
                    spec.replicas,
                    &spec.selector,
                    spec.template.as_ref(),
                )?;
            }
            "StatefulSet" => {
                fields::require_field(place, &value, "spec")?;
                let set: apps::StatefulSet = self.typed(place, value)?;
                let spec = set.spec;
                let rollout = stateful_set_spec(place, &spec)?;
                let before = self.loaded.workloads.len();
                let fingerprint = crate::revision::fingerprint(&spec.template);
                self.add_controller_workload(
                    place,
                    WorkloadKind::StatefulSet,
                    &set.metadata,
                    spec.replicas,
                    &spec.selector,
                    Some(&spec.template),
                )?;
                if let Some(workload) = self.loaded.workloads.get_mut(before) {
                    workload.rollout = Some(rollout);
                    self.stateful_set_templates.push((before, fingerprint));
                    let templates = spec.volume_claim_templates.unwrap_or_default();
                    self.add_claim_templates(place, before, &templates)?;
                }
            }
            "ReplicationController" => {
                let controller = self.typed(place, value)?;
                self.add_replication_controller(place, controller)?
            }
            "Deployment" => {
                fields::require_field(place, &value, "spec")?;
                let deployment = self.typed(place, value)?;
                self.add_deployment(place, deployment)?
            }
            "Job" => {
                let job = self.typed(place, value)?;
                self.add_job(place, job)?
            }
            "PodDisruptionBudget" => {
                let budget: policy::PodDisruptionBudget = self.typed(place, value)?;
                let selector = budget.spec.as_ref().and_then(|spec| spec.selector.as_ref());
                let (min_available, max_unavailable) = pdb_spec(place, budget.spec.as_ref())?;
                self.loaded.cluster.pdbs.push(PodDisruptionBudget {
                    namespace: namespace_or(&budget.metadata, &default_namespace),
                    name: object_name(place, &budget.metadata)?,
                    selector: label_selector(selector, &"spec.selector")
                        .map_err(|e| place.convert_error(e))?,
                    disruptions_allowed: budget
                        .status
                        .as_ref()
                        .and_then(|status| status.disruptions_allowed)
                        .unwrap_or(0),
                    disrupted_pods: budget
                        .status
                        .as_ref()
                        .and_then(|status| status.disrupted_pods.as_ref())
                        .map(|pods| pods.keys().cloned().collect())
                        .unwrap_or_default(),
                    min_available,
                    max_unavailable,
                });
            }
            "HorizontalPodAutoscaler" => {
                // autoscaling/v1 and v2 share `scaleTargetRef` and `maxReplicas`.
                fields::require_field(place, &value, "spec")?;
                let hpa: autoscaling::HorizontalPodAutoscaler = self.typed(place, value)?;
                let spec = hpa.spec;
                self.loaded.hpas.push(crate::Hpa {
                    namespace: namespace_or(&hpa.metadata, &default_namespace),
                    name: object_name(place, &hpa.metadata)?,
                    target_kind: spec.scale_target_ref.kind,
                    target_name: spec.scale_target_ref.name,
                    min_replicas: spec.min_replicas.unwrap_or(1),
                    max_replicas: spec.max_replicas,
                });
            }
            "PriorityClass" => {
                let class: scheduling::PriorityClass = self.typed(place, value)?;
                let name = object_name(place, &class.metadata)?;
                let preemption_policy = crate::convert::preemption_policy(
                    class.preemption_policy.as_deref(),
                    "preemptionPolicy",
                )
                .map_err(|e| place.convert_error(e))?;
                // An absent value reads as 0, as Go's int32 does.
                let value = class.value.unwrap_or(0);
                validation::priority_class(place, &name, value, class.global_default)?;
                let class = PriorityClass {
                    value,
                    global_default: class.global_default.unwrap_or(false),
                    preemption_policy,
                };
                self.loaded.priority_classes.insert(name, class);
            }
            "PersistentVolumeClaim"
            | "PersistentVolume"
            | "StorageClass"
            | "CSINode"
            | "CSIDriver"
            | "VolumeAttachment"
            | "CSIStorageCapacity" => self.add_storage(place, kind, value)?,
            "ResourceClaim" | "ResourceClaimTemplate" | "DeviceClass" | "ResourceSlice" => {
                let message = format!(
                    "kind `{kind}` belongs to DynamicResources (DRA), which spreadlab does not model: pods with \
                     spec.resourceClaims are placed as if their devices were always available; skipped"
                );
                self.loaded.warnings.push(place.warning(None, message));
            }
            "LimitRange" => self.add_limit_range(place, value)?,
            "ControllerRevision" => self.add_controller_revision(place, value)?,
            "RuntimeClass" => self.add_runtime_class(place, value)?,
            "component" => self.add_polyaxon_component(place, value)?,
            _ => {
                let api_version = value
                    .get("apiVersion")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let message = format!(
                    "kind `{kind}` (apiVersion `{api_version}`) is not read by spreadlab; skipped"
                );
                self.loaded.warnings.push(place.warning(None, message));
            }
        }
        Ok(())
    }

    /// Resolves priorities (every PriorityClass is known now) and drops unbound pods that a
    /// loaded controller stands for.
    pub(crate) fn finish(mut self) -> Loaded {
        for pending in std::mem::take(&mut self.pending) {
            let resolved = self
                .loaded
                .priority_classes
                .resolve(pending.class_name.as_deref());
            let pod = match pending.target {
                Target::Workload(index) => &mut self.loaded.workloads[index].template,
                Target::BoundPod(index) => {
                    std::sync::Arc::make_mut(&mut self.loaded.cluster.pods[index])
                }
            };
            match resolved {
                None => {
                    pod.priority = pending.explicit_priority.unwrap_or(0);
                    let message = format!(
                        "no PriorityClass named {:?} (the API server would reject this pod); priority {}",
                        pending.class_name.unwrap_or_default(),
                        pod.priority
                    );
                    self.loaded
                        .warnings
                        .push(pending.place.warning(Some(&pending.path), message));
                }
                Some((value, preemption_policy)) => {
                    if let Some(explicit) = pending.explicit_priority
                        && explicit != value
                    {
                        let message = format!(
                            "spec.priority {explicit} differs from the {value} its PriorityClass gives (the API server \
                             would reject this pod); using {value}"
                        );
                        self.loaded
                            .warnings
                            .push(pending.place.warning(Some(&pending.path), message));
                    }
                    pod.priority = value;
                    if !pending.explicit_preemption_policy {
                        pod.preemption_policy = preemption_policy;
                    }
                }
            }
        }
        self.apply_admission_objects();
        self.resolve_revisions();
        // A ReplicaSet whose Deployment is loaded is placed through the Deployment.
        let mut dropped = vec![false; self.loaded.workloads.len()];
        for set in &self.live_replica_sets {
            dropped[set.workload] = self.loaded.workloads.iter().any(|w| {
                w.kind == WorkloadKind::Deployment
                    && w.namespace == set.namespace
                    && w.name == set.deployment
            });
        }
        self.adopt_unbound_pods(&mut dropped);
        let mut index = 0;
        self.loaded.workloads.retain(|_| {
            index += 1;
            !dropped[index - 1]
        });
        self.check_simulated_pods();
        self.loaded
    }
}
