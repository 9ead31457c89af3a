//! VolumeZone: a pod's bound volumes labelled with a zone or region only fit nodes there.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/volumezone/volume_zone.go`.

mod filtering;

pub use filtering::{PreFilterState, filter, pre_filter};

/// `ErrReasonConflict`.
pub const ERR_REASON_CONFLICT: &str = "node(s) had no available volume zone";
