//! `spreadlab`: the command-line face of the engine. Parses the arguments and hands each command
//! to its module in `commands/` (one per command), which loads the files (`input`), asks the
//! engine and prints its reports (`output`, the table renderers).
//!
//! Exit codes: 0 every replica placed (`whatif`: every workload back to its desired replicas after
//! every failure; `capacity`: every HPA maxReplicas reachable), 1 otherwise, 2 usage error, 3
//! input error.

mod commands;
mod input;
mod output;
mod report;

mod table;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use spreadlab_engine::KubeVersion;

use output::{EXIT_INPUT_ERROR, Format};

/// mimalloc instead of the system allocator (see Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "spreadlab",
    version,
    about = "Where will my replicas land, and if a pod stays Pending, exactly why (kube-scheduler 1.34 to 1.37 semantics)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Fields the Kubernetes API does not have (misspelled, wrongly cased, or from a cluster newer
    /// than v1.35), as `kubectl apply --validate` treats them: an input error, a warning, or
    /// dropped.
    #[arg(long, global = true, value_enum, default_value_t = ValidateArg::Strict)]
    validate: ValidateArg,
    /// The scheduler's `percentageOfNodesToScore` (KubeSchedulerConfiguration): on clusters of
    /// 100+ nodes it stops after finding this share of the nodes feasible and scores only those.
    /// 0 is the adaptive default (50% minus 1% per 125 nodes, at least 5%); 100 scores every node.
    #[arg(long, global = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(0..=100))]
    percentage_of_nodes_to_score: i32,
    /// The Kubernetes release whose kube-scheduler to mirror: 1.34, 1.35, 1.36 or 1.37 (a patch
    /// release such as v1.36.3 is read as its minor). Placement, scores and messages differ
    /// between releases: docs/kubernetes-versions.md.
    #[arg(long, global = true, default_value_t = KubeVersion::DEFAULT, value_parser = parse_kubernetes_version)]
    kubernetes_version: KubeVersion,
    /// Read the cluster from its API server with this kubeconfig (the files given go on top,
    /// replacing objects of the same kind, namespace and name, as later files do).
    #[arg(long, global = true, value_name = "PATH")]
    kubeconfig: Option<std::path::PathBuf>,
    /// Read the cluster of this kubeconfig context (of --kubeconfig, else `$KUBECONFIG` or
    /// `~/.kube/config`).
    #[arg(long, global = true, value_name = "NAME")]
    context: Option<String>,
    /// Read the cluster from inside a pod: its service account and `KUBERNETES_SERVICE_HOST`.
    #[arg(long, global = true, conflicts_with_all = ["kubeconfig", "context"])]
    in_cluster: bool,
    /// Objects per list request when reading a cluster, as kubectl's (0: each kind at once).
    #[arg(long, global = true, default_value_t = spreadlab_cluster::PAGE_SIZE, value_name = "N")]
    chunk_size: u32,
}

/// `--kubernetes-version`.
fn parse_kubernetes_version(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text).map_err(|e| e.to_string())
}

/// `--validate`.
#[derive(Clone, Copy, ValueEnum)]
pub enum ValidateArg {
    /// An input error (exit 3), as `kubectl apply` does by default.
    Strict,
    /// A warning.
    Warn,
    /// Dropped silently.
    Ignore,
}

