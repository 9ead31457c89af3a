//! NodeAffinity: `spec.nodeSelector` and required node affinity filter, preferred terms score.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go` and
//! `k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go` (v0.35).

mod filtering;
mod scoring;

pub use filtering::{PreFilterState, filter, pre_filter};

pub use crate::config::NodeAffinityArgs;

pub use scoring::{PreScoreState, normalize_score, pre_score, score};

/// Whether the pod's `nodeSelector` or node affinity, or the args' added affinity, read a node's
/// identity: the `kubernetes.io/hostname` label or a `matchFields` (`metadata.name`) requirement.
/// Otherwise alike nodes get the same verdict and score (`framework/classes.rs`).
pub fn reads_node_identity(args: &NodeAffinityArgs, pod: &crate::framework::PodInfo) -> bool {
    use crate::model::{LABEL_HOSTNAME, NodeAffinity, NodeSelectorTerm};
    let term = |t: &NodeSelectorTerm| {
        !t.match_fields.is_empty() || t.match_expressions.iter().any(|r| r.key == LABEL_HOSTNAME)
    };
    let affinity = |a: &NodeAffinity| {
        a.required.iter().flatten().any(term) || a.preferred.iter().any(|p| term(&p.preference))
    };
    pod.pod.node_selector.contains_key(LABEL_HOSTNAME)
        || pod
            .pod
            .affinity
            .node_affinity
            .as_ref()
            .is_some_and(affinity)
        || args.added_affinity.as_ref().is_some_and(affinity)
}

/// `ErrReasonPod`.
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// `errReasonEnforced`.
pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
/// `errReasonConflict`.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{labels, node, pod, snapshot};
    use crate::framework::{Code, PodInfo};
    use crate::model::{NodeAffinity, NodeSelectorTerm, Operator, Requirement};

    fn with_terms(terms: vec::Vec<NodeSelectorTerm>) -> PodInfo {
        let mut p = pod("p", &[], None);
        p.affinity.node_affinity = Some(NodeAffinity {
            required: Some(terms),
            preferred: vec![],
        });
        PodInfo::new(p)
    }

    /// `matchFields metadata.name In` in every term narrows PreFilter; contradicting terms conflict.
    #[test]
    fn match_fields_narrow_and_conflict() {
        let name_in = |n: &str| NodeSelectorTerm {
            match_fields: vec![
                Requirement::new("metadata.name", Operator::In, vec![n.into()]).unwrap(),
            ],
            ..NodeSelectorTerm::default()
        };
        let args = super::NodeAffinityArgs::default();
        let (status, state) =
            super::pre_filter(&args, &with_terms(vec![name_in("a"), name_in("b")]));
        assert!(status.is_success());
        assert_eq!(
            state
                .node_names
                .unwrap()
                .into_iter()
                .collect::<vec::Vec<_>>(),
            vec!["a", "b"]
        );
        let mut both = name_in("a");
        both.match_fields.extend(name_in("b").match_fields);
        let (status, _) = super::pre_filter(&args, &with_terms(vec![both]));
        assert_eq!(status.code, Code::UnschedulableAndUnresolvable);
        assert_eq!(status.reasons()[0], super::ERR_REASON_CONFLICT);
    }

    /// NotIn matches nodes without the label; nodeSelector must match exactly.
    #[test]
    fn not_in_matches_missing_label_and_node_selector_is_anded() {
        let snap = snapshot(vec![node("a", &[]), node("b", &[("zone", "z1")])], vec![]);
        let term = NodeSelectorTerm {
            match_expressions: vec![
                Requirement::new("zone", Operator::NotIn, vec!["z1".into()]).unwrap(),
            ],
            ..NodeSelectorTerm::default()
        };
        let incoming = with_terms(vec![term]);
        let args = super::NodeAffinityArgs::default();
        assert!(super::filter(&args, &incoming, &snap.nodes[0]).is_success());
        assert_eq!(
            super::filter(&args, &incoming, &snap.nodes[1]).reasons()[0],
            super::ERR_REASON_POD
        );
        let mut selected = pod("s", &[], None);
        selected.node_selector = labels(&[("zone", "z1")]);
        let selected = PodInfo::new(selected);
        assert!(!super::filter(&args, &selected, &snap.nodes[0]).is_success());
        assert!(super::filter(&args, &selected, &snap.nodes[1]).is_success());
    }
}
