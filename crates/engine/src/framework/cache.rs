//! The node-local cache: node-local plugin results (Filter verdicts and raw Scores) kept per
//! node for the pod signature last scheduled, valid while the node's generation is unchanged.
//! spreadlab's counterpart of upstream's OpportunisticBatching
//! (`pkg/scheduler/framework/runtime/batch.go`, pod signatures in `signature.go`), exact by
//! construction. The snapshot owns one
//! (`types.rs`), the runner (`runtime.rs`) fills and reads it.

use alloc::string::String;
use alloc::vec::Vec;

use super::names::PluginName;
use super::profile::Profile;
use super::snapshot::Snapshot;
use super::status::Status;
use super::types::PodInfo;

/// Whether a plugin's Filter verdict and raw Score depend only on the pod and the node's own state
/// (its labels, taints, allocatable and the pods on it), not on other nodes.
pub fn is_node_local(plugin: PluginName) -> bool {
    matches!(
        plugin,
        PluginName::NodeUnschedulable
            | PluginName::NodeName
            | PluginName::TaintToleration
            | PluginName::NodeAffinity
            | PluginName::NodePorts
            | PluginName::NodeResourcesFit
            | PluginName::NodeResourcesBalancedAllocation
            | PluginName::ImageLocality
    )
}

/// Everything about a pod that node-local plugins read: two pods with equal signatures get the
/// same node-local verdicts and raw scores on the same node state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PodSignature {
    namespace: String,
    requests: crate::model::Resource,
    non_zero: (i64, i64),
    /// The container aggregate without pod-level resources (NodeResourcesFit's scorer reads it).
    containers_non_zero: crate::model::Resource,
    tolerations: Vec<crate::model::Toleration>,
    node_selector: crate::model::Labels,
    node_affinity: Option<crate::model::NodeAffinity>,
    host_ports: Vec<(String, String, i32)>,
    node_name: Option<String>,
    images: Vec<Option<String>>,
    image_volumes: Vec<String>,
}

impl PodSignature {
    fn of(pod: &PodInfo) -> PodSignature {
        let p = &pod.pod;
        PodSignature {
            namespace: p.namespace.clone(),
            requests: pod.requests.clone(),
            non_zero: (pod.non_zero_milli_cpu, pod.non_zero_memory),
            containers_non_zero: super::types::pod_requests(p, true, true),
            tolerations: p.tolerations.clone(),
            node_selector: p.node_selector.clone(),
            node_affinity: p.affinity.node_affinity.clone(),
            host_ports: pod.host_ports.clone(),
            node_name: p.node_name.clone(),
            images: p
                .init_containers
                .iter()
                .chain(&p.containers)
                .map(|c| c.image.clone())
                .collect(),
            // ImageLocality counts them from v1.36 (the profile, part of the cache key, holds the
            // release).
            image_volumes: p
                .volumes
                .iter()
                .filter_map(|v| match &v.source {
                    crate::model::VolumeSource::Image { reference } => Some(reference.clone()),
                    _ => None,
                })
                .collect(),
        }
    }
}

/// The node-local score plugins, in the order of [`NodeLocalEntry::scores`].
pub(crate) const NODE_LOCAL_SCORES: [PluginName; 5] = [
    PluginName::TaintToleration,
    PluginName::NodeAffinity,
    PluginName::NodeResourcesFit,
    PluginName::NodeResourcesBalancedAllocation,
    PluginName::ImageLocality,
];

/// One node's cached node-local results.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeLocalEntry {
    /// The node generation the entry was computed at.
    pub(crate) generation: u64,
    /// The node-local Filter prefix: `Some(None)` passed, `Some(Some(status))` failed.
    pub(crate) filter: Option<Option<Status>>,
    /// Raw scores of [`NODE_LOCAL_SCORES`].
    pub(crate) scores: [Option<i64>; 5],
}

/// How many pod signatures the cache keeps results for at once (workloads whose replicas are
/// scheduled interleaved, or pods of one workload that differ, such as a quarter with a
/// `nodeSelector`, each keep their own).
const SIGNATURES_KEPT: usize = 4;

/// One signature's results, per node.
#[derive(Clone, Debug)]
struct Slot {
    key: (Profile, PodSignature),
    entries: Vec<NodeLocalEntry>,
    /// When the slot last served a pod (the least recently used one is replaced).
    used: u64,
}

/// Node-local plugin results (filter verdicts and raw scores) for the last few pod signatures
/// scheduled, per node, valid while the node's generation is unchanged. Consecutive replicas of a
/// workload share a signature and a bind changes one node, so almost every node-local result is
/// reused: the same idea as upstream's OpportunisticBatching, but exact by construction (an entry
/// is only reused when every input the plugin reads is unchanged).
#[derive(Clone, Debug, Default)]
pub struct NodeLocalCache {
    slots: Vec<Slot>,
    /// The slot serving the pod being scheduled.
    current: usize,
    /// Pods served (the clock of `Slot::used`).
    clock: u64,
}

impl NodeLocalCache {
    /// Makes the cache serve `pod` under `profile`: the slot of its signature if one is kept,
    /// else a fresh slot (replacing the least recently used one when all are taken).
    pub(crate) fn prepare(&mut self, profile: &Profile, pod: &PodInfo, n_nodes: usize) {
        let signature = PodSignature::of(pod);
        self.clock += 1;
        let found = self.slots.iter().position(|slot| {
            slot.entries.len() == n_nodes && slot.key.0 == *profile && slot.key.1 == signature
        });
        let index = match found {
            Some(index) => index,
            None => {
                let fresh = Slot {
                    key: (profile.clone(), signature),
                    entries: alloc::vec![
                        NodeLocalEntry {
                            generation: u64::MAX,
                            ..NodeLocalEntry::default()
                        };
                        n_nodes
                    ],
                    used: 0,
                };
                if self.slots.len() < SIGNATURES_KEPT {
                    self.slots.push(fresh);
                    self.slots.len() - 1
                } else {
                    let oldest = (0..self.slots.len())
                        .min_by_key(|&i| self.slots[i].used)
                        .unwrap_or(0);
                    self.slots[oldest] = fresh;
                    oldest
                }
            }
        };
        self.slots[index].used = self.clock;
        self.current = index;
    }

    pub(crate) fn entry(&mut self, snapshot: &Snapshot, node_index: usize) -> &mut NodeLocalEntry {
        let generation = snapshot.node_generation[node_index];
        let entry = &mut self.slots[self.current].entries[node_index];
        if entry.generation != generation {
            *entry = NodeLocalEntry {
                generation,
                ..NodeLocalEntry::default()
            };
        }
        entry
    }
}
