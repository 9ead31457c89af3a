//! The in-tree plugin registry (upstream `pkg/scheduler/framework/plugins/registry.go`
//! `NewInTreeRegistry`): the one place that knows every plugin. The framework's runner
//! (`framework/runtime.rs`) asks it to run a plugin at an extension point and keeps the order,
//! the status codes, the node-local cache and the weights; a new plugin touches its own folder
//! and this file.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use super::{
    image_locality, inter_pod_affinity, node_affinity, node_declared_features, node_name,
    node_ports, node_resources, node_unschedulable, node_volume_limits, pod_topology_spread,
    taint_toleration, volume_binding, volume_restrictions, volume_zone,
};
use crate::framework::runtime::PluginSet;
use crate::framework::{NodeInfo, PluginName, PodInfo, Profile, Snapshot, Status};

/// Raw and normalized scores of one plugin, in feasible-node order.
pub type Scored = (Vec<i64>, Vec<i64>);

/// The runner's node-local raw scores: for a node-local score plugin, its raw score on every
/// feasible node, computed by the given function where the cache has none.
pub type LocalScores<'a> = dyn FnMut(PluginName, &dyn Fn(&NodeInfo) -> i64) -> Vec<i64> + 'a;

/// Per-pod plugin state written at PreFilter and read at Filter (`CycleState`).
#[derive(Clone, Debug, Default)]
pub struct CycleState {
    /// Plugins whose PreFilter returned Skip: their Filter does not run.
    pub skipped: PluginSet,
    /// PodTopologySpread's counts.
    pub spread: Option<pod_topology_spread::PreFilterState>,
    /// InterPodAffinity's counts.
    pub inter_pod_affinity: Option<inter_pod_affinity::PreFilterState>,
    /// VolumeRestrictions' claims in use.
    pub volume_restrictions: Option<volume_restrictions::PreFilterState>,
    /// VolumeBinding's claims.
    pub volume_binding: Option<volume_binding::PreFilterState>,
    /// NodeVolumeLimits' reading of the pod's volumes.
    pub node_volume_limits: Option<node_volume_limits::PreFilterState>,
    /// VolumeZone's volume topologies.
    pub volume_zone: Option<volume_zone::PreFilterState>,
    /// NodeDeclaredFeatures' required features.
    pub node_declared_features: Option<node_declared_features::PreFilterState>,
}

/// PreFilter of `plugin`: its status and, for plugins that narrow the nodes (NodeAffinity), the
/// node names it allows; its per-pod state goes into `state`. `None` for a plugin without a
/// PreFilter.
pub fn pre_filter(
    plugin: PluginName,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    state: &mut CycleState,
) -> Option<(Status, Option<BTreeSet<String>>)> {
    Some(match plugin {
        PluginName::NodeAffinity => {
            let (status, result) = node_affinity::pre_filter(&profile.node_affinity, pod);
            (status, result.node_names)
        }
        // v1.37 gave NodeName a PreFilter that narrows to the named node (nodename/node_name.go).
        PluginName::NodeName if profile.version.since(37) => {
            (Status::success(), node_name::pre_filter_node_names(pod))
        }
        PluginName::NodePorts => (node_ports::pre_filter(pod), None),
        PluginName::PodTopologySpread => {
            let (status, spread) = pod_topology_spread::pre_filter(&profile.spread, pod, snapshot);
            state.spread = spread;
            (status, None)
        }
        PluginName::InterPodAffinity => {
            let (status, affinity) = inter_pod_affinity::pre_filter(pod, snapshot, profile.version);
            state.inter_pod_affinity = affinity;
            (status, None)
        }
        // NodeResourcesFit's PreFilter only computes the pod's requests, done once in PodInfo.
        PluginName::NodeResourcesFit => (Status::success(), None),
        PluginName::VolumeRestrictions => {
            let (status, restrictions) = volume_restrictions::pre_filter(pod, snapshot);
            state.volume_restrictions = restrictions;
            (status, None)
        }
        PluginName::NodeVolumeLimits => {
            let (status, limits) = node_volume_limits::pre_filter(pod, snapshot);
            state.node_volume_limits = limits;
            (status, None)
        }
        PluginName::VolumeBinding => {
            let (status, binding) = volume_binding::pre_filter(pod, snapshot);
            state.volume_binding = binding;
            (status, None)
        }
        PluginName::VolumeZone => {
            let (status, zone) = volume_zone::pre_filter(pod, snapshot);
            state.volume_zone = zone;
            (status, None)
        }
        PluginName::NodeDeclaredFeatures => {
            let (status, features) = node_declared_features::pre_filter(pod);
            state.node_declared_features = features;
            (status, None)
        }
        _ => return None,
    })
}

