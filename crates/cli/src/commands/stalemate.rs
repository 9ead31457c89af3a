//! `spreadlab stalemate`: workloads of the settled scenario whose Pending replicas hold each
//! other back, and verified remedies.

use std::process::ExitCode;

use spreadlab_engine::analysis::{settle, stalemate};
use spreadlab_engine::scheduler::Options;

use crate::analyses;
use crate::input::load_files;
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit};

/// Runs `stalemate`.
pub fn run(files: &[String], output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let options = Options::default();
    let settled = settle(loaded.scenario(), &options);
    let report = stalemate::stalemates(&settled, &options);
    let view = analyses::stalemate_view(&report);
    if !emit(output, &view, || analyses::render_stalemate(&view)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(if view.stalemates.is_empty() {
        EXIT_PLACED
    } else {
        EXIT_PENDING
    })
}
