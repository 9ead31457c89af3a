//! `spreadlab whatif`: fail a zone or a node (removed or unreachable), or each in turn, on the
//! settled scenario.

use std::process::ExitCode;

use spreadlab_engine::analysis::settle;

use std::fmt::Write;

use serde::Serialize;
use spreadlab_engine::analysis::failure::{Domain, FailureMode, FailureReport, Sweep};
use spreadlab_engine::analysis::percent;

use crate::input::load_files;
use crate::output::{
    EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, EXIT_USAGE, Format, emit, release_footer, stated,
};
use crate::table::list as zones;
use crate::{DomainKindArg, ModeArg};

/// Runs `whatif`.
pub fn run(
    files: &[String],
    domains: &[spreadlab_engine::analysis::failure::Domain],
    kinds: &[DomainKindArg],
    mode: ModeArg,
    output: Format,
) -> ExitCode {
    use spreadlab_engine::analysis::failure::{self, DomainKind};
    if domains.is_empty() && kinds.is_empty() {
        eprintln!("error: give --fail zone=<value>|node=<name> or --fail-each zone|node");
        return ExitCode::from(EXIT_USAGE);
    }
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    for domain in domains {
        if let Err(known) = failure::check_domain(&loaded.cluster, domain) {
            let (what, shown) = match domain {
                failure::Domain::Zone(_) => ("zones", known.len()),
                failure::Domain::Node(_) => ("nodes", known.len().min(20)),
            };
            let mut list = known[..shown].join(", ");
            if shown < known.len() {
                list.push_str(&format!(", ... ({} more)", known.len() - shown));
            }
            if list.is_empty() {
                list.push_str("none");
            }
            eprintln!(
                "error: --fail {}: the snapshot has no such {}; known {what}: {list}",
                domain.describe(),
                match domain {
                    failure::Domain::Zone(_) => "zone",
                    failure::Domain::Node(_) => "node",
                }
            );
            return ExitCode::from(EXIT_USAGE);
        }
    }
    let options = crate::input::scheduler_options();
    let settled = settle(loaded.scenario(), &options);
    let modes: &[FailureMode] = match mode {
        ModeArg::Removed => &[FailureMode::Removed],
        ModeArg::Unreachable => &[FailureMode::Unreachable],
        ModeArg::Both => &[FailureMode::Removed, FailureMode::Unreachable],
    };
    let mut view = WhatIf {
        schema_version: 1,
        failures: Vec::new(),
        sweeps: Vec::new(),
    };
    let mut degraded = false;
    for domain in domains {
        for &mode in modes {
            let report = failure::fail(&settled, domain, mode, &options);
            degraded |= report.workloads.iter().any(|w| w.running_after < w.desired);
            view.failures.push(report);
        }
    }
    for &kind in kinds {
        for &mode in modes {
            let kind = match kind {
                DomainKindArg::Zone => DomainKind::Zone,
                DomainKindArg::Node => DomainKind::Node,
            };
            let sweep = failure::fail_each(&settled, kind, mode, &options);
            degraded |= sweep
                .survival
                .iter()
                .any(|s| s.min_running_after < s.desired);
            view.sweeps.push(sweep);
        }
    }
    if !emit(output, &stated(&view), || render(&view) + &release_footer()) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(if degraded { EXIT_PENDING } else { EXIT_PLACED })
}

