//! Where the cluster snapshot comes from: a [`ClusterSource`] lists the kinds of
//! [`CONTEXT_AWARE_RESOURCES`]. In the wasm module it is the Kubewarden host
//! ([`crate::host::HostCluster`]); native tests supply fixtures ([`FixtureCluster`]).

use core::fmt;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use spreadlab_k8s::slim::{POD_FIELD_MASKS, SERVICE_FIELD_MASKS, SlimPod, SlimPodList};

/// A kind the policy reads from the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resource {
    /// `apiVersion`.
    pub api_version: &'static str,
    /// `kind`.
    pub kind: &'static str,
}

/// Nodes.
pub const NODE: Resource = Resource {
    api_version: "v1",
    kind: "Node",
};
/// Pods (every namespace: resource use, spread and affinity count them).
pub const POD: Resource = Resource {
    api_version: "v1",
    kind: "Pod",
};
/// Namespaces (their labels, for affinity `namespaceSelector`s).
pub const NAMESPACE: Resource = Resource {
    api_version: "v1",
    kind: "Namespace",
};
/// PriorityClasses (the priority of the admitted workload's pods, and so whom they may preempt).
pub const PRIORITY_CLASS: Resource = Resource {
    api_version: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
};
/// PodDisruptionBudgets (for the `pdb-violated` lint rule).
pub const PDB: Resource = Resource {
    api_version: "policy/v1",
    kind: "PodDisruptionBudget",
};

/// Services: PodTopologySpread's system default constraints (kube-scheduler's default
/// `defaultingType: System`, for pods without constraints of their own) select the pods the
/// Services selecting the incoming pod select (upstream
/// pkg/scheduler/framework/plugins/helper/spread.go `DefaultSelector`).
pub const SERVICE: Resource = Resource {
    api_version: "v1",
    kind: "Service",
};
/// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
/// CSIStorageCapacities and VolumeAttachments: the volume plugins (VolumeRestrictions,
/// NodeVolumeLimits, VolumeBinding, VolumeZone) read them for pods with claims. Read only when the admitted workload's pods use a claim.
pub const STORAGE: &[Resource] = &[
    Resource {
        api_version: "v1",
        kind: "PersistentVolumeClaim",
    },
    Resource {
        api_version: "v1",
        kind: "PersistentVolume",
    },
    Resource {
        api_version: "storage.k8s.io/v1",
        kind: "StorageClass",
    },
    Resource {
        api_version: "storage.k8s.io/v1",
        kind: "CSINode",
    },
    Resource {
        api_version: "storage.k8s.io/v1",
        kind: "CSIDriver",
    },
    Resource {
        api_version: "storage.k8s.io/v1",
        kind: "CSIStorageCapacity",
    },
    Resource {
        api_version: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
    },
];

/// The kinds every evaluation that needs the cluster reads (PodDisruptionBudgets only for the
/// `pdb-violated` lint rule): every ClusterAdmissionPolicy must grant them (a test checks it).
pub const ALWAYS_READ: &[Resource] = &[NODE, POD, NAMESPACE, PRIORITY_CLASS, SERVICE];

/// Every kind the policy may read; `metadata.yml`'s `contextAwareResources` lists exactly these
/// (a test checks it).
pub const CONTEXT_AWARE_RESOURCES: &[Resource] = &[
    NODE,
    POD,
    NAMESPACE,
    PRIORITY_CLASS,
    PDB,
    SERVICE,
    STORAGE[0],
    STORAGE[1],
    STORAGE[2],
    STORAGE[3],
    STORAGE[4],
    STORAGE[5],
    STORAGE[6],
];

/// A failed cluster read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    /// What was read.
    pub resource: Resource,
    /// Why it failed.
    pub message: String,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot list {} ({}): {}",
            self.resource.kind, self.resource.api_version, self.message
        )
    }
}

/// Lists cluster objects (cluster-wide).
pub trait ClusterSource {
    /// Every object of `resource`, as JSON.
    fn list(&self, resource: Resource) -> Result<Vec<Value>, SourceError>;

