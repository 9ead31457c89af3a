//! `PodInfo`, `NodeInfo` and `AffinityTerm`: mirrors `pkg/scheduler/framework/types.go` (v1.35).
//!
//! Pod requests are computed once when a pod enters the snapshot (`snapshot.rs`); node totals are
//! kept up to date incrementally on bind and removal, so plugins never re-add pod requests.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::model::resources::{CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, MEMORY};
use crate::model::{Labels, Node, Pod, PodAffinityTerm, Resource, ResourceList, Selector};
use crate::version::KubeVersion;

/// A pod (anti-)affinity term with namespaces resolved (`framework.AffinityTerm`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinityTerm {
    /// The label selector.
    pub selector: Selector,
    /// The topology key.
    pub topology_key: String,
    /// Namespaces the term applies to.
    pub namespaces: BTreeSet<String>,
    /// The namespace selector (`Nothing` when nil).
    pub namespace_selector: Selector,
}

impl AffinityTerm {
    /// `newAffinityTerm`: empty namespaces and a nil namespace selector mean the owner's namespace.
    pub fn new(owner_namespace: &str, term: &PodAffinityTerm) -> AffinityTerm {
        let mut namespaces: BTreeSet<String> = term.namespaces.iter().cloned().collect();
        if term.namespaces.is_empty() && term.namespace_selector.is_none() {
            namespaces.insert(String::from(owner_namespace));
        }
        AffinityTerm {
            selector: term.selector.clone(),
            topology_key: term.topology_key.clone(),
            namespaces,
            namespace_selector: term.namespace_selector.clone().unwrap_or(Selector::Nothing),
        }
    }

    /// `AffinityTerm.Matches`: namespace (listed, or selected by the labels of the pod's namespace)
    /// and labels. Callers pass an empty label set where upstream passes nil labels.
    pub fn matches(&self, pod: &Pod, namespace_labels: &Labels) -> bool {
        let namespace_ok = self.namespaces.contains(&pod.namespace)
            || self.namespace_selector.matches(namespace_labels);
        namespace_ok && self.selector.matches(&pod.labels)
    }
}

/// A weighted affinity term (`framework.WeightedAffinityTerm`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightedAffinityTerm {
    /// The term.
    pub term: AffinityTerm,
    /// The weight.
    pub weight: i32,
}

/// A pod with what the scheduler derives from it once (`framework.PodInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodInfo {
    /// The pod (shared with the cluster it came from).
    pub pod: Arc<Pod>,
    /// `PodRequests` with default options (what Filter compares).
    pub requests: Resource,
    /// Non-zero cpu request (millicores) used for scoring.
    pub non_zero_milli_cpu: i64,
    /// Non-zero memory request (bytes) used for scoring.
    pub non_zero_memory: i64,
    /// Required pod affinity terms.
    pub required_affinity_terms: Vec<AffinityTerm>,
    /// Required pod anti-affinity terms.
    pub required_anti_affinity_terms: Vec<AffinityTerm>,
    /// Preferred pod affinity terms.
    pub preferred_affinity_terms: Vec<WeightedAffinityTerm>,
    /// Preferred pod anti-affinity terms.
    pub preferred_anti_affinity_terms: Vec<WeightedAffinityTerm>,
    /// `(hostIP, protocol, hostPort)` the pod claims.
    pub host_ports: Vec<(String, String, i32)>,
    /// The aggregate error of parsing the pod's affinity terms (`PodInfo.Update`), if any.
    pub parse_error: Option<String>,
}

impl PodInfo {
    /// [`PodInfo::new`] for a pod the snapshot finds on a node: in-place resize may make it count
    /// more or less than its spec (`PodInfo.CalculateResource` of `version`, [`super::resize`]).
    pub fn bound(pod: impl Into<Arc<Pod>>, version: KubeVersion) -> PodInfo {
        let mut info = PodInfo::new(pod);
        if info.pod.has_resource_status() {
            let (requests, milli_cpu, memory) = super::resize::bound_requests(&info.pod, version);
            info.requests = requests;
            info.non_zero_milli_cpu = milli_cpu;
            info.non_zero_memory = memory;
        }
        info
    }

    /// Derives requests and affinity terms (`NewPodInfo`).
    pub fn new(pod: impl Into<Arc<Pod>>) -> PodInfo {
        let pod: Arc<Pod> = pod.into();
        let requests = pod_requests(&pod, false, false);
        let non_zero = pod_requests(&pod, true, false);
        let affinity = &pod.affinity;
        let resolve = |terms: &[PodAffinityTerm]| {
            terms
                .iter()
                .map(|t| AffinityTerm::new(&pod.namespace, t))
                .collect()
        };
        let resolve_weighted = |terms: &[crate::model::WeightedPodAffinityTerm]| {
            terms
                .iter()
                .map(|t| WeightedAffinityTerm {
                    term: AffinityTerm::new(&pod.namespace, &t.term),
                    weight: t.weight,
                })
                .collect()
        };
        let (required_affinity_terms, preferred_affinity_terms) = match &affinity.pod_affinity {
            Some(a) => (resolve(&a.required), resolve_weighted(&a.preferred)),
            None => (Vec::new(), Vec::new()),
        };
        let (required_anti_affinity_terms, preferred_anti_affinity_terms) =
            match &affinity.pod_anti_affinity {
                Some(a) => (resolve(&a.required), resolve_weighted(&a.preferred)),
                None => (Vec::new(), Vec::new()),
            };
        let host_ports = pod.host_ports();
        let parse_error = affinity_parse_error(&pod);
        PodInfo {
            parse_error,
            requests,
            non_zero_milli_cpu: non_zero.milli_cpu,
            non_zero_memory: non_zero.memory,
            required_affinity_terms,
            required_anti_affinity_terms,
            preferred_affinity_terms,
            preferred_anti_affinity_terms,
            host_ports,
            pod,
        }
    }

