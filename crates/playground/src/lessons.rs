//! Lessons: a guided sequence, each a scenario, a question, the learner's prediction and the
//! engine's answer (read from the simulation of the scenario, never written down here).

use std::collections::BTreeSet;

use crate::model::Analysis;

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
        feasible_zones: feasible_zones_of(analysis, index).into_iter().collect(),
    }
}

/// Every lesson, in teaching order.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        title: "maxSkew is measured against the global minimum",
        text: concat!(
            "# zone-a runs 3 web pods, zone-b 1, zone-c none: already 3 apart.\n",
            "# A new web pod arrives with maxSkew 2 over zones.\n",
            include_str!("lessons/nodes-abc.yaml"),
            include_str!("lessons/skew-existing.yaml"),
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-new, namespace: default, labels: {app: web}}\n",
            "spec:\n  containers: [{name: web, image: 'web:1', resources: {requests: {cpu: 100m}}}]\n",
            "  topologySpreadConstraints:\n",
            "    - maxSkew: 2\n",
            "      topologyKey: topology.kubernetes.io/zone\n",
            "      whenUnsatisfiable: DoNotSchedule\n",
            "      labelSelector: {matchLabels: {app: web}}\n",
        ),
        question: "zone-a has 3 web pods, zone-b 1, zone-c 0, and maxSkew is 2. Which zones may take the new pod?",
        choices: &[
            "None: zone-a and zone-c already differ by 3, more than maxSkew",
            "Only zone-c, the emptiest",
            "zone-b or zone-c",
        ],
        answer: |analysis| {
            let zones = feasible_zones(analysis);
            let names: Vec<&str> = zones.iter().map(String::as_str).collect();
            match names.as_slice() {
                [] => Some(0),
                ["zone-c"] => Some(1),
                ["zone-b", "zone-c"] => Some(2),
                _ => None,
            }
        },
        lesson: "maxSkew is not the largest difference between any two zones. For each candidate zone the scheduler checks: pods already there + 1 (if the pod matches its own selector) − the global minimum over eligible zones ≤ maxSkew. zone-b: 1 + 1 − 0 = 2 ≤ 2, allowed, even though zone-a and zone-c stay 3 apart. Existing imbalance never blocks a pod by itself.",
    },
    Lesson {
        title: "minDomains forces the global minimum to zero",
        text: concat!(
            "# Two zones with plenty of room; the Deployment asks for at least 3 zones.\n",
            include_str!("lessons/nodes-ab.yaml"),
            include_str!("lessons/web-min-domains.yaml"),
        ),
        question: "4 replicas, maxSkew 1, minDomains 3, only two zones (both with room). How many replicas run?",
        choices: &[
            "0",
            "2: one per zone, the others Pending",
            "4: two per zone",
        ],
        answer: |analysis| placed_choice(analysis, &[0, 2, 4]),
        lesson: "With fewer eligible zones than minDomains, the global minimum is taken as 0. Each zone may then hold at most maxSkew (here 1) matching pods, so only two replicas fit. Set minDomains to 2 (or remove it) and all four schedule.",
    },
    Lesson {
        title: "whenUnsatisfiable: ScheduleAnyway only scores",
        text: concat!(
            "# zone-b's node is full (an 8-CPU batch pod); zone-a has room.\n",
            include_str!("lessons/nodes-ab.yaml"),
            include_str!("lessons/batch-fills-b.yaml"),
            include_str!("lessons/web-anyway.yaml"),
        ),
        question: "zone-b is full. 4 replicas with a zone spread, maxSkew 1, whenUnsatisfiable ScheduleAnyway. How many run?",
        choices: &["1: the spread allows one ahead", "2", "4: all in zone-a"],
        answer: |analysis| placed_choice(analysis, &[1, 2, 4]),
        lesson: "ScheduleAnyway turns the constraint into a score: nodes that keep the skew small are preferred, but no node is rejected for it. With DoNotSchedule the same Deployment would stop at 1 replica in zone-a (try it with the control).",
    },
    Lesson {
        title: "Node inclusion policies: a tainted zone still counts",
        text: concat!(
            include_str!("../../../tests/scenarios/control-plane-only-zone/cluster.yaml"),
            "---\n",
            include_str!("../../../tests/scenarios/control-plane-only-zone/workload.yaml"),
        ),
        question: "zone-c holds only a tainted control-plane node. 3 replicas, zone maxSkew 1, default policies. How many run?",
        choices: &["1", "2: the third is Pending", "3: one per zone"],
        answer: |analysis| placed_choice(analysis, &[1, 2, 3]),
        lesson: "Which nodes count as spread domains is set by two policies. nodeTaintsPolicy defaults to Ignore: the control-plane node's zone is an eligible domain with 0 pods even though the pod does not tolerate its taint, so the global minimum stays 0 and zones a and b may hold only one replica each. Set nodeTaintsPolicy: Honor and zone-c stops counting; the third replica schedules. nodeAffinityPolicy is the other way round: it defaults to Honor, so nodes the pod's nodeSelector or required node affinity exclude never count as domains (set it to Ignore and they do, which can hold a replica back the same way).",
    },
    Lesson {
        title: "matchLabelKeys during a rollout",
        text: concat!(
            "# A Deployment rolling out web:2. Two pods of its previous revision run in zone-a;\n",
            "# zone-b's node is full.\n",
            include_str!("lessons/nodes-ab.yaml"),
            include_str!("lessons/batch-fills-b.yaml"),
            include_str!("lessons/old-revision.yaml"),
            include_str!("lessons/web-rollout.yaml"),
        ),
        question: "A Deployment rolls out a new revision: 2 pods of the old revision still run in zone-a, zone-b is full, and its spread is maxSkew 1 over zones with matchLabelKeys [pod-template-hash]. Is the new revision's pod placed?",
        choices: &[
            "No: zone-a already has 2 more web pods than zone-b",
            "Yes, in zone-a: only pods of its own revision are counted",
        ],
        answer: |analysis| placed_choice(analysis, &[0, 1]),
        lesson: "matchLabelKeys adds the pod's own values of those labels to the selector; every revision of a Deployment gets its own pod-template-hash, so a new revision is spread on its own and the old pods on their way out do not block it. Remove matchLabelKeys with the control: the old pods count, zone-a is 2 ahead of zone-b (2 + 1 − 0 > 1), and the pod stays Pending.",
    },
    Lesson {
        title: "Required anti-affinity needs a node per replica",
        text: concat!(
            include_str!("../../../tests/scenarios/anti-affinity-too-few-nodes/cluster.yaml"),
            "---\n",
            include_str!("../../../tests/scenarios/anti-affinity-too-few-nodes/workload.yaml"),
        ),
        question: "4 replicas with required pod anti-affinity on kubernetes.io/hostname, 3 nodes. How many run?",
        choices: &[
            "3: the fourth is Pending",
            "4: two share a node once the others are full",
            "0",
        ],
        answer: |analysis| placed_choice(analysis, &[3, 4, 0]),
        lesson: "Required anti-affinity is a filter, not a preference: every node already holding a matching pod is rejected, so replicas beyond the node count stay Pending (\"didn't match pod anti-affinity rules\"). preferredDuringScheduling… or a topology spread with ScheduleAnyway would let them share.",
    },
];

