//! `cargo xtask`: project automation (the alias is in `.cargo/config.toml`).
//!
//! `cargo xtask oracle --seeds 0..1000 [--oracle PATH] [--jobs N] [--shrink] [--batch[=K]]
//! [--feature-gates G] [--reruns N] [--shrink-budget N] [--verbose]`: differential testing of
//! spreadlab against the real kube-scheduler v1.35.4. Each seed's random scenario
//! (`spreadlab_conformance::generate`) is scheduled by both sides and compared pod by pod
//! (`spreadlab_conformance::differential`); with `--shrink`, one scenario per mismatch class is
//! shrunk and written to `tests/regressions/<class>-<seed>.yaml` with the oracle's output beside
//! it (`<class>-<seed>.expected.jsonl`). Builds nothing: the oracle binary comes from
//! `scripts/test.sh` (default `$HOME/.cache/spreadlab/oracle`). Exits 1 on any mismatch.
//!
//! `cargo xtask features --seeds A..B`: how often each generator feature occurs (`features.rs`).
//!
//! `cargo xtask perf`: the native performance rows in one table (`perf.rs`).
//!
//! `cargo xtask web [--dev] [--no-opt] [--out DIR]`: builds the playground into a static site
//! (`web.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use spreadlab_conformance::differential::{self, INPUT_REJECTED, Oracle, Outcome, prepare};
use spreadlab_conformance::{generate, shrink};
use spreadlab_engine::KubeVersion;

mod features;
mod perf;
mod speed;
mod web;

