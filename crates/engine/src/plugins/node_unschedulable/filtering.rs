//! Filter half of NodeUnschedulable (`node_unschedulable.go` `Filter`).

use alloc::string::String;

use super::{ERR_REASON_UNSCHEDULABLE, TAINT_NODE_UNSCHEDULABLE};
use crate::framework::{Code, NodeInfo, PodInfo, Status};
use crate::model::taint::tolerations_tolerate_taint;
use crate::model::{Taint, TaintEffect};

/// `spec.unschedulable` nodes fail unless the pod tolerates `node.kubernetes.io/unschedulable:NoSchedule`.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Status {
    if !node.node.unschedulable {
        return Status::success();
    }
    let taint = Taint {
        key: String::from(TAINT_NODE_UNSCHEDULABLE),
        value: String::new(),
        effect: TaintEffect::NoSchedule,
    };
    if tolerations_tolerate_taint(&pod.pod.tolerations, &taint) {
        return Status::success();
    }
    Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)
}
