//! Differential testing on arbitrary scenarios (`{name, objects, schedule}`, the Go oracle's
//! format): spreadlab and the real kube-scheduler (`tests/oracle`) schedule the same pods, and
//! every disagreement becomes a classified [`Mismatch`].
//!
//! - [`prepare`]: the spreadlab side's reading of a scenario, exactly as an API server would see
//!   it: `objects` are loaded with [`spreadlab_k8s::load_values`] as the cluster state (their
//!   workloads, e.g. a ReplicaSet's missing replicas, are not placed); each `schedule` pod is
//!   loaded as an unbound Pod, admitted and given its priority as the CLI does
//!   ([`spreadlab_k8s::Workload::pods_to_create`]); the pods are put in the scheduling queue's
//!   order ([`scheduler::queue_order`]). The oracle's input is the scenario with the schedule in
//!   that order and the DefaultTolerationSeconds tolerations spreadlab's admission added (the
//!   oracle does not emulate that admission plugin) and the `matchLabelKeys`/`mismatchLabelKeys`
//!   merges into label selectors that the API server's pod strategy makes at creation
//!   (`pkg/registry/core/pod/strategy.go` `PrepareForCreate`; the oracle applies defaulting
//!   only, and the scheduler reads the merged selectors), and without the terminal (`Succeeded`,
//!   `Failed`) bound pods: the real scheduler's pod informer never sees them (its field selector
//!   `status.phase!=Succeeded,status.phase!=Failed`, `scheduler.NewInformerFactory`), but the
//!   oracle's fake clientset ignores field selectors and would count them. spreadlab still gets
//!   them, and must drop them itself. Preparing a prepared input changes nothing, so a saved
//!   input reproduces as is.
//! - [`Oracle`]: runs the oracle binary, one process per scenario, or many scenarios in one
//!   process with its `-batch` JSON-Lines mode ([`split_batch_output`]).
//! - [`judge`]: the comparison of [`crate::scenarios::compare`] (ties compared as top-scored sets
//!   with both sides binding the first top node in node input order, scalar `Insufficient`
//!   reasons as sets, DynamicResources' score left out), its findings parsed into [`Mismatch`]
//!   records with a class (`filter.reasons`, `score.PodTopologySpread`, `message`, ...).
//! - [`judge_following`]: [`judge`], after making the engine follow the oracle's preemption
//!   choice wherever upstream picks at random (equally ranked candidates, sampled candidates).
//! - [`check`]: all of it, with reruns of the oracle when it disagrees (its nominator has a race,
//!   see ARCHITECTURE.md; a rerun that agrees clears it).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spreadlab_engine::KubeVersion;
use spreadlab_engine::model::{Cluster, Pod, TaintEffect, TolerationOperator};
use spreadlab_engine::scheduler::{self, Detail, Options, PodDecision};
use spreadlab_k8s::{LoadOptions, WorkloadKind};

use crate::judge::class_rank;
use crate::scenarios::Coverage;

pub use crate::judge::{Mismatch, classify, fast_path_mismatches, judge, judge_following};
pub use crate::oracle::{Oracle, split_batch_output};

/// Class of a scenario spreadlab's loader rejects (a generator bug unless the API server would
/// reject it too).
pub const INPUT_REJECTED: &str = "input.rejected";
/// Class of a scenario the oracle fails on.
pub const ORACLE_FAILED: &str = "oracle.failed";

/// A scenario as both sides schedule it.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The oracle's input: the scenario with its schedule in queue order and the default
    /// tolerations written out.
    pub input: Value,
    /// The cluster state spreadlab loaded from `objects`.
    pub cluster: Cluster,
    /// The pods spreadlab schedules, in order (admitted, priorities resolved).
    pub pods: Vec<Pod>,
    /// The release both sides mirror: the scenario's `kubernetesVersion` (the reference release
    /// when it has none; an oracle built for another release refuses the scenario).
    pub version: KubeVersion,
}

/// The scenario's `kubernetesVersion` ([`crate::REFERENCE_RELEASE`] when absent).
pub fn scenario_version(scenario: &Value) -> Result<KubeVersion, String> {
    match &scenario["kubernetesVersion"] {
        Value::Null => Ok(crate::REFERENCE_RELEASE),
        Value::String(text) => {
            KubeVersion::parse(text).map_err(|e| format!("kubernetesVersion: {e}"))
        }
        other => Err(format!("kubernetesVersion: {other} is not a string")),
    }
}

