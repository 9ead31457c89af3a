//! Objects read from the API server cut down to what the loader reads: bound pods to the field
//! masks the admission policy uses (`spreadlab_k8s::slim::POD_FIELD_MASKS`, checked there to load
//! like whole pods), Services to their selector, and everything else without the bookkeeping no
//! scheduling rule reads (`managedFields`, kubectl's last-applied annotation). Pods not yet bound
//! are kept whole: spreadlab schedules them, and reads their whole spec to do so.

use serde_json::{Map, Value};
use spreadlab_k8s::slim::{POD_FIELD_MASKS, SERVICE_FIELD_MASKS, prune};

use crate::kinds::Kind;

/// kubectl's copy of the last applied object: often larger than the object, never read.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `item` (one element of a list answer for `kind`) slimmed, with its `kind` and `apiVersion`
/// (list items carry neither), so that it reads on its own in a snapshot.
pub fn slim(kind: &Kind, item: Value) -> Value {
    let item = match kind.kind {
        "Pod"
            if item["spec"]["nodeName"]
                .as_str()
                .is_some_and(|n| !n.is_empty()) =>
        {
            prune(&item, POD_FIELD_MASKS)
        }
        "Service" => prune(&item, SERVICE_FIELD_MASKS),
        _ => without_bookkeeping(item),
    };
    let Value::Object(fields) = item else {
        // Not an object: left for the loader to report where it is.
        return item;
    };
    let mut typed = Map::with_capacity(fields.len() + 2);
    typed.insert("apiVersion".into(), Value::String(kind.api_version()));
    typed.insert("kind".into(), Value::String(kind.kind.to_owned()));
    for (key, value) in fields {
        typed.entry(key).or_insert(value);
    }
    Value::Object(typed)
}

fn without_bookkeeping(mut item: Value) -> Value {
    if let Some(metadata) = item.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
        if let Some(annotations) = metadata
            .get_mut("annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove(LAST_APPLIED);
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kinds::KINDS;

    fn kind(name: &str) -> &'static Kind {
        KINDS.iter().find(|k| k.kind == name).unwrap()
    }

    #[test]
    fn bound_pods_keep_only_the_masked_fields() {
        let pod = json!({
            "metadata": {"name": "a", "namespace": "n", "labels": {"app": "x"}, "managedFields": [{}]},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "i", "env": [{"name": "E"}],
                     "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running", "podIP": "10.0.0.1"}
        });
        let slim = slim(kind("Pod"), pod);
        assert_eq!(slim["kind"], "Pod");
        assert_eq!(slim["apiVersion"], "v1");
        assert_eq!(slim["metadata"]["labels"]["app"], "x");
        assert_eq!(
            slim["spec"]["containers"][0]["resources"]["requests"]["cpu"],
            "1"
        );
        assert!(slim["metadata"].get("managedFields").is_none());
        assert!(slim["spec"]["containers"][0].get("env").is_none());
        assert!(slim["status"].get("podIP").is_none());
    }

    #[test]
    fn pending_pods_keep_their_spec() {
        let pod = json!({"metadata": {"name": "a", "managedFields": [{}]},
                         "spec": {"schedulerName": "other", "containers": [{"name": "c", "env": []}]}});
        let slim = slim(kind("Pod"), pod);
        assert_eq!(slim["spec"]["schedulerName"], "other");
        assert!(slim["spec"]["containers"][0].get("env").is_some());
        assert!(slim["metadata"].get("managedFields").is_none());
    }

    #[test]
    fn other_kinds_lose_only_bookkeeping() {
        let deployment = json!({"metadata": {"name": "d", "managedFields": [{}],
            "annotations": {LAST_APPLIED: "{}", "deployment.kubernetes.io/revision": "3"}},
            "spec": {"replicas": 2}});
        let slim = slim(kind("Deployment"), deployment);
        assert_eq!(slim["apiVersion"], "apps/v1");
        assert_eq!(slim["spec"]["replicas"], 2);
        assert_eq!(
            slim["metadata"]["annotations"],
            json!({"deployment.kubernetes.io/revision": "3"})
        );
        assert!(slim["metadata"].get("managedFields").is_none());
    }
}