    /// Every pod, slimmed to what scheduling reads (`spreadlab_k8s::slim`): the policy's
    /// largest read, parsed without a JSON document tree.
    fn list_pods(&self) -> Result<Vec<SlimPod>, SourceError>;
}

/// The field masks sent for a kind: Pods and Services are pruned to what the policy reads
/// (`crate::slim`); Nodes, Namespaces, PriorityClasses and PDBs are small and sent whole.
pub fn field_masks(resource: Resource) -> Option<&'static [&'static str]> {
    if resource == POD {
        Some(POD_FIELD_MASKS)
    } else if resource == SERVICE {
        Some(SERVICE_FIELD_MASKS)
    } else {
        None
    }
}

/// A host's answer to a list call (a JSON Kubernetes List), read as the module reads it.
pub fn read_list(resource: Resource, answer: &[u8]) -> Result<Vec<Value>, SourceError> {
    let list: Value = serde_json::from_slice(answer).map_err(|e| SourceError {
        resource,
        message: format!("the host's answer is not JSON: {e}"),
    })?;
    list_items(resource, list)
}

/// A host's answer to the Pod list call, parsed straight into the fields scheduling reads, in
/// their API types (`crate::slim`), as the module reads it.
pub fn read_pod_list(answer: &[u8]) -> Result<Vec<SlimPod>, SourceError> {
    let list: SlimPodList = serde_json::from_slice(answer).map_err(|e| SourceError {
        resource: POD,
        message: format!("the host's answer is not a PodList: {e}"),
    })?;
    Ok(list.items)
}

/// Sets `apiVersion` and `kind` on a List item that lacks them (the API server's List items
/// carry none; the loader dispatches on `kind`).
pub fn with_type(resource: Resource, mut item: Value) -> Value {
    if let Value::Object(map) = &mut item {
        map.entry("apiVersion")
            .or_insert_with(|| Value::from(resource.api_version));
        map.entry("kind")
            .or_insert_with(|| Value::from(resource.kind));
    }
    item
}

/// The items of a Kubernetes List answer (`{"items": [...]}`), typed ([`with_type`]).
pub fn list_items(resource: Resource, list: Value) -> Result<Vec<Value>, SourceError> {
    match list {
        Value::Object(mut map) => match map.remove("items") {
            Some(Value::Array(items)) => Ok(items
                .into_iter()
                .map(|item| with_type(resource, item))
                .collect()),
            // Go encodes an empty list as `null`.
            Some(Value::Null) => Ok(Vec::new()),
            // A truncated or foreign answer must not read as an empty cluster.
            None => Err(SourceError {
                resource,
                message: String::from("the answer has no `items`: not a Kubernetes List"),
            }),
            Some(_) => Err(SourceError {
                resource,
                message: String::from("the answer's `items` is not an array"),
            }),
        },
        _ => Err(SourceError {
            resource,
            message: String::from("the answer is not a Kubernetes List object"),
        }),
    }
}

/// A cluster from fixture objects (native tests; a what-if service could use it too): every
/// object whose `kind` matches is listed.
#[derive(Clone, Debug, Default)]
pub struct FixtureCluster {
    /// The objects.
    pub objects: Vec<Value>,
    /// Kinds whose listing fails (to test failed reads).
    pub failing: Vec<&'static str>,
}

impl FixtureCluster {
    /// A cluster of these objects (a `kind: List` is flattened).
    pub fn new(objects: impl IntoIterator<Item = Value>) -> FixtureCluster {
        let mut flat = Vec::new();
        for object in objects {
            if object.get("kind").and_then(Value::as_str) == Some("List") {
                if let Some(items) = object.get("items").and_then(Value::as_array) {
                    flat.extend(items.iter().cloned());
                }
            } else {
                flat.push(object);
            }
        }
        FixtureCluster {
            objects: flat,
            failing: Vec::new(),
        }
    }
}

