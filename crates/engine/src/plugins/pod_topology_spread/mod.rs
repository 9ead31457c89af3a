//! PodTopologySpread: hard constraints filter, soft constraints (and system defaults) score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/podtopologyspread/` (`plugin.go`,
//! `common.go`, `filtering.go`, `scoring.go`), file for file.

mod common;
mod filtering;
mod scoring;

pub use common::{
    DefaultingType, SpreadArgs, SpreadConstraint, default_selector, system_default_constraints,
};
pub use filtering::{DomainTable, PreFilterState, filter, pre_filter};
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// Whether Filter (with the cycle's PreFilter `state`) tells apart nodes that differ only in
/// identity: a hard constraint on `kubernetes.io/hostname` counts per node. Otherwise alike nodes
/// get the same verdict (`framework/classes.rs`).
pub fn filter_reads_node_identity(state: Option<&PreFilterState>) -> bool {
    state.is_some_and(|s| {
        s.constraints
            .iter()
            .any(|c| c.topology_key == crate::model::LABEL_HOSTNAME)
    })
}

/// Whether Score tells apart nodes that differ only in identity: a soft constraint (or a system
/// default one) on `kubernetes.io/hostname` counts per node and sizes its weight by the number of
/// filtered nodes.
pub fn score_reads_node_identity(
    args: &SpreadArgs,
    pod: &crate::framework::PodInfo,
    snapshot: &crate::framework::Snapshot,
) -> bool {
    common::get_constraints(
        args,
        pod,
        snapshot,
        crate::model::WhenUnsatisfiable::ScheduleAnyway,
    )
    .iter()
    .any(|c| c.topology_key == crate::model::LABEL_HOSTNAME)
}

/// `ErrReasonConstraintsNotMatch`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{node, only, pod, snapshot};
    use crate::framework::{Code, PluginName, PodInfo, run_filter, run_pre_filter};
    use crate::model::{Selector, TopologySpreadConstraint, WhenUnsatisfiable};

    fn constrained(min_domains: Option<i32>) -> PodInfo {
        let mut incoming = pod("p", &[("foo", "")], None);
        incoming
            .topology_spread_constraints
            .push(TopologySpreadConstraint {
                max_skew: 1,
                topology_key: "zone".into(),
                when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
                selector: Selector::from_set(&crate::framework::testing::labels(&[("foo", "")])),
                min_domains,
                node_affinity_policy: None,
                node_taints_policy: None,
                match_label_keys: vec![],
            });
        PodInfo::new(incoming)
    }

    /// Upstream TestSingleConstraint "to-be-placed pod satisfies... minDomains": two zones with 1 and
    /// 0 matching pods; with minDomains 3 the global minimum is forced to 0.
    #[test]
    fn min_domains_forces_global_minimum_to_zero() {
        let nodes = vec![node("a", &[("zone", "z1")]), node("b", &[("zone", "z2")])];
        let pods = vec![
            pod("e1", &[("foo", "")], Some("a")),
            pod("e2", &[("foo", "")], Some("b")),
        ];
        let profile = only(PluginName::PodTopologySpread);
        let snap = snapshot(nodes.clone(), pods.clone());
        // minDomains 1: counts 1/1, minimum 1, skew 1 everywhere: both pass.
        let (state, _) = run_pre_filter(&profile, &snap, &constrained(None));
        assert!(run_filter(&profile, &state, &snap, &constrained(None), 0).is_success());
        // minDomains 3: minimum forced to 0, skew 2 > 1 everywhere: both fail.
        let incoming = constrained(Some(3));
        let (state, _) = run_pre_filter(&profile, &snap, &incoming);
        let status = run_filter(&profile, &state, &snap, &incoming, 0);
        assert_eq!(status.code, Code::Unschedulable);
        assert_eq!(status.reasons()[0], super::ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }

    /// A node without the topology key is UnschedulableAndUnresolvable.
    #[test]
    fn missing_key_is_unresolvable() {
        let snap = snapshot(vec![node("a", &[("zone", "z1")]), node("x", &[])], vec![]);
        let profile = only(PluginName::PodTopologySpread);
        let incoming = constrained(None);
        let (state, _) = run_pre_filter(&profile, &snap, &incoming);
        let status = run_filter(&profile, &state, &snap, &incoming, 1);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(status.reasons()[0], super::ERR_REASON_NODE_LABEL_NOT_MATCH);
    }
}
