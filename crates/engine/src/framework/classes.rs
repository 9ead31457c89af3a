//! Node classes: nodes alike in everything the profile's plugins read except their identity (the
//! node name and its `kubernetes.io/hostname` label) get the same Filter verdicts and Scores for a
//! pod whose plugins do not read that identity, so one cycle evaluates one node per class instead
//! of every node. kube-scheduler itself evaluates every node (`findNodesThatPassFilters` in
//! `pkg/scheduler/schedule_one.go`); this is an exact shortcut of spreadlab's, in the spirit of the
//! scheduler's long-removed equivalence cache. Which pods may use it is decided per plugin
//! (`plugins/registry.rs` `reads_node_identity`); the snapshot owns the classes (`snapshot.rs`),
//! the class passes read them (`framework/by_class.rs`, called from `scheduler/schedule_one.rs`)
//! and PodTopologySpread's PreFilter reads the spec classes (`NodeClasses::specs`).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use super::snapshot::Snapshot;
use super::types::NodeInfo;
use crate::model::{LABEL_HOSTNAME, Node, Resource};

/// Everything a node's class stands for: its spec class and the totals of the pods on it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ClassKey {
    /// The spec class ([`NodeClasses::spec`]).
    spec: u32,
    /// Sum of the pods' requests (NodeResourcesFit, BalancedAllocation).
    requested: Resource,
    /// Sum of the pods' non-zero cpu and memory requests (scoring).
    non_zero: (i64, i64),
    /// Number of pods (NodeResourcesFit's pod count).
    n_pods: usize,
    /// Host ports in use, sorted (NodePorts).
    ports: Vec<(String, String, i32)>,
}

/// The node classes of a snapshot, kept up to date lazily: a node is classified again when its
/// generation changed since it was last classified.
#[derive(Clone, Debug, Default)]
pub struct NodeClasses {
    /// Per node: its spec class (labels but the hostname, taints, `unschedulable`, allocatable,
    /// images and declared features); empty until first used.
    spec: Vec<u32>,
    /// How many spec classes there are.
    n_specs: u32,
    /// Per node: its class, valid while `seen[node]` is the node's generation.
    class: Vec<u32>,
    /// Per node: the generation `class` was computed at (`u64::MAX`: never).
    seen: Vec<u64>,
    /// The key of each class.
    keys: Vec<ClassKey>,
    /// Classes by the hash of their key.
    by_hash: BTreeMap<u64, Vec<u32>>,
    /// Nodes whose pods changed since the last refresh (only they are classified again).
    touched: Vec<usize>,
    /// More nodes were touched than there are nodes: every node is looked at.
    overflow: bool,
}

/// The hash of a node's spec without its identity.
fn spec_hash(node: &Node) -> u64 {
    let mut hasher = FxHasher::default();
    for (key, value) in without_identity(node) {
        key.hash(&mut hasher);
        value.hash(&mut hasher);
    }
    node.taints.hash(&mut hasher);
    node.unschedulable.hash(&mut hasher);
    node.allocatable.hash(&mut hasher);
    node.images.hash(&mut hasher);
    node.declared_features.hash(&mut hasher);
    hasher.finish()
}

/// A node's labels without `kubernetes.io/hostname`.
fn without_identity(node: &Node) -> impl Iterator<Item = (&String, &String)> {
    node.labels
        .iter()
        .filter(|(key, _)| key.as_str() != LABEL_HOSTNAME)
}

/// Whether two nodes are alike in everything but their identity.
fn same_spec(a: &Node, b: &Node) -> bool {
    without_identity(a).eq(without_identity(b))
        && a.taints == b.taints
        && a.unschedulable == b.unschedulable
        && a.allocatable == b.allocatable
        && a.images == b.images
        && a.declared_features == b.declared_features
}

impl NodeClasses {
    /// Notes that the pods on `node` changed (the snapshot calls it on every bind and removal).
    pub(crate) fn touch(&mut self, node: usize) {
        if self.spec.is_empty() || self.overflow {
            return;
        }
        if self.touched.len() >= self.spec.len() {
            self.overflow = true;
        } else {
            self.touched.push(node);
        }
    }

