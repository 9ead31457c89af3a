//! `spreadlab risk`: the scenario placed under many seeded tie-break sequences (each run is a
//! placement of its own).

use std::process::ExitCode;

use spreadlab_engine::analysis::tie_break;
use spreadlab_engine::scheduler::Options;

use crate::analyses;
use crate::input::{load_files, named};
use crate::output::{EXIT_INPUT_ERROR, EXIT_PLACED, EXIT_USAGE, Format, emit};

/// Runs `risk`.
pub fn run(files: &[String], runs: usize, only: Option<&str>, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let keep: Vec<bool> = loaded.workloads.iter().map(|w| named(only, w)).collect();
    if let Some(name) = only
        && !keep.contains(&true)
    {
        let known: Vec<String> = loaded.workloads.iter().map(|w| w.key()).collect();
        eprintln!(
            "error: --workload {name}: no such workload; known: {}",
            if known.is_empty() {
                String::from("none")
            } else {
                known.join(", ")
            }
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let reports = tie_break::tie_break_risk(&loaded.scenario(), runs, &Options::default());
    let views: Vec<_> = reports
        .iter()
        .zip(&keep)
        .filter(|(_, keep)| **keep)
        .map(|(report, _)| analyses::risk_view(report))
        .collect();
    if !emit(output, &views, || analyses::render_risk(&views)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(EXIT_PLACED)
}
