//! Prints every failure sweep on a few inputs (Debug), to compare two builds of the engine.

use spreadlab_bench::analysis_input;
use spreadlab_engine::analysis::failure::{self, DomainKind, FailureMode};
use spreadlab_engine::analysis::settle;
use spreadlab_engine::scheduler::{Detail, Options};

fn main() {
    let options = Options {
        detail: Detail::None,
        ..Options::default()
    };
    for (nodes, background, replicas) in [(30, 100, 12), (200, 2_000, 40), (60, 600, 70)] {
        let input = analysis_input(nodes, background, replicas);
        let settled = settle(input.scenario.clone(), &options);
        for kind in [DomainKind::Zone, DomainKind::Node] {
            for mode in [FailureMode::Removed, FailureMode::Unreachable] {
                let sweep = failure::fail_each(&settled, kind, mode, &options);
                println!("{nodes}/{background}/{replicas} {kind:?} {mode:?}\n{sweep:#?}");
            }
        }
    }
}
