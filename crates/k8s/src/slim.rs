//! Pods cut down to the fields the loader reads from them, each in its API type. Every pod the
//! loader converts goes through [`SlimPod`] (`convert/pod.rs` converts a slim pod, and a whole
//! pod is slimmed by moving these fields out of it: `SlimPod::from`), so a pod parsed straight
//! into it loads as the whole pod does by construction. Parsed from JSON, a real pod's env,
//! volume contents, probes and condition messages are skipped instead of being allocated, and no
//! JSON document tree is built in between ([`crate::Object::Pod`]). The admission policy reads
//! the host's pod lists this way (its `tests/slim.rs` checks that a slimmed pod, and one pruned
//! to [`POD_FIELD_MASKS`], loads exactly like the whole one on every seed cluster).
//!
//! CAVEAT: a field the loader starts reading from pods must be added here, to `SlimPod::from`
//! and to [`POD_FIELD_MASKS`].

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};
use serde::Deserialize;
use serde_json::Value;

use crate::Object;

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

/// A pod with only what scheduling reads, each field in its API type.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SlimPod {
    /// `metadata`.
    #[serde(default)]
    pub metadata: SlimMetadata,
    /// `spec`.
    #[serde(default)]
    pub spec: Option<SlimSpec>,
    /// `status`.
    #[serde(default)]
    pub status: Option<SlimStatus>,
}

/// The metadata fields scheduling reads.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the `metadata` field of the same name
pub struct SlimMetadata {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub generate_name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub owner_references: Option<Vec<OwnerReference>>,
    #[serde(default)]
    pub deletion_timestamp: Option<Time>,
    #[serde(default)]
    pub uid: Option<String>,
    #[serde(default)]
    pub creation_timestamp: Option<Time>,
}

/// The `spec` fields scheduling reads.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the `spec` field of the same name
pub struct SlimSpec {
    #[serde(default)]
    pub node_name: Option<String>,
    #[serde(default)]
    pub priority: Option<i32>,
    #[serde(default)]
    pub priority_class_name: Option<String>,
    #[serde(default)]
    pub preemption_policy: Option<String>,
    #[serde(default)]
    pub overhead: Option<BTreeMap<String, Quantity>>,
    #[serde(default)]
    pub resources: Option<core_api::ResourceRequirements>,
    #[serde(default)]
    pub node_selector: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub host_network: Option<bool>,
    #[serde(default)]
    pub host_users: Option<bool>,
    #[serde(default)]
    pub runtime_class_name: Option<String>,
    #[serde(default)]
    pub scheduling_gates: Option<Vec<core_api::PodSchedulingGate>>,
    #[serde(default)]
    pub resource_claims: Option<Vec<core_api::PodResourceClaim>>,
    /// Required, as in the API type (a pod without it is not a pod).
    pub containers: Vec<SlimContainer>,
    #[serde(default)]
    pub init_containers: Option<Vec<SlimContainer>>,
    #[serde(default)]
    pub tolerations: Option<Vec<core_api::Toleration>>,
    #[serde(default)]
    pub affinity: Option<core_api::Affinity>,
    #[serde(default)]
    pub topology_spread_constraints: Option<Vec<core_api::TopologySpreadConstraint>>,
    #[serde(default)]
    pub volumes: Option<Vec<SlimVolume>>,
}

/// The volume fields scheduling reads: claims, the inline disks VolumeRestrictions compares and
/// the in-tree sources NodeVolumeLimits counts after their CSI migration.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the volume field of the same name
pub struct SlimVolume {
    pub name: String,
    #[serde(default)]
    pub persistent_volume_claim: Option<core_api::PersistentVolumeClaimVolumeSource>,
    #[serde(default)]
    pub ephemeral: Option<core_api::EphemeralVolumeSource>,
    #[serde(default)]
    pub gce_persistent_disk: Option<core_api::GCEPersistentDiskVolumeSource>,
    #[serde(default)]
    pub aws_elastic_block_store: Option<core_api::AWSElasticBlockStoreVolumeSource>,
    #[serde(default)]
    pub iscsi: Option<core_api::ISCSIVolumeSource>,
    #[serde(default)]
    pub rbd: Option<core_api::RBDVolumeSource>,
    #[serde(default)]
    pub azure_disk: Option<core_api::AzureDiskVolumeSource>,
    #[serde(default)]
    pub cinder: Option<core_api::CinderVolumeSource>,
    #[serde(default)]
    pub azure_file: Option<core_api::AzureFileVolumeSource>,
    #[serde(default)]
    pub vsphere_volume: Option<core_api::VsphereVirtualDiskVolumeSource>,
    #[serde(default)]
    pub portworx_volume: Option<core_api::PortworxVolumeSource>,
    #[serde(default)]
    pub image: Option<core_api::ImageVolumeSource>,
}