const USAGE: &str = "usage: cargo xtask web [--dev] [--no-opt] [--out DIR]
                          (build the playground into dist/playground, default profile web-release)
       cargo xtask scenario SEED     (print the oracle's input for one seed)
       cargo xtask speed [--shape spread|anti] [--nodes N] [--pods M] [--oracle-pods K] [--oracle PATH]
                          (time both sides on the same synthetic scenario; default: both shapes,
                          5000 nodes, 10000 spread pods / 2000 anti-affinity pods)
       cargo xtask perf [--runs N] [--oracle PATH] [--oracle-pods K] [--skip-150k]
                          (every native row of the performance targets, as a table of medians)
       cargo xtask features [--seeds A..B] [--jobs N]
                          (how often each generator feature and Pending reason occurs, no oracle)
       cargo xtask oracle [--seeds A..B] [--oracle PATH] [--jobs N] [--shrink]
                          [--batch[=K]] [--feature-gates G] [--reruns N] [--shrink-budget N] [--verbose]

  --seeds A..B        generator seeds, end exclusive (default 0..100)
  --oracle PATH       the tests/oracle binary (default $HOME/.cache/spreadlab/oracle, built by scripts/test.sh)
  --jobs N            scenarios checked at once (default: available cores)
  --shrink            shrink one scenario per mismatch class into tests/regressions/
  --batch[=K]         K scenarios per oracle process with its -batch JSON-Lines mode (default: K=25
                      when the oracle has -batch, else one process per scenario)
  --no-batch          one oracle process per scenario
  --feature-gates G   passed to the oracle, e.g. OpportunisticBatching=false
  --reruns N          oracle reruns of a disagreeing scenario (its nominator race, now fixed; default 2)
  --shrink-budget N   most candidate checks per shrink (default 2000 with -batch, else 400)
  --verbose           print every mismatch";

struct Args {
    seeds: std::ops::Range<u64>,
    /// The oracle's release (`oracle -version`): every scenario is stamped with it.
    version: KubeVersion,
    oracle: Oracle,
    jobs: usize,
    shrink: bool,
    batch: Option<usize>,
    batch_chosen: bool,
    reruns: usize,
    shrink_budget: Option<usize>,
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        seeds: 0..100,
        version: spreadlab_conformance::REFERENCE_RELEASE,
        oracle: Oracle {
            path: Oracle::default_path(),
            args: Vec::new(),
        },
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        shrink: false,
        batch: None,
        batch_chosen: false,
        reruns: 2,
        shrink_budget: None,
        verbose: false,
    };
    let mut iter = args.iter();
    let number = |value: Option<&String>, flag: &str| -> Result<usize, String> {
        value
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} needs a number"))
    };
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seeds" => {
                let value = iter.next().ok_or("--seeds needs A..B")?;
                let (a, b) = value.split_once("..").ok_or("--seeds needs A..B")?;
                let a: u64 = a.parse().map_err(|_| "--seeds: bad start")?;
                let b: u64 = b.parse().map_err(|_| "--seeds: bad end")?;
                parsed.seeds = a..b;
            }
            "--oracle" => {
                parsed.oracle.path = PathBuf::from(iter.next().ok_or("--oracle needs a path")?)
            }
            "--jobs" => parsed.jobs = number(iter.next(), "--jobs")?.max(1),
            "--shrink" => parsed.shrink = true,
            "--batch" => {
                parsed.batch = Some(25);
                parsed.batch_chosen = true;
            }
            "--no-batch" => {
                parsed.batch = None;
                parsed.batch_chosen = true;
            }
            "--feature-gates" => {
                let gates = iter.next().ok_or("--feature-gates needs a value")?;
                parsed.oracle.args.push(format!("-feature-gates={gates}"));
            }
            "--reruns" => parsed.reruns = number(iter.next(), "--reruns")?,
            "--shrink-budget" => {
                parsed.shrink_budget = Some(number(iter.next(), "--shrink-budget")?)
            }
            "--verbose" => parsed.verbose = true,
            other => match other.strip_prefix("--batch=") {
                Some(k) => {
                    let k: usize = k.parse().map_err(|_| "--batch=K needs a number")?;
                    parsed.batch = Some(k.max(1));
                    parsed.batch_chosen = true;
                }
                None => return Err(format!("unknown argument {other:?}\n{USAGE}")),
            },
        }
    }
    Ok(parsed)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("oracle") => match parse_args(&args[1..]) {
            Ok(mut args) => {
                if !args.batch_chosen && args.oracle.path.is_file() && args.oracle.supports_batch()
                {
                    args.batch = Some(25);
                }
                match args.oracle.version() {
                    Ok(version) => args.version = version,
                    Err(error) => {
                        eprintln!("xtask: {error}");
                        return ExitCode::FAILURE;
                    }
                }
                println!(
                    "oracle: {} (Kubernetes {})",
                    args.oracle.path.display(),
                    args.version
                );
                oracle(&args)
            }
            Err(error) => {
                eprintln!("xtask: {error}");
                ExitCode::from(2)
            }
        },
        Some("web") => match web::web(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("xtask web: {error}");
                ExitCode::FAILURE
            }
        },
        Some("features") => match features::features(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("xtask features: {error}");
                ExitCode::FAILURE
            }
        },
        Some("perf") => match perf::perf(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("xtask perf: {error}");
                ExitCode::FAILURE
            }
        },
        Some("speed") => match speed::speed(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("xtask speed: {error}");
                ExitCode::FAILURE
            }
        },
        Some("scenario") => {
            // `cargo xtask scenario SEED [VERSION]`: the oracle's input for one seed, as JSON.
            let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
            let version = match args.get(2).map(|v| KubeVersion::parse(v)).transpose() {
                Ok(version) => version.unwrap_or(spreadlab_conformance::REFERENCE_RELEASE),
                Err(error) => {
                    eprintln!("xtask: {error}");
                    return ExitCode::from(2);
                }
            };
            match prepare(&scenario_for(seed, version)) {
                Ok(prepared) => {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&prepared.input).unwrap_or_default()
                    );
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("xtask: seed {seed}: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// One checked scenario.
struct Checked {
    seed: u64,
    size: usize,
    outcome: Outcome,
}

fn size(scenario: &Value) -> usize {
    ["objects", "schedule"]
        .iter()
        .map(|k| scenario[k].as_array().map_or(0, Vec::len))
        .sum()
}

/// Checks seeds taken from `next` until `end`, one oracle process per scenario or per batch.
fn worker(args: &Args, next: &AtomicU64, results: &mpsc::Sender<Checked>) {
    let chunk = args.batch.unwrap_or(1) as u64;
    loop {
        let first = next.fetch_add(chunk, Ordering::SeqCst);
        if first >= args.seeds.end {
            return;
        }
        let seeds: Vec<u64> = (first..(first + chunk).min(args.seeds.end)).collect();
        let checked: Vec<Checked> = if args.batch.is_none() {
            seeds
                .iter()
                .map(|&seed| {
                    let scenario = scenario_for(seed, args.version);
                    Checked {
                        seed,
                        size: size(&scenario),
                        outcome: differential::check(&scenario, &args.oracle, args.reruns),
                    }
                })
                .collect()
        } else {
            check_batch(args, &seeds)
        };
        for c in checked {
            if results.send(c).is_err() {
                return;
            }
        }
    }
}

/// The generator's scenario for `seed`, stamped for `version`.
fn scenario_for(seed: u64, version: KubeVersion) -> Value {
    let mut scenario = generate::scenario(seed);
    differential::stamp_version(&mut scenario, version);
    scenario
}

fn check_batch(args: &Args, seeds: &[u64]) -> Vec<Checked> {
    let scenarios: Vec<Value> = seeds
        .iter()
        .map(|&s| scenario_for(s, args.version))
        .collect();
    let outcomes = differential::check_batch(&scenarios, &args.oracle, args.reruns);
    seeds
        .iter()
        .zip(&scenarios)
        .zip(outcomes)
        .map(|((&seed, scenario), outcome)| Checked {
            seed,
            size: size(scenario),
            outcome,
        })
        .collect()
}

#[derive(Default)]
struct ClassStats {
    records: usize,
    scenarios: usize,
    roots: usize,
    /// (size, seed) of the smallest scenario where this class is the root cause.
    root_example: Option<(usize, u64)>,
    /// (size, seed) of the smallest scenario with this class at all.
    example: Option<(usize, u64)>,
}

fn oracle(args: &Args) -> ExitCode {
    if !args.oracle.path.is_file() {
        eprintln!(
            "xtask: no oracle binary at {} (build it with scripts/test.sh, or pass --oracle PATH)",
            args.oracle.path.display()
        );
        return ExitCode::from(2);
    }
    let total = args.seeds.end.saturating_sub(args.seeds.start) as usize;
    println!(
        "oracle: {} scenarios (seeds {}..{}), {} jobs, {}, oracle {}{}",
        total,
        args.seeds.start,
        args.seeds.end,
        args.jobs,
        match args.batch {
            Some(k) => format!("batches of {k}"),
            None => "one oracle process per scenario".into(),
        },
        args.oracle.path.display(),
        if args.oracle.args.is_empty() {
            String::new()
        } else {
            format!(" {}", args.oracle.args.join(" "))
        }
    );
    let started = Instant::now();
    let next = AtomicU64::new(args.seeds.start);
    let (sender, receiver) = mpsc::channel();
    let mut checked: Vec<Checked> = Vec::with_capacity(total);
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || worker(args, next, &sender));
        }
        drop(sender);
        let mut last_report = Instant::now();
        let mut mismatching = 0;
        for result in receiver {
            if !result.outcome.mismatches.is_empty() {
                mismatching += 1;
                let root = result.outcome.root_class().unwrap_or("?");
                let first = result
                    .outcome
                    .mismatches
                    .iter()
                    .find(|m| m.class == root)
                    .unwrap_or(&result.outcome.mismatches[0]);
                println!(
                    "  seed {}: {} mismatches, root {root}: {}",
                    result.seed,
                    result.outcome.mismatches.len(),
                    truncate(&first.to_string(), 300)
                );
                if args.verbose {
                    for m in &result.outcome.mismatches {
                        println!("      {}", truncate(&m.to_string(), 400));
                    }
                }
            }
            checked.push(result);
            let done = checked.len();
            if done == total || last_report.elapsed() > Duration::from_secs(20) {
                last_report = Instant::now();
                let elapsed = started.elapsed().as_secs_f64();
                println!(
                    "[{done}/{total}] {:.0} s, {:.2} s/scenario wall, {mismatching} scenarios disagree",
                    elapsed,
                    elapsed / done as f64
                );
            }
        }
    });
    checked.sort_by_key(|c| c.seed);
    let exit = summarize(args, &checked, started.elapsed());
    if args.shrink && exit != ExitCode::SUCCESS {
        shrink_all(args, &checked);
    }
    exit
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}...")
    }
}

