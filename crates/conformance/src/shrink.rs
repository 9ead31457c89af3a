//! Shrinks a scenario on which spreadlab and the oracle disagree to a small one with the same
//! mismatch class, and writes it as a regression (`tests/regressions/<class>-<seed>.yaml`).
//!
//! Steps, repeated until nothing more goes: remove chunks of `objects` then of `schedule` (halves,
//! quarters, ... single items, as in delta debugging), then single fields that can go without
//! making an object invalid (a toleration, a spread constraint, an affinity term, a label, a
//! taint, ...). A candidate is kept when it is still a valid cluster (bound pods' nodes exist,
//! referenced PriorityClasses and RuntimeClasses exist, spreadlab loads it without complaint)
//! and both sides still disagree with the same root cause: the most specific class of the first
//! disagreeing pod ([`Outcome::root_class`]) is the one being shrunk (a weaker test, "the class
//! appears anywhere", lets the scenario drift to an unrelated disagreement).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::differential::{self, INPUT_REJECTED, Oracle, Outcome};

/// What shrinking produced.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest scenario found (prepared: the oracle reads it as is).
    pub scenario: Value,
    /// Its outcome.
    pub outcome: Outcome,
    /// Checks made (each one spreadlab run and one oracle run).
    pub checks: usize,
    /// Whether the final scenario still disagrees after `reruns` oracle reruns (candidates are
    /// checked with one oracle run each; a mismatch that a rerun clears is nondeterministic).
    pub stable: bool,
}

/// Candidates per oracle process in batch mode.
const BATCH: usize = 16;

struct Shrinker<'a> {
    class: &'a str,
    oracle: &'a Oracle,
    batch: bool,
    budget: usize,
    checks: usize,
    best: Value,
    outcome: Outcome,
}

/// `tests/regressions`.
pub fn regressions_root() -> PathBuf {
    crate::upstream::fixtures_root().join("regressions")
}

/// Shrinks `scenario` while `class` stays the root cause of the disagreement, with at most `budget` checks; the
/// result is checked again with `reruns` oracle reruns. `outcome` is the scenario's own. With
/// `batch`, candidates are checked [`BATCH`] at a time with the oracle's `-batch` mode.
pub fn shrink(
    scenario: &Value,
    outcome: Outcome,
    class: &str,
    oracle: &Oracle,
    reruns: usize,
    budget: usize,
    batch: bool,
) -> Shrunk {
    let start = differential::prepare(scenario)
        .map(|p| p.input)
        .unwrap_or_else(|_| scenario.clone());
    let mut shrinker = Shrinker {
        class,
        oracle,
        batch,
        budget,
        checks: 0,
        best: start,
        outcome,
    };
    loop {
        let mut changed = false;
        changed |= shrinker.reduce_list("objects");
        changed |= shrinker.reduce_list("schedule");
        changed |= shrinker.prune_fields();
        if !changed || shrinker.checks >= shrinker.budget {
            break;
        }
    }
    let stable = class == INPUT_REJECTED || {
        let last = differential::check(&shrinker.best, oracle, reruns);
        let stable = last.root_class() == Some(class);
        if stable {
            shrinker.outcome = last;
        }
        stable
    };
    Shrunk {
        scenario: shrinker.best,
        outcome: shrinker.outcome,
        checks: shrinker.checks,
        stable,
    }
}

