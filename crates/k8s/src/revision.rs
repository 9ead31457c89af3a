//! Live revisions: which ReplicaSet a Deployment's template is, compared as the Deployment
//! controller compares them (`pkg/controller/deployment/util/deployment_util.go`:
//! `FindNewReplicaSet`, `EqualIgnoreHash`), after the API server's defaulting of a stored
//! template (`pkg/apis/apps/v1/zz_generated.defaults.go` `SetObjectDefaults_Deployment`, with
//! `pkg/apis/core/v1/defaults.go`), so that a hand-written or edited manifest and the
//! ReplicaSet a cluster stored compare equal when the controller would find them equal.
//!
//! A [`fingerprint`] is the template as JSON, defaulted and normalised: `pod-template-hash` left
//! out of its labels, quantities in canonical milli-units (`SetDefaults_ResourceList` rounds up
//! to milli scale, and `apiequality.Semantic` compares quantities by value), nulls and empty
//! lists and maps dropped (the semantic `DeepEqual` treats empty and nil alike), and the
//! deprecated `serviceAccount` folded into `serviceAccountName` (the internal type has only the
//! latter).

use k8s_openapi::api::core::v1 as core_api;
use serde_json::{Map, Value};
use spreadlab_engine::model::Quantity;

use crate::admission::LABEL_POD_TEMPLATE_HASH;

/// `EqualIgnoreHash`: whether the Deployment controller takes a ReplicaSet with template `a` for
/// a Deployment with template `b` (or the reverse), both as the API server stores them.
pub fn equal_ignore_hash(a: &core_api::PodTemplateSpec, b: &core_api::PodTemplateSpec) -> bool {
    fingerprint(a) == fingerprint(b)
}

/// The template as the controller compares it (see the module docs). `None` when it cannot be
/// written as JSON (it always can for a typed template).
pub(crate) fn fingerprint(template: &core_api::PodTemplateSpec) -> Option<Value> {
    let mut value = serde_json::to_value(template).ok()?;
    if let Some(labels) = value
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove(LABEL_POD_TEMPLATE_HASH);
    }
    if let Some(spec) = value.get_mut("spec") {
        default_pod_spec(spec);
    }
    normalise(&mut value, None);
    Some(value)
}

/// Which live revision a Deployment's or StatefulSet's template is, as the loader found it
/// (`load/revisions.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Revision {
    /// Nothing in the input to compare with (no ReplicaSet of it, no running replica), or a kind
    /// without revisions: the template is a new revision with a stand-in hash.
    #[default]
    None,
    /// The template equals this live ReplicaSet's (`FindNewReplicaSet`: the oldest equal one):
    /// new replicas carry its `pod-template-hash`, and its pods are the current revision.
    ReplicaSet {
        /// The ReplicaSet's name.
        name: String,
        /// Its `pod-template-hash`.
        hash: String,
    },
    /// A StatefulSet's template equals this ControllerRevision's (`FindEqualRevisions`): new
    /// replicas carry it as `controller-revision-hash`, and its pods are the current revision.
    ControllerRevision {
        /// The ControllerRevision's name (`<set>-<hash>`).
        name: String,
    },
    /// The template equals none of the live ReplicaSets' (or ControllerRevisions'): a new
    /// revision.
    Changed {
        /// The live ReplicaSets or ControllerRevisions, oldest first.
        revisions: Vec<String>,
    },
    /// No ReplicaSet (or ControllerRevision) to compare with, and the pods of one running
    /// revision show the template's containers' images and labels (what admission does not
    /// change): it is taken as the template's (the loader warns, as other fields may differ).
    FromRunningPods {
        /// `pod-template-hash` (Deployment) or `controller-revision-hash` (StatefulSet).
        hash: String,
    },
    /// No ReplicaSet to compare with, and no running revision's pods show the template's
    /// containers' images and labels: the template is a new revision.
    DiffersFromRunningPods {
        /// The revisions running.
        hashes: Vec<String>,
    },
    /// No ReplicaSet to compare with, and the pods of several running revisions show the
    /// template's images and labels: the template is taken as a new one (the loader warns).
    Unknown {
        /// The revisions running.
        hashes: Vec<String>,
    },
}

