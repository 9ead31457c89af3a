//! Bound pods cut down to the fields `spreadlab-k8s` reads from them (`convert/pod.rs`
//! `convert_pod`, `load.rs` `add_pod`), parsed straight from the host's answer: a real pod's
//! env, volumes, probes and status conditions are skipped while parsing instead of being
//! allocated and converted (about 5 times less work on 3 KB pods). `tests/slim.rs` checks that a
//! slimmed pod converts exactly like the whole one on every seed cluster.
//!
//! CAVEAT: a field the loader starts reading from bound pods must be added here.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A Kubernetes List of pods, items slimmed.
#[derive(Deserialize)]
pub struct SlimPodList {
    /// The pods (`null` is empty, as Go encodes an empty list; an absent `items` is an error: a
    /// truncated or foreign answer must not read as an empty cluster).
    #[serde(deserialize_with = "null_as_empty")]
    pub items: Vec<SlimPod>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<SlimPod>, D::Error> {
    Ok(Option::<Vec<SlimPod>>::deserialize(d)?.unwrap_or_default())
}

/// A pod with only what scheduling reads.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SlimPod {
    /// `apiVersion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<Value>,
    /// `kind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Value>,
    /// `metadata`.
    #[serde(default)]
    pub metadata: SlimMetadata,
    /// `spec`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<SlimSpec>,
    /// `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SlimStatus>,
}

/// `metadata`: identity, labels, controller, deletion.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SlimMetadata {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Value>,
    /// `namespace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Value>,
    /// `labels`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Value>,
    /// `ownerReferences`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Value>,
    /// `deletionTimestamp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Value>,
}

/// `spec`: everything the scheduler's plugins read.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the `spec` field of the same name
pub struct SlimSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_network: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_gates: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<SlimContainer>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_containers: Option<Vec<SlimContainer>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_spread_constraints: Option<Value>,
}

/// A container: name, image (ImageLocality), resources, ports, sidecar restart policy.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the container field of the same name
pub struct SlimContainer {
    #[serde(default)]
    pub name: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<Value>,
}

/// `status`: phase, nomination, start time.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the `status` field of the same name
pub struct SlimStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nominated_node_name: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Value>,
}

/// The pod fields the policy reads, as Kubewarden host-capability field masks (SDK 0.17
/// `ListAllResourcesRequest::field_masks`: dotted paths through objects and, implicitly, arrays;
/// a path keeps its whole subtree): exactly the fields of [`SlimPod`]. A host that prunes to them
/// serialises, and the guest parses, a fraction of each pod; a host that ignores them sends whole
/// pods, which [`SlimPodList`] slims while parsing. `tests/slim.rs` checks that a pod pruned to
/// these masks converts like the whole one.
pub const POD_FIELD_MASKS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.labels",
    "metadata.ownerReferences",
    "metadata.deletionTimestamp",
    "spec.nodeName",
    "spec.priority",
    "spec.priorityClassName",
    "spec.preemptionPolicy",
    "spec.overhead",
    "spec.resources",
    "spec.nodeSelector",
    "spec.hostNetwork",
    "spec.schedulingGates",
    "spec.containers.name",
    "spec.containers.image",
    "spec.containers.resources",
    "spec.containers.ports",
    "spec.containers.restartPolicy",
    "spec.initContainers.name",
    "spec.initContainers.image",
    "spec.initContainers.resources",
    "spec.initContainers.ports",
    "spec.initContainers.restartPolicy",
    "spec.tolerations",
    "spec.affinity",
    "spec.topologySpreadConstraints",
    "status.phase",
    "status.nominatedNodeName",
    "status.startTime",
];

/// The Service fields the policy reads (`helper.DefaultSelector`: namespace and selector).
pub const SERVICE_FIELD_MASKS: &[&str] = &["metadata.name", "metadata.namespace", "spec.selector"];

/// `value` pruned to `masks` as the field-mask semantics describe them (what the host does with
/// them): objects keep the masked keys, a path ending at a key keeps its whole value, arrays are
/// traversed element by element. An empty mask list keeps everything.
pub fn prune(value: &Value, masks: &[&str]) -> Value {
    if masks.is_empty() {
        return value.clone();
    }
    let paths: Vec<Vec<&str>> = masks.iter().map(|m| m.split('.').collect()).collect();
    let refs: Vec<&[&str]> = paths.iter().map(Vec::as_slice).collect();
    prune_paths(value, &refs)
}

