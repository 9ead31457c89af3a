//! The workload kinds the loader places: bare Pods, Deployments, ReplicaSets, StatefulSets,
//! Jobs and Polyaxon services, each turned into a [`crate::Workload`] with its admitted template
//! and selector (`pkg/controller/*` semantics for what each controller creates).

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;
use spreadlab_engine::model::{Controller, ControllerKind, Labels, Pod, Selector};

use crate::admission::{self};
use crate::convert::{controller_owner, convert_pod_validated, label_selector, namespace_or};
use crate::error::InputError;
use crate::polyaxon::{self, Component};
use crate::revision::{Revision, fingerprint};
use crate::slim::SlimPod;
use crate::workload::{Origin, Workload, WorkloadKind};

/// Errors inside the loader are boxed (an [`InputError`] is large); they are unboxed into
/// [`Loaded::errors`].
type Failure = Box<InputError>;

use super::admission_objects::Admit;
use super::*;

impl Loader<'_> {
    /// [`Loader::add_document`] for a Pod already in its API type (`crate::Object::Pod`).
    pub(crate) fn add_typed_pod(&mut self, file: &str, document: usize, pod: SlimPod) {
        if self.stopped || !self.count_object(&Place::document(file, document)) {
            return;
        }
        let metadata = &pod.metadata;
        let place = Place {
            object: Some(self.format_object_id(
                "Pod",
                metadata.name.as_deref().filter(|n| !n.is_empty()),
                metadata.generate_name.as_deref(),
                metadata.namespace.as_deref(),
            )),
            ..Place::document(file, document)
        };
        if self.skipped(&place) {
            return;
        }
        if let Err(error) = self.add_pod(&place, pod) {
            self.loaded.errors.push(*error);
        }
    }

    pub(super) fn add_pod(&mut self, place: &Place, pod: SlimPod) -> Result<(), Failure> {
        // What is read after the conversion, which takes the pod (its strings are moved).
        let metadata = &pod.metadata;
        let name = named(
            place,
            metadata.name.as_ref(),
            metadata.generate_name.as_ref(),
        );
        let spec = pod.spec.as_ref();
        let class_name = spec
            .and_then(|s| s.priority_class_name.clone())
            .filter(|name| !name.is_empty());
        let explicit_priority = spec.and_then(|s| s.priority);
        let explicit_preemption_policy = spec.is_some_and(|s| s.preemption_policy.is_some());
        let runtime_class_name = spec.and_then(|s| s.runtime_class_name.clone());
        // A pod the API server stored has a uid or a creation time.
        let stored = pod.metadata.uid.is_some() || pod.metadata.creation_timestamp.is_some();
        let mut converted = convert_pod_validated(pod, &self.options.default_namespace)
            .map_err(|e| place.convert_error(e))?;
        converted.name = name?;
        self.warn_in_tree_volumes(place, &converted, "spec.volumes");
        if converted.node_name.is_some() {
            // A bound pod: the API server defaulted and admitted it when it was created. A
            // snapshot shows the result, on which admission changes nothing (it is idempotent);
            // a hand-written bound pod gets it here, so a pod with only `limits` holds its
            // requests as in a real cluster. A missing priority is filled in below.
            admission::admit_pod(&mut converted);
            let index = self.loaded.cluster.pods.len();
            self.loaded.cluster.pods.push(converted.into());
            // A pod the API server stored went through LimitRanger and RuntimeClass when it was
            // created (against the objects of that day); a hand-written one goes through them here.
            if !stored {
                self.to_admit.push(Admit {
                    target: Target::BoundPod(index),
                    runtime_class_name: runtime_class_name.clone(),
                    place: place.clone(),
                    path: "spec",
                });
            }
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
        // An unbound pod the API server stored is already waiting in the scheduling queue.
        converted.waiting = stored;
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
                runtime_class_name,
            },
        );
        Ok(())
    }

    /// Warns about the pod's inline in-tree volumes NodeVolumeLimits cannot count as upstream
    /// does (`in_tree_warning`).
    fn warn_in_tree_volumes(&mut self, place: &Place, pod: &Pod, path: &str) {
        for (index, volume) in pod.volumes.iter().enumerate() {
            if let Some(message) = volume
                .source
                .in_tree()
                .and_then(|s| crate::convert::storage::in_tree_warning(&s))
            {
                let path = format!("{path}[{index}]");
                self.loaded
                    .warnings
                    .push(place.warning(Some(&path), message));
            }
        }
    }

    /// A template as the controller's pods will have it before admission: in the workload's
    /// namespace, without name or owner.
    pub(super) fn template_pod(
        &mut self,
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
        let mut converted = convert_pod_validated(SlimPod::from(pod), namespace)
            .map_err(|e| place.convert_error(e.under("spec.template")))?;
        self.warn_in_tree_volumes(place, &converted, "spec.template.spec.volumes");
        converted.namespace = namespace.to_owned();
        converted.name.clear();
        converted.owner = None;
        Ok(converted)
    }

    /// `apps/v1` selector validation: required, non-empty, and matching the template's labels.
    pub(super) fn apps_selector(
        place: &Place,
        selector: &LabelSelector,
        template_labels: &Labels,
        kind: WorkloadKind,
    ) -> Result<Selector, Failure> {
        let selector =
            label_selector(Some(selector), &"spec.selector").map_err(|e| place.convert_error(e))?;
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
    pub(super) fn add_controller_workload(
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
            let hash = metadata
                .labels
                .as_ref()
                .and_then(|labels| labels.get(admission::LABEL_POD_TEMPLATE_HASH))
                .or_else(|| pod.labels.get(admission::LABEL_POD_TEMPLATE_HASH))
                .cloned();
            self.live_replica_sets.push(LiveReplicaSet {
                workload: self.loaded.workloads.len(),
                namespace: namespace.clone(),
                deployment: owner.name,
                name: name.clone(),
                hash,
                fingerprint: template.and_then(fingerprint),
                created: metadata
                    .creation_timestamp
                    .as_ref()
                    .and_then(|time| serde_json::to_value(time).ok())
                    .and_then(|time| time.as_str().map(str::to_owned)),
            });
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

    /// A ReplicationController (`pkg/controller/replication`, the ReplicaSet controller on the
    /// core type): a controller in the cluster and a workload. Its selector defaults to the
    /// template's labels (`SetDefaults_ReplicationController`); validation
    /// (`ValidateReplicationControllerSpec`) requires a template its selector matches.
    pub(super) fn add_replication_controller(
        &mut self,
        place: &Place,
        controller: core_api::ReplicationController,
    ) -> Result<(), Failure> {
        let namespace = namespace_or(&controller.metadata, &self.options.default_namespace);
        let name = object_name(place, &controller.metadata)?;
        let spec = controller.spec.unwrap_or_default();
        let Some(template) = spec.template.as_ref() else {
            return Err(place.error(Some("spec.template"), "Required value"));
        };
        let pod = self.template_pod(place, Some(template), &namespace)?;
        let selector =
            admission::replication_controller_selector(spec.selector.as_ref(), &pod.labels);
        if selector.is_empty() {
            return Err(place.error(Some("spec.selector"), "Required value"));
        }
        if !selector.matches(&pod.labels) {
            return Err(place.error(
                Some("spec.template.metadata.labels"),
                "Invalid value: `selector` does not match template `labels`",
            ));
        }
        self.loaded.cluster.controllers.push(Controller {
            kind: ControllerKind::ReplicationController,
            namespace: namespace.clone(),
            name: name.clone(),
            selector: selector.clone(),
        });
        // `replicas` defaults to 1 (declaratively, in pkg/apis/core/v1).
        let replicas = checked_replicas(place, Some(spec.replicas.unwrap_or(1)))?;
        self.push_workload(
            place,
            NewWorkload::from_template(
                WorkloadKind::ReplicationController,
                namespace,
                name,
                replicas,
                selector,
                pod,
                template.spec.as_ref(),
            ),
        );
        Ok(())
    }

    pub(super) fn add_deployment(
        &mut self,
        place: &Place,
        deployment: apps::Deployment,
    ) -> Result<(), Failure> {
        let spec = deployment.spec;
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
        self.deployment_templates
            .push((self.loaded.workloads.len(), fingerprint(&spec.template)));
        self.push_workload(place, new);
        Ok(())
    }

    pub(super) fn add_job(&mut self, place: &Place, job: batch::Job) -> Result<(), Failure> {
        let spec = job
            .spec
            .ok_or_else(|| place.error(Some("spec"), "Required value"))?;
        let namespace = namespace_or(&job.metadata, &self.options.default_namespace);
        let name = object_name(place, &job.metadata)?;
        let mut template = self.template_pod(place, Some(&spec.template), &namespace)?;
        let key = format!("{}/{namespace}/{name}", WorkloadKind::Job);
        let selector = match (&spec.selector, spec.manual_selector) {
            // A Job read back from the API carries its generated selector; a manual one is as given.
            (Some(selector), _) => label_selector(Some(selector), &"spec.selector")
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

    pub(super) fn add_polyaxon_component(
        &mut self,
        place: &Place,
        value: Value,
    ) -> Result<(), Failure> {
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
        let mut template = convert_pod_validated(SlimPod::from(service.pod.clone()), &namespace)
            .map_err(|error| {
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
                runtime_class_name: spec.and_then(|s| s.runtime_class_name.clone()),
            },
        );
        Ok(())
    }

    /// Admits the template and records the workload; its priority is resolved in [`Self::finish`].
    pub(super) fn push_workload(&mut self, place: &Place, new: NewWorkload) {
        let mut template = new.template;
        if !template.resource_claims.is_empty() {
            let path = if new.kind == WorkloadKind::Pod {
                "spec.resourceClaims"
            } else {
                "spec.template.spec.resourceClaims"
            };
            let message = "DynamicResources (DRA) is not modelled: the real scheduler places these pods only where their claims' devices can be allocated, and spreadlab ignores the claims, so it may place them where the real scheduler would not";
            self.loaded
                .warnings
                .push(place.warning(Some(path), message));
        }
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
            revision: Revision::None,
            waiting: Vec::new(),
            origin: Origin {
                file: place.file.clone(),
                document: place.document.unwrap_or(0),
            },
        });
        self.to_admit.push(Admit {
            target: Target::Workload(index),
            runtime_class_name: new.runtime_class_name.clone(),
            place: place.clone(),
            path: new
                .priority_path
                .strip_suffix(".priorityClassName")
                .unwrap_or("spec"),
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

    /// An unbound pod selected by a loaded controller is one of that controller's replicas
    /// (its own or adopted): one already waiting in the snapshot is scheduled as that
    /// controller's, under its own name ([`Workload::waiting`], oldest first); a hand-written
    /// one is what the controller's pods_to_create stands for. Marks the adopted Pod workloads
    /// in `dropped`.
    pub(super) fn adopt_unbound_pods(&mut self, dropped: &mut [bool]) {
        // An unbound pod selected by a loaded controller is one of that controller's replicas
        // (its own or adopted): one already waiting in the snapshot is scheduled as that
        // controller's, under its own name; a hand-written one is what the controller's
        // pods_to_create stands for.
        let controllers: Vec<(usize, Selector)> = self
            .loaded
            .workloads
            .iter()
            .enumerate()
            .filter(|(index, w)| {
                !dropped[*index]
                    && matches!(
                        w.kind,
                        WorkloadKind::Deployment
                            | WorkloadKind::ReplicaSet
                            | WorkloadKind::ReplicationController
                            | WorkloadKind::StatefulSet
                            | WorkloadKind::Job
                    )
            })
            .map(|(index, w)| (index, w.running_selector()))
            .collect();
        let mut adopted: Vec<(usize, Pod)> = Vec::new();
        for (index, workload) in self.loaded.workloads.iter().enumerate() {
            if workload.kind != WorkloadKind::Pod {
                continue;
            }
            let adoptable = workload.template.owner.as_ref().is_none_or(|owner| {
                matches!(
                    owner.kind.as_str(),
                    "ReplicaSet" | "ReplicationController" | "StatefulSet" | "Job"
                )
            });
            let mut pod = workload.template.clone();
            pod.name = workload.name.clone();
            let adopter = controllers.iter().find(|(controller, selector)| {
                let controller = &self.loaded.workloads[*controller];
                controller.namespace == pod.namespace
                    && selector.matches(&pod.labels)
                    && controller.controls(&pod)
            });
            let Some((controller, _)) = adopter.filter(|_| adoptable) else {
                continue;
            };
            dropped[index] = true;
            if pod.waiting {
                adopted.push((*controller, pod));
            }
        }
        for (controller, pod) in adopted {
            self.loaded.workloads[controller].waiting.push(pod);
        }
        for workload in &mut self.loaded.workloads {
            workload.waiting.sort_by(|a, b| {
                (a.created.is_none(), a.created, &a.name).cmp(&(
                    b.created.is_none(),
                    b.created,
                    &b.name,
                ))
            });
        }
    }
}
