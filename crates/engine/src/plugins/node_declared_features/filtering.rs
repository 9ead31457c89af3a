//! PreFilter and Filter of NodeDeclaredFeatures (`nodedeclaredfeatures.go`).

use alloc::vec::Vec;

use super::ERR_REASON;
use crate::framework::{Code, NodeInfo, PodInfo, Status};

/// The node features a pod requires (`InferForPodScheduling` over the registry `AllFeatures`):
/// only two features infer anything at scheduling time; the others (in-place resize, websockets,
/// DRA, memory-backed volume resize) return false, and `volumeBindMountOptions` (v1.37) reads a
/// field of the v1.37 API spreadlab does not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterState {
    /// Required feature names, sorted.
    pub required: Vec<&'static str>,
}

/// `restartallcontainers`: a container or init container restart rule with action
/// `RestartAllContainers`.
const RESTART_ALL_CONTAINERS: &str = "RestartAllContainersOnContainerExits";
/// `usernamespaceshostnetwork`: `hostNetwork: true` with `hostUsers: false`.
const USER_NAMESPACES_HOST_NETWORK: &str = "UserNamespacesHostNetworkSupport";

/// PreFilter: Skip when the pod requires no feature, else its requirements.
pub fn pre_filter(pod: &PodInfo) -> (Status, Option<PreFilterState>) {
    let p = &pod.pod;
    let mut required = Vec::new();
    if p.restarts_all_containers {
        required.push(RESTART_ALL_CONTAINERS);
    }
    if p.host_network && p.host_users == Some(false) {
        required.push(USER_NAMESPACES_HOST_NETWORK);
    }
    if required.is_empty() {
        return (Status::skip(), None);
    }
    required.sort_unstable();
    (Status::success(), Some(PreFilterState { required }))
}

/// Filter: every required feature among the node's declared ones (names the registry does not
/// know are dropped from a node's set, `TryMap`, so they never satisfy anything).
pub fn filter(state: &PreFilterState, node: &NodeInfo) -> Status {
    let declared = &node.node.declared_features;
    if state
        .required
        .iter()
        .all(|feature| declared.iter().any(|d| d == feature))
    {
        Status::success()
    } else {
        Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON)
    }
}
