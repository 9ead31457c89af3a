//! `cargo xtask perf`: every native row of issue 16's target table in one run, as a table of
//! medians with the target and the ratio to the baseline. The browser and waPC rows come
//! from their own harnesses (`scripts/test-web.sh`, `scripts/test-policy.sh`), which print the
//! same quantities.

use std::path::PathBuf;
use std::time::Instant;

use spreadlab_bench::analysis_input;
use spreadlab_conformance::differential::{Oracle, prepare};
use spreadlab_conformance::synthetic::{self, Shape};
use spreadlab_engine::analysis::failure::{self, DomainKind, FailureMode};
use spreadlab_engine::analysis::{lint, settle, tie_break};
use spreadlab_engine::model::{Cluster, Pod};
use spreadlab_engine::scheduler::{Detail, Options, simulate};

/// One row of the table.
struct Row {
    name: &'static str,
    /// Seconds of each run.
    runs: Vec<f64>,
    /// Work items per run, for a rate (`pods/s`); `None` prints seconds.
    items: Option<usize>,
    target: &'static str,
    /// The baseline in the row's unit (pods/s or seconds), if it gave one.
    baseline: Option<f64>,
    note: String,
}

impl Row {
    fn median(&self) -> f64 {
        let mut runs = self.runs.clone();
        runs.sort_by(f64::total_cmp);
        runs[runs.len() / 2]
    }

    fn value(&self) -> String {
        let median = self.median();
        match self.items {
            Some(items) => format!("{:.0} pods/s", items as f64 / median),
            None if median < 1.0 => format!("{:.1} ms", median * 1e3),
            None => format!("{median:.2} s"),
        }
    }

    fn ratio(&self) -> String {
        let Some(baseline) = self.baseline else {
            return String::from("-");
        };
        let median = self.median();
        match self.items {
            Some(items) => format!("{:.2}x", items as f64 / median / baseline),
            None => format!("{:.2}x faster", baseline / median),
        }
    }
}

/// Every node scored (`percentageOfNodesToScore: 100`), as the oracle's timing mode runs the
/// real scheduler, so the two are compared on the same work (and with earlier reports).
fn options() -> Options {
    let mut options = Options {
        detail: Detail::None,
        ..Options::default()
    };
    options.profile.percentage_of_nodes_to_score = Some(100);
    options
}

fn time<T>(runs: usize, mut work: impl FnMut() -> T) -> Vec<f64> {
    (0..runs.max(1))
        .map(|_| {
            let started = Instant::now();
            let result = work();
            let seconds = started.elapsed().as_secs_f64();
            drop(result);
            seconds
        })
        .collect()
}

/// The `q` quantile of `runs` (seconds).
fn percentile(runs: &[f64], q: f64) -> f64 {
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// `VmHWM` and `VmRSS` of this process in bytes (Linux), for the parse row's peak memory.
fn memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

/// Resets this process's `VmHWM` to its current RSS (Linux: `clear_refs` 5), so that the next
/// row's peak is its own.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn load(scenario: &serde_json::Value) -> Result<(Cluster, Vec<Pod>), String> {
    let prepared = prepare(scenario)?;
    Ok((prepared.cluster, prepared.pods))
}

