//! The loader: untyped documents to typed objects, dispatched by kind into the cluster snapshot
//! or the workloads. Every failure becomes an [`InputError`] naming file, document, object and
//! field path; the object is skipped and loading goes on.

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::autoscaling::v2 as autoscaling;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::de::DeserializeOwned;
use serde_json::Value;
use spreadlab_engine::analysis::rollout::{IntOrPercent, RolloutSpec, Strategy};
use spreadlab_engine::model::{
    Controller, ControllerKind, Labels, Namespace, Pod, PodDisruptionBudget, Selector, Service,
};

use crate::admission::{self, PriorityClass};
use crate::convert::{
    controller_owner, convert_node, convert_pod_validated, label_selector, labels, namespace_or,
};
use crate::error::{ConvertError, InputError, InputWarning, join_path, path_text};
use crate::polyaxon::{self, Component};
use crate::workload::{Origin, Workload, WorkloadKind};
use crate::{LoadOptions, Loaded};

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
        }
    }
}

pub(crate) struct Loader<'o> {
    options: &'o LoadOptions,
    loaded: Loaded,
    objects: usize,
    stopped: bool,
    pending: Vec<PendingPriority>,
    /// ReplicaSet workloads owned by a Deployment: (workload index, namespace, Deployment name).
    deployment_replica_sets: Vec<(usize, String, String)>,
}

/// Replica counts above this get a warning (each replica is a pod to simulate).
const LARGE_REPLICAS: i32 = 10_000;

/// Kinds without a namespace.
fn cluster_scoped(kind: &str) -> bool {
    matches!(kind, "Node" | "Namespace" | "PriorityClass")
}

/// A JSON type's name for messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

fn typed<T: DeserializeOwned>(place: &Place, value: Value) -> Result<T, Failure> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = path_text(error.path());
        place.error(Some(&path), error.inner().to_string())
    })
}

/// `metadata.name`, or for `generateName` the prefix plus a stable stand-in suffix.
fn object_name(place: &Place, metadata: &ObjectMeta) -> Result<String, Failure> {
    match (&metadata.name, &metadata.generate_name) {
        (Some(name), _) if !name.is_empty() => Ok(name.clone()),
        (_, Some(prefix)) if !prefix.is_empty() => {
            let seed = format!("{}/{}/{prefix}", place.file, place.document.unwrap_or(0));
            Ok(format!("{prefix}{}", &admission::template_hash(&seed)[..5]))
        }
        _ => Err(place.error(
            Some("metadata.name"),
            "Required value: name or generateName is required",
        )),
    }
}

impl<'o> Loader<'o> {
    pub(crate) fn new(options: &'o LoadOptions) -> Loader<'o> {
        Loader {
            options,
            loaded: Loaded::default(),
            objects: 0,
            stopped: false,
            pending: Vec::new(),
            deployment_replica_sets: Vec::new(),
        }
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
            file: file.to_owned(),
            document: Some(document),
            line,
            object: None,
            prefix: String::new(),
        };
        self.add_value(place, value, None);
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
        self.objects += 1;
        if self.objects > self.options.max_documents {
            self.stopped = true;
            let message = format!(
                "more than {} objects in this load; the rest is not read",
                self.options.max_documents
            );
            self.loaded.errors.push(*place.error(None, message));
            return;
        }
        place.object = Some(self.object_id(&kind, &map));
        if let Err(error) = self.add_object(&place, &kind, Value::Object(map)) {
            self.loaded.errors.push(*error);
        }
    }

