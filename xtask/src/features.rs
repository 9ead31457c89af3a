//! `cargo xtask features --seeds A..B [--jobs N]`: how often each generator feature occurs over a
//! seed range, so a differential run's report can say what its 0 mismatches covered.
//!
//! Counts come from two places: the scenario's objects (storage kinds, claims, ephemeral and
//! in-tree volumes, gated, waiting and nominated pods, clusters past the node-sampling threshold)
//! and the engine's decisions (pods placed, Pending, placed by preemption, and every reason of a
//! Pending message, as `0/N nodes are available: ...` lists them). No oracle runs: the decisions
//! are the engine's, which the oracle run over the same seeds judged.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use spreadlab_conformance::differential::{prepare, run_spreadlab};
use spreadlab_conformance::generate;

/// Tallies over a seed range (name → count), merged across worker threads.
#[derive(Default)]
struct Tally {
    counts: BTreeMap<String, u64>,
    reasons: BTreeMap<String, u64>,
}

impl Tally {
    fn add(&mut self, key: &str, n: u64) {
        if n > 0 {
            *self.counts.entry(key.to_owned()).or_default() += n;
        }
    }

    fn merge(&mut self, other: Tally) {
        for (k, v) in other.counts {
            *self.counts.entry(k).or_default() += v;
        }
        for (k, v) in other.reasons {
            *self.reasons.entry(k).or_default() += v;
        }
    }
}

/// Runs the command.
pub fn features(args: &[String]) -> Result<(), String> {
    let mut seeds: Range<u64> = 0..100;
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seeds" => {
                let value = iter.next().ok_or("--seeds needs A..B")?;
                let (a, b) = value.split_once("..").ok_or("--seeds needs A..B")?;
                seeds = a.parse().map_err(|_| "--seeds: bad start")?
                    ..b.parse().map_err(|_| "--seeds: bad end")?;
            }
            "--jobs" => {
                jobs = iter
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--jobs needs a number")?;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let next = AtomicU64::new(seeds.start);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let send = send.clone();
            let next = &next;
            let end = seeds.end;
            scope.spawn(move || {
                let mut tally = Tally::default();
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= end {
                        break;
                    }
                    count(seed, &mut tally);
                }
                let _ = send.send(tally);
            });
        }
    });
    drop(send);
    let mut total = Tally::default();
    for tally in receive {
        total.merge(tally);
    }
    let scenarios = seeds.end.saturating_sub(seeds.start);
    println!(
        "features over {scenarios} scenarios (seeds {}..{}):",
        seeds.start, seeds.end
    );
    for (key, n) in &total.counts {
        println!("  {key:<52} {n:>10}");
    }
    println!(
        "reasons in Pending messages (engine's decisions; count = pods whose message has it):"
    );
    let mut reasons: Vec<_> = total.reasons.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (reason, n) in reasons {
        println!("  {n:>10}  {reason}");
    }
    Ok(())
}

