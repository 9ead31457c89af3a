//! `k8s-openapi` types to `spreadlab_engine::model`: a faithful copy of what the object says, with
//! no API-server mutation (that is [`crate::admission`]). Objects the API server's validation would
//! reject (bad operators, value counts, effects) give a [`ConvertError`] naming the field.

mod node;
mod pod;
mod pod_validation;
mod resize;
mod selector;
pub(crate) mod storage;

pub use node::convert_node;
pub use pod::{convert_pod, convert_pod_validated, selector_parse_errors};
pub(crate) use pod::{convert_toleration, preemption_policy};
pub(crate) use selector::label_selector;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use spreadlab_engine::model::resources::CPU;
use spreadlab_engine::model::{Labels, OwnerRef, Quantity, ResourceList};

use crate::error::ConvertError;

/// Where a field is, as an error would name it (`spec.containers[0].resources.requests`): a value
/// formatted only when an error is made, so that converting a valid object formats no paths
/// (`format_args!` at the call; a `&str` or `String` works too).
pub(crate) type FieldPath<'a> = &'a dyn core::fmt::Display;

/// Parses a resource list: cpu in millicores (`MilliValue()`), everything else in whole units
/// (`Value()`), both rounded up as apimachinery does.
pub(crate) fn resource_list(
    list: Option<&BTreeMap<String, ApiQuantity>>,
    path: FieldPath<'_>,
) -> Result<ResourceList, ConvertError> {
    let mut parsed = ResourceList::new();
    for (name, quantity) in list.into_iter().flatten() {
        let value = Quantity::parse(&quantity.0)
            .map_err(|error| ConvertError::new(format!("{path}.{name}"), error.to_string()))?;
        let amount = if name == CPU {
            value.milli_value()
        } else {
            value.value()
        };
        parsed.insert(name.clone(), amount);
    }
    Ok(parsed)
}

/// A pod's resource list (container requests and limits, pod-level resources, overhead) or a
/// node's allocatable: [`resource_list`], refusing a negative quantity as the API server does
/// (`ValidateResourceQuantityValue` → `ValidateNonnegativeQuantity`,
/// pkg/apis/core/validation/validation.go). A negative request would otherwise free room on a
/// node for other pods.
pub(crate) fn nonnegative_resource_list(
    list: Option<&BTreeMap<String, ApiQuantity>>,
    path: FieldPath<'_>,
) -> Result<ResourceList, ConvertError> {
    let parsed = resource_list(list, path)?;
    for (name, quantity) in list.into_iter().flatten() {
        if parsed.get(name).is_some_and(|amount| *amount < 0) {
            return Err(ConvertError::new(
                format!("{path}.{name}"),
                format!(
                    "Invalid value: {:?}: must be greater than or equal to 0",
                    quantity.0
                ),
            ));
        }
    }
    Ok(parsed)
}

/// `metadata.labels`, empty when absent.
pub(crate) fn labels(metadata: &ObjectMeta) -> Labels {
    metadata.labels.clone().unwrap_or_default()
}

/// `metadata.namespace`, or the default for objects that name none.
pub(crate) fn namespace_or(metadata: &ObjectMeta, default_namespace: &str) -> String {
    match metadata.namespace.as_deref() {
        Some(namespace) if !namespace.is_empty() => namespace.to_owned(),
        _ => default_namespace.to_owned(),
    }
}

/// The owner reference with `controller: true`, if any.
pub(crate) fn controller_owner(metadata: &ObjectMeta) -> Option<OwnerRef> {
    metadata
        .owner_references
        .iter()
        .flatten()
        .find(|owner| owner.controller == Some(true))
        .map(|owner| OwnerRef {
            api_version: owner.api_version.clone(),
            kind: owner.kind.clone(),
            name: owner.name.clone(),
        })
}

/// The API server's message for a value outside an enumeration.
pub(crate) fn unsupported(value: &str, supported: &[&str]) -> String {
    let supported: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    format!(
        "Unsupported value: {value:?}: supported values: {}",
        supported.join(", ")
    )
}
