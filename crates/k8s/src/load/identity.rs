//! One identity per object, as the API server keeps one object per kind, namespace and name: a
//! later source replaces an earlier object with the same identity (a snapshot plus an edited
//! manifest is the normal case, and `kubectl apply` of the edit would do the same), and the same
//! identity twice in one source is an error (`kubectl apply` would apply one over the other). A
//! scan before the load finds them; the load then skips what was replaced or duplicated and says
//! so at the skipped object.

use std::collections::HashMap;

use serde_json::Value;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{Failure, Loader, Place};
use crate::admission;
use crate::error::join_path;

/// Where an object sits: source index, document index, path inside the document.
pub(super) type Slot = (usize, usize, String);

/// Why an object is not loaded.
pub(super) enum Skip {
    /// A later source has the same object (its file and document).
    Replaced { by: String, document: usize },
    /// The same source has it earlier (that document).
    Duplicate { of: usize },
}

/// The objects to skip, scanning `documents` (per source: its name and each document's index
/// and value) in load order.
pub(super) fn skips(
    loader: &Loader<'_>,
    documents: &[(&str, Vec<(usize, &Value)>)],
) -> HashMap<Slot, Skip> {
    let mut seen: HashMap<String, Slot> = HashMap::new();
    let mut skips = HashMap::new();
    for (source, (file, values)) in documents.iter().enumerate() {
        for (document, value) in values {
            let mut found = Vec::new();
            walk(loader, value, String::new(), None, &mut found);
            for (id, prefix) in found {
                let slot = (source, *document, prefix);
                match seen.insert(id, slot.clone()) {
                    None => {}
                    Some(earlier) if earlier.0 == source => {
                        skips.insert(slot, Skip::Duplicate { of: earlier.1 });
                    }
                    Some(earlier) => {
                        skips.insert(
                            earlier,
                            Skip::Replaced {
                                by: (*file).to_owned(),
                                document: *document,
                            },
                        );
                    }
                }
            }
        }
    }
    skips
}

/// Every named object in `value` with its path, flattened as the loader flattens sequences and
/// Lists (`[i]`, `items[i]`).
fn walk(
    loader: &Loader<'_>,
    value: &Value,
    prefix: String,
    item_kind: Option<&str>,
    out: &mut Vec<(String, String)>,
) {
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(loader, item, format!("{prefix}[{index}]"), None, out);
            }
        }
        Value::Object(map) => {
            let kind = map
                .get("kind")
                .and_then(Value::as_str)
                .filter(|k| !k.is_empty())
                .or(item_kind.filter(|k| !k.is_empty()));
            let Some(kind) = kind else { return };
            if let Some(listed) = kind.strip_suffix("List") {
                for (index, item) in map
                    .get("items")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let path = join_path(&prefix, &format!("items[{index}]"));
                    walk(loader, item, path, Some(listed), out);
                }
                return;
            }
            let named = if kind == "component" {
                map.get("name").and_then(Value::as_str)
            } else {
                map.get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
            };
            if named.is_some_and(|n| !n.is_empty()) {
                out.push((loader.object_id(kind, map), prefix));
            }
        }
        _ => {}
    }
}

/// `metadata.name`, or for `generateName` the prefix plus a stable stand-in suffix.
pub(super) fn object_name(place: &Place, metadata: &ObjectMeta) -> Result<String, Failure> {
    named(
        place,
        metadata.name.as_ref(),
        metadata.generate_name.as_ref(),
    )
}

/// [`object_name`] of `metadata.name` and `metadata.generateName`.
pub(super) fn named(
    place: &Place,
    name: Option<&String>,
    generate_name: Option<&String>,
) -> Result<String, Failure> {
    match (name, generate_name) {
        (Some(name), _) if !name.is_empty() => Ok(name.clone()),
        (_, Some(prefix)) if !prefix.is_empty() => {
            let seed = format!("{}/{}/{prefix}", place.file, place.document.unwrap_or(0));
            Ok(format!("{prefix}{}", &admission::template_hash(&seed)[..5]))
        }
        _ => Err(place.error(
            Some("metadata.name"),
            "Required value: name or generateName is required",
        )),
    }
}