/// The container fields scheduling reads.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the container field of the same name
pub struct SlimContainer {
    pub name: String,
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub resources: Option<core_api::ResourceRequirements>,
    #[serde(default)]
    pub ports: Option<Vec<core_api::ContainerPort>>,
    #[serde(default)]
    pub restart_policy: Option<String>,
    #[serde(default)]
    pub restart_policy_rules: Option<Vec<core_api::ContainerRestartRule>>,
}

/// The `status` fields scheduling reads.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the `status` field of the same name
pub struct SlimStatus {
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub nominated_node_name: Option<String>,
    #[serde(default)]
    pub start_time: Option<Time>,
    #[serde(default)]
    pub conditions: Option<Vec<SlimCondition>>,
    #[serde(default)]
    pub container_statuses: Option<Vec<SlimContainerStatus>>,
    #[serde(default)]
    pub init_container_statuses: Option<Vec<SlimContainerStatus>>,
    #[serde(default)]
    pub resources: Option<core_api::ResourceRequirements>,
    #[serde(default)]
    pub allocated_resources: Option<BTreeMap<String, Quantity>>,
}

/// A container status with only the resources an in-place resize reports.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the container status field of the same name
pub struct SlimContainerStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub resources: Option<core_api::ResourceRequirements>,
    #[serde(default)]
    pub allocated_resources: Option<BTreeMap<String, Quantity>>,
}

/// A `status.conditions` entry without its message and times (the loader reads the
/// `DisruptionTarget` condition's status and reason).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)] // each field is the condition field of the same name
pub struct SlimCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: Option<String>,
}

impl SlimPod {
    /// Whether the pod is bound (`spec.nodeName` set).
    pub fn is_bound(&self) -> bool {
        self.spec
            .as_ref()
            .and_then(|s| s.node_name.as_deref())
            .is_some_and(|n| !n.is_empty())
    }

    /// `metadata.namespace`.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata.namespace.as_deref()
    }

    /// `metadata.name`.
    pub fn name(&self) -> Option<&str> {
        self.metadata.name.as_deref()
    }

    /// A pod object (fixtures, a snapshot file) slimmed as a pod list's items are: `Err` with
    /// serde's message when it is not a pod of the API's shape.
    pub fn from_value(pod: &Value) -> Result<SlimPod, serde_json::Error> {
        SlimPod::deserialize(pod)
    }
}

impl From<core_api::Pod> for SlimPod {
    /// The fields scheduling reads, moved out of the whole pod (the rest is dropped).
    fn from(pod: core_api::Pod) -> SlimPod {
        let m = pod.metadata;
        SlimPod {
            metadata: SlimMetadata {
                name: m.name,
                generate_name: m.generate_name,
                namespace: m.namespace,
                labels: m.labels,
                owner_references: m.owner_references,
                deletion_timestamp: m.deletion_timestamp,
                uid: m.uid,
                creation_timestamp: m.creation_timestamp,
            },
            spec: pod.spec.map(|spec| SlimSpec {
                node_name: spec.node_name,
                priority: spec.priority,
                priority_class_name: spec.priority_class_name,
                preemption_policy: spec.preemption_policy,
                overhead: spec.overhead,
                resources: spec.resources,
                node_selector: spec.node_selector,
                host_network: spec.host_network,
                host_users: spec.host_users,
                runtime_class_name: spec.runtime_class_name,
                scheduling_gates: spec.scheduling_gates,
                resource_claims: spec.resource_claims,
                containers: spec.containers.into_iter().map(container).collect(),
                init_containers: spec
                    .init_containers
                    .map(|list| list.into_iter().map(container).collect()),
                tolerations: spec.tolerations,
                affinity: spec.affinity,
                topology_spread_constraints: spec.topology_spread_constraints,
                volumes: spec
                    .volumes
                    .map(|list| list.into_iter().map(volume).collect()),
            }),
            status: pod.status.map(|status| SlimStatus {
                phase: status.phase,
                nominated_node_name: status.nominated_node_name,
                start_time: status.start_time,
                conditions: status.conditions.map(|list| {
                    list.into_iter()
                        .map(|c| SlimCondition {
                            type_: c.type_,
                            status: c.status,
                            reason: c.reason,
                        })
                        .collect()
                }),
                container_statuses: status.container_statuses.map(container_statuses),
                init_container_statuses: status.init_container_statuses.map(container_statuses),
                resources: status.resources,
                allocated_resources: status.allocated_resources,
            }),
        }
    }
}

fn container_statuses(list: Vec<core_api::ContainerStatus>) -> Vec<SlimContainerStatus> {
    list.into_iter()
        .map(|c| SlimContainerStatus {
            name: c.name,
            resources: c.resources,
            allocated_resources: c.allocated_resources,
        })
        .collect()
}

fn container(c: core_api::Container) -> SlimContainer {
    SlimContainer {
        name: c.name,
        image: c.image,
        resources: c.resources,
        ports: c.ports,
        restart_policy: c.restart_policy,
        restart_policy_rules: c.restart_policy_rules,
    }
}

