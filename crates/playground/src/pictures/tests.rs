//! The pictures against the reports they are drawn from: every bar is a report's count, and the
//! bars add up to the report's totals.

use super::*;
use crate::examples;
use crate::model::{Analysis, analyse};
use crate::state::{FailMode, FailTarget};
use crate::whatif;

// THREE_ZONES: three one-node zones (4 cpu each), three 100m replicas with a hard zone spread
// (maxSkew 1): one replica per zone, and 40 replicas fit on each node, so 39 more per zone.
use crate::whatif::tests::THREE_ZONES;

fn analysed(id: &str) -> Analysis {
    let analysis = analyse(&examples::by_id(id).expect("example").text());
    assert!(analysis.errors.is_empty(), "{id}: {:?}", analysis.errors);
    analysis
}

#[test]
fn capacity_per_zone_adds_up_to_the_report() {
    let analysis = analyse(THREE_ZONES);
    let reports = whatif::capacity_reports(&analysis);
    let pictures = whatif::capacity_pictures(&analysis, &reports);
    let picture = &pictures[0];
    let bars: Vec<(&str, usize, usize)> = picture
        .zones
        .iter()
        .map(|z| (z.zone.as_str(), z.running, z.additional))
        .collect();
    assert_eq!(bars, [("a", 1, 39), ("b", 1, 39), ("c", 1, 39)]);
    assert_eq!(picture.scale, 40);
    assert_eq!(picture.limit, Some("resources"));
    assert_eq!(picture.rejections, [(String::from("NodeResourcesFit"), 3)]);
    assert_eq!(picture.bounded, None);
    // Every example: the bars are the report's totals, over every zone of the cluster.
    for example in examples::EXAMPLES {
        let analysis = analysed(example.id);
        let reports = whatif::capacity_reports(&analysis);
        let zones = spreadlab_engine::analysis::zones(&analysis.settled.cluster).len();
        for (report, picture) in reports
            .iter()
            .zip(whatif::capacity_pictures(&analysis, &reports))
        {
            let sum = |f: fn(&ZoneCapacity) -> usize| picture.zones.iter().map(f).sum::<usize>();
            assert_eq!(sum(|z| z.additional), report.additional, "{}", example.id);
            assert_eq!(sum(|z| z.running), report.running, "{}", example.id);
            assert!(picture.zones.len() >= zones, "{}", example.id);
        }
    }
}

#[test]
fn a_failed_zone_is_marked_and_its_replicas_move_or_wait() {
    let analysis = analyse(THREE_ZONES);
    let zone = FailTarget::Zone("a".into());
    let removed = whatif::failure_report(&analysis, &zone, FailMode::Removed);
    let picture = &whatif::failure_pictures(&analysis, &removed)[0];
    let failed: Vec<&str> = picture
        .zones
        .iter()
        .filter(|z| z.failed)
        .map(|z| z.zone.as_str())
        .collect();
    assert_eq!(failed, ["a"]);
    let before: Vec<usize> = picture.zones.iter().map(|z| z.before).collect();
    assert_eq!(before, [1, 1, 1]);
    // Removed: zone a is no longer a domain, the replacement goes to b or c (1 vs 2, skew 1).
    assert_eq!(picture.zones[0].after, 0);
    assert_eq!(picture.zones.iter().map(|z| z.after).sum::<usize>(), 3);
    assert_eq!((picture.lost, picture.replaced, picture.pending), (1, 1, 0));
    // Unreachable: zone a still counts as a domain holding 0, so the replacement waits.
    let unreachable = whatif::failure_report(&analysis, &zone, FailMode::Unreachable);
    let picture = &whatif::failure_pictures(&analysis, &unreachable)[0];
    let after: Vec<usize> = picture.zones.iter().map(|z| z.after).collect();
    assert_eq!(after, [0, 1, 1]);
    assert_eq!((picture.lost, picture.replaced, picture.pending), (1, 0, 1));
    // A node's failure marks the node's zone.
    let node = FailTarget::Node("node-b".into());
    let report = whatif::failure_report(&analysis, &node, FailMode::Removed);
    let picture = &whatif::failure_pictures(&analysis, &report)[0];
    assert_eq!(
        picture.zones.iter().map(|z| z.failed).collect::<Vec<_>>(),
        [false, true, false]
    );
}