/// `cargo xtask perf [--runs N] [--oracle PATH] [--oracle-pods K] [--skip-150k]`.
pub fn perf(args: &[String]) -> Result<(), String> {
    let mut runs = 3;
    let mut oracle = Oracle {
        path: Oracle::default_path(),
        args: Vec::new(),
    };
    let mut oracle_pods = 300;
    let mut skip_150k = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => runs = value()?.parse().map_err(|_| "--runs needs a number")?,
            "--oracle" => oracle.path = PathBuf::from(value()?),
            "--oracle-pods" => {
                oracle_pods = value()?
                    .parse()
                    .map_err(|_| "--oracle-pods needs a number")?
            }
            "--skip-150k" => skip_150k = true,
            other => return Err(format!("unknown argument {other:?}\n{}", crate::USAGE)),
        }
    }
    let mut rows = Vec::new();

    // First, so that the process's peak memory is the parse's own (reset between the two).
    for (name, baseline, text) in [
        (
            "parse `kubectl get nodes -o yaml`, 5,000 nodes",
            Some(1.7),
            spreadlab_bench::kubectl::nodes_yaml(5_000),
        ),
        (
            "parse `kubectl get nodes,pods -A -o yaml`, 1k nodes / 8.5k pods",
            None,
            spreadlab_bench::kubectl::nodes_and_pods_yaml(1_000, 8_500),
        ),
    ] {
        eprintln!("perf: {name}");
        reset_peak_memory();
        let before = memory();
        let sources = [spreadlab_k8s::Source {
            name: "cluster.yaml".into(),
            text,
        }];
        let input_bytes = sources[0].text.len();
        let parse_runs = time(runs, || {
            let loaded = spreadlab_k8s::load(&sources, &spreadlab_k8s::LoadOptions::default());
            assert!(
                loaded.errors.is_empty() && loaded.cluster.nodes.len() >= 1_000,
                "{:?}",
                loaded.errors.first()
            );
            loaded
        });
        let peak = match (before, memory()) {
            (Some((_, rss)), Some((hwm, _))) => format!(
                "peak +{:.0} MB = {:.1}x the input",
                hwm.saturating_sub(rss) as f64 / 1e6,
                hwm.saturating_sub(rss) as f64 / input_bytes as f64
            ),
            _ => String::from("peak memory: n/a"),
        };
        rows.push(Row {
            name,
            runs: parse_runs,
            items: None,
            target: "<= 0.5 s, peak <= 2x input",
            baseline,
            note: format!("{:.1} MB; {peak}", input_bytes as f64 / 1e6),
        });
    }

    eprintln!("perf: hard spread");
    let (cluster, pods) = load(&synthetic::scenario(Shape::Spread, 5_000, 10_000))?;
    let mut spread = Row {
        name: "hard zone spread, 5k nodes / 10k pods",
        runs: time(runs, || simulate(&cluster, &pods, &options())),
        items: Some(10_000),
        target: ">= 20,000 pods/s, >= 500x oracle",
        baseline: Some(3_937.0),
        note: String::new(),
    };
    spread.note = if oracle.path.is_file() {
        let prefix = synthetic::scenario(Shape::Spread, 5_000, oracle_pods);
        let theirs = oracle.time(&prefix)?;
        let rate = theirs["podsPerSecond"].as_f64().unwrap_or(0.0);
        format!(
            "oracle (real v1.35.4 code, first {oracle_pods} pods) {rate:.0} pods/s: {:.0}x",
            10_000.0 / spread.median() / rate.max(f64::MIN_POSITIVE)
        )
    } else {
        format!("oracle not built ({})", oracle.path.display())
    };
    rows.push(spread);
    drop((cluster, pods));

    eprintln!("perf: heterogeneous");
    let (cluster, pods) = load(&synthetic::heterogeneous(5_000, 20_000, 10_000))?;
    let mixed = time(runs, || simulate(&cluster, &pods, &options()));
    rows.push(Row {
        name: "hard spread, heterogeneous 5k nodes / 20k bound / 10k pods",
        runs: mixed,
        items: Some(10_000),
        target: "(reported beside the uniform row)",
        baseline: None,
        note: String::from("3 sizes, 10% tainted, 1/4 of pods need disk=ssd"),
    });
    drop((cluster, pods));

    eprintln!("perf: claims");
    let mut claims = synthetic::scenario(Shape::Spread, 5_000, 2_000);
    synthetic::with_claims(&mut claims);
    let (cluster, pods) = load(&claims)?;
    rows.push(Row {
        name: "hard spread with claims: 2,000 replicas, each its own zonal WaitForFirstConsumer claim, 5k nodes",
        runs: time(runs, || simulate(&cluster, &pods, &options())),
        items: Some(2_000),
        target: "(issue 13: reported)",
        baseline: None,
        note: String::from("each replica provisions its disk where it lands; pods with claims are filtered node by node"),
    });
    drop((cluster, pods, claims));

    eprintln!("perf: claims, attach limits");
    let (mut cluster, pods) = spreadlab_bench::load_with_claims(Shape::Spread, 5_000, 1_000);
    spreadlab_bench::with_attach_limits(&mut cluster, 2);
    rows.push(Row {
        name: "hard spread with claims on nodes with attach limits: 1,000 replicas, 5k nodes",
        runs: time(runs, || simulate(&cluster, &pods, &options())),
        items: Some(1_000),
        target: "(reported)",
        baseline: None,
        note: String::from(
            "EKS-like: every CSINode attaches 25 EBS volumes, 2 VolumeAttachments per node",
        ),
    });
    drop((cluster, pods));

    if !skip_150k {
        eprintln!("perf: 150k pods");
        // Past a load's 100,000-object bound: the spread pods are loaded once and copied under
        // new names (each copy is the same pod as the synthetic scenario would give).
        let (cluster, template) = load(&synthetic::scenario(Shape::Spread, 5_000, 1))?;
        let pods: Vec<Pod> = (0..150_000)
            .map(|i| Pod {
                name: format!("spread-{i:06}"),
                ..template[0].clone()
            })
            .collect();
        let whole = time(1, || simulate(&cluster, &pods, &options()));
        rows.push(Row {
            name: "5k nodes / 150k pods re-simulated whole",
            runs: whole,
            items: None,
            target: "<= 10 s",
            baseline: None,
            note: String::from("one run"),
        });
    }

    eprintln!("perf: analyses");
    let input = analysis_input(5_000, 10_000, 60);
    let settled = settle(input.scenario.clone(), &options());
    rows.push(Row {
        name: "whatif --fail-each node, 5k nodes (60 failures)",
        runs: time(runs, || {
            failure::fail_each(&settled, DomainKind::Node, FailureMode::Removed, &options())
        }),
        items: None,
        target: "<= 1 s",
        baseline: Some(7.2),
        note: String::new(),
    });
    rows.push(Row {
        name: "lint, every rule, 5k nodes",
        runs: time(runs, || lint::lint(&settled, &options())),
        items: None,
        target: "-",
        baseline: Some(1.04),
        note: String::new(),
    });
    rows.push(Row {
        name: "risk, 20 runs, 5k nodes",
        runs: time(runs, || {
            tie_break::tie_break_risk(&input.scenario, 20, &options())
        }),
        items: None,
        target: "-",
        baseline: Some(2.1),
        note: String::new(),
    });
    drop((input, settled));

    eprintln!("perf: policy");
    for (nodes, target) in [(1_000, "guest <= 100 ms"), (5_000, "<= 1 s")] {
        let (cluster, payload) = spreadlab_bench::policy::admission(nodes, nodes * 10);
        // The host's answers (JSON pruned to the field masks) read as the module reads them.
        let answered = spreadlab_policy::snapshot::AnsweredCluster::new(&cluster);
        rows.push(Row {
            name: if nodes == 1_000 {
                "policy decision (native guest), 1k nodes / 10k pods"
            } else {
                "policy decision (native guest), 5k nodes / 50k pods"
            },
            runs: time(runs, || {
                spreadlab_policy::decide_payload(&payload, &answered)
            }),
            items: None,
            target,
            baseline: None,
            note: String::from(
                "default settings, the host's JSON answers parsed; waPC host rows: scripts/test-policy.sh",
            ),
        });
        if nodes == 1_000 {
            let every = spreadlab_bench::policy::every_check(&payload);
            rows.push(Row {
                name: "policy decision (native guest), every cluster check, 1k nodes / 10k pods",
                runs: time(runs, || spreadlab_policy::decide_payload(&every, &answered)),
                items: None,
                target: "waPC total <= 400 ms",
                baseline: None,
                note: String::from("zone-loss survival, min domains, 5 lint rules"),
            });
        }
        drop(answered);
        // What `spreadlab serve` does: the cluster loaded once, each decision on it.
        let prepared = spreadlab_policy::Prepared::new(std::sync::Arc::new(cluster))
            .map_err(|e| e.to_string())?;
        prepared.warm(spreadlab_engine::KubeVersion::DEFAULT);
        let decisions = time(200, || {
            spreadlab_policy::decide_payload_prepared(&payload, &prepared)
        });
        rows.push(Row {
            name: if nodes == 1_000 {
                "policy decision on a prepared cluster (serve), 1k nodes / 10k pods"
            } else {
                "policy decision on a prepared cluster (serve), 5k nodes / 50k pods"
            },
            runs: decisions.clone(),
            items: None,
            target: if nodes == 1_000 { "-" } else { "p99 <= 10 ms (issue 17)" },
            baseline: None,
            note: format!(
                "{} decisions, p99 {:.1} ms; the decision alone, end to end: `live_scale` (tests/live_cluster.rs)",
                decisions.len(),
                percentile(&decisions, 0.99) * 1e3
            ),
        });
    }

    print_table(&rows, runs);
    Ok(())
}

fn print_table(rows: &[Row], runs: usize) {
    println!("| row | median of {runs} | target | vs issue 16 baseline | note |");
    println!("|---|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {} | {} | {} | {} |",
            row.name,
            row.value(),
            row.target,
            row.ratio(),
            row.note
        );
    }
}
