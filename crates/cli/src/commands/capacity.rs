//! `spreadlab capacity`: how many more replicas of each workload fit on the settled scenario,
//! and whether its HorizontalPodAutoscaler's maxReplicas is reachable.

use std::process::ExitCode;

use spreadlab_engine::analysis::{capacity, settle};
use spreadlab_engine::scheduler::Options;

use crate::analyses;
use crate::input::{load_files, named};
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit};

/// Runs `capacity`.
pub fn run(files: &[String], only: Option<&str>, max: usize, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let options = Options::default();
    let settled = settle(loaded.scenario(), &options);
    let mut views = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        if !named(only, workload) {
            continue;
        }
        let report = capacity::capacity(&settled, index, max, &options);
        views.push(analyses::capacity_view(&report));
    }
    if views.is_empty() {
        eprintln!("error: no workload to measure");
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    if !emit(output, &views, || analyses::render_capacity(&views)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let short = views.iter().any(|v| v.reaches_hpa_max == Some(false));
    ExitCode::from(if short { EXIT_PENDING } else { EXIT_PLACED })
}
