//! `cargo xtask speed`: the same synthetic scenario scheduled by spreadlab and by the real
//! scheduler's code (the oracle's `-time` mode), both throughputs and their ratio.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;
use spreadlab_conformance::differential::{Oracle, prepare};

/// `cargo xtask speed`: schedules the same synthetic scenario (`synthetic::scenario`) with
/// spreadlab and with the real scheduler code (`oracle -time`), and prints both throughputs and
/// their ratio. Only the scheduling loop is timed on each side (not parsing or setup).
pub fn speed(args: &[String]) -> Result<(), String> {
    use spreadlab_conformance::synthetic::{self, Shape};
    let mut shapes = vec![(Shape::Spread, 10_000), (Shape::AntiAffinity, 2_000)];
    let mut nodes = 5_000;
    let mut pods: Option<usize> = None;
    let mut oracle_pods: Option<usize> = None;
    let mut oracle = Oracle {
        path: Oracle::default_path(),
        args: Vec::new(),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--shape" => {
                let shape = value()?;
                let shape = Shape::parse(shape).ok_or(format!("unknown shape {shape:?}"))?;
                shapes.retain(|(s, _)| *s == shape);
            }
            "--nodes" => nodes = value()?.parse().map_err(|_| "--nodes needs a number")?,
            "--pods" => pods = Some(value()?.parse().map_err(|_| "--pods needs a number")?),
            "--oracle-pods" => {
                oracle_pods = Some(
                    value()?
                        .parse()
                        .map_err(|_| "--oracle-pods needs a number")?,
                )
            }
            "--oracle" => oracle.path = PathBuf::from(value()?),
            other => return Err(format!("unknown argument {other:?}\n{}", crate::USAGE)),
        }
    }
    for (shape, default_pods) in shapes {
        let pods = pods.unwrap_or(default_pods);
        let compared = oracle_pods.unwrap_or(pods).min(pods);
        let full = synthetic::scenario(shape, nodes, pods);
        let prefix = synthetic::scenario(shape, nodes, compared);
        let ours = time_spreadlab(&prefix)?;
        let theirs = oracle.time(&prefix)?;
        let oracle_rate = theirs["podsPerSecond"].as_f64().unwrap_or(0.0);
        let oracle_scheduled = theirs["scheduled"].as_u64().unwrap_or(0) as usize;
        println!(
            "{}: {nodes} nodes, the first {compared} pods, scheduled by both sides:",
            shape.name()
        );
        println!(
            "  real kube-scheduler v1.35.4 code (oracle cycle): {:>8.1} pods/s ({:.1} s, {:.1} CPU-s, {} placed)",
            oracle_rate,
            theirs["seconds"].as_f64().unwrap_or(0.0),
            theirs["cpuSeconds"].as_f64().unwrap_or(0.0),
            oracle_scheduled,
        );
        println!(
            "  spreadlab engine:                                {:>8.1} pods/s ({:.2} s, {} placed)",
            ours.rate(),
            ours.seconds,
            ours.placed
        );
        if oracle_rate > 0.0 {
            println!(
                "  ratio: spreadlab is {:.0}x faster",
                ours.rate() / oracle_rate
            );
        }
        if ours.placed != oracle_scheduled {
            println!("  WARNING: the two sides placed different numbers of pods");
        }
        if compared < pods {
            let all = time_spreadlab(&full)?;
            println!(
                "  spreadlab on all {pods} pods: {:.1} pods/s ({:.2} s, {} placed)",
                all.rate(),
                all.seconds,
                all.placed
            );
        }
    }
    Ok(())
}

/// The spreadlab side of one timing.
struct Timing {
    pods: usize,
    placed: usize,
    seconds: f64,
}

impl Timing {
    fn rate(&self) -> f64 {
        self.pods as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }
}

fn time_spreadlab(scenario: &Value) -> Result<Timing, String> {
    use spreadlab_engine::scheduler::{Detail, Options, simulate};
    let prepared = prepare(scenario)?;
    // Every node scored, as the oracle's timing mode runs the real scheduler.
    let mut options = Options {
        detail: Detail::None,
        ..Options::default()
    };
    options.profile.percentage_of_nodes_to_score = Some(100);
    let started = Instant::now();
    let simulation = simulate(&prepared.cluster, &prepared.pods, &options);
    let seconds = started.elapsed().as_secs_f64();
    Ok(Timing {
        pods: prepared.pods.len(),
        placed: simulation
            .decisions
            .iter()
            .filter(|d| d.node.is_some())
            .count(),
        seconds,
    })
}
