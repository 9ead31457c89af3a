//! Strict field validation, as `kubectl apply` does it (`--validate`): the typed API structs
//! ignore fields they do not have, so every object is read through `typed_read`, which names
//! each ignored field's path; [`FieldValidation`] decides whether that is an error, a warning or
//! nothing.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Failure, Loader, Place};
use crate::FieldValidation;
use crate::error::join_path;

/// Fails when a required top-level field of the raw object is absent or null: the v1.37 schema
/// (k8s-openapi) fills a missing `spec` with its default, which would hide the mistake.
pub(super) fn require_field(place: &Place, value: &Value, field: &str) -> Result<(), Failure> {
    match value.get(field) {
        None | Some(Value::Null) => Err(place.error(Some(field), "Required value")),
        Some(_) => Ok(()),
    }
}

impl Loader<'_> {
    /// The object as its typed API struct, validated as `kubectl apply` validates fields
    /// (`--validate`, [`FieldValidation`]): a field the struct does not have is an error
    /// (`Strict`, kubectl's default: `unknown field "spec.topologySpreadConstraint"`), a warning
    /// (`Warn`), or dropped (`Ignore`). Duplicate fields are refused by the readers.
    pub(super) fn typed<T: DeserializeOwned>(
        &mut self,
        place: &Place,
        value: Value,
    ) -> Result<T, Failure> {
        if let Some(message) = removed_api(&value) {
            return Err(place.error(Some("apiVersion"), message));
        }
        let (typed, unknown) = typed_with_unknown(place, value, self.options.field_validation)?;
        let message = |path: &str| {
            format!(
                "unknown field {:?} (misspelled, or from a Kubernetes newer than v1.37)",
                join_path(&place.prefix, path)
            )
        };
        match (self.options.field_validation, unknown.first()) {
            (_, None) | (FieldValidation::Ignore, _) => {}
            (FieldValidation::Strict, Some(path)) => {
                return Err(place.error(Some(path), message(path)));
            }
            (FieldValidation::Warn, Some(_)) => {
                for path in &unknown {
                    let warning = place.warning(Some(path), message(path));
                    self.loaded.warnings.push(warning);
                }
            }
        }
        Ok(typed)
    }
}

/// The object as its typed API struct, and the paths of the fields that struct does not have
/// (misspelled, wrongly cased, or from a newer Kubernetes) unless `validation` ignores them, for
/// [`Loader::typed`].
fn typed_with_unknown<T: DeserializeOwned>(
    place: &Place,
    value: Value,
    validation: FieldValidation,
) -> Result<(T, Vec<String>), Failure> {
    let unknown_fields = validation != FieldValidation::Ignore;
    super::typed_read::read_typed(value, unknown_fields)
        .map_err(|(path, error)| place.error(Some(&path), error.to_string()))
}

/// An API version Kubernetes no longer serves for this kind, with the release that removed it
/// and the one to use (the deprecated API migration guide, kubernetes.io/docs/reference/using-api/
/// deprecation-guide/).
fn removed_api(value: &Value) -> Option<String> {
    let field = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("");
    let (kind, api_version) = (field("kind"), field("apiVersion"));
    let (removed_in, current) = match (api_version, kind) {
        (
            "extensions/v1beta1" | "apps/v1beta1" | "apps/v1beta2",
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet",
        ) => ("1.16", "apps/v1"),
        ("policy/v1beta1", "PodDisruptionBudget") => ("1.25", "policy/v1"),
        ("batch/v1beta1", "CronJob") => ("1.25", "batch/v1"),
        ("autoscaling/v2beta1", "HorizontalPodAutoscaler") => ("1.25", "autoscaling/v2"),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler") => ("1.26", "autoscaling/v2"),
        ("scheduling.k8s.io/v1alpha1" | "scheduling.k8s.io/v1beta1", "PriorityClass") => {
            ("1.22", "scheduling.k8s.io/v1")
        }
        _ => return None,
    };
    Some(format!(
        "{api_version} {kind} was removed in Kubernetes {removed_in}; use apiVersion {current} (the fields are the same or close: see the deprecated API migration guide)"
    ))
}

/// A JSON type's name for messages.
pub(super) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}
