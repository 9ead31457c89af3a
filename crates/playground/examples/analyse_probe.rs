//! Times the playground's analysis of a file natively, phase by phase:
//! `cargo run --release -p spreadlab-playground --example analyse_probe -- FILE`.

use spreadlab_engine::analysis::settle;
use spreadlab_engine::scheduler::{Detail, Options};
use spreadlab_k8s::{LoadOptions, Source};

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(path).expect("readable");
    for _ in 0..3 {
        let start = std::time::Instant::now();
        let sources = [Source {
            name: "scenario.yaml".into(),
            text: text.clone(),
        }];
        let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
        let load = start.elapsed();
        let options = Options {
            detail: Detail::PendingOnly,
            ..Options::default()
        };
        let settled = settle(loaded.scenario(), &options);
        let settle_time = start.elapsed() - load;
        drop(settled);
        let start = std::time::Instant::now();
        let analysis = spreadlab_playground::model::analyse(&text);
        let whole = start.elapsed();
        println!(
            "load {load:?}, settle {settle_time:?}; analyse {whole:?} ({} nodes)",
            analysis.node_count
        );
    }
}
