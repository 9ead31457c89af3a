//! The engine's view of a Pod: scheduling-relevant fields of `v1.PodSpec` and metadata, typed.

use alloc::string::String;
use alloc::vec::Vec;

use super::labels::{Labels, Requirement, Selector};
use super::node::Node;
use super::resources::ResourceList;
use super::taint::Toleration;
use super::volumes::PodVolume;

/// `pod.status.phase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PodPhase {
    /// `Pending` (also an absent phase).
    #[default]
    Pending,
    /// `Running`.
    Running,
    /// `Succeeded`: terminal, not in the scheduler's cache.
    Succeeded,
    /// `Failed`: terminal, not in the scheduler's cache.
    Failed,
    /// `Unknown`.
    Unknown,
}

impl PodPhase {
    /// Whether the scheduler's informer drops pods in this phase (`Succeeded`, `Failed`).
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

/// `spec.preemptionPolicy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PreemptionPolicy {
    /// `PreemptLowerPriority` (the default).
    #[default]
    PreemptLowerPriority,
    /// `Never`.
    Never,
}

/// The controller owner reference (`ownerReferences[]` with `controller: true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRef {
    /// `apiVersion`, e.g. `apps/v1`.
    pub api_version: String,
    /// `kind`, e.g. `ReplicaSet`.
    pub kind: String,
    /// `name`.
    pub name: String,
}

/// A container port that may claim a host port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerPort {
    /// `hostPort` (0 when absent).
    pub host_port: i32,
    /// `hostIP` (empty means `0.0.0.0`).
    pub host_ip: String,
    /// `protocol` (empty means `TCP`).
    pub protocol: String,
    /// `containerPort`.
    pub container_port: i32,
}

/// A container, init container or sidecar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Container {
    /// `name`.
    pub name: String,
    /// `image`.
    pub image: Option<String>,
    /// `resources.requests`, parsed (cpu in millicores).
    pub requests: ResourceList,
    /// `resources.limits`, parsed; the API server copies limits into absent requests.
    pub limits: ResourceList,
    /// `ports`.
    pub ports: Vec<ContainerPort>,
    /// `restartPolicy: Always` on an init container: a sidecar.
    pub restart_policy_always: bool,
    /// The resources the kubelet reports in the pod's status entry of the same name
    /// (`status.containerStatuses[]`, else `status.initContainerStatuses[]`); `None` without one.
    pub status: Option<ResourceStatus>,
}

/// The resources the kubelet reports for a container or a whole pod once an in-place resize is
/// under way (a container status, or the pod's `status.resources`/`status.allocatedResources`).
/// Only a bound pod's count reads them ([`crate::framework::resize`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceStatus {
    /// `resources` is set (a container status's, or the pod's `status.resources`).
    pub resources_set: bool,
    /// `resources.requests`, parsed (what the runtime actuated); `None` when absent.
    pub actuated: Option<ResourceList>,
    /// `allocatedResources`, parsed (what the kubelet admitted); `None` when absent.
    pub allocated: Option<ResourceList>,
}

impl ResourceStatus {
    /// Whether the status reports anything.
    pub fn is_set(&self) -> bool {
        self.resources_set || self.allocated.is_some()
    }
}

/// One node selector term: everything inside is ANDed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeSelectorTerm {
    /// `matchExpressions` on node labels.
    pub match_expressions: Vec<Requirement>,
    /// `matchFields`; only `metadata.name` exists.
    pub match_fields: Vec<Requirement>,
    /// The parse error of the term (apimachinery's text, paths relative to the term), for terms the
    /// API server's validation would reject. Such a term never matches.
    pub parse_error: Option<String>,
}

/// `metav1.ObjectNameField`, the only supported `matchFields` key.
pub const OBJECT_NAME_FIELD: &str = "metadata.name";

impl NodeSelectorTerm {
    /// Whether the term matches a node: every expression on labels and every field requirement.
    /// An empty term matches nothing (component-helpers drops it).
    pub fn matches(&self, node: &Node) -> bool {
        self.matches_labels(&node.labels, &node.name)
    }

    /// [`NodeSelectorTerm::matches`] for a node given by its labels and name (a PersistentVolume's
    /// node affinity is checked against a node with labels and no name, `CheckNodeAffinity`).
    pub fn matches_labels(&self, labels: &Labels, name: &str) -> bool {
        if self.parse_error.is_some()
            || (self.match_expressions.is_empty() && self.match_fields.is_empty())
        {
            return false;
        }
        self.match_expressions.iter().all(|r| r.matches(labels))
            && self.match_fields.iter().all(|r| {
                let mut fields = Labels::new();
                fields.insert(String::from(OBJECT_NAME_FIELD), String::from(name));
                r.matches(&fields)
            })
    }
}

/// A preferred node affinity term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreferredSchedulingTerm {
    /// 1..100.
    pub weight: i32,
    /// The term.
    pub preference: NodeSelectorTerm,
}

