//! `v1.Pod` (the fields scheduling reads: [`crate::slim::SlimPod`]) to [`model::Pod`]: metadata,
//! the scheduling-relevant spec and the status fields the scheduler reads, exactly as written (no
//! defaulting).

use k8s_openapi::api::core::v1 as api;
use spreadlab_engine::model::{
    self, Affinity, Container, ContainerPort, NodeAffinity, NodeInclusionPolicy, PodAffinity,
    PodAffinityTerm, PodPhase, PreemptionPolicy, PreferredSchedulingTerm, Selector, TaintEffect,
    Toleration, TolerationOperator, TopologySpreadConstraint, WeightedPodAffinityTerm,
    WhenUnsatisfiable,
};

use super::pod_validation::{spread_validation_error, validate_port};
use super::selector::{label_selector, label_selector_error, node_selector_term};
use super::{FieldPath, nonnegative_resource_list, unsupported};
use crate::error::ConvertError;
use crate::slim::{SlimContainer, SlimMetadata, SlimPod, SlimStatus};

/// The selector parse errors kept in a converted pod (terms the API server's validation rejects),
/// as `(field path, message)` pairs. Loading user input reports them as errors.
pub fn selector_parse_errors(pod: &model::Pod) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    if let Some(node_affinity) = &pod.affinity.node_affinity {
        let required = node_affinity.required.iter().flatten().enumerate();
        for (index, term) in required {
            if let Some(error) = &term.parse_error {
                let path = format!(
                    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{index}]"
                );
                errors.push((path, error.clone()));
            }
        }
        for (index, term) in node_affinity.preferred.iter().enumerate() {
            if let Some(error) = &term.preference.parse_error {
                let path = format!(
                    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{index}].preference"
                );
                errors.push((path, error.clone()));
            }
        }
    }
    for (field, affinity) in [
        ("podAffinity", &pod.affinity.pod_affinity),
        ("podAntiAffinity", &pod.affinity.pod_anti_affinity),
    ] {
        let Some(affinity) = affinity else { continue };
        for (index, term) in affinity.required.iter().enumerate() {
            if let Some(error) = &term.parse_error {
                errors.push((format!("spec.affinity.{field}.requiredDuringSchedulingIgnoredDuringExecution[{index}].labelSelector"), error.clone()));
            }
        }
        for (index, term) in affinity.preferred.iter().enumerate() {
            if let Some(error) = &term.term.parse_error {
                errors.push((format!("spec.affinity.{field}.preferredDuringSchedulingIgnoredDuringExecution[{index}].podAffinityTerm.labelSelector"), error.clone()));
            }
        }
    }
    errors
}

/// Converts a Pod (the fields scheduling reads: [`SlimPod`], from a whole pod by
/// `SlimPod::from`) and rejects selectors and spread constraints the API server's validation
/// rejects (for user input). Takes the pod: its strings, labels and selectors are moved.
pub fn convert_pod_validated(
    pod: SlimPod,
    default_namespace: &str,
) -> Result<model::Pod, ConvertError> {
    if let Some(error) = spread_validation_error(&pod) {
        return Err(error);
    }
    let spec = pod.spec.as_ref();
    for (list, containers) in [
        ("containers", spec.map(|s| &s.containers)),
        (
            "initContainers",
            spec.and_then(|s| s.init_containers.as_ref()),
        ),
    ] {
        for (c, container) in containers.into_iter().flatten().enumerate() {
            for (p, port) in container.ports.iter().flatten().enumerate() {
                validate_port(port, &format!("spec.{list}[{c}].ports[{p}]"))?;
            }
        }
    }
    let converted = convert_slim(pod, default_namespace)?;
    match selector_parse_errors(&converted).into_iter().next() {
        Some((path, message)) => Err(ConvertError::new(path, message)),
        None => Ok(converted),
    }
}

