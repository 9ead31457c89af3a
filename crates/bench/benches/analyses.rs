//! `cargo bench -p spreadlab-bench --bench analyses`: the what-if analyses on 5,000 nodes in three
//! zones with 10,000 bound pods and a 60-replica GPU Deployment (hard zone spread), the size the
//! playground and the CLI must keep interactive.

use spreadlab_bench::{AnalysisInput, analysis_input};
use spreadlab_engine::analysis::failure::{self, Domain, DomainKind, FailureMode};
use spreadlab_engine::analysis::rollout::{self, Assumptions};
use spreadlab_engine::analysis::{capacity, lint, settle, stalemate, tie_break};
use spreadlab_engine::scheduler::{Detail, Options};
use std::sync::LazyLock;

fn main() {
    divan::main();
}

const NODES: usize = 5_000;
const BACKGROUND: usize = 10_000;
const REPLICAS: usize = 60;

static INPUT: LazyLock<AnalysisInput> =
    LazyLock::new(|| analysis_input(NODES, BACKGROUND, REPLICAS));

fn options() -> Options {
    Options {
        detail: Detail::None,
        ..Options::for_version(spreadlab_bench::release())
    }
}

/// Placing every missing replica and binding it: the start of every analysis.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn settle_cluster(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    bencher
        .with_inputs(|| input.scenario.clone())
        .bench_local_values(|scenario| settle(scenario, &options));
}

/// `whatif --fail zone=zone-0`, unreachable (the slower mode: nodes stay, tainted).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn fail_one_zone(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    let zone = Domain::Zone("zone-0".into());
    bencher.bench_local(|| {
        let report = failure::fail(&settled, &zone, FailureMode::Unreachable, &options);
        assert_eq!(report.workloads[0].lost.len(), REPLICAS / 3);
    });
}

/// `whatif --fail-each zone`: the N+1 verdict over three zones.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn fail_each_zone(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    bencher.bench_local(|| {
        failure::fail_each(&settled, DomainKind::Zone, FailureMode::Removed, &options)
    });
}

/// `whatif --fail-each node`: every node holding a replica (60 failures).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn fail_each_node(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    bencher.bench_local(|| {
        let sweep = failure::fail_each(&settled, DomainKind::Node, FailureMode::Removed, &options);
        assert_eq!(sweep.reports.len(), REPLICAS);
    });
}

/// `capacity --max 200`: 200 more replicas cloned one by one.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn capacity_200_more(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    bencher.bench_local(|| {
        let report = capacity::capacity(&settled, 0, 200, &options);
        assert_eq!(report.additional, 200);
    });
}

/// `rollout`: every replica replaced, 25% surge.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn rollout_60_replicas(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    bencher.bench_local(|| {
        let report = rollout::rollout(&input.scenario, 0, &Assumptions::default(), &options)
            .expect("the Deployment's strategy");
        assert!(report.outcome.completed);
    });
}

/// `risk --runs 20`: twenty seeded tie-break sequences.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn risk_20_runs(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    bencher.bench_local(|| tie_break::tie_break_risk(&input.scenario, 20, &options));
}

/// `lint`: every rule, including the cluster-aware ones (zone loss, rollout surge), on the
/// shared settled scenario.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn lint_all_rules(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    bencher.bench_local(|| lint::lint(&settled, &options));
}

/// `spreadlab lint` end to end after loading: settle once, then every rule (comparable with
/// lint benchmarks of releases where lint settled by itself).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn settle_then_lint(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    bencher
        .with_inputs(|| input.scenario.clone())
        .bench_local_values(|scenario| lint::lint(&settle(scenario, &options), &options));
}

/// `stalemate`: blocking relations and remedies (none here: nothing is Pending), on the shared
/// settled scenario.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn stalemates(bencher: divan::Bencher) {
    let input = &*INPUT;
    let options = options();
    let settled = settle(input.scenario.clone(), &options);
    bencher.bench_local(|| stalemate::stalemates(&settled, &options));
}
