//! Runs the extension points in profile order: PreFilter, Filter, PreScore, Score, NormalizeScore.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/runtime/framework.go` (`RunPreFilterPlugins`,
//! `RunFilterPlugins`, `RunScorePlugins`). Per-pod plugin state is typed, one slot per plugin,
//! instead of upstream's string-keyed `CycleState`.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefMut;

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

/// Brings the snapshot's node classes (`framework/classes.rs`) up to date.
pub fn refresh_node_classes(snapshot: &Snapshot) {
    snapshot.node_classes.borrow_mut().refresh(snapshot);
}

/// Per node: its class (after [`refresh_node_classes`]).
pub fn node_classes(snapshot: &Snapshot) -> core::cell::Ref<'_, [u32]> {
    core::cell::Ref::map(snapshot.node_classes.borrow(), |c| c.of_nodes())
}

/// Whether every Filter plugin of the cycle whose PreFilter left `state` gives nodes of one class
/// the same verdict for `pod` ([`registry::filter_reads_node_identity`]).
pub fn filters_by_class(profile: &Profile, state: &CycleState, pod: &PodInfo) -> bool {
    !profile.filters.iter().any(|p| {
        !state.skipped.contains(*p) && registry::filter_reads_node_identity(*p, profile, state, pod)
    })
}

/// Whether every score plugin gives feasible nodes of one class the same score for `pod`
/// ([`registry::score_reads_node_identity`]).
pub fn scores_by_class(profile: &Profile, snapshot: &Snapshot, pod: &PodInfo) -> bool {
    !profile
        .scores
        .iter()
        .any(|(p, _)| registry::score_reads_node_identity(*p, profile, snapshot, pod))
}

/// Filter verdicts of one cycle evaluated once per node class ([`run_filter_by_class`]).
#[derive(Clone, Debug, Default)]
pub struct ClassVerdicts {
    /// Per class: its index in `verdicts`, `u32::MAX` when no node of it was evaluated.
    slot: Vec<u32>,
    /// Per evaluated class: `None` when its nodes passed, else their status.
    verdicts: Vec<Option<Status>>,
}

impl ClassVerdicts {
    /// Whether a class's nodes failed with status `Error` (the cycle fails).
    pub fn has_error(&self) -> bool {
        self.verdicts
            .iter()
            .flatten()
            .any(|status| status.code == Code::Error)
    }

    /// The verdict of the nodes of class `class`, if one of them was evaluated.
    pub fn of(&self, class: u32) -> Option<&Option<Status>> {
        match self.slot[class as usize] {
            u32::MAX => None,
            slot => Some(&self.verdicts[slot as usize]),
        }
    }
}

/// The walk of `findNodesThatPassFilters` (schedule_one.go): the nodes in node tree order from
/// `nextStartNodeIndex`, stopping once `numFeasibleNodesToFind` feasible nodes are found.
#[derive(Clone, Copy, Debug)]
pub struct FilterWalk<'a> {
    /// Every node, in node tree order.
    pub order: &'a [usize],
    /// Where the walk starts in `order` (`nextStartNodeIndex`).
    pub start: usize,
    /// Feasible nodes kept before the pass stops (`numFeasibleNodesToFind`).
    pub limit: usize,
}

/// What [`run_filter_by_class`] found.
#[derive(Debug)]
pub struct ClassFilter {
    /// The verdicts of the classes evaluated.
    pub verdicts: ClassVerdicts,
    /// The feasible nodes, in node order.
    pub feasible: Vec<usize>,
    /// When the walk stopped early: the nodes it processed, in walk order (the node that would
    /// have been one feasible node more is examined but neither kept nor recorded).
    pub stopped: Option<Vec<usize>>,
}

