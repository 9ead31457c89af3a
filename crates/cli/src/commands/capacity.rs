//! `spreadlab capacity`: how many more replicas of each workload fit on the settled scenario,
//! and whether its HorizontalPodAutoscaler's maxReplicas is reachable.

use std::process::ExitCode;

use spreadlab_engine::analysis::{capacity, settle};

use std::fmt::Write;

use spreadlab_engine::analysis::capacity::{CapacityReport, Limit};

use crate::input::{load_files, named};
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit, release_footer, stated_each,
};
use crate::table::list as zones;

/// Runs `capacity`.
pub fn run(files: &[String], only: Option<&str>, max: usize, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let options = crate::input::scheduler_options();
    let settled = settle(loaded.scenario(), &options);
    let mut views = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        if !named(only, workload) {
            continue;
        }
        let report = capacity::capacity(&settled, index, max, &options);
        views.push(report);
    }
    if views.is_empty() {
        eprintln!("error: no workload to measure");
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    if !emit(output, &stated_each(&views), || {
        render(&views) + &release_footer()
    }) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let short = views.iter().any(|v| v.reaches_hpa_max() == Some(false));
    ExitCode::from(if short { EXIT_PENDING } else { EXIT_PLACED })
}

/// Renders `capacity` as text.
fn render(views: &[CapacityReport]) -> String {
    let mut out = String::new();
    for v in views {
        let _ = writeln!(
            out,
            "{}: {} desired, {} running{}; {}{} more fit ({})",
            v.workload,
            v.desired,
            v.running,
            if v.pending > 0 {
                format!(", {} Pending", v.pending)
            } else {
                String::new()
            },
            if v.bounded { "at least " } else { "" },
            v.additional,
            zones(&v.per_zone)
        );
        if v.bounded {
            let _ = writeln!(
                out,
                "  the search stopped at its limit of {} replicas (--max, and at most {} pods in one simulation)",
                v.search_limit,
                spreadlab_engine::analysis::bound::MAX_SIMULATED_PODS
            );
        }
        if let Some(limit) = v.limit.map(Limit::as_str) {
            let _ = writeln!(
                out,
                "  limited by {limit} ({})",
                v.rejections_by_name()
                    .iter()
                    .map(|(p, n)| format!("{p} rejects {n} nodes"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(message) = &v.message {
            let _ = writeln!(out, "  next replica: {message}");
        }
        if v.would_preempt {
            let _ = writeln!(
                out,
                "  (the real scheduler would place it by preempting lower-priority pods)"
            );
        }
        if let Some(max) = v.hpa_max_replicas
            && v.search_stopped_before_hpa_max()
        {
            let _ = writeln!(
                out,
                "  HorizontalPodAutoscaler maxReplicas {max}: not decided: the search limit was reached at {} replicas",
                v.running + v.additional
            );
        }
        if let (Some(max), Some(reaches)) = (v.hpa_max_replicas, v.reaches_hpa_max()) {
            let _ = writeln!(
                out,
                "  HorizontalPodAutoscaler maxReplicas {max}: {}",
                if reaches {
                    "reachable".to_owned()
                } else {
                    format!(
                        "NOT reachable (at most {} replicas)",
                        v.running + v.additional
                    )
                }
            );
        }
    }
    out
}