    /// `Kind/namespace/name` (`Kind/name` for cluster-scoped kinds, `Kind` without a name).
    fn object_id(&self, kind: &str, map: &serde_json::Map<String, Value>) -> String {
        let metadata = map.get("metadata");
        let field = |name: &str| {
            metadata
                .and_then(|m| m.get(name))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let name = if kind == "component" {
            map.get("name").and_then(Value::as_str)
        } else {
            field("name")
        };
        let name = name.or_else(|| field("generateName"));
        let namespace = if cluster_scoped(kind) {
            None
        } else {
            Some(field("namespace").unwrap_or(&self.options.default_namespace))
        };
        match (namespace, name) {
            (Some(namespace), Some(name)) => format!("{kind}/{namespace}/{name}"),
            (None, Some(name)) => format!("{kind}/{name}"),
            (_, None) => kind.to_owned(),
        }
    }

    fn add_object(&mut self, place: &Place, kind: &str, value: Value) -> Result<(), Failure> {
        let default_namespace = self.options.default_namespace.clone();
        match kind {
            "Node" => {
                let mut node: core_api::Node = typed(place, value)?;
                let defaulted = admission::default_node_allocatable(&mut node);
                let node = convert_node(&node).map_err(|mut e| {
                    if defaulted && e.path.starts_with("status.allocatable") {
                        e.path = e.path.replacen("status.allocatable", "status.capacity", 1);
                    }
                    place.convert_error(e)
                })?;
                self.loaded.cluster.nodes.push(node);
            }
            "Pod" => self.add_pod(place, typed(place, value)?)?,
            "Namespace" => {
                let namespace: core_api::Namespace = typed(place, value)?;
                let name = object_name(place, &namespace.metadata)?;
                let mut labels = labels(&namespace.metadata);
                admission::default_namespace_labels(&name, &mut labels);
                self.loaded
                    .cluster
                    .namespaces
                    .push(Namespace { name, labels });
            }
            "Service" => {
                let service: core_api::Service = typed(place, value)?;
                self.loaded.cluster.services.push(Service {
                    namespace: namespace_or(&service.metadata, &default_namespace),
                    name: object_name(place, &service.metadata)?,
                    selector: service.spec.and_then(|spec| spec.selector),
                });
            }
            "ReplicaSet" => {
                let set: apps::ReplicaSet = typed(place, value)?;
                let spec = set
                    .spec
                    .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
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
                let set: apps::StatefulSet = typed(place, value)?;
                let spec = set
                    .spec
                    .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
                let rollout = stateful_set_spec(place, &spec)?;
                let before = self.loaded.workloads.len();
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
                }
            }
            "ReplicationController" => {
                let controller: core_api::ReplicationController = typed(place, value)?;
                let spec = controller.spec.unwrap_or_default();
                let template_labels = spec
                    .template
                    .as_ref()
                    .and_then(|t| t.metadata.as_ref())
                    .map(labels)
                    .unwrap_or_default();
                self.loaded.cluster.controllers.push(Controller {
                    kind: ControllerKind::ReplicationController,
                    namespace: namespace_or(&controller.metadata, &default_namespace),
                    name: object_name(place, &controller.metadata)?,
                    selector: admission::replication_controller_selector(
                        spec.selector.as_ref(),
                        &template_labels,
                    ),
                });
            }
            "Deployment" => self.add_deployment(place, typed(place, value)?)?,
            "Job" => self.add_job(place, typed(place, value)?)?,
            "PodDisruptionBudget" => {
                let budget: policy::PodDisruptionBudget = typed(place, value)?;
                let selector = budget.spec.as_ref().and_then(|spec| spec.selector.as_ref());
                let (min_available, max_unavailable) = pdb_spec(place, budget.spec.as_ref())?;
                self.loaded.cluster.pdbs.push(PodDisruptionBudget {
                    namespace: namespace_or(&budget.metadata, &default_namespace),
                    name: object_name(place, &budget.metadata)?,
                    selector: label_selector(selector, "spec.selector")
                        .map_err(|e| place.convert_error(e))?,
                    disruptions_allowed: budget
                        .status
                        .map_or(0, |status| status.disruptions_allowed),
                    min_available,
                    max_unavailable,
                });
            }
            "HorizontalPodAutoscaler" => {
                // autoscaling/v1 and v2 share `scaleTargetRef` and `maxReplicas`.
                let hpa: autoscaling::HorizontalPodAutoscaler = typed(place, value)?;
                let spec = hpa
                    .spec
                    .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
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
                let class: scheduling::PriorityClass = typed(place, value)?;
                let name = object_name(place, &class.metadata)?;
                let preemption_policy = crate::convert::preemption_policy(
                    class.preemption_policy.as_deref(),
                    "preemptionPolicy",
                )
                .map_err(|e| place.convert_error(e))?;
                let class = PriorityClass {
                    value: class.value,
                    global_default: class.global_default.unwrap_or(false),
                    preemption_policy,
                };
                self.loaded.priority_classes.insert(name, class);
            }
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

    fn add_pod(&mut self, place: &Place, pod: core_api::Pod) -> Result<(), Failure> {
        let mut converted = convert_pod_validated(&pod, &self.options.default_namespace)
            .map_err(|e| place.convert_error(e))?;
        converted.name = object_name(place, &pod.metadata)?;
        let spec = pod.spec.as_ref();
        let class_name = spec
            .and_then(|s| s.priority_class_name.clone())
            .filter(|name| !name.is_empty());
        let explicit_priority = spec.and_then(|s| s.priority);
        let explicit_preemption_policy = spec.is_some_and(|s| s.preemption_policy.is_some());
        if converted.node_name.is_some() {
            // A bound pod from a snapshot: admitted when it was created, so only a missing
            // priority is filled in.
            let index = self.loaded.cluster.pods.len();
            self.loaded.cluster.pods.push(converted);
            if explicit_priority.is_none() {
                self.pending.push(PendingPriority {
                    target: Target::BoundPod(index),
                    class_name,
                    explicit_priority,
                    explicit_preemption_policy: true,
                    place: place.clone(),
                    path: "spec.priorityClassName".into(),
                });
            }
            return Ok(());
        }
        if converted.terminating || converted.phase.is_terminal() {
            let message =
                "unbound pod is terminating or has finished: the scheduler skips it; not placed";
            self.loaded.warnings.push(place.warning(None, message));
            return Ok(());
        }
        let name = std::mem::take(&mut converted.name);
        self.push_workload(
            place,
            NewWorkload {
                kind: WorkloadKind::Pod,
                namespace: converted.namespace.clone(),
                name,
                replicas: 1,
                selector: Selector::Nothing,
                template: converted,
                priority_class_name: class_name,
                explicit_priority,
                explicit_preemption_policy,
                priority_path: "spec.priorityClassName",
                rollout: None,
            },
        );
        Ok(())
    }

    /// A template as the controller's pods will have it before admission: in the workload's
    /// namespace, without name or owner.
    fn template_pod(
        &self,
        place: &Place,
        template: Option<&core_api::PodTemplateSpec>,
        namespace: &str,
    ) -> Result<Pod, Failure> {
        let template = template.cloned().unwrap_or_default();
        let pod = core_api::Pod {
            metadata: template.metadata.unwrap_or_default(),
            spec: template.spec,
            status: None,
        };
        let mut converted = convert_pod_validated(&pod, namespace)
            .map_err(|e| place.convert_error(e.under("spec.template")))?;
        converted.namespace = namespace.to_owned();
        converted.name.clear();
        converted.owner = None;
        Ok(converted)
    }

    /// `apps/v1` selector validation: required, non-empty, and matching the template's labels.
    fn apps_selector(
        place: &Place,
        selector: &LabelSelector,
        template_labels: &Labels,
        kind: WorkloadKind,
    ) -> Result<Selector, Failure> {
        let selector =
            label_selector(Some(selector), "spec.selector").map_err(|e| place.convert_error(e))?;
        if selector.is_empty() {
            let message = format!(
                "Invalid value: empty selector is invalid for {}",
                kind.as_str().to_lowercase()
            );
            return Err(place.error(Some("spec.selector"), message));
        }
        if !selector.matches(template_labels) {
            return Err(place.error(
                Some("spec.template.metadata.labels"),
                "Invalid value: `selector` does not match template `labels`",
            ));
        }
        Ok(selector)
    }

    /// A ReplicaSet or StatefulSet: a controller in the cluster (for default spreading) and a
    /// workload.
    fn add_controller_workload(
        &mut self,
        place: &Place,
        kind: WorkloadKind,
        metadata: &ObjectMeta,
        replicas: Option<i32>,
        selector: &LabelSelector,
        template: Option<&core_api::PodTemplateSpec>,
    ) -> Result<(), Failure> {
        let namespace = namespace_or(metadata, &self.options.default_namespace);
        let name = object_name(place, metadata)?;
        let pod = self.template_pod(place, template, &namespace)?;
        let selector = Self::apps_selector(place, selector, &pod.labels, kind)?;
        let controller_kind = if kind == WorkloadKind::StatefulSet {
            ControllerKind::StatefulSet
        } else {
            ControllerKind::ReplicaSet
        };
        self.loaded.cluster.controllers.push(Controller {
            kind: controller_kind,
            namespace: namespace.clone(),
            name: name.clone(),
            selector: selector.clone(),
        });
        if let Some(owner) = controller_owner(metadata).filter(|owner| owner.kind == "Deployment") {
            let index = self.loaded.workloads.len();
            self.deployment_replica_sets
                .push((index, namespace.clone(), owner.name));
        }
        let spec = template.and_then(|t| t.spec.as_ref());
        self.push_workload(
            place,
            NewWorkload::from_template(
                kind,
                namespace,
                name,
                checked_replicas(place, replicas)?,
                selector,
                pod,
                spec,
            ),
        );
        Ok(())
    }

    fn add_deployment(
        &mut self,
        place: &Place,
        deployment: apps::Deployment,
    ) -> Result<(), Failure> {
        let spec = deployment
            .spec
            .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
        let namespace = namespace_or(&deployment.metadata, &self.options.default_namespace);
        let name = object_name(place, &deployment.metadata)?;
        let mut template = self.template_pod(place, Some(&spec.template), &namespace)?;
        let mut selector = Self::apps_selector(
            place,
            &spec.selector,
            &template.labels,
            WorkloadKind::Deployment,
        )?;
        let key = format!("{}/{namespace}/{name}", WorkloadKind::Deployment);
        let hash = admission::add_pod_template_hash(&key, &mut template.labels, &mut selector);
        // The ReplicaSet the Deployment controller creates: its pods' owner, found by default
        // spreading (`helper.DefaultSelector`) in the cluster's controllers.
        self.loaded.cluster.controllers.push(Controller {
            kind: ControllerKind::ReplicaSet,
            namespace: namespace.clone(),
            name: format!("{name}-{hash}"),
            selector: selector.clone(),
        });
        let pod_spec = spec.template.spec.as_ref();
        let rollout = deployment_spec(place, &spec)?;
        let mut new = NewWorkload::from_template(
            WorkloadKind::Deployment,
            namespace,
            name,
            checked_replicas(place, spec.replicas)?,
            selector,
            template,
            pod_spec,
        );
        new.rollout = Some(rollout);
        self.push_workload(place, new);
        Ok(())
    }

    fn add_job(&mut self, place: &Place, job: batch::Job) -> Result<(), Failure> {
        let spec = job
            .spec
            .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
        let namespace = namespace_or(&job.metadata, &self.options.default_namespace);
        let name = object_name(place, &job.metadata)?;
        let mut template = self.template_pod(place, Some(&spec.template), &namespace)?;
        let key = format!("{}/{namespace}/{name}", WorkloadKind::Job);
        let selector = match (&spec.selector, spec.manual_selector) {
            // A Job read back from the API carries its generated selector; a manual one is as given.
            (Some(selector), _) => label_selector(Some(selector), "spec.selector")
                .map_err(|e| place.convert_error(e))?,
            (None, Some(true)) => {
                return Err(place.error(
                    Some("spec.selector"),
                    "Required value: `selector` is required when `manualSelector` is true",
                ));
            }
            (None, _) => admission::generate_job_selector(&key, &name, &mut template.labels),
        };
        let succeeded = job
            .status
            .as_ref()
            .and_then(|status| status.succeeded)
            .unwrap_or(0);
        let replicas = admission::job_active_pods(
            spec.parallelism,
            spec.completions,
            succeeded,
            spec.suspend.unwrap_or(false),
        );
        let pod_spec = spec.template.spec.as_ref();
        self.push_workload(
            place,
            NewWorkload::from_template(
                WorkloadKind::Job,
                namespace,
                name,
                replicas,
                selector,
                template,
                pod_spec,
            ),
        );
        Ok(())
    }

    fn add_polyaxon_component(&mut self, place: &Place, value: Value) -> Result<(), Failure> {
        let namespace = self.options.default_namespace.clone();
        let fallback = format!("component-{}", place.document.unwrap_or(0));
        let component = polyaxon::read_component(value, &namespace, &fallback)
            .map_err(|(path, message)| place.error(Some(&path), message))?;
        let service = match component {
            Component::Skipped { name, run_kind } => {
                let message = format!(
                    "Polyaxon component `{name}` has run.kind `{run_kind}`: only services are placed; skipped"
                );
                self.loaded
                    .warnings
                    .push(place.warning(Some("run.kind"), message));
                return Ok(());
            }
            Component::Service(service) => service,
        };
        for (path, message) in &service.warnings {
            self.loaded
                .warnings
                .push(place.warning(Some(path), message.clone()));
        }
        let mut template = convert_pod_validated(&service.pod, &namespace).map_err(|error| {
            place.error(Some(&polyaxon::component_path(&error.path)), error.message)
        })?;
        template.name.clear();
        let spec = service.pod.spec.as_ref();
        self.push_workload(
            place,
            NewWorkload {
                kind: WorkloadKind::PolyaxonService,
                namespace,
                name: service.name,
                replicas: service.replicas,
                selector: Selector::Nothing,
                template,
                priority_class_name: spec
                    .and_then(|s| s.priority_class_name.clone())
                    .filter(|n| !n.is_empty()),
                explicit_priority: spec.and_then(|s| s.priority),
                explicit_preemption_policy: false,
                priority_path: "run.environment.priorityClassName",
                rollout: None,
            },
        );
        Ok(())
    }

    /// Admits the template and records the workload; its priority is resolved in [`Self::finish`].
    fn push_workload(&mut self, place: &Place, new: NewWorkload) {
        if new.replicas > LARGE_REPLICAS {
            let message = format!(
                "{} replicas: placing them creates as many pods",
                new.replicas
            );
            self.loaded.warnings.push(place.warning(None, message));
        }
        let mut template = new.template;
        admission::admit_pod(&mut template);
        let index = self.loaded.workloads.len();
        self.loaded.workloads.push(Workload {
            kind: new.kind,
            namespace: new.namespace,
            name: new.name,
            replicas: new.replicas,
            selector: new.selector,
            template,
            priority_class_name: new.priority_class_name.clone(),
            rollout: new.rollout.clone(),
            origin: Origin {
                file: place.file.clone(),
                document: place.document.unwrap_or(0),
            },
        });
        self.pending.push(PendingPriority {
            target: Target::Workload(index),
            class_name: new.priority_class_name,
            explicit_priority: new.explicit_priority,
            explicit_preemption_policy: new.explicit_preemption_policy,
            place: place.clone(),
            path: new.priority_path.to_owned(),
        });
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
                Target::BoundPod(index) => &mut self.loaded.cluster.pods[index],
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
        // A ReplicaSet whose Deployment is loaded is placed through the Deployment.
        let mut dropped = vec![false; self.loaded.workloads.len()];
        for (index, namespace, deployment) in &self.deployment_replica_sets {
            dropped[*index] = self.loaded.workloads.iter().any(|w| {
                w.kind == WorkloadKind::Deployment
                    && w.namespace == *namespace
                    && w.name == *deployment
            });
        }
        // An unbound pod selected by a loaded controller is one of that controller's replicas
        // (its own or adopted): the controller's pods_to_create stands for it.
        let controllers: Vec<(String, Selector)> = self
            .loaded
            .workloads
            .iter()
            .filter(|w| {
                matches!(
                    w.kind,
                    WorkloadKind::Deployment
                        | WorkloadKind::ReplicaSet
                        | WorkloadKind::StatefulSet
                        | WorkloadKind::Job
                )
            })
            .map(|w| (w.namespace.clone(), w.running_selector()))
            .collect();
        for (index, workload) in self.loaded.workloads.iter().enumerate() {
            if workload.kind != WorkloadKind::Pod {
                continue;
            }
            let adoptable = workload.template.owner.as_ref().is_none_or(|owner| {
                matches!(owner.kind.as_str(), "ReplicaSet" | "StatefulSet" | "Job")
            });
            dropped[index] = adoptable
                && controllers.iter().any(|(namespace, selector)| {
                    *namespace == workload.namespace && selector.matches(&workload.template.labels)
                });
        }
        let mut index = 0;
        self.loaded.workloads.retain(|_| {
            index += 1;
            !dropped[index - 1]
        });
        self.loaded
    }
}

/// `intstr.IntOrString` of a rolling-update field, validated as the API server does
/// (`ValidatePositiveIntOrPercent`, `IsValidPercent`).
fn int_or_percent(
    place: &Place,
    value: Option<&IntOrString>,
    default: IntOrPercent,
    path: &str,
) -> Result<IntOrPercent, Failure> {
    match value {
        None => Ok(default),
        Some(IntOrString::Int(n)) if *n < 0 => Err(place.error(
            Some(path),
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        )),
        Some(IntOrString::Int(n)) => Ok(IntOrPercent::Int(*n)),
        Some(IntOrString::String(text)) => {
            let percent = text
                .strip_suffix('%')
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<i32>().ok());
            match percent {
                Some(p)
                    if p > 100
                        && (path.ends_with("maxUnavailable") || path.ends_with("minAvailable")) =>
                {
                    Err(place.error(
                    Some(path),
                    format!("Invalid value: \"{text}\": must not be greater than 100%"),
                    ))
                }
                Some(p) => Ok(IntOrPercent::Percent(p)),
                None => Err(place.error(
                    Some(path),
                    format!(
                        "Invalid value: \"{text}\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
                    ),
                )),
            }
        }
    }
}

/// A PodDisruptionBudget's `minAvailable` and `maxUnavailable`, validated as the API server does
/// (`pkg/apis/policy/validation` `ValidatePodDisruptionBudgetSpec`: not both, each a non-negative
/// integer or a percent of at most 100%). policy/v1 defaults neither.
fn pdb_spec(
    place: &Place,
    spec: Option<&policy::PodDisruptionBudgetSpec>,
) -> Result<(Option<IntOrPercent>, Option<IntOrPercent>), Failure> {
    let Some(spec) = spec else {
        return Ok((None, None));
    };
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        return Err(place.error(
            Some("spec"),
            "Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set",
        ));
    }
    let field = |value: Option<&IntOrString>, path: &str| match value {
        None => Ok(None),
        Some(value) => int_or_percent(place, Some(value), IntOrPercent::Int(0), path).map(Some),
    };
    Ok((
        field(spec.min_available.as_ref(), "spec.minAvailable")?,
        field(spec.max_unavailable.as_ref(), "spec.maxUnavailable")?,
    ))
}

