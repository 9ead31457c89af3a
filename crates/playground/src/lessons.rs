//! Lessons: a path through the misconceptions of topology spread, each lesson a scenario, a
//! question, the learner's locked prediction, the engine's answer with its evidence, and one
//! change to make (checked on the engine's result); then a quiz on generated scenarios. Every
//! answer is read from the engine's results, never written down here.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::Analysis;

mod path;
pub mod progress;
pub mod quiz;

pub use path::LESSONS;

/// One lesson.
#[derive(Clone, Copy, Debug)]
pub struct Lesson {
    /// Short title.
    pub title: &'static str,
    /// The scenario (loaded into the editor).
    pub text: &'static str,
    /// The question.
    pub question: &'static str,
    /// The choices offered for the prediction.
    pub choices: &'static [&'static str],
    /// Which choice the engine's simulation of `text` supports (`None`: none of them).
    pub answer: fn(&Analysis) -> Option<usize>,
    /// What to take away (the misconception corrected), shown with the engine's answer.
    pub lesson: &'static str,
    /// The change the learner makes next, and how the engine's result shows it made.
    pub try_it: Try,
}

/// "Now change one thing": a change to make in the controls (or the editor), checked on the
/// engine's result for the edited scenario.
#[derive(Clone, Copy, Debug)]
pub struct Try {
    /// What to change.
    pub task: &'static str,
    /// Whether the engine's result for the edited text shows the change made.
    pub done: fn(&Analysis) -> bool,
    /// What the result shows once it is made.
    pub shows: &'static str,
}

/// Whether lesson `index`'s change is made: the editor holds its scenario (as given, or edited)
/// and the engine's result shows the change (an edit, or another release in the header).
pub fn tried(index: usize, status: LessonStatus, analysis: &Analysis) -> bool {
    status != LessonStatus::NotLoaded
        && LESSONS
            .get(index)
            .is_some_and(|l| (l.try_it.done)(analysis))
}

/// The most replicas of the simulation on one node.
fn most_on_one_node(analysis: &Analysis) -> usize {
    let mut per_node: BTreeMap<&str, usize> = BTreeMap::new();
    for node in analysis
        .decisions()
        .iter()
        .filter_map(|d| d.node.as_deref())
    {
        *per_node.entry(node).or_insert(0) += 1;
    }
    per_node.values().copied().max().unwrap_or(0)
}

/// Index of the choice `0, 1, 2, ...` that equals the number of replicas placed.
fn placed_choice(analysis: &Analysis, counts: &[usize]) -> Option<usize> {
    counts.iter().position(|&c| c == analysis.placed())
}

/// Zones holding a node that passed every filter for the `index`-th created pod (the engine's
/// per-node verdicts, grouped by the view model's zone columns).
fn feasible_zones_of(analysis: &Analysis, index: usize) -> BTreeSet<String> {
    let Some(decision) = analysis.explained(index) else {
        return BTreeSet::new();
    };
    let Some(explanation) = decision.explanation.as_ref() else {
        return BTreeSet::new();
    };
    explanation
        .nodes
        .iter()
        .filter(|verdict| verdict.filter.is_success())
        .filter_map(|verdict| {
            analysis
                .zones
                .iter()
                .find(|z| z.nodes.iter().any(|n| n.name == verdict.node))
                .map(|z| z.name.clone())
        })
        .collect()
}

/// Zones holding a node that passed every filter for the first created pod.
fn feasible_zones(analysis: &Analysis) -> BTreeSet<String> {
    feasible_zones_of(analysis, 0)
}

/// How the editor's text relates to the open lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonStatus {
    /// The editor holds the lesson's scenario, unchanged.
    Loaded,
    /// The lesson was opened and its scenario edited since: the engine answers for the edit.
    Edited,
    /// The editor holds something else (the lesson was not opened yet).
    NotLoaded,
}

/// The status of lesson `index` for the editor's `text` (`opened`: the learner opened it and
/// has not loaded an example since).
pub fn status(index: usize, opened: bool, text: &str) -> LessonStatus {
    match LESSONS.get(index) {
        Some(lesson) if lesson.text == text => LessonStatus::Loaded,
        Some(_) if opened => LessonStatus::Edited,
        _ => LessonStatus::NotLoaded,
    }
}

/// The engine's evidence shown with a lesson's answer, read from the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// Created pods the engine placed.
    pub placed: usize,
    /// Created pods in all.
    pub created: usize,
    /// The first Pending pod (`namespace/name`) and its FailedScheduling message.
    pub pending: Option<(String, String)>,
    /// The pod whose feasible zones are listed (the first Pending pod, else the first created).
    pub zones_for: Option<String>,
    /// That pod's index among the decisions (its spread arithmetic is drawn with the answer).
    pub decision: Option<usize>,
    /// Zones with a node that passed every filter for that pod.
    pub feasible_zones: Vec<String>,
}

/// The evidence behind the engine's answer for `analysis`.
pub fn evidence(analysis: &Analysis) -> Evidence {
    let pending_index = analysis.decisions().iter().position(|d| d.node.is_none());
    let pending = pending_index.map(|i| {
        let d = &analysis.decisions()[i];
        (
            crate::model::pod_key(d),
            d.message.clone().unwrap_or_default(),
        )
    });
    let index = pending_index.unwrap_or(0);
    Evidence {
        placed: analysis.placed(),
        created: analysis.decisions().len(),
        pending,
        zones_for: analysis.decisions().get(index).map(crate::model::pod_key),
        decision: (index < analysis.decisions().len()).then_some(index),
        feasible_zones: feasible_zones_of(analysis, index).into_iter().collect(),
    }
}

/// Nodes of the lessons that use three zones (kept for tests and future lessons).
pub const THREE_ZONES: &str = include_str!("lessons/nodes-abc.yaml");

#[cfg(test)]
mod tests;
