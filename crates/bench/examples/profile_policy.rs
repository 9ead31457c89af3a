//! Runs the admission decision on the benchmark cluster a few times, for profilers, read afresh
//! answered as the Kubewarden host answers the module (`answered`: JSON bytes pruned to the field
//! masks, read as the module reads them), and on a prepared cluster (`spreadlab serve`'s way):
//! `cargo run --release -p spreadlab-bench --example profile_policy -- 1000 10000
//! [fixture|answered|prepared [namespaces]]` (20 namespaces unless given; `every` as a fifth
//! argument: the settings of every cluster check, as the waPC host's timing test sets them).

use std::sync::Arc;
use std::time::Instant;

use spreadlab_bench::policy::admission_in;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let pods: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let namespaces: usize = args.get(4).and_then(|n| n.parse().ok()).unwrap_or(20);
    let (cluster, mut payload) = admission_in(nodes, pods, namespaces);
    if args.get(5).map(String::as_str) == Some("every") {
        payload = spreadlab_bench::policy::every_check(&payload);
    }
    if args.get(3).map(String::as_str) == Some("prepared") {
        let start = Instant::now();
        let prepared = spreadlab_policy::Prepared::new(Arc::new(cluster)).expect("readable");
        prepared.warm(spreadlab_engine::KubeVersion::DEFAULT);
        println!(
            "{nodes} nodes / {pods} pods prepared in {:?}",
            start.elapsed()
        );
        let mut times = Vec::new();
        for _ in 0..200 {
            let start = Instant::now();
            let decision = spreadlab_policy::decide_payload_prepared(&payload, &prepared);
            times.push(start.elapsed());
            assert!(matches!(
                decision,
                spreadlab_policy::Decision::Accept { .. }
            ));
        }
        times.sort();
        println!(
            "decision on the prepared cluster: p50 {:?}, p99 {:?}, max {:?}",
            times[times.len() / 2],
            times[times.len() * 99 / 100],
            times[times.len() - 1]
        );
        return;
    }
    let answered = (args.get(3).map(String::as_str) == Some("answered"))
        .then(|| spreadlab_policy::snapshot::AnsweredCluster::new(&cluster));
    let source: &dyn spreadlab_policy::ClusterSource = match &answered {
        Some(answered) => answered,
        None => &cluster,
    };
    for _ in 0..5 {
        let start = Instant::now();
        let decision = spreadlab_policy::decide_payload(&payload, source);
        println!(
            "{nodes} nodes / {pods} pods: {} in {:?}",
            matches!(decision, spreadlab_policy::Decision::Accept { .. }),
            start.elapsed()
        );
    }
}
