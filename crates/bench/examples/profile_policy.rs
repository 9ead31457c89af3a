//! Runs the admission decision on the benchmark cluster a few times, for profilers:
//! `cargo run --release -p spreadlab-bench --example profile_policy -- 1000 10000`.

use spreadlab_bench::policy::admission;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let pods: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let (cluster, payload) = admission(nodes, pods);
    for _ in 0..5 {
        let start = std::time::Instant::now();
        let decision = spreadlab_policy::decide_payload(&payload, &cluster);
        println!(
            "{nodes} nodes / {pods} pods: {} in {:?}",
            matches!(decision, spreadlab_policy::Decision::Accept { .. }),
            start.elapsed()
        );
    }
}
