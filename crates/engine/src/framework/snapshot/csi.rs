//! Each node's CSINode and attached CSI volumes, read once per snapshot and then by node index:
//! NodeVolumeLimits and VolumeBinding read them for every node a pod with volumes is filtered on
//! (`csi.go` `Filter`, `getNodeVolumeAttachmentInfo`; `binder.go` `FindPodVolumes`), where a
//! lookup by name costs one string comparison per level of the storage's maps and the
//! attachments are every VolumeAttachment of the cluster.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::Snapshot;
use crate::model::{CsiNodeDriver, Storage, VolumeAttachment};

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
    /// The CSI volumes attached to the node (NodeVolumeLimits' `getNodeVolumeAttachmentInfo`):
    /// of each VolumeAttachment to the node with an attacher whose volume exists and has a CSI
    /// source, `<attacher>/<handle>` and the attacher, each volume once, sorted.
    pub attached_volumes: Vec<(String, String)>,
}

impl NodeCsi {
    /// The CSINode of the node `name`, as `storage` holds it.
    pub fn read(storage: &Storage, name: &str) -> NodeCsi {
        let mut attached = BTreeMap::new();
        for attachment in storage.attachments.iter().filter(|a| a.node == name) {
            add_attached(storage, attachment, &mut attached);
        }
        NodeCsi {
            attached_volumes: attached.into_iter().collect(),
            ..NodeCsi::without_attachments(storage, name)
        }
    }

    /// [`NodeCsi::read`] but for the attachments, which the memo finds in one pass for every node.
    fn without_attachments(storage: &Storage, name: &str) -> NodeCsi {
        let drivers = storage.csi_nodes.get(name).cloned();
        NodeCsi {
            limited: (drivers.iter().flatten()).any(|d| d.allocatable_count.is_some()),
            drivers,
            migrated_plugins: storage.csi_migrated_plugins.get(name).cloned(),
            attached_volumes: Vec::new(),
        }
    }
}

/// Adds the volume of `attachment` to `attached` (see [`NodeCsi::attached_volumes`]).
fn add_attached(
    storage: &Storage,
    attachment: &VolumeAttachment,
    attached: &mut BTreeMap<String, String>,
) {
    if attachment.attacher.is_empty() {
        return;
    }
    let Some(handle) = (storage.volumes.get(&attachment.volume))
        .filter(|pv| pv.csi_driver.is_some())
        .and_then(|pv| pv.csi_volume_handle.as_ref())
    else {
        return;
    };
    attached.insert(
        format!("{}/{handle}", attachment.attacher),
        attachment.attacher.clone(),
    );
}

impl Snapshot {
    /// The CSINode of the node at index `node`. Every node's is read from `storage` on first
    /// use. A simulation never changes a CSINode, a VolumeAttachment or an existing volume's CSI
    /// source (binding a pod adds claims and volumes and binds existing ones), so the memo holds
    /// until the nodes change, a rollback restores another storage or binding provisions a
    /// volume an attachment names. Debug builds compare every read with a lookup by name.
    pub fn csi_node(&self, node: usize) -> &NodeCsi {
        let all = self.csi_nodes.get_or_init(|| {
            let storage = &self.storage;
            let mut all: Vec<NodeCsi> = (self.nodes.iter())
                .map(|info| NodeCsi::without_attachments(storage, &info.node.name))
                .collect();
            // The attachments in one pass (not one pass per node), each to its node.
            let mut attached = BTreeMap::new();
            for attachment in &storage.attachments {
                if let Some(&node) = self.node_index.get(&attachment.node) {
                    add_attached(storage, attachment, attached.entry(node).or_default());
                }
            }
            for (node, volumes) in attached {
                all[node].attached_volumes = volumes.into_iter().collect();
            }
            all.into()
        });
        let read = &all[node];
        debug_assert_eq!(
            *read,
            NodeCsi::read(&self.storage, &self.nodes[node].node.name),
            "the CSINode memo of node {node} is stale"
        );
        read
    }

