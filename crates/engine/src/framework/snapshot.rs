//! The snapshot: the scheduler's view of the cluster at one moment, updated in place as pods
//! bind (`pkg/scheduler/backend/cache/snapshot.go`, v1.35): node infos, pods in an arena,
//! topology indexes, nominated pods, namespaces, Services, controllers and PDBs.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::{OnceCell, RefCell};

use crate::model::{
    Cluster, Controller, Labels, Node, Pod, PodDisruptionBudget, Selector, Service,
};

use super::types::*;
use crate::version::KubeVersion;

mod changes;
mod csi;
mod match_counts;

pub use csi::NodeCsi;

use match_counts::MatchCounts;

/// The scheduler's view of the cluster at one moment (`cache.Snapshot`), updated in place as pods bind.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The release whose scheduler cache the snapshot is (how it counts pods being resized).
    pub version: KubeVersion,
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
    /// Claims, volumes, classes and CSI objects; binding a pod binds its claims here (the end
    /// state of VolumeBinding's PreBind and the PV controller). Its CSINodes, VolumeAttachments
    /// and the CSI sources of the volumes those name are read through a memo by node index
    /// ([`Snapshot::csi_node`]), which node changes, rollbacks and provisioning refresh: storage
    /// that differs in them needs a new snapshot.
    pub storage: Arc<crate::model::Storage>,
    /// How many nodes list each image name (ImageLocality's spread factor).
    pub image_num_nodes: BTreeMap<String, usize>,
    /// Number of nodes that hold at least one pod with pod (anti-)affinity.
    pub n_nodes_with_affinity_pods: usize,
    /// Number of nodes that hold at least one pod with required anti-affinity.
    pub n_nodes_with_required_anti_affinity_pods: usize,
    /// Per namespace and selector: how many non-terminating pods on each node match
    /// (`countPodsMatchSelector`), kept up to date on bind and removal.
    match_counts: RefCell<BTreeMap<String, BTreeMap<Selector, MatchCounts>>>,
    /// Topology indexes by key, built on first use (node labels do not change during a simulation).
    topology_indexes: RefCell<BTreeMap<String, Arc<TopologyIndex>>>,
    /// Per node: bumped whenever a pod arrives on or leaves the node.
    pub node_generation: Vec<u64>,
    /// Node-local plugin results for the pod signature last scheduled (see `cache::NodeLocalCache`).
    pub(crate) node_local_cache: RefCell<super::cache::NodeLocalCache>,
    /// Nodes alike but for their identity, grouped (see `classes::NodeClasses`).
    pub(crate) node_classes: RefCell<super::classes::NodeClasses>,
    /// Pods left Pending with a nominated node (the scheduling queue's `PodNominator`), in the
    /// order they were nominated; later pods' Filter counts them (`RunFilterPluginsWithNominatedPods`).
    pub nominated: Vec<NominatedPod>,
    /// `nextStartNodeIndex`: where the next cycle's Filter pass starts in the node tree order
    /// (see `node_tree`); it moves on by the nodes each pass processed.
    pub next_start_node_index: usize,
    /// The node tree order (`node_tree::tree_order`), built on first use.
    node_tree: RefCell<Option<Arc<Vec<usize>>>>,
    /// Every node's CSINode by node index, read on first use (see [`Snapshot::csi_node`]).
    csi_nodes: OnceCell<Arc<[NodeCsi]>>,
    /// Pods below this arena id were there at the last [`Snapshot::mark`].
    guard: PodId,
    /// How many times one of those pods left its node ([`Snapshot::remove`], which a dry run's
    /// detaching and marking terminating also go through; a nominated pod's check-long visit
    /// leaves it as it found it and is not counted): [`Snapshot::rollback`] refuses when any did.
    breaches: u64,
}

