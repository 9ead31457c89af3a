//! `spreadlab`: the command-line face of the engine. Reads files, calls the engine, prints reports.
//!
//! Exit codes: 0 every replica placed, 1 at least one replica Pending, 2 usage error, 3 input error.

mod report;
mod table;

use std::collections::BTreeMap;
use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use spreadlab_engine::scheduler::{self, Detail, Options};
use spreadlab_k8s::{LoadOptions, Loaded, Source};

use report::{Report, Summary, WorkloadReport};

/// Every replica was placed.
const EXIT_PLACED: u8 = 0;
/// At least one replica stays Pending.
const EXIT_PENDING: u8 = 1;
/// The input could not be read or parsed.
const EXIT_INPUT_ERROR: u8 = 3;

#[derive(Parser)]
#[command(
    name = "spreadlab",
    version,
    about = "Where will my replicas land, and if a pod stays Pending, exactly why (kube-scheduler v1.35 semantics)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Places the workloads' missing replicas on the cluster, one pod after another, as kube-scheduler would.
    Simulate {
        /// Manifests and `kubectl get -o yaml|json` snapshots (YAML or JSON, multi-document); `-` reads stdin.
        #[arg(required = true)]
        files: Vec<String>,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
        /// How much per-node detail to include.
        #[arg(long, value_enum, default_value_t = DetailArg::Pending)]
        detail: DetailArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// A readable table.
    Table,
    /// The JSON report (docs/json-schema.md).
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum DetailArg {
    /// Per-node verdicts and scores for every pod.
    All,
    /// Per-node verdicts for Pending pods only.
    Pending,
    /// Summaries only.
    None,
}

fn read_sources(files: &[String]) -> Result<Vec<Source>, String> {
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        let text = if file == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("-: cannot read stdin: {e}"))?;
            text
        } else {
            std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?
        };
        sources.push(Source {
            name: file.clone(),
            text,
        });
    }
    Ok(sources)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Simulate {
            files,
            output,
            detail,
        } => simulate(&files, output, detail),
    }
}

fn simulate(files: &[String], output: Format, detail: DetailArg) -> ExitCode {
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(EXIT_INPUT_ERROR);
        }
    };
    let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    if !loaded.errors.is_empty() {
        for error in &loaded.errors {
            eprintln!("error: {error}");
        }
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let report = run(&loaded, detail);
    match output {
        Format::Json => match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("error: cannot serialize the report: {error}");
                return ExitCode::from(EXIT_INPUT_ERROR);
            }
        },
        Format::Table => print!("{}", table::render(&report)),
    }
    ExitCode::from(if report.summary.pending > 0 {
        EXIT_PENDING
    } else {
        EXIT_PLACED
    })
}

/// Expands the workloads into the pods their controllers would create, schedules them, and builds the report.
fn run(loaded: &Loaded, detail: DetailArg) -> Report {
    let mut pods = Vec::new();
    let mut owner_of: BTreeMap<String, String> = BTreeMap::new();
    let mut running: Vec<Vec<String>> = Vec::new();
    for workload in &loaded.workloads {
        let key = workload.key();
        running.push(
            workload
                .running_pods(&loaded.cluster)
                .iter()
                .filter_map(|p| p.node_name.clone())
                .collect(),
        );
        for pod in workload.pods_to_create(&loaded.cluster) {
            if workload.kind != spreadlab_k8s::WorkloadKind::Pod {
                owner_of.insert(pod.key(), key.clone());
            }
            pods.push(pod);
        }
    }
    let options = Options {
        detail: match detail {
            DetailArg::All => Detail::All,
            DetailArg::Pending => Detail::PendingOnly,
            DetailArg::None => Detail::None,
        },
        ..Options::default()
    };
    let simulation = scheduler::simulate(&loaded.cluster, &pods, &options);
    let snapshot = &simulation.snapshot;
    let pod_reports: Vec<_> = simulation
        .decisions
        .iter()
        .map(|d| {
            report::pod_view(
                d,
                owner_of
                    .get(&format!("{}/{}", d.namespace, d.name))
                    .cloned(),
            )
        })
        .collect();
    let workloads = loaded
        .workloads
        .iter()
        .zip(running)
        .map(|(workload, running_nodes)| {
            let key = workload.key();
            let mine: Vec<_> = pod_reports
                .iter()
                .filter(|p| {
                    p.workload.as_deref() == Some(key.as_str())
                        || (p.workload.is_none()
                            && workload.kind == spreadlab_k8s::WorkloadKind::Pod
                            && p.name == workload.name
                            && p.namespace == workload.namespace)
                })
                .collect();
            let mut per_zone = BTreeMap::new();
            let mut per_node = BTreeMap::new();
            let placed_nodes = mine.iter().filter_map(|p| p.node.clone());
            for node in running_nodes.iter().cloned().chain(placed_nodes) {
                *per_zone
                    .entry(report::zone_of(snapshot, &node))
                    .or_insert(0) += 1;
                *per_node.entry(node).or_insert(0) += 1;
            }
            WorkloadReport {
                workload: key,
                desired: workload.replicas,
                running: running_nodes.len(),
                created: mine.len(),
                placed: mine.iter().filter(|p| p.node.is_some()).count(),
                pending: mine.iter().filter(|p| p.node.is_none()).count(),
                per_zone,
                per_node,
            }
        })
        .collect();
    let placed = pod_reports.iter().filter(|p| p.node.is_some()).count();
    Report {
        schema_version: report::SCHEMA_VERSION,
        kubernetes_version: "v1.35",
        nodes: snapshot.num_nodes(),
        real_scheduler_samples: simulation
            .decisions
            .first()
            .and_then(|d| d.real_scheduler_samples),
        summary: Summary {
            pods: pod_reports.len(),
            placed,
            pending: pod_reports.len() - placed,
        },
        workloads,
        pods: pod_reports,
        warnings: loaded.warnings.iter().map(|w| w.to_string()).collect(),
    }
}
