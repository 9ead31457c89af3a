//! Runs every ported upstream test table under `tests/upstream/` and fails on any mismatch.

use spreadlab_conformance::upstream::{Outcome, fixtures_root, run_file, yaml_files};

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
