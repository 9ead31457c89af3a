//! A cluster's changes applied to a snapshot in place (a watched cluster's pod and node events),
//! leaving it as [`Snapshot::new`] would build it from the changed cluster: every node lists its
//! pods by namespace and name, a changed node keeps its place and a new one takes the place the
//! changed cluster lists it in (every index after it moves), so the next decisions are the ones
//! a fresh snapshot gives.
//!
//! Upstream's cache (`pkg/scheduler/backend/cache/cache.go`) appends a pod that arrives and moves
//! the last one into a removed pod's slot (`removeFromSlice`), so its order depends on the
//! history of events, which only DefaultPreemption's victim order among equals reads. Here the
//! order depends on the cluster's state alone: the same cluster gives the same answers however
//! it was reached (a fresh read, as after a scheduler restart).

use alloc::sync::Arc;

use super::Snapshot;
use crate::framework::types::{NodeInfo, PodId, PodInfo};
use crate::model::{Node, Pod, Resource};

impl Snapshot {
    /// Adds a pod bound in the cluster where [`Snapshot::new`] lists it, and returns its id;
    /// `None` when it is terminal or names a node the snapshot does not have (`Snapshot::new`
    /// leaves such pods out).
    pub fn add_bound_pod(&mut self, pod: Arc<Pod>) -> Option<PodId> {
        if pod.phase.is_terminal() {
            return None;
        }
        let node = *self.node_index.get(pod.node_name.as_deref()?)?;
        let id = self.bind(PodInfo::bound(pod, self.version), node);
        self.order_by_name(node);
        Some(id)
    }

    /// Takes the pod `namespace/name` off `node` (its deletion, or the old side of an update),
    /// keeping the order of the node's other pods; `None` when it is not there.
    pub fn remove_bound_pod(&mut self, namespace: &str, name: &str, node: &str) -> Option<PodInfo> {
        let index = *self.node_index.get(node)?;
        let id = self.nodes[index].pods.iter().copied().find(|&id| {
            let pod = &self.pod(id).pod;
            pod.namespace == namespace && pod.name == name
        })?;
        let info = self.remove(id);
        self.order_by_name(index);
        info
    }

    /// Puts `node` in the place of the node of the same name (new labels, taints, allocatable,
    /// images or cordon); `false` when there is none. Its pods stay; every cache that read the
    /// node is made afresh.
    pub fn update_node(&mut self, node: Node) -> bool {
        let Some(&index) = self.node_index.get(&node.name) else {
            return false;
        };
        let old = Arc::clone(&self.nodes[index].node);
        super::uncount_images(&mut self.image_num_nodes, &old);
        super::count_images(&mut self.image_num_nodes, &node);
        if old.labels != node.labels {
            // Topology values and the zones of the node tree come from labels.
            self.topology_indexes.get_mut().clear();
            *self.node_tree.get_mut() = None;
        }
        let info = &mut self.nodes[index];
        info.allocatable = Resource::from_list(&node.allocatable);
        info.node = Arc::new(node);
        self.node_generation[index] += 1;
        *self.node_classes.get_mut() = super::super::classes::NodeClasses::default();
        true
    }

    /// Puts a new node, with no pods, at `position` among the nodes (where the changed
    /// cluster lists it, so that the nodes stay in the order [`Snapshot::new`] takes them in);
    /// `false`, with nothing changed, when a node of that name is there or `position` is past
    /// the end. Every node index from `position` on moves up by one; the caches that read node
    /// indexes or the set of nodes are made afresh. The caller then adds the pods bound to it
    /// ([`Snapshot::add_bound_pod`]).
    pub fn insert_node(&mut self, position: usize, node: Node) -> bool {
        if position > self.nodes.len() || self.node_index.contains_key(&node.name) {
            return false;
        }
        self.renumber_nodes(|index| if index >= position { index + 1 } else { index });
        self.place_node(position, node);
        true
    }

    /// Puts `node`, with no pods, at `position` of the node list (its name, generation, images
    /// and a 0 in every match count), moving no other index: the caller has moved those at or
    /// after `position` ([`Snapshot::insert_node`]), or it goes last ([`Snapshot::add_node`]).
    pub(super) fn place_node(&mut self, position: usize, node: Node) {
        for by_selector in self.match_counts.get_mut().values_mut() {
            for counts in by_selector.values_mut() {
                counts.insert_node(position);
            }
        }
        super::count_images(&mut self.image_num_nodes, &node);
        self.node_index.insert(node.name.clone(), position);
        self.nodes.insert(position, NodeInfo::new(node));
        self.node_generation.insert(position, 0);
        self.nodes_changed();
    }

