//! Which live revision each Deployment's and StatefulSet's template is, once every object is
//! read (`crate::revision` compares templates). A Deployment whose template equals one of its
//! ReplicaSets' takes that ReplicaSet's `pod-template-hash`, so its new replicas join the
//! running ones (as the Deployment controller scales that ReplicaSet), and `matchLabelKeys:
//! [pod-template-hash]` counts them; a changed template is a new revision beside the old ones.

use std::collections::BTreeSet;

use serde_json::Value;
use spreadlab_engine::analysis::rollout::with_template_hash;
use spreadlab_engine::model::{Container, Pod, Selector};

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core_api;

use super::{Failure, Loader, Place, object_name};
use crate::admission::{LABEL_CONTROLLER_REVISION_HASH, LABEL_POD_TEMPLATE_HASH};
use crate::convert::{controller_owner, namespace_or};
use crate::error::InputWarning;
use crate::revision::Revision;
use crate::revision::fingerprint;
use crate::workload::WorkloadKind;

/// A ReplicaSet in the input that a Deployment controls.
pub(crate) struct LiveReplicaSet {
    /// Its own workload index (dropped when its Deployment is loaded).
    pub(crate) workload: usize,
    pub(crate) namespace: String,
    /// The controlling Deployment's name.
    pub(crate) deployment: String,
    pub(crate) name: String,
    /// Its `pod-template-hash` label.
    pub(crate) hash: Option<String>,
    /// Its template's fingerprint.
    pub(crate) fingerprint: Option<Value>,
    /// `metadata.creationTimestamp` (RFC 3339, so it sorts as text).
    pub(crate) created: Option<String>,
}

/// A ControllerRevision in the input that a StatefulSet controls.
pub(crate) struct LiveControllerRevision {
    pub(crate) namespace: String,
    /// The controlling StatefulSet's name.
    pub(crate) set: String,
    /// Its name, which its pods carry as `controller-revision-hash`.
    pub(crate) name: String,
    /// `revision`.
    pub(crate) revision: i64,
    /// The fingerprint of the template in its `data` (`spec.template`).
    pub(crate) fingerprint: Option<Value>,
}

