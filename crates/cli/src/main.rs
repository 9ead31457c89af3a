//! `spreadlab`: the command-line face of the engine. Reads files, calls the engine, prints reports.
//!
//! Exit codes: 0 every replica placed (`whatif`: every workload back to its desired replicas after
//! every failure; `capacity`: every HPA maxReplicas reachable), 1 otherwise, 2 usage error, 3
//! input error.

mod analyses;
mod report;
mod serve;
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
    /// Fails a zone or a node (removed, or unreachable), reschedules the lost replicas and says
    /// which workloads survive, which PodDisruptionBudgets a drain would violate, and where the
    /// spread ends up when the domain comes back.
    Whatif {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required = true)]
        files: Vec<String>,
        /// A failure: `zone=<value>` or `node=<name>` (repeatable).
        #[arg(long = "fail", value_parser = parse_domain)]
        fail: Vec<spreadlab_engine::analysis::failure::Domain>,
        /// Fail every zone, or every node holding a replica, one at a time, and give the N+1 verdict.
        #[arg(long = "fail-each", value_enum)]
        fail_each: Vec<DomainKindArg>,
        /// How the nodes fail: deleted (`removed`), `unreachable` (tainted, pods evicted), or `both`.
        #[arg(long, value_enum, default_value_t = ModeArg::Both)]
        mode: ModeArg,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// How many more replicas of each workload fit (its own spread and affinity included), where,
    /// and what stops the next one; whether a HorizontalPodAutoscaler's maxReplicas is reachable.
    Capacity {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required = true)]
        files: Vec<String>,
        /// Only this workload (`Kind/namespace/name` or its name).
        #[arg(long)]
        workload: Option<String>,
        /// Stop counting after this many extra replicas.
        #[arg(long, default_value_t = 10_000)]
        max: usize,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// Rolls the snapshot's pods of each Deployment or StatefulSet (the current revision) to the
    /// one in the files (the new revision), step by step: completes or stalls, and why.
    Rollout {
        /// Snapshot and the new Deployment(s).
        #[arg(required = true)]
        files: Vec<String>,
        /// Only this Deployment (`Deployment/namespace/name` or its name).
        #[arg(long)]
        workload: Option<String>,
        /// Seconds from scheduling to Ready assumed for new pods.
        #[arg(long, default_value_t = 10)]
        ready_after: u64,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// Checks the workloads' placement rules, statically and against the cluster (rule IDs and
    /// fixes: `spreadlab lint --rules`).
    Lint {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required_unless_present = "rules")]
        files: Vec<String>,
        /// List the rules with their explanation and fix, and exit.
        #[arg(long)]
        rules: bool,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = LintFormat::Table)]
        output: LintFormat,
    },
    /// Finds workloads whose Pending replicas are held back by each other, and what would break
    /// the cycle (one more node in a zone, one relaxed constraint), each verified.
    Stalemate {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required = true)]
        files: Vec<String>,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// The real scheduler picks at random among equally scored nodes: places the workloads under
    /// many seeded tie-break sequences and reports how concentrated the replicas can end up.
    Risk {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required = true)]
        files: Vec<String>,
        /// Seeded runs.
        #[arg(long, default_value_t = 100)]
        runs: usize,
        /// Only report this workload (`Kind/namespace/name` or its name); every workload is
        /// still placed, as they compete for the same nodes.
        #[arg(long)]
        workload: Option<String>,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// The what-if service for Gatekeeper (external data) and Kyverno (apiCall): HTTPS (TLS 1.3)
    /// answers with the Kubewarden policy's decision on a cluster snapshot, re-read when it changes.
    Serve {
        /// Snapshot files (`kubectl get nodes,pods,namespaces,priorityclasses,services,poddisruptionbudgets -A -o yaml`).
        #[arg(long, required = true)]
        snapshot: Vec<std::path::PathBuf>,
        /// PEM certificate chain of the server.
        #[arg(long)]
        cert: std::path::PathBuf,
        /// PEM private key of the server.
        #[arg(long)]
        key: std::path::PathBuf,
        /// The policy settings (JSON or YAML, as for the Kubewarden policy; see crates/policy/README.md).
        #[arg(long)]
        settings: Option<std::path::PathBuf>,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8443")]
        listen: std::net::SocketAddr,
        /// Largest request body in bytes.
        #[arg(long, default_value_t = 1024 * 1024)]
        max_body: usize,
        /// Socket read/write timeout in seconds.
        #[arg(long, default_value_t = 5)]
        timeout: u64,
        /// Whole-request deadline in seconds (TLS handshake, head and body; 408 past it).
        #[arg(long, default_value_t = 10.0)]
        request_timeout: f64,
        /// Longest decision in seconds (an error answer past it; Gatekeeper's Provider
        /// timeout and Kubewarden's budget are 2-3 s).
        #[arg(long, default_value_t = 2.5)]
        eval_timeout: f64,
        /// Connections handled at once (503 past it).
        #[arg(long, default_value_t = 32)]
        max_connections: usize,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DomainKindArg {
    /// Every zone.
    Zone,
    /// Every node holding a replica.
    Node,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    /// Nodes deleted with their pods.
    Removed,
    /// Nodes NotReady, tainted unreachable, pods evicted.
    Unreachable,
    /// Both, one after the other.
    Both,
}

fn parse_domain(text: &str) -> Result<spreadlab_engine::analysis::failure::Domain, String> {
    use spreadlab_engine::analysis::failure::Domain;
    match text.split_once('=') {
        Some(("zone", value)) if !value.is_empty() => Ok(Domain::Zone(value.to_owned())),
        Some(("node", value)) if !value.is_empty() => Ok(Domain::Node(value.to_owned())),
        _ => Err(format!("`{text}`: expected zone=<value> or node=<name>")),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LintFormat {
    /// A readable list.
    Table,
    /// JSON (docs/json-schema.md).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
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
        Command::Whatif {
            files,
            fail,
            fail_each,
            mode,
            output,
        } => whatif(&files, &fail, &fail_each, mode, output),
        Command::Capacity {
            files,
            workload,
            max,
            output,
        } => capacity(&files, workload.as_deref(), max, output),
        Command::Rollout {
            files,
            workload,
            ready_after,
            output,
        } => rollout(&files, workload.as_deref(), ready_after, output),
        Command::Lint {
            files,
            rules,
            output,
        } => lint(&files, rules, output),
        Command::Stalemate { files, output } => stalemate(&files, output),
        Command::Risk {
            files,
            runs,
            workload,
            output,
        } => risk(&files, runs, workload.as_deref(), output),
        Command::Serve {
            snapshot,
            cert,
            key,
            settings,
            listen,
            max_body,
            timeout,
            request_timeout,
            eval_timeout,
            max_connections,
        } => {
            let seconds = |name: &str, value: f64| {
                std::time::Duration::try_from_secs_f64(value)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| format!("--{name}: {value} is not a positive number of seconds"))
            };
            let timeouts = seconds("request-timeout", request_timeout)
                .and_then(|r| Ok((r, seconds("eval-timeout", eval_timeout)?)));
            let (request_timeout, eval_timeout) = match timeouts {
                Ok(timeouts) => timeouts,
                Err(error) => {
                    eprintln!("error: {error}");
                    return ExitCode::from(EXIT_INPUT_ERROR);
                }
            };
            let config = serve::Config {
                listen,
                cert,
                key,
                snapshot,
                settings,
                max_body,
                timeout: std::time::Duration::from_secs(timeout),
                request_timeout,
                eval_timeout,
                max_connections,
            };
            match serve::run(&config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(EXIT_INPUT_ERROR)
                }
            }
        }
    }
}

