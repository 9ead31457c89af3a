//! Every lesson against the engine: its scenario loads, the engine's answer is the one upstream
//! gives (a recording of the real kube-scheduler, or the upstream rule worked by hand, as each
//! comment says), and its "change one thing" step is not done on the lesson's own scenario but is
//! once the learner's change is made. Then the quiz against the PodTopologySpread filter's rule.

use super::quiz::{self, QUESTIONS};
use super::*;
use crate::edit::{self, Field, STRATEGIES};
use crate::model::analyse;
use spreadlab_engine::KubeVersion;

/// The choice each lesson's scenario supports, and why (upstream, not the engine):
/// 0. 6 of 6 (choice 1): count + 1 − min ≤ 1 fills the three zones in turns, 2-2-2.
/// 1. zone-b or zone-c (2): PodTopologySpread filter, counts a=3 b=1 c=0, maxSkew 2.
/// 2. none on node-x (0): tests/scenarios/nodes-without-zone/expected-1.37.jsonl, recorded from
///    the real kube-scheduler: node-x fails every replica with "(missing required label)".
/// 3. 2 of 4 (1): two zones < minDomains 3, so the global minimum is 0 and each zone holds 1.
/// 4. 4 of 4 (2): ScheduleAnyway is score-only; zone-b is full, so all in zone-a.
/// 5. two on node-a (2): tests/scenarios/default-stacking/expected-1.37.jsonl (real scheduler:
///    node-a, node-a, then node-b or node-c tied).
/// 6. 2 of 3 (1): nodeTaintsPolicy Ignore keeps zone-c an eligible domain holding 0
///    (tests/scenarios/control-plane-only-zone, recorded).
/// 7. Pending (0): the unreachable node stays a domain holding 0 under Ignore: 1 + 1 − 0 > 1.
/// 8. placed (1): matchLabelKeys [pod-template-hash] counts only the new revision's pods.
/// 9. stalls (2): maxSurge 25% of 3 rounds up to 1, maxUnavailable 25% down to 0
///    (deployment/util `ResolveFenceposts`); the surge pod finds no free GPU.
/// 10. 3 of 4 (0): required hostname anti-affinity, three nodes.
/// 11. blocks (0): disruptionsAllowed = 3 healthy − minAvailable 3 = 0, and the eviction API
///     refuses below 1 (pkg/registry/core/pod/storage/eviction.go).
/// 12. web-0 Pending (2): tests/scenarios/statefulset-zonal-volumes/expected-1.37.jsonl (real
///     scheduler: "2 Insufficient cpu, 4 node(s) didn't match PersistentVolume's node affinity").
/// 13. placed under 1.37 (0): tests/scenarios/version-namespace-selector-notin/expected-1.37.jsonl.
const EXPECTED: [usize; 14] = [1, 2, 0, 1, 2, 2, 1, 0, 1, 2, 0, 0, 2, 0];

