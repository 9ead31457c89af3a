//! NodeVolumeLimits: a node attaches at most `allocatable.count` volumes of a CSI driver (its
//! CSINode).
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodevolumelimits/csi.go` (the
//! VolumeLimitScaling gate, alpha and off in v1.35, is not modelled). In-tree volume sources are
//! counted only through CSI migration upstream, which spreadlab does not translate: they are not
//! counted (the loader warns).

mod csi;

pub use csi::{filter, pre_filter, reads_node_identity};

/// `ErrReasonMaxVolumeCountExceeded`.
pub const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: &str = "node(s) exceed max volume count";