/// Writes `version` into the scenario's `kubernetesVersion`, as the check of that release reads it.
pub fn stamp_version(scenario: &mut Value, version: KubeVersion) {
    if let Value::Object(map) = scenario {
        map.insert(
            "kubernetesVersion".to_owned(),
            Value::String(version.as_str().to_owned()),
        );
    }
}

fn array<'v>(scenario: &'v Value, field: &str) -> Result<&'v Vec<Value>, String> {
    match &scenario[field] {
        Value::Array(items) => Ok(items),
        Value::Null => Err(format!("the scenario has no `{field}`")),
        _ => Err(format!("`{field}` is not a sequence")),
    }
}

/// Reads the scenario as spreadlab would (see the module documentation). Any loader error, and
/// any warning other than a skipped kind, is an `Err`: the API server would not have accepted
/// the scenario as written, or spreadlab would not schedule it as the oracle does.
pub fn prepare(scenario: &Value) -> Result<Prepared, String> {
    let version = scenario_version(scenario)?;
    let objects = array(scenario, "objects")?;
    let schedule = array(scenario, "schedule")?;
    let options = LoadOptions::default();
    let loaded = spreadlab_k8s::load_values("objects", objects.clone(), &options);
    let problems = |loaded: &spreadlab_k8s::Loaded| -> Vec<String> {
        loaded
            .errors
            .iter()
            .map(|e| format!("error: {e}"))
            .chain(
                loaded
                    .warnings
                    .iter()
                    .filter(|w| !w.message.contains("is not read by spreadlab"))
                    .map(|w| format!("warning: {w}")),
            )
            .collect()
    };
    let mut rejected = problems(&loaded);
    // The schedule pods with the PriorityClasses and RuntimeClasses their admission reads, and
    // nothing that would adopt them: each is a Pod workload in reading order.
    let classes: Vec<Value> = objects
        .iter()
        .filter(|o| o["kind"] == "PriorityClass" || o["kind"] == "RuntimeClass")
        .cloned()
        .collect();
    let offset = classes.len();
    let mut values = classes;
    for (index, pod) in schedule.iter().enumerate() {
        if pod["kind"] != "Pod" {
            rejected.push(format!("schedule[{index}] is not a Pod"));
        }
        values.push(pod.clone());
    }
    let incoming = spreadlab_k8s::load_values("schedule", values, &options);
    rejected.extend(problems(&incoming));
    if !rejected.is_empty() {
        return Err(rejected.join("\n"));
    }
    let mut pods = Vec::new();
    let mut source = Vec::new();
    for workload in &incoming.workloads {
        if workload.kind != WorkloadKind::Pod {
            return Err(format!("schedule: {} is not a Pod", workload.key()));
        }
        let index = workload.origin.document - offset;
        for pod in workload.pods_to_create(&Cluster::default()) {
            pods.push(pod);
            source.push(index);
        }
    }
    if pods.len() != schedule.len() {
        return Err(format!(
            "schedule: spreadlab places {} of the {} pods",
            pods.len(),
            schedule.len()
        ));
    }
    let order = scheduler::queue_order(&pods);
    let mut ordered_pods = Vec::with_capacity(pods.len());
    let mut oracle_schedule = Vec::with_capacity(pods.len());
    for index in order {
        let pod = pods[index].clone();
        let mut value = with_admitted_tolerations(&schedule[source[index]], &pod)?;
        merge_label_keys(&mut value);
        oracle_schedule.push(value);
        ordered_pods.push(pod);
    }
    let mut input = scenario.clone();
    input["objects"] = Value::Array(
        objects
            .iter()
            .filter(|o| !(o["kind"] == "Pod" && is_terminal(o)))
            .cloned()
            .collect(),
    );
    input["schedule"] = Value::Array(oracle_schedule);
    Ok(Prepared {
        input,
        cluster: loaded.cluster,
        pods: ordered_pods,
        version,
    })
}

