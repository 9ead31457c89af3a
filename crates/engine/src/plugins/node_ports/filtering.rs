//! Filter half of NodePorts (`PreFilter` gathers the wanted ports, `Filter` checks conflicts).

use super::ERR_REASON;
use crate::framework::{Code, NodeInfo, PodInfo, Status};

const ANY_IP: &str = "0.0.0.0";

/// `Skip` when the pod claims no host port.
pub fn pre_filter(pod: &PodInfo) -> Status {
    if pod.host_ports.is_empty() {
        Status::skip()
    } else {
        Status::success()
    }
}

/// Fails when any wanted `(ip, protocol, port)` conflicts with one in use: same protocol and port,
/// and the same IP or `0.0.0.0` on either side.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Status {
    let conflict = pod.host_ports.iter().any(|(ip, protocol, port)| {
        node.used_ports
            .iter()
            .any(|(used_ip, used_protocol, used_port)| {
                used_port == port
                    && used_protocol == protocol
                    && (used_ip == ip || used_ip == ANY_IP || ip == ANY_IP)
            })
    });
    if conflict {
        Status::new(Code::Unschedulable, ERR_REASON)
    } else {
        Status::success()
    }
}
