//! Filter half of TaintToleration (`taint_toleration.go` `Filter`).

use super::ERR_REASON_UNTOLERATED;
use crate::framework::{Code, NodeInfo, PodInfo, Status};
use crate::model::TaintEffect;
use crate::model::taint::find_untolerated_taint;

/// The first NoSchedule/NoExecute taint no toleration tolerates rejects the node.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Status {
    let untolerated = find_untolerated_taint(&node.node.taints, &pod.pod.tolerations, |taint| {
        matches!(
            taint.effect,
            TaintEffect::NoSchedule | TaintEffect::NoExecute
        )
    });
    match untolerated {
        None => Status::success(),
        Some(_) => Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED),
    }
}
