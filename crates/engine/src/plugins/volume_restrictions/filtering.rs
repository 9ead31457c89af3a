//! PreFilter, Filter and the AddPod/RemovePod extensions of VolumeRestrictions
//! (`volume_restrictions.go` `PreFilter`, `Filter`, `isVolumeConflict`, `preFilterState`).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;

use super::{ERR_REASON_DISK_CONFLICT, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT};
use crate::framework::{Code, NodeInfo, PodInfo, Snapshot, Status};
use crate::model::{AccessMode, Pod, PodVolume, VolumeSource};

/// The claims of the pod with `ReadWriteOncePod` access, and how many pod volumes in the
/// cluster use one of them (`conflictingPVCRefCount`).
#[derive(Clone, Debug, Default)]
pub struct PreFilterState {
    read_write_once_pod_claims: BTreeSet<String>,
    conflicting: i64,
}

impl PreFilterState {
    /// `updateWithPod`: a pod joins (`delta` 1) or leaves (-1) the cluster; upstream counts its
    /// `persistentVolumeClaim` volumes by claim name alone.
    pub fn update_with_pod(&mut self, pod: &Pod, delta: i64) {
        let uses = pod
            .volumes
            .iter()
            .filter_map(|v| v.persistent_volume_claim(&pod.name))
            .filter(|name| self.read_write_once_pod_claims.contains(name))
            .count();
        self.conflicting += delta * uses as i64;
    }
}

/// `needsRestrictionsCheck`: an inline GCE PD, AWS EBS, RBD or iSCSI volume.
fn needs_check(volume: &PodVolume) -> bool {
    matches!(
        volume.source,
        VolumeSource::GcePersistentDisk { .. }
            | VolumeSource::AwsElasticBlockStore { .. }
            | VolumeSource::Iscsi { .. }
            | VolumeSource::Rbd { .. }
    )
}

/// `PreFilter`: a missing claim rejects the pod (the lister's NotFound text); `Skip` when the pod
/// has no inline disk and none of its `ReadWriteOncePod` claims is in use (`IsPVCUsedByPods`:
/// any pod in the snapshot naming the claim).
pub fn pre_filter(pod: &PodInfo, snapshot: &Snapshot) -> (Status, Option<PreFilterState>) {
    let p = &pod.pod;
    let mut state = PreFilterState::default();
    for volume in &p.volumes {
        let Some(name) = volume.persistent_volume_claim(&p.name) else {
            continue;
        };
        let Some((_, Some(claim))) = snapshot.storage.pod_claim(&p.namespace, &p.name, volume)
        else {
            let message = format!("persistentvolumeclaim {name:?} not found");
            return (
                Status::new(Code::UnschedulableAndUnresolvable, message),
                None,
            );
        };
        if claim
            .spec
            .access_modes
            .contains(&AccessMode::ReadWriteOncePod)
        {
            state.read_write_once_pod_claims.insert(name);
        }
    }
    for claim in &state.read_write_once_pod_claims {
        let used = snapshot.pods.iter().flatten().any(|info| {
            info.pod.namespace == p.namespace
                && info
                    .pod
                    .volumes
                    .iter()
                    .any(|v| v.persistent_volume_claim(&info.pod.name).as_ref() == Some(claim))
        });
        if used {
            state.conflicting += 1;
        }
    }
    if !p.volumes.iter().any(needs_check) && state.conflicting == 0 {
        return (Status::skip(), None);
    }
    (Status::success(), Some(state))
}

/// `isVolumeConflict`: the same disk mounted by another pod of the node, unless both mount it
/// read-only (an EBS volume conflicts even then).
fn conflicts(volume: &VolumeSource, existing: &Pod) -> bool {
    existing.volumes.iter().any(|e| match (volume, &e.source) {
        (
            VolumeSource::GcePersistentDisk { pd_name, read_only },
            VolumeSource::GcePersistentDisk {
                pd_name: other,
                read_only: other_read_only,
            },
        ) => pd_name == other && !(*read_only && *other_read_only),
        (
            VolumeSource::AwsElasticBlockStore { volume_id },
            VolumeSource::AwsElasticBlockStore { volume_id: other },
        ) => volume_id == other,
        (
            VolumeSource::Iscsi { iqn, read_only },
            VolumeSource::Iscsi {
                iqn: other,
                read_only: other_read_only,
            },
        ) => iqn == other && !(*read_only && *other_read_only),
        (
            VolumeSource::Rbd {
                monitors,
                pool,
                image,
                read_only,
            },
            VolumeSource::Rbd {
                monitors: other_monitors,
                pool: other_pool,
                image: other_image,
                read_only: other_read_only,
            },
        ) => {
            monitors.iter().any(|m| other_monitors.contains(m))
                && pool == other_pool
                && image == other_image
                && !(*read_only && *other_read_only)
        }
        _ => false,
    })
}

/// `Filter`: an inline disk another pod of the node uses, then a `ReadWriteOncePod` claim in use.
pub fn filter(
    state: &PreFilterState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node: &NodeInfo,
) -> Status {
    for volume in pod.pod.volumes.iter().filter(|v| needs_check(v)) {
        if node
            .pods
            .iter()
            .any(|&id| conflicts(&volume.source, &snapshot.pod(id).pod))
        {
            return Status::new(Code::Unschedulable, ERR_REASON_DISK_CONFLICT);
        }
    }
    if state.conflicting > 0 {
        return Status::new(Code::Unschedulable, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT);
    }
    Status::success()
}

/// Whether Filter tells alike nodes apart: only by the inline disks of the pods on them, which
/// node classes do not compare.
pub fn reads_node_identity(pod: &PodInfo) -> bool {
    pod.pod.volumes.iter().any(needs_check)
}