    /// Brings every node's class up to date with the snapshot: the touched nodes whose generation
    /// changed are classified again (every node, the first time).
    pub(crate) fn refresh(&mut self, snapshot: &Snapshot) {
        let n_nodes = snapshot.nodes.len();
        let mut all = self.overflow;
        if self.spec.len() != n_nodes {
            self.build_specs(&snapshot.nodes);
            all = true;
        }
        // Classes are never deleted while nodes move between them; start afresh when the stale
        // ones outnumber the nodes.
        if self.keys.len() > 2 * n_nodes + 64 {
            self.keys.clear();
            self.by_hash.clear();
            self.seen.fill(u64::MAX);
            all = true;
        }
        let touched = core::mem::take(&mut self.touched);
        self.overflow = false;
        let update = |classes: &mut NodeClasses, node: usize| {
            let generation = snapshot.node_generation[node];
            if classes.seen[node] != generation {
                classes.class[node] = classes.classify(node, &snapshot.nodes[node]);
                classes.seen[node] = generation;
            }
        };
        if all {
            (0..n_nodes).for_each(|node| update(self, node));
        } else {
            touched
                .into_iter()
                .filter(|&node| node < n_nodes)
                .for_each(|node| update(self, node));
        }
    }

    fn build_specs(&mut self, nodes: &[NodeInfo]) {
        let mut by_hash: BTreeMap<u64, Vec<(u32, usize)>> = BTreeMap::new();
        let mut n_specs = 0u32;
        self.spec = nodes
            .iter()
            .enumerate()
            .map(|(index, info)| {
                let bucket = by_hash.entry(spec_hash(&info.node)).or_default();
                match bucket
                    .iter()
                    .find(|(_, other)| same_spec(&nodes[*other].node, &info.node))
                {
                    Some((spec, _)) => *spec,
                    None => {
                        bucket.push((n_specs, index));
                        n_specs += 1;
                        n_specs - 1
                    }
                }
            })
            .collect();
        self.n_specs = n_specs;
        self.class = alloc::vec![0; nodes.len()];
        self.seen = alloc::vec![u64::MAX; nodes.len()];
        self.keys.clear();
        self.by_hash.clear();
        self.touched.clear();
        // No node is classified yet: the next refresh looks at every node.
        self.overflow = true;
    }

    /// Per node: its spec class, built first when there are none for these nodes (the snapshot
    /// resets its classes on every node change, so spec classes of as many nodes are theirs);
    /// and how many spec classes there are. Nodes of one spec class differ only in their
    /// identity and their pods.
    pub(crate) fn specs(&mut self, nodes: &[NodeInfo]) -> (&[u32], usize) {
        if self.spec.len() != nodes.len() {
            self.build_specs(nodes);
        }
        (&self.spec, self.n_specs as usize)
    }

    fn classify(&mut self, node: usize, info: &NodeInfo) -> u32 {
        let mut ports = info.used_ports.clone();
        ports.sort_unstable();
        let key = ClassKey {
            spec: self.spec[node],
            requested: info.requested.clone(),
            non_zero: (info.non_zero_milli_cpu, info.non_zero_memory),
            n_pods: info.pods.len(),
            ports,
        };
        let mut hasher = FxHasher::default();
        key.hash(&mut hasher);
        let bucket = self.by_hash.entry(hasher.finish()).or_default();
        if let Some(class) = bucket.iter().find(|c| self.keys[**c as usize] == key) {
            return *class;
        }
        let class = self.keys.len() as u32;
        self.keys.push(key);
        bucket.push(class);
        class
    }

    /// Whether the spec classes are built (for tests: [`NodeClasses::specs`] builds them).
    #[cfg(test)]
    pub(crate) fn has_specs(&self) -> bool {
        !self.spec.is_empty()
    }

    /// Per node: its class (after [`NodeClasses::refresh`]).
    pub(crate) fn of_nodes(&self) -> &[u32] {
        &self.class
    }

    /// An upper bound of the class numbers (after [`NodeClasses::refresh`]).
    pub(crate) fn count(&self) -> usize {
        self.keys.len()
    }
}
