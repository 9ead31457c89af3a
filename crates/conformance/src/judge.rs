//! Judging the engine against the oracle's answer for one scenario ([`judge`],
//! [`judge_following`]) and against itself ([`fast_path_mismatches`]): every disagreement a
//! classified [`Mismatch`]. Split from `differential.rs`, which prepares and runs the scenarios.

use std::collections::BTreeMap;

use serde_json::Value;
use spreadlab_engine::scheduler::{self, Detail, Options, PodDecision, TieBreak};

use crate::differential::{INPUT_REJECTED, ORACLE_FAILED, Prepared};
use crate::scenarios::{Coverage, compare};

/// The engine's summaries-only run ([`Detail::None`], which filters and scores alike nodes once
/// per class: `crates/engine/src/framework/classes.rs`) judged against its every-detail run
/// (`detailed`, node by node): each decision must agree in everything both keep. Where the
/// detailed run agrees with the oracle, the fast path then does too. Findings are class
/// `fastPath`, with the detailed run as "oracle".
pub fn fast_path_mismatches(prepared: &Prepared, detailed: &[PodDecision]) -> Vec<Mismatch> {
    let options = Options {
        detail: Detail::None,
        ..Options::for_version(prepared.version)
    };
    let fast = scheduler::simulate(&prepared.cluster, &prepared.pods, &options).decisions;
    let summary = |decision: &PodDecision| {
        let mut decision = decision.clone();
        decision.explanation = None;
        decision
            .tied_nodes
            .truncate(scheduler::TIED_NODES_KEPT_WITHOUT_DETAIL);
        decision
    };
    detailed
        .iter()
        .zip(&fast)
        .filter_map(|(detailed, fast)| {
            let (detailed, fast) = (summary(detailed), summary(fast));
            (detailed != fast).then(|| Mismatch {
                class: "fastPath".to_owned(),
                pod: format!("{}/{}", fast.namespace, fast.name),
                field: "decision".to_owned(),
                spreadlab: format!("{fast:?}"),
                oracle: format!("{detailed:?}"),
            })
        })
        .collect()
}

/// One disagreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The class: `filter.code`, `filter.plugin`, `filter.reasons`, `filter.nodes`, `scored`,
    /// `score.<Plugin>`, `totals`, `topNodes`, `node`, `message`, `nominatedNode`, `victims`,
    /// `explanation`, `pods`, `pod`, `error`, `crossCheck`, `preEnqueue`, `fastPath`
    /// ([`fast_path_mismatches`]), [`INPUT_REJECTED`], [`ORACLE_FAILED`].
    pub class: String,
    /// `namespace/name` (empty for scenario-wide ones).
    pub pod: String,
    /// The field as [`compare`] names it (`filter[node-1].reasons`).
    pub field: String,
    /// spreadlab's value.
    pub spreadlab: String,
    /// The oracle's value.
    pub oracle: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[{}] {}: {}: spreadlab {}, oracle {}",
            self.class, self.pod, self.field, self.spreadlab, self.oracle
        )
    }
}

/// The class of a field [`compare`] reports: the field without its node (`filter[n].code` is
/// `filter.code`, `scores[n][P]` is `score.P`, `totals[n]` is `totals`).
pub fn classify(field: &str) -> String {
    if let Some(rest) = field.strip_prefix("filter[") {
        let part = rest.rsplit_once("].").map_or("", |(_, part)| part);
        return format!("filter.{part}");
    }
    if let Some(rest) = field.strip_prefix("scores[") {
        let plugin = rest
            .rsplit_once("][")
            .map_or("", |(_, p)| p.trim_end_matches(']'));
        return format!("score.{plugin}");
    }
    match field.split_once('[') {
        Some((head, _)) => head.to_owned(),
        None if field == "filter nodes" => "filter.nodes".to_owned(),
        None => field.to_owned(),
    }
}