/// Where a snapshot stood, for [`Snapshot::rollback`]: what binding, nominating and the queue
/// change, and how long the lists a caller may extend were.
#[derive(Clone, Debug)]
pub struct Mark {
    pods: usize,
    breaches: u64,
    nominated: Vec<NominatedPod>,
    next_start_node_index: usize,
    storage: Arc<crate::model::Storage>,
    controllers: usize,
    topology_keys: usize,
}

/// Most topology indexes a snapshot keeps across rollbacks (each is a value per node): keys
/// only an evaluated-then-rolled-back pod used are dropped beyond it.
const TOPOLOGY_INDEX_LIMIT: usize = 64;

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
    pub fn new(cluster: &Cluster, version: KubeVersion) -> (Snapshot, Vec<SnapshotWarning>) {
        // Room for the pods a what-if places and a watched cluster's new pods, so that the first
        // of them does not copy the whole arena.
        let arena = cluster.pods.len() + cluster.pods.len() / 16 + 1024;
        let mut snapshot = Snapshot {
            version,
            nodes: Vec::with_capacity(cluster.nodes.len()),
            node_index: BTreeMap::new(),
            pods: Vec::with_capacity(arena),
            pod_node: Vec::with_capacity(arena),
            namespaces: cluster
                .namespaces
                .iter()
                .map(|n| (n.name.clone(), n.labels.clone()))
                .collect(),
            services: cluster.services.clone(),
            controllers: cluster.controllers.clone(),
            pdbs: cluster.pdbs.clone(),
            storage: cluster.storage.clone(),
            image_num_nodes: BTreeMap::new(),
            n_nodes_with_affinity_pods: 0,
            n_nodes_with_required_anti_affinity_pods: 0,
            match_counts: RefCell::new(BTreeMap::new()),
            topology_indexes: RefCell::new(BTreeMap::new()),
            node_generation: Vec::with_capacity(cluster.nodes.len()),
            node_local_cache: RefCell::new(super::cache::NodeLocalCache::default()),
            node_classes: RefCell::new(super::classes::NodeClasses::default()),
            nominated: Vec::new(),
            next_start_node_index: 0,
            node_tree: RefCell::new(None),
            csi_nodes: OnceCell::new(),
            guard: 0,
            breaches: 0,
        };
        for node in &cluster.nodes {
            snapshot.add_node(node.clone());
        }
        let mut warnings = Vec::new();
        // The scheduler cache gets the pods of its informer's initial List, which the API server
        // (its watch cache, etcd's key order) and client-go's fake tracker return sorted by
        // namespace and name; the order each node lists its pods in follows.
        let mut order: Vec<&Arc<Pod>> = cluster.pods.iter().collect();
        order.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        for pod in order {
            if pod.phase.is_terminal() {
                continue;
            }
            let Some(node_name) = pod.node_name.as_deref() else {
                continue;
            };
            match snapshot.node_index.get(node_name) {
                Some(&node) => {
                    snapshot.bind(PodInfo::bound(pod.clone(), version), node);
                }
                None => warnings.push(SnapshotWarning::PodOnUnknownNode {
                    pod: pod.key(),
                    node: String::from(node_name),
                }),
            }
        }
        (snapshot, warnings)
    }

    /// The snapshot `Snapshot::new` would build from this one's cluster without the nodes in
    /// `removed` (snapshot indexes) and the pods on them, and without nominations (a cluster
    /// carries none): for failure sweeps, which remove one domain at a time from the same
    /// cluster without building each snapshot from the start. Pods keep their arena ids (the
    /// removed ones leave gaps), so every node lists its pods in the same order.
    pub fn without_nodes(&self, removed: &BTreeSet<usize>) -> Snapshot {
        let kept: Vec<usize> = (0..self.nodes.len())
            .filter(|n| !removed.contains(n))
            .collect();
        let mut new_index = alloc::vec![usize::MAX; self.nodes.len()];
        for (new, &old) in kept.iter().enumerate() {
            new_index[old] = new;
        }
        let mut pods = self.pods.clone();
        let mut pod_node = self.pod_node.clone();
        for (id, node) in pod_node.iter_mut().enumerate() {
            *node = new_index.get(*node).copied().unwrap_or(usize::MAX);
            if *node == usize::MAX {
                pods[id] = None;
            }
        }
        let nodes: Vec<NodeInfo> = kept.iter().map(|&n| self.nodes[n].clone()).collect();
        let mut image_num_nodes = self.image_num_nodes.clone();
        for &node in removed {
            uncount_images(&mut image_num_nodes, &self.nodes[node].node);
        }
        Snapshot {
            version: self.version,
            node_index: nodes
                .iter()
                .enumerate()
                .map(|(index, info)| (info.node.name.clone(), index))
                .collect(),
            n_nodes_with_affinity_pods: nodes
                .iter()
                .filter(|n| !n.pods_with_affinity.is_empty())
                .count(),
            n_nodes_with_required_anti_affinity_pods: nodes
                .iter()
                .filter(|n| !n.pods_with_required_anti_affinity.is_empty())
                .count(),
            node_generation: kept.iter().map(|&n| self.node_generation[n]).collect(),
            nodes,
            pods,
            pod_node,
            namespaces: self.namespaces.clone(),
            services: self.services.clone(),
            controllers: self.controllers.clone(),
            pdbs: self.pdbs.clone(),
            storage: self.storage.clone(),
            image_num_nodes,
            match_counts: RefCell::new(BTreeMap::new()),
            topology_indexes: RefCell::new(BTreeMap::new()),
            node_local_cache: RefCell::new(super::cache::NodeLocalCache::default()),
            node_classes: RefCell::new(super::classes::NodeClasses::default()),
            nominated: Vec::new(),
            next_start_node_index: 0,
            node_tree: RefCell::new(None),
            csi_nodes: OnceCell::new(),
            guard: 0,
            breaches: 0,
        }
    }

    /// Adds taints to a node (the node lifecycle controller's, when a node fails): the node is
    /// classified again and its cached plugin results recomputed.
    pub fn add_taints(&mut self, node: usize, taints: &[crate::model::Taint]) {
        Arc::make_mut(&mut self.nodes[node].node)
            .taints
            .extend(taints.iter().cloned());
        self.node_generation[node] += 1;
        *self.node_classes.get_mut() = super::classes::NodeClasses::default();
    }

    /// Adds a node (no pods) after the others.
    pub fn add_node(&mut self, node: Node) {
        self.place_node(self.nodes.len(), node);
    }

    /// The nodes in the scheduler cache's node tree order (`node_tree::tree_order`).
    pub fn node_tree(&self) -> Arc<Vec<usize>> {
        self.node_tree
            .borrow_mut()
            .get_or_insert_with(|| Arc::new(super::node_tree::tree_order(&self.nodes)))
            .clone()
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
        let name = &self.nodes[node].node.name;
        if info.pod.node_name.as_ref() != Some(name) {
            Arc::make_mut(&mut info.pod).node_name = Some(name.clone());
        }
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
                    counts.add(node, delta);
                }
            }
        }
    }

    /// Removes a pod from the cluster (deleted, evicted or preempted) and returns it.
    pub fn remove(&mut self, id: PodId) -> Option<PodInfo> {
        let info = self.pods.get_mut(id)?.take()?;
        if id < self.guard && !self.nominated.iter().any(|n| n.id == id) {
            self.breaches += 1;
        }
        let node = self.pod_node[id];
        self.update_match_counts(&info.pod, node, -1);
        self.node_generation[node] += 1;
        self.node_classes.get_mut().touch(node);
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
        self.node_classes.get_mut().touch(node);
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

    /// Where the snapshot stands now, for [`Snapshot::rollback`] (one mark at a time: a new mark
    /// replaces the last).
    pub fn mark(&mut self) -> Mark {
        self.guard = self.pods.len();
        Mark {
            pods: self.pods.len(),
            breaches: self.breaches,
            nominated: self.nominated.clone(),
            next_start_node_index: self.next_start_node_index,
            storage: self.storage.clone(),
            controllers: self.controllers.len(),
            topology_keys: self.topology_indexes.borrow().len(),
        }
    }

    /// Undoes everything since `mark` when only new pods were bound or nominated since (a what-if
    /// placement on a shared snapshot, e.g. the admission policy's): the new pods leave their
    /// nodes last first, so every node lists its pods in the order it did (upstream's
    /// `removeFromSlice` moves the last pod, which is then the one leaving); the arena, the
    /// nominator, the queue's start index, storage and controllers added since are restored.
    /// Node generations move on, so every cache keyed by them stays exact. Returns `false`, with
    /// the snapshot left as it is, when a pod present at the mark left a node since (a
    /// preemption victim, a dry run): the caller rebuilds the snapshot then.
    pub fn rollback(&mut self, mark: Mark) -> bool {
        if self.breaches != mark.breaches || self.pods.len() < mark.pods {
            return false;
        }
        for id in (mark.pods..self.pods.len()).rev() {
            self.remove(id);
        }
        self.pods.truncate(mark.pods);
        self.pod_node.truncate(mark.pods);
        self.nominated = mark.nominated;
        self.next_start_node_index = mark.next_start_node_index;
        if !Arc::ptr_eq(&self.storage, &mark.storage) {
            self.storage = mark.storage;
            self.csi_nodes.take();
        }
        self.controllers.truncate(mark.controllers);
        let indexes = self.topology_indexes.get_mut();
        if indexes.len() > mark.topology_keys.max(TOPOLOGY_INDEX_LIMIT) {
            indexes.clear();
        }
        true
    }

    /// Marks a bound pod as terminating (its deletion started): it keeps its resources and ports
    /// on the node until [`Snapshot::remove`]d, but no longer counts for spreading or affinity.
    pub fn set_terminating(&mut self, id: PodId) {
        if self.pods.get(id).is_some_and(Option::is_some) {
            let mut info = self.detach(id);
            Arc::make_mut(&mut info.pod).terminating = true;
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

    /// The node a pod is nominated to in the nominator, if any.
    pub fn nomination_of(&self, namespace: &str, name: &str) -> Option<usize> {
        self.nominated
            .iter()
            .find(|n| n.info.pod.namespace == namespace && n.info.pod.name == name)
            .map(|n| n.node)
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
    pub fn topology_index(&self, key: &str) -> Arc<TopologyIndex> {
        if let Some(index) = self.topology_indexes.borrow().get(key) {
            return Arc::clone(index);
        }
        let index = Arc::new(TopologyIndex::build(&self.nodes, key));
        self.topology_indexes
            .borrow_mut()
            .insert(String::from(key), Arc::clone(&index));
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

/// Counts `node` in the number of nodes holding each of its images (each name once per node:
/// the scheduler cache's `imageStates` keep a set of nodes per image).
fn count_images(counts: &mut BTreeMap<String, usize>, node: &Node) {
    for name in image_names(node) {
        *counts.entry(name.clone()).or_insert(0) += 1;
    }
}

/// Takes `node` out of the number of nodes holding each of its images.
fn uncount_images(counts: &mut BTreeMap<String, usize>, node: &Node) {
    for name in image_names(node) {
        if let Some(count) = counts.get_mut(name) {
            *count -= 1;
            if *count == 0 {
                counts.remove(name);
            }
        }
    }
}

/// A node's image names, each once.
fn image_names(node: &Node) -> BTreeSet<&String> {
    node.images.iter().flat_map(|i| &i.names).collect()
}

#[cfg(test)]
mod send_tests {
    /// A snapshot moves between threads (a service keeps one for many decisions).
    #[test]
    fn a_snapshot_is_send() {
        fn send<T: Send>() {}
        send::<super::Snapshot>();
    }
}
