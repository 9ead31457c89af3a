//! The API server's validation of the controller fields the analyses read, with its messages:
//! Deployment and StatefulSet strategies, replicas, minReadySeconds, progressDeadlineSeconds
//! (`pkg/apis/apps/validation/validation.go`) and PodDisruptionBudget specs
//! (`pkg/apis/policy/validation/validation.go`).

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use spreadlab_engine::analysis::rollout::{IntOrPercent, RolloutSpec, Strategy};

use crate::admission::{self};
use crate::error::InputError;

/// Errors inside the loader are boxed (an [`InputError`] is large); they are unboxed into
/// [`Loaded::errors`].
type Failure = Box<InputError>;

use super::*;

/// `intstr.IntOrString` of a rolling-update field, validated as the API server does
/// (`ValidatePositiveIntOrPercent`, `IsValidPercent`).
pub(super) fn int_or_percent(
    place: &Place,
    value: Option<&IntOrString>,
    default: IntOrPercent,
    path: &str,
) -> Result<IntOrPercent, Failure> {
    match value {
        None => Ok(default),
        Some(IntOrString::Int(n)) if *n < 0 => Err(place.error(
            Some(path),
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        )),
        Some(IntOrString::Int(n)) => Ok(IntOrPercent::Int(*n)),
        Some(IntOrString::String(text)) => {
            let percent = text
                .strip_suffix('%')
                .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<i32>().ok());
            match percent {
                Some(p)
                    if p > 100
                        && (path.ends_with("maxUnavailable") || path.ends_with("minAvailable")) =>
                {
                    Err(place.error(
                    Some(path),
                    format!("Invalid value: \"{text}\": must not be greater than 100%"),
                    ))
                }
                Some(p) => Ok(IntOrPercent::Percent(p)),
                None => Err(place.error(
                    Some(path),
                    format!(
                        "Invalid value: \"{text}\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
                    ),
                )),
            }
        }
    }
}

/// A PodDisruptionBudget's `minAvailable` and `maxUnavailable`, validated as the API server does
/// (`pkg/apis/policy/validation` `ValidatePodDisruptionBudgetSpec`: not both, each a non-negative
/// integer or a percent of at most 100%). policy/v1 defaults neither.
pub(super) fn pdb_spec(
    place: &Place,
    spec: Option<&policy::PodDisruptionBudgetSpec>,
) -> Result<(Option<IntOrPercent>, Option<IntOrPercent>), Failure> {
    let Some(spec) = spec else {
        return Ok((None, None));
    };
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        return Err(place.error(
            Some("spec"),
            "Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set",
        ));
    }
    let field = |value: Option<&IntOrString>, path: &str| match value {
        None => Ok(None),
        Some(value) => int_or_percent(place, Some(value), IntOrPercent::Int(0), path).map(Some),
    };
    Ok((
        field(spec.min_available.as_ref(), "spec.minAvailable")?,
        field(spec.max_unavailable.as_ref(), "spec.maxUnavailable")?,
    ))
}

