//! `cargo bench -p spreadlab-bench --bench policy`: the admission policy's decision run natively
//! (`spreadlab_policy::decide_payload`, default settings) on the cluster the waPC host test uses:
//! 1,000 nodes / 10,000 pods, and 5,000 nodes / 50,000 pods. The wasm module in the real host is
//! timed by `scripts/test-policy.sh`; this is the guest's own work without the host's list calls.

use spreadlab_bench::policy::admission;

fn main() {
    divan::main();
}

/// Default settings (`rejectPending`) on `nodes` nodes and ten times as many pods.
#[divan::bench(args = [1_000, 5_000], sample_count = 5, sample_size = 1)]
fn decide_default_settings(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = admission(nodes, nodes * 10);
    bencher.bench_local(|| spreadlab_policy::decide_payload(&payload, &cluster));
}

/// The same decision on the cluster loaded once (`spreadlab_policy::Prepared`, what
/// `spreadlab serve` keeps per state of the cluster): only the admitted object is loaded, and
/// its replicas are placed on the shared snapshot and rolled back.
#[divan::bench(args = [1_000, 5_000], sample_count = 50, sample_size = 1)]
fn decide_prepared_default_settings(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = admission(nodes, nodes * 10);
    let prepared = spreadlab_policy::Prepared::new(std::sync::Arc::new(cluster)).expect("readable");
    prepared.warm(spreadlab_engine::KubeVersion::DEFAULT);
    bencher.bench_local(|| spreadlab_policy::decide_payload_prepared(&payload, &prepared));
}