/// Reads and loads the files; prints warnings; `Err` (already printed) on any input error.
fn load_files(files: &[String]) -> Result<Loaded, ExitCode> {
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return Err(ExitCode::from(EXIT_INPUT_ERROR));
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
        return Err(ExitCode::from(EXIT_INPUT_ERROR));
    }
    Ok(loaded)
}

/// Prints `view` as JSON or `table`.
fn emit<T: serde::Serialize>(output: Format, view: &T, table: impl FnOnce() -> String) -> bool {
    match output {
        Format::Json => match serde_json::to_string_pretty(view) {
            Ok(json) => println!("{json}"),
            Err(error) => {
                eprintln!("error: cannot serialize the report: {error}");
                return false;
            }
        },
        Format::Table => print!("{}", table()),
    }
    true
}

fn analysis_workloads(loaded: &Loaded) -> Vec<spreadlab_engine::analysis::Workload> {
    loaded
        .workloads
        .iter()
        .map(|w| w.for_analysis(&loaded.cluster))
        .collect()
}

fn whatif(
    files: &[String],
    domains: &[spreadlab_engine::analysis::failure::Domain],
    kinds: &[DomainKindArg],
    mode: ModeArg,
    output: Format,
) -> ExitCode {
    use spreadlab_engine::analysis::failure::{self, DomainKind, FailureMode};
    if domains.is_empty() && kinds.is_empty() {
        eprintln!("error: give --fail zone=<value>|node=<name> or --fail-each zone|node");
        return ExitCode::from(2);
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
            return ExitCode::from(2);
        }
    }
    let workloads = analysis_workloads(&loaded);
    let options = Options::default();
    let settled = spreadlab_engine::analysis::settle(&loaded.cluster, &workloads, &options);
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
            let report = failure::fail(&settled, &workloads, domain, mode, &options);
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
            let sweep = failure::fail_each(&settled, &workloads, kind, mode, &options);
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