/// `RunFilterPlugins` over every node but those in `skip` (sorted), evaluated on the first node
/// of each class met and given to the others ([`filters_by_class`] must hold; the classes
/// [`refresh_node_classes`]ed): exactly the verdicts and feasible nodes [`run_filter_cached`]
/// on every node would give. With a `walk` (and nothing to skip) the nodes are met in walk order
/// and the pass stops, as upstream's does, once `limit` feasible nodes are found and one more
/// is met, unless a node failed with status `Error` before (the cycle's error is then found on
/// every verdict, as without a walk); nodes past the stop are never evaluated.
pub fn run_filter_by_class(
    profile: &Profile,
    state: &CycleState,
    plan: &FilterPlan,
    snapshot: &Snapshot,
    pod: &PodInfo,
    skip: &[usize],
    walk: Option<FilterWalk<'_>>,
) -> ClassFilter {
    let classes = snapshot.node_classes.borrow();
    let class_of = classes.of_nodes();
    let mut verdicts = ClassVerdicts {
        slot: alloc::vec![u32::MAX; classes.count()],
        verdicts: Vec::new(),
    };
    let n = class_of.len();
    let walk = walk.filter(|w| skip.is_empty() && w.order.len() == n && w.limit < n);
    let mut feasible = Vec::with_capacity(walk.map_or(n, |w| w.limit));
    let mut cache = prepare_node_local_cache(profile, snapshot, pod);
    let mut outcome = alloc::vec![UNKNOWN; classes.count()];
    let mut evaluate = |node_index: usize, outcome: &mut [u8], verdicts: &mut ClassVerdicts| {
        let class = class_of[node_index] as usize;
        let status = run_filter_cached(profile, state, plan, snapshot, pod, node_index, &mut cache);
        outcome[class] = match &status {
            status if status.is_success() => PASSED,
            status if status.code == Code::Error => ERROR,
            _ => FAILED,
        };
        verdicts.slot[class] = verdicts.verdicts.len() as u32;
        verdicts
            .verdicts
            .push((outcome[class] != PASSED).then_some(status));
    };
    let Some(walk) = walk else {
        let mut skip = skip.iter().copied().peekable();
        for (node_index, &class) in class_of.iter().enumerate() {
            if skip.next_if_eq(&node_index).is_some() {
                continue;
            }
            if outcome[class as usize] == UNKNOWN {
                evaluate(node_index, &mut outcome, &mut verdicts);
            }
            if outcome[class as usize] == PASSED {
                feasible.push(node_index);
            }
        }
        return ClassFilter {
            verdicts,
            feasible,
            stopped: None,
        };
    };
    let mut processed = Vec::with_capacity(n);
    let mut met_error = false;
    for step in 0..n {
        let node_index = walk.order[(walk.start + step) % n];
        let class = class_of[node_index] as usize;
        if outcome[class] == UNKNOWN {
            evaluate(node_index, &mut outcome, &mut verdicts);
        }
        match outcome[class] {
            PASSED if !met_error && feasible.len() == walk.limit => {
                feasible.sort_unstable();
                return ClassFilter {
                    verdicts,
                    feasible,
                    stopped: Some(processed),
                };
            }
            PASSED => feasible.push(node_index),
            ERROR => met_error = true,
            _ => {}
        }
        processed.push(node_index);
    }
    feasible.sort_unstable();
    ClassFilter {
        verdicts,
        feasible,
        stopped: None,
    }
}

/// A class whose nodes [`run_filter_by_class`] has not evaluated yet.
const UNKNOWN: u8 = 0;
/// A class whose nodes passed every filter.
const PASSED: u8 = 1;
/// A class whose nodes failed.
const FAILED: u8 = 2;
/// A class whose nodes failed with status `Error` (the cycle fails).
const ERROR: u8 = 3;

/// [`run_score`] on the first feasible node of each class ([`scores_by_class`] must hold; the
/// classes [`refresh_node_classes`]ed), and each feasible node's total: exactly the totals
/// [`run_score`] gives over all of `feasible`.
pub fn run_score_by_class(
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    feasible: &[usize],
) -> (ScoreOutcome, Vec<i64>) {
    let classes = snapshot.node_classes.borrow();
    let class_of = classes.of_nodes();
    let mut position = alloc::vec![u32::MAX; classes.count()];
    let mut scored = Vec::new();
    for &node in feasible {
        let slot = &mut position[class_of[node] as usize];
        if *slot == u32::MAX {
            *slot = scored.len() as u32;
            scored.push(node);
        }
    }
    let outcome = run_score(profile, snapshot, pod, &scored);
    let totals = feasible
        .iter()
        .map(|&node| outcome.totals[position[class_of[node] as usize] as usize])
        .collect();
    (outcome, totals)
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