impl Shrinker<'_> {
    /// The candidate, repaired, when it is worth checking.
    fn candidate(&self, mut candidate: Value) -> Option<Value> {
        repair(&mut candidate);
        (candidate != self.best && valid(&candidate)).then_some(candidate)
    }

    /// Checks candidates in order and keeps the first that reproduces; returns its tag. With the
    /// oracle's batch mode, candidates go to the oracle [`BATCH`] at a time.
    fn first_success(&mut self, candidates: Vec<(usize, Value)>) -> Option<usize> {
        let candidates: Vec<(usize, Value)> = candidates
            .into_iter()
            .filter_map(|(tag, c)| self.candidate(c).map(|c| (tag, c)))
            .collect();
        if self.class == INPUT_REJECTED {
            // A loader rejection needs no oracle.
            for (tag, candidate) in candidates {
                if self.checks >= self.budget {
                    return None;
                }
                self.checks += 1;
                if let Err(error) = differential::prepare(&candidate) {
                    self.best = candidate;
                    self.outcome.mismatches[0].oracle = error;
                    return Some(tag);
                }
            }
            return None;
        }
        let group = if self.batch { BATCH } else { 1 };
        for chunk in candidates.chunks(group) {
            if self.checks >= self.budget {
                return None;
            }
            let prepared: Vec<(usize, differential::Prepared)> = chunk
                .iter()
                .filter_map(|(tag, c)| differential::prepare(c).ok().map(|p| (*tag, p)))
                .collect();
            self.checks += prepared.len();
            let answers = if self.batch {
                let inputs: Vec<Value> = prepared
                    .iter()
                    .enumerate()
                    .map(|(i, (_, p))| {
                        let mut input = p.input.clone();
                        input["name"] = json!(format!("candidate-{i}"));
                        input
                    })
                    .collect();
                self.oracle.run_batch(&inputs)
            } else {
                prepared
                    .iter()
                    .map(|(_, p)| self.oracle.run(&p.input))
                    .collect()
            };
            for ((tag, prepared), answer) in prepared.into_iter().zip(answers) {
                let decisions = differential::run_spreadlab(&prepared);
                let outcome = differential::finish(&prepared, &decisions, answer, self.oracle, 0);
                if outcome.root_class() == Some(self.class) {
                    self.best = prepared.input;
                    self.outcome = outcome;
                    return Some(tag);
                }
            }
        }
        None
    }

    /// Delta debugging over `best[list]`: removes chunks of halving size.
    fn reduce_list(&mut self, list: &str) -> bool {
        let len = |v: &Value| v[list].as_array().map_or(0, Vec::len);
        let mut changed = false;
        let mut chunk = (len(&self.best) / 2).max(1);
        loop {
            let mut start = 0;
            while start < len(&self.best) && self.checks < self.budget {
                let candidates = (start..len(&self.best))
                    .step_by(chunk)
                    .map(|from| {
                        let mut candidate = self.best.clone();
                        if let Some(items) = candidate[list].as_array_mut() {
                            let end = (from + chunk).min(items.len());
                            items.drain(from..end);
                        }
                        (from, candidate)
                    })
                    .collect();
                match self.first_success(candidates) {
                    Some(from) => {
                        changed = true;
                        start = from;
                    }
                    None => break,
                }
            }
            if chunk == 1 || self.checks >= self.budget {
                return changed;
            }
            chunk = chunk.div_ceil(2);
        }
    }

    /// Removes single fields, one at a time, while that reproduces.
    fn prune_fields(&mut self) -> bool {
        let mut changed = false;
        for list in ["objects", "schedule"] {
            let mut index = 0;
            while index < self.best[list].as_array().map_or(0, Vec::len) {
                let mut edit = 0;
                while self.checks < self.budget {
                    let edits = prunable(&self.best[list][index]);
                    let candidates = (edit..edits.len())
                        .map(|e| {
                            let mut candidate = self.best.clone();
                            for pointer in &edits[e] {
                                remove_pointer(&mut candidate[list][index], pointer);
                            }
                            (e, candidate)
                        })
                        .collect();
                    match self.first_success(candidates) {
                        Some(e) => {
                            changed = true;
                            edit = e;
                        }
                        None => break,
                    }
                }
                index += 1;
            }
        }
        changed
    }
}

/// Escapes a JSON pointer token.
fn token(text: &str) -> String {
    text.replace('~', "~0").replace('/', "~1")
}

/// Removes the value at `pointer` (an object key or an array element).
fn remove_pointer(value: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&last);
        }
        Some(Value::Array(items)) => {
            if let Ok(index) = last.parse::<usize>()
                && index < items.len()
            {
                items.remove(index);
            }
        }
        _ => {}
    }
}

