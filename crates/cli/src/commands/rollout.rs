//! `spreadlab rollout`: each Deployment's or StatefulSet's rollout from the snapshot's revision
//! to the one in the files, step by step.

use std::process::ExitCode;

use spreadlab_engine::analysis::rollout::{self, Assumptions};

use std::fmt::Write;

use spreadlab_engine::analysis::rollout::RolloutReport;

use crate::input::{load_files, named};
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit, release_footer, stated_each,
};
use crate::table::list as zones;

/// Runs `rollout`.
pub fn run(
    files: &[String],
    only: Option<&str>,
    ready_after: u64,
    restart: bool,
    output: Format,
) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let assumptions = Assumptions {
        ready_after_seconds: ready_after,
        ..Assumptions::default()
    };
    let mut scenario = loaded.scenario();
    if restart {
        for workload in &mut scenario.workloads {
            workload.template = rollout::restarted(&workload.template);
        }
    }
    let mut views = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        if !named(only, workload) {
            continue;
        }
        if let Some(report) = rollout::rollout(
            &scenario,
            index,
            &assumptions,
            &crate::input::scheduler_options(),
        ) {
            views.push(report);
        }
    }
    if views.is_empty() {
        eprintln!("error: no Deployment or StatefulSet to roll out");
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    if !emit(output, &stated_each(&views), || {
        render(&views) + &release_footer()
    }) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let stalled = views.iter().any(|v| !v.outcome.completed);
    ExitCode::from(if stalled { EXIT_PENDING } else { EXIT_PLACED })
}

/// Renders `rollout` as text.
fn render(views: &[RolloutReport]) -> String {
    let mut out = String::new();
    for v in views {
        let o = &v.outcome;
        let _ = writeln!(
            out,
            "{}: {} replicas, {} running at older revisions, {} at this template's; {} (maxSurge {}, maxUnavailable {})",
            v.workload,
            v.replicas,
            v.old_pods,
            v.updated_pods,
            o.strategy.describe(),
            o.resolved.0,
            o.resolved.1
        );
        if v.up_to_date {
            let _ = writeln!(
                out,
                "  up to date: every running replica is at this template's revision, nothing to roll out{} (--restart rolls a new revision of it, as `kubectl rollout restart`)",
                if v.updated_pods < v.replicas {
                    "; the steps only scale"
                } else {
                    ""
                }
            );
        }
        if v.simulated_replicas < v.replicas {
            let _ = writeln!(
                out,
                "  simulated with {} replicas: more than could ever fit these nodes, so the rollout cannot complete at {} either (no alternative tried)",
                v.simulated_replicas, v.replicas
            );
        }
        for s in &o.steps {
            let _ = writeln!(
                out,
                "  step {:>3}  t={:>5}s  new {}/{} available ({} Pending, zones {})  old {} running ({} terminating)  available {}",
                s.step,
                s.time,
                s.new.available,
                s.new.replicas,
                s.new.pending,
                zones(&s.new.zones),
                s.old.running,
                s.old.terminating,
                s.available
            );
            for action in &s.actions {
                let _ = writeln!(out, "              {action}");
            }
        }
        if o.completed {
            let _ = writeln!(
                out,
                "  completes; at least {} of {} replicas available throughout",
                o.min_available, v.replicas
            );
        } else {
            let _ = writeln!(
                out,
                "  STALLS at step {}: {}",
                o.stalled_at_step.unwrap_or(0),
                o.reason.as_deref().unwrap_or("")
            );
            if let Some(at) = o.progress_deadline_exceeded_at {
                let _ = writeln!(
                    out,
                    "  the Deployment reports ProgressDeadlineExceeded after {at}s (nothing stops)"
                );
            }
        }
        for s in &o.spread {
            let _ = writeln!(
                out,
                "  end state, spread on {}: {} (skew {} vs maxSkew {}: {})",
                s.topology_key,
                s.domains
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.skew,
                s.max_skew,
                if s.satisfied { "ok" } else { "VIOLATED" }
            );
        }
        if let Some((with_pod_template_hash, m)) = &v.match_label_keys {
            let _ = writeln!(
                out,
                "  {} matchLabelKeys [pod-template-hash]: {}, at least {} available, new pods per zone {}",
                if *with_pod_template_hash {
                    "with"
                } else {
                    "without"
                },
                if m.completed {
                    "completes".to_owned()
                } else {
                    format!("stalls at step {}", m.stalled_at_step.unwrap_or(0))
                },
                m.min_available,
                zones(&m.final_zones())
            );
        }
        for a in &v.alternatives {
            let _ = writeln!(
                out,
                "  alternative: {}: {}; at least {} available",
                a.change,
                if a.outcome.completed {
                    "completes".to_owned()
                } else {
                    format!("stalls at step {}", a.outcome.stalled_at_step.unwrap_or(0))
                },
                a.outcome.min_available
            );
        }
    }
    out
}