fn is_terminal(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

/// What `PrepareForCreate` of the API server's pod strategy does to a new pod's selectors
/// (v1.35: MatchLabelKeysInPodAffinity GA, MatchLabelKeysInPodTopologySpreadSelectorMerge beta and
/// on): for every pod (anti-)affinity term and topology spread constraint with a label selector,
/// each `matchLabelKeys` key the pod has a label for appends `key In [value]` to
/// `labelSelector.matchExpressions`, and each `mismatchLabelKeys` key `key NotIn [value]`. A
/// requirement already there is not appended twice, so merging a merged pod changes nothing.
fn merge_label_keys(pod: &mut Value) {
    let labels = pod["metadata"]["labels"].clone();
    let merge = |holder: &mut Value| {
        let keys = |field: &str| -> Vec<String> {
            holder[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect()
        };
        let mut extra = Vec::new();
        for (field, operator) in [("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")] {
            for key in keys(field) {
                if let Some(value) = labels[key.as_str()].as_str() {
                    extra.push(json!({"key": key, "operator": operator, "values": [value]}));
                }
            }
        }
        let Some(selector) = holder
            .get_mut("labelSelector")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        if extra.is_empty() {
            return;
        }
        let expressions = selector
            .entry("matchExpressions")
            .or_insert_with(|| json!([]));
        if let Some(expressions) = expressions.as_array_mut() {
            for requirement in extra {
                if !expressions.contains(&requirement) {
                    expressions.push(requirement);
                }
            }
        }
    };
    let spec = &mut pod["spec"];
    if let Some(constraints) = spec
        .get_mut("topologySpreadConstraints")
        .and_then(Value::as_array_mut)
    {
        constraints.iter_mut().for_each(merge);
    }
    for rule in ["podAffinity", "podAntiAffinity"] {
        let Some(affinity) = spec
            .get_mut("affinity")
            .and_then(|a| a.get_mut(rule))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        if let Some(terms) = affinity
            .get_mut("requiredDuringSchedulingIgnoredDuringExecution")
            .and_then(Value::as_array_mut)
        {
            terms.iter_mut().for_each(merge);
        }
        if let Some(terms) = affinity
            .get_mut("preferredDuringSchedulingIgnoredDuringExecution")
            .and_then(Value::as_array_mut)
        {
            for term in terms {
                if let Some(term) = term.get_mut("podAffinityTerm") {
                    merge(term);
                }
            }
        }
    }
}

/// The pod as written, plus the tolerations spreadlab's DefaultTolerationSeconds admission
/// appended (`tolerationSeconds: 300`), which the oracle does not add itself.
pub(crate) fn with_admitted_tolerations(written: &Value, pod: &Pod) -> Result<Value, String> {
    let mut value = written.clone();
    let mut tolerations = written["spec"]["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if pod.tolerations.len() <= tolerations.len() {
        return Ok(value);
    }
    for toleration in &pod.tolerations[tolerations.len()..] {
        if toleration.operator != TolerationOperator::Exists
            || toleration.effect != Some(TaintEffect::NoExecute)
        {
            return Err(format!(
                "{}: unexpected admitted toleration {toleration:?}",
                pod.key()
            ));
        }
        tolerations.push(json!({
            "key": toleration.key, "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 300,
        }));
    }
    value["spec"]["tolerations"] = Value::Array(tolerations);
    Ok(value)
}

/// Schedules the prepared pods with the engine, every per-node detail kept.
pub fn run_spreadlab(prepared: &Prepared) -> Vec<PodDecision> {
    let options = Options {
        detail: Detail::All,
        ..Options::for_version(prepared.version)
    };
    scheduler::simulate(&prepared.cluster, &prepared.pods, &options).decisions
}

/// What checking one scenario found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Nodes in the scenario.
    pub nodes: usize,
    /// Pods scheduled.
    pub pods: usize,
    /// What was compared.
    pub coverage: Coverage,
    /// Every disagreement of the (last) oracle run; empty when the sides agree.
    pub mismatches: Vec<Mismatch>,
    /// Oracle runs made (more than one: the first disagreed and was rerun).
    pub oracle_runs: usize,
    /// Preemption choices among equals where the engine followed the oracle's random pick.
    pub followed: usize,
    /// Time spent preparing and scheduling on the spreadlab side.
    pub spreadlab_time: Duration,
    /// Time spent in the oracle.
    pub oracle_time: Duration,
}

impl Outcome {
    /// The most specific class among the first disagreeing pod's mismatches.
    pub fn root_class(&self) -> Option<&str> {
        let first = self.mismatches.first()?;
        self.mismatches
            .iter()
            .filter(|m| m.pod == first.pod)
            .min_by_key(|m| class_rank(&m.class))
            .map(|m| m.class.as_str())
    }

    /// Whether a mismatch of `class` is among the findings.
    pub fn has_class(&self, class: &str) -> bool {
        self.mismatches.iter().any(|m| m.class == class)
    }

    fn failed(class: &str, message: String) -> Outcome {
        Outcome {
            mismatches: vec![Mismatch {
                class: class.to_owned(),
                pod: String::new(),
                field: String::new(),
                spreadlab: String::new(),
                oracle: message,
            }],
            ..Outcome::default()
        }
    }
}

/// Prepares the scenario and schedules it on both sides ([`Oracle::run`]); see [`finish`].
pub fn check(scenario: &Value, oracle: &Oracle, reruns: usize) -> Outcome {
    let started = Instant::now();
    let prepared = match prepare(scenario) {
        Ok(prepared) => prepared,
        Err(error) => return Outcome::failed(INPUT_REJECTED, error),
    };
    let decisions = run_spreadlab(&prepared);
    let spreadlab_time = started.elapsed();
    let started = Instant::now();
    let first = oracle.run(&prepared.input);
    let mut outcome = finish(&prepared, &decisions, first, oracle, reruns);
    outcome.spreadlab_time = spreadlab_time;
    outcome.oracle_time += started.elapsed();
    outcome
}

/// Checks several scenarios with one oracle process (`-batch`): each is prepared and scheduled
/// by spreadlab, the oracle answers them all, and each answer is judged as [`finish`] does. A
/// scenario spreadlab cannot prepare is reported as [`check`] reports it. The times in each
/// outcome are the batch's averages.
pub fn check_batch(scenarios: &[Value], oracle: &Oracle, reruns: usize) -> Vec<Outcome> {
    let started = Instant::now();
    let prepared: Vec<_> = scenarios.iter().map(prepare).collect();
    let decisions: Vec<_> = prepared
        .iter()
        .map(|p| p.as_ref().ok().map(run_spreadlab))
        .collect();
    let spreadlab_time = started.elapsed() / scenarios.len().max(1) as u32;
    let inputs: Vec<Value> = prepared
        .iter()
        .filter_map(|p| p.as_ref().ok().map(|p| p.input.clone()))
        .collect();
    let started = Instant::now();
    let mut answers = oracle.run_batch(&inputs).into_iter();
    let oracle_time = started.elapsed() / inputs.len().max(1) as u32;
    scenarios
        .iter()
        .zip(prepared.iter().zip(&decisions))
        .map(
            |(scenario, (prepared, decisions))| match (prepared, decisions) {
                (Ok(prepared), Some(decisions)) => {
                    let answer = answers.next().unwrap_or_else(|| Err("no answer".into()));
                    let mut outcome = finish(prepared, decisions, answer, oracle, reruns);
                    outcome.spreadlab_time = spreadlab_time;
                    outcome.oracle_time += oracle_time;
                    outcome
                }
                _ => check(scenario, oracle, 0),
            },
        )
        .collect()
}

/// Judges the oracle's first answer; when it disagrees, reruns the oracle up to `reruns` times and
/// keeps the first run that agrees (the oracle has nondeterministic choices: preemption among
/// equal candidates).
pub fn finish(
    prepared: &Prepared,
    decisions: &[PodDecision],
    first: Result<Vec<Value>, String>,
    oracle: &Oracle,
    reruns: usize,
) -> Outcome {
    let mut outcome = Outcome {
        nodes: prepared.cluster.nodes.len(),
        pods: prepared.pods.len(),
        oracle_runs: 1,
        ..Outcome::default()
    };
    let mut answer = first;
    loop {
        match &answer {
            Err(error) => {
                outcome.mismatches = Outcome::failed(ORACLE_FAILED, error.clone()).mismatches;
                return outcome;
            }
            Ok(lines) => {
                let (mismatches, coverage, followed) = judge_following(prepared, decisions, lines);
                outcome.coverage = coverage;
                outcome.mismatches = mismatches;
                outcome.followed = followed;
            }
        }
        if outcome.mismatches.is_empty() || outcome.oracle_runs > reruns {
            outcome
                .mismatches
                .extend(fast_path_mismatches(prepared, decisions));
            return outcome;
        }
        let started = Instant::now();
        answer = oracle.run(&prepared.input);
        outcome.oracle_time += started.elapsed();
        outcome.oracle_runs += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_drop_the_node() {
        assert_eq!(classify("filter[node-1].reasons"), "filter.reasons");
        assert_eq!(classify("filter[a.b].code"), "filter.code");
        assert_eq!(
            classify("scores[n][PodTopologySpread]"),
            "score.PodTopologySpread"
        );
        assert_eq!(classify("totals[n]"), "totals");
        assert_eq!(classify("scored[n]"), "scored");
        assert_eq!(classify("filter nodes"), "filter.nodes");
        assert_eq!(classify("topNodes"), "topNodes");
    }

    #[test]
    fn batch_output_is_split_per_scenario() {
        let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let stdout = r#"{"scenario":"a","pod":"default/x"}
{"scenario":"b","pod":"default/y"}
{"scenario":"a","pod":"default/z"}
{"scenario":"a","end":true,"pods":2,"error":null}
{"scenario":"b","end":true,"pods":1,"error":"boom"}
"#;
        let split = split_batch_output(&names, stdout);
        assert_eq!(
            split[0],
            Ok(vec![json!({"pod":"default/x"}), json!({"pod":"default/z"})])
        );
        assert_eq!(split[1], Err("the oracle failed: boom".to_owned()));
        assert!(split[2].is_err());
    }

    #[test]
    fn generated_scenarios_load_and_prepare_idempotently() {
        for seed in 0..40 {
            let scenario = crate::generate::scenario(seed);
            let prepared = prepare(&scenario).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let again = prepare(&prepared.input).unwrap();
            assert_eq!(again.input, prepared.input, "seed {seed}");
            assert_eq!(again.pods, prepared.pods, "seed {seed}");
            let decisions = run_spreadlab(&prepared);
            assert_eq!(decisions.len(), prepared.pods.len());
        }
    }

    /// How many generated seeds a test runs: the variable `name`, 300 by default.
    /// The fast path (alike nodes evaluated once per class) decides every generated scenario
    /// exactly as the node-by-node path does; the oracle runs judge the latter.
    #[test]
    fn the_fast_path_agrees_with_the_detailed_path_on_generated_scenarios() {
        let seeds = crate::seeds_from_env("SPREADLAB_FAST_PATH_SEEDS");
        for seed in 0..seeds {
            let scenario = crate::generate::scenario(seed);
            let prepared = prepare(&scenario).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let decisions = run_spreadlab(&prepared);
            let mismatches = fast_path_mismatches(&prepared, &decisions);
            assert!(mismatches.is_empty(), "seed {seed}: {}", mismatches[0]);
        }
    }

    /// A snapshot rolled back after a what-if placement (the admission policy's shared
    /// snapshot, `Snapshot::rollback`) schedules every generated scenario exactly as a fresh
    /// one: same decisions with every detail, same pods on every node in the same order. The
    /// fresh decisions are the ones the oracle runs judge.
    #[test]
    fn a_rolled_back_snapshot_schedules_as_a_fresh_one() {
        use spreadlab_engine::framework::Snapshot;
        let seeds = crate::seeds_from_env("SPREADLAB_ROLLBACK_SEEDS");
        let (mut rolled_back, mut refused) = (0, 0);
        for seed in 0..seeds {
            let scenario = crate::generate::scenario(seed);
            let prepared = prepare(&scenario).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let options = Options {
                detail: Detail::All,
                ..Options::for_version(prepared.version)
            };
            let fresh = scheduler::simulate(&prepared.cluster, &prepared.pods, &options);
            let (mut snapshot, _) = Snapshot::new(&prepared.cluster, prepared.version);
            // Another placement first: the same pods under other names, last first.
            let what_if: Vec<_> = prepared
                .pods
                .iter()
                .rev()
                .map(|pod| {
                    let mut pod = pod.clone();
                    pod.name = format!("{}-what-if", pod.name);
                    pod
                })
                .collect();
            let mark = snapshot.mark();
            let tried = scheduler::simulate_on(&mut snapshot, &what_if, &options);
            if !snapshot.rollback(mark) {
                // Only preemption takes a pod that was there off its node (its victims, and
                // the dry runs of a cycle that failed).
                assert!(
                    tried.iter().any(|d| d.message.is_some()),
                    "seed {seed}: rollback refused though every pod fit"
                );
                refused += 1;
                continue;
            }
            rolled_back += 1;
            let again = scheduler::simulate_on(&mut snapshot, &prepared.pods, &options);
            assert_eq!(again, fresh.decisions, "seed {seed}");
            for (node, (ours, theirs)) in
                snapshot.nodes.iter().zip(&fresh.snapshot.nodes).enumerate()
            {
                assert_eq!(ours.pods, theirs.pods, "seed {seed}: pods of node {node}");
                // A pod leaving leaves its extended resources at 0 on the node, as upstream's
                // `NodeInfo.update` does (framework/types.go); a node that never had one has
                // no entry. Both mean 0 to every plugin.
                let nonzero = |requested: &spreadlab_engine::model::Resource| {
                    let mut requested = requested.clone();
                    requested.scalar.retain(|_, value| *value != 0);
                    requested
                };
                assert_eq!(
                    nonzero(&ours.requested),
                    nonzero(&theirs.requested),
                    "seed {seed}: node {node}"
                );
            }
        }
        assert!(
            rolled_back > seeds / 2,
            "{rolled_back} rolled back, {refused} refused"
        );
    }
}