fn prune_paths(value: &Value, paths: &[&[&str]]) -> Value {
    if paths.iter().any(|p| p.is_empty()) {
        return value.clone();
    }
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|i| prune_paths(i, paths)).collect()),
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (key, child) in map {
                let below: Vec<&[&str]> = paths
                    .iter()
                    .filter(|p| p[0] == key)
                    .map(|p| &p[1..])
                    .collect();
                if !below.is_empty() {
                    out.insert(key.clone(), prune_paths(child, &below));
                }
            }
            Value::Object(out)
        }
        // A scalar where the mask expects an object: nothing below it is kept.
        _ => Value::Null,
    }
}

impl SlimPod {
    /// Whether `spec.nodeName` is set (a bound pod).
    pub fn is_bound(&self) -> bool {
        self.spec
            .as_ref()
            .and_then(|s| s.node_name.as_ref())
            .and_then(Value::as_str)
            .is_some_and(|n| !n.is_empty())
    }

    /// The slimmed pod as JSON, with `apiVersion: v1` and `kind: Pod` (List items may omit them).
    /// Built by moving the parsed values into maps (no second serialisation: on 10,000 pods
    /// that halves the cost of reading the host's answer).
    pub fn into_value(self) -> Value {
        let mut pod = Map::new();
        pod.insert("apiVersion".into(), Value::from("v1"));
        pod.insert("kind".into(), Value::from("Pod"));
        let m = self.metadata;
        let mut metadata = Map::new();
        put(&mut metadata, "name", m.name);
        put(&mut metadata, "namespace", m.namespace);
        put(&mut metadata, "labels", m.labels);
        put(&mut metadata, "ownerReferences", m.owner_references);
        put(&mut metadata, "deletionTimestamp", m.deletion_timestamp);
        pod.insert("metadata".into(), Value::Object(metadata));
        if let Some(spec) = self.spec {
            let mut out = Map::new();
            put(&mut out, "nodeName", spec.node_name);
            put(&mut out, "priority", spec.priority);
            put(&mut out, "priorityClassName", spec.priority_class_name);
            put(&mut out, "preemptionPolicy", spec.preemption_policy);
            put(&mut out, "overhead", spec.overhead);
            put(&mut out, "resources", spec.resources);
            put(&mut out, "nodeSelector", spec.node_selector);
            put(&mut out, "hostNetwork", spec.host_network);
            put(&mut out, "schedulingGates", spec.scheduling_gates);
            put(&mut out, "containers", spec.containers.map(containers));
            put(
                &mut out,
                "initContainers",
                spec.init_containers.map(containers),
            );
            put(&mut out, "tolerations", spec.tolerations);
            put(&mut out, "affinity", spec.affinity);
            put(
                &mut out,
                "topologySpreadConstraints",
                spec.topology_spread_constraints,
            );
            pod.insert("spec".into(), Value::Object(out));
        }
        if let Some(status) = self.status {
            let mut out = Map::new();
            put(&mut out, "phase", status.phase);
            put(&mut out, "nominatedNodeName", status.nominated_node_name);
            put(&mut out, "startTime", status.start_time);
            pod.insert("status".into(), Value::Object(out));
        }
        Value::Object(pod)
    }
}

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_owned(), value);
    }
}

fn containers(list: Vec<SlimContainer>) -> Value {
    Value::Array(
        list.into_iter()
            .map(|c| {
                let mut out = Map::new();
                out.insert("name".into(), c.name);
                put(&mut out, "image", c.image);
                put(&mut out, "resources", c.resources);
                put(&mut out, "ports", c.ports);
                put(&mut out, "restartPolicy", c.restart_policy);
                Value::Object(out)
            })
            .collect(),
    )
}

/// Slims a pod already parsed (fixtures); a value that is not a pod object is kept as it is, so
/// the loader reports it.
pub fn slim_value(pod: Value) -> Value {
    match SlimPod::deserialize(&pod) {
        Ok(slim) => slim.into_value(),
        Err(_) => pod,
    }
}
