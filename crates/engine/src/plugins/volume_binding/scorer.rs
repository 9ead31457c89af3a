//! VolumeBinding's Score (`volume_binding.go` `Score`, `scorer.go`): on from v1.37, where the
//! StorageCapacityScoring gate went beta and on (`pkg/features/kube_features.go` v1.37.2).

use alloc::collections::BTreeMap;

use super::binder::{DynamicProvision, find_pod_volumes};
use super::filtering::PreFilterState;
use crate::framework::Snapshot;
use crate::plugins::helper::MAX_NODE_SCORE;

/// `maxUtilization`.
const MAX_UTILIZATION: i64 = 100;

/// The default shape (`SetDefaults_VolumeBindingArgs` with the gate on: utilization 0 scores
/// 10, utilization 100 scores 0, scaled by `MaxNodeScore / MaxCustomPriorityScore`): `100 - u`.
fn shape(utilization: i64) -> i64 {
    MAX_NODE_SCORE - utilization * MAX_NODE_SCORE / MAX_UTILIZATION
}

/// `Score`: 0 for a pod PreFilter skipped (no claims) and on a node whose Filter found no
/// bindings; else, per storage class, `shape(requested * 100 / capacity)` (`shape(100)` when the
/// capacity is 0 or too small), averaged over the classes and rounded. Static bindings (claim
/// request, volume capacity) win over dynamic provisions (claim request, the CSIStorageCapacity's
/// `capacity`, provisions without one not counted). `node_index` is the node's index in `snapshot`.
pub fn score(state: Option<&PreFilterState>, snapshot: &Snapshot, node_index: usize) -> i64 {
    let Some(state) = state else {
        return 0;
    };
    let found = find_pod_volumes(state, snapshot, node_index);
    let Ok((volumes, reasons)) = found else {
        return 0;
    };
    if !reasons.is_empty() {
        return 0;
    }
    // (requested, capacity) per class.
    let mut classes: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    if !volumes.static_bindings.is_empty() {
        for (claim, volume_name) in &volumes.static_bindings {
            let Some(volume) = snapshot.storage.volumes.get(*volume_name) else {
                continue;
            };
            let entry = classes.entry(volume.storage_class.as_str()).or_default();
            entry.0 += claim.spec.request.as_ref().map_or(0, |q| q.value());
            entry.1 += volume.capacity.as_ref().map_or(0, |q| q.value());
        }
    } else {
        for DynamicProvision {
            claim,
            node_capacity,
        } in &volumes.dynamic_provisions
        {
            let Some(capacity) = node_capacity else {
                continue;
            };
            let entry = classes
                .entry(claim.spec.storage_class.as_str())
                .or_default();
            // Assigned, not summed: two claims of one class share the node's capacity.
            entry.1 = *capacity;
            entry.0 += claim.spec.request.as_ref().map_or(0, |q| q.value());
        }
    }
    if classes.is_empty() {
        return 0;
    }
    let total: i64 = classes
        .values()
        .map(|&(requested, capacity)| {
            if capacity == 0 || requested > capacity {
                shape(MAX_UTILIZATION)
            } else {
                shape(requested * MAX_UTILIZATION / capacity)
            }
        })
        .sum();
    libm::round(total as f64 / classes.len() as f64) as i64
}