fn summarize(args: &Args, checked: &[Checked], wall: Duration) -> ExitCode {
    let mut pods = 0;
    let mut verdicts = 0;
    let mut scores = 0;
    let mut mismatches = 0;
    let mut nodes = 0;
    let mut reruns_agreed = 0;
    let mut followed = 0;
    // Waiting, nominated, bound to the nominated node unscored, refused for a terminating pod there.
    let mut queue = [0usize; 4];
    let mut sampled = 0;
    let mut tied = 0;
    let mut spreadlab_time = Duration::ZERO;
    let mut oracle_time = Duration::ZERO;
    let mut classes: BTreeMap<String, ClassStats> = BTreeMap::new();
    for c in checked {
        let o = &c.outcome;
        pods += o.coverage.pods;
        followed += o.followed;
        verdicts += o.coverage.filter_verdicts;
        queue[0] += o.coverage.waiting;
        queue[1] += o.coverage.nominated;
        queue[2] += o.coverage.nominated_bound;
        queue[3] += o.coverage.terminating_on_nominated;
        sampled += o.coverage.sampled;
        tied += o.coverage.tied_candidates;
        scores += o.coverage.scores;
        nodes += o.nodes;
        mismatches += o.mismatches.len();
        spreadlab_time += o.spreadlab_time;
        oracle_time += o.oracle_time;
        if o.mismatches.is_empty() && o.oracle_runs > 1 {
            reruns_agreed += 1;
        }
        let mut seen = std::collections::BTreeSet::new();
        for m in &o.mismatches {
            let stats = classes.entry(m.class.clone()).or_default();
            stats.records += 1;
            if seen.insert(m.class.clone()) {
                stats.scenarios += 1;
                if stats.example.is_none_or(|e| (c.size, c.seed) < e) {
                    stats.example = Some((c.size, c.seed));
                }
            }
        }
        if let Some(root) = o.root_class() {
            let stats = classes.entry(root.to_owned()).or_default();
            stats.roots += 1;
            if stats.root_example.is_none_or(|e| (c.size, c.seed) < e) {
                stats.root_example = Some((c.size, c.seed));
            }
        }
    }
    let n = checked.len().max(1) as f64;
    println!();
    println!(
        "{} scenarios, {} pods, {} filter verdicts, {} scores compared: {} mismatches",
        checked.len(),
        pods,
        verdicts,
        scores,
        mismatches
    );
    println!(
        "  {} nodes in all; {:.2} s/scenario wall with {} jobs (spreadlab {:.1} ms, oracle {:.0} ms per scenario); \
         {} scenarios agreed only on an oracle rerun; {} random preemption picks among equal \
         candidates followed",
        nodes,
        wall.as_secs_f64() / n,
        args.jobs,
        spreadlab_time.as_secs_f64() * 1000.0 / n,
        oracle_time.as_secs_f64() * 1000.0 / n,
        reruns_agreed,
        followed
    );
    println!(
        "  queue: {} pods already waiting, {} nominated ({} bound to that node unscored, {} refused \
         preemption for a terminating pod there)",
        queue[0], queue[1], queue[2], queue[3]
    );
    println!("  node sampling: {sampled} pods stopped at numFeasibleNodesToFind");
    println!("  preemption: {tied} pods with equally ranked candidate nodes");
    if classes.is_empty() {
        return ExitCode::SUCCESS;
    }
    println!(
        "  class                              records  scenarios  as root cause  example seed"
    );
    for (class, stats) in &classes {
        let example = stats.root_example.or(stats.example).map_or(0, |e| e.1);
        println!(
            "  {class:<34} {:>7}  {:>9}  {:>13}  {example}",
            stats.records, stats.scenarios, stats.roots
        );
    }
    ExitCode::FAILURE
}

