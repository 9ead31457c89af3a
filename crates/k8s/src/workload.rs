//! What to place: a workload (Deployment, ReplicaSet, StatefulSet, Job, unbound Pod, Polyaxon
//! service) and the pods its controller would create against a cluster.

use core::fmt;
use std::collections::BTreeSet;

use spreadlab_engine::analysis::bound;
use spreadlab_engine::model::{Cluster, OwnerRef, Pod, Requirement, Selector};

use crate::admission::{self, LABEL_POD_TEMPLATE_HASH};
use crate::revision::Revision;

/// The kind of a [`Workload`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkloadKind {
    /// `apps/v1` Deployment (its pods belong to a ReplicaSet `<name>-<hash>`).
    Deployment,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `v1` ReplicationController.
    ReplicationController,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `batch/v1` Job.
    Job,
    /// A Pod without `spec.nodeName`.
    Pod,
    /// A Polyaxon component with `run.kind: service`.
    PolyaxonService,
}

impl WorkloadKind {
    /// The kind's name as written in manifests (`PolyaxonService` for Polyaxon services).
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::ReplicationController => "ReplicationController",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::Job => "Job",
            WorkloadKind::Pod => "Pod",
            WorkloadKind::PolyaxonService => "PolyaxonService",
        }
    }
}

impl fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a workload was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The source's name (file path, `-`, or the origin given to `load_values`).
    pub file: String,
    /// 0-based document index in the source.
    pub document: usize,
}

/// Something to place: desired replicas of one pod template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Kind.
    pub kind: WorkloadKind,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Desired replicas (Job: pods running at once, `min(parallelism, completions)`; Pod: 1).
    pub replicas: i32,
    /// The pods' selector (a Deployment's includes `pod-template-hash`, as its ReplicaSet's does);
    /// [`Selector::Nothing`] for a Pod or a Polyaxon service, which own no other pods.
    pub selector: Selector,
    /// The admitted pod template ([`crate::admit_pod`] applied, priority resolved), in the
    /// workload's namespace, without a name.
    pub template: Pod,
    /// `spec.priorityClassName` of the template.
    pub priority_class_name: Option<String>,
    /// A Deployment's or StatefulSet's update strategy and timings (defaulted), for the rollout
    /// analysis.
    pub rollout: Option<spreadlab_engine::model::RolloutSpec>,
    /// Which live revision the template is (Deployments and StatefulSets).
    pub revision: Revision,
    /// The controller's pods already waiting in the snapshot (unbound, stored by the API
    /// server; [`spreadlab_engine::model::Pod::waiting`]), oldest first: they are among the
    /// replicas it schedules, under their own names, before any it would create.
    pub waiting: Vec<Pod>,
    /// Where it was read.
    pub origin: Origin,
}

