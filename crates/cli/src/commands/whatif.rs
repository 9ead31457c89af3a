//! `spreadlab whatif`: fail a zone or a node (removed or unreachable), or each in turn, on the
//! settled scenario.

use std::process::ExitCode;

use spreadlab_engine::analysis::settle;
use spreadlab_engine::scheduler::Options;

use crate::analyses;
use crate::input::load_files;
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, EXIT_USAGE, Format, emit};
use crate::{DomainKindArg, ModeArg};

/// Runs `whatif`.
pub fn run(
    files: &[String],
    domains: &[spreadlab_engine::analysis::failure::Domain],
    kinds: &[DomainKindArg],
    mode: ModeArg,
    output: Format,
) -> ExitCode {
    use spreadlab_engine::analysis::failure::{self, DomainKind, FailureMode};
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
    let options = Options::default();
    let settled = settle(loaded.scenario(), &options);
    let modes: &[FailureMode] = match mode {
        ModeArg::Removed => &[FailureMode::Removed],
        ModeArg::Unreachable => &[FailureMode::Unreachable],
        ModeArg::Both => &[FailureMode::Removed, FailureMode::Unreachable],
    };
    let mut view = analyses::WhatIfView {
        schema_version: 1,
        failures: Vec::new(),
        sweeps: Vec::new(),
    };
    let mut degraded = false;
    for domain in domains {
        for &mode in modes {
            let report = failure::fail(&settled, domain, mode, &options);
            degraded |= report.workloads.iter().any(|w| w.running_after < w.desired);
            view.failures.push(analyses::failure_view(&report));
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
            view.sweeps.push(analyses::sweep_view(&sweep));
        }
    }
    if !emit(output, &view, || analyses::render_whatif(&view)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(if degraded { EXIT_PENDING } else { EXIT_PLACED })
}