    /// Takes the node `name` out with its pods (a deleted node: [`Snapshot::new`] leaves out
    /// the pods still bound to a node the cluster no longer has, until the pod garbage
    /// collector deletes them) and nominations to it, and returns where it was; `None` when
    /// there is no such node. Every node index after it moves down by one; the caches that
    /// read node indexes or the set of nodes are made afresh.
    pub fn remove_node(&mut self, name: &str) -> Option<usize> {
        let position = self.node_index.remove(name)?;
        let info = self.nodes.remove(position);
        for &id in &info.pods {
            self.pods[id] = None;
            self.pod_node[id] = usize::MAX;
        }
        if !info.pods.is_empty() {
            // A rollback across this would put pods back on nodes they were not on.
            self.breaches += 1;
        }
        if !info.pods_with_affinity.is_empty() {
            self.n_nodes_with_affinity_pods -= 1;
        }
        if !info.pods_with_required_anti_affinity.is_empty() {
            self.n_nodes_with_required_anti_affinity_pods -= 1;
        }
        super::uncount_images(&mut self.image_num_nodes, &info.node);
        for nominated in self.nominated.iter().filter(|n| n.node == position) {
            self.pod_node[nominated.id] = usize::MAX;
        }
        self.nominated.retain(|n| n.node != position);
        self.node_generation.remove(position);
        for by_selector in self.match_counts.get_mut().values_mut() {
            for counts in by_selector.values_mut() {
                counts.remove_node(position);
            }
        }
        self.renumber_nodes(|index| if index > position { index - 1 } else { index });
        self.nodes_changed();
        Some(position)
    }

    /// Moves every node index the snapshot keeps outside the node list (names, pods,
    /// nominations) by `moved`; a removed pod's `usize::MAX` stays.
    fn renumber_nodes(&mut self, moved: impl Fn(usize) -> usize) {
        for index in self.node_index.values_mut() {
            *index = moved(*index);
        }
        for node in &mut self.pod_node {
            if *node != usize::MAX {
                *node = moved(*node);
            }
        }
        for nominated in &mut self.nominated {
            nominated.node = moved(nominated.node);
        }
    }

    /// After a node was added or removed: the caches kept per node index or built from every
    /// node (topology values, the node tree, node classes, node-local plugin results) are made
    /// afresh on next use.
    fn nodes_changed(&mut self) {
        self.topology_indexes.get_mut().clear();
        *self.node_tree.get_mut() = None;
        self.csi_nodes.take();
        *self.node_classes.get_mut() = super::super::classes::NodeClasses::default();
        *self.node_local_cache.get_mut() = super::super::cache::NodeLocalCache::default();
    }