/// Whether the first `DisruptionTarget` condition is True with reason `PreemptionByScheduler`
/// (`podTerminatingByPreemption`, pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go).
fn preempted_by_scheduler(status: Option<&SlimStatus>) -> bool {
    status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|conditions| conditions.iter().find(|c| c.type_ == "DisruptionTarget"))
        .is_some_and(|c| c.status == "True" && c.reason.as_deref() == Some("PreemptionByScheduler"))
}

/// Converts a Pod as written: no API-server mutation (see [`crate::admit_pod`], which the loader
/// applies to every pod), `spec.priority` as given (0 when absent, no PriorityClass lookup). For
/// unit-test fixtures, which upstream builds without the API server.
///
/// A pod without `metadata.namespace` gets `default_namespace`.
pub fn convert_pod(pod: &api::Pod, default_namespace: &str) -> Result<model::Pod, ConvertError> {
    convert_slim(SlimPod::from(pod.clone()), default_namespace)
}

/// [`convert_pod`] of the fields scheduling reads, taking them: the strings and maps the model
/// keeps as they are (names, labels, owner, node, node selector) are moved instead of copied.
fn convert_slim(pod: SlimPod, default_namespace: &str) -> Result<model::Pod, ConvertError> {
    let SlimPod {
        mut metadata,
        spec,
        status,
    } = pod;
    let mut spec = spec.unwrap_or_default();
    let status = status.as_ref();
    let owner = controller_owner_taken(&mut metadata);
    let mut converted = model::Pod {
        namespace: match metadata.namespace.take() {
            Some(namespace) if !namespace.is_empty() => namespace,
            _ => default_namespace.to_owned(),
        },
        name: metadata.name.take().unwrap_or_default(),
        uid: metadata.uid.take().unwrap_or_default(),
        labels: metadata.labels.take().unwrap_or_default(),
        owner,
        priority: spec.priority.unwrap_or(0),
        preemption_policy: preemption_policy(
            spec.preemption_policy.as_deref(),
            "spec.preemptionPolicy",
        )?,
        node_name: spec.node_name.take().filter(|name| !name.is_empty()),
        nominated_node_name: status
            .and_then(|s| s.nominated_node_name.clone())
            .filter(|name| !name.is_empty()),
        phase: phase(status.and_then(|s| s.phase.as_deref()))?,
        terminating: metadata.deletion_timestamp.is_some(),
        terminating_by_preemption: metadata.deletion_timestamp.is_some()
            && preempted_by_scheduler(status),
        created: metadata
            .creation_timestamp
            .as_ref()
            .map(|time| time.0.as_second()),
        start_time: status
            .and_then(|s| s.start_time.as_ref())
            .map(|time| time.0.as_second()),
        overhead: nonnegative_resource_list(spec.overhead.as_ref(), &"spec.overhead")?,
        pod_requests: nonnegative_resource_list(
            spec.resources.as_ref().and_then(|r| r.requests.as_ref()),
            &"spec.resources.requests",
        )?,
        node_selector: spec.node_selector.take().unwrap_or_default(),
        host_network: spec.host_network.unwrap_or(false),
        host_users: spec.host_users,
        restarts_all_containers: spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .flat_map(|c| c.restart_policy_rules.iter().flatten())
            .any(|rule| rule.action == "RestartAllContainers"),
        scheduling_gated: spec
            .scheduling_gates
            .as_ref()
            .is_some_and(|gates| !gates.is_empty()),
        ..model::Pod::default()
    };
    for (index, container) in spec.containers.iter().enumerate() {
        converted.containers.push(convert_container(
            container,
            &format_args!("spec.containers[{index}]"),
        )?);
    }
    for (index, container) in spec.init_containers.iter().flatten().enumerate() {
        converted.init_containers.push(convert_container(
            container,
            &format_args!("spec.initContainers[{index}]"),
        )?);
    }
    for (index, toleration) in spec.tolerations.iter().flatten().enumerate() {
        converted.tolerations.push(convert_toleration(
            toleration,
            &format_args!("spec.tolerations[{index}]"),
        )?);
    }
    if let Some(affinity) = &spec.affinity {
        converted.affinity = convert_affinity(affinity, "spec.affinity")?;
    }
    super::resize::add_resize_status(&mut converted, status)?;
    converted.volumes = super::storage::convert_volumes(spec.volumes.as_ref())?;
    converted.resource_claims = spec
        .resource_claims
        .iter()
        .flatten()
        .map(|c| c.name.clone())
        .collect();
    for (index, constraint) in spec
        .topology_spread_constraints
        .iter()
        .flatten()
        .enumerate()
    {
        converted
            .topology_spread_constraints
            .push(convert_spread_constraint(
                constraint,
                &format_args!("spec.topologySpreadConstraints[{index}]"),
            )?);
    }
    Ok(converted)
}

