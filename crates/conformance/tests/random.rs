//! The fixed CI sample of the random differential run (`cargo xtask oracle` runs any range):
//! with `SPREADLAB_ORACLE=<oracle binary>`, the generator's scenarios for seeds
//! `0..SPREADLAB_RANDOM_SEEDS` (default 400) are scheduled by spreadlab and by the real
//! kube-scheduler (batches of 25 per oracle process), and every pod must agree: chosen node,
//! top-scored set, FitError message, preemption (nominated node, victims), per-node filter
//! verdicts and per-plugin scores. Without the oracle the test says it did not run.

use spreadlab_conformance::differential::{Oracle, check_batch, stamp_version};
use spreadlab_conformance::generate;

#[test]
fn random_scenarios_agree_with_the_oracle() {
    let Some(path) = std::env::var_os("SPREADLAB_ORACLE").filter(|v| !v.is_empty()) else {
        println!(
            "NOT RUN: random_scenarios_agree_with_the_oracle needs SPREADLAB_ORACLE=<path to the tests/oracle binary>"
        );
        return;
    };
    let oracle = Oracle {
        path: path.into(),
        args: Vec::new(),
    };
    let seeds: u64 = std::env::var("SPREADLAB_RANDOM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let seeds: Vec<u64> = (0..seeds).collect();
    // The release the oracle binary runs: every scenario is stamped for it, and spreadlab
    // schedules it with that release's semantics.
    let version = oracle.version().expect("the oracle's -version");
    let (mut pods, mut verdicts, mut scores, mut followed) = (0, 0, 0, 0);
    let mut problems = Vec::new();
    let chunks: Vec<Vec<u64>> = seeds.chunks(25).map(<[u64]>::to_vec).collect();
    // Two workers: the oracle is the slow side and runs one process per batch.
    let results: Vec<_> = std::thread::scope(|scope| {
        let (left, right) = chunks.split_at(chunks.len() / 2);
        let oracle = &oracle;
        let run = move |part: &[Vec<u64>]| {
            part.iter()
                .flat_map(|chunk| {
                    let scenarios: Vec<_> = chunk
                        .iter()
                        .map(|&s| {
                            let mut scenario = generate::scenario(s);
                            stamp_version(&mut scenario, version);
                            scenario
                        })
                        .collect();
                    chunk
                        .iter()
                        .copied()
                        .zip(check_batch(&scenarios, oracle, 2))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let handle = scope.spawn(move || run(left));
        let mut out = run(right);
        out.extend(handle.join().expect("worker"));
        out
    });
    for (seed, outcome) in &results {
        pods += outcome.coverage.pods;
        verdicts += outcome.coverage.filter_verdicts;
        scores += outcome.coverage.scores;
        followed += outcome.followed;
        for mismatch in &outcome.mismatches {
            problems.push(format!("seed {seed}: {mismatch}"));
        }
    }
    println!(
        "random (Kubernetes {version}): {} scenarios, {pods} pods, {verdicts} filter verdicts, {scores} scores compared; \
         {followed} random preemption picks followed; {} mismatches",
        results.len(),
        problems.len()
    );
    assert!(pods > 0, "no pod was compared");
    assert!(
        problems.is_empty(),
        "spreadlab disagrees with the real kube-scheduler (reproduce and shrink with `cargo xtask oracle --seeds A..B --shrink`):\n{}",
        problems.join("\n")
    );
}