/// Adds one seed's features to `tally`.
fn count(seed: u64, tally: &mut Tally) {
    let scenario = generate::scenario(seed);
    let objects = scenario["objects"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let schedule = scenario["schedule"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    tally.add("scenarios", 1);
    let nodes = objects.iter().filter(|o| o["kind"] == "Node").count() as u64;
    tally.add("nodes", nodes);
    tally.add(
        "scenarios with 100+ nodes (node sampling)",
        u64::from(nodes >= 100),
    );
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for object in objects {
        if let Some(kind) = object["kind"].as_str() {
            *kinds.entry(kind).or_default() += 1;
        }
    }
    for kind in [
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "CSINode",
        "CSIDriver",
        "CSIStorageCapacity",
        "VolumeAttachment",
        "StatefulSet",
        "PodDisruptionBudget",
        "PriorityClass",
    ] {
        let n = kinds.get(kind).copied().unwrap_or(0);
        tally.add(&format!("objects: {kind}"), n);
        tally.add(&format!("scenarios with a {kind}"), u64::from(n > 0));
    }
    let zonal_pvs = objects
        .iter()
        .filter(|o| o["kind"] == "PersistentVolume" && !o["spec"]["nodeAffinity"].is_null())
        .count() as u64;
    tally.add("PersistentVolumes with node affinity", zonal_pvs);
    let in_tree_pvs = objects
        .iter()
        .filter(|o| {
            o["kind"] == "PersistentVolume"
                && (!o["spec"]["gcePersistentDisk"].is_null()
                    || !o["spec"]["awsElasticBlockStore"].is_null())
        })
        .count() as u64;
    tally.add("in-tree PersistentVolumes (GCE PD, AWS EBS)", in_tree_pvs);
    tally.add(
        "scenarios with an in-tree PersistentVolume",
        u64::from(in_tree_pvs > 0),
    );
    let migrated = objects
        .iter()
        .filter(|o| {
            o["kind"] == "CSINode"
                && o["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"]
                    .is_string()
        })
        .count() as u64;
    tally.add("CSINodes with the migrated-plugins annotation", migrated);
    let wffc = objects
        .iter()
        .filter(|o| o["kind"] == "StorageClass" && o["volumeBindingMode"] == "WaitForFirstConsumer")
        .count() as u64;
    tally.add("StorageClasses WaitForFirstConsumer", wffc);
    let bound = objects
        .iter()
        .filter(|o| o["kind"] == "Pod" && o["spec"]["nodeName"].is_string());
    let waiting = schedule
        .iter()
        .filter(|p| {
            p["metadata"]["uid"].is_string() || p["metadata"]["creationTimestamp"].is_string()
        })
        .count() as u64;
    tally.add("bound pods", bound.count() as u64);
    tally.add("pods already waiting in the snapshot", waiting);
    let all_pods = objects
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .chain(schedule.iter());
    for pod in all_pods {
        let volumes = pod["spec"]["volumes"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let has = |field: &str| volumes.iter().any(|v| !v[field].is_null());
        tally.add(
            "pods with a persistentVolumeClaim volume",
            u64::from(has("persistentVolumeClaim")),
        );
        tally.add("pods with an ephemeral volume", u64::from(has("ephemeral")));
        tally.add(
            "pods with an in-tree disk (gcePersistentDisk, awsElasticBlockStore, ...)",
            u64::from(
                has("gcePersistentDisk")
                    || has("awsElasticBlockStore")
                    || has("azureDisk")
                    || has("cinder")
                    || has("iscsi")
                    || has("rbd"),
            ),
        );
        tally.add(
            "pods with status.nominatedNodeName",
            u64::from(pod["status"]["nominatedNodeName"].is_string()),
        );
        tally.add(
            "pods with schedulingGates",
            u64::from(pod["spec"]["schedulingGates"].is_array()),
        );
        tally.add(
            "pods without status.startTime (bound)",
            u64::from(pod["spec"]["nodeName"].is_string() && pod["status"]["startTime"].is_null()),
        );
    }
    let Ok(prepared) = prepare(&scenario) else {
        tally.add("scenarios the loader rejects", 1);
        return;
    };
    for decision in run_spreadlab(&prepared) {
        tally.add("pods scheduled", 1);
        tally.add("pods placed", u64::from(decision.node.is_some()));
        tally.add("pods Pending", u64::from(decision.node.is_none()));
        tally.add(
            "pods placed by preemption",
            u64::from(decision.preemption.is_some()),
        );
        tally.add(
            "pods sampled (numFeasibleNodesToFind)",
            u64::from(decision.sampled),
        );
        if let Some(message) = decision.message.as_deref() {
            for reason in reasons(message) {
                *tally.reasons.entry(reason).or_default() += 1;
            }
        }
    }
}

/// The reasons of a FitError message, without their counts: `0/5 nodes are available: 2 node(s)
/// had untolerated taint {a: b}, 3 Insufficient cpu. preemption: ...` gives `node(s) had
/// untolerated taint {a: b}` and `Insufficient cpu`. A message of another shape is kept whole.
fn reasons(message: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once("nodes are available: ") else {
        return vec![message.to_owned()];
    };
    // The filter reasons end at the first ". " (what follows is PostFilter's part).
    let body = rest.split(". ").next().unwrap_or(rest);
    let body = body.strip_suffix('.').unwrap_or(body);
    // A reason may itself hold ", ": a part that does not start with a count continues the last.
    let mut out: Vec<String> = Vec::new();
    for part in body.split(", ") {
        match part.split_once(' ') {
            Some((count, reason)) if count.parse::<u64>().is_ok() => out.push(reason.to_owned()),
            _ => match out.last_mut() {
                Some(last) => {
                    last.push_str(", ");
                    last.push_str(part);
                }
                None => out.push(part.to_owned()),
            },
        }
    }
    // A PreFilter rejection has no counts: its object names (quoted or `ns/name`) are left out.
    if out.len() == 1 && !body.starts_with(|c: char| c.is_ascii_digit()) {
        let mut quoted = false;
        out[0] = out[0]
            .split('"')
            .map(|piece| {
                quoted = !quoted;
                if quoted { piece } else { "<name>" }
            })
            .collect::<Vec<_>>()
            .join("\"")
            .split(' ')
            .map(|word| if word.contains('/') { "<name>" } else { word })
            .collect::<Vec<_>>()
            .join(" ");
    }
    out
}
