//! Runs the extension points in profile order: PreFilter, Filter, PreScore, Score, NormalizeScore.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/runtime/framework.go` (`RunPreFilterPlugins`,
//! `RunFilterPlugins`, `RunScorePlugins`). Per-pod plugin state is typed, one slot per plugin,
//! instead of upstream's string-keyed `CycleState`.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefMut;

pub use super::by_class::{
    ClassFilter, ClassVerdicts, FilterWalk, filters_by_class, node_classes, refresh_node_classes,
    run_filter_by_class, run_score_by_class, scores_by_class,
};
use super::cache::{NODE_LOCAL_SCORES, NodeLocalCache, is_node_local};
use super::names::PluginName;
use super::profile::Profile;
use super::snapshot::Snapshot;
use super::status::{Code, Status};
use super::types::{NodeInfo, PodId, PodInfo};
pub use crate::plugins::registry::CycleState;
use crate::plugins::registry::{self, Scored};

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
        let Some((status, node_names)) =
            registry::pre_filter(plugin, profile, snapshot, pod, &mut state)
        else {
            continue;
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

/// `RunFilterPlugins`: the first non-success in profile order decides (plugins skipped at PreFilter
/// do not run).
pub fn run_filter(
    profile: &Profile,
    state: &CycleState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    let unskipped = profile
        .filters
        .iter()
        .copied()
        .filter(|p| !state.skipped.contains(*p));
    run_plugins(unskipped, profile, state, snapshot, pod, node_index)
}

/// `RunPreFilterExtensionAddPod`: puts pod `id` (`info`) on its arena node and adds it to the
/// plugin states of `incoming`'s cycle.
pub fn add_pod(
    snapshot: &mut Snapshot,
    state: &mut CycleState,
    incoming: &PodInfo,
    id: PodId,
    info: PodInfo,
) {
    let node_index = snapshot.pod_node[id];
    registry::update_state(snapshot, state, incoming, &info, node_index, 1);
    snapshot.restore(id, info);
}

/// `RunPreFilterExtensionRemovePod`: takes pod `id` off its node (keeping its arena slot) and out
/// of the plugin states of `incoming`'s cycle.
pub fn remove_pod(
    snapshot: &mut Snapshot,
    state: &mut CycleState,
    incoming: &PodInfo,
    id: PodId,
) -> PodInfo {
    let node_index = snapshot.pod_node[id];
    let info = snapshot.detach(id);
    registry::update_state(snapshot, state, incoming, &info, node_index, -1);
    info
}

/// `RunFilterPluginsWithNominatedPods`: when pods of at least the pod's priority are nominated to
/// the node, the filters run first as if they were running there (cloned state, `AddPod`), and,
/// only if that passes, once more without them; the pod must fit both ways. Without such pods it
/// is [`run_filter`]. The snapshot is left as it was found.
pub fn run_filter_with_nominated_pods(
    profile: &Profile,
    state: &CycleState,
    snapshot: &mut Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    let nominated = snapshot.nominated_for(pod, node_index);
    if nominated.is_empty() {
        return run_filter(profile, state, snapshot, pod, node_index);
    }
    let mut with_nominated = state.clone();
    for &index in &nominated {
        let entry = &snapshot.nominated[index];
        let (id, info) = (entry.id, entry.info.clone());
        add_pod(snapshot, &mut with_nominated, pod, id, info);
    }
    let status = run_filter(profile, &with_nominated, snapshot, pod, node_index);
    for &index in nominated.iter().rev() {
        let id = snapshot.nominated[index].id;
        snapshot.detach(id);
    }
    if !status.is_success() {
        return status;
    }
    run_filter(profile, state, snapshot, pod, node_index)
}

/// The Filter plugins of one pod's cycle, split once per cycle (not per node): the node-local
/// prefix whose verdicts [`run_filter_cached`] caches, and the rest; plugins skipped at
/// PreFilter are left out of both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterPlan {
    local: Vec<PluginName>,
    rest: Vec<PluginName>,
}