impl Skip {
    /// What the skipped object's place says (its place names the object).
    pub(super) fn message(&self) -> String {
        match self {
            Skip::Replaced { by, document } => {
                format!("replaced by the same object read later from {by} (document {document})")
            }
            Skip::Duplicate { of } => format!(
                "the same object is already in this file (document {of}): one object per kind, namespace and name; this one is not read"
            ),
        }
    }
}

impl Loader<'_> {
    /// Finds the objects to skip in these parsed sources ([`identity::skips`]).
    pub(crate) fn set_skips(&mut self, documents: &[(&str, Vec<(usize, &Value)>)]) {
        self.skips = skips(self, documents);
    }

    /// The source the next documents come from (its index in the load).
    pub(crate) fn set_source(&mut self, source: usize) {
        self.source = source;
    }

    /// Whether the object at `place` is not read (replaced or duplicated), saying so there.
    pub(super) fn skipped(&mut self, place: &Place) -> bool {
        let slot = (
            self.source,
            place.document.unwrap_or(0),
            place.prefix.clone(),
        );
        let Some(skip) = self.skips.get(&slot) else {
            return false;
        };
        let message = skip.message();
        match skip {
            Skip::Replaced { .. } => self.loaded.warnings.push(place.warning(None, message)),
            Skip::Duplicate { .. } => self.loaded.errors.push(*place.error(None, message)),
        }
        true
    }

    /// `Kind/namespace/name` (`Kind/name` for cluster-scoped kinds, `Kind` without a name).
    pub(super) fn object_id(&self, kind: &str, map: &serde_json::Map<String, Value>) -> String {
        let metadata = map.get("metadata");
        let field = |name: &str| {
            metadata
                .and_then(|m| m.get(name))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let name = if kind == "component" {
            map.get("name").and_then(Value::as_str)
        } else {
            field("name")
        };
        self.format_object_id(kind, name, field("generateName"), field("namespace"))
    }

    /// [`Loader::object_id`] from an object's name (as given: callers drop an empty
    /// `metadata.name`), `generateName` and namespace (empty ones count as unset).
    pub(super) fn format_object_id(
        &self,
        kind: &str,
        name: Option<&str>,
        generate_name: Option<&str>,
        namespace: Option<&str>,
    ) -> String {
        let name = name.or(generate_name.filter(|s| !s.is_empty()));
        let namespace = if cluster_scoped(kind) {
            None
        } else {
            Some(
                namespace
                    .filter(|s| !s.is_empty())
                    .unwrap_or(&self.options.default_namespace),
            )
        };
        match (namespace, name) {
            (Some(namespace), Some(name)) => format!("{kind}/{namespace}/{name}"),
            (None, Some(name)) => format!("{kind}/{name}"),
            (_, None) => kind.to_owned(),
        }
    }
}

/// Kinds without a namespace: the ones spreadlab reads, and the common cluster-scoped kinds it
/// skips (so that their warnings do not name a namespace they do not have).
pub(super) fn cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Node"
            | "Namespace"
            | "PriorityClass"
            | "PersistentVolume"
            | "StorageClass"
            | "CSINode"
            | "CSIDriver"
            | "VolumeAttachment"
            | "RuntimeClass"
            | "IngressClass"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "CustomResourceDefinition"
            | "APIService"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding"
            | "CertificateSigningRequest"
            | "DeviceClass"
            | "ResourceSlice"
            | "ClusterAdmissionPolicy"
            | "ClusterPolicy"
            | "ComponentStatus"
            | "FlowSchema"
            | "PriorityLevelConfiguration"
    )
}