fn set_default(object: &mut Map<String, Value>, key: &str, value: Value) {
    let missing = match object.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(text)) => text.is_empty(),
        Some(Value::Number(number)) => number.as_i64() == Some(0) && is_zero_default(key),
        _ => false,
    };
    if missing {
        object.insert(key.to_owned(), value);
    }
}

/// Probe fields whose zero is "unset" (`SetDefaults_Probe` tests `== 0`).
fn is_zero_default(key: &str) -> bool {
    matches!(
        key,
        "timeoutSeconds" | "periodSeconds" | "successThreshold" | "failureThreshold"
    )
}

/// `SetDefaults_PodSpec` and what `SetObjectDefaults_Deployment` applies below it.
fn default_pod_spec(spec: &mut Value) {
    let Some(spec) = spec.as_object_mut() else {
        return;
    };
    set_default(spec, "dnsPolicy", "ClusterFirst".into());
    set_default(spec, "restartPolicy", "Always".into());
    set_default(spec, "securityContext", Value::Object(Map::new()));
    set_default(spec, "terminationGracePeriodSeconds", 30.into());
    set_default(spec, "schedulerName", "default-scheduler".into());
    if let Some(account) = spec.remove("serviceAccount")
        && account.as_str().is_some_and(|a| !a.is_empty())
    {
        set_default(spec, "serviceAccountName", account);
    }
    for list in ["containers", "initContainers"] {
        for container in items(spec, list) {
            default_container(container);
        }
    }
    for volume in items(spec, "volumes") {
        default_volume(volume);
    }
}

fn items<'a>(
    object: &'a mut Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    object
        .get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

fn child<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    object.get_mut(key).and_then(Value::as_object_mut)
}

/// `SetDefaults_Container`, ports (`TCP`), env field references, probes and lifecycle hooks.
fn default_container(container: &mut Map<String, Value>) {
    let image = container.get("image").and_then(Value::as_str).unwrap_or("");
    set_default(container, "imagePullPolicy", pull_policy(image).into());
    set_default(
        container,
        "terminationMessagePath",
        "/dev/termination-log".into(),
    );
    set_default(container, "terminationMessagePolicy", "File".into());
    for port in items(container, "ports") {
        set_default(port, "protocol", "TCP".into());
    }
    for env in items(container, "env") {
        if let Some(from) = child(env, "valueFrom") {
            if let Some(field) = child(from, "fieldRef") {
                set_default(field, "apiVersion", "v1".into());
            }
            if let Some(file) = child(from, "fileKeyRef") {
                set_default(file, "optional", false.into());
            }
        }
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(probe) = child(container, probe) {
            set_default(probe, "timeoutSeconds", 1.into());
            set_default(probe, "periodSeconds", 10.into());
            set_default(probe, "successThreshold", 1.into());
            set_default(probe, "failureThreshold", 3.into());
            default_http_get(probe);
            if let Some(grpc) = child(probe, "grpc")
                && !grpc.contains_key("service")
            {
                grpc.insert("service".into(), "".into());
            }
        }
    }
    if let Some(lifecycle) = child(container, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(hook) = child(lifecycle, hook) {
                default_http_get(hook);
            }
        }
    }
}

/// `SetDefaults_HTTPGetAction`.
fn default_http_get(handler: &mut Map<String, Value>) {
    if let Some(get) = child(handler, "httpGet") {
        set_default(get, "path", "/".into());
        set_default(get, "scheme", "HTTP".into());
    }
}

