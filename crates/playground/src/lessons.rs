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

/// Zones holding a node that passed every filter for the first created pod.
fn feasible_zones(analysis: &Analysis) -> BTreeSet<String> {
    let Some(explanation) = analysis
        .decisions
        .first()
        .and_then(|d| d.explanation.as_ref())
    else {
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
        lesson: "nodeTaintsPolicy defaults to Ignore: the control-plane node's zone is an eligible domain with 0 pods, so the global minimum stays 0 and zones a and b may hold only one replica each. Set nodeTaintsPolicy: Honor and zone-c stops counting; the third replica schedules.",
    },
    Lesson {
        title: "matchLabelKeys during a rollout",
        text: concat!(
            "# Two old-revision web pods run in zone-a; zone-b's node is full.\n",
            include_str!("lessons/nodes-ab.yaml"),
            include_str!("lessons/batch-fills-b.yaml"),
            include_str!("lessons/old-revision.yaml"),
            include_str!("lessons/new-revision.yaml"),
        ),
        question: "A new-revision web pod (maxSkew 1 over zones, matchLabelKeys [pod-template-hash]) arrives; zone-a runs 2 old-revision web pods, zone-b is full. Is it placed?",
        choices: &[
            "No: zone-a already has 2 more web pods than zone-b",
            "Yes, in zone-a: only pods of its own revision are counted",
        ],
        answer: |analysis| placed_choice(analysis, &[0, 1]),
        lesson: "matchLabelKeys adds the pod's own values of those labels to the selector, so a new revision is spread on its own and old pods on their way out do not block it. Remove matchLabelKeys with the control: the old pods count, zone-a is 2 ahead, and the pod stays Pending.",
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
    fn the_three_zone_nodes_load() {
        let analysis = analyse(THREE_ZONES);
        assert_eq!(analysis.node_count, 3);
    }
}
