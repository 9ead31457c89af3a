//! Filter half of NodeAffinity (`node_affinity.go` `PreFilter`, `Filter`; `GetRequiredNodeAffinity`).

use alloc::collections::BTreeSet;
use alloc::string::String;

use super::{ERR_REASON_CONFLICT, ERR_REASON_ENFORCED, ERR_REASON_POD, NodeAffinityArgs};
use crate::framework::{Code, NodeInfo, PodInfo, Status};
use crate::model::Operator;
use crate::model::pod::OBJECT_NAME_FIELD;

/// PreFilter outcome: `Skip`, or the node-name narrowing (`PreFilterResult.NodeNames`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterState {
    /// Nodes the pod may go to by `matchFields metadata.name In`; `None` means all.
    pub node_names: Option<BTreeSet<String>>,
}

/// PreFilter: `Skip` without required affinity and nodeSelector; narrows to named nodes when every
/// term has `metadata.name In`; `pod affinity terms conflict` when that narrowing is empty.
pub fn pre_filter(args: &NodeAffinityArgs, pod: &PodInfo) -> (Status, PreFilterState) {
    let required = pod
        .pod
        .affinity
        .node_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref());
    let all = PreFilterState { node_names: None };
    let Some(terms) = required else {
        let added = args
            .added_affinity
            .as_ref()
            .is_some_and(|a| a.required.is_some());
        if pod.pod.node_selector.is_empty() && !added {
            return (Status::skip(), all);
        }
        return (Status::success(), all);
    };
    if terms.is_empty() {
        return (Status::success(), all);
    }
    let mut node_names: BTreeSet<String> = BTreeSet::new();
    for term in terms {
        let mut term_names: Option<BTreeSet<String>> = None;
        for field in &term.match_fields {
            if field.key == OBJECT_NAME_FIELD && field.operator == Operator::In {
                let set: BTreeSet<String> = field.values.iter().cloned().collect();
                term_names = Some(match term_names {
                    None => set,
                    Some(existing) => existing.intersection(&set).cloned().collect(),
                });
            }
        }
        match term_names {
            None => return (Status::success(), all),
            Some(names) => node_names.extend(names),
        }
    }
    if node_names.is_empty() {
        return (
            Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_CONFLICT),
            all,
        );
    }
    (
        Status::success(),
        PreFilterState {
            node_names: Some(node_names),
        },
    )
}

/// Filter: the node must satisfy the profile's added affinity, then the pod's required node
/// affinity and nodeSelector.
pub fn filter(args: &NodeAffinityArgs, pod: &PodInfo, node: &NodeInfo) -> Status {
    if let Some(terms) = args
        .added_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref())
        && !terms.iter().any(|term| term.matches(&node.node))
    {
        return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_ENFORCED);
    }
    if pod.pod.matches_required_node_affinity(&node.node) {
        Status::success()
    } else {
        Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_POD)
    }
}