/// Filter of `plugin` on one node; the status is not yet tagged with the plugin
/// (`RunFilterPlugins` tags it).
pub fn filter(
    plugin: PluginName,
    profile: &Profile,
    state: &CycleState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    let node = &snapshot.nodes[node_index];
    match plugin {
        PluginName::NodeUnschedulable => node_unschedulable::filter(pod, node),
        PluginName::NodeName => node_name::filter(pod, node),
        PluginName::TaintToleration => taint_toleration::filter(pod, node),
        PluginName::NodeAffinity => node_affinity::filter(&profile.node_affinity, pod, node),
        PluginName::NodePorts => node_ports::filter(pod, node),
        PluginName::NodeResourcesFit => node_resources::fit_filter(&profile.fit, pod, node),
        PluginName::VolumeRestrictions => match &state.volume_restrictions {
            Some(restrictions) => volume_restrictions::filter(restrictions, snapshot, pod, node),
            None => Status::success(),
        },
        PluginName::NodeVolumeLimits => node_volume_limits::filter(
            profile.version,
            state.node_volume_limits.as_ref(),
            snapshot,
            pod,
            node_index,
        ),
        PluginName::VolumeBinding => match &state.volume_binding {
            Some(binding) => volume_binding::filter(binding, snapshot, node_index),
            None => Status::success(),
        },
        // Without its PreFilter state (a Filter called on its own, as upstream's unit tests
        // do), VolumeZone reads the pod's volumes again (`volume_zone.go` `Filter`).
        PluginName::VolumeZone => match &state.volume_zone {
            Some(zone) => volume_zone::filter(zone, pod, node),
            None => match volume_zone::pre_filter(pod, snapshot) {
                (_, Some(zone)) => volume_zone::filter(&zone, pod, node),
                (status, None) if status.code.is_rejected() => status,
                _ => Status::success(),
            },
        },
        PluginName::PodTopologySpread => match &state.spread {
            Some(spread) => pod_topology_spread::filter(spread, node_index),
            None => Status::success(),
        },
        PluginName::InterPodAffinity => match &state.inter_pod_affinity {
            Some(affinity) => inter_pod_affinity::filter(affinity, snapshot, pod, node_index),
            None => Status::success(),
        },
        PluginName::NodeDeclaredFeatures => match &state.node_declared_features {
            Some(features) => node_declared_features::filter(features, node),
            None => Status::success(),
        },
        _ => Status::success(),
    }
}

/// Whether `plugin`'s Filter, in the cycle whose PreFilter left `state`, may tell apart two nodes
/// that differ only in identity (name and `kubernetes.io/hostname` label). When no Filter plugin
/// of a cycle does, the cycle filters one node per class (`framework/classes.rs`).
pub fn filter_reads_node_identity(
    plugin: PluginName,
    profile: &Profile,
    state: &CycleState,
    pod: &PodInfo,
) -> bool {
    match plugin {
        PluginName::NodeName => node_name::reads_node_identity(pod),
        PluginName::NodeAffinity => node_affinity::reads_node_identity(&profile.node_affinity, pod),
        PluginName::VolumeRestrictions => volume_restrictions::reads_node_identity(pod),
        PluginName::NodeVolumeLimits => node_volume_limits::reads_node_identity(pod),
        PluginName::VolumeBinding => {
            volume_binding::reads_node_identity(state.volume_binding.as_ref())
        }
        PluginName::PodTopologySpread => {
            pod_topology_spread::filter_reads_node_identity(state.spread.as_ref())
        }
        PluginName::InterPodAffinity => {
            inter_pod_affinity::filter_reads_node_identity(state.inter_pod_affinity.as_ref())
        }
        _ => false,
    }
}

/// Whether `plugin`'s PreScore, Score and NormalizeScore may score two feasible nodes that differ
/// only in identity differently, or depend on how many feasible nodes there are (beyond which
/// classes they fall in). When no score plugin does, a cycle scores one node per class.
pub fn score_reads_node_identity(
    plugin: PluginName,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
) -> bool {
    match plugin {
        PluginName::NodeAffinity => node_affinity::reads_node_identity(&profile.node_affinity, pod),
        PluginName::PodTopologySpread => {
            pod_topology_spread::score_reads_node_identity(&profile.spread, pod, snapshot)
        }
        PluginName::InterPodAffinity => {
            inter_pod_affinity::score_reads_node_identity(pod, snapshot)
        }
        // A claim's volume may be pinned to one host, as for Filter.
        PluginName::VolumeBinding => volume_binding::pre_filter(pod, snapshot).1.is_some(),
        _ => false,
    }
}

/// `AddPod` (`delta` 1) or `RemovePod` (`delta` -1) of the PreFilter extensions: `info` on node
/// `node_index` joins or leaves the plugin states of `incoming`'s cycle.
pub fn update_state(
    snapshot: &Snapshot,
    state: &mut CycleState,
    incoming: &PodInfo,
    info: &PodInfo,
    node_index: usize,
    delta: i64,
) {
    let node = snapshot.nodes[node_index].node.clone();
    if let Some(spread) = &mut state.spread {
        spread.update_with_pod(&info.pod, incoming, &node, node_index, delta);
    }
    if let Some(affinity) = &mut state.inter_pod_affinity {
        affinity.update_with_pod(snapshot, info, node_index, delta, &incoming.pod);
    }
    if let Some(restrictions) = &mut state.volume_restrictions {
        restrictions.update_with_pod(&info.pod, delta);
    }
}