/// How specific a class is, to pick a scenario's root cause (lower first): filters, then scores,
/// then what follows from them.
pub(crate) fn class_rank(class: &str) -> usize {
    const ORDER: &[&str] = &[
        INPUT_REJECTED,
        ORACLE_FAILED,
        "error",
        "crossCheck",
        "preEnqueue",
        "fastPath",
        "pods",
        "pod",
        "filter.nodes",
        "filter.plugin",
        "filter.code",
        "filter.reasons",
        "scored",
        "score.",
        "totals",
        "topNodes",
        "victims",
        "nominatedNode",
        "node",
        "message",
    ];
    ORDER
        .iter()
        .position(|c| class == *c || (c.ends_with('.') && class.starts_with(c)))
        .unwrap_or(ORDER.len())
}

/// Judges the engine against one oracle answer ([`judge`]), accepting every outcome the real
/// scheduler could have produced: where the oracle nominated another of the equally ranked
/// preemption candidates (upstream's `pickOneNodeForPreemption` walks a map, so it picks among
/// them at random), or any candidate when upstream examines only a random subset of them
/// (`PreemptionReport::candidates_sampled`), the engine is run again following that choice
/// ([`TieBreak::Follow`]) and judged on that run; every later pod then sees the same cluster on
/// both sides. `decisions` is the engine's default run. Returns the findings, the coverage and how
/// many choices were followed.
pub fn judge_following(
    prepared: &Prepared,
    decisions: &[PodDecision],
    oracle: &[Value],
) -> (Vec<Mismatch>, Coverage, usize) {
    let mut follow: BTreeMap<String, String> = BTreeMap::new();
    let mut rerun: Option<Vec<PodDecision>> = None;
    loop {
        let current = rerun.as_deref().unwrap_or(decisions);
        let next = current.iter().zip(oracle).find_map(|(decision, line)| {
            let ours = decision.preemption.as_ref()?;
            let theirs = line["nominatedNode"].as_str()?;
            let key = format!("{}/{}", decision.namespace, decision.name);
            let upstream_may =
                ours.tied_candidates.iter().any(|n| n == theirs) || ours.candidates_sampled;
            (ours.nominated_node != theirs && upstream_may && !follow.contains_key(&key))
                .then(|| (key, theirs.to_owned()))
        });
        let Some((key, node)) = next else {
            let (mismatches, coverage) = judge(current, oracle);
            return (mismatches, coverage, follow.len());
        };
        follow.insert(key, node);
        let options = Options {
            detail: Detail::All,
            tie_break: TieBreak::Follow(follow.clone()),
            ..Options::for_version(prepared.version)
        };
        rerun = Some(scheduler::simulate(&prepared.cluster, &prepared.pods, &options).decisions);
    }
}

/// Compares the engine's decisions with the oracle's lines through [`compare`] and classifies
/// each finding.
pub fn judge(decisions: &[PodDecision], oracle: &[Value]) -> (Vec<Mismatch>, Coverage) {
    const NAME: &str = "scenario";
    let (problems, coverage) = compare(NAME, decisions, oracle);
    let mismatches = problems
        .iter()
        .map(|problem| {
            let rest = problem
                .strip_prefix(NAME)
                .and_then(|r| r.strip_prefix(": "))
                .unwrap_or(problem);
            if let Some(count) = rest.strip_prefix("pods: ") {
                return Mismatch {
                    class: "pods".into(),
                    pod: String::new(),
                    field: "pods".into(),
                    spreadlab: count.to_owned(),
                    oracle: String::new(),
                };
            }
            let (pod, rest) = rest.split_once(": ").unwrap_or(("", rest));
            let (field, values) = rest.split_once(": spreadlab ").unwrap_or((rest, ""));
            let (ours, theirs) = values.split_once(", oracle ").unwrap_or((values, ""));
            Mismatch {
                class: classify(field),
                pod: pod.to_owned(),
                field: field.to_owned(),
                spreadlab: ours.to_owned(),
                oracle: theirs.to_owned(),
            }
        })
        .collect();
    (mismatches, coverage)
}
