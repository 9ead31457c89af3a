//! Compare mode against changes whose effect upstream's rules (or a recording of the real
//! scheduler) settle.

use super::*;
use crate::edit::{self, Field};
use crate::lessons::LESSONS;
use crate::model::{analyse, analyse_for};
use spreadlab_engine::KubeVersion;

#[test]
fn a_changed_template_renames_the_replicas_but_they_are_matched_by_order() {
    // Lesson 4: two zones < minDomains 3, so 2 of 4 run; minDomains 2 lets all 4 run (the
    // template changes, so does its pod-template-hash and every replica's name).
    let text = LESSONS[3].text;
    let after_text = edit::set_field(text, 0, Field::MinDomains, Some("2")).unwrap();
    let comparison = compare(&analyse(text), &analyse(&after_text));
    let kinds: Vec<Kind> = comparison.changes.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [Kind::NowPlaced, Kind::NowPlaced]);
    assert_eq!(comparison.unchanged, 2);
    let total = |f: fn(&ZoneCount) -> usize| comparison.zones.iter().map(f).sum::<usize>();
    assert_eq!((total(|z| z.before), total(|z| z.after)), (2, 4));
}

#[test]
fn a_moved_replica_says_why_it_left_its_node() {
    // tests/scenarios/default-stacking: the real scheduler puts api #1 and #2 on node-a. A hard
    // hostname spread (maxSkew 1) rejects node-a for #2 (1 + 1 − 0 > 1): it moves to node-b or
    // node-c, and the three replicas end one per node, one per zone.
    let text = LESSONS[5].text;
    let after_text = text.replacen(
        "      containers:\n",
        "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: api}}}]\n      containers:\n",
        1,
    );
    let comparison = compare(&analyse(text), &analyse(&after_text));
    let second = comparison
        .changes
        .iter()
        .find(|c| c.pod.ends_with("-1"))
        .expect("the second replica changed");
    assert_eq!(second.kind, Kind::Moved);
    assert!(matches!(&second.before, Outcome::Placed { node, .. } if node == "node-a"));
    assert!(
        second.reason.as_deref().is_some_and(|r| r.starts_with(
            "node-a now fails PodTopologySpread: node(s) didn't match pod topology spread constraints"
        )),
        "{:?}",
        second.reason
    );
    let zones: Vec<(String, usize, usize)> = comparison
        .zones
        .iter()
        .map(|z| (z.zone.clone(), z.before, z.after))
        .collect();
    assert_eq!(
        zones,
        [
            ("zone-a".to_string(), 2, 1),
            ("zone-b".to_string(), 1, 1),
            ("zone-c".to_string(), 0, 1)
        ]
    );
}

#[test]
fn another_release_turns_a_placed_pod_pending_with_its_message() {
    // tests/scenarios/version-namespace-selector-notin: placed by 1.37, Pending under 1.36 with
    // this message (expected-1.36.jsonl, the real scheduler's).
    let text = LESSONS[13].text;
    let comparison = compare(
        &analyse_for(text, KubeVersion::V1_37),
        &analyse_for(text, KubeVersion::V1_36),
    );
    assert_eq!(comparison.changes.len(), 1);
    let change = &comparison.changes[0];
    assert_eq!(change.kind, Kind::NowPending);
    assert_eq!(
        change.reason.as_deref(),
        Some(
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        )
    );
    assert_eq!(comparison.unchanged, 0);
}

#[test]
fn more_and_fewer_replicas_are_added_and_removed() {
    let text = crate::examples::by_id("spread-three-zones").unwrap().text();
    let four = edit::set_replicas(&text, 0, 4).unwrap();
    let two = edit::set_replicas(&text, 0, 2).unwrap();
    let added = compare(&analyse(&text), &analyse(&four));
    assert_eq!(
        added.changes.iter().map(|c| c.kind).collect::<Vec<_>>(),
        [Kind::Added]
    );
    assert_eq!(added.unchanged, 3);
    let removed = compare(&analyse(&text), &analyse(&two));
    assert_eq!(
        removed.changes.iter().map(|c| c.kind).collect::<Vec<_>>(),
        [Kind::Removed]
    );
    // The same text twice: nothing changes.
    let same = compare(&analyse(&text), &analyse(&text));
    assert!(same.changes.is_empty());
    assert_eq!(same.unchanged, 3);
}