/// `spec.affinity.nodeAffinity`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeAffinity {
    /// `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms` (ORed); `None` when absent.
    pub required: Option<Vec<NodeSelectorTerm>>,
    /// `preferredDuringSchedulingIgnoredDuringExecution`.
    pub preferred: Vec<PreferredSchedulingTerm>,
}

/// A pod (anti-)affinity term as written in the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodAffinityTerm {
    /// `labelSelector`; nil is [`Selector::Nothing`].
    pub selector: Selector,
    /// `topologyKey`.
    pub topology_key: String,
    /// `namespaces`.
    pub namespaces: Vec<String>,
    /// `namespaceSelector`; `None` when nil.
    pub namespace_selector: Option<Selector>,
    /// `matchLabelKeys` (already merged into `selector` for admitted pods).
    pub match_label_keys: Vec<String>,
    /// `mismatchLabelKeys` (already merged into `selector` for admitted pods).
    pub mismatch_label_keys: Vec<String>,
    /// The error `LabelSelectorAsSelector` gives for `labelSelector` or `namespaceSelector`, for terms
    /// the API server's validation would reject (the scheduler reports it as `parsing pod: ...`).
    pub parse_error: Option<String>,
}

/// A preferred pod (anti-)affinity term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedPodAffinityTerm {
    /// 1..100.
    pub weight: i32,
    /// The term.
    pub term: PodAffinityTerm,
}

/// `podAffinity` or `podAntiAffinity`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodAffinity {
    /// Required terms.
    pub required: Vec<PodAffinityTerm>,
    /// Preferred terms.
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

/// `spec.affinity`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affinity {
    /// `nodeAffinity`.
    pub node_affinity: Option<NodeAffinity>,
    /// `podAffinity`; `Some` even when empty if the struct was present (matters for scoring).
    pub pod_affinity: Option<PodAffinity>,
    /// `podAntiAffinity`; `Some` even when empty if the struct was present.
    pub pod_anti_affinity: Option<PodAffinity>,
}

/// `whenUnsatisfiable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenUnsatisfiable {
    /// `DoNotSchedule`: a hard constraint (Filter).
    DoNotSchedule,
    /// `ScheduleAnyway`: a soft constraint (Score).
    ScheduleAnyway,
}

/// `nodeAffinityPolicy` / `nodeTaintsPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeInclusionPolicy {
    /// `Honor`.
    Honor,
    /// `Ignore`.
    Ignore,
}

/// A `topologySpreadConstraints` entry as written in the spec (defaults not yet applied).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologySpreadConstraint {
    /// `maxSkew`.
    pub max_skew: i32,
    /// `topologyKey`.
    pub topology_key: String,
    /// `whenUnsatisfiable`.
    pub when_unsatisfiable: WhenUnsatisfiable,
    /// `labelSelector`; nil is [`Selector::Nothing`].
    pub selector: Selector,
    /// `minDomains`.
    pub min_domains: Option<i32>,
    /// `nodeAffinityPolicy`.
    pub node_affinity_policy: Option<NodeInclusionPolicy>,
    /// `nodeTaintsPolicy`.
    pub node_taints_policy: Option<NodeInclusionPolicy>,
    /// `matchLabelKeys`.
    pub match_label_keys: Vec<String>,
}

/// A pod.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pod {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid` (empty for a pod the simulation creates). VolumeBinding compares it with the
    /// controller owner of a generic ephemeral volume's claim (`ephemeral.VolumeIsForPod`).
    pub uid: String,
    /// `metadata.labels`.
    pub labels: Labels,
    /// The controller owner reference.
    pub owner: Option<OwnerRef>,
    /// `spec.priority` (0 when absent).
    pub priority: i32,
    /// `spec.preemptionPolicy`.
    pub preemption_policy: PreemptionPolicy,
    /// `spec.nodeName`: set for bound pods.
    pub node_name: Option<String>,
    /// `status.nominatedNodeName`.
    pub nominated_node_name: Option<String>,
    /// `metadata.creationTimestamp` as seconds since an arbitrary epoch (the queue order of
    /// pods already waiting, see [`Pod::waiting`]).
    pub created: Option<i64>,
    /// An unbound pod the API server already stored (read from a snapshot, not created by the
    /// simulation): it waits in the scheduling queue ahead of the pods the simulation creates
    /// at the same priority, and its `status.nominatedNodeName` is in the scheduler's
    /// nominator from the start (`PriorityQueue.Add`, pkg/scheduler/backend/queue).
    pub waiting: bool,
    /// Terminating because the scheduler preempted it: `metadata.deletionTimestamp` set and a
    /// `DisruptionTarget` condition True with reason `PreemptionByScheduler`
    /// (`podTerminatingByPreemption`, defaultpreemption/default_preemption.go).
    pub terminating_by_preemption: bool,
    /// `status.phase`.
    pub phase: PodPhase,
    /// `metadata.deletionTimestamp` is set.
    pub terminating: bool,
    /// `status.startTime` as seconds since an arbitrary epoch (preemption orders victims by it).
    pub start_time: Option<i64>,
    /// `spec.containers`.
    pub containers: Vec<Container>,
    /// `spec.initContainers`.
    pub init_containers: Vec<Container>,
    /// `spec.overhead`.
    pub overhead: ResourceList,
    /// `spec.resources.requests` (pod-level resources).
    pub pod_requests: ResourceList,
    /// The pod-level resources the kubelet reports (`status.resources`,
    /// `status.allocatedResources`; InPlacePodLevelResourcesVerticalScaling).
    pub status_resources: ResourceStatus,
    /// The first `PodResizePending` condition has reason `Infeasible` (`IsPodResizeInfeasible`):
    /// a bound pod then counts what the kubelet reports, not its spec.
    pub resize_infeasible: bool,
    /// `spec.tolerations`.
    pub tolerations: Vec<Toleration>,
    /// `spec.nodeSelector`.
    pub node_selector: Labels,
    /// `spec.affinity`.
    pub affinity: Affinity,
    /// `spec.topologySpreadConstraints`.
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    /// `spec.hostNetwork`.
    pub host_network: bool,
    /// `spec.hostUsers` (`None`: unset).
    pub host_users: Option<bool>,
    /// A container or init container has a `restartPolicyRules` entry with action
    /// `RestartAllContainers` (NodeDeclaredFeatures infers a node feature from it).
    pub restarts_all_containers: bool,
    /// `spec.schedulingGates` is non-empty: the pod never reaches the scheduling queue.
    pub scheduling_gated: bool,
    /// `spec.volumes` (the volume plugins read claims and inline disks).
    pub volumes: Vec<PodVolume>,
    /// The names of `spec.resourceClaims` (DynamicResources, not modelled: kept so that the
    /// loader can say what an answer may miss).
    pub resource_claims: Vec<String>,
}

