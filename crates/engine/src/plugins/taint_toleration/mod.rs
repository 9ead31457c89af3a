//! TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`.

mod filtering;
mod scoring;

pub use filtering::filter;
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// The v1.35 filter reason (PR #134740): key and value are no longer printed.
pub const ERR_REASON_UNTOLERATED: &str = "node(s) had untolerated taint(s)";

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{node, pod, snapshot};
    use crate::framework::{Code, PodInfo};
    use crate::model::{Taint, TaintEffect, Toleration, TolerationOperator};

    #[test]
    fn untolerated_no_schedule_taint_rejects_and_prefer_no_schedule_scores() {
        let mut tainted = node("t", &[]);
        tainted.taints = vec![
            Taint {
                key: "gpu".into(),
                value: "true".into(),
                effect: TaintEffect::NoSchedule,
            },
            Taint {
                key: "spot".into(),
                value: String::new(),
                effect: TaintEffect::PreferNoSchedule,
            },
        ];
        let snap = snapshot(vec![tainted], vec![]);
        let plain = PodInfo::new(pod("p", &[], None));
        let status = super::filter(&plain, &snap.nodes[0]);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(status.reasons()[0], super::ERR_REASON_UNTOLERATED);
        let mut tolerant = pod("q", &[], None);
        tolerant.tolerations.push(Toleration {
            key: "gpu".into(),
            operator: TolerationOperator::Exists,
            value: String::new(),
            effect: None,
        });
        let tolerant = PodInfo::new(tolerant);
        assert!(super::filter(&tolerant, &snap.nodes[0]).is_success());
        let state = super::pre_score(&tolerant);
        assert_eq!(super::score(&state, &snap.nodes[0]), 1);
    }

    use alloc::string::String;
}
