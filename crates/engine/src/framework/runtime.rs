//! Runs the extension points in profile order: PreFilter, Filter, PreScore, Score, NormalizeScore.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/runtime/framework.go` (`RunPreFilterPlugins`,
//! `RunFilterPlugins`, `RunScorePlugins`). Per-pod plugin state is typed, one slot per plugin,
//! instead of upstream's string-keyed `CycleState`.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::names::PluginName;
use super::profile::Profile;
use super::status::{Code, Status};
use super::types::{PodInfo, Snapshot};
use crate::plugins::{
    image_locality, inter_pod_affinity, node_affinity, node_name, node_ports, node_resources,
    node_unschedulable, pod_topology_spread, taint_toleration,
};

/// A set of plugins, as a bit set (checked per node on the Filter hot path).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PluginSet(u32);

impl PluginSet {
    /// Adds a plugin.
    pub fn insert(&mut self, plugin: PluginName) {
        self.0 |= 1 << plugin as u32;
    }

    /// Whether the plugin is in the set.
    pub fn contains(&self, plugin: PluginName) -> bool {
        self.0 & (1 << plugin as u32) != 0
    }
}

/// Per-pod plugin state written at PreFilter and read at Filter (`CycleState`).
#[derive(Clone, Debug, Default)]
pub struct CycleState {
    /// Plugins whose PreFilter returned Skip: their Filter does not run.
    pub skipped: PluginSet,
    /// PodTopologySpread's counts.
    pub spread: Option<pod_topology_spread::PreFilterState>,
    /// InterPodAffinity's counts.
    pub inter_pod_affinity: Option<inter_pod_affinity::PreFilterState>,
}

/// The outcome of the PreFilter extension point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterOutcome {
    /// Each plugin's own status, in order (only plugins that ran).
    pub plugins: Vec<(PluginName, Status)>,
    /// The combined status: Success, or the rejection (tagged with its plugin).
    pub status: Status,
    /// The node-name narrowing (`PreFilterResult.NodeNames`); `None` means all nodes.
    pub node_names: Option<BTreeSet<String>>,
    /// Plugins that narrowed the node set.
    pub narrowing_plugins: Vec<PluginName>,
}

/// `RunPreFilterPlugins`: UnschedulableAndUnresolvable stops at once; Unschedulable lets the rest run
/// and is returned at the end; node-name results are intersected.
pub fn run_pre_filter(
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
) -> (CycleState, PreFilterOutcome) {
    let mut state = CycleState::default();
    let mut outcome = PreFilterOutcome {
        plugins: Vec::new(),
        status: Status::success(),
        node_names: None,
        narrowing_plugins: Vec::new(),
    };
    for &plugin in &profile.filters {
        let (status, node_names) = match plugin {
            PluginName::NodeAffinity => {
                let (status, result) = node_affinity::pre_filter(&profile.node_affinity, pod);
                (status, result.node_names)
            }
            PluginName::NodePorts => (node_ports::pre_filter(pod), None),
            PluginName::PodTopologySpread => {
                let (status, spread) =
                    pod_topology_spread::pre_filter(&profile.spread, pod, snapshot);
                state.spread = spread;
                (status, None)
            }
            PluginName::InterPodAffinity => {
                let (status, affinity) = inter_pod_affinity::pre_filter(pod, snapshot);
                state.inter_pod_affinity = affinity;
                (status, None)
            }
            // NodeResourcesFit's PreFilter only computes the pod's requests, done once in PodInfo.
            PluginName::NodeResourcesFit => (Status::success(), None),
            _ => continue,
        };
        let status = status.from_plugin(plugin);
        outcome.plugins.push((plugin, status.clone()));
        match status.code {
            Code::Skip => {
                state.skipped.insert(plugin);
                continue;
            }
            Code::UnschedulableAndUnresolvable | Code::Error => {
                outcome.status = status;
                return (state, outcome);
            }
            Code::Unschedulable => {
                outcome.status = status;
                continue;
            }
            Code::Success => {}
        }
        if let Some(names) = node_names {
            outcome.narrowing_plugins.push(plugin);
            let merged = match outcome.node_names.take() {
                None => names,
                Some(existing) => existing.intersection(&names).cloned().collect(),
            };
            if merged.is_empty() {
                let message = if outcome.narrowing_plugins.len() == 1 {
                    format!(
                        "node(s) didn't satisfy plugin {}",
                        outcome.narrowing_plugins[0]
                    )
                } else {
                    format!(
                        "node(s) didn't satisfy plugin(s) [{}] simultaneously",
                        join_names(&outcome.narrowing_plugins)
                    )
                };
                outcome.node_names = Some(merged);
                outcome.status = Status::new(Code::UnschedulableAndUnresolvable, message);
                return (state, outcome);
            }
            outcome.node_names = Some(merged);
        }
    }
    (state, outcome)
}

/// Plugin names as Go prints a sorted `[]string` with `%v`, without the brackets.
pub fn join_names(plugins: &[PluginName]) -> String {
    let mut names: Vec<&str> = plugins.iter().map(|p| p.as_str()).collect();
    names.sort_unstable();
    names.join(" ")
}

