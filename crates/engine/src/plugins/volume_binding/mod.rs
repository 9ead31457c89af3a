//! VolumeBinding: a pod's claims must be bound to volumes its node can reach, or be bindable
//! there (a matching static volume, or a provisioner allowed to create one for the node).
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`
//! (PreFilter, Filter) and `binder.go` (`GetPodVolumeClaims`, `FindPodVolumes`). Its Score needs
//! the StorageCapacityScoring gate (alpha and off up to v1.36: no scorer; beta and on in v1.37:
//! `scorer.rs`, in the v1.37 profile).

mod binder;
mod filtering;
mod scorer;

pub use binder::{DynamicProvision, PodVolumes, bind_pod_volumes, find_pod_volumes};
pub use filtering::{PreFilterState, filter, pre_filter, reads_node_identity};
pub use scorer::score;

/// `ErrReasonBindConflict`.
pub const ERR_REASON_BIND_CONFLICT: &str =
    "node(s) didn't find available persistent volumes to bind";
/// `ErrReasonNodeConflict`.
pub const ERR_REASON_NODE_CONFLICT: &str = "node(s) didn't match PersistentVolume's node affinity";
/// `ErrReasonNotEnoughSpace`.
pub const ERR_REASON_NOT_ENOUGH_SPACE: &str = "node(s) did not have enough free storage";
/// `ErrReasonPVNotExist`.
pub const ERR_REASON_PV_NOT_EXIST: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
/// PreFilter's reason for unbound claims of a class that binds at once.
pub const ERR_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";
