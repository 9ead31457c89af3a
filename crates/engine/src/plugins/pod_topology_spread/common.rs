//! Internal constraint form and defaults (`common.go`, `plugin.go` args, `helper/spread.go`).

pub use crate::config::{DefaultingType, SpreadArgs};
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::{PodInfo, Snapshot};
use crate::model::{
    ControllerKind, LABEL_HOSTNAME, LABEL_ZONE, Labels, Node, NodeInclusionPolicy, Requirement,
    Selector, TopologySpreadConstraint, WhenUnsatisfiable,
};

/// `topologySpreadConstraint`: the spec constraint with its selector merged and defaults applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadConstraint {
    /// `maxSkew`.
    pub max_skew: i32,
    /// `topologyKey`.
    pub topology_key: String,
    /// The selector, with `matchLabelKeys` merged in.
    pub selector: Selector,
    /// `minDomains`, 1 when nil.
    pub min_domains: i32,
    /// `nodeAffinityPolicy`, Honor when nil.
    pub node_affinity_policy: NodeInclusionPolicy,
    /// `nodeTaintsPolicy`, Ignore when nil.
    pub node_taints_policy: NodeInclusionPolicy,
}

/// What asking `matchNodeInclusionPolicies` takes for one pod's constraints, decided once per
/// cycle (PreFilter and PreScore) instead of per node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InclusionReads {
    /// A constraint honours node affinity and the pod has a `nodeSelector` or required node
    /// affinity (without one, every node matches).
    affinity: bool,
    /// Some policy reads the node at all; else every node with the keys counts.
    pub(crate) nodes: bool,
}

impl InclusionReads {
    /// The reads of `constraints` for `pod`.
    pub(crate) fn of(pod: &PodInfo, constraints: &[SpreadConstraint]) -> InclusionReads {
        let affinity = pod.pod.has_required_node_affinity()
            && constraints
                .iter()
                .any(|c| c.node_affinity_policy == NodeInclusionPolicy::Honor);
        let taints = constraints
            .iter()
            .any(|c| c.node_taints_policy == NodeInclusionPolicy::Honor);
        InclusionReads {
            affinity,
            nodes: affinity || taints,
        }
    }

    /// The pod's required node affinity result for `node`, as
    /// [`SpreadConstraint::matches_node_inclusion_policies`] takes it.
    pub(crate) fn affinity_matches(&self, pod: &PodInfo, node: &Node) -> bool {
        !self.affinity || pod.pod.matches_required_node_affinity(node)
    }
}

impl SpreadConstraint {
    /// `matchNodeInclusionPolicies`: whether the node counts for this constraint. The caller passes the
    /// pod's required node affinity result for the node, computed once per node.
    pub fn matches_node_inclusion_policies(
        &self,
        pod: &PodInfo,
        node: &Node,
        node_affinity_matches: bool,
    ) -> bool {
        if self.node_affinity_policy == NodeInclusionPolicy::Honor && !node_affinity_matches {
            return false;
        }
        if self.node_taints_policy == NodeInclusionPolicy::Honor {
            let untolerated = crate::model::taint::find_untolerated_taint(
                &node.taints,
                &pod.pod.tolerations,
                |t| {
                    matches!(
                        t.effect,
                        crate::model::TaintEffect::NoSchedule
                            | crate::model::TaintEffect::NoExecute
                    )
                },
            );
            if untolerated.is_some() {
                return false;
            }
        }
        true
    }
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
pub fn node_has_all_keys(labels: &Labels, constraints: &[SpreadConstraint]) -> bool {
    constraints
        .iter()
        .all(|c| labels.contains_key(&c.topology_key))
}

impl SpreadArgs {
    /// The constraints used for pods without their own (`systemDefaultConstraints` or the list).
    pub fn effective_default_constraints(&self) -> Vec<TopologySpreadConstraint> {
        match self.defaulting_type {
            DefaultingType::System => system_default_constraints(),
            DefaultingType::List => self.default_constraints.clone(),
        }
    }
}

/// `systemDefaultConstraints` (`plugin.go`).
pub fn system_default_constraints() -> Vec<TopologySpreadConstraint> {
    let soft = |key: &str, max_skew| TopologySpreadConstraint {
        max_skew,
        topology_key: String::from(key),
        when_unsatisfiable: WhenUnsatisfiable::ScheduleAnyway,
        selector: Selector::Nothing,
        min_domains: None,
        node_affinity_policy: None,
        node_taints_policy: None,
        match_label_keys: Vec::new(),
    };
    alloc::vec![soft(LABEL_HOSTNAME, 3), soft(LABEL_ZONE, 5)]
}

/// `filterTopologySpreadConstraints`: keeps the constraints of one kind, merges `matchLabelKeys`
/// into the selector (gate MatchLabelKeysInPodTopologySpread, on) and applies the nil defaults.
pub fn filter_constraints(
    constraints: &[TopologySpreadConstraint],
    pod_labels: &Labels,
    action: WhenUnsatisfiable,
) -> Vec<SpreadConstraint> {
    constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == action)
        .map(|c| {
            let mut selector = c.selector.clone();
            let match_labels: Vec<Requirement> = c
                .match_label_keys
                .iter()
                .filter_map(|key| {
                    pod_labels
                        .get(key)
                        .map(|value| Requirement::equals(key.clone(), value.clone()))
                })
                .collect();
            if !match_labels.is_empty() {
                // mergeLabelSetWithSelector: a Nothing selector stays Nothing.
                selector = selector.and(match_labels);
            }
            SpreadConstraint {
                max_skew: c.max_skew,
                topology_key: c.topology_key.clone(),
                selector,
                min_domains: c.min_domains.unwrap_or(1), // If MinDomains is nil, we treat MinDomains as 1.
                node_affinity_policy: c.node_affinity_policy.unwrap_or(NodeInclusionPolicy::Honor),
                node_taints_policy: c.node_taints_policy.unwrap_or(NodeInclusionPolicy::Ignore),
            }
        })
        .collect()
}

