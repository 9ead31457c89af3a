//! Each node's CSINode, looked up by node name once per snapshot and then read by node index:
//! NodeVolumeLimits and VolumeBinding read it for every node a pod with volumes is filtered on
//! (`csi.go` `Filter`, `binder.go` `FindPodVolumes`), where a lookup by name would cost one
//! string comparison per level of the storage's maps.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::Ref;

use super::Snapshot;
use crate::model::{CsiNodeDriver, Storage};

/// What the scheduler's plugins read of one node's CSINode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeCsi {
    /// The CSINode's drivers; `None` when the node has no CSINode.
    pub drivers: Option<Vec<CsiNodeDriver>>,
    /// Whether one of its drivers has an `allocatable.count` (NodeVolumeLimits' `getVolumeLimits`
    /// finds limits), so that nodes without limits are told apart without reading the drivers.
    pub limited: bool,
    /// The in-tree plugins its `storage.alpha.kubernetes.io/migrated-plugins` annotation lists;
    /// `None` when it has no such annotation (or no CSINode).
    pub migrated_plugins: Option<Vec<String>>,
}

impl NodeCsi {
    /// The CSINode of the node `name`, as `storage` holds it.
    pub fn read(storage: &Storage, name: &str) -> NodeCsi {
        let drivers = storage.csi_nodes.get(name).cloned();
        NodeCsi {
            limited: drivers
                .iter()
                .flatten()
                .any(|d| d.allocatable_count.is_some()),
            drivers,
            migrated_plugins: storage.csi_migrated_plugins.get(name).cloned(),
        }
    }
}

impl Snapshot {
    /// The CSINode of the node at index `node`. Every node's is read from `storage` on first
    /// use: a simulation never changes CSINodes (binding a pod adds claims and volumes only), so
    /// the memo holds until the nodes change or a rollback restores an earlier storage. Debug
    /// builds compare every read with a lookup by name.
    pub fn csi_node(&self, node: usize) -> Ref<'_, NodeCsi> {
        if self.csi_nodes.borrow().is_none() {
            let all: Arc<[NodeCsi]> = self
                .nodes
                .iter()
                .map(|info| NodeCsi::read(&self.storage, &info.node.name))
                .collect();
            // No reference into the memo is out while it is empty.
            *self.csi_nodes.borrow_mut() = Some(all);
        }
        let read = Ref::map(self.csi_nodes.borrow(), |all| match all {
            Some(all) => &all[node],
            None => unreachable!("filled above"),
        });
        debug_assert_eq!(
            *read,
            NodeCsi::read(&self.storage, &self.nodes[node].node.name),
            "the CSINode memo of node {node} is stale"
        );
        read
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use super::*;
    use crate::framework::testing::node;
    use crate::model::Cluster;
    use crate::version::KubeVersion;

    fn driver(count: Option<i32>) -> Vec<CsiNodeDriver> {
        vec![CsiNodeDriver {
            name: "ebs.csi.aws.com".to_string(),
            allocatable_count: count,
            ..CsiNodeDriver::default()
        }]
    }

    /// The memo answers by node index as a lookup by name does, after the nodes move (a node
    /// removed, one inserted) and after a rollback restores a storage with other CSINodes.
    #[test]
    fn the_memo_follows_node_changes_and_rollbacks() {
        let mut storage = Storage::default();
        storage.csi_nodes.insert("n1".into(), driver(Some(25)));
        storage.csi_nodes.insert("n2".into(), driver(None));
        storage
            .csi_migrated_plugins
            .insert("n2".into(), vec!["kubernetes.io/aws-ebs".to_string()]);
        let cluster = Cluster {
            nodes: vec![node("n0", &[]), node("n1", &[]), node("n2", &[])],
            storage: Arc::new(storage.clone()),
            ..Cluster::default()
        };
        let (mut snapshot, _) = Snapshot::new(&cluster, KubeVersion::DEFAULT);
        let read = |snapshot: &Snapshot, index: usize| snapshot.csi_node(index).clone();
        assert_eq!(read(&snapshot, 0), NodeCsi::default());
        assert!(read(&snapshot, 1).limited);
        let n2 = read(&snapshot, 2);
        assert!(!n2.limited && n2.drivers.is_some() && n2.migrated_plugins.is_some());
        // n0 goes: n1 is now at 0 and n2 at 1.
        snapshot.remove_node("n0");
        assert!(read(&snapshot, 0).limited);
        assert_eq!(read(&snapshot, 1), n2);
        // A node inserted first moves them back.
        snapshot.insert_node(0, node("n9", &[]));
        assert_eq!(read(&snapshot, 0), NodeCsi::default());
        assert!(read(&snapshot, 1).limited);
        // Storage changed after a mark, then rolled back: n1 loses its CSINode and regains it.
        let mark = snapshot.mark();
        storage.csi_nodes.remove("n1");
        snapshot.storage = Arc::new(storage);
        *snapshot.csi_nodes.get_mut() = None;
        assert_eq!(read(&snapshot, 1), NodeCsi::default());
        assert!(snapshot.rollback(mark));
        assert!(read(&snapshot, 1).limited);
    }
}
