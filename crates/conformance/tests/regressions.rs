//! The shrunk disagreements under `tests/regressions/` (written by `cargo xtask oracle --shrink`):
//! each `<class>-<seed>.yaml` is a scenario on which spreadlab once disagreed with the real
//! kube-scheduler, and `<class>-<seed>.expected.jsonl` the oracle's output on it.
//!
//! - spreadlab must agree with `expected.jsonl` (see `differential::judge`);
//! - with `SPREADLAB_ORACLE=<oracle binary>`, the oracle is rerun and spreadlab must agree with
//!   its answer too (it may differ from the recording where upstream picks at random: spreadlab
//!   follows such picks, see `differential::judge_following`);
//! - each file is in prepared form (`differential::prepare` changes nothing), so the oracle reads
//!   it exactly as the test does.

use std::path::{Path, PathBuf};

use serde_json::Value;
use spreadlab_conformance::differential::{Oracle, judge_following, prepare, run_spreadlab};
use spreadlab_conformance::scenarios::{json_differences, parse_jsonl};
use spreadlab_conformance::shrink::regressions_root;
use spreadlab_conformance::upstream::yaml_files;

/// Disagreements kept open on purpose: each is a documented gap (ARCHITECTURE.md, "Known gaps").
/// The test checks that they still disagree (so a fix is noticed and the entry removed) and that
/// nothing else does.
const KNOWN_OPEN: &[(&str, &str)] = &[];

fn expected_path(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!("{stem}.expected.jsonl"))
}

#[test]
fn regressions_agree_with_the_oracle() {
    let root = regressions_root();
    let files = if root.is_dir() {
        yaml_files(&root)
    } else {
        Vec::new()
    };
    let oracle = std::env::var_os("SPREADLAB_ORACLE")
        .filter(|v| !v.is_empty())
        .map(|path| Oracle {
            path: PathBuf::from(path),
            args: Vec::new(),
        });
    let mut problems = Vec::new();
    let mut judged = 0;
    let mut oracle_runs = 0;
    for file in &files {
        let name = file.display().to_string();
        let scenario: Value = match std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_saphyr::from_str(&text).map_err(|e| e.to_string()))
        {
            Ok(scenario) => scenario,
            Err(error) => {
                problems.push(format!("{name}: {error}"));
                continue;
            }
        };
        let prepared = match prepare(&scenario) {
            Ok(prepared) => prepared,
            Err(error) => {
                problems.push(format!("{name}: spreadlab rejects it: {error}"));
                continue;
            }
        };
        if prepared.input != scenario {
            problems.push(format!(
                "{name}: not in prepared form: {:?}",
                json_differences("", &scenario, &prepared.input)
            ));
        }
        let decisions = run_spreadlab(&prepared);
        let expected_file = expected_path(file);
        let expected = if expected_file.is_file() {
            match std::fs::read_to_string(&expected_file)
                .map_err(|e| e.to_string())
                .and_then(|text| parse_jsonl(&text))
            {
                Ok(lines) => Some(lines),
                Err(error) => {
                    problems.push(format!("{}: {error}", expected_file.display()));
                    None
                }
            }
        } else {
            None
        };
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let known_open = KNOWN_OPEN.iter().find(|(open, _)| *open == stem);
        if let Some(expected) = &expected {
            judged += 1;
            let (mismatches, _, _) = judge_following(&prepared, &decisions, expected);
            match known_open {
                Some((_, reason)) if mismatches.is_empty() => problems.push(format!(
                    "{name}: now agrees with the oracle; remove it from KNOWN_OPEN ({reason})"
                )),
                Some((_, reason)) => {
                    println!(
                        "known open deviation {name} ({reason}): {} mismatches",
                        mismatches.len()
                    )
                }
                None => problems.extend(
                    mismatches
                        .iter()
                        .map(|m| format!("{name} (recorded oracle output): {m}")),
                ),
            }
        }
        if let Some(oracle) = &oracle
            && known_open.is_none()
        {
            // The oracle's answer may differ from the recording where upstream picks at random
            // (preemption among equal candidates); spreadlab must agree with each answer.
            match oracle.run(&prepared.input) {
                Ok(fresh) => {
                    oracle_runs += 1;
                    let (mismatches, _, _) = judge_following(&prepared, &decisions, &fresh);
                    problems.extend(
                        mismatches
                            .iter()
                            .map(|m| format!("{name} (oracle now): {m}")),
                    );
                }
                Err(error) => problems.push(format!("{name}: {error}")),
            }
        }
    }
    println!(
        "regressions: {} files, {judged} judged against the recorded oracle output{}",
        files.len(),
        if oracle.is_some() {
            format!(", {oracle_runs} against the oracle rerun now")
        } else {
            String::from(" (set SPREADLAB_ORACLE to rerun the oracle)")
        }
    );
    assert!(
        problems.is_empty(),
        "spreadlab disagrees with the real kube-scheduler on {} regression(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