    /// Whether the pod has any `podAffinity` or `podAntiAffinity` struct (`NodeInfo.PodsWithAffinity`).
    pub fn has_affinity(&self) -> bool {
        self.pod.affinity.pod_affinity.is_some() || self.pod.affinity.pod_anti_affinity.is_some()
    }
}

/// `PodInfo.Update`'s parse errors: the first invalid term of each of the four term lists, prefixed
/// with the list's name, aggregated.
fn affinity_parse_error(pod: &Pod) -> Option<String> {
    let affinity = &pod.affinity;
    fn first<'a>(mut terms: impl Iterator<Item = &'a PodAffinityTerm>) -> Option<String> {
        terms.find_map(|t| t.parse_error.clone())
    }
    let mut errors = Vec::new();
    let lists: [(&str, Option<String>); 4] = [
        (
            "requiredAffinityTerms",
            affinity
                .pod_affinity
                .as_ref()
                .and_then(|a| first(a.required.iter())),
        ),
        (
            "requiredAntiAffinityTerms",
            affinity
                .pod_anti_affinity
                .as_ref()
                .and_then(|a| first(a.required.iter())),
        ),
        (
            "preferredAffinityTerms",
            affinity
                .pod_affinity
                .as_ref()
                .and_then(|a| first(a.preferred.iter().map(|w| &w.term))),
        ),
        (
            "preferredAntiAffinityTerms",
            affinity
                .pod_anti_affinity
                .as_ref()
                .and_then(|a| first(a.preferred.iter().map(|w| &w.term))),
        ),
    ];
    for (list, error) in lists {
        if let Some(error) = error {
            errors.push(alloc::format!("{list}: {error}"));
        }
    }
    crate::model::validation::aggregate(&errors)
}

/// Adds the non-zero defaults to a container's requests when `non_zero` is set (only for missing keys).
fn container_requests(requests: &ResourceList, non_zero: bool) -> Resource {
    let mut resource = Resource::from_list(requests);
    if non_zero {
        if !requests.contains_key(CPU) {
            resource.milli_cpu = DEFAULT_MILLI_CPU_REQUEST;
        }
        if !requests.contains_key(MEMORY) {
            resource.memory = DEFAULT_MEMORY_REQUEST;
        }
    }
    resource
}

fn max_resource(into: &mut Resource, other: &Resource) {
    into.milli_cpu = into.milli_cpu.max(other.milli_cpu);
    into.memory = into.memory.max(other.memory);
    into.ephemeral_storage = into.ephemeral_storage.max(other.ephemeral_storage);
    for (name, amount) in &other.scalar {
        let entry = into.scalar.entry(name.clone()).or_insert(0);
        *entry = (*entry).max(*amount);
    }
}

/// `resource.PodRequests` (component-helpers v0.35) with default options, or its non-zero variant
/// used for scoring: containers summed, sidecars added to the sum and to later init containers, the
/// per-resource max with the init peak, pod-level requests overriding, overhead added.
pub fn pod_requests(pod: &Pod, non_zero: bool, skip_pod_level: bool) -> Resource {
    let mut requests = Resource::default();
    for container in &pod.containers {
        requests.add(&container_requests(&container.requests, non_zero));
    }
    let mut restartable_sum = Resource::default();
    let mut init_peak = Resource::default();
    for container in &pod.init_containers {
        let container_request = container_requests(&container.requests, non_zero);
        if container.restart_policy_always {
            requests.add(&container_request);
            restartable_sum.add(&container_request);
            max_resource(&mut init_peak, &restartable_sum);
        } else {
            let mut usage = container_request;
            usage.add(&restartable_sum);
            max_resource(&mut init_peak, &usage);
        }
    }
    max_resource(&mut requests, &init_peak);
    // Pod-level resources (gate PodLevelResources, beta and on in v1.35) replace the container
    // aggregate for cpu, memory and hugepages.
    let pod_level = if skip_pod_level {
        &ResourceList::new()
    } else {
        &pod.pod_requests
    };
    for (name, amount) in pod_level {
        match name.as_str() {
            CPU => requests.milli_cpu = *amount,
            MEMORY => requests.memory = *amount,
            _ if name.starts_with("hugepages-") => {
                requests.scalar.insert(name.clone(), *amount);
            }
            _ => {}
        }
    }
    if non_zero && !pod_level.is_empty() {
        // With pod-level requests a default applies only when missing at both levels.
        let containers_have = |key: &str| {
            pod.containers
                .iter()
                .chain(&pod.init_containers)
                .any(|c| c.requests.contains_key(key))
        };
        if !pod.pod_requests.contains_key(CPU) && !containers_have(CPU) {
            requests.milli_cpu = requests.milli_cpu.max(DEFAULT_MILLI_CPU_REQUEST);
        }
        if !pod.pod_requests.contains_key(MEMORY) && !containers_have(MEMORY) {
            requests.memory = requests.memory.max(DEFAULT_MEMORY_REQUEST);
        }
    }
    requests.add_list(&pod.overhead);
    requests
}