/// The owner reference with `controller: true` (`super::controller_owner`), its strings moved.
fn controller_owner_taken(metadata: &mut SlimMetadata) -> Option<model::OwnerRef> {
    let owner = metadata
        .owner_references
        .iter_mut()
        .flatten()
        .find(|owner| owner.controller == Some(true))?;
    Some(model::OwnerRef {
        api_version: core::mem::take(&mut owner.api_version),
        kind: core::mem::take(&mut owner.kind),
        name: core::mem::take(&mut owner.name),
    })
}

fn phase(phase: Option<&str>) -> Result<PodPhase, ConvertError> {
    Ok(match phase {
        None | Some("" | "Pending") => PodPhase::Pending,
        Some("Running") => PodPhase::Running,
        Some("Succeeded") => PodPhase::Succeeded,
        Some("Failed") => PodPhase::Failed,
        Some("Unknown") => PodPhase::Unknown,
        Some(other) => {
            return Err(ConvertError::new(
                "status.phase",
                unsupported(
                    other,
                    &["Pending", "Running", "Succeeded", "Failed", "Unknown"],
                ),
            ));
        }
    })
}

/// `spec.preemptionPolicy` (also a PriorityClass's `preemptionPolicy`).
pub(crate) fn preemption_policy(
    policy: Option<&str>,
    path: &str,
) -> Result<PreemptionPolicy, ConvertError> {
    match policy {
        None | Some("PreemptLowerPriority") => Ok(PreemptionPolicy::PreemptLowerPriority),
        Some("Never") => Ok(PreemptionPolicy::Never),
        Some(other) => Err(ConvertError::new(
            path,
            unsupported(other, &["Never", "PreemptLowerPriority"]),
        )),
    }
}

/// A container; `restartPolicy: Always` (on an init container) makes it a sidecar.
pub(crate) fn convert_container(
    container: &SlimContainer,
    path: FieldPath<'_>,
) -> Result<Container, ConvertError> {
    let resources = container.resources.as_ref();
    Ok(Container {
        name: container.name.clone(),
        image: container.image.clone(),
        requests: nonnegative_resource_list(
            resources.and_then(|r| r.requests.as_ref()),
            &format_args!("{path}.resources.requests"),
        )?,
        limits: nonnegative_resource_list(
            resources.and_then(|r| r.limits.as_ref()),
            &format_args!("{path}.resources.limits"),
        )?,
        ports: container
            .ports
            .iter()
            .flatten()
            .map(|port| ContainerPort {
                host_port: port.host_port.unwrap_or(0),
                host_ip: port.host_ip.clone().unwrap_or_default(),
                protocol: port.protocol.clone().unwrap_or_default(),
                container_port: port.container_port,
            })
            .collect(),
        restart_policy_always: container.restart_policy.as_deref() == Some("Always"),
        status: None,
    })
}

/// A toleration: an empty operator is `Equal`, an empty effect matches every effect; `Lt`/`Gt` are
/// kept (they never match with v1.35's default gates) and any other operator never matches.
pub(crate) fn convert_toleration(
    toleration: &api::Toleration,
    path: FieldPath<'_>,
) -> Result<Toleration, ConvertError> {
    let operator = match toleration.operator.as_deref() {
        None | Some("" | "Equal") => TolerationOperator::Equal,
        Some("Exists") => TolerationOperator::Exists,
        Some("Lt") => TolerationOperator::Lt,
        Some("Gt") => TolerationOperator::Gt,
        Some(_) => TolerationOperator::Unknown,
    };
    let effect = match toleration.effect.as_deref() {
        None | Some("") => None,
        Some(text) => Some(TaintEffect::parse(text).ok_or_else(|| {
            ConvertError::new(
                format!("{path}.effect"),
                unsupported(text, &["NoExecute", "NoSchedule", "PreferNoSchedule"]),
            )
        })?),
    };
    Ok(Toleration {
        key: toleration.key.clone().unwrap_or_default(),
        operator,
        value: toleration.value.clone().unwrap_or_default(),
        effect,
    })
}

