//! A cluster's changes applied to a snapshot in place (a watched cluster's pod and node events),
//! leaving it as [`Snapshot::new`] would build it from the changed cluster: every node lists its
//! pods by namespace and name, and a changed node keeps its place, so the next decisions are the
//! ones a fresh snapshot gives.
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