impl ClusterSource for FixtureCluster {
    fn list(&self, resource: Resource) -> Result<Vec<Value>, SourceError> {
        if self.failing.contains(&resource.kind) {
            return Err(SourceError {
                resource,
                message: String::from("fixture read failure"),
            });
        }
        Ok(self
            .objects
            .iter()
            .filter(|o| o.get("kind").and_then(Value::as_str) == Some(resource.kind))
            .cloned()
            .collect())
    }

    /// The pods slimmed as the host's answer is ([`SlimPod::from_value`]); a pod that is not of
    /// the API's shape fails the read, as it fails the host's answer.
    fn list_pods(&self) -> Result<Vec<SlimPod>, SourceError> {
        if self.failing.contains(&POD.kind) {
            return Err(SourceError {
                resource: POD,
                message: String::from("fixture read failure"),
            });
        }
        self.objects
            .iter()
            .filter(|o| o.get("kind").and_then(Value::as_str) == Some(POD.kind))
            .map(|pod| {
                SlimPod::from_value(pod).map_err(|error| SourceError {
                    resource: POD,
                    message: format!("not a Pod: {error}"),
                })
            })
            .collect()
    }
}

/// A cluster answered as the Kubewarden host answers the module: each kind's List as JSON bytes,
/// read with [`read_list`] and [`read_pod_list`] as the module reads them (benchmarks and
/// profilers see the module's whole read, natively). Each object is as policy-server's watch
/// cache keeps it: `managedFields` and the last-applied annotation cleared, its metadata whole,
/// the rest pruned to the field masks (kubewarden-controller,
/// `crates/policy-evaluator/src/callback_handler/kubernetes/reflector.rs` `modify_object`).
#[derive(Clone, Debug, Default)]
pub struct AnsweredCluster {
    answers: BTreeMap<&'static str, Vec<u8>>,
}

/// The annotation `kubectl apply` writes, which policy-server's watch cache drops.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

impl AnsweredCluster {
    /// The answers a host holding `cluster`'s objects gives (items without `apiVersion` and
    /// `kind`, as the API server lists them).
    pub fn new(cluster: &FixtureCluster) -> AnsweredCluster {
        let answers = CONTEXT_AWARE_RESOURCES
            .iter()
            .map(|&resource| {
                // The metadata is not pruned (a `DynamicObject`'s masks apply to its data).
                let masks: Vec<&str> = field_masks(resource)
                    .map(|masks| masks.iter().copied().chain(["metadata"]).collect())
                    .unwrap_or_default();
                let items: Vec<Value> = cluster
                    .objects
                    .iter()
                    .filter(|o| o.get("kind").and_then(Value::as_str) == Some(resource.kind))
                    .map(|o| {
                        let mut item = spreadlab_k8s::slim::prune(o, &masks);
                        if let Value::Object(map) = &mut item {
                            map.remove("apiVersion");
                            map.remove("kind");
                            if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
                                metadata.remove("managedFields");
                                if let Some(Value::Object(annotations)) =
                                    metadata.get_mut("annotations")
                                {
                                    annotations.remove(LAST_APPLIED);
                                }
                            }
                        }
                        item
                    })
                    .collect();
                let list = json!({
                    "apiVersion": resource.api_version,
                    "kind": format!("{}List", resource.kind),
                    "metadata": {"resourceVersion": "1"},
                    "items": items,
                });
                (resource.kind, serde_json::to_vec(&list).unwrap_or_default())
            })
            .collect();
        AnsweredCluster { answers }
    }

    /// The bytes answered for `resource`'s list.
    pub fn answer(&self, resource: Resource) -> &[u8] {
        self.answers
            .get(resource.kind)
            .map_or(&b"{\"items\":null}"[..], Vec::as_slice)
    }
}

impl ClusterSource for AnsweredCluster {
    fn list(&self, resource: Resource) -> Result<Vec<Value>, SourceError> {
        read_list(resource, self.answer(resource))
    }

    fn list_pods(&self) -> Result<Vec<SlimPod>, SourceError> {
        read_pod_list(self.answer(POD))
    }
}