/// Runs one Filter plugin on a node; the status is not yet tagged with the plugin.
fn run_filter_plugin(
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
        PluginName::PodTopologySpread => match &state.spread {
            Some(spread) => pod_topology_spread::filter(spread, node_index),
            None => Status::success(),
        },
        PluginName::InterPodAffinity => match &state.inter_pod_affinity {
            Some(affinity) => inter_pod_affinity::filter(affinity, snapshot, pod, node_index),
            None => Status::success(),
        },
        _ => Status::success(),
    }
}

/// `RunFilterPlugins`: the first non-success in profile order decides (plugins skipped at PreFilter
/// do not run).
pub fn run_filter(
    profile: &Profile,
    state: &CycleState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    for &plugin in &profile.filters {
        if state.skipped.contains(plugin) {
            continue;
        }
        let status = run_filter_plugin(plugin, profile, state, snapshot, pod, node_index);
        if !status.is_success() {
            return status.from_plugin(plugin);
        }
    }
    Status::success()
}

/// One score plugin's results over the feasible nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginScores {
    /// The plugin.
    pub plugin: PluginName,
    /// Its weight in the profile.
    pub weight: i64,
    /// Raw scores (Score), in feasible-node order; empty when the plugin was skipped at PreScore.
    pub raw: Vec<i64>,
    /// Normalized scores (NormalizeScore, or the raw scores for plugins without it).
    pub normalized: Vec<i64>,
    /// The PreScore error, if the plugin returned status Error (the cycle fails).
    pub error: Option<String>,
}

impl PluginScores {
    /// Whether PreScore returned Skip (the plugin contributes nothing).
    pub fn skipped(&self) -> bool {
        self.raw.is_empty() && self.error.is_none()
    }
}

/// The outcome of scoring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreOutcome {
    /// The scored nodes (snapshot indexes), in order.
    pub nodes: Vec<usize>,
    /// Per plugin, in profile order.
    pub plugins: Vec<PluginScores>,
    /// Weighted totals per node.
    pub totals: Vec<i64>,
}

/// `RunPreScorePlugins` + `RunScorePlugins`: per plugin raw scores, normalized, weighted and summed.
pub fn run_score(
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    feasible: &[usize],
) -> ScoreOutcome {
    let mut plugins = Vec::with_capacity(profile.scores.len());
    let mut totals = alloc::vec![0i64; feasible.len()];
    for &(plugin, weight) in &profile.scores {
        let (raw, normalized, error) = match score_plugin(plugin, profile, snapshot, pod, feasible)
        {
            Ok(Some((raw, normalized))) => (raw, normalized, None),
            Ok(None) => (Vec::new(), Vec::new(), None),
            Err(error) => (Vec::new(), Vec::new(), Some(error)),
        };
        for (total, score) in totals.iter_mut().zip(&normalized) {
            *total += score * weight;
        }
        plugins.push(PluginScores {
            plugin,
            weight,
            raw,
            normalized,
            error,
        });
    }
    ScoreOutcome {
        nodes: feasible.to_vec(),
        plugins,
        totals,
    }
}

/// Raw and normalized scores of one plugin.
type Scored = (Vec<i64>, Vec<i64>);

/// Runs PreScore, Score and NormalizeScore of one plugin; `Ok(None)` when PreScore skipped, `Err`
/// when it returned Error.
fn score_plugin(
    plugin: PluginName,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    feasible: &[usize],
) -> Result<Option<Scored>, String> {
    let nodes = || feasible.iter().map(|&i| (i, &snapshot.nodes[i]));
    let (raw, normalized) = match plugin {
        PluginName::TaintToleration => {
            let state = taint_toleration::pre_score(pod);
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| taint_toleration::score(&state, n))
                .collect();
            let mut normalized = raw.clone();
            taint_toleration::normalize_score(&mut normalized);
            (raw, normalized)
        }
        PluginName::NodeAffinity => {
            let Some(state) = node_affinity::pre_score(&profile.node_affinity, pod)? else {
                return Ok(None);
            };
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| node_affinity::score(&state, n))
                .collect();
            let mut normalized = raw.clone();
            node_affinity::normalize_score(&mut normalized);
            (raw, normalized)
        }
        PluginName::NodeResourcesFit => {
            let requests = node_resources::fit_pre_score(&profile.fit, pod);
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| node_resources::fit_score(&profile.fit, &requests, n))
                .collect();
            (raw.clone(), raw)
        }
        PluginName::PodTopologySpread => {
            let Some(state) =
                pod_topology_spread::pre_score(&profile.spread, pod, snapshot, feasible)
            else {
                return Ok(None);
            };
            let raw: Vec<i64> = nodes()
                .map(|(i, n)| pod_topology_spread::score(&state, snapshot, pod, i, n))
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
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| {
                    node_resources::balanced_score(&profile.balanced_allocation, &requests, n)
                })
                .collect();
            (raw.clone(), raw)
        }
        PluginName::ImageLocality => {
            let raw: Vec<i64> = nodes()
                .map(|(_, n)| image_locality::score(snapshot, pod, n))
                .collect();
            (raw.clone(), raw)
        }
        _ => return Ok(None),
    };
    Ok(Some((raw, normalized)))
}