    /// Lists `node`'s pods by namespace and name, as [`Snapshot::new`] binds them.
    fn order_by_name(&mut self, node: usize) {
        let pods = &self.pods;
        let key = |id: &PodId| {
            let pod = &pods[*id]
                .as_ref()
                .expect("pod ids in node infos are live")
                .pod;
            (pod.namespace.as_str(), pod.name.as_str())
        };
        let info: &mut NodeInfo = &mut self.nodes[node];
        info.pods.sort_by(|a, b| key(a).cmp(&key(b)));
        info.pods_with_affinity.sort_by(|a, b| key(a).cmp(&key(b)));
        info.pods_with_required_anti_affinity
            .sort_by(|a, b| key(a).cmp(&key(b)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, Labels};
    use crate::version::KubeVersion;
    use alloc::string::String;
    use alloc::vec::Vec;

    fn pod(name: &str, node: &str) -> Arc<Pod> {
        let mut pod = Pod::named("default", name);
        pod.node_name = Some(String::from(node));
        Arc::new(pod)
    }

    /// Pods added and removed one at a time leave every node as a fresh snapshot of the final
    /// cluster lists it.
    #[test]
    fn pods_changed_one_at_a_time_are_listed_as_a_fresh_snapshot_lists_them() {
        let nodes = alloc::vec![Node::named("a"), Node::named("b")];
        let mut cluster = Cluster {
            nodes,
            ..Cluster::default()
        };
        for name in ["p3", "p1", "p5", "p2"] {
            cluster.pods.push(pod(name, "a"));
        }
        let (mut snapshot, _) = Snapshot::new(&cluster, KubeVersion::V1_35);
        assert!(snapshot.remove_bound_pod("default", "p1", "a").is_some());
        assert!(snapshot.add_bound_pod(pod("p0", "a")).is_some());
        assert!(snapshot.add_bound_pod(pod("p4", "b")).is_some());
        assert!(snapshot.add_bound_pod(pod("p9", "gone")).is_none());
        assert!(snapshot.remove_bound_pod("default", "p1", "a").is_none());
        cluster.pods.retain(|p| p.name != "p1");
        cluster.pods.push(pod("p0", "a"));
        cluster.pods.push(pod("p4", "b"));
        let (fresh, _) = Snapshot::new(&cluster, KubeVersion::V1_35);
        let names = |s: &Snapshot, node: usize| -> Vec<String> {
            s.pods_on(node).map(|p| p.pod.name.clone()).collect()
        };
        for node in 0..2 {
            assert_eq!(names(&snapshot, node), names(&fresh, node));
            assert_eq!(snapshot.nodes[node].requested, fresh.nodes[node].requested);
        }
        assert_eq!(names(&snapshot, 0), ["p0", "p2", "p3", "p5"]);
    }

    /// Nodes added and deleted in place (with pods bound to them, a nomination and cached
    /// match counts and topology values) leave the snapshot as a fresh one of the changed
    /// cluster: nodes in the same order, the same pods on each, the same counts and indexes.
    #[test]
    fn nodes_added_and_removed_in_place_are_as_a_fresh_snapshot() {
        let zone = "topology.kubernetes.io/zone";
        let zoned = |name: &str, value: &str| {
            let mut labels = Labels::new();
            labels.insert(String::from(zone), String::from(value));
            Node {
                labels,
                ..Node::named(name)
            }
        };
        let labelled = |name: &str, node: &str| {
            let mut pod = Pod::named("default", name);
            pod.labels.insert(String::from("app"), String::from("x"));
            pod.node_name = Some(String::from(node));
            Arc::new(pod)
        };
        let mut cluster = Cluster {
            nodes: alloc::vec![zoned("a", "z1"), zoned("c", "z2"), zoned("e", "z1")],
            ..Cluster::default()
        };
        for (name, node) in [
            ("p1", "a"),
            ("p2", "c"),
            ("p3", "e"),
            ("p4", "c"),
            ("p5", "d"),
        ] {
            cluster.pods.push(labelled(name, node));
        }
        let (mut snapshot, warnings) = Snapshot::new(&cluster, KubeVersion::V1_35);
        assert_eq!(warnings.len(), 1, "p5's node d is not there yet");
        let mut app = Labels::new();
        app.insert(String::from("app"), String::from("x"));
        let selector = crate::model::Selector::from_set(&app);
        let counts = |s: &Snapshot| s.with_match_counts("default", &selector, <[u32]>::to_vec);
        assert_eq!(counts(&snapshot), [1, 2, 1]);
        assert_eq!(snapshot.topology_index(zone).values, ["z1", "z2"]);
        let nominated = PodInfo::bound(Arc::new(Pod::named("default", "n")), snapshot.version);
        snapshot.nominate(nominated, 1);

        // d joins between c and e, in a zone of its own, and the pod already bound to it
        // arrives with it; c leaves with its two pods and the nomination to it.
        assert!(snapshot.insert_node(2, zoned("d", "z3")));
        assert!(!snapshot.insert_node(0, Node::named("d")), "d is there");
        assert!(!snapshot.insert_node(9, Node::named("x")), "past the end");
        assert!(snapshot.add_bound_pod(labelled("p5", "d")).is_some());
        assert_eq!(snapshot.remove_node("c"), Some(1));
        assert_eq!(snapshot.remove_node("c"), None);
        assert!(snapshot.nominated.is_empty());

        cluster.nodes = alloc::vec![zoned("a", "z1"), zoned("d", "z3"), zoned("e", "z1")];
        let (fresh, _) = Snapshot::new(&cluster, KubeVersion::V1_35);
        let names = |s: &Snapshot| -> Vec<Vec<String>> {
            (0..s.nodes.len())
                .map(|n| s.pods_on(n).map(|p| p.pod.name.clone()).collect())
                .collect()
        };
        assert_eq!(names(&snapshot), names(&fresh));
        assert_eq!(names(&snapshot), [["p1"], ["p5"], ["p3"]]);
        assert_eq!(snapshot.node_index, fresh.node_index);
        assert_eq!(counts(&snapshot), [1, 1, 1]);
        assert_eq!(counts(&snapshot), counts(&fresh));
        assert_eq!(snapshot.topology_index(zone), fresh.topology_index(zone));
        assert_eq!(snapshot.node_tree(), fresh.node_tree());
        for (id, pod) in snapshot.pods.iter().enumerate() {
            if let Some(pod) = pod {
                let node = snapshot.pod_node[id];
                assert_eq!(
                    pod.pod.node_name.as_deref(),
                    Some(snapshot.nodes[node].node.name.as_str())
                );
            }
        }
    }

    /// A node's new labels reach the topology values and the node tree.
    #[test]
    fn an_updated_node_is_read_afresh() {
        let mut cluster = Cluster::default();
        for name in ["a", "b"] {
            cluster.nodes.push(Node::named(name));
        }
        let (mut snapshot, _) = Snapshot::new(&cluster, KubeVersion::V1_35);
        let zone = "topology.kubernetes.io/zone";
        assert_eq!(snapshot.topology_index(zone).values.len(), 0);
        let mut labels = Labels::new();
        labels.insert(String::from(zone), String::from("z1"));
        let changed = Node {
            labels,
            ..Node::named("b")
        };
        assert!(snapshot.update_node(changed));
        assert!(!snapshot.update_node(Node::named("c")));
        assert_eq!(snapshot.topology_index(zone).values, ["z1"]);
        assert_eq!(snapshot.node_tree().len(), 2);
    }
}
