//! `spreadlab rollout`: each Deployment's or StatefulSet's rollout from the snapshot's revision
//! to the one in the files, step by step.

use std::process::ExitCode;

use spreadlab_engine::analysis::rollout::{self, Assumptions};
use spreadlab_engine::scheduler::Options;

use crate::analyses;
use crate::input::{load_files, named};
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit};

/// Runs `rollout`.
pub fn run(files: &[String], only: Option<&str>, ready_after: u64, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let assumptions = Assumptions {
        ready_after_seconds: ready_after,
        ..Assumptions::default()
    };
    let scenario = loaded.scenario();
    let mut views = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        if !named(only, workload) {
            continue;
        }
        if let Some(report) = rollout::rollout(&scenario, index, &assumptions, &Options::default())
        {
            views.push(analyses::rollout_view(&report));
        }
    }
    if views.is_empty() {
        eprintln!("error: no Deployment or StatefulSet to roll out");
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    if !emit(output, &views, || analyses::render_rollout(&views)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let stalled = views.iter().any(|v| !v.outcome.completed);
    ExitCode::from(if stalled { EXIT_PENDING } else { EXIT_PLACED })
}
