//! House rules checked as a test (after rust-analyzer's `tidy`): every Rust file starts with a `//!`
//! line, the engine stays free of I/O-side dependencies, and every plugin folder is registered.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    assert!(files.len() > 20);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! line: {missing:?}"
    );
}

#[test]
fn engine_has_no_io_side_dependencies() {
    let manifest = std::fs::read_to_string(repo().join("crates/engine/Cargo.toml")).unwrap();
    for forbidden in ["serde_json", "k8s-openapi", "wasm-bindgen", "kube-core"] {
        let in_dependencies = manifest
            .split("[dependencies]")
            .nth(1)
            .is_some_and(|deps| deps.split("\n[").next().unwrap_or("").contains(forbidden));
        assert!(
            !in_dependencies,
            "crates/engine must not depend on {forbidden}"
        );
    }
    let lib = std::fs::read_to_string(repo().join("crates/engine/src/lib.rs")).unwrap();
    assert!(lib.contains("#![no_std]"));
}

#[test]
fn every_plugin_folder_is_registered() {
    let plugins = repo().join("crates/engine/src/plugins");
    let registry = std::fs::read_to_string(plugins.join("mod.rs")).unwrap();
    for entry in std::fs::read_dir(&plugins).unwrap().flatten() {
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().to_string();
            assert!(
                registry.contains(&format!("pub mod {name};")),
                "plugins/{name} is not in plugins/mod.rs"
            );
            assert!(
                entry.path().join("mod.rs").exists(),
                "plugins/{name} has no mod.rs"
            );
        }
    }
}
