//! Strict field validation, as `kubectl apply` does it (`--validate`): the typed API structs
//! ignore fields they do not have, so every object is read through `serde_ignored`, which names
//! each ignored field's path; [`FieldValidation`] decides whether that is an error, a warning or
//! nothing.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Failure, Loader, Place};
use crate::FieldValidation;
use crate::error::{join_path, path_text};

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
        let (typed, unknown) = typed_with_unknown(place, value)?;
        let message = |path: &str| {
            format!(
                "unknown field {:?} (misspelled, or from a Kubernetes newer than v1.35)",
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
/// (misspelled, wrongly cased, or from a newer Kubernetes), for [`Loader::typed`].
fn typed_with_unknown<T: DeserializeOwned>(
    place: &Place,
    value: Value,
) -> Result<(T, Vec<String>), Failure> {
    let mut unknown = Vec::new();
    let typed = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(
        value,
        &mut |path: serde_ignored::Path<'_>| unknown.push(ignored_path(&path)),
    ))
    .map_err(|error| {
        let path = path_text(error.path());
        place.error(Some(&path), error.inner().to_string())
    })?;
    Ok((typed, unknown))
}

/// A path as the rest of spreadlab writes it: `spec.containers[0].name`.
fn ignored_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", ignored_path(parent)),
        Path::Map { parent, key } => join_path(&ignored_path(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}
