//! Runs every ported upstream test table under `tests/upstream/` and fails on any mismatch.

use spreadlab_conformance::upstream::{
    Outcome, fixtures_root, run_file, run_file_for, tables_for, yaml_files,
};
use spreadlab_engine::KubeVersion;

#[test]
fn upstream_tables_pass() {
    let root = fixtures_root().join("upstream");
    let files = yaml_files(&root);
    assert!(!files.is_empty(), "no fixtures under {}", root.display());
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    for file in &files {
        for result in run_file(file, &root) {
            match result.outcome {
                Outcome::Passed => passed += 1,
                Outcome::Skipped(_) => skipped += 1,
                Outcome::Failed(problems) => failures.push(format!(
                    "{} :: {}\n    {}",
                    result.file,
                    result.name,
                    problems.join("\n    ")
                )),
            }
        }
    }
    println!(
        "upstream tables: {} files, {passed} cases passed, {skipped} skipped, {} failed",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every other supported release: its tables (the base tables with that release's overrides from
/// `tests/upstream-overrides/`, `upstream::tables_for`) with the engine's semantics of that
/// release. The Go oracle checks the same tables against the real plugins of each release
/// (`tests/oracle/test.sh <release>`).
#[test]
fn upstream_tables_pass_for_every_release() {
    let root = fixtures_root();
    let mut failures = Vec::new();
    for version in KubeVersion::ALL {
        let tables = tables_for(version);
        assert!(!tables.is_empty(), "no tables for {version}");
        let (mut passed, mut skipped) = (0, 0);
        for (path, _) in &tables {
            for result in run_file_for(path, &root, version) {
                match result.outcome {
                    Outcome::Passed => passed += 1,
                    Outcome::Skipped(_) => skipped += 1,
                    Outcome::Failed(problems) => failures.push(format!(
                        "{version}: {} :: {}\n    {}",
                        result.file,
                        result.name,
                        problems.join("\n    ")
                    )),
                }
            }
        }
        println!(
            "upstream tables for {version}: {} files, {passed} cases passed, {skipped} skipped",
            tables.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