#[derive(Subcommand)]
enum Command {
    /// Places the workloads' missing replicas on the cluster, one pod after another, as kube-scheduler would.
    Simulate {
        /// Manifests and `kubectl get -o yaml|json` snapshots (YAML or JSON, multi-document); `-` reads stdin.
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
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
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
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
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
        files: Vec<String>,
        /// Only this workload (`Kind/namespace/name` or its name).
        #[arg(long)]
        workload: Option<String>,
        /// Stop counting after this many extra replicas (and at most 200,000 pods in one
        /// simulation, snapshot included: the report says when a limit stopped the count).
        #[arg(long, default_value_t = 10_000)]
        max: usize,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// Rolls the snapshot's pods of each Deployment or StatefulSet from their revision to the
    /// template in the files, step by step: completes or stalls, and why. A template equal to
    /// the live ReplicaSet's is up to date (nothing to roll; `--restart` rolls anyway).
    Rollout {
        /// Snapshot and the new Deployment(s).
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
        files: Vec<String>,
        /// Only this Deployment (`Deployment/namespace/name` or its name).
        #[arg(long)]
        workload: Option<String>,
        /// Seconds from scheduling to Ready assumed for new pods.
        #[arg(long, default_value_t = 10)]
        ready_after: u64,
        /// Roll a new revision of the same template, as `kubectl rollout restart` does (without
        /// it, a workload whose template is its running revision has nothing to roll out).
        #[arg(long)]
        restart: bool,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// Checks the workloads' placement rules, statically and against the cluster (rule IDs and
    /// fixes: `spreadlab lint --rules`).
    Lint {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required_unless_present_any = ["rules", "kubeconfig", "context", "in_cluster"])]
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
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
        files: Vec<String>,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// The real scheduler picks at random among equally scored nodes: places the workloads under
    /// many seeded tie-break sequences and reports how concentrated the replicas can end up.
    Risk {
        /// Manifests and snapshots, as for `simulate`.
        #[arg(required_unless_present_any = CLUSTER_FLAGS)]
        files: Vec<String>,
        /// Seeded runs (1 to 10,000).
        #[arg(long, default_value_t = 100, value_parser = parse_runs)]
        runs: usize,
        /// Only report this workload (`Kind/namespace/name` or its name); every workload is
        /// still placed, as they compete for the same nodes.
        #[arg(long)]
        workload: Option<String>,
        /// Output format.
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Table)]
        output: Format,
    },
    /// Reads the cluster (--kubeconfig, --context or --in-cluster) and writes it as one JSON
    /// List slimmed to the fields scheduling reads: every command and the playground read it back
    /// like the cluster itself.
    Snapshot {
        /// Write to this file instead of standard output.
        #[arg(long, value_name = "PATH")]
        file: Option<std::path::PathBuf>,
    },
    /// The what-if service and admission webhook (AdmissionReview v1 on /validate; Gatekeeper
    /// external data, Kyverno apiCall): HTTPS (TLS 1.3) answers with the Kubewarden policy's
    /// decision on a cluster watched live (--kubeconfig) or a snapshot, re-read when it changes.
    Serve {
        /// Snapshot files (`kubectl get nodes,pods,namespaces,priorityclasses,services,poddisruptionbudgets -A -o yaml`);
        /// with --kubeconfig, --context or --in-cluster instead, the cluster is watched live.
        #[arg(long, required_unless_present_any = CLUSTER_FLAGS, conflicts_with_all = CLUSTER_FLAGS)]
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
        /// Seconds a write may take, and the longest wait for the body's next bytes (408).
        #[arg(long, default_value_t = 5)]
        timeout: u64,
        /// Whole-request deadline in seconds (TLS handshake, head and body; 408 past it).
        #[arg(long, default_value_t = 10.0)]
        request_timeout: f64,
        /// Longest decision in seconds (an error answer past it; Gatekeeper's Provider
        /// timeout and Kubewarden's budget are 2-3 s).
        #[arg(long, default_value_t = 2.5)]
        eval_timeout: f64,
        /// Connections handled at once (503 past it). Waiting connections are cheap: the
        /// decisions are bounded by --max-decisions.
        #[arg(long, default_value_t = 256)]
        max_connections: usize,
        /// Connections handled at once from one client address (503 past it).
        #[arg(long, default_value_t = 64)]
        max_connections_per_client: usize,
        /// Decisions running at once; more wait for a slot within --eval-timeout (503 when none
        /// frees). 0: the machine's CPUs (each decision holds a copy of the cluster: more at once
        /// than cores only costs memory).
        #[arg(long, default_value_t = 0)]
        max_decisions: usize,
        /// Seconds for the TLS handshake and the request head (a slow client loses its slot).
        #[arg(long, default_value_t = 5.0)]
        header_timeout: f64,
        /// Seconds a changed snapshot file must stay unchanged before it is read (a file being
        /// rewritten in place is never read half-written; 0: read at once, for files replaced
        /// atomically by a rename).
        #[arg(long, default_value_t = 1.0)]
        reload_settle: f64,
        /// Seconds to keep answering after SIGTERM or SIGINT while `/readyz` says 503 (the
        /// endpoint leaves the Service meanwhile); then running requests finish and it exits 0.
        #[arg(long, default_value_t = 5.0)]
        shutdown_delay: f64,
    },
}

/// `whatif --fail-each`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DomainKindArg {
    /// Every zone.
    Zone,
    /// Every node holding a replica.
    Node,
}

/// `whatif --mode`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Nodes deleted with their pods.
    Removed,
    /// Nodes NotReady, tainted unreachable, pods evicted.
    Unreachable,
    /// Both, one after the other.
    Both,
}

/// The flags that read a cluster: with one of them, the files are optional.
const CLUSTER_FLAGS: [&str; 3] = ["kubeconfig", "context", "in_cluster"];

/// Most seeded runs `risk` makes: each one places every workload again.
const MAX_RUNS: usize = 10_000;

fn parse_runs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(runs) if (1..=MAX_RUNS).contains(&runs) => Ok(runs),
        _ => Err(format!(
            "`{text}`: expected a number of runs from 1 to {MAX_RUNS}"
        )),
    }
}