impl FilterPlan {
    /// The plan of `profile` for the cycle whose PreFilter left `state`. Node-local plugins come
    /// first in the default profile's Filter order; the cached prefix is only the leading run of
    /// them, so the order of every verdict is the profile's.
    pub fn new(profile: &Profile, state: &CycleState) -> FilterPlan {
        let prefix_len = profile
            .filters
            .iter()
            .take_while(|p| is_node_local(**p))
            .count();
        let (local, rest) = profile.filters.split_at(prefix_len);
        let kept = |plugins: &[PluginName]| {
            plugins
                .iter()
                .copied()
                .filter(|p| !state.skipped.contains(*p))
                .collect()
        };
        FilterPlan {
            local: kept(local),
            rest: kept(rest),
        }
    }
}

/// Like [`run_filter`], reusing node-local verdicts from `cache` (prepared for this pod by
/// [`prepare_node_local_cache`]); `plan` is [`FilterPlan::new`] of this cycle. The result is the
/// same as [`run_filter`]'s.
pub fn run_filter_cached(
    profile: &Profile,
    state: &CycleState,
    plan: &FilterPlan,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
    cache: &mut NodeLocalCache,
) -> Status {
    let entry = cache.entry(snapshot, node_index);
    match &entry.filter {
        Some(Some(status)) => return status.clone(),
        Some(None) => {}
        None => {
            let local = plan.local.iter().copied();
            let status = run_plugins(local, profile, state, snapshot, pod, node_index);
            let failed = !status.is_success();
            entry.filter = Some(failed.then(|| status.clone()));
            if failed {
                return status;
            }
        }
    }
    let rest = plan.rest.iter().copied();
    run_plugins(rest, profile, state, snapshot, pod, node_index)
}

/// The Filter of `plugins` in order; the first non-success decides.
fn run_plugins(
    plugins: impl IntoIterator<Item = PluginName>,
    profile: &Profile,
    state: &CycleState,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    for plugin in plugins {
        let status = registry::filter(plugin, profile, state, snapshot, pod, node_index);
        if !status.is_success() {
            return status.from_plugin(plugin);
        }
    }
    Status::success()
}

/// Prepares the snapshot's node-local cache for `pod` and returns it.
pub fn prepare_node_local_cache<'a>(
    profile: &Profile,
    snapshot: &'a Snapshot,
    pod: &PodInfo,
) -> RefMut<'a, NodeLocalCache> {
    let mut cache = snapshot.node_local_cache.borrow_mut();
    cache.prepare(profile, pod, snapshot.num_nodes());
    cache
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
    let mut cache = prepare_node_local_cache(profile, snapshot, pod);
    for &(plugin, weight) in &profile.scores {
        let (raw, normalized, error) =
            match score_plugin(plugin, profile, snapshot, pod, feasible, &mut cache) {
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

/// Runs PreScore, Score and NormalizeScore of one plugin; `Ok(None)` when PreScore skipped, `Err`
/// when it returned Error.
fn score_plugin(
    plugin: PluginName,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    feasible: &[usize],
    cache: &mut NodeLocalCache,
) -> Result<Option<Scored>, String> {
    // Raw scores of a node-local plugin, reused from the cache where the node is unchanged.
    let mut local = |plugin: PluginName, score: &dyn Fn(&NodeInfo) -> i64| -> Vec<i64> {
        let slot = NODE_LOCAL_SCORES
            .iter()
            .position(|p| *p == plugin)
            .expect("a node-local score plugin");
        feasible
            .iter()
            .map(|&i| {
                let entry = cache.entry(snapshot, i);
                *entry.scores[slot].get_or_insert_with(|| score(&snapshot.nodes[i]))
            })
            .collect()
    };
    registry::score(plugin, profile, snapshot, pod, feasible, &mut local)
}