/// The Deployment fields the rollout analysis reads, defaulted as the API server does
/// (`SetDefaults_Deployment`: RollingUpdate 25%/25%, progressDeadlineSeconds 600; pods:
/// terminationGracePeriodSeconds 30) and validated (`ValidateRollingUpdateDeployment`).
fn deployment_spec(place: &Place, spec: &apps::DeploymentSpec) -> Result<RolloutSpec, Failure> {
    let strategy = spec.strategy.as_ref();
    let kind = strategy
        .and_then(|s| s.type_.as_deref())
        .unwrap_or("RollingUpdate");
    let strategy = match kind {
        "Recreate" => {
            if strategy.is_some_and(|s| s.rolling_update.is_some()) {
                return Err(place.error(
                    Some("spec.strategy.rollingUpdate"),
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                ));
            }
            Strategy::Recreate
        }
        "RollingUpdate" => {
            let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
            let max_surge = int_or_percent(
                place,
                rolling.and_then(|r| r.max_surge.as_ref()),
                IntOrPercent::Percent(25),
                "spec.strategy.rollingUpdate.maxSurge",
            )?;
            let max_unavailable = int_or_percent(
                place,
                rolling.and_then(|r| r.max_unavailable.as_ref()),
                IntOrPercent::Percent(25),
                "spec.strategy.rollingUpdate.maxUnavailable",
            )?;
            let zero =
                |v: IntOrPercent| matches!(v, IntOrPercent::Int(0) | IntOrPercent::Percent(0));
            if zero(max_surge) && zero(max_unavailable) {
                return Err(place.error(
                    Some("spec.strategy.rollingUpdate.maxUnavailable"),
                    "Invalid value: 0: may not be 0 when `maxSurge` is 0",
                ));
            }
            Strategy::RollingUpdate {
                max_surge,
                max_unavailable,
            }
        }
        other => {
            return Err(place.error(
                Some("spec.strategy.type"),
                format!("Unsupported value: \"{other}\": supported values: \"Recreate\", \"RollingUpdate\""),
            ));
        }
    };
    // ValidateDeploymentSpec (pkg/apis/apps/validation/validation.go), on the defaulted spec:
    // minReadySeconds and progressDeadlineSeconds non-negative, the deadline above minReadySeconds.
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    if min_ready < 0 {
        return Err(place.error(
            Some("spec.minReadySeconds"),
            format!("Invalid value: {min_ready}: must be greater than or equal to 0"),
        ));
    }
    let deadline = spec.progress_deadline_seconds.unwrap_or(600);
    if deadline < 0 {
        return Err(place.error(
            Some("spec.progressDeadlineSeconds"),
            format!("Invalid value: {deadline}: must be greater than or equal to 0"),
        ));
    }
    if deadline <= min_ready {
        return Err(place.error(
            Some("spec.progressDeadlineSeconds"),
            format!("Invalid value: {deadline}: must be greater than minReadySeconds"),
        ));
    }
    let seconds = |value: Option<i64>| u64::try_from(value.unwrap_or(0)).unwrap_or(0);
    Ok(RolloutSpec {
        strategy,
        min_ready_seconds: seconds(Some(i64::from(min_ready))),
        progress_deadline_seconds: u64::try_from(deadline).unwrap_or(600),
        termination_grace_seconds: seconds(Some(
            spec.template
                .spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
                .unwrap_or(30),
        )),
    })
}

