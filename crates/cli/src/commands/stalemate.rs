//! `spreadlab stalemate`: workloads of the settled scenario whose Pending replicas hold each
//! other back, and verified remedies.

use std::process::ExitCode;

use spreadlab_engine::analysis::{settle, stalemate};

use std::fmt::Write;

use crate::input::load_files;
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit, release_footer, stated,
};
use serde::Serialize;
use spreadlab_engine::analysis::stalemate::StalemateReport;

/// Runs `stalemate`.
pub fn run(files: &[String], output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let options = crate::input::scheduler_options();
    let settled = settle(loaded.scenario(), &options);
    let report = stalemate::stalemates(&settled, &options);
    let view = Document {
        schema_version: 1,
        report: &report,
    };
    if !emit(output, &stated(&view), || {
        render(&report) + &release_footer()
    }) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(if report.stalemates.is_empty() {
        EXIT_PLACED
    } else {
        EXIT_PENDING
    })
}

/// Renders `stalemate` as text.
fn render(view: &StalemateReport) -> String {
    let mut out = String::new();
    for b in &view.blocking {
        let _ = writeln!(
            out,
            "{} is held back by {} on {}",
            b.blocked,
            b.by,
            b.nodes
                .iter()
                .map(|(n, p)| format!("{n} ({})", p.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if view.stalemates.is_empty() {
        let _ = writeln!(out, "no stalemate: no workloads block each other");
    }
    for s in &view.stalemates {
        let _ = writeln!(
            out,
            "STALEMATE: {} block each other ({} replicas Pending)",
            s.workloads.join(" <-> "),
            s.pending
        );
        for r in &s.remedies {
            let _ = writeln!(out, "  {}: {} Pending after", r.change, r.pending_after);
        }
        if s.remedies.is_empty() {
            let _ = writeln!(out, "  no single node or relaxed constraint breaks it");
        }
    }
    out
}

/// The `stalemate` JSON document: the engine's report under its schema version.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    /// Version of this document's shape.
    schema_version: u32,
    /// The report's fields.
    #[serde(flatten)]
    report: &'a StalemateReport,
}