    /// After binding provisioned the volumes `names` (each added, or replacing one of the same
    /// name): the memo is made afresh when a VolumeAttachment names one of them.
    pub(crate) fn volumes_bound(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        if (self.storage.attachments.iter()).any(|a| names.contains(&a.volume)) {
            self.csi_nodes.take();
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::sync::Arc;
    use alloc::vec;

    use super::*;
    use crate::framework::testing::node;
    use crate::model::{Cluster, PersistentVolume};
    use crate::version::KubeVersion;

    fn driver(count: Option<i32>) -> Vec<CsiNodeDriver> {
        vec![CsiNodeDriver {
            name: "ebs.csi.aws.com".to_string(),
            allocatable_count: count,
            ..CsiNodeDriver::default()
        }]
    }

    fn csi_volume(name: &str) -> PersistentVolume {
        PersistentVolume {
            name: name.to_string(),
            csi_driver: Some("ebs.csi.aws.com".to_string()),
            csi_volume_handle: Some(format!("vol-{name}")),
            ..PersistentVolume::default()
        }
    }

    /// The memo answers by node index as a lookup by name does: after the nodes move (a node
    /// removed, one inserted), after binding provisions a volume an attachment names, and after
    /// a rollback restores a storage with other CSINodes.
    #[test]
    fn the_memo_follows_node_changes_and_rollbacks() {
        let mut storage = Storage::default();
        storage.csi_nodes.insert("n1".into(), driver(Some(25)));
        storage.csi_nodes.insert("n2".into(), driver(None));
        storage
            .csi_migrated_plugins
            .insert("n2".into(), vec!["kubernetes.io/aws-ebs".to_string()]);
        storage.volumes.insert("pv-a".into(), csi_volume("pv-a"));
        for (node, volume) in [
            ("n1", "pv-a"),
            ("n1", "pv-a"),
            ("n2", "pvc-x"),
            ("n9", "pv-a"),
        ] {
            storage.attachments.push(VolumeAttachment {
                node: node.into(),
                attacher: "ebs.csi.aws.com".into(),
                volume: volume.into(),
            });
        }
        let cluster = Cluster {
            nodes: vec![node("n0", &[]), node("n1", &[]), node("n2", &[])],
            storage: Arc::new(storage.clone()),
            ..Cluster::default()
        };
        let (mut snapshot, _) = Snapshot::new(&cluster, KubeVersion::DEFAULT);
        let read = |snapshot: &Snapshot, index: usize| snapshot.csi_node(index).clone();
        assert_eq!(read(&snapshot, 0), NodeCsi::default());
        let n1 = read(&snapshot, 1);
        assert!(n1.limited);
        // Two attachments of one volume count once; n9 is not a node of the snapshot.
        let pv_a = (
            "ebs.csi.aws.com/vol-pv-a".to_string(),
            "ebs.csi.aws.com".to_string(),
        );
        assert_eq!(n1.attached_volumes, core::slice::from_ref(&pv_a));
        let n2 = read(&snapshot, 2);
        assert!(!n2.limited && n2.drivers.is_some() && n2.migrated_plugins.is_some());
        // n2's attachment names a volume binding has not provisioned yet.
        assert!(n2.attached_volumes.is_empty());
        Arc::make_mut(&mut snapshot.storage)
            .volumes
            .insert("pvc-x".into(), csi_volume("pvc-x"));
        snapshot.volumes_bound(&["pvc-x".to_string()]);
        let n2 = read(&snapshot, 2);
        assert_eq!(n2.attached_volumes.len(), 1);
        // n0 goes: n1 is now at 0 and n2 at 1.
        snapshot.remove_node("n0");
        assert!(read(&snapshot, 0).limited);
        assert_eq!(read(&snapshot, 1), n2);
        // A node inserted first moves them back; it has no CSINode, but an attachment.
        snapshot.insert_node(0, node("n9", &[]));
        let n9 = read(&snapshot, 0);
        assert_eq!(
            (n9.drivers, n9.attached_volumes),
            (None, vec![pv_a.clone()])
        );
        assert!(read(&snapshot, 1).limited);
        // Storage changed after a mark, then rolled back: n1 loses its CSINode and regains it.
        let mark = snapshot.mark();
        storage.csi_nodes.remove("n1");
        snapshot.storage = Arc::new(storage);
        snapshot.csi_nodes.take();
        let without = read(&snapshot, 1);
        assert_eq!(
            (without.drivers, without.attached_volumes),
            (None, vec![pv_a])
        );
        assert!(snapshot.rollback(mark));
        assert!(read(&snapshot, 1).limited);
    }
}