/// The default pull policy of an image (`SetDefaults_Container`, `SetDefaults_Volume`): `Always`
/// for the `latest` tag, `IfNotPresent` otherwise.
fn pull_policy(image: &str) -> &'static str {
    if image_tag(image) == Some("latest") {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// The tag `parsers.ParseImageName` gives: `latest` when the reference names neither a tag nor
/// a digest, `None` (no tag) for a digest alone.
fn image_tag(image: &str) -> Option<&str> {
    let (name, digest) = match image.split_once('@') {
        Some((name, digest)) => (name, Some(digest)),
        None => (image, None),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.split_once(':') {
        Some((_, tag)) => Some(tag),
        None if digest.is_some() => None,
        None => Some("latest"),
    }
}

/// The volume sources a controller template can carry (`VolumeSource` fields), for
/// `SetDefaults_Volume`'s "no source: emptyDir".
const VOLUME_SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

/// `SetDefaults_Volume` and the per-source defaults `SetObjectDefaults_Deployment` applies.
fn default_volume(volume: &mut Map<String, Value>) {
    if !VOLUME_SOURCES
        .iter()
        .any(|source| volume.get(*source).is_some_and(|v| !v.is_null()))
    {
        volume.insert("emptyDir".into(), Value::Object(Map::new()));
    }
    if let Some(image) = child(volume, "image") {
        let reference = image.get("reference").and_then(Value::as_str).unwrap_or("");
        set_default(image, "pullPolicy", pull_policy(reference).into());
    }
    if let Some(host_path) = child(volume, "hostPath")
        && !host_path.contains_key("type")
    {
        host_path.insert("type".into(), "".into());
    }
    for source in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(source) = child(volume, source) {
            set_default(source, "defaultMode", 420.into());
        }
    }
    if let Some(downward) = child(volume, "downwardAPI") {
        default_field_refs(downward);
    }
    if let Some(projected) = child(volume, "projected") {
        for source in items(projected, "sources") {
            if let Some(downward) = child(source, "downwardAPI") {
                default_field_refs(downward);
            }
            if let Some(token) = child(source, "serviceAccountToken") {
                set_default(token, "expirationSeconds", 3600.into());
            }
        }
    }
    if let Some(iscsi) = child(volume, "iscsi") {
        set_default(iscsi, "iscsiInterface", "default".into());
    }
    if let Some(rbd) = child(volume, "rbd") {
        set_default(rbd, "pool", "rbd".into());
        set_default(rbd, "user", "admin".into());
        set_default(rbd, "keyring", "/etc/ceph/keyring".into());
    }
    if let Some(azure) = child(volume, "azureDisk") {
        set_default(azure, "cachingMode", "ReadWrite".into());
        set_default(azure, "fsType", "ext4".into());
        set_default(azure, "readOnly", false.into());
        set_default(azure, "kind", "Shared".into());
    }
    if let Some(scale_io) = child(volume, "scaleIO") {
        set_default(scale_io, "storageMode", "ThinProvisioned".into());
        set_default(scale_io, "fsType", "xfs".into());
    }
    if let Some(claim_spec) = child(volume, "ephemeral")
        .and_then(|e| child(e, "volumeClaimTemplate"))
        .and_then(|t| child(t, "spec"))
    {
        set_default(claim_spec, "volumeMode", "Filesystem".into());
    }
}

fn default_field_refs(downward: &mut Map<String, Value>) {
    for item in items(downward, "items") {
        if let Some(field) = child(item, "fieldRef") {
            set_default(field, "apiVersion", "v1".into());
        }
    }
}

/// Maps whose values are quantities.
const QUANTITY_MAPS: &[&str] = &["limits", "requests", "overhead"];
/// Single quantities.
const QUANTITIES: &[&str] = &["sizeLimit"];

/// Drops nulls, empty lists and empty objects, and writes quantities in milli-units. `parent`
/// is the key `value` sits under.
fn normalise(value: &mut Value, parent: Option<&str>) {
    match value {
        Value::Object(object) => {
            let quantities = parent.is_some_and(|p| QUANTITY_MAPS.contains(&p));
            for (key, child) in object.iter_mut() {
                if quantities || QUANTITIES.contains(&key.as_str()) {
                    if let Some(quantity) = child.as_str().and_then(|q| Quantity::parse(q).ok()) {
                        *child = Value::String(format!("{}m", quantity.milli_value()));
                    }
                    continue;
                }
                normalise(child, Some(key));
            }
            object.retain(|key, child| !is_empty(child) || keeps_empty(key));
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                normalise(item, parent);
            }
        }
        _ => {}
    }
}

/// Empty objects that are present by meaning (a pointer to an empty struct is not nil).
fn keeps_empty(key: &str) -> bool {
    matches!(key, "emptyDir" | "securityContext")
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(object) => object.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_tags_as_parse_image_name_gives_them() {
        assert_eq!(image_tag("nginx"), Some("latest"));
        assert_eq!(image_tag("registry:5000/nginx"), Some("latest"));
        assert_eq!(image_tag("registry:5000/nginx:1.2"), Some("1.2"));
        assert_eq!(image_tag("nginx@sha256:abc"), None);
        assert_eq!(image_tag("nginx:latest@sha256:abc"), Some("latest"));
    }
}