fn convert_affinity(affinity: &api::Affinity, path: &str) -> Result<Affinity, ConvertError> {
    let node_affinity = match &affinity.node_affinity {
        None => None,
        Some(node_affinity) => Some(convert_node_affinity(
            node_affinity,
            &format!("{path}.nodeAffinity"),
        )?),
    };
    // A present-but-empty `podAffinity: {}` stays `Some`: InterPodAffinity scoring looks at presence.
    let pod_affinity = match &affinity.pod_affinity {
        None => None,
        Some(pod_affinity) => Some(convert_pod_affinity(
            pod_affinity
                .required_during_scheduling_ignored_during_execution
                .as_deref(),
            pod_affinity
                .preferred_during_scheduling_ignored_during_execution
                .as_deref(),
            &format!("{path}.podAffinity"),
        )?),
    };
    let pod_anti_affinity = match &affinity.pod_anti_affinity {
        None => None,
        Some(anti_affinity) => Some(convert_pod_affinity(
            anti_affinity
                .required_during_scheduling_ignored_during_execution
                .as_deref(),
            anti_affinity
                .preferred_during_scheduling_ignored_during_execution
                .as_deref(),
            &format!("{path}.podAntiAffinity"),
        )?),
    };
    Ok(Affinity {
        node_affinity,
        pod_affinity,
        pod_anti_affinity,
    })
}

fn convert_node_affinity(
    affinity: &api::NodeAffinity,
    path: &str,
) -> Result<NodeAffinity, ConvertError> {
    let required = match &affinity.required_during_scheduling_ignored_during_execution {
        None => None,
        Some(selector) => {
            let base =
                format!("{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
            let terms = selector
                .node_selector_terms
                .iter()
                .enumerate()
                .map(|(index, term)| node_selector_term(term, &format!("{base}[{index}]")))
                .collect::<Result<Vec<_>, _>>()?;
            Some(terms)
        }
    };
    let base = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution");
    let preferred = affinity
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, term)| {
            Ok(PreferredSchedulingTerm {
                weight: term.weight,
                preference: node_selector_term(
                    &term.preference,
                    &format!("{base}[{index}].preference"),
                )?,
            })
        })
        .collect::<Result<Vec<_>, ConvertError>>()?;
    Ok(NodeAffinity {
        required,
        preferred,
    })
}

fn convert_pod_affinity(
    required: Option<&[api::PodAffinityTerm]>,
    preferred: Option<&[api::WeightedPodAffinityTerm]>,
    path: &str,
) -> Result<PodAffinity, ConvertError> {
    let mut converted = PodAffinity::default();
    for (index, term) in required.into_iter().flatten().enumerate() {
        let here = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution[{index}]");
        converted
            .required
            .push(convert_pod_affinity_term(term, &here)?);
    }
    for (index, weighted) in preferred.into_iter().flatten().enumerate() {
        let here = format!(
            "{path}.preferredDuringSchedulingIgnoredDuringExecution[{index}].podAffinityTerm"
        );
        converted.preferred.push(WeightedPodAffinityTerm {
            weight: weighted.weight,
            term: convert_pod_affinity_term(&weighted.pod_affinity_term, &here)?,
        });
    }
    Ok(converted)
}