fn len_at(value: &Value, pointer: &str) -> usize {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// The groups of fields of one object that can be removed together, keeping it valid.
fn prunable(object: &Value) -> Vec<Vec<String>> {
    let mut edits: Vec<Vec<String>> = Vec::new();
    let mut one = |p: String| edits.push(vec![p]);
    let labels = |object: &Value| -> Vec<String> {
        object["metadata"]["labels"]
            .as_object()
            .map(|l| l.keys().cloned().collect())
            .unwrap_or_default()
    };
    match object["kind"].as_str().unwrap_or_default() {
        "Pod" => {
            for rule in ["nodeAffinity", "podAffinity", "podAntiAffinity"] {
                let base = format!("/spec/affinity/{rule}");
                if object.pointer(&base).is_none() {
                    continue;
                }
                one(base.clone());
                let required = format!("{base}/requiredDuringSchedulingIgnoredDuringExecution");
                let preferred = format!("{base}/preferredDuringSchedulingIgnoredDuringExecution");
                if object.pointer(&required).is_some() {
                    one(required.clone());
                }
                if object.pointer(&preferred).is_some() {
                    one(preferred.clone());
                }
                let terms = if rule == "nodeAffinity" {
                    format!("{required}/nodeSelectorTerms")
                } else {
                    required
                };
                let n = len_at(object, &terms);
                if n > 1 {
                    (0..n).for_each(|i| one(format!("{terms}/{i}")));
                }
                let n = len_at(object, &preferred);
                if n > 1 {
                    (0..n).for_each(|i| one(format!("{preferred}/{i}")));
                }
            }
            if object.pointer("/spec/affinity").is_some() {
                one("/spec/affinity".into());
            }
            for field in ["tolerations", "topologySpreadConstraints", "initContainers"] {
                let pointer = format!("/spec/{field}");
                let n = len_at(object, &pointer);
                if n > 0 {
                    one(pointer.clone());
                }
                for i in 0..n {
                    one(format!("{pointer}/{i}"));
                    if field == "topologySpreadConstraints" {
                        for key in [
                            "minDomains",
                            "nodeAffinityPolicy",
                            "nodeTaintsPolicy",
                            "matchLabelKeys",
                        ] {
                            let p = format!("{pointer}/{i}/{key}");
                            if object.pointer(&p).is_some() {
                                one(p);
                            }
                        }
                    }
                }
            }
            for field in ["nodeSelector", "hostNetwork"] {
                if object["spec"].get(field).is_some() {
                    one(format!("/spec/{field}"));
                }
            }
            let containers = len_at(object, "/spec/containers");
            for i in 0..containers {
                if i > 0 {
                    one(format!("/spec/containers/{i}"));
                }
                if object["spec"]["containers"][i].get("ports").is_some() {
                    one(format!("/spec/containers/{i}/ports"));
                }
            }
            if object["spec"].get("priorityClassName").is_some() {
                edits.push(
                    ["priorityClassName", "priority", "preemptionPolicy"]
                        .map(|f| format!("/spec/{f}"))
                        .to_vec(),
                );
            }
            if object["spec"].get("runtimeClassName").is_some() {
                edits.push(vec![
                    "/spec/runtimeClassName".into(),
                    "/spec/overhead".into(),
                ]);
            }
            if object["metadata"].get("deletionTimestamp").is_some() {
                edits.push(vec![
                    "/metadata/deletionTimestamp".into(),
                    "/metadata/deletionGracePeriodSeconds".into(),
                ]);
            }
            if object["metadata"].get("ownerReferences").is_some() {
                edits.push(vec!["/metadata/ownerReferences".into()]);
            }
            for key in labels(object) {
                edits.push(vec![format!("/metadata/labels/{}", token(&key))]);
            }
        }
        "Node" => {
            let n = len_at(object, "/spec/taints");
            (0..n).for_each(|i| one(format!("/spec/taints/{i}")));
            for pointer in [
                "/spec/unschedulable",
                "/status/images",
                "/status/allocatable",
            ] {
                if object.pointer(pointer).is_some() {
                    one(pointer.into());
                }
            }
            for key in labels(object) {
                if key != "kubernetes.io/hostname" {
                    one(format!("/metadata/labels/{}", token(&key)));
                }
            }
        }
        "Namespace" => {
            for key in labels(object) {
                one(format!("/metadata/labels/{}", token(&key)));
            }
        }
        _ => {}
    }
    edits
}

fn kind_names(scenario: &Value, kind: &str) -> BTreeSet<String> {
    scenario["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| o["kind"] == kind)
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
        .collect()
}

fn namespace_of(object: &Value) -> String {
    object["metadata"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or("default")
        .to_owned()
}

fn namespaced(object: &Value) -> bool {
    !matches!(
        object["kind"].as_str().unwrap_or_default(),
        "Node" | "Namespace" | "PriorityClass" | "RuntimeClass"
    )
}

/// After a removal: bound pods of removed nodes go, and Namespaces nothing lives in.
fn repair(scenario: &mut Value) {
    let nodes = kind_names(scenario, "Node");
    if let Some(objects) = scenario["objects"].as_array_mut() {
        objects.retain(|o| {
            o["kind"] != "Pod"
                || o["spec"]["nodeName"]
                    .as_str()
                    .is_none_or(|n| nodes.contains(n))
        });
    }
    let used: BTreeSet<String> = scenario["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(scenario["schedule"].as_array().into_iter().flatten())
        .filter(|o| namespaced(o))
        .map(namespace_of)
        .collect();
    if let Some(objects) = scenario["objects"].as_array_mut() {
        objects.retain(|o| {
            o["kind"] != "Namespace"
                || o["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| used.contains(n))
        });
    }
}

/// A candidate must still be a cluster the API server could hold: something to schedule, the
/// Namespaces objects live in (the oracle would create missing ones, spreadlab would not know
/// them), and the PriorityClasses and RuntimeClasses the pods name.
fn valid(scenario: &Value) -> bool {
    let classes = kind_names(scenario, "PriorityClass");
    let runtimes = kind_names(scenario, "RuntimeClass");
    let namespaces = kind_names(scenario, "Namespace");
    let all = scenario["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(scenario["schedule"].as_array().into_iter().flatten());
    if all
        .filter(|o| namespaced(o))
        .any(|o| !namespaces.contains(&namespace_of(o)))
    {
        return false;
    }
    let pods = scenario["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(scenario["schedule"].as_array().into_iter().flatten())
        .filter(|o| o["kind"] == "Pod");
    let mut ok = scenario["schedule"]
        .as_array()
        .is_some_and(|s| !s.is_empty())
        && !kind_names(scenario, "Node").is_empty();
    for pod in pods {
        if let Some(class) = pod["spec"]["priorityClassName"].as_str() {
            ok &= classes.contains(class);
        }
        if let Some(runtime) = pod["spec"]["runtimeClassName"].as_str() {
            ok &= runtimes.contains(runtime);
        }
    }
    ok
}

/// The regression file: comment lines (seed, class, the mismatches, how to rerun), then the
/// scenario as JSON (a subset of YAML the oracle and spreadlab both read).
pub fn regression_text(scenario: &Value, seed: u64, class: &str, outcome: &Outcome) -> String {
    let mut text = String::new();
    text.push_str(
        "# Differential-testing regression: spreadlab vs the real kube-scheduler v1.35.4 (tests/oracle).\n",
    );
    text.push_str(&format!(
        "# Found by `cargo xtask oracle --seeds {seed}..{} --shrink` (generator seed {seed}); shrunk.\n",
        seed + 1
    ));
    text.push_str(&format!("# Mismatch class: {class}\n"));
    for mismatch in outcome.mismatches.iter().take(12) {
        let line = mismatch.to_string().replace('\n', " ");
        text.push_str(&format!("#   {line}\n"));
    }
    if outcome.mismatches.len() > 12 {
        text.push_str(&format!("#   ... {} more\n", outcome.mismatches.len() - 12));
    }
    text.push_str(
        "# Rerun: `<oracle> this-file` and `cargo test -p spreadlab-conformance --test regressions`.\n",
    );
    let mut scenario = scenario.clone();
    scenario["name"] = json!(format!("regression {class} (generator seed {seed})"));
    text.push_str(&serde_json::to_string_pretty(&scenario).unwrap_or_default());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_remove_keys_and_elements() {
        let mut value = json!({"metadata": {"labels": {"kubernetes.io/hostname": "a", "x": "y"}}, "spec": {"taints": [1, 2, 3]}});
        remove_pointer(&mut value, "/metadata/labels/kubernetes.io~1hostname");
        remove_pointer(&mut value, "/spec/taints/1");
        assert_eq!(
            value,
            json!({"metadata": {"labels": {"x": "y"}}, "spec": {"taints": [1, 3]}})
        );
    }

    #[test]
    fn repair_drops_orphans() {
        let mut scenario = json!({
            "objects": [
                {"kind": "Namespace", "metadata": {"name": "a"}},
                {"kind": "Namespace", "metadata": {"name": "b"}},
                {"kind": "Pod", "metadata": {"name": "p", "namespace": "b"}, "spec": {"nodeName": "gone"}},
            ],
            "schedule": [{"kind": "Pod", "metadata": {"name": "q", "namespace": "a"}}],
        });
        repair(&mut scenario);
        assert_eq!(scenario["objects"].as_array().map(Vec::len), Some(1));
        assert_eq!(scenario["objects"][0]["metadata"]["name"], "a");
    }
}
