//! Times serde-saphyr on a YAML file: events only (IgnoredAny), and into a `serde_json::Value`.
//! `cargo run --release -p spreadlab-k8s --example parse_probe -- FILE`

use serde::Deserialize;

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(path).expect("readable");
    let options = || {
        serde_saphyr::options! {
            budget: serde_saphyr::budget! {
                max_events: usize::MAX / 2,
                max_nodes: usize::MAX / 2,
                max_total_scalar_bytes: usize::MAX / 2,
            },
        }
    };
    let start = std::time::Instant::now();
    let _: serde::de::IgnoredAny =
        serde_saphyr::with_deserializer_from_str_with_options(&text, options(), |de| {
            serde::de::IgnoredAny::deserialize(de)
        })
        .expect("parses");
    println!("events only: {:?}", start.elapsed());
    let start = std::time::Instant::now();
    let value: serde_json::Value =
        serde_saphyr::with_deserializer_from_str_with_options(&text, options(), |de| {
            serde_json::Value::deserialize(de)
        })
        .expect("parses");
    println!("into Value: {:?}", start.elapsed());
    let start = std::time::Instant::now();
    drop(value);
    println!("drop Value: {:?}", start.elapsed());
}
