//! NodeVolumeLimits: a node attaches at most `allocatable.count` volumes of a CSI driver (its
//! CSINode).
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodevolumelimits/csi.go` and
//! `utils.go` (the VolumeLimitScaling gate, alpha and off in v1.35, is not modelled). In-tree
//! volume sources, inline in a pod or in a PersistentVolume (`awsElasticBlockStore`,
//! `gcePersistentDisk`, `azureDisk`, `cinder`, `portworxVolume`), and claims of a class with an
//! in-tree provisioner count against the limit of the CSI driver they migrate to, on nodes where
//! `isCSIMigrationOn` holds (a CSINode exists; Portworx also needs the CSINode's
//! `storage.alpha.kubernetes.io/migrated-plugins` annotation), under the volume handle
//! `k8s.io/csi-translation-lib` gives them (`model::csi_translation`), so a disk two pods share
//! counts once. `azureFile` and `vsphereVolume` keep PreFilter from skipping but are never
//! counted, as upstream.

mod csi;

pub use csi::{PreFilterState, filter, pre_filter, reads_node_identity};

/// `ErrReasonMaxVolumeCountExceeded`.
pub const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: &str = "node(s) exceed max volume count";
