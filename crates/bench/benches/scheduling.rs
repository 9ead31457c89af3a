//! `cargo bench -p spreadlab-bench`: whole simulations on upstream scheduler_perf shapes.
//! Pods per second = pods / reported time. Upstream's CI floors for these shapes are 460 pods/s
//! (topology spreading) and 60 pods/s (required anti-affinity).

use spreadlab_bench::{load, load_with_claims};
use spreadlab_conformance::synthetic::Shape;
use spreadlab_engine::scheduler::{Detail, Options, simulate};

fn main() {
    divan::main();
}

fn options() -> Options {
    Options {
        detail: Detail::None,
        ..Options::for_version(spreadlab_bench::release())
    }
}

/// 5,000 nodes in 3 zones, 10,000 pods with hard zone spread.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn spread_5000_nodes_10000_pods(bencher: divan::Bencher) {
    let (cluster, pods) = load(Shape::Spread, 5_000, 10_000);
    let options = options();
    bencher.bench_local(|| {
        let simulation = simulate(&cluster, &pods, &options);
        assert!(simulation.decisions.iter().all(|d| d.node.is_some()));
    });
}

/// 5,000 nodes in 3 zones, 2,000 StatefulSet-like replicas with hard zone spread, each with its
/// own zonal `WaitForFirstConsumer` claim (provisioned in the zone it lands in).
#[divan::bench(sample_count = 3, sample_size = 1)]
fn spread_with_claims_5000_nodes_2000_pods(bencher: divan::Bencher) {
    let (cluster, pods) = load_with_claims(Shape::Spread, 5_000, 2_000);
    let options = options();
    bencher.bench_local(|| {
        let simulation = simulate(&cluster, &pods, &options);
        assert!(simulation.decisions.iter().all(|d| d.node.is_some()));
    });
}

/// The claims above on EKS-like nodes: every CSINode driver attaches at most 25 volumes and each
/// node has 2 VolumeAttachments (`spreadlab_bench::with_attach_limits`), so NodeVolumeLimits
/// counts every node's attached volumes for every pod; 1,000 replicas.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn spread_with_claims_attach_limits_5000_nodes_1000_pods(bencher: divan::Bencher) {
    let (mut cluster, pods) = load_with_claims(Shape::Spread, 5_000, 1_000);
    spreadlab_bench::with_attach_limits(&mut cluster, 2);
    let options = options();
    bencher.bench_local(|| {
        let simulation = simulate(&cluster, &pods, &options);
        assert!(simulation.decisions.iter().all(|d| d.node.is_some()));
    });
}

/// 5,000 nodes, 2,000 pods with required hostname anti-affinity.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn anti_affinity_5000_nodes_2000_pods(bencher: divan::Bencher) {
    let (cluster, pods) = load(Shape::AntiAffinity, 5_000, 2_000);
    let options = options();
    bencher.bench_local(|| {
        let simulation = simulate(&cluster, &pods, &options);
        assert!(simulation.decisions.iter().all(|d| d.node.is_some()));
    });
}
