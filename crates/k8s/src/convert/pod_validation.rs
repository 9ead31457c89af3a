//! The API server's validation of pod fields that [`super::pod`]'s conversion does not enforce
//! itself (pkg/apis/core/validation/validation.go): what `convert_pod_validated` rejects in user
//! input beyond what every conversion rejects.

use k8s_openapi::api::core::v1 as api;

use crate::error::ConvertError;
use crate::slim::SlimPod;

/// The first topology spread constraint rule of the API server's validation
/// (pkg/apis/core/validation/validation.go `validateTopologySpreadConstraints`) that `pod`
/// breaks, beyond those [`super::convert_pod`] enforces: an empty `topologyKey` (`ValidateTopologyKey`),
/// a `{topologyKey, whenUnsatisfiable}` pair given twice (`ValidateSpreadConstraintNotRepeat`,
/// reported on the first), a `matchLabelKeys` key also in the selector's `matchLabels`
/// (`validateMatchLabelKeysInTopologySpread`; a `matchExpressions` entry on the key is what the
/// API server's own merge of matchLabelKeys writes into pods, so it is not checked). Upstream's
/// unit-test fixtures break some of these; they use the raw [`super::convert_pod`].
pub(super) fn spread_validation_error(pod: &SlimPod) -> Option<ConvertError> {
    let constraints: Vec<&api::TopologySpreadConstraint> = pod
        .spec
        .as_ref()
        .and_then(|s| s.topology_spread_constraints.as_ref())
        .into_iter()
        .flatten()
        .collect();
    for (index, constraint) in constraints.iter().enumerate() {
        let path = format!("spec.topologySpreadConstraints[{index}]");
        if constraint.topology_key.is_empty() {
            return Some(ConvertError::new(
                format!("{path}.topologyKey"),
                "Required value: can not be empty",
            ));
        }
        if constraints[index + 1..].iter().any(|other| {
            other.topology_key == constraint.topology_key
                && other.when_unsatisfiable == constraint.when_unsatisfiable
        }) {
            return Some(ConvertError::new(
                format!("{path}.{{topologyKey, whenUnsatisfiable}}"),
                format!(
                    "Duplicate value: \"{{{}, {}}}\"",
                    constraint.topology_key, constraint.when_unsatisfiable
                ),
            ));
        }
        let labels = constraint
            .label_selector
            .as_ref()
            .and_then(|s| s.match_labels.as_ref());
        for (i, key) in constraint.match_label_keys.iter().flatten().enumerate() {
            if labels.is_some_and(|labels| labels.contains_key(key)) {
                return Some(ConvertError::new(
                    format!("{path}.matchLabelKeys[{i}]"),
                    format!(
                        "Invalid value: \"{key}\": exists in both matchLabelKeys and labelSelector"
                    ),
                ));
            }
        }
    }
    None
}

/// A container port as the API server validates it (`validateContainerPorts`,
/// pkg/apis/core/validation/validation.go): `containerPort` required and within
/// `IsValidPortNum`'s range, a non-zero `hostPort` likewise, `protocol` one of TCP, UDP and SCTP
/// (absent is defaulted to TCP). NodePorts reads these ports.
pub(super) fn validate_port(port: &api::ContainerPort, path: &str) -> Result<(), ConvertError> {
    const RANGE: &str = "must be between 1 and 65535, inclusive";
    if port.container_port == 0 {
        return Err(ConvertError::new(
            format!("{path}.containerPort"),
            "Required value",
        ));
    }
    if !(1..=65535).contains(&port.container_port) {
        return Err(ConvertError::new(
            format!("{path}.containerPort"),
            format!("Invalid value: {}: {RANGE}", port.container_port),
        ));
    }
    if let Some(host_port) = port.host_port.filter(|p| *p != 0)
        && !(1..=65535).contains(&host_port)
    {
        return Err(ConvertError::new(
            format!("{path}.hostPort"),
            format!("Invalid value: {host_port}: {RANGE}"),
        ));
    }
    if let Some(protocol) = port.protocol.as_deref()
        && !matches!(protocol, "TCP" | "UDP" | "SCTP")
    {
        return Err(ConvertError::new(
            format!("{path}.protocol"),
            format!(
                "Unsupported value: {protocol:?}: supported values: \"SCTP\", \"TCP\", \"UDP\""
            ),
        ));
    }
    Ok(())
}
