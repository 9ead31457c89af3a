//! House rules checked as a test (after rust-analyzer's `tidy`): every Rust file starts with a `//!`
//! line, the engine stays free of I/O-side dependencies, and every plugin folder is registered.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("../..")
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

/// The faces: the command line, the admission policy and the playground.
const FACES: [&str; 3] = [
    "crates/cli/src",
    "crates/policy/src",
    "crates/playground/src",
];

/// The Rust files below `dir` (relative to the repository), with their text.
fn sources(dir: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&repo().join(dir), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let name = f
                .strip_prefix(repo())
                .unwrap_or(&f)
                .display()
                .to_string()
                .replace("crates/../", "");
            (name, text)
        })
        .collect()
}

/// The text of `source` before its trailing `#[cfg(test)]` module (unit tests do not count).
fn non_test(source: &str) -> &str {
    source
        .rfind("\n#[cfg(test)]\nmod ")
        .map_or(source, |at| &source[..at])
}

/// Faces adapt the engine's answers; they never run scheduler plugins or the framework's
/// extension-point runner themselves (ARCHITECTURE.md: "thin adapters").
#[test]
fn faces_never_call_plugins_or_the_framework_runner() {
    let forbidden = [
        "spreadlab_engine::plugins",
        "run_pre_filter",
        "run_filter",
        "run_score",
        "framework::runtime",
    ];
    let mut found = Vec::new();
    for face in FACES {
        for (file, text) in sources(face) {
            for word in forbidden {
                if non_test(&text).contains(word) {
                    found.push(format!("{file}: {word}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "faces must ask spreadlab_engine::scheduler or ::analysis, not plugins or the runner \
         (move the logic into the engine and call it from there): {found:?}"
    );
}

/// Kubernetes API types (k8s-openapi) are converted in `spreadlab-k8s` only: the engine never
/// sees them and the faces hand text or JSON to the loader (ARCHITECTURE.md: "the one door").
#[test]
fn only_the_k8s_crate_converts_kubernetes_api_types() {
    let mut found = Vec::new();
    for dir in ["crates/engine/src"].into_iter().chain(FACES) {
        for (file, text) in sources(dir) {
            if text.contains("k8s_openapi") {
                found.push(file);
            }
        }
    }
    assert!(
        found.is_empty(),
        "only crates/k8s may use k8s_openapi types (add a conversion there and pass the engine \
         model): {found:?}"
    );
}

/// The playground's components render and dispatch: every number they show comes from the
/// engine through the view-model (`model.rs`, `whatif.rs`), so no component calls an engine
/// function that schedules or analyses.
#[test]
fn ui_components_compute_no_scheduling_logic() {
    let computing = [
        "simulate(",
        "settle(",
        "schedule_one(",
        "schedule_and_bind(",
        "fail(",
        "fail_each(",
        "capacity::capacity(",
        "lint::lint(",
        "lint::lint_rules(",
        "rollout::rollout(",
        "tie_break_risk(",
        "stalemates(",
        "spreadlab_k8s::load",
    ];
    let mut found = Vec::new();
    for (file, text) in sources("crates/playground/src/components") {
        for call in computing {
            if non_test(&text).contains(call) {
                found.push(format!("{file}: {call}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "components must take results from the view-model (crates/playground/src/model.rs, \
         whatif.rs), not call the engine: {found:?}"
    );
}

/// No non-test source file over 600 lines (unit tests at the end of a file do not count; a
/// file's `tests/` and benches do not either).
#[test]
fn no_source_file_over_600_lines() {
    const LIMIT: usize = 600;
    let mut problems = Vec::new();
    let mut dirs: Vec<String> = std::fs::read_dir(repo().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| format!("crates/{}/src", e.file_name().to_string_lossy()))
        .collect();
    dirs.push("xtask/src".into());
    dirs.sort();
    for dir in dirs {
        if !repo().join(&dir).is_dir() {
            continue;
        }
        for (file, text) in sources(&dir) {
            if file.ends_with("/tests.rs") || file.contains("/testing") {
                continue;
            }
            let lines = non_test(&text).lines().count();
            if lines > LIMIT {
                problems.push(format!(
                    "{file}: {lines} non-test lines (limit {LIMIT}): split it by what it holds"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// `spreadlab serve` links the policy's decision core, not the Kubewarden SDK (the waPC adapter
/// is the policy's default feature `kubewarden`).
#[test]
fn serve_links_the_policy_core_without_the_kubewarden_sdk() {
    let cli = std::fs::read_to_string(repo().join("crates/cli/Cargo.toml")).unwrap();
    let policy = cli
        .lines()
        .find(|l| l.starts_with("spreadlab-policy"))
        .expect("crates/cli depends on spreadlab-policy");
    assert!(
        policy.contains("default-features = false"),
        "crates/cli must depend on spreadlab-policy with default-features = false: {policy}"
    );
    assert!(!cli.contains("kubewarden-policy-sdk"));
}

/// The framework reaches plugins only through the in-tree registry (`plugins/registry.rs`), and
/// its configuration types come from `config`: a new plugin touches its folder and the registry.
#[test]
fn the_framework_reaches_plugins_only_through_the_registry() {
    let mut found = Vec::new();
    for (file, text) in sources("crates/engine/src/framework") {
        for line in non_test(&text).lines() {
            let line = line.trim();
            if line.starts_with("//") {
                continue;
            }
            if line.contains("crate::plugins::") && !line.contains("crate::plugins::registry") {
                found.push(format!("{file}: {line}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "framework/ must not name a plugin module; dispatch through plugins/registry.rs and take \
         args from crate::config: {found:?}"
    );
    let registry =
        std::fs::read_to_string(repo().join("crates/engine/src/plugins/registry.rs")).unwrap();
    for entry in std::fs::read_dir(repo().join("crates/engine/src/plugins"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().to_string();
        // Shared helpers and the PostFilter plugin (run by the scheduler after Filter) aside.
        if entry.path().is_dir() && name != "helper" && name != "default_preemption" {
            assert!(
                registry.contains(&format!("{name}::")),
                "plugins/{name} is not dispatched by plugins/registry.rs"
            );
        }
    }
}

/// Components never import the root component (`app.rs` imports them): what they share with it
/// lives in `handles.rs`, `state.rs`, the view-models and `browser.rs`.
#[test]
fn components_do_not_import_the_root_component() {
    let found: Vec<String> = sources("crates/playground/src/components")
        .into_iter()
        .filter(|(_, text)| text.contains("crate::app"))
        .map(|(file, _)| file)
        .collect();
    assert!(
        found.is_empty(),
        "playground components import crate::app (a cycle): move what they need to handles.rs, \
         state.rs or a view-model: {found:?}"
    );
}
