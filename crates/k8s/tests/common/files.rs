//! The inputs the reader is checked against: every YAML file of tests/corpus (public, sources in
//! tests/corpus/SOURCES.md) and tests/scenarios, in a stable order, and a generated big List.
//! Shared by the integration tests (`common`) and the crate's unit tests (`src/lib.rs` includes
//! this file).

use std::path::{Path, PathBuf};

/// Every `.yaml` / `.yml` file of tests/corpus, then of tests/scenarios, sorted by path.
pub fn corpus_and_scenario_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    yaml_files(&root.join("tests/corpus"), &mut files);
    yaml_files(&root.join("tests/scenarios"), &mut files);
    files
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// A `kubectl get -o yaml` List big enough to be read item by item: `pods` pods.
pub fn pod_list(pods: usize) -> String {
    let mut text = String::from("apiVersion: v1\nitems:\n");
    for i in 0..pods {
        text.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    annotations:\n      note: \"{}\"\n    labels:\n      app: web\n    name: web-{i}\n    namespace: default\n  spec:\n    containers:\n    - image: registry.example/web:1\n      name: web\n      resources:\n        requests:\n          cpu: 100m\n    nodeName: n{}\n",
            "x".repeat(300),
            i % 3
        ));
    }
    text.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    text
}