/// The Deployment fields the rollout analysis reads, defaulted as the API server does
/// (`SetDefaults_Deployment`: RollingUpdate 25%/25%, progressDeadlineSeconds 600; pods:
/// terminationGracePeriodSeconds 30) and validated (`ValidateRollingUpdateDeployment`).
pub(super) fn deployment_spec(
    place: &Place,
    spec: &apps::DeploymentSpec,
) -> Result<RolloutSpec, Failure> {
    let strategy = spec.strategy.as_ref();
    let kind = strategy
        .and_then(|s| s.type_.as_deref())
        .unwrap_or("RollingUpdate");
    let strategy = match kind {
        "Recreate" => {
            if strategy.is_some_and(|s| s.rolling_update.is_some()) {
                return Err(place.error(
                    Some("spec.strategy.rollingUpdate"),
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                ));
            }
            Strategy::Recreate
        }
        "RollingUpdate" => {
            let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
            let max_surge = int_or_percent(
                place,
                rolling.and_then(|r| r.max_surge.as_ref()),
                IntOrPercent::Percent(25),
                "spec.strategy.rollingUpdate.maxSurge",
            )?;
            let max_unavailable = int_or_percent(
                place,
                rolling.and_then(|r| r.max_unavailable.as_ref()),
                IntOrPercent::Percent(25),
                "spec.strategy.rollingUpdate.maxUnavailable",
            )?;
            let zero =
                |v: IntOrPercent| matches!(v, IntOrPercent::Int(0) | IntOrPercent::Percent(0));
            if zero(max_surge) && zero(max_unavailable) {
                return Err(place.error(
                    Some("spec.strategy.rollingUpdate.maxUnavailable"),
                    "Invalid value: 0: may not be 0 when `maxSurge` is 0",
                ));
            }
            Strategy::RollingUpdate {
                max_surge,
                max_unavailable,
            }
        }
        other => {
            return Err(place.error(
                Some("spec.strategy.type"),
                format!("Unsupported value: \"{other}\": supported values: \"Recreate\", \"RollingUpdate\""),
            ));
        }
    };
    // ValidateDeploymentSpec (pkg/apis/apps/validation/validation.go), on the defaulted spec:
    // minReadySeconds and progressDeadlineSeconds non-negative, the deadline above minReadySeconds.
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    if min_ready < 0 {
        return Err(place.error(
            Some("spec.minReadySeconds"),
            format!("Invalid value: {min_ready}: must be greater than or equal to 0"),
        ));
    }
    let deadline = spec.progress_deadline_seconds.unwrap_or(600);
    if deadline < 0 {
        return Err(place.error(
            Some("spec.progressDeadlineSeconds"),
            format!("Invalid value: {deadline}: must be greater than or equal to 0"),
        ));
    }
    if deadline <= min_ready {
        return Err(place.error(
            Some("spec.progressDeadlineSeconds"),
            format!("Invalid value: {deadline}: must be greater than minReadySeconds"),
        ));
    }
    let seconds = |value: Option<i64>| u64::try_from(value.unwrap_or(0)).unwrap_or(0);
    Ok(RolloutSpec {
        strategy,
        min_ready_seconds: seconds(Some(i64::from(min_ready))),
        progress_deadline_seconds: u64::try_from(deadline).unwrap_or(600),
        termination_grace_seconds: seconds(Some(
            spec.template
                .spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
                .unwrap_or(30),
        )),
    })
}

/// `spec.replicas`, defaulted to 1 and validated as the API server does
/// (`ValidateNonnegativeField`).
pub(super) fn checked_replicas(place: &Place, replicas: Option<i32>) -> Result<i32, Failure> {
    match replicas {
        Some(n) if n < 0 => Err(place.error(
            Some("spec.replicas"),
            format!("Invalid value: {n}: must be greater than or equal to 0"),
        )),
        other => Ok(admission::default_replicas(other)),
    }
}