fn convert_pod_affinity_term(
    term: &api::PodAffinityTerm,
    path: &str,
) -> Result<PodAffinityTerm, ConvertError> {
    let namespace_selector = match &term.namespace_selector {
        None => None,
        Some(selector) => Some(label_selector(
            Some(selector),
            &format!("{path}.namespaceSelector"),
        )?),
    };
    let parse_error = label_selector_error(term.label_selector.as_ref())
        .or_else(|| label_selector_error(term.namespace_selector.as_ref()));
    let selector = if parse_error.is_some() {
        Selector::Nothing
    } else {
        label_selector(
            term.label_selector.as_ref(),
            &format!("{path}.labelSelector"),
        )?
    };
    Ok(PodAffinityTerm {
        parse_error,
        selector,
        topology_key: term.topology_key.clone(),
        namespaces: term.namespaces.clone().unwrap_or_default(),
        namespace_selector,
        match_label_keys: term.match_label_keys.clone().unwrap_or_default(),
        mismatch_label_keys: term.mismatch_label_keys.clone().unwrap_or_default(),
    })
}

fn inclusion_policy(
    policy: Option<&str>,
    path: FieldPath<'_>,
) -> Result<Option<NodeInclusionPolicy>, ConvertError> {
    match policy {
        None => Ok(None),
        Some("Honor") => Ok(Some(NodeInclusionPolicy::Honor)),
        Some("Ignore") => Ok(Some(NodeInclusionPolicy::Ignore)),
        Some(other) => Err(ConvertError::new(
            path.to_string(),
            unsupported(other, &["Honor", "Ignore"]),
        )),
    }
}

