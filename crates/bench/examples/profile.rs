//! Runs one benchmark shape, for profilers: `cargo run --release -p spreadlab-bench --example profile -- spread 1000 [runs] [percentage]`
//! (`heterogeneous` for the heterogeneous cluster of `cargo xtask perf`, `claims` for its hard
//! spread where every replica has its own zonal WaitForFirstConsumer claim, `attached` for that
//! row on nodes with attach limits and VolumeAttachments)
//! (with runs, the fastest is printed; a percentage sets `percentageOfNodesToScore`, 100 as
//! `cargo xtask perf` and the oracle's timing mode run it).

use spreadlab_bench::load;
use spreadlab_conformance::synthetic::Shape;
use spreadlab_engine::scheduler::{Detail, Options, simulate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shape = args.get(1).map_or("spread", String::as_str);
    let n: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let shape_kind = Shape::parse(shape).unwrap_or(Shape::Spread);
    let (cluster, pods) = if shape == "heterogeneous" {
        // `cargo xtask perf`'s heterogeneous row: 20,000 bound pods, 3 sizes, some taints.
        let scenario = spreadlab_conformance::synthetic::heterogeneous(5_000, 20_000, n);
        let prepared = spreadlab_conformance::differential::prepare(&scenario)
            .expect("the synthetic scenario loads");
        (prepared.cluster, prepared.pods)
    } else if shape == "claims" || shape == "attached" {
        // `cargo xtask perf`'s claims row: each replica provisions its own zonal disk.
        let mut scenario = spreadlab_conformance::synthetic::scenario(Shape::Spread, 5_000, n);
        spreadlab_conformance::synthetic::with_claims(&mut scenario);
        let mut prepared = spreadlab_conformance::differential::prepare(&scenario)
            .expect("the synthetic scenario loads");
        if shape == "attached" {
            spreadlab_bench::with_attach_limits(&mut prepared.cluster, 2);
        }
        (prepared.cluster, prepared.pods)
    } else {
        load(shape_kind, 5_000, n)
    };
    let mut options = Options {
        detail: Detail::None,
        ..Options::default()
    };
    options.profile.percentage_of_nodes_to_score = args.get(4).and_then(|p| p.parse().ok());
    let runs: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let mut elapsed = std::time::Duration::MAX;
    let mut simulation = simulate(&cluster, &pods, &options);
    for _ in 1..runs {
        let start = std::time::Instant::now();
        simulation = simulate(&cluster, &pods, &options);
        elapsed = elapsed.min(start.elapsed());
    }
    if runs == 1 {
        let start = std::time::Instant::now();
        simulation = simulate(&cluster, &pods, &options);
        elapsed = start.elapsed();
    }
    let placed = simulation
        .decisions
        .iter()
        .filter(|d| d.node.is_some())
        .count();
    println!(
        "{shape}: {n} pods on 5000 nodes in {elapsed:?} ({:.0} pods/s, fastest of {runs}), {placed} placed",
        n as f64 / elapsed.as_secs_f64()
    );
}