#[test]
fn every_lesson_loads_and_the_engine_answers_as_upstream_would() {
    assert_eq!(LESSONS.len(), EXPECTED.len());
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

/// The learner's change for each lesson, made the way the controls make it (or as typed), and
/// the release then selected.
fn changed(index: usize) -> (String, KubeVersion) {
    let text = LESSONS[index].text;
    if index == 13 {
        // The change is the release (the header's selector), not the text.
        return (text.to_string(), KubeVersion::V1_36);
    }
    let made = match index {
        0 => edit::set_replicas(text, 0, 7),
        1 => edit::set_field(text, 0, Field::MaxSkew, Some("1")),
        2 => Some(text.replacen(
            "        kubernetes.io/os: linux\n\n",
            "        kubernetes.io/os: linux\n        topology.kubernetes.io/zone: zone-x\n",
            1,
        )),
        3 => edit::set_field(text, 0, Field::MinDomains, Some("2")),
        4 => edit::set_field(text, 0, Field::WhenUnsatisfiable, Some("DoNotSchedule")),
        5 => Some(text.replacen(
            "      containers:\n",
            "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: api}}}]\n      containers:\n",
            1,
        )),
        6 | 7 => edit::set_field(text, 0, Field::NodeTaintsPolicy, Some("Honor")),
        8 => edit::set_field(text, 0, Field::MatchLabelKeys, None),
        9 => edit::set_strategy(text, 0, Some(STRATEGIES[2].1)),
        10 => edit::set_replicas(text, 0, 3),
        11 => Some(text.replacen("minAvailable: 3", "minAvailable: 2", 1)),
        12 => Some(text.replacen("requests: {cpu: \"4\"}", "requests: {cpu: \"2\"}", 1)),
        _ => None,
    };
    let made = made.expect("the change applies");
    assert_ne!(made, text, "lesson {index}: the change changed nothing");
    (made, KubeVersion::DEFAULT)
}

/// Each change's outcome, worked from upstream (the `shows` line of each lesson says it):
/// 7 replicas fit as 3-2-2; maxSkew 1 leaves only zone-c; a labelled node-x is a third zone
/// taking at least one of four; minDomains 2 lets all 4 run; DoNotSchedule stops at 1; a hard
/// hostname spread puts one per node; Honor drops zone-c (and the unreachable zone-a) as
/// domains; without matchLabelKeys the old pods block; maxSurge 0 / maxUnavailable 1 completes;
/// 3 replicas fit 3 nodes; minAvailable 2 allows the one eviction; batch-1 at 2 CPU leaves room
/// for web-0 (1 CPU) on node-a1, inside its disk's zone; 1.36 (recorded) leaves the pod Pending.
#[test]
fn each_change_step_is_checked_on_the_engine_result() {
    for (index, lesson) in LESSONS.iter().enumerate() {
        let original = analyse(lesson.text);
        assert!(
            !(lesson.try_it.done)(&original),
            "{}: done before any change",
            lesson.title
        );
        assert!(!tried(index, LessonStatus::Loaded, &original));
        assert!(!tried(index, LessonStatus::NotLoaded, &original));
        let (text, version) = changed(index);
        let analysis = crate::model::analyse_for(&text, version);
        assert!(
            analysis.errors.is_empty(),
            "{}: {:?}",
            lesson.title,
            analysis.errors
        );
        assert!(
            (lesson.try_it.done)(&analysis),
            "{}: change not seen",
            lesson.title
        );
        assert!(tried(index, status(index, true, &text), &analysis));
    }
    // Lesson 14's change is any release before 1.37: each one's recording leaves the pod Pending
    // (tests/scenarios/version-namespace-selector-notin/expected*.jsonl).
    for version in [KubeVersion::V1_34, KubeVersion::V1_35] {
        let analysis = crate::model::analyse_for(LESSONS[13].text, version);
        assert!((LESSONS[13].try_it.done)(&analysis), "{version:?}");
    }
}

#[test]
fn the_evidence_is_the_engine_result() {
    // Lesson 6 is tests/scenarios/control-plane-only-zone: the third replica's name and message
    // are the real kube-scheduler's (that scenario's expected-1.37.jsonl: the playground opens on
    // the newest release).
    let found = evidence(&analyse(LESSONS[6].text));
    assert_eq!((found.placed, found.created), (2, 3));
    let (pod, message) = found.pending.expect("a Pending replica");
    assert_eq!(pod, "default/api-7d675bffcf-2");
    assert_eq!(
        message,
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
    );
    assert_eq!(found.zones_for.as_deref(), Some("default/api-7d675bffcf-2"));
    assert!(found.feasible_zones.is_empty());
    // Lesson 1, hand-derived from the PodTopologySpread filter (count + 1 − min ≤ maxSkew with
    // counts a=3, b=1, c=0, maxSkew 2): zone-b and zone-c pass, nothing is Pending.
    let found = evidence(&analyse(LESSONS[1].text));
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
fn the_three_zone_nodes_load() {
    let analysis = analyse(THREE_ZONES);
    assert_eq!(analysis.node_count, 3);
}

/// The PodTopologySpread filter's rule for one hard constraint when every zone is eligible and
/// the pod matches its own selector (upstream filtering.go): a zone passes when its count + 1 −
/// the global minimum ≤ maxSkew, the minimum being 0 while there are fewer zones than minDomains.
fn zones_by_rule(question: &quiz::Question) -> usize {
    let counts: Vec<usize> = question.zones.iter().map(|z| z.1).collect();
    let min = match question.min_domains {
        Some(m) if counts.len() < m => 0,
        _ => counts.iter().copied().min().unwrap_or(0),
    };
    counts
        .iter()
        .filter(|&&c| c + 1 - min <= question.max_skew)
        .count()
}

#[test]
fn quiz_answers_are_the_engine_and_follow_the_spread_rule() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..60 {
        for index in 0..QUESTIONS {
            let question = quiz::question(seed, index);
            let found = question.answer(KubeVersion::DEFAULT).expect("loads");
            let answer = found.choice;
            assert_eq!(found.zones.len(), answer);
            // The engine's own arithmetic: the limit is the global minimum + maxSkew.
            assert_eq!(
                found.limit,
                found.minimum.map(|m| m + question.max_skew as i64)
            );
            assert_eq!(
                answer,
                zones_by_rule(&question),
                "seed {seed} #{index}: {}",
                question.prompt()
            );
            assert_eq!(question.choices().len(), question.zones.len() + 1);
            seen.insert((answer, question.min_domains.is_some()));
            // The same seed makes the same question.
            assert_eq!(quiz::question(seed, index), question);
        }
    }
    // The quiz is not one answer over and over: none, some and every zone occur, and minDomains.
    assert!(
        seen.iter().any(|s| s.0 == 0) && seen.iter().any(|s| s.0 >= 3) && seen.iter().any(|s| s.1)
    );
}