fn convert_spread_constraint(
    constraint: &api::TopologySpreadConstraint,
    path: FieldPath<'_>,
) -> Result<TopologySpreadConstraint, ConvertError> {
    let when_unsatisfiable = match constraint.when_unsatisfiable.as_str() {
        "DoNotSchedule" => WhenUnsatisfiable::DoNotSchedule,
        "ScheduleAnyway" => WhenUnsatisfiable::ScheduleAnyway,
        other => {
            return Err(ConvertError::new(
                format!("{path}.whenUnsatisfiable"),
                unsupported(other, &["DoNotSchedule", "ScheduleAnyway"]),
            ));
        }
    };
    if constraint.max_skew <= 0 {
        return Err(ConvertError::new(
            format!("{path}.maxSkew"),
            format!(
                "Invalid value: {}: must be greater than zero",
                constraint.max_skew
            ),
        ));
    }
    if let Some(min_domains) = constraint.min_domains
        && min_domains <= 0
    {
        return Err(ConvertError::new(
            format!("{path}.minDomains"),
            format!("Invalid value: {min_domains}: must be greater than zero"),
        ));
    }
    Ok(TopologySpreadConstraint {
        max_skew: constraint.max_skew,
        topology_key: constraint.topology_key.clone(),
        when_unsatisfiable,
        selector: label_selector(
            constraint.label_selector.as_ref(),
            &format_args!("{path}.labelSelector"),
        )?,
        min_domains: constraint.min_domains,
        node_affinity_policy: inclusion_policy(
            constraint.node_affinity_policy.as_deref(),
            &format_args!("{path}.nodeAffinityPolicy"),
        )?,
        node_taints_policy: inclusion_policy(
            constraint.node_taints_policy.as_deref(),
            &format_args!("{path}.nodeTaintsPolicy"),
        )?,
        match_label_keys: constraint.match_label_keys.clone().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spreadlab_engine::model::Selector;

    fn pod(value: serde_json::Value) -> api::Pod {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn converts_scheduling_fields_without_mutation() {
        let pod = pod(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "labels": {"app": "a"}, "deletionTimestamp": "2024-01-01T00:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]},
            "spec": {
                "nodeName": "n1", "priority": 7, "preemptionPolicy": "Never", "hostNetwork": true,
                "schedulingGates": [{"name": "g"}],
                "overhead": {"cpu": "250m"},
                "resources": {"requests": {"memory": "1Gi"}},
                "containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}},
                    "ports": [{"containerPort": 80, "hostIP": "10.0.0.1", "protocol": "UDP"}]}],
                "initContainers": [{"name": "side", "restartPolicy": "Always"}, {"name": "init"}],
                "tolerations": [{"key": "k", "operator": "Exists"}, {"key": "j", "value": "v", "effect": "NoSchedule"}, {"operator": "Gt"}]
            },
            "status": {"phase": "Running", "startTime": "1970-01-01T00:01:40Z", "nominatedNodeName": "n2"}
        }));
        let converted = convert_pod(&pod, "ns").unwrap();
        assert_eq!(converted.namespace, "ns");
        assert_eq!(converted.owner.as_ref().unwrap().kind, "ReplicaSet");
        assert_eq!(
            (converted.priority, converted.preemption_policy),
            (7, PreemptionPolicy::Never)
        );
        assert_eq!(converted.node_name.as_deref(), Some("n1"));
        assert_eq!(converted.nominated_node_name.as_deref(), Some("n2"));
        assert_eq!(
            (converted.phase, converted.terminating, converted.start_time),
            (PodPhase::Running, true, Some(100))
        );
        assert!(converted.host_network && converted.scheduling_gated);
        assert_eq!(converted.overhead["cpu"], 250);
        assert_eq!(converted.pod_requests["memory"], 1 << 30);
        // No defaulting: limits stay limits, hostPort stays 0, no default tolerations.
        assert!(converted.containers[0].requests.is_empty());
        assert_eq!(converted.containers[0].ports[0].host_port, 0);
        assert_eq!(converted.tolerations.len(), 3);
        assert_eq!(
            converted.tolerations[1].effect,
            Some(TaintEffect::NoSchedule)
        );
        assert_eq!(converted.tolerations[2].operator, TolerationOperator::Gt);
        assert!(
            converted.init_containers[0].restart_policy_always
                && !converted.init_containers[1].restart_policy_always
        );
    }

    #[test]
    fn empty_pod_affinity_is_present() {
        let pod =
            pod(serde_json::json!({"spec": {"containers": [], "affinity": {"podAffinity": {}}}}));
        let converted = convert_pod(&pod, "default").unwrap();
        assert_eq!(
            converted.affinity.pod_affinity,
            Some(PodAffinity::default())
        );
        assert_eq!(converted.affinity.pod_anti_affinity, None);
    }

    #[test]
    fn spread_constraint_keeps_every_field() {
        let pod = pod(
            serde_json::json!({"spec": {"containers": [], "topologySpreadConstraints": [{
                "maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 3,
                "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["pod-template-hash"]
            }]}}),
        );
        let constraint = &convert_pod(&pod, "default")
            .unwrap()
            .topology_spread_constraints[0];
        assert_eq!(constraint.selector, Selector::Nothing);
        assert_eq!(constraint.min_domains, Some(3));
        assert_eq!(
            constraint.node_affinity_policy,
            Some(NodeInclusionPolicy::Ignore)
        );
        assert_eq!(
            constraint.node_taints_policy,
            Some(NodeInclusionPolicy::Honor)
        );
        assert_eq!(
            constraint.match_label_keys,
            vec!["pod-template-hash".to_string()]
        );
    }

    #[test]
    fn invalid_values_name_their_field() {
        let pod = pod(
            serde_json::json!({"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}}),
        );
        assert_eq!(
            convert_pod(&pod, "d").unwrap_err().path,
            "spec.containers[0].resources.requests.cpu"
        );
        let pod = pod_with_toleration_effect("Sometimes");
        assert_eq!(
            convert_pod(&pod, "d").unwrap_err().path,
            "spec.tolerations[0].effect"
        );
        let bad_node_affinity = serde_json::json!({"spec": {"containers": [], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "n", "operator": "Gt", "values": ["1", "2"]}]}]}}}}});
        let error = convert_pod(&self::pod(bad_node_affinity), "d").unwrap_err();
        assert_eq!(
            error.path,
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values"
        );
    }

    fn pod_with_toleration_effect(effect: &str) -> api::Pod {
        pod(
            serde_json::json!({"spec": {"containers": [], "tolerations": [{"key": "k", "effect": effect}]}}),
        )
    }
}
