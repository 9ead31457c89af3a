//! `PodInfo`, `NodeInfo`, `AffinityTerm` and the snapshot: mirrors `pkg/scheduler/framework/types.go`
//! and `pkg/scheduler/backend/cache/snapshot.go` (v1.35).
//!
//! Pod requests are computed once when a pod enters the snapshot; node totals are kept up to date
//! incrementally on bind and removal, so plugins never re-add pod requests.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::model::resources::{CPU, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, MEMORY};
use crate::model::{
    Cluster, Controller, Labels, Node, Pod, PodAffinityTerm, PodDisruptionBudget, Resource,
    ResourceList, Selector, Service,
};

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
    /// The pod.
    pub pod: Pod,
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
    /// Derives requests and affinity terms (`NewPodInfo`).
    pub fn new(pod: Pod) -> PodInfo {
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

/// A node with the pods on it and their totals (`framework.NodeInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    /// The node.
    pub node: Node,
    /// `status.allocatable` as a `Resource`.
    pub allocatable: Resource,
    /// Pods on the node, in the order they arrived.
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
    pub fn new(node: Node) -> NodeInfo {
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

    fn add_pod(&mut self, id: PodId, info: &PodInfo) {
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

    fn remove_pod(&mut self, id: PodId, info: &PodInfo) {
        self.pods.retain(|p| *p != id);
        self.pods_with_affinity.retain(|p| *p != id);
        self.pods_with_required_anti_affinity.retain(|p| *p != id);
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

/// The scheduler's view of the cluster at one moment (`cache.Snapshot`), updated in place as pods bind.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Nodes, in input order.
    pub nodes: Vec<NodeInfo>,
    /// Node name to index.
    pub node_index: BTreeMap<String, usize>,
    /// Pod arena; `None` for pods removed from the cluster.
    pub pods: Vec<Option<PodInfo>>,
    /// Node index of every pod in the arena.
    pub pod_node: Vec<usize>,
    /// Namespace labels by name.
    pub namespaces: BTreeMap<String, Labels>,
    /// Services.
    pub services: Vec<Service>,
    /// ReplicaSets, StatefulSets, ReplicationControllers.
    pub controllers: Vec<Controller>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<PodDisruptionBudget>,
    /// How many nodes list each image name (ImageLocality's spread factor).
    pub image_num_nodes: BTreeMap<String, usize>,
    /// Number of nodes that hold at least one pod with pod (anti-)affinity.
    pub n_nodes_with_affinity_pods: usize,
    /// Number of nodes that hold at least one pod with required anti-affinity.
    pub n_nodes_with_required_anti_affinity_pods: usize,
    /// Per namespace and selector: how many non-terminating pods on each node match
    /// (`countPodsMatchSelector`), kept up to date on bind and removal.
    match_counts: RefCell<BTreeMap<String, BTreeMap<Selector, Vec<u32>>>>,
    /// Topology indexes by key, built on first use (node labels do not change during a simulation).
    topology_indexes: RefCell<BTreeMap<String, Rc<TopologyIndex>>>,
    /// Per node: bumped whenever a pod arrives on or leaves the node.
    pub node_generation: Vec<u64>,
    /// Node-local plugin results for the pod signature last scheduled (see `cache::NodeLocalCache`).
    pub(crate) node_local_cache: RefCell<super::cache::NodeLocalCache>,
    /// Pods left Pending with a nominated node (the scheduling queue's `PodNominator`), in the
    /// order they were nominated; later pods' Filter counts them (`RunFilterPluginsWithNominatedPods`).
    pub nominated: Vec<NominatedPod>,
}

/// A Pending pod nominated to a node by preemption (`status.nominatedNodeName`).
#[derive(Clone, Debug)]
pub struct NominatedPod {
    /// The arena id reserved for the pod: Filter adds it to its node under this id for the
    /// duration of one check, and takes it off again.
    pub id: PodId,
    /// The nominated node (snapshot index).
    pub node: usize,
    /// The pod.
    pub info: PodInfo,
}

/// The values of one topology key across the nodes, resolved once per snapshot: plugins work with
/// value indexes instead of comparing label strings per node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyIndex {
    /// Distinct values, in the order nodes first carry them.
    pub values: Vec<String>,
    /// Per node (snapshot index): index into `values`, or [`TopologyIndex::NO_VALUE`] without the key.
    pub node_value: Vec<u32>,
}

impl TopologyIndex {
    /// A node without the key.
    pub const NO_VALUE: u32 = u32::MAX;

    fn build(nodes: &[NodeInfo], key: &str) -> TopologyIndex {
        let mut values: Vec<String> = Vec::new();
        let mut lookup: BTreeMap<&str, u32> = BTreeMap::new();
        let node_value = nodes
            .iter()
            .map(|node| match node.node.labels.get(key) {
                None => TopologyIndex::NO_VALUE,
                Some(value) => *lookup.entry(value.as_str()).or_insert_with(|| {
                    values.push(value.clone());
                    (values.len() - 1) as u32
                }),
            })
            .collect();
        TopologyIndex { values, node_value }
    }
}

/// How many (namespace, selector) count vectors the snapshot keeps before starting afresh.
const MATCH_COUNT_CACHE_LIMIT: usize = 256;

/// Pods in the input that the snapshot could not place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotWarning {
    /// A bound pod names a node that is not in the cluster; the scheduler cache keeps such pods
    /// on a phantom node that no pod can be scheduled to, so they are left out.
    PodOnUnknownNode {
        /// `namespace/name`.
        pod: String,
        /// The missing node.
        node: String,
    },
}

impl Snapshot {
    /// Builds the snapshot. Terminal pods (`Succeeded`/`Failed`) are dropped as the scheduler's informer
    /// drops them; unbound pods are ignored (they are what gets scheduled).
    pub fn new(cluster: &Cluster) -> (Snapshot, Vec<SnapshotWarning>) {
        let mut snapshot = Snapshot {
            nodes: Vec::with_capacity(cluster.nodes.len()),
            node_index: BTreeMap::new(),
            pods: Vec::with_capacity(cluster.pods.len()),
            pod_node: Vec::with_capacity(cluster.pods.len()),
            namespaces: cluster
                .namespaces
                .iter()
                .map(|n| (n.name.clone(), n.labels.clone()))
                .collect(),
            services: cluster.services.clone(),
            controllers: cluster.controllers.clone(),
            pdbs: cluster.pdbs.clone(),
            image_num_nodes: BTreeMap::new(),
            n_nodes_with_affinity_pods: 0,
            n_nodes_with_required_anti_affinity_pods: 0,
            match_counts: RefCell::new(BTreeMap::new()),
            topology_indexes: RefCell::new(BTreeMap::new()),
            node_generation: Vec::with_capacity(cluster.nodes.len()),
            node_local_cache: RefCell::new(super::cache::NodeLocalCache::default()),
            nominated: Vec::new(),
        };
        for node in &cluster.nodes {
            snapshot.add_node(node.clone());
        }
        let mut warnings = Vec::new();
        for pod in &cluster.pods {
            if pod.phase.is_terminal() {
                continue;
            }
            let Some(node_name) = pod.node_name.as_deref() else {
                continue;
            };
            match snapshot.node_index.get(node_name) {
                Some(&node) => {
                    snapshot.bind(PodInfo::new(pod.clone()), node);
                }
                None => warnings.push(SnapshotWarning::PodOnUnknownNode {
                    pod: pod.key(),
                    node: String::from(node_name),
                }),
            }
        }
        (snapshot, warnings)
    }

    /// Adds a node (no pods).
    pub fn add_node(&mut self, node: Node) {
        self.match_counts.get_mut().clear();
        self.topology_indexes.get_mut().clear();
        let mut seen = BTreeSet::new();
        for image in &node.images {
            for name in &image.names {
                if seen.insert(name.clone()) {
                    *self.image_num_nodes.entry(name.clone()).or_insert(0) += 1;
                }
            }
        }
        self.node_index.insert(node.name.clone(), self.nodes.len());
        self.nodes.push(NodeInfo::new(node));
        self.node_generation.push(0);
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// A live pod by id.
    pub fn pod(&self, id: PodId) -> &PodInfo {
        self.pods[id]
            .as_ref()
            .expect("pod ids in node infos are live")
    }

    /// Binds a pod to a node (the scheduler's assume step) and returns its id.
    pub fn bind(&mut self, mut info: PodInfo, node: usize) -> PodId {
        info.pod.node_name = Some(self.nodes[node].node.name.clone());
        let id = self.pods.len();
        self.pods.push(None);
        self.pod_node.push(node);
        self.restore(id, info);
        id
    }

    fn update_match_counts(&mut self, pod: &Pod, node: usize, delta: i32) {
        if pod.terminating {
            return;
        }
        if let Some(by_selector) = self.match_counts.get_mut().get_mut(&pod.namespace) {
            for (selector, counts) in by_selector.iter_mut() {
                if selector.matches(&pod.labels) {
                    counts[node] = counts[node].wrapping_add_signed(delta);
                }
            }
        }
    }

    /// Calls `f` with the number of pods on each node (by node index) that are in `namespace`, not
    /// terminating and matched by `selector` (`countPodsMatchSelector`, including its rule that an
    /// empty selector counts nothing). Counts are cached and updated as pods bind and leave.
    pub fn with_match_counts<R>(
        &self,
        namespace: &str,
        selector: &Selector,
        f: impl FnOnce(&[u32]) -> R,
    ) -> R {
        if selector.is_empty() {
            let zeros = alloc::vec![0u32; self.nodes.len()];
            return f(&zeros);
        }
        {
            let cache = self.match_counts.borrow();
            if let Some(counts) = cache.get(namespace).and_then(|m| m.get(selector)) {
                return f(counts);
            }
        }
        let mut counts = alloc::vec![0u32; self.nodes.len()];
        for (index, node) in self.nodes.iter().enumerate() {
            for id in &node.pods {
                let pod = &self.pod(*id).pod;
                if !pod.terminating && pod.namespace == namespace && selector.matches(&pod.labels) {
                    counts[index] += 1;
                }
            }
        }
        let result = f(&counts);
        let mut cache = self.match_counts.borrow_mut();
        if cache.values().map(BTreeMap::len).sum::<usize>() >= MATCH_COUNT_CACHE_LIMIT {
            cache.clear();
        }
        cache
            .entry(String::from(namespace))
            .or_default()
            .insert(selector.clone(), counts);
        result
    }

    /// Removes a pod from the cluster (deleted, evicted or preempted) and returns it.
    pub fn remove(&mut self, id: PodId) -> Option<PodInfo> {
        let info = self.pods.get_mut(id)?.take()?;
        let node = self.pod_node[id];
        self.update_match_counts(&info.pod, node, -1);
        self.node_generation[node] += 1;
        let node_info = &mut self.nodes[node];
        let had_affinity = !node_info.pods_with_affinity.is_empty();
        let had_anti = !node_info.pods_with_required_anti_affinity.is_empty();
        node_info.remove_pod(id, &info);
        if had_affinity && node_info.pods_with_affinity.is_empty() {
            self.n_nodes_with_affinity_pods -= 1;
        }
        if had_anti && node_info.pods_with_required_anti_affinity.is_empty() {
            self.n_nodes_with_required_anti_affinity_pods -= 1;
        }
        Some(info)
    }

    /// Takes a pod off its node for a dry run, keeping its id and node for [`Snapshot::restore`].
    pub fn detach(&mut self, id: PodId) -> PodInfo {
        self.remove(id).expect("detach takes a live pod")
    }

    /// Puts a detached pod back on the node it was on.
    pub fn restore(&mut self, id: PodId, info: PodInfo) {
        let node = self.pod_node[id];
        self.update_match_counts(&info.pod, node, 1);
        self.node_generation[node] += 1;
        let node_info = &mut self.nodes[node];
        let had_affinity = !node_info.pods_with_affinity.is_empty();
        let had_anti = !node_info.pods_with_required_anti_affinity.is_empty();
        node_info.add_pod(id, &info);
        if !had_affinity && !node_info.pods_with_affinity.is_empty() {
            self.n_nodes_with_affinity_pods += 1;
        }
        if !had_anti && !node_info.pods_with_required_anti_affinity.is_empty() {
            self.n_nodes_with_required_anti_affinity_pods += 1;
        }
        self.pods[id] = Some(info);
    }

    /// Marks a bound pod as terminating (its deletion started): it keeps its resources and ports
    /// on the node until [`Snapshot::remove`]d, but no longer counts for spreading or affinity.
    pub fn set_terminating(&mut self, id: PodId) {
        if self.pods.get(id).is_some_and(Option::is_some) {
            let mut info = self.detach(id);
            info.pod.terminating = true;
            self.restore(id, info);
        }
    }

    /// Records `info` as Pending and nominated to `node` (`PodNominator.AddNominatedPod`), replacing
    /// an earlier nomination of the same pod.
    pub fn nominate(&mut self, info: PodInfo, node: usize) {
        self.clear_nomination(&info.pod.namespace, &info.pod.name);
        let id = self.pods.len();
        self.pods.push(None);
        self.pod_node.push(node);
        self.nominated.push(NominatedPod { id, node, info });
    }

    /// Forgets a pod's nomination (`DeleteNominatedPodIfExists`), if any.
    pub fn clear_nomination(&mut self, namespace: &str, name: &str) {
        self.nominated
            .retain(|n| n.info.pod.namespace != namespace || n.info.pod.name != name);
    }

    /// Indexes into [`Snapshot::nominated`] of the pods nominated to `node` that `pod` must yield to:
    /// priority at least the pod's, and not the pod itself (`addGENominatedPods`).
    pub fn nominated_for(&self, pod: &PodInfo, node: usize) -> Vec<usize> {
        if self.nominated.is_empty() {
            return Vec::new();
        }
        self.nominated
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.node == node
                    && n.info.pod.priority >= pod.pod.priority
                    && (n.info.pod.namespace != pod.pod.namespace
                        || n.info.pod.name != pod.pod.name)
            })
            .map(|(index, _)| index)
            .collect()
    }

    /// Forgets the node-local plugin results kept for the last pod signature (they are exact, so
    /// this never changes a decision; tests use it to check exactly that).
    pub fn clear_node_local_cache(&self) {
        *self.node_local_cache.borrow_mut() = super::cache::NodeLocalCache::default();
    }

    /// The values of a topology key on every node (cached).
    pub fn topology_index(&self, key: &str) -> Rc<TopologyIndex> {
        if let Some(index) = self.topology_indexes.borrow().get(key) {
            return Rc::clone(index);
        }
        let index = Rc::new(TopologyIndex::build(&self.nodes, key));
        self.topology_indexes
            .borrow_mut()
            .insert(String::from(key), Rc::clone(&index));
        index
    }

    /// Live pods on a node.
    pub fn pods_on(&self, node: usize) -> impl Iterator<Item = &PodInfo> + '_ {
        self.nodes[node].pods.iter().map(move |id| self.pod(*id))
    }

    /// The labels of a namespace, if the Namespace object is known.
    pub fn namespace_labels(&self, namespace: &str) -> Option<&Labels> {
        self.namespaces.get(namespace)
    }
}