impl Pod {
    /// Whether the kubelet reported resources of an in-place resize for the pod or one of its
    /// containers, or found its resize infeasible: its count as a bound pod may then differ from
    /// its spec.
    pub fn has_resource_status(&self) -> bool {
        self.resize_infeasible
            || self.status_resources.is_set()
            || self
                .containers
                .iter()
                .chain(&self.init_containers)
                .any(|c| c.status.is_some())
    }

    /// A pod in a namespace with a name (builder start).
    pub fn named(namespace: impl Into<String>, name: impl Into<String>) -> Pod {
        Pod {
            namespace: namespace.into(),
            name: name.into(),
            ..Pod::default()
        }
    }

    /// Makes this copy a pod a controller creates anew (a replacement, an extra replica): not
    /// bound to a node and not nominated to one.
    pub fn unbind(&mut self) {
        self.node_name = None;
        self.nominated_node_name = None;
    }

    /// `namespace/name`.
    pub fn key(&self) -> String {
        let mut key = String::with_capacity(self.namespace.len() + self.name.len() + 1);
        key.push_str(&self.namespace);
        key.push('/');
        key.push_str(&self.name);
        key
    }

    /// Every `(namespace, name)` a [`Pod::key`] could have been made from: one per `/` in it,
    /// since the loader does not check that a namespace holds none (a name cannot).
    pub fn key_splits(key: &str) -> impl Iterator<Item = (&str, &str)> {
        key.match_indices('/')
            .map(move |(at, _)| (&key[..at], &key[at + 1..]))
    }

    /// `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`: every `nodeSelector` pair and, when
    /// present, at least one required node affinity term.
    pub fn matches_required_node_affinity(&self, node: &Node) -> bool {
        if !self
            .node_selector
            .iter()
            .all(|(k, v)| node.labels.get(k) == Some(v))
        {
            return false;
        }
        match self
            .affinity
            .node_affinity
            .as_ref()
            .and_then(|a| a.required.as_ref())
        {
            None => true,
            Some(terms) => terms.iter().any(|term| term.matches(node)),
        }
    }

    /// Whether the pod has a `nodeSelector` or required node affinity terms (without either,
    /// [`Pod::matches_required_node_affinity`] is true for every node: callers looping over
    /// nodes ask once).
    pub fn has_required_node_affinity(&self) -> bool {
        !self.node_selector.is_empty()
            || self
                .affinity
                .node_affinity
                .as_ref()
                .is_some_and(|a| a.required.is_some())
    }

    /// Every `(hostIP, protocol, hostPort)` the pod claims (`util.GetHostPorts`), normalized (empty IP
    /// is `0.0.0.0`, empty protocol is `TCP`), for containers and sidecar init containers with
    /// hostPort > 0.
    pub fn host_ports(&self) -> Vec<(String, String, i32)> {
        let mut ports = Vec::new();
        let sidecars = self
            .init_containers
            .iter()
            .filter(|c| c.restart_policy_always);
        for container in sidecars.chain(&self.containers) {
            for port in &container.ports {
                if port.host_port <= 0 {
                    continue;
                }
                let ip = if port.host_ip.is_empty() {
                    String::from("0.0.0.0")
                } else {
                    port.host_ip.clone()
                };
                let protocol = if port.protocol.is_empty() {
                    String::from("TCP")
                } else {
                    port.protocol.clone()
                };
                ports.push((ip, protocol, port.host_port));
            }
        }
        ports
    }
}