/// Shrinks one scenario per root-cause class and writes it to `tests/regressions/`.
fn shrink_all(args: &Args, checked: &[Checked]) {
    let mut roots: BTreeMap<String, &Checked> = BTreeMap::new();
    for c in checked {
        if let Some(root) = c.outcome.root_class() {
            let entry = roots.entry(root.to_owned()).or_insert(c);
            if (c.size, c.seed) < (entry.size, entry.seed) {
                *entry = c;
            }
        }
    }
    let dir = shrink::regressions_root();
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("xtask: cannot create {}: {error}", dir.display());
        return;
    }
    for (class, c) in roots {
        let started = Instant::now();
        println!(
            "\nshrinking seed {} ({} objects and pods) for class {class} ...",
            c.seed, c.size
        );
        let scenario = scenario_for(c.seed, args.version);
        let shrunk = shrink::shrink(
            &scenario,
            c.outcome.clone(),
            &class,
            &args.oracle,
            args.reruns,
            args.shrink_budget
                .unwrap_or(if args.batch.is_some() { 2000 } else { 400 }),
            args.batch.is_some(),
        );
        let file_class = class.replace(['/', ' '], "_");
        let path = dir.join(format!("{file_class}-{}.yaml", c.seed));
        let text = shrink::regression_text(&shrunk.scenario, c.seed, &class, &shrunk.outcome);
        if let Err(error) = std::fs::write(&path, &text) {
            eprintln!("xtask: cannot write {}: {error}", path.display());
            continue;
        }
        if class != INPUT_REJECTED {
            match args.oracle.run(&shrunk.scenario) {
                Ok(lines) => {
                    let jsonl: String = lines.iter().map(|l| format!("{l}\n")).collect();
                    let expected = dir.join(format!("{file_class}-{}.expected.jsonl", c.seed));
                    if let Err(error) = std::fs::write(&expected, jsonl) {
                        eprintln!("xtask: cannot write {}: {error}", expected.display());
                    }
                }
                Err(error) => eprintln!("xtask: the oracle on the shrunk scenario: {error}"),
            }
        }
        println!(
            "wrote {} ({} objects and pods, {} checks, {:.0} s){}:",
            path.display(),
            size(&shrunk.scenario),
            shrunk.checks,
            started.elapsed().as_secs_f64(),
            if shrunk.stable {
                ""
            } else {
                "; NOT STABLE: an oracle rerun agreed with spreadlab"
            }
        );
        for m in shrunk.outcome.mismatches.iter().take(8) {
            println!("    {}", truncate(&m.to_string(), 400));
        }
    }
}
