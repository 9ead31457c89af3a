//! `spreadlab risk`: the scenario placed under many seeded tie-break sequences (each run is a
//! placement of its own).

use std::process::ExitCode;

use spreadlab_engine::analysis::tie_break;

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::input::{load_files, named};
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PLACED, EXIT_USAGE, Format, emit, release_footer, stated_each,
};
use spreadlab_engine::analysis::tie_break::RiskReport;

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
    let reports =
        tie_break::tie_break_risk(&loaded.scenario(), runs, &crate::input::scheduler_options());
    let views: Vec<_> = reports
        .iter()
        .zip(&keep)
        .filter(|(_, keep)| **keep)
        .map(|(report, _)| report)
        .collect();
    if !emit(output, &stated_each(&views), || {
        render(&views) + &release_footer()
    }) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(EXIT_PLACED)
}

/// Renders `risk` as text.
fn render(views: &[&RiskReport]) -> String {
    let mut out = String::new();
    let dist = |m: &BTreeMap<usize, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} in {v} runs"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for v in views {
        let _ = writeln!(
            out,
            "{}: {} replicas, {} seeded tie-break runs",
            v.workload, v.desired, v.runs
        );
        let _ = writeln!(out, "  busiest node holds: {}", dist(&v.max_per_node));
        let _ = writeln!(out, "  busiest zone holds: {}", dist(&v.max_per_zone));
        let _ = writeln!(
            out,
            "  losing one node takes out more than half the replicas in {:.1}% of runs; one zone in {:.1}%",
            v.share_of_runs(v.node_loss_over_half),
            v.share_of_runs(v.zone_loss_over_half)
        );
        if v.runs_with_pending > 0 {
            let _ = writeln!(
                out,
                "  some replica stays Pending in {} runs",
                v.runs_with_pending
            );
        }
    }
    out.push_str(
        "note: the real scheduler also scores only a sample of the feasible nodes when the cluster has 100 nodes or more; that adds variation not counted here\n",
    );
    out
}