impl Loader<'_> {
    /// A ControllerRevision: kept when a StatefulSet controls it (DaemonSets' are not needed).
    pub(super) fn add_controller_revision(
        &mut self,
        place: &Place,
        value: Value,
    ) -> Result<(), Failure> {
        let revision: apps::ControllerRevision = self.typed(place, value)?;
        let Some(owner) = controller_owner(&revision.metadata) else {
            return Ok(());
        };
        if owner.kind != "StatefulSet" {
            return Ok(());
        }
        // `getPatch` (pkg/controller/statefulset/stateful_set_utils.go): the data is
        // `{"spec": {"template": {..., "$patch": "replace"}}}`.
        let mut template = revision
            .data
            .0
            .pointer("/spec/template")
            .cloned()
            .unwrap_or(Value::Null);
        if let Some(object) = template.as_object_mut() {
            object.remove("$patch");
        }
        let fingerprint = serde_json::from_value::<core_api::PodTemplateSpec>(template)
            .ok()
            .as_ref()
            .and_then(fingerprint);
        self.live_controller_revisions.push(LiveControllerRevision {
            namespace: namespace_or(&revision.metadata, &self.options.default_namespace),
            set: owner.name,
            name: object_name(place, &revision.metadata)?,
            // Absent reads as 0, as Go's int64 does.
            revision: revision.revision.unwrap_or(0),
            fingerprint,
        });
        Ok(())
    }

    /// Sets each Deployment's and StatefulSet's [`Revision`] and, where a live one is found,
    /// gives its template that revision's hash.
    pub(super) fn resolve_revisions(&mut self) {
        for index in 0..self.loaded.workloads.len() {
            match self.loaded.workloads[index].kind {
                WorkloadKind::Deployment => self.deployment_revision(index),
                WorkloadKind::StatefulSet => self.stateful_set_revision(index),
                _ => {}
            }
        }
    }

    /// `FindNewReplicaSet` (`pkg/controller/deployment/util/deployment_util.go`): the Deployment's
    /// ReplicaSets oldest first (creation time, then name), the first whose template equals the
    /// Deployment's (`EqualIgnoreHash`). Without ReplicaSets, the running pods' one revision.
    fn deployment_revision(&mut self, index: usize) {
        let workload = &self.loaded.workloads[index];
        let mut sets: Vec<&LiveReplicaSet> = self
            .live_replica_sets
            .iter()
            .filter(|set| set.namespace == workload.namespace && set.deployment == workload.name)
            .collect();
        sets.sort_by(|a, b| (&a.created, &a.name).cmp(&(&b.created, &b.name)));
        let template = self
            .deployment_templates
            .iter()
            .find(|(workload, _)| *workload == index)
            .and_then(|(_, fingerprint)| fingerprint.as_ref());
        let revision = if sets.is_empty() {
            self.revision_from_pods(index, LABEL_POD_TEMPLATE_HASH)
        } else {
            let equal = sets
                .iter()
                .find(|set| template.is_some() && set.fingerprint.as_ref() == template);
            match equal.and_then(|set| Some((set.name.clone(), set.hash.clone()?))) {
                Some((name, hash)) => Revision::ReplicaSet { name, hash },
                None => Revision::Changed {
                    revisions: sets.iter().map(|set| set.name.clone()).collect(),
                },
            }
        };
        let hash = match &revision {
            Revision::ReplicaSet { hash, .. } | Revision::FromRunningPods { hash } => {
                Some(hash.clone())
            }
            _ => None,
        };
        if let Some(hash) = hash {
            let live = matches!(revision, Revision::ReplicaSet { .. });
            self.set_pod_template_hash(index, &hash, live);
        }
        self.loaded.workloads[index].revision = revision;
    }

    /// `getStatefulSetRevisions` (`pkg/controller/statefulset/stateful_set_control.go`): of
    /// the StatefulSet's ControllerRevisions whose template equals its own
    /// (`history.FindEqualRevisions`), the one with the highest `revision`. Without
    /// ControllerRevisions, the running pods' revision (`controller-revision-hash`).
    fn stateful_set_revision(&mut self, index: usize) {
        let workload = &self.loaded.workloads[index];
        let mut revisions: Vec<&LiveControllerRevision> = self
            .live_controller_revisions
            .iter()
            .filter(|r| r.namespace == workload.namespace && r.set == workload.name)
            .collect();
        revisions.sort_by(|a, b| (a.revision, &a.name).cmp(&(b.revision, &b.name)));
        let template = self
            .stateful_set_templates
            .iter()
            .find(|(workload, _)| *workload == index)
            .and_then(|(_, fingerprint)| fingerprint.as_ref());
        let revision = if revisions.is_empty() {
            self.revision_from_pods(index, LABEL_CONTROLLER_REVISION_HASH)
        } else {
            match revisions
                .iter()
                .rev()
                .find(|r| template.is_some() && r.fingerprint.as_ref() == template)
            {
                Some(equal) => Revision::ControllerRevision {
                    name: equal.name.clone(),
                },
                None => Revision::Changed {
                    revisions: revisions.iter().map(|r| r.name.clone()).collect(),
                },
            }
        };
        if let Revision::FromRunningPods { hash: name } | Revision::ControllerRevision { name } =
            &revision
        {
            let name = name.clone();
            self.loaded.workloads[index]
                .template
                .labels
                .insert(LABEL_CONTROLLER_REVISION_HASH.to_owned(), name);
        }
        self.loaded.workloads[index].revision = revision;
    }

    /// The revisions (`label`) of the workload's running replicas, and which of them could be
    /// the template's: those whose every pod shows the template's containers (name and image)
    /// and labels. None running: [`Revision::None`]; none could: a new revision; one could:
    /// taken as the template's, with a warning; several: a new revision, with a warning.
    fn revision_from_pods(&mut self, index: usize, label: &str) -> Revision {
        let workload = &self.loaded.workloads[index];
        let running = self.loaded.running_pods(workload);
        let hashes: BTreeSet<&String> = running
            .iter()
            .filter_map(|pod| pod.labels.get(label))
            .collect();
        if hashes.is_empty() {
            return Revision::None;
        }
        let candidates: Vec<String> = hashes
            .iter()
            .filter(|hash| {
                running
                    .iter()
                    .filter(|pod| pod.labels.get(label) == Some(**hash))
                    .all(|pod| shows_template(pod, &workload.template))
            })
            .map(|hash| (*hash).clone())
            .collect();
        let hashes: Vec<String> = hashes.into_iter().cloned().collect();
        let compared = match workload.kind {
            WorkloadKind::Deployment => "no ReplicaSet of this Deployment is in the input",
            _ => "no ControllerRevision of this StatefulSet is in the input",
        };
        let add = match workload.kind {
            WorkloadKind::Deployment => {
                "add its ReplicaSets (`kubectl get replicasets -o yaml`) to compare templates as \
                 the Deployment controller does"
            }
            _ => {
                "add its ControllerRevisions (`kubectl get controllerrevisions -o yaml`) to \
                 compare templates as the StatefulSet controller does"
            }
        };
        let (revision, message) = match candidates.len() {
            0 => return Revision::DiffersFromRunningPods { hashes },
            1 => {
                let hash = candidates.into_iter().next().unwrap_or_default();
                let message = format!(
                    "{compared}: the running revision {label}={hash}, whose pods show this \
                     template's images and labels, is taken as this template's; {add}"
                );
                (Revision::FromRunningPods { hash }, message)
            }
            _ => {
                let list: Vec<String> = candidates.iter().map(|h| format!("{label}={h}")).collect();
                let message = format!(
                    "{compared}, and the pods of {} running revisions ({}) show this template's \
                     images and labels: the template is taken as a new revision; {add}",
                    list.len(),
                    list.join(", ")
                );
                (Revision::Unknown { hashes }, message)
            }
        };
        self.loaded.warnings.push(InputWarning {
            file: workload.origin.file.clone(),
            document: Some(workload.origin.document),
            object: Some(workload.key()),
            path: Some(String::from("spec.template")),
            line: None,
            column: None,
            message,
        });
        revision
    }

    /// Gives Deployment `index` the `pod-template-hash` `hash` in its template (and every selector
    /// merged from it), its selector and its ReplicaSet among the cluster's controllers. When
    /// the ReplicaSet is `live` in the input it already is a controller: the stand-in goes.
    fn set_pod_template_hash(&mut self, index: usize, hash: &str, live: bool) {
        let workload = &mut self.loaded.workloads[index];
        let Some(old) = workload
            .template
            .labels
            .get(LABEL_POD_TEMPLATE_HASH)
            .cloned()
        else {
            return;
        };
        workload.template = with_template_hash(&workload.template, hash);
        if let Selector::Requirements(requirements) = &mut workload.selector {
            for requirement in requirements
                .iter_mut()
                .filter(|r| r.key == LABEL_POD_TEMPLATE_HASH)
            {
                requirement.values = vec![hash.to_owned()];
            }
        }
        let stand_in = format!("{}-{old}", workload.name);
        let (namespace, name, selector) = (
            workload.namespace.clone(),
            format!("{}-{hash}", workload.name),
            workload.selector.clone(),
        );
        let controllers = &mut self.loaded.cluster.controllers;
        let position = controllers
            .iter()
            .position(|c| c.namespace == namespace && c.name == stand_in);
        if let Some(position) = position {
            if live {
                controllers.remove(position);
            } else {
                controllers[position].name = name;
                controllers[position].selector = selector;
            }
        }
    }
}

/// Whether `pod` shows what the controller copied from `template` and admission leaves alone:
/// each of the template's containers and init containers, by name, with its image (injected
/// sidecars are extra, not different), and the template's labels (revision labels aside).
fn shows_template(pod: &Pod, template: &Pod) -> bool {
    let containers = |pod: &[Container], template: &[Container]| {
        template.iter().all(|wanted| {
            pod.iter()
                .any(|c| c.name == wanted.name && c.image == wanted.image)
        })
    };
    containers(&pod.containers, &template.containers)
        && containers(&pod.init_containers, &template.init_containers)
        && template
            .labels
            .iter()
            .filter(|(key, _)| {
                !matches!(
                    key.as_str(),
                    LABEL_POD_TEMPLATE_HASH | LABEL_CONTROLLER_REVISION_HASH
                )
            })
            .all(|(key, value)| pod.labels.get(key) == Some(value))
}
