//! `spreadlab simulate`: the settled scenario as a report, grouped per workload and per pod.

use std::collections::BTreeMap;
use std::process::ExitCode;

use spreadlab_engine::analysis::{Settled, settle};
use spreadlab_engine::scheduler::{Detail, Options};
use spreadlab_k8s::{Loaded, WorkloadKind};

use crate::DetailArg;
use crate::input::load_files;
use crate::output::{EXIT_INPUT_ERROR, EXIT_PENDING, EXIT_PLACED, Format, emit};
use crate::report::{self, Report, Summary, WorkloadReport};
use crate::table;

/// Runs `simulate`.
pub fn run(files: &[String], output: Format, detail: DetailArg) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let options = Options {
        detail: match detail {
            DetailArg::All => Detail::All,
            DetailArg::Pending => Detail::PendingOnly,
            DetailArg::None => Detail::None,
        },
        ..crate::input::scheduler_options()
    };
    let settled = settle(loaded.scenario(), &options);
    let report = build(&loaded, &settled);
    if !emit(output, &report, || table::render(&report)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(if report.summary.pending > 0 {
        EXIT_PENDING
    } else {
        EXIT_PLACED
    })
}

/// The report of the settled scenario: per pod in scheduling order, per workload its replicas
/// (running and placed) per zone and node.
fn build<'a>(loaded: &Loaded, settled: &'a Settled) -> Report<'a> {
    let simulation = &settled.simulation;
    let snapshot = &simulation.snapshot;
    let pods: Vec<_> = simulation
        .decisions
        .iter()
        .zip(&settled.owners)
        .map(|(decision, &owner)| {
            let workload = &loaded.workloads[owner];
            // A bare Pod is its own workload: its report names none.
            let key = (workload.kind != WorkloadKind::Pod).then(|| workload.key());
            report::pod_view(decision, key)
        })
        .collect();
    let node_of: BTreeMap<String, &str> = settled
        .cluster
        .pods
        .iter()
        .filter_map(|p| p.node_name.as_deref().map(|node| (p.key(), node)))
        .collect();
    let mut created = vec![0usize; loaded.workloads.len()];
    let mut placed = vec![0usize; loaded.workloads.len()];
    for (decision, &owner) in simulation.decisions.iter().zip(&settled.owners) {
        created[owner] += 1;
        placed[owner] += usize::from(decision.node.is_some());
    }
    let not_built: Vec<usize> = settled.workloads().iter().map(|w| w.not_built).collect();
    let workloads = loaded
        .workloads
        .iter()
        .enumerate()
        .map(|(index, workload)| {
            let mut per_zone = BTreeMap::new();
            let mut per_node = BTreeMap::new();
            for node in settled.members[index].iter().filter_map(|k| node_of.get(k)) {
                *per_zone.entry(report::zone_of(snapshot, node)).or_insert(0) += 1;
                *per_node.entry((*node).to_owned()).or_insert(0) += 1;
            }
            WorkloadReport {
                workload: workload.key(),
                desired: workload.replicas,
                running: settled.members[index].len() - placed[index],
                created: created[index] + not_built[index],
                placed: placed[index],
                pending: created[index] + not_built[index] - placed[index],
                not_built: not_built[index],
                pending_like: (not_built[index] > 0)
                    .then(|| {
                        settled.pending[index]
                            .last()
                            .map(|(pod, _)| pod.name.clone())
                    })
                    .flatten(),
                adopted: workload
                    .running_pods(&loaded.cluster)
                    .iter()
                    .filter(|pod| pod.owner.is_none())
                    .count(),
                revision: report::RevisionReport::of(workload),
                per_zone,
                per_node,
            }
        })
        .collect();
    let placed = pods.iter().filter(|p| p.node.is_some()).count();
    Report {
        schema_version: report::SCHEMA_VERSION,
        kubernetes_version: format!("v{}", crate::input::kubernetes_version()),
        nodes: snapshot.num_nodes(),
        real_scheduler_samples: simulation
            .decisions
            .first()
            .and_then(|d| d.real_scheduler_samples),
        summary: Summary {
            pods: pods.len() + not_built.iter().sum::<usize>(),
            placed,
            pending: pods.len() + not_built.iter().sum::<usize>() - placed,
        },
        workloads,
        pods,
        warnings: loaded.warnings.iter().map(|w| w.to_string()).collect(),
    }
}
