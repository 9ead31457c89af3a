//! The pod and Service fields the policy asks the host for (field masks), and the host's pod
//! lists read with `spreadlab_k8s::slim` (straight into the fields scheduling reads).
//!
//! CAVEAT: a field the loader starts reading from bound pods must be added to
//! `spreadlab_k8s::slim` and to [`POD_FIELD_MASKS`].

use serde_json::Value;

pub use spreadlab_k8s::slim::{SlimPod, SlimPodList};

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
    "metadata.uid",
    "metadata.creationTimestamp",
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
    "spec.volumes.name",
    "spec.volumes.persistentVolumeClaim",
    "spec.volumes.ephemeral",
    "spec.volumes.gcePersistentDisk",
    "spec.volumes.awsElasticBlockStore",
    "spec.volumes.iscsi",
    "spec.volumes.rbd",
    "spec.volumes.azureDisk",
    "spec.volumes.cinder",
    "spec.volumes.azureFile",
    "spec.volumes.vsphereVolume",
    "spec.volumes.portworxVolume",
    "status.phase",
    "status.nominatedNodeName",
    "status.startTime",
    "status.conditions.type",
    "status.conditions.status",
    "status.conditions.reason",
    "status.containerStatuses.name",
    "status.containerStatuses.resources",
    "status.containerStatuses.allocatedResources",
    "status.initContainerStatuses.name",
    "status.initContainerStatuses.resources",
    "status.initContainerStatuses.allocatedResources",
    "status.resources",
    "status.allocatedResources",
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