fn render_failure(out: &mut String, failure: &FailureReport, indent: &str) {
    let domain = failure.domain.describe();
    let _ = writeln!(
        out,
        "{indent}{} {} ({} nodes, {} pods gone)",
        domain,
        failure.mode.as_str(),
        failure.failed_nodes.len(),
        failure.pods_gone
    );
    for (index, w) in failure.workloads.iter().enumerate() {
        let after_zones = failure
            .recovery
            .zones
            .get(index)
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{indent}  {}: {} of {} desired lost; {} still running ({}%); after rescheduling {} ({}%)",
            w.workload,
            w.lost.len(),
            w.desired,
            w.surviving,
            percent(w.surviving, w.desired),
            w.running_after,
            percent(w.running_after, w.desired)
        );
        let _ = writeln!(
            out,
            "{indent}    zones before: {}; after: {}; after the {} is back: {}",
            zones(&w.zones_before),
            zones(&w.zones_after),
            if matches!(failure.domain, Domain::Zone(_)) {
                "zone"
            } else {
                "node"
            },
            zones(&after_zones)
        );
        for r in &w.replacements {
            match (&r.node, &r.message) {
                (Some(node), _) => {
                    let _ = writeln!(
                        out,
                        "{indent}    replacement for {} -> {node} ({})",
                        r.replaces,
                        r.zone.as_deref().unwrap_or("-")
                    );
                }
                (None, message) => {
                    let _ = writeln!(
                        out,
                        "{indent}    replacement for {}{} stays Pending: {}",
                        r.replaces,
                        if r.was_pending {
                            " (already Pending)"
                        } else {
                            ""
                        },
                        message.as_deref().unwrap_or("")
                    );
                }
            }
        }
        for (replaces, node) in failure.recovery.placed.get(index).into_iter().flatten() {
            let _ = writeln!(
                out,
                "{indent}    once the domain is back: replacement for {replaces} -> {node}"
            );
        }
    }
    for note in &failure.notes {
        let _ = writeln!(out, "{indent}  note: {note}");
    }
    for p in &failure.pdbs {
        let _ = writeln!(
            out,
            "{indent}  PodDisruptionBudget {}: {} of {} expected must stay healthy, {} healthy, {} disruption(s) allowed",
            p.pdb,
            p.budget.desired_healthy,
            p.budget.expected_pods,
            p.budget.current_healthy,
            p.disruptions_allowed
        );
        let _ = writeln!(
            out,
            "{indent}    a failure of {} leaves {} healthy, the budget needs {}{}; {} once replacements are scheduled",
            domain,
            p.healthy_after_failure,
            p.budget.desired_healthy,
            if p.violated {
                format!(" ({} short)", p.shortfall)
            } else {
                String::new()
            },
            p.healthy_after_replacements
        );
        let pending = if p.drain.pending_replacements.is_empty() {
            String::from(if p.drain.blocks() {
                ": the budget allows no more disruptions"
            } else {
                ""
            })
        } else {
            format!(
                ": {} replacement(s) Pending: {}",
                p.drain.pending_replacements.len(),
                p.drain.message.as_deref().unwrap_or("")
            )
        };
        let _ = writeln!(
            out,
            "{indent}    draining {} {} after {} eviction(s){pending}",
            domain,
            if p.drain.blocks() {
                "blocks"
            } else {
                "finishes"
            },
            p.drain.evictions
        );
    }
}

/// Renders `whatif` as text.
fn render(view: &WhatIf) -> String {
    let mut out = String::new();
    for failure in &view.failures {
        render_failure(&mut out, failure, "");
        out.push('\n');
    }
    for sweep in &view.sweeps {
        let _ = writeln!(
            out,
            "losing any one {} ({} nodes):",
            sweep.kind.as_str(),
            if sweep.mode == FailureMode::Removed {
                "removed"
            } else {
                "unreachable"
            }
        );
        for s in &sweep.survival {
            // "Survives" only when every desired replica runs again after each loss; otherwise
            // the worst case says how short it falls (and the exit code is 1).
            let verdict = if s.min_running_after >= s.desired {
                "survives"
            } else {
                "does NOT survive"
            };
            let _ = writeln!(
                out,
                "  {}: {verdict} the loss of any one {}: at least {} of {} replicas ({}%) run after rescheduling (worst: {}, {} running; {} right after the failure)",
                s.workload,
                sweep.kind.as_str(),
                s.min_running_after,
                s.desired,
                s.percent_after(),
                s.worst
                    .as_ref()
                    .map_or_else(|| String::from("-"), Domain::describe),
                s.min_running_after,
                s.min_surviving
            );
        }
        for failure in &sweep.reports {
            render_failure(&mut out, failure, "  ");
        }
        out.push('\n');
    }
    out
}

/// The `whatif` JSON document (docs/json-schema.md): the engine's reports, in the order asked.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WhatIf {
    /// Version of this document's shape.
    schema_version: u32,
    /// One entry per failure asked for (`--fail`), in order.
    failures: Vec<FailureReport>,
    /// One entry per sweep asked for (`--fail-each`).
    sweeps: Vec<Sweep>,
}