fn capacity(files: &[String], only: Option<&str>, max: usize, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let workloads = analysis_workloads(&loaded);
    let options = Options::default();
    let settled = spreadlab_engine::analysis::settle(&loaded.cluster, &workloads, &options);
    let mut views = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        if only.is_some_and(|o| o != workload.key() && o != workload.name) {
            continue;
        }
        let hpa = loaded
            .hpa_for(workload)
            .map(|h| usize::try_from(h.max_replicas).unwrap_or(0));
        let report = spreadlab_engine::analysis::capacity::capacity(
            &settled, &workloads, index, max, hpa, &options,
        );
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

fn rollout(files: &[String], only: Option<&str>, ready_after: u64, output: Format) -> ExitCode {
    use spreadlab_engine::analysis::rollout::{self, Assumptions};
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let assumptions = Assumptions {
        ready_after_seconds: ready_after,
        ..Assumptions::default()
    };
    let mut views = Vec::new();
    for workload in &loaded.workloads {
        let Some(spec) = &workload.rollout else {
            continue;
        };
        if only.is_some_and(|o| o != workload.key() && o != workload.name) {
            continue;
        }
        let analysed = workload.for_analysis(&loaded.cluster);
        let report = rollout::rollout(
            &loaded.cluster,
            &analysed,
            spec,
            &assumptions,
            &Options::default(),
        );
        views.push(analyses::rollout_view(&report));
    }
    if views.is_empty() {
        eprintln!("error: no Deployment or StatefulSet to roll out");
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    if !emit(output, &views, || analyses::render_rollout(&views)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let stalled = views.iter().any(|v| !v.outcome.completed);
    ExitCode::from(if stalled { EXIT_PENDING } else { EXIT_PLACED })
}

fn lint(files: &[String], list_rules: bool, output: LintFormat) -> ExitCode {
    use spreadlab_engine::analysis::lint::{self, RULES};
    if list_rules {
        for rule in RULES {
            println!(
                "{} ({})\n  {}\n  {}\n  fix: {}\n",
                rule.id,
                rule.severity.as_str(),
                rule.title,
                rule.explanation,
                rule.fix
            );
        }
        return ExitCode::from(EXIT_PLACED);
    }
    let sources = match read_sources(files) {
        Ok(sources) => sources,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(EXIT_INPUT_ERROR);
        }
    };
    // The API server's validation errors are findings here; the other objects are still checked.
    let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    let validation = lint::rule("kubernetes-validation").map_or("", |r| r.fix);
    let mut views: Vec<analyses::FindingView> = loaded
        .errors
        .iter()
        .map(|e| analyses::FindingView {
            rule: "kubernetes-validation".into(),
            severity: "error",
            workload: e.object.clone(),
            file: Some(e.file.clone()),
            line: e.line,
            column: e.column,
            path: e.path.clone(),
            message: e.message.clone(),
            fix: validation,
        })
        .collect();
    let workloads = analysis_workloads(&loaded);
    let deployments: Vec<_> = loaded.workloads.iter().map(|w| w.rollout.clone()).collect();
    let findings = lint::lint(
        &loaded.cluster,
        &workloads,
        &deployments,
        &Options::default(),
    );
    for finding in findings {
        let origin = loaded
            .workloads
            .iter()
            .find(|w| w.key() == finding.workload)
            .map(|w| w.origin.file.clone());
        views.push(analyses::FindingView {
            rule: finding.rule.into(),
            severity: finding.severity.as_str(),
            workload: Some(finding.workload),
            file: origin,
            line: None,
            column: None,
            path: finding.path,
            message: finding.message,
            fix: lint::rule(finding.rule).map_or("", |r| r.fix),
        });
    }
    let printed = match output {
        LintFormat::Table => {
            print!("{}", analyses::render_lint(&views));
            true
        }
        LintFormat::Json => emit(Format::Json, &views, String::new),
        LintFormat::Sarif => emit(Format::Json, &analyses::sarif(&views), String::new),
    };
    if !printed {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let errors = views.iter().any(|v| v.severity == "error");
    ExitCode::from(if errors { EXIT_PENDING } else { EXIT_PLACED })
}

fn stalemate(files: &[String], output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let workloads = analysis_workloads(&loaded);
    let report = spreadlab_engine::analysis::stalemate::stalemates(
        &loaded.cluster,
        &workloads,
        &Options::default(),
    );
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

fn risk(files: &[String], runs: usize, only: Option<&str>, output: Format) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let keep: Vec<bool> = loaded
        .workloads
        .iter()
        .map(|w| only.is_none_or(|o| o == w.key() || o == w.name))
        .collect();
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
        return ExitCode::from(2);
    }
    let workloads = analysis_workloads(&loaded);
    let reports = spreadlab_engine::analysis::tie_break::tie_break_risk(
        &loaded.cluster,
        &workloads,
        runs,
        &Options::default(),
    );
    let views: Vec<_> = reports
        .iter()
        .zip(&keep)
        .filter(|(_, keep)| **keep)
        .map(|(report, _)| analyses::risk_view(report))
        .collect();
    if !emit(output, &views, || analyses::render_risk(&views)) {
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    ExitCode::from(EXIT_PLACED)
}

fn simulate(files: &[String], output: Format, detail: DetailArg) -> ExitCode {
    let loaded = match load_files(files) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
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