/// A StatefulSet's `updateStrategy` (default RollingUpdate, partition 0, maxUnavailable 1),
/// `podManagementPolicy` (default OrderedReady), `minReadySeconds` and
/// its pods' grace period, validated as the API server does.
pub(super) fn stateful_set_spec(
    place: &Place,
    spec: &apps::StatefulSetSpec,
) -> Result<RolloutSpec, Failure> {
    // ValidateStatefulSetSpec: podManagementPolicy (defaulted to OrderedReady).
    let parallel = match spec
        .pod_management_policy
        .as_deref()
        .unwrap_or("OrderedReady")
    {
        "OrderedReady" => false,
        "Parallel" => true,
        other => {
            return Err(place.error(
                Some("spec.podManagementPolicy"),
                format!("Invalid value: \"{other}\": must be 'OrderedReady' or 'Parallel'"),
            ));
        }
    };
    let update = spec.update_strategy.as_ref();
    let strategy = match update
        .and_then(|u| u.type_.as_deref())
        .unwrap_or("RollingUpdate")
    {
        "OnDelete" => Strategy::OnDelete,
        "RollingUpdate" => {
            let partition = update
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.partition)
                .unwrap_or(0);
            if partition < 0 {
                return Err(place.error(
                    Some("spec.updateStrategy.rollingUpdate.partition"),
                    format!("Invalid value: {partition}: must be greater than or equal to 0"),
                ));
            }
            // validateRollingUpdateStatefulSet (pkg/apis/apps/validation/validation.go):
            // maxUnavailable a non-negative integer or a percent (ValidatePositiveIntOrPercent),
            // not 0 ("cannot be 0"), at most 100% (IsNotMoreThan100Percent); default 1.
            const MAX_UNAVAILABLE: &str = "spec.updateStrategy.rollingUpdate.maxUnavailable";
            let raw = update
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.max_unavailable.as_ref());
            let max_unavailable =
                int_or_percent(place, raw, IntOrPercent::Int(1), MAX_UNAVAILABLE)?;
            // field.Invalid with the IntOrString value itself: not an fmt.Stringer (String has a
            // pointer receiver), so apimachinery's ErrorBody prints it with %#v.
            if let IntOrPercent::Int(0) | IntOrPercent::Percent(0) = max_unavailable {
                let shown = match raw {
                    Some(IntOrString::String(text)) => {
                        format!("intstr.IntOrString{{Type:1, IntVal:0, StrVal:{text:?}}}")
                    }
                    _ => String::from("intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}"),
                };
                return Err(place.error(
                    Some(MAX_UNAVAILABLE),
                    format!("Invalid value: {shown}: cannot be 0"),
                ));
            }
            Strategy::OrderedRollingUpdate {
                partition,
                max_unavailable,
                parallel,
            }
        }
        other => {
            return Err(place.error(
                Some("spec.updateStrategy.type"),
                format!("Unsupported value: \"{other}\": supported values: \"OnDelete\", \"RollingUpdate\""),
            ));
        }
    };
    // ValidateStatefulSetSpec: minReadySeconds non-negative.
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    if min_ready < 0 {
        return Err(place.error(
            Some("spec.minReadySeconds"),
            format!("Invalid value: {min_ready}: must be greater than or equal to 0"),
        ));
    }
    Ok(RolloutSpec {
        strategy,
        min_ready_seconds: u64::try_from(min_ready).unwrap_or(0),
        progress_deadline_seconds: 600,
        termination_grace_seconds: u64::try_from(
            spec.template
                .spec
                .as_ref()
                .and_then(|s| s.termination_grace_period_seconds)
                .unwrap_or(30),
        )
        .unwrap_or(30),
    })
}

/// `ValidatePriorityClass` (pkg/apis/scheduling/validation/validation.go): a `system-` name
/// must be one of the two built-in classes with their value and no global default
/// (`IsKnownSystemPriorityClass`); any other class may not exceed `HighestUserDefinablePriority`
/// (1,000,000,000), so no user class out-ranks the system classes.
pub(super) fn priority_class(
    place: &Place,
    name: &str,
    value: i32,
    global_default: Option<bool>,
) -> Result<(), Failure> {
    const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;
    if name.starts_with("system-") {
        let known = match name {
            "system-node-critical" => Some(2_000_001_000),
            "system-cluster-critical" => Some(2_000_000_000),
            _ => None,
        };
        let error = match known {
            None => Some(format!("{name} is not a known system priority class")),
            Some(expected) if expected != value => {
                Some(format!("value of {name} PriorityClass must be {expected}"))
            }
            Some(_) if global_default.unwrap_or(false) => Some(format!(
                "globalDefault of {name} PriorityClass must be false"
            )),
            Some(_) => None,
        };
        if let Some(error) = error {
            return Err(place.error(
                Some("metadata.name"),
                format!(
                    "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: {error}"
                ),
            ));
        }
    } else if value > HIGHEST_USER_DEFINABLE_PRIORITY {
        return Err(place.error(
            Some("value"),
            format!(
                "Forbidden: maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
            ),
        ));
    }
    Ok(())
}
