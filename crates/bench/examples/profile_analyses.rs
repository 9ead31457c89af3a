//! Runs one analysis on the analyses' 5,000-node input, for profilers:
//! `cargo run --release -p spreadlab-bench --example profile_analyses -- fail-each-node [runs]`
//! (also `fail-each-zone`, `lint`, `settle`).

use spreadlab_bench::analysis_input;
use spreadlab_engine::analysis::failure::{self, DomainKind, FailureMode};
use spreadlab_engine::analysis::{lint, settle};
use spreadlab_engine::scheduler::{Detail, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("fail-each-node", String::as_str);
    let runs: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let options = Options {
        detail: Detail::None,
        ..Options::default()
    };
    let input = analysis_input(5_000, 10_000, 60);
    let settled = settle(input.scenario.clone(), &options);
    let start = std::time::Instant::now();
    for _ in 0..runs {
        match what {
            "fail-each-zone" => {
                failure::fail_each(&settled, DomainKind::Zone, FailureMode::Removed, &options);
            }
            "lint" => {
                lint::lint(&settled, &options);
            }
            "settle" => {
                settle(input.scenario.clone(), &options);
            }
            _ => {
                failure::fail_each(&settled, DomainKind::Node, FailureMode::Removed, &options);
            }
        }
    }
    println!("{what}: {:?} per run", start.elapsed() / runs as u32);
}