/// Nodes of the lessons that use three zones (kept for tests and future lessons).
pub const THREE_ZONES: &str = include_str!("lessons/nodes-abc.yaml");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::analyse;

    // Expected answers follow kube-scheduler v1.35's documented semantics (PodTopologySpread
    // filter: matchNum + selfMatch - minMatchNum <= maxSkew; minDomains; ScheduleAnyway is
    // score-only; nodeTaintsPolicy default Ignore; matchLabelKeys; required anti-affinity).
    const EXPECTED: [usize; 6] = [2, 1, 2, 1, 1, 0];

    #[test]
    fn every_lesson_loads_and_the_engine_answers_as_upstream_would() {
        for (lesson, expected) in LESSONS.iter().zip(EXPECTED) {
            let analysis = analyse(lesson.text);
            assert!(
                analysis.errors.is_empty(),
                "{}: {:?}",
                lesson.title,
                analysis.errors
            );
            assert_eq!(
                (lesson.answer)(&analysis),
                Some(expected),
                "{}",
                lesson.title
            );
        }
    }

    #[test]
    fn the_evidence_is_the_engine_result() {
        // Lesson 4 is tests/scenarios/control-plane-only-zone: the third replica's name and
        // message are the real kube-scheduler's (that scenario's expected-1.37.jsonl: the
        // playground opens on the newest release).
        let found = evidence(&analyse(LESSONS[3].text));
        assert_eq!((found.placed, found.created), (2, 3));
        let (pod, message) = found.pending.expect("a Pending replica");
        assert_eq!(pod, "default/api-7d675bffcf-2");
        assert_eq!(
            message,
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        );
        assert_eq!(found.zones_for.as_deref(), Some("default/api-7d675bffcf-2"));
        assert!(found.feasible_zones.is_empty());
        // Lesson 1, hand-derived from the PodTopologySpread filter (count + 1 − min ≤ maxSkew
        // with counts a=3, b=1, c=0, maxSkew 2): zone-b and zone-c pass, nothing is Pending.
        let found = evidence(&analyse(LESSONS[0].text));
        assert_eq!((found.placed, found.created), (1, 1));
        assert_eq!(found.pending, None);
        assert_eq!(found.feasible_zones, ["zone-b", "zone-c"]);
    }

    #[test]
    fn the_status_tells_a_loaded_lesson_from_an_edited_or_foreign_text() {
        assert_eq!(status(0, true, LESSONS[0].text), LessonStatus::Loaded);
        // The same text without having opened the lesson (e.g. after a reload) is the lesson.
        assert_eq!(status(0, false, LESSONS[0].text), LessonStatus::Loaded);
        let edited = format!("{}# edit\n", LESSONS[0].text);
        assert_eq!(status(0, true, &edited), LessonStatus::Edited);
        assert_eq!(status(0, false, &edited), LessonStatus::NotLoaded);
        assert_eq!(status(1, true, LESSONS[0].text), LessonStatus::Edited);
        assert_eq!(status(99, true, LESSONS[0].text), LessonStatus::NotLoaded);
    }

    #[test]
    fn without_match_label_keys_the_old_revision_blocks_the_rollout() {
        // Hand-derived from the PodTopologySpread filter: without matchLabelKeys the selector
        // app=web counts both old pods, zone-a 2 + 1 − zone-b 0 = 3 > maxSkew 1: Pending.
        let text = LESSONS[4]
            .text
            .replace("          matchLabelKeys: [pod-template-hash]\n", "");
        assert_ne!(text, LESSONS[4].text);
        let analysis = analyse(&text);
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        assert_eq!((analysis.placed(), analysis.pending.len()), (0, 1));
        // With it, the one new-revision pod the Deployment creates is placed in zone-a.
        let with = analyse(LESSONS[4].text);
        assert_eq!((with.placed(), with.pending.len()), (1, 0));
        assert_eq!(with.decisions().len(), 1);
    }

    #[test]
    fn the_three_zone_nodes_load() {
        let analysis = analyse(THREE_ZONES);
        assert_eq!(analysis.node_count, 3);
    }
}