/// `spec.replicas`, defaulted to 1 and validated as the API server does
/// (`ValidateNonnegativeField`).
fn checked_replicas(place: &Place, replicas: Option<i32>) -> Result<i32, Failure> {
    match replicas {
        Some(n) if n < 0 => Err(place.error(
            Some("spec.replicas"),
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        )),
        other => Ok(admission::default_replicas(other)),
    }
}

/// A StatefulSet's `updateStrategy` (default RollingUpdate, partition 0, maxUnavailable 1),
/// `podManagementPolicy` (default OrderedReady), `minReadySeconds` and
/// its pods' grace period, validated as the API server does.
fn stateful_set_spec(place: &Place, spec: &apps::StatefulSetSpec) -> Result<RolloutSpec, Failure> {
    // ValidateStatefulSetSpec: podManagementPolicy (defaulted to OrderedReady).
    let parallel = match spec
        .pod_management_policy
        .as_deref()
        .unwrap_or("OrderedReady")
    {
        "OrderedReady" => false,
        "Parallel" => true,
        other => {
            return Err(place.error(
                Some("spec.podManagementPolicy"),
                format!("Invalid value: \"{other}\": must be 'OrderedReady' or 'Parallel'"),
            ));
        }
    };
    let update = spec.update_strategy.as_ref();
    let strategy = match update
        .and_then(|u| u.type_.as_deref())
        .unwrap_or("RollingUpdate")
    {
        "OnDelete" => Strategy::OnDelete,
        "RollingUpdate" => {
            let partition = update
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.partition)
                .unwrap_or(0);
            if partition < 0 {
                return Err(place.error(
                    Some("spec.updateStrategy.rollingUpdate.partition"),
                    format!("Invalid value: {partition}: must be greater than or equal to 0"),
                ));
            }
            // validateRollingUpdateStatefulSet (pkg/apis/apps/validation/validation.go):
            // maxUnavailable a non-negative integer or a percent (ValidatePositiveIntOrPercent),
            // not 0 ("cannot be 0"), at most 100% (IsNotMoreThan100Percent); default 1.
            const MAX_UNAVAILABLE: &str = "spec.updateStrategy.rollingUpdate.maxUnavailable";
            let raw = update
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.max_unavailable.as_ref());
            let max_unavailable =
                int_or_percent(place, raw, IntOrPercent::Int(1), MAX_UNAVAILABLE)?;
            // field.Invalid with the IntOrString value itself: not an fmt.Stringer (String has a
            // pointer receiver), so apimachinery's ErrorBody prints it with %#v.
            if let IntOrPercent::Int(0) | IntOrPercent::Percent(0) = max_unavailable {
                let shown = match raw {
                    Some(IntOrString::String(text)) => {
                        format!("intstr.IntOrString{{Type:1, IntVal:0, StrVal:{text:?}}}")
                    }
                    _ => String::from("intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}"),
                };
                return Err(place.error(
                    Some(MAX_UNAVAILABLE),
                    format!("Invalid value: {shown}: cannot be 0"),
                ));
            }
            Strategy::OrderedRollingUpdate {
                partition,
                max_unavailable,
                parallel,
            }
        }
        other => {
            return Err(place.error(
                Some("spec.updateStrategy.type"),
                format!("Unsupported value: \"{other}\": supported values: \"OnDelete\", \"RollingUpdate\""),
            ));
        }
    };
    // ValidateStatefulSetSpec: minReadySeconds non-negative.
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    if min_ready < 0 {
        return Err(place.error(
            Some("spec.minReadySeconds"),
            format!("Invalid value: {min_ready}: must be greater than or equal to 0"),
        ));
    }
    Ok(RolloutSpec {
        strategy,
        min_ready_seconds: u64::try_from(min_ready).unwrap_or(0),
        progress_deadline_seconds: 600,
        termination_grace_seconds: u64::try_from(
            spec.template
                .spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
                .unwrap_or(30),
        )
        .unwrap_or(30),
    })
}
