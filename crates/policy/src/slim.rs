//! Bound pods cut down to the fields `spreadlab-k8s` reads from them (`convert/pod.rs`
//! `convert_pod`, `load.rs` `add_pod`), parsed straight from the host's answer: a real pod's
//! env, volumes, probes and status conditions are skipped while parsing instead of being
//! allocated and converted (about 5 times less work on 3 KB pods). `tests/slim.rs` checks that a
//! slimmed pod converts exactly like the whole one on every seed cluster.
//!
//! CAVEAT: a field the loader starts reading from bound pods must be added here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A Kubernetes List of pods, items slimmed.
#[derive(Deserialize)]
pub struct SlimPodList {
    /// The pods (an absent or null `items` is empty).
    #[serde(default, deserialize_with = "null_as_empty")]
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
    pub fn into_value(mut self) -> Value {
        self.api_version = Some(Value::from("v1"));
        self.kind = Some(Value::from("Pod"));
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Slims a pod already parsed (fixtures); a value that is not a pod object is kept as it is, so
/// the loader reports it.
pub fn slim_value(pod: Value) -> Value {
    match SlimPod::deserialize(&pod) {
        Ok(slim) => slim.into_value(),
        Err(_) => pod,
    }
}