fn parse_domain(text: &str) -> Result<spreadlab_engine::analysis::failure::Domain, String> {
    use spreadlab_engine::analysis::failure::Domain;
    match text.split_once('=') {
        Some(("zone", value)) if !value.is_empty() => Ok(Domain::Zone(value.to_owned())),
        Some(("node", value)) if !value.is_empty() => Ok(Domain::Node(value.to_owned())),
        _ => Err(format!("`{text}`: expected zone=<value> or node=<name>")),
    }
}

/// `lint -o`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// A readable list.
    Table,
    /// JSON (docs/json-schema.md).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// `simulate --detail`.
#[derive(Clone, Copy, ValueEnum)]
pub enum DetailArg {
    /// Per-node verdicts and scores for every pod.
    All,
    /// Per-node verdicts for Pending pods only.
    Pending,
    /// Summaries only.
    None,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    input::set_field_validation(match cli.validate {
        ValidateArg::Strict => spreadlab_k8s::FieldValidation::Strict,
        ValidateArg::Warn => spreadlab_k8s::FieldValidation::Warn,
        ValidateArg::Ignore => spreadlab_k8s::FieldValidation::Ignore,
    });
    input::set_percentage_of_nodes_to_score(cli.percentage_of_nodes_to_score);
    input::set_kubernetes_version(cli.kubernetes_version);
    if cli.kubeconfig.is_some() || cli.context.is_some() || cli.in_cluster {
        input::set_cluster(spreadlab_cluster::Target {
            kubeconfig: cli.kubeconfig,
            context: cli.context,
            in_cluster: cli.in_cluster,
            chunk_size: cli.chunk_size,
        });
    }
    match cli.command {
        Command::Simulate {
            files,
            output,
            detail,
        } => commands::simulate::run(&files, output, detail),
        Command::Whatif {
            files,
            fail,
            fail_each,
            mode,
            output,
        } => commands::whatif::run(&files, &fail, &fail_each, mode, output),
        Command::Capacity {
            files,
            workload,
            max,
            output,
        } => commands::capacity::run(&files, workload.as_deref(), max, output),
        Command::Rollout {
            files,
            workload,
            ready_after,
            restart,
            output,
        } => commands::rollout::run(&files, workload.as_deref(), ready_after, restart, output),
        Command::Lint {
            files,
            rules,
            output,
        } => commands::lint::run(&files, rules, output),
        Command::Stalemate { files, output } => commands::stalemate::run(&files, output),
        Command::Snapshot { file } => commands::snapshot::run(file.as_deref()),
        Command::Risk {
            files,
            runs,
            workload,
            output,
        } => commands::risk::run(&files, runs, workload.as_deref(), output),
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
            max_connections_per_client,
            max_decisions,
            header_timeout,
            reload_settle,
            shutdown_delay,
        } => {
            let seconds = |name: &str, value: f64| {
                std::time::Duration::try_from_secs_f64(value)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| format!("--{name}: {value} is not a positive number of seconds"))
            };
            let timeouts = seconds("request-timeout", request_timeout)
                .and_then(|r| Ok((r, seconds("eval-timeout", eval_timeout)?)))
                .and_then(|t| Ok((t, seconds("header-timeout", header_timeout)?)));
            let settle = std::time::Duration::try_from_secs_f64(reload_settle)
                .ok()
                .filter(|d| d.as_secs() <= 3600)
                .ok_or_else(|| {
                    format!(
                        "--reload-settle: {reload_settle} is not a number of seconds from 0 to 3600"
                    )
                });
            let shutdown = std::time::Duration::try_from_secs_f64(shutdown_delay)
                .ok()
                .filter(|d| d.as_secs() <= 3600)
                .ok_or_else(|| {
                    format!(
                        "--shutdown-delay: {shutdown_delay} is not a number of seconds from 0 to 3600"
                    )
                });
            let timeouts = timeouts
                .and_then(|t| Ok((t, settle?)))
                .and_then(|t| Ok((t, shutdown?)));
            let (
                (((request_timeout, eval_timeout), header_timeout), reload_settle),
                shutdown_delay,
            ) = match timeouts {
                Ok(timeouts) => timeouts,
                Err(error) => {
                    eprintln!("error: {error}");
                    return ExitCode::from(EXIT_INPUT_ERROR);
                }
            };
            let config = commands::serve::Config {
                listen,
                cert,
                key,
                snapshot,
                settings,
                max_body,
                timeout: std::time::Duration::from_secs(timeout),
                request_timeout,
                eval_timeout,
                max_connections: max_connections.max(1),
                max_connections_per_client: max_connections_per_client.max(1),
                max_decisions: if max_decisions == 0 {
                    std::thread::available_parallelism().map_or(2, |n| n.get())
                } else {
                    max_decisions
                },
                header_timeout,
                reload_settle,
                shutdown_delay,
            };
            match commands::serve::run(&config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::from(EXIT_INPUT_ERROR)
                }
            }
        }
    }
}