/// PreScore, Score and NormalizeScore of `plugin` over the feasible nodes; `Ok(None)` when
/// PreScore skipped (or the plugin does not score), `Err` when it returned Error. Node-local
/// plugins get their raw scores through `local` (the runner's node-local cache).
pub fn score(
    plugin: PluginName,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    feasible: &[usize],
    local: &mut LocalScores<'_>,
) -> Result<Option<Scored>, String> {
    let nodes = || feasible.iter().map(|&i| (i, &snapshot.nodes[i]));
    let (raw, normalized) = match plugin {
        PluginName::TaintToleration => {
            let state = taint_toleration::pre_score(pod);
            let raw = local(plugin, &|n| taint_toleration::score(&state, n));
            let mut normalized = raw.clone();
            taint_toleration::normalize_score(&mut normalized);
            (raw, normalized)
        }
        PluginName::NodeAffinity => {
            let Some(state) = node_affinity::pre_score(&profile.node_affinity, pod)? else {
                return Ok(None);
            };
            let raw = local(plugin, &|n| node_affinity::score(&state, n));
            let mut normalized = raw.clone();
            node_affinity::normalize_score(&mut normalized);
            (raw, normalized)
        }
        PluginName::NodeResourcesFit => {
            let requests = node_resources::fit_pre_score(&profile.fit, pod);
            let raw = local(plugin, &|n| {
                node_resources::fit_score(&profile.fit, &requests, n)
            });
            (raw.clone(), raw)
        }
        PluginName::PodTopologySpread => {
            let Some(state) =
                pod_topology_spread::pre_score(&profile.spread, pod, snapshot, feasible)
            else {
                return Ok(None);
            };
            let raw: Vec<i64> = nodes()
                .map(|(i, n)| pod_topology_spread::score(&state, i, n))
                .collect();
            let mut normalized = raw.clone();
            pod_topology_spread::normalize_score(&state, feasible, &mut normalized);
            (raw, normalized)
        }
        PluginName::InterPodAffinity => {
            let Some(state) = inter_pod_affinity::pre_score(
                &profile.inter_pod_affinity,
                pod,
                snapshot,
                feasible,
                profile.version,
            )?
            else {
                return Ok(None);
            };
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| inter_pod_affinity::score(&state, n))
                .collect();
            let mut normalized = raw.clone();
            inter_pod_affinity::normalize_score(&state, &mut normalized);
            (raw, normalized)
        }
        PluginName::NodeResourcesBalancedAllocation => {
            let Some(requests) =
                node_resources::balanced_pre_score(&profile.balanced_allocation, pod)
            else {
                return Ok(None);
            };
            let raw = local(plugin, &|n| {
                node_resources::balanced_score(
                    profile.version,
                    &profile.balanced_allocation,
                    &requests,
                    n,
                )
            });
            (raw.clone(), raw)
        }
        PluginName::ImageLocality => {
            let raw = local(plugin, &|n| {
                image_locality::score(profile.version, snapshot, pod, n)
            });
            (raw.clone(), raw)
        }
        // Only in profiles from v1.37. Reads the claims and volumes of the whole cluster, so not
        // through the node-local cache; PreFilter's state is rebuilt (pure, same snapshot).
        PluginName::VolumeBinding => {
            let (_, state) = volume_binding::pre_filter(pod, snapshot);
            let raw: Vec<i64> = nodes()
                .map(|(index, _)| volume_binding::score(state.as_ref(), snapshot, index))
                .collect();
            (raw.clone(), raw)
        }
        _ => return Ok(None),
    };
    Ok(Some((raw, normalized)))
}

/// Reserve and PreBind of the profile's plugins for `pod` bound to `node_index`, as the cluster
/// ends up once they are done: VolumeBinding's claims are bound on the node (its
/// `AssumePodVolumes` and `BindPodVolumes`, completed by the PV controller or a provisioner).
/// Runs before the pod itself is bound.
pub fn reserve(profile: &Profile, snapshot: &mut Snapshot, pod: &PodInfo, node_index: usize) {
    if !profile.filters.contains(&PluginName::VolumeBinding) {
        return;
    }
    let (status, Some(state)) = volume_binding::pre_filter(pod, snapshot) else {
        return;
    };
    let node = snapshot.nodes[node_index].node.clone();
    let Ok((volumes, reasons)) = volume_binding::find_pod_volumes(&state, snapshot, node_index)
    else {
        return;
    };
    if !status.is_success() || !reasons.is_empty() || volumes == Default::default() {
        return;
    }
    // The volume names are copied: binding changes the storage they were read from.
    let static_bindings: Vec<_> = (volumes.static_bindings.iter())
        .map(|&(claim, volume)| (claim, String::from(volume)))
        .collect();
    let provisions = volumes.dynamic_provisions;
    let provisioned = volume_binding::bind_pod_volumes(
        alloc::sync::Arc::make_mut(&mut snapshot.storage),
        &node,
        &static_bindings,
        &provisions,
    );
    snapshot.volumes_bound(&provisioned);
}