impl Workload {
    /// `Kind/namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace, self.name)
    }

    /// The selector that counts running replicas: [`Workload::selector`], except that for a
    /// Deployment the stand-in `pod-template-hash` is left out, so the pods of the Deployment's
    /// real ReplicaSet (whose hash cannot be reproduced) count as running.
    pub fn running_selector(&self) -> Selector {
        match (&self.kind, &self.selector) {
            (WorkloadKind::Deployment, Selector::Requirements(requirements)) => {
                Selector::Requirements(
                    requirements
                        .iter()
                        .filter(|r| r.key != LABEL_POD_TEMPLATE_HASH)
                        .cloned()
                        .collect::<Vec<Requirement>>(),
                )
            }
            (_, selector) => selector.clone(),
        }
    }

    /// The pods in `cluster` that count as this workload's running replicas: in its namespace,
    /// neither terminating nor terminal, and
    /// - Pod: the pod of the same name;
    /// - Polyaxon service: named `<name>-<n>` with `n < replicas`;
    /// - otherwise: matched by [`Workload::running_selector`] and either this workload's own
    ///   ([`Workload::controls`]) or without a controller (the controller adopts orphans its
    ///   selector matches, `ClaimPods`). A pod another controller owns is never counted, even
    ///   when the selector matches it: replicas belong to a workload by ownership.
    pub fn running_pods<'c>(&self, cluster: &'c Cluster) -> Vec<&'c Pod> {
        let selector = self.running_selector();
        let desired = usize::try_from(self.replicas).unwrap_or(0);
        cluster
            .pods
            .iter()
            .map(|pod| &**pod)
            .filter(|pod| self.runs(pod, &selector, desired))
            .collect()
    }

    /// Whether `pod` is one of this workload's running replicas ([`Workload::running_pods`];
    /// `selector` is [`Workload::running_selector`], `desired` the replicas).
    pub(crate) fn runs(&self, pod: &Pod, selector: &Selector, desired: usize) -> bool {
        pod.namespace == self.namespace
            && !pod.terminating
            && !pod.phase.is_terminal()
            && match self.kind {
                WorkloadKind::Pod => pod.name == self.name,
                WorkloadKind::PolyaxonService => pod
                    .name
                    .strip_prefix(self.name.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .and_then(|index| index.parse::<usize>().ok())
                    .is_some_and(|index| index < desired),
                _ => selector.matches(&pod.labels) && self.controls(pod),
            }
    }

    /// Whether `pod` is this workload's by its controller reference, or has none: a
    /// Deployment's pods are controlled by a ReplicaSet named `<deployment>-<pod-template-hash>`
    /// (the hash: 1 to 10 lowercase letters and digits, no `-`), a ReplicaSet's, StatefulSet's
    /// or Job's by the object itself.
    pub fn controls(&self, pod: &Pod) -> bool {
        let Some(owner) = &pod.owner else {
            return true;
        };
        match self.kind {
            WorkloadKind::Deployment => {
                owner.kind == "ReplicaSet"
                    && owner
                        .name
                        .strip_prefix(self.name.as_str())
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|hash| {
                            (1..=10).contains(&hash.len())
                                && hash
                                    .bytes()
                                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                        })
            }
            WorkloadKind::ReplicaSet => owner.kind == "ReplicaSet" && owner.name == self.name,
            WorkloadKind::ReplicationController => {
                owner.kind == "ReplicationController" && owner.name == self.name
            }
            WorkloadKind::StatefulSet => owner.kind == "StatefulSet" && owner.name == self.name,
            WorkloadKind::Job => owner.kind == "Job" && owner.name == self.name,
            WorkloadKind::Pod | WorkloadKind::PolyaxonService => true,
        }
    }

    /// Pods the controller would create now: desired minus running replicas
    /// ([`Workload::running_pods`]), all of them; see [`Workload::replicas_to_create`] for the
    /// bounded form the analyses use.
    pub fn pods_to_create(&self, cluster: &Cluster) -> Vec<Pod> {
        self.create(cluster, &self.running_pods(cluster), usize::MAX)
    }

    /// The missing replicas as the analyses place them: the pods built (as many as can change
    /// an answer, [`bound::replicas_to_build`]) and how many more are counted, not built (each
    /// stays Pending as the last built one does). Names:
    /// - StatefulSet: `<name>-<ordinal>` for each ordinal in `0..replicas` no running pod has;
    /// - Polyaxon service: `<name>-<n>` likewise;
    /// - Deployment: `<name>-<hash>-<n>`, ReplicaSet and Job: `<name>-<n>`, with the lowest `n`
    ///   whose name no pod in the namespace has;
    /// - Pod: its own name (nothing when it is running).
    ///
    /// Each pod is the template with its name, the controller's owner reference and per-pod
    /// labels (StatefulSet), admitted again ([`crate::admit_pod`] is idempotent; this merges
    /// `matchLabelKeys` for per-pod labels).
    pub fn replicas_to_create(&self, cluster: &Cluster) -> (Vec<Pod>, usize) {
        self.replicas_to_create_beside(cluster, &self.running_pods(cluster))
    }

    /// [`Workload::replicas_to_create`] beside these running replicas.
    fn replicas_to_create_beside(&self, cluster: &Cluster, running: &[&Pod]) -> (Vec<Pod>, usize) {
        let (build, missing) = self.build_count(cluster, running);
        let pods = self.create(cluster, running, build);
        let built = pods.len();
        (pods, missing.saturating_sub(built))
    }

    /// How many of the missing replicas [`Workload::replicas_to_create`] builds, and how many
    /// are missing, without building any.
    pub fn replicas_to_build(&self, cluster: &Cluster) -> (usize, usize) {
        self.build_count(cluster, &self.running_pods(cluster))
    }

    /// [`Workload::replicas_to_build`] beside these running replicas.
    fn build_count(&self, cluster: &Cluster, running: &[&Pod]) -> (usize, usize) {
        let exact = !(self.kind == WorkloadKind::StatefulSet
            && bound::per_pod_labels_selected(cluster, &self.template));
        let missing = self.missing(running);
        (
            bound::replicas_to_build(cluster, &self.template, missing, exact),
            missing,
        )
    }

    /// How many replicas are missing: desired minus running (for ordinal names, the ordinals
    /// below `replicas` no running pod has).
    fn missing(&self, running: &[&Pod]) -> usize {
        let desired = usize::try_from(self.replicas).unwrap_or(0);
        match self.kind {
            WorkloadKind::Pod => usize::from(running.is_empty()),
            WorkloadKind::StatefulSet | WorkloadKind::PolyaxonService => {
                let taken: BTreeSet<usize> = running
                    .iter()
                    .filter_map(|pod| self.ordinal_of(&pod.name))
                    .filter(|ordinal| *ordinal < desired)
                    .collect();
                desired - taken.len()
            }
            WorkloadKind::Deployment
            | WorkloadKind::ReplicaSet
            | WorkloadKind::ReplicationController
            | WorkloadKind::Job => desired.saturating_sub(running.len()),
        }
    }

    /// The ordinal of `<name>-<ordinal>` (written as the controller writes it).
    fn ordinal_of(&self, pod_name: &str) -> Option<usize> {
        let ordinal: usize = pod_name
            .strip_prefix(self.name.as_str())?
            .strip_prefix('-')?
            .parse()
            .ok()?;
        (format!("{}-{ordinal}", self.name) == pod_name).then_some(ordinal)
    }

    /// Up to `most` of the missing replicas beside `running`, built, in name order.
    fn create(&self, cluster: &Cluster, running: &[&Pod], most: usize) -> Vec<Pod> {
        let desired = usize::try_from(self.replicas).unwrap_or(0);
        // A waiting pod of a name to create is that replica (a StatefulSet's ordinal); a
        // ReplicaSet-like controller's waiting pods come before the names it would make.
        let mut waiting: Vec<Pod> = Vec::new();
        let names: Vec<String> = match self.kind {
            WorkloadKind::Pod if running.is_empty() && most > 0 => vec![self.name.clone()],
            WorkloadKind::Pod => Vec::new(),
            WorkloadKind::StatefulSet | WorkloadKind::PolyaxonService => {
                let running: BTreeSet<&str> = running.iter().map(|pod| pod.name.as_str()).collect();
                (0..desired)
                    .map(|ordinal| format!("{}-{ordinal}", self.name))
                    .filter(|name| !running.contains(name.as_str()))
                    .take(most)
                    .collect()
            }
            WorkloadKind::Deployment
            | WorkloadKind::ReplicaSet
            | WorkloadKind::ReplicationController
            | WorkloadKind::Job => {
                let wanted = desired.saturating_sub(running.len()).min(most);
                waiting = self.waiting.iter().take(wanted).cloned().collect();
                let prefix = match self.kind {
                    WorkloadKind::Deployment => self.replica_set_name(),
                    _ => self.name.clone(),
                } + "-";
                // Only the names it would make can be taken: those starting with the prefix.
                let taken: BTreeSet<&str> = cluster
                    .pods
                    .iter()
                    .map(|pod| &**pod)
                    .chain(&self.waiting)
                    .filter(|pod| pod.name.starts_with(&prefix) && pod.namespace == self.namespace)
                    .map(|pod| pod.name.as_str())
                    .collect();
                (0..)
                    .map(|n| format!("{prefix}{n}"))
                    .filter(|name| !taken.contains(name.as_str()))
                    .take(wanted - waiting.len())
                    .collect()
            }
        };
        waiting.extend(names.into_iter().map(|name| {
            match self.waiting.iter().find(|pod| pod.name == name) {
                Some(pod) => pod.clone(),
                None => self.pod_named(name),
            }
        }));
        waiting
    }

    /// The workload as the engine's analyses follow it: its running replicas in `cluster`
    /// ([`Workload::running_pods`]), the pods its controller would create now
    /// ([`Workload::replicas_to_create`]: built, and counted) and its update strategy; no HorizontalPodAutoscaler (see
    /// [`crate::Loaded::scenario`]).
    pub fn for_analysis(&self, cluster: &Cluster) -> spreadlab_engine::model::Workload {
        self.for_analysis_beside(cluster, &self.running_pods(cluster))
    }

    /// [`Workload::for_analysis`] with its running pods found already (by
    /// [`crate::Loaded::running_pods`]).
    pub fn for_analysis_beside(
        &self,
        cluster: &Cluster,
        running: &[&Pod],
    ) -> spreadlab_engine::model::Workload {
        let (to_create, not_built) = self.replicas_to_create_beside(cluster, running);
        spreadlab_engine::model::Workload {
            key: self.key(),
            desired: usize::try_from(self.replicas).unwrap_or(0),
            running: running.iter().map(|pod| pod.key()).collect(),
            to_create,
            not_built,
            template: self.pod_named(String::new()),
            rollout: self.rollout.clone(),
            hpa_max_replicas: None,
        }
    }

    /// The Deployment's ReplicaSet: `<name>-<pod-template-hash>`.
    fn replica_set_name(&self) -> String {
        let hash = self
            .template
            .labels
            .get(LABEL_POD_TEMPLATE_HASH)
            .cloned()
            .unwrap_or_else(|| admission::template_hash(&self.key()));
        format!("{}-{hash}", self.name)
    }

    fn pod_named(&self, name: String) -> Pod {
        let mut pod = self.template.clone();
        pod.namespace = self.namespace.clone();
        let owner = |api_version: &str, kind: &str, name: String| {
            Some(OwnerRef {
                api_version: api_version.to_owned(),
                kind: kind.to_owned(),
                name,
            })
        };
        match self.kind {
            WorkloadKind::Deployment => {
                pod.owner = owner("apps/v1", "ReplicaSet", self.replica_set_name())
            }
            WorkloadKind::ReplicaSet => {
                pod.owner = owner("apps/v1", "ReplicaSet", self.name.clone())
            }
            WorkloadKind::ReplicationController => {
                pod.owner = owner("v1", "ReplicationController", self.name.clone())
            }
            WorkloadKind::StatefulSet => {
                pod.owner = owner("apps/v1", "StatefulSet", self.name.clone());
                let ordinal = name
                    .rsplit('-')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                admission::add_stateful_set_pod_labels(
                    &self.key(),
                    &self.name,
                    &name,
                    ordinal,
                    &mut pod.labels,
                );
            }
            WorkloadKind::Job => pod.owner = owner("batch/v1", "Job", self.name.clone()),
            WorkloadKind::Pod | WorkloadKind::PolyaxonService => {}
        }
        pod.name = name;
        admission::admit_pod(&mut pod);
        pod
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spreadlab_engine::model::{Labels, PodPhase};

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn workload(kind: WorkloadKind, replicas: i32) -> Workload {
        let mut template = Pod::named("default", "");
        template.labels = labels(&[("app", "web")]);
        Workload {
            kind,
            namespace: "default".into(),
            name: "web".into(),
            replicas,
            selector: Selector::from_set(&labels(&[("app", "web")])),
            template,
            priority_class_name: None,
            rollout: None,
            revision: Revision::None,
            waiting: Vec::new(),
            origin: Origin {
                file: "-".into(),
                document: 0,
            },
        }
    }

    fn bound(name: &str, app: &str) -> Pod {
        let mut pod = Pod::named("default", name);
        pod.labels = labels(&[("app", app)]);
        pod.node_name = Some("n1".into());
        pod.phase = PodPhase::Running;
        pod
    }

    #[test]
    fn running_replicas_are_subtracted_and_terminating_ones_are_not() {
        let mut cluster = Cluster::default();
        cluster.pods.push(bound("web-0", "web").into());
        let mut terminating = bound("web-old", "web");
        terminating.terminating = true;
        cluster.pods.push(terminating.into());
        let mut done = bound("web-done", "web");
        done.phase = PodPhase::Succeeded;
        cluster.pods.push(done.into());
        cluster.pods.push(bound("other", "api").into());
        let mut elsewhere = bound("web-x", "web");
        elsewhere.namespace = "prod".into();
        cluster.pods.push(elsewhere.into());
        let replica_set = workload(WorkloadKind::ReplicaSet, 3);
        let running: Vec<&str> = replica_set
            .running_pods(&cluster)
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(running, vec!["web-0"]);
        let pods = replica_set.pods_to_create(&cluster);
        // web-0 is taken, so the two new pods are web-1 and web-2.
        assert_eq!(
            pods.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            vec!["web-1", "web-2"]
        );
        assert_eq!(pods[0].owner.as_ref().unwrap().kind, "ReplicaSet");
        assert_eq!(pods[0].namespace, "default");
    }

    #[test]
    fn stateful_set_fills_missing_ordinals_with_identity_labels() {
        let mut cluster = Cluster::default();
        cluster.pods.push(bound("web-1", "web").into());
        let pods = workload(WorkloadKind::StatefulSet, 3).pods_to_create(&cluster);
        assert_eq!(
            pods.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            vec!["web-0", "web-2"]
        );
        assert_eq!(
            pods[1].labels["statefulset.kubernetes.io/pod-name"],
            "web-2"
        );
        assert_eq!(pods[1].labels["apps.kubernetes.io/pod-index"], "2");
        assert_eq!(pods[1].owner.as_ref().unwrap().kind, "StatefulSet");
    }

    #[test]
    fn deployment_pods_belong_to_the_hashed_replica_set() {
        let mut deployment = workload(WorkloadKind::Deployment, 2);
        deployment
            .template
            .labels
            .insert(LABEL_POD_TEMPLATE_HASH.into(), "5d8f9c7b4".into());
        deployment.selector = deployment
            .selector
            .and([Requirement::equals(LABEL_POD_TEMPLATE_HASH, "5d8f9c7b4")]);
        let mut cluster = Cluster::default();
        // A pod of the real ReplicaSet (another hash) counts as running.
        let mut real = bound("web-7c6d5b4f8-abcde", "web");
        real.labels
            .insert(LABEL_POD_TEMPLATE_HASH.into(), "7c6d5b4f8".into());
        cluster.pods.push(real.into());
        let pods = deployment.pods_to_create(&cluster);
        assert_eq!(pods.len(), 1);
        assert_eq!(pods[0].name, "web-5d8f9c7b4-0");
        assert_eq!(pods[0].owner.as_ref().unwrap().name, "web-5d8f9c7b4");
    }

    #[test]
    fn pod_workload_is_created_once() {
        let mut pod_workload = workload(WorkloadKind::Pod, 1);
        pod_workload.selector = Selector::Nothing;
        assert_eq!(
            pod_workload.pods_to_create(&Cluster::default())[0].name,
            "web"
        );
        let mut cluster = Cluster::default();
        cluster.pods.push(bound("web", "web").into());
        assert!(pod_workload.pods_to_create(&cluster).is_empty());
        assert_eq!(pod_workload.key(), "Pod/default/web");
    }
}
