//! Filter half of NodeName (`node_name.go` `Filter`, `Fits`).

use super::ERR_REASON;
use crate::framework::{Code, NodeInfo, PodInfo, Status};

/// Fails every node but the one in `spec.nodeName`, when set.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Status {
    match pod.pod.node_name.as_deref() {
        Some(name) if !name.is_empty() && name != node.node.name => {
            Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON)
        }
        _ => Status::success(),
    }
}