#[test]
fn failure_bars_add_up_to_the_report_in_every_example_zone() {
    for example in examples::EXAMPLES {
        let analysis = analysed(example.id);
        for zone in analysis.zones.iter().map(|z| z.name.clone()) {
            let target = FailTarget::Zone(zone.clone());
            let report = whatif::failure_report(&analysis, &target, FailMode::Removed);
            for (impact, picture) in report
                .workloads
                .iter()
                .zip(whatif::failure_pictures(&analysis, &report))
            {
                let before: usize = picture.zones.iter().map(|z| z.before).sum();
                let after: usize = picture.zones.iter().map(|z| z.after).sum();
                assert_eq!(before, impact.running_before, "{} {zone}", example.id);
                assert_eq!(after, impact.running_after, "{} {zone}", example.id);
                assert_eq!(
                    picture.replaced + picture.pending,
                    impact.replacements.len()
                );
                assert!(
                    picture.zones.iter().any(|z| z.failed && z.zone == zone),
                    "{} {zone}",
                    example.id
                );
            }
        }
    }
}

#[test]
fn a_rollout_column_per_step_with_the_stall_marked() {
    let analysis = analysed("rollout-gpu-busy");
    let reports = whatif::rollout_reports(&analysis);
    assert!(!reports.is_empty());
    let mut stalls = 0;
    for report in &reports {
        let picture = rollout(report);
        let outcome = &report.outcome;
        assert_eq!(picture.columns.len(), outcome.steps.len());
        let (max_surge, _) = outcome.resolved;
        for (column, step) in picture.columns.iter().zip(&outcome.steps) {
            assert_eq!(column.available, step.available);
            assert_eq!(
                column.available + column.unavailable,
                picture.desired.max(column.available)
            );
            // The Deployment controller never asks for more than desired + maxSurge pods.
            assert!(column.surge <= max_surge.max(0) as usize, "{column:?}");
            let new: usize = column.zones.iter().map(|z| z.0).sum();
            let old: usize = column.zones.iter().map(|z| z.1).sum();
            assert_eq!((new, old), (step.new.running, step.old.running));
            assert!(column.available + column.surge <= picture.scale);
        }
        if let Some((step, message)) = &picture.stall {
            stalls += 1;
            assert_eq!(Some(*step), outcome.stalled_at_step);
            assert_eq!(Some(message), outcome.reason.as_ref());
            assert!(message.contains("nodes are available"), "{message}");
        }
    }
    // Every GPU is busy: the rollout cannot place its surge pod and stalls.
    assert_eq!(stalls, 1);
    // Each alternative gets its own timeline; one that completes has no stall mark.
    let report = &reports[0];
    let alternatives = alternatives(report);
    assert_eq!(alternatives.len(), report.alternatives.len());
    assert!(report.alternatives.iter().any(|a| a.outcome.completed));
    for (picture, alternative) in alternatives.iter().zip(&report.alternatives) {
        assert!(picture.workload.ends_with(&alternative.change));
        assert_eq!(picture.columns.len(), alternative.outcome.steps.len());
        assert_eq!(picture.stall.is_none(), alternative.outcome.completed);
    }
}

#[test]
fn the_tie_break_histogram_holds_every_run_and_marks_the_stacking_ones() {
    for example in examples::EXAMPLES {
        let analysis = analysed(example.id);
        for report in whatif::risk_reports(&analysis) {
            let picture = risk(&report);
            for histogram in [&picture.per_node, &picture.per_zone] {
                let runs: usize = histogram.bars.iter().map(|b| b.1).sum();
                assert_eq!(runs, report.runs, "{}", example.id);
                let stacking: usize = histogram
                    .bars
                    .iter()
                    .filter(|b| picture.stacks(b.0))
                    .map(|b| b.1)
                    .sum();
                assert_eq!(stacking, histogram.stacking, "{}", example.id);
                assert!(histogram.bars.windows(2).all(|w| w[1].0 == w[0].0 + 1));
            }
        }
    }
}