fn volume(v: core_api::Volume) -> SlimVolume {
    SlimVolume {
        name: v.name,
        persistent_volume_claim: v.persistent_volume_claim,
        ephemeral: v.ephemeral,
        gce_persistent_disk: v.gce_persistent_disk,
        aws_elastic_block_store: v.aws_elastic_block_store,
        iscsi: v.iscsi,
        rbd: v.rbd,
        azure_disk: v.azure_disk,
        cinder: v.cinder,
        azure_file: v.azure_file,
        vsphere_volume: v.vsphere_volume,
        portworx_volume: v.portworx_volume,
        image: v.image,
    }
}

impl From<SlimPod> for Object {
    fn from(pod: SlimPod) -> Object {
        Object::Pod(Box::new(pod))
    }
}

/// The pod fields the loader reads, as Kubewarden host-capability field masks
/// (SDK 0.17 `ListAllResourcesRequest::field_masks`: dotted paths through objects and,
/// implicitly, arrays; a path keeps its whole subtree): exactly the fields of [`SlimPod`]. The
/// admission policy asks its host for them, and `spreadlab-cluster` prunes the bound pods it reads
/// from an API server to them. A host that prunes to them serialises, and the guest parses, a
/// fraction of each pod; a host that ignores them sends whole pods, which [`SlimPodList`] slims
/// while parsing. The policy's `tests/slim.rs` checks that a pod pruned to these masks converts
/// like the whole one.
pub const POD_FIELD_MASKS: &[&str] = &[
    "metadata.name",
    "metadata.generateName",
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
    "spec.hostUsers",
    "spec.runtimeClassName",
    "spec.schedulingGates",
    "spec.resourceClaims",
    "spec.containers.name",
    "spec.containers.image",
    "spec.containers.resources",
    "spec.containers.ports",
    "spec.containers.restartPolicy",
    "spec.containers.restartPolicyRules",
    "spec.initContainers.name",
    "spec.initContainers.image",
    "spec.initContainers.resources",
    "spec.initContainers.ports",
    "spec.initContainers.restartPolicy",
    "spec.initContainers.restartPolicyRules",
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
    "spec.volumes.image",
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::SlimPod;

    #[test]
    fn what_scheduling_does_not_read_is_not_kept() {
        let pod = json!({
            "metadata": {"name": "p", "annotations": {"x": "y"}},
            "spec": {"nodeName": "n", "volumes": [{"name": "v", "emptyDir": {}}],
                "containers": [{"name": "c", "env": [{"name": "A", "value": "b"}]}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
        });
        let pod = SlimPod::from_value(&pod).unwrap();
        let spec = pod.spec.as_ref().unwrap();
        let volumes = spec.volumes.as_ref().unwrap();
        assert_eq!(volumes[0].name, "v");
        assert_eq!(spec.containers[0].name, "c");
        assert_eq!(spec.node_name.as_deref(), Some("n"));
        let status = pod.status.as_ref().unwrap();
        let conditions = status.conditions.as_ref().unwrap();
        assert_eq!(
            (conditions[0].type_.as_str(), conditions[0].status.as_str()),
            ("Ready", "True")
        );
        assert_eq!(status.phase.as_deref(), Some("Running"));
        // What is not read has no field to land in: the debug form names none of it.
        let shown = format!("{pod:?}");
        for skipped in [
            "annotations",
            "emptyDir",
            "empty_dir",
            "env",
            "message",
            "2026-01-01",
        ] {
            assert!(!shown.contains(skipped), "{skipped} kept: {shown}");
        }
    }

    #[test]
    fn a_whole_pod_slims_to_what_its_json_slims_to() {
        let pod = serde_json::json!({
            "metadata": {"name": "p", "generateName": "p-", "namespace": "ns", "uid": "u",
                "labels": {"app": "a"}, "annotations": {"x": "y"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "r", "controller": true}]},
            "spec": {"nodeName": "n", "priority": 5, "hostUsers": false, "runtimeClassName": "gvisor",
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}],
                "volumes": [{"name": "v", "image": {"reference": "r:1"}}, {"name": "w", "emptyDir": {}}],
                "containers": [{"name": "c", "image": "i", "env": [{"name": "A", "value": "b"}],
                    "restartPolicy": "Always", "restartPolicyRules": [{"action": "RestartAllContainers",
                        "exitCodes": {"operator": "In", "values": [42]}}],
                    "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 80, "hostPort": 8080}]}],
                "tolerations": [{"key": "k", "operator": "Exists"}]},
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "m"}],
                "containerStatuses": [{"name": "c", "ready": true, "restartCount": 0, "image": "i", "imageID": "",
                    "allocatedResources": {"cpu": "1"}}]}
        });
        let whole: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod.clone()).unwrap();
        assert_eq!(SlimPod::from(whole), SlimPod::from_value(&pod).unwrap());
    }
}
