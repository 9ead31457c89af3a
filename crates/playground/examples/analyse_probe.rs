//! Times the playground's analysis of a file natively, phase by phase, and after edits as the
//! playground makes them (a comment typed, the first `replicas:` lowered by one or two):
//! `cargo run --release -p spreadlab-playground --example analyse_probe -- FILE [ROUNDS]`.

use spreadlab_engine::KubeVersion;
use spreadlab_engine::analysis::settle;
use spreadlab_engine::scheduler::{Detail, Options};
use spreadlab_k8s::{DocumentCache, LoadOptions, Source};
use spreadlab_playground::model::{analyse, analyse_after};

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let rounds: usize = std::env::args()
        .nth(2)
        .map_or(3, |r| r.parse().expect("a number of rounds"));
    let text = std::fs::read_to_string(path).expect("readable");
    for _ in 0..rounds {
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
        let analysis = analyse(&text);
        let whole = start.elapsed();
        println!(
            "load {load:?}, settle {settle_time:?}; analyse {whole:?} ({} nodes)",
            analysis.node_count
        );
    }
    let version = KubeVersion::DEFAULT;
    let mut cache = DocumentCache::new();
    let mut previous = analyse_after(&text, version, None, &mut cache);
    let at = text.find("replicas: ").expect("a replicas field") + "replicas: ".len();
    let digits = text[at..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len() - at);
    let count: u64 = text[at..at + digits].parse().expect("a replica count");
    for round in 0..rounds {
        let fewer = count.saturating_sub(1 + (round as u64 % 2));
        let replicas = format!("{}{fewer}{}", &text[..at], &text[at + digits..]);
        let start = std::time::Instant::now();
        let after = analyse_after(&replicas, version, Some(&previous), &mut cache);
        let changed = start.elapsed();
        let commented = format!("{replicas}\n# {round}\n");
        let start = std::time::Instant::now();
        let next = analyse_after(&commented, version, Some(&after), &mut cache);
        let comment = start.elapsed();
        // Freed outside the timing, as the playground frees it after drawing.
        previous = next;
        println!("after an edit: replicas changed {changed:?}, then a comment {comment:?}");
    }
}
