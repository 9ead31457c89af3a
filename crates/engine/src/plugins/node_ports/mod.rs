//! NodePorts: a host port (IP, protocol, port) can be claimed by one pod per node.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodeports/node_ports.go` and
//! `framework.HostPortInfo.CheckConflict` in `types.go`.

mod filtering;

pub use filtering::{filter, pre_filter};

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";
