//! The cycle's passes over node classes (`framework/classes.rs`): Filter and Score run once on
//! the first node of each class met, and every node gets its class's result. Exactly what
//! `RunFilterPlugins` and `RunScorePlugins` (kubernetes v1.35
//! `pkg/scheduler/framework/runtime/framework.go`) give node by node, for pods whose plugins do
//! not read a node's identity; the scheduler's cycle (`scheduler/schedule_one.rs`) decides when.

use alloc::vec::Vec;

use super::profile::Profile;
use super::runtime::{
    CycleState, FilterPlan, ScoreOutcome, prepare_node_local_cache, run_filter_cached, run_score,
};
use super::snapshot::Snapshot;
use super::status::{Code, Status};
use super::types::PodInfo;
use crate::plugins::registry;

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
    /// Without a walk: the first feasible node of each class met, in node order (the nodes
    /// [`run_score_by_class`] scores), found at no cost while filtering; `None` after a walk.
    pub firsts: Option<Vec<usize>>,
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
    let mut firsts = Vec::new();
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
        // The nodes between skipped ones, run by run, in a loop kept tight for clusters of
        // thousands of nodes: a node's class is evaluated only the first time it is met.
        debug_assert!(skip.windows(2).all(|w| w[0] <= w[1]), "skip is sorted");
        feasible.resize(n, 0);
        let mut len = 0;
        let mut run_start = 0;
        for run_end in skip.iter().copied().chain([n]) {
            #[allow(clippy::needless_range_loop)] // `len` trails `node_index`: one store per node
            for node_index in run_start..run_end.min(n) {
                let class = class_of[node_index] as usize;
                let mut verdict = outcome[class];
                if verdict == UNKNOWN {
                    evaluate(node_index, &mut outcome, &mut verdicts);
                    verdict = outcome[class];
                    if verdict == PASSED {
                        firsts.push(node_index);
                    }
                }
                feasible[len] = node_index;
                len += usize::from(verdict == PASSED);
            }
            run_start = run_start.max(run_end + 1);
        }
        feasible.truncate(len);
        return ClassFilter {
            verdicts,
            feasible,
            firsts: Some(firsts),
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
                    firsts: None,
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
        firsts: None,
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
/// classes [`refresh_node_classes`]ed), and the feasible nodes whose total is the highest, in
/// order: exactly the nodes `selectHost` draws from after [`run_score`] over all of `feasible`
/// (alike nodes score alike, so a node's total is its class's). `firsts`, when known, are those
/// first nodes ([`ClassFilter::firsts`] of the pass that found `feasible`).
pub fn run_score_by_class(
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    mut feasible: Vec<usize>,
    firsts: Option<Vec<usize>>,
) -> (ScoreOutcome, Vec<usize>) {
    let classes = snapshot.node_classes.borrow();
    let class_of = classes.of_nodes();
    let mut position = alloc::vec![u32::MAX; classes.count()];
    let scored = match firsts {
        Some(firsts) => {
            for (slot, &node) in firsts.iter().enumerate() {
                position[class_of[node] as usize] = slot as u32;
            }
            firsts
        }
        None => {
            let mut scored = Vec::new();
            for &node in &feasible {
                let slot = &mut position[class_of[node] as usize];
                if *slot == u32::MAX {
                    *slot = scored.len() as u32;
                    scored.push(node);
                }
            }
            scored
        }
    };
    debug_assert!(
        feasible
            .iter()
            .all(|&node| position[class_of[node] as usize] != u32::MAX),
        "every feasible node's class is scored"
    );
    let outcome = run_score(profile, snapshot, pod, &scored);
    let best = outcome.totals.iter().copied().max().unwrap_or(i64::MIN);
    // Per class, whether its total is the highest (classes without a feasible node: no).
    let top: Vec<bool> = position
        .iter()
        .map(|&slot| slot != u32::MAX && outcome.totals[slot as usize] == best)
        .collect();
    // `retain`, without its per-element branch (thousands of nodes per pod).
    let mut kept = 0;
    for index in 0..feasible.len() {
        let node = feasible[index];
        feasible[kept] = node;
        kept += usize::from(top[class_of[node] as usize]);
    }
    feasible.truncate(kept);
    (outcome, feasible)
}
