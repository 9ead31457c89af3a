//! VolumeRestrictions: inline disks one writer may mount per node, and ReadWriteOncePod claims
//! one pod may use in the whole cluster.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go`.

mod filtering;

pub use filtering::{PreFilterState, filter, pre_filter, reads_node_identity};

/// `ErrReasonDiskConflict`.
pub const ERR_REASON_DISK_CONFLICT: &str = "node(s) had no available disk";
/// `ErrReasonReadWriteOncePodConflict`.
pub const ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT: &str = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod";