/// `helper.DefaultSelector`: the union of matching Services' selectors, ANDed with the controller
/// owner's selector (ReplicaSet, StatefulSet) or merged with a ReplicationController's map.
pub fn default_selector(pod: &PodInfo, snapshot: &Snapshot) -> Selector {
    let pod = &pod.pod;
    let mut label_set = Labels::new();
    for service in &snapshot.services {
        if service.namespace != pod.namespace {
            continue;
        }
        let Some(selector) = &service.selector else {
            continue;
        };
        if Selector::from_set(selector).matches(&pod.labels) {
            label_set.extend(selector.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    let mut selector = Selector::from_set(&label_set);
    let Some(owner) = &pod.owner else {
        return selector;
    };
    let group = owner
        .api_version
        .rsplit_once('/')
        .map_or("", |(group, _)| group);
    let kind = match (group, owner.kind.as_str()) {
        ("", "ReplicationController") => ControllerKind::ReplicationController,
        ("apps", "ReplicaSet") => ControllerKind::ReplicaSet,
        ("apps", "StatefulSet") => ControllerKind::StatefulSet,
        _ => return selector,
    };
    let controller = snapshot
        .controllers
        .iter()
        .find(|c| c.kind == kind && c.namespace == pod.namespace && c.name == owner.name);
    if let Some(controller) = controller
        && let Selector::Requirements(requirements) = &controller.selector
    {
        selector = selector.and(requirements.iter().cloned());
    }
    selector
}

/// `buildDefaultConstraints`: the default constraints of one kind, all with the default selector;
/// none when that selector is empty.
pub fn build_default_constraints(
    args: &SpreadArgs,
    pod: &PodInfo,
    snapshot: &Snapshot,
    action: WhenUnsatisfiable,
) -> Vec<SpreadConstraint> {
    let mut constraints = filter_constraints(
        &args.effective_default_constraints(),
        &pod.pod.labels,
        action,
    );
    if constraints.is_empty() {
        return constraints;
    }
    let selector = default_selector(pod, snapshot);
    if selector.is_empty() {
        return Vec::new();
    }
    for constraint in &mut constraints {
        constraint.selector = selector.clone();
    }
    constraints
}

/// `getConstraints`: the pod's own constraints of a kind, or the defaults when it has none at all.
pub fn get_constraints(
    args: &SpreadArgs,
    pod: &PodInfo,
    snapshot: &Snapshot,
    action: WhenUnsatisfiable,
) -> Vec<SpreadConstraint> {
    if !pod.pod.topology_spread_constraints.is_empty() {
        filter_constraints(
            &pod.pod.topology_spread_constraints,
            &pod.pod.labels,
            action,
        )
    } else {
        build_default_constraints(args, pod, snapshot, action)
    }
}
