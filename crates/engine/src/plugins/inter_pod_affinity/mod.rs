//! InterPodAffinity: required pod (anti-)affinity filters, preferred terms and existing pods'
//! terms score. Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/interpodaffinity/`
//! (`plugin.go`, `filtering.go`, `scoring.go`), file for file.

mod filtering;
mod plugin;
mod scoring;

pub use filtering::{PreFilterState, TopologyCounts, filter, pre_filter};
pub use plugin::AffinityArgs;
pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// Whether Filter (with the cycle's PreFilter `state`) tells apart nodes that differ only in
/// identity: a required term of the pod, or an existing pod's required anti-affinity term that
/// matches it, on `kubernetes.io/hostname`. Otherwise alike nodes get the same verdict
/// (`framework/classes.rs`).
pub fn filter_reads_node_identity(state: Option<&PreFilterState>) -> bool {
    use crate::model::LABEL_HOSTNAME;
    state.is_some_and(|s| {
        s.required_affinity_terms
            .iter()
            .chain(&s.required_anti_affinity_terms)
            .any(|t| t.topology_key == LABEL_HOSTNAME)
            || s.existing_anti_affinity_counts.has_key(LABEL_HOSTNAME)
    })
}

/// Whether Score tells apart nodes that differ only in identity: a term that scores (`scoring.go`
/// `processExistingPod`: the pod's preferred terms, and the required affinity and preferred terms
/// of the pods with affinity already on a node; required anti-affinity never scores) on
/// `kubernetes.io/hostname`.
pub fn score_reads_node_identity(
    pod: &crate::framework::PodInfo,
    snapshot: &crate::framework::Snapshot,
) -> bool {
    use crate::framework::PodInfo;
    use crate::model::LABEL_HOSTNAME;
    let preferred = |info: &PodInfo| {
        info.preferred_affinity_terms
            .iter()
            .chain(&info.preferred_anti_affinity_terms)
            .any(|w| w.term.topology_key == LABEL_HOSTNAME)
    };
    let existing = |info: &PodInfo| {
        preferred(info)
            || info
                .required_affinity_terms
                .iter()
                .any(|t| t.topology_key == LABEL_HOSTNAME)
    };
    preferred(pod)
        || (snapshot.n_nodes_with_affinity_pods > 0
            && snapshot.nodes.iter().any(|node| {
                node.pods_with_affinity
                    .iter()
                    .any(|id| existing(snapshot.pod(*id)))
            }))
}

/// `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't match pod anti-affinity rules";

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{labels, node, only, pod, snapshot};
    use crate::framework::{Code, PluginName, PodInfo, run_filter, run_pre_filter};
    use crate::model::{PodAffinity, PodAffinityTerm, Selector};

    fn term(key: &str) -> PodAffinityTerm {
        PodAffinityTerm {
            selector: Selector::from_set(&labels(&[("app", "db")])),
            topology_key: key.into(),
            namespaces: vec![],
            namespace_selector: None,
            match_label_keys: vec![],
            mismatch_label_keys: vec![],
            parse_error: None,
        }
    }

    /// The first pod of a group with affinity to itself may go to any node with the key (upstream
    /// "pod matches its own Label in PodAffinity and that matches the existing pod Labels").
    #[test]
    fn first_pod_of_a_self_affine_group_passes() {
        let snap = snapshot(vec![node("a", &[("zone", "z1")]), node("b", &[])], vec![]);
        let mut incoming = pod("p", &[("app", "db")], None);
        incoming.affinity.pod_affinity = Some(PodAffinity {
            required: vec![term("zone")],
            preferred: vec![],
        });
        let incoming = PodInfo::new(incoming);
        let profile = only(PluginName::InterPodAffinity);
        let (state, _) = run_pre_filter(&profile, &snap, &incoming);
        assert!(run_filter(&profile, &state, &snap, &incoming, 0).is_success());
        // Node b lacks the key: affinity fails, unresolvable.
        let status = run_filter(&profile, &state, &snap, &incoming, 1);
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
    }

    /// An existing pod's required anti-affinity rejects the incoming pod in its domain only.
    #[test]
    fn existing_anti_affinity_is_symmetric() {
        let mut existing = pod("e", &[], Some("a"));
        existing.affinity.pod_anti_affinity = Some(PodAffinity {
            required: vec![term("zone")],
            preferred: vec![],
        });
        let snap = snapshot(
            vec![node("a", &[("zone", "z1")]), node("b", &[("zone", "z2")])],
            vec![existing],
        );
        let incoming = PodInfo::new(pod("p", &[("app", "db")], None));
        let profile = only(PluginName::InterPodAffinity);
        let (state, _) = run_pre_filter(&profile, &snap, &incoming);
        let status = run_filter(&profile, &state, &snap, &incoming, 0);
        assert_eq!(status.code, Code::Unschedulable);
        assert_eq!(
            status.reasons()[0],
            super::ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
        );
        assert!(run_filter(&profile, &state, &snap, &incoming, 1).is_success());
    }
}
