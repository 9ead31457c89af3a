//! Writes `tests/scenarios/<name>/oracle-input.yaml` for every seed scenario (or only the folders
//! given as arguments): the scenario as the Go oracle reads it, built by
//! [`spreadlab_conformance::scenarios::oracle_input`]. `scripts/record-scenarios.sh` then runs the
//! oracle on each file and stores its output as `expected.jsonl`.
//!
//! Usage: `record-scenarios [--check] [SCENARIO_DIR...]`; `--check` writes nothing and fails when
//! a file is missing or differs.

use std::path::PathBuf;
use std::process::ExitCode;

use spreadlab_conformance::scenarios::{
    load_scenario, oracle_input, render_oracle_input, scenario_dirs,
};

fn main() -> ExitCode {
    let mut check = false;
    let mut dirs = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("usage: record-scenarios [--check] [SCENARIO_DIR...]");
                return ExitCode::SUCCESS;
            }
            _ => dirs.push(PathBuf::from(arg)),
        }
    }
    if dirs.is_empty() {
        dirs = scenario_dirs();
    }
    let mut failed = false;
    for dir in &dirs {
        let path = dir.join("oracle-input.yaml");
        let text = match load_scenario(dir).and_then(|s| oracle_input(&s).map(|v| (s, v))) {
            Ok((scenario, input)) => {
                println!(
                    "{}: {} pods to schedule",
                    scenario.name,
                    scenario.pods.len()
                );
                render_oracle_input(&input)
            }
            Err(error) => {
                eprintln!("error: {error}");
                failed = true;
                continue;
            }
        };
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                eprintln!("error: {} is missing or stale", path.display());
                failed = true;
            }
        } else if let Err(error) = std::fs::write(&path, text) {
            eprintln!("error: {}: {error}", path.display());
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