/// Identifies a pod in the snapshot's pod arena.
pub type PodId = usize;

/// A node's pod lists (all, with affinity, with required anti-affinity), saved to be put back after
/// a dry run that takes pods off and on again.
#[derive(Clone, Debug)]
pub struct PodOrder(Vec<PodId>, Vec<PodId>, Vec<PodId>);

/// A node with the pods on it and their totals (`framework.NodeInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    /// The node (shared: snapshots derived from one another copy no node).
    pub node: Arc<Node>,
    /// `status.allocatable` as a `Resource`.
    pub allocatable: Resource,
    /// Pods on the node in the scheduler cache's order: the snapshot's pods by namespace and
    /// name (the informer's initial List), then each pod as it binds; a removed pod's slot takes
    /// the last pod (`removeFromSlice`, framework/types.go). DefaultPreemption's victim order
    /// starts from it.
    pub pods: Vec<PodId>,
    /// Pods on the node with a `podAffinity` or `podAntiAffinity` struct.
    pub pods_with_affinity: Vec<PodId>,
    /// Pods on the node with required anti-affinity terms.
    pub pods_with_required_anti_affinity: Vec<PodId>,
    /// Sum of the pods' requests.
    pub requested: Resource,
    /// Sum of the pods' non-zero cpu requests.
    pub non_zero_milli_cpu: i64,
    /// Sum of the pods' non-zero memory requests.
    pub non_zero_memory: i64,
    /// Host ports in use.
    pub used_ports: Vec<(String, String, i32)>,
}

impl NodeInfo {
    /// An empty node info.
    pub fn new(node: impl Into<Arc<Node>>) -> NodeInfo {
        let node: Arc<Node> = node.into();
        NodeInfo {
            allocatable: Resource::from_list(&node.allocatable),
            node,
            pods: Vec::new(),
            pods_with_affinity: Vec::new(),
            pods_with_required_anti_affinity: Vec::new(),
            requested: Resource::default(),
            non_zero_milli_cpu: 0,
            non_zero_memory: 0,
            used_ports: Vec::new(),
        }
    }

    /// The node's pod lists as they stand (for [`NodeInfo::set_pod_order`]).
    pub fn pod_order(&self) -> PodOrder {
        PodOrder(
            self.pods.clone(),
            self.pods_with_affinity.clone(),
            self.pods_with_required_anti_affinity.clone(),
        )
    }

    /// Puts back the order [`NodeInfo::pod_order`] saved; the node must hold the same pods.
    pub fn set_pod_order(&mut self, order: PodOrder) {
        debug_assert_eq!(order.0.len(), self.pods.len());
        (
            self.pods,
            self.pods_with_affinity,
            self.pods_with_required_anti_affinity,
        ) = (order.0, order.1, order.2);
    }

    pub(super) fn add_pod(&mut self, id: PodId, info: &PodInfo) {
        self.pods.push(id);
        if info.has_affinity() {
            self.pods_with_affinity.push(id);
        }
        if !info.required_anti_affinity_terms.is_empty() {
            self.pods_with_required_anti_affinity.push(id);
        }
        self.requested.add(&info.requests);
        self.non_zero_milli_cpu += info.non_zero_milli_cpu;
        self.non_zero_memory += info.non_zero_memory;
        self.used_ports.extend(info.host_ports.iter().cloned());
    }

    pub(super) fn remove_pod(&mut self, id: PodId, info: &PodInfo) {
        // `removeFromSlice` (framework/types.go) moves the last pod into the freed slot: the
        // order a node lists its pods in decides DefaultPreemption's potential-victim order.
        swap_remove_first(&mut self.pods, id);
        swap_remove_first(&mut self.pods_with_affinity, id);
        swap_remove_first(&mut self.pods_with_required_anti_affinity, id);
        self.requested.sub(&info.requests);
        self.non_zero_milli_cpu -= info.non_zero_milli_cpu;
        self.non_zero_memory -= info.non_zero_memory;
        for port in &info.host_ports {
            if let Some(index) = self.used_ports.iter().position(|p| p == port) {
                self.used_ports.remove(index);
            }
        }
    }
}

/// Removes the first `id` from `list` as upstream's `removeFromSlice` does (framework/types.go):
/// the last element takes its place.
fn swap_remove_first(list: &mut Vec<PodId>, id: PodId) {
    if let Some(index) = list.iter().position(|p| *p == id) {
        list.swap_remove(index);
    }
}
