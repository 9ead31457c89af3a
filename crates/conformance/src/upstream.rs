//! Runner for `tests/upstream/<plugin>/<TestName>.yaml` (format: `tests/upstream/README.md`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use spreadlab_engine::framework::runtime::{run_filter, run_pre_filter, run_score};
use spreadlab_engine::framework::{Code, PluginName, PodInfo, Profile, Snapshot, Status};

use spreadlab_engine::KubeVersion;

pub use crate::upstream_releases::tables_for;
use spreadlab_engine::model::Pod;
use spreadlab_engine::plugins::node_resources::{
    ResourceSpec, ScoringStrategy, UtilizationShapePoint,
};
use spreadlab_engine::plugins::pod_topology_spread::{self, DefaultingType};

/// The outcome of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every expectation held.
    Passed,
    /// The case does not apply to v1.35 defaults (reason from the fixture).
    Skipped(String),
    /// Mismatches, one line each.
    Failed(Vec<String>),
}

/// One case's result.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Fixture file, relative to the fixture root.
    pub file: String,
    /// Upstream case name.
    pub name: String,
    /// Outcome.
    pub outcome: Outcome,
}

/// The repository's `tests/` folder, in the checkout the command runs in
/// ([`workspace_root`]).
pub fn fixtures_root() -> PathBuf {
    workspace_root().join("tests")
}

/// The workspace the command runs in: the nearest directory at or above the current one whose
/// `Cargo.toml` has a `[workspace]` table. Found at run time, not from the path the binary was
/// compiled in: two checkouts may share one target directory, and `cargo xtask` (or a test
/// binary) built from one must read and write the files of the checkout it runs in. Falls back
/// to this crate's own workspace when run from outside any.
pub fn workspace_root() -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|dir| find_workspace(&dir))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The nearest directory at or above `start` holding a workspace `Cargo.toml`.
pub fn find_workspace(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        manifest
            .lines()
            .any(|line| line.trim() == "[workspace]")
            .then(|| dir.to_path_buf())
    })
}

/// Every `*.yaml` file below `dir`, sorted.
pub fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Runs every case of one fixture file with the reference release's semantics.
pub fn run_file(path: &Path, root: &Path) -> Vec<CaseResult> {
    run_file_for(path, root, crate::REFERENCE_RELEASE)
}

/// Runs every case of one fixture file with the semantics of `version`.
pub fn run_file_for(path: &Path, root: &Path, version: KubeVersion) -> Vec<CaseResult> {
    let file = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => return vec![failed(&file, "<file>", format!("cannot read: {error}"))],
    };
    let doc: Value = match serde_saphyr::from_str(&text) {
        Ok(doc) => doc,
        Err(error) => return vec![failed(&file, "<file>", format!("invalid YAML: {error}"))],
    };
    if let Some(reason) = doc["skip"].as_str() {
        return vec![CaseResult {
            file: file.clone(),
            name: "<file>".to_string(),
            outcome: Outcome::Skipped(reason.to_string()),
        }];
    }
    if doc["runner"].as_str() == Some("preemption") {
        return crate::upstream_preemption::run_file(&file, &doc, version);
    }
    let Some(plugin) = doc["plugin"].as_str().and_then(PluginName::parse) else {
        return vec![failed(
            &file,
            "<file>",
            format!("unknown plugin {}", doc["plugin"]),
        )];
    };
    // `claimsStoredOnly`: the table's claims come from listers holding only the claims listed.
    let stored_only = doc["claimsStoredOnly"].as_bool().unwrap_or(false);
    run_cases(&file, &doc, |case| {
        run_case(plugin, case, stored_only, version)
    })
}

/// Runs every case of a table with `run`, skipping those with a `skip` reason.
pub(crate) fn run_cases(
    file: &str,
    doc: &Value,
    mut run: impl FnMut(&Value) -> Result<Vec<String>, String>,
) -> Vec<CaseResult> {
    let cases = doc["cases"].as_array().cloned().unwrap_or_default();
    cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let name = case["name"]
                .as_str()
                .map_or_else(|| format!("case {index}"), str::to_string);
            // `skip`: neither side runs the case; `engineSkip`: the oracle checks it, the
            // engine cannot (a feature spreadlab does not model, e.g. DRA).
            let outcome = match case["skip"].as_str().or(case["engineSkip"].as_str()) {
                Some(reason) => Outcome::Skipped(reason.to_string()),
                None => match run(case) {
                    Ok(problems) if problems.is_empty() => Outcome::Passed,
                    Ok(problems) => Outcome::Failed(problems),
                    Err(error) => Outcome::Failed(vec![error]),
                },
            };
            CaseResult {
                file: file.to_string(),
                name,
                outcome,
            }
        })
        .collect()
}

fn failed(file: &str, name: &str, message: String) -> CaseResult {
    CaseResult {
        file: file.to_string(),
        name: name.to_string(),
        outcome: Outcome::Failed(vec![message]),
    }
}

/// Converts a k8s Pod JSON value into the engine's pod without admission mutations.
pub(crate) fn engine_pod(value: &Value) -> Result<Pod, String> {
    let pod: k8s_openapi::api::core::v1::Pod =
        serde_json::from_value(value.clone()).map_err(|e| format!("incoming pod: {e}"))?;
    spreadlab_k8s::convert_pod(&pod, "")
        .map_err(|e| format!("incoming pod: {}: {}", e.path, e.message))
}

/// Builds the profile for one plugin with the case's args.
fn profile_for(plugin: PluginName, args: &Value, version: KubeVersion) -> Result<Profile, String> {
    let mut profile = Profile::single_for(plugin, version);
    let Some(args) = args.as_object() else {
        return Ok(profile);
    };
    for (key, value) in args {
        match (plugin, key.as_str()) {
            (PluginName::PodTopologySpread, "defaultingType") => {
                profile.spread.defaulting_type = match value.as_str() {
                    Some("System") => DefaultingType::System,
                    Some("List") => DefaultingType::List,
                    other => return Err(format!("defaultingType {other:?}")),
                }
            }
            (PluginName::PodTopologySpread, "defaultConstraints") => {
                let pod = engine_pod(&serde_json::json!({
                    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "args"},
                    "spec": {"containers": [], "topologySpreadConstraints": value}
                }))?;
                profile.spread.default_constraints = pod.topology_spread_constraints;
            }
            (PluginName::InterPodAffinity, "hardPodAffinityWeight") => {
                profile.inter_pod_affinity.hard_pod_affinity_weight = value
                    .as_i64()
                    .ok_or("hardPodAffinityWeight is not a number")?
                    as i32;
            }
            (PluginName::InterPodAffinity, "ignorePreferredTermsOfExistingPods") => {
                profile
                    .inter_pod_affinity
                    .ignore_preferred_terms_of_existing_pods = value.as_bool().unwrap_or(false);
            }
            (PluginName::NodeAffinity, "addedAffinity") => {
                let pod = engine_pod(&serde_json::json!({
                    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "args"},
                    "spec": {"containers": [], "affinity": {"nodeAffinity": value}}
                }))?;
                profile.node_affinity.added_affinity = pod.affinity.node_affinity;
            }
            (PluginName::NodeResourcesFit, "scoringStrategy") => {
                profile.fit.resources = resource_specs(&value["resources"])?;
                profile.fit.strategy = match value["type"].as_str() {
                    Some("LeastAllocated") | None => ScoringStrategy::LeastAllocated,
                    Some("MostAllocated") => ScoringStrategy::MostAllocated,
                    Some("RequestedToCapacityRatio") => {
                        let shape = value["requestedToCapacityRatio"]["shape"]
                            .as_array()
                            .ok_or("requestedToCapacityRatio.shape missing")?
                            .iter()
                            .map(|p| UtilizationShapePoint {
                                utilization: p["utilization"].as_i64().unwrap_or(0),
                                // Config scores are 0..10; the plugin scales them by MaxNodeScore/10.
                                score: p["score"].as_i64().unwrap_or(0) * 10,
                            })
                            .collect();
                        ScoringStrategy::RequestedToCapacityRatio(shape)
                    }
                    Some(other) => return Err(format!("scoring strategy {other}")),
                };
            }
            (PluginName::NodeResourcesFit, "ignoredResources") => {
                profile.fit.ignored_resources = strings(value).into_iter().collect();
            }
            (PluginName::NodeResourcesFit, "ignoredResourceGroups") => {
                profile.fit.ignored_resource_groups = strings(value).into_iter().collect();
            }
            (PluginName::NodeResourcesBalancedAllocation, "resources") => {
                profile.balanced_allocation.resources = resource_specs(value)?;
            }
            _ => return Err(format!("unsupported arg {key} for {plugin}")),
        }
    }
    Ok(profile)
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn resource_specs(value: &Value) -> Result<Vec<ResourceSpec>, String> {
    let Some(list) = value.as_array() else {
        return Ok(ResourceSpec::defaults());
    };
    list.iter()
        .map(|r| {
            let name = r["name"]
                .as_str()
                .ok_or("resource without name")?
                .to_string();
            // A configured weight of 0 becomes 1 (SetDefaults_NodeResourcesFitArgs).
            let weight = r["weight"].as_i64().filter(|w| *w != 0).unwrap_or(1);
            Ok(ResourceSpec { name, weight })
        })
        .collect()
}

/// Loads a case's objects (completed by [`crate::upstream_objects::complete_objects`]); objects
/// without a namespace stay without one, all alike.
pub(crate) fn load_objects(objects: Vec<Value>) -> Result<spreadlab_k8s::Loaded, String> {
    let objects = crate::upstream_objects::complete_objects(objects);
    let options = spreadlab_k8s::LoadOptions {
        default_namespace: String::new(),
        ..Default::default()
    };
    let loaded = spreadlab_k8s::load_values("fixture", objects, &options);
    match loaded.errors.first() {
        Some(error) => Err(format!("objects: {error}")),
        None => Ok(loaded),
    }
}

fn check_status(problems: &mut Vec<String>, what: &str, actual: &Status, expected: &Value) {
    let expected_code = expected["code"].as_str().and_then(Code::parse);
    if expected_code != Some(actual.code) {
        problems.push(format!(
            "{what}: code {} (reasons {:?}), expected {}",
            actual.code,
            actual.reason_strings(),
            expected["code"]
        ));
        return;
    }
    if let Some(reasons) = expected["reasons"].as_array() {
        let reasons: Vec<String> = reasons
            .iter()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        if reasons != actual.reason_strings() {
            problems.push(format!(
                "{what}: reasons {:?}, expected {reasons:?}",
                actual.reason_strings()
            ));
        }
    }
}

/// Runs one case; the returned list holds every mismatch.
fn run_case(
    plugin: PluginName,
    case: &Value,
    stored_only: bool,
    version: KubeVersion,
) -> Result<Vec<String>, String> {
    let profile = profile_for(plugin, &case["args"], version)?;
    let mut loaded = load_objects(case["objects"].as_array().cloned().unwrap_or_default())?;
    if stored_only {
        std::sync::Arc::make_mut(&mut loaded.cluster.storage).claims_stored_only = true;
    }
    let pod = PodInfo::new(engine_pod(&case["pod"])?);
    let (snapshot, _) = Snapshot::new(&loaded.cluster, version);
    let node_index = |name: &str| {
        snapshot
            .node_index
            .get(name)
            .copied()
            .ok_or_else(|| format!("no node {name:?}"))
    };
    let expect = &case["expect"];
    let mut problems = Vec::new();

    let (state, pre_filter) = run_pre_filter(&profile, &snapshot, &pod);
    if !expect["preFilter"].is_null() {
        let actual = pre_filter
            .plugins
            .iter()
            .find(|(p, _)| *p == plugin)
            .map(|(_, s)| s.clone());
        let actual = actual.unwrap_or_else(|| pre_filter.status.clone());
        let actual = if actual.code == Code::Skip || !pre_filter.status.is_success() {
            actual
        } else {
            pre_filter.status.clone()
        };
        check_status(&mut problems, "PreFilter", &actual, &expect["preFilter"]);
        if let Some(names) = expect["preFilter"]["nodeNames"].as_array() {
            let expected: BTreeSet<String> = names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect();
            if pre_filter.node_names.as_ref() != Some(&expected) {
                problems.push(format!(
                    "PreFilter node names {:?}, expected {expected:?}",
                    pre_filter.node_names
                ));
            }
        }
    }
    if let Some(filter) = expect["filter"].as_object() {
        for (node, expected) in filter {
            let index = node_index(node)?;
            // Upstream's plugin tests call Filter on each node whatever PreFilter returned.
            let actual = run_filter(&profile, &state, &snapshot, &pod, index);
            check_status(&mut problems, &format!("Filter({node})"), &actual, expected);
        }
    }
    if let Some(expected_state) = expect["preFilterState"].as_array() {
        match &state.spread {
            None => problems.push("PreFilter state: none (Skip), expected one".to_string()),
            Some(spread) => compare_pre_filter_state(&mut problems, spread, expected_state),
        }
    }
    let candidates: Vec<usize> = match case["candidates"].as_array() {
        Some(names) => names
            .iter()
            .map(|n| node_index(n.as_str().unwrap_or_default()))
            .collect::<Result<_, _>>()?,
        None => (0..snapshot.num_nodes()).collect(),
    };
    if !expect["scores"].is_null() || !expect["preScore"].is_null() {
        let outcome = run_score(&profile, &snapshot, &pod, &candidates);
        let scores = outcome
            .plugins
            .iter()
            .find(|p| p.plugin == plugin)
            .ok_or("plugin did not score")?;
        if let Some(expected) = expect["preScore"]["code"].as_str() {
            let actual = if scores.error.is_some() {
                "Error"
            } else if scores.skipped() {
                "Skip"
            } else {
                "Success"
            };
            if expected != actual {
                problems.push(format!("PreScore: {actual}, expected {expected}"));
            }
            // Upstream checks error texts with "contains".
            if let (Some(want), Some(error)) =
                (expect["preScore"]["message"].as_str(), &scores.error)
                && !error.contains(want)
            {
                problems.push(format!(
                    "PreScore error {error:?} does not contain {want:?}"
                ));
            }
        }
        if let Some(expected) = expect["scores"].as_object() {
            for (node, value) in expected {
                let index = node_index(node)?;
                let Some(position) = candidates.iter().position(|c| *c == index) else {
                    problems.push(format!("score for {node}: not a candidate"));
                    continue;
                };
                let actual = if scores.skipped() {
                    0
                } else {
                    scores.normalized[position]
                };
                if Some(actual) != value.as_i64() {
                    problems.push(format!("Score({node}) = {actual}, expected {value}"));
                }
            }
        }
    }
    if let Some(expected_state) = expect["preScoreState"].as_array() {
        match pod_topology_spread::pre_score(&profile.spread, &pod, &snapshot, &candidates) {
            None => problems.push("PreScore state: none (Skip), expected one".to_string()),
            Some(state) => {
                compare_pre_score_state(&mut problems, &state, expected_state);
                if let Some(ignored) = expect["ignoredNodes"].as_array() {
                    let expected: BTreeSet<&str> =
                        ignored.iter().filter_map(Value::as_str).collect();
                    let actual: BTreeSet<&str> = state
                        .ignored_nodes
                        .iter()
                        .map(|i| snapshot.nodes[*i].node.name.as_str())
                        .collect();
                    if expected != actual {
                        problems.push(format!("ignored nodes {actual:?}, expected {expected:?}"));
                    }
                }
            }
        }
    }
    // PreFilter extension steps (AddPod / RemovePod): `upstream_state`.
    crate::upstream_state::check_steps(&mut problems, case, &profile, &snapshot, &pod, state)?;
    Ok(problems)
}

fn compare_pre_filter_state(
    problems: &mut Vec<String>,
    state: &pod_topology_spread::PreFilterState,
    expected: &[Value],
) {
    if state.constraints.len() != expected.len() {
        problems.push(format!(
            "PreFilter state: {} constraints, expected {}",
            state.constraints.len(),
            expected.len()
        ));
        return;
    }
    for (index, want) in expected.iter().enumerate() {
        let constraint = &state.constraints[index];
        let domains: BTreeMap<String, i64> = state.domains[index].match_num();
        let want_domains: BTreeMap<String, i64> = want["domains"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(-1)))
                    .collect()
            })
            .unwrap_or_default();
        let checks = [
            (
                "topologyKey",
                Value::from(constraint.topology_key.clone()),
                want["topologyKey"].clone(),
            ),
            (
                "maxSkew",
                Value::from(constraint.max_skew),
                want["maxSkew"].clone(),
            ),
            (
                "minDomains",
                Value::from(constraint.min_domains),
                want["minDomains"].clone(),
            ),
            (
                "minMatch",
                Value::from(state.domains[index].critical_paths.min()),
                want["minMatch"].clone(),
            ),
        ];
        for (field, actual, wanted) in checks {
            if !wanted.is_null() && actual != wanted {
                problems.push(format!(
                    "PreFilter state [{index}].{field} = {actual}, expected {wanted}"
                ));
            }
        }
        if domains != want_domains {
            problems.push(format!(
                "PreFilter state [{index}].domains = {domains:?}, expected {want_domains:?}"
            ));
        }
    }
}

fn compare_pre_score_state(
    problems: &mut Vec<String>,
    state: &pod_topology_spread::PreScoreState,
    expected: &[Value],
) {
    if state.constraints.len() != expected.len() {
        problems.push(format!(
            "PreScore state: {} constraints, expected {}",
            state.constraints.len(),
            expected.len()
        ));
        return;
    }
    for (index, want) in expected.iter().enumerate() {
        let constraint = &state.constraints[index];
        if want["topologyKey"].as_str() != Some(constraint.topology_key.as_str())
            || want["maxSkew"].as_i64() != Some(constraint.max_skew as i64)
        {
            problems.push(format!(
                "PreScore state [{index}]: key/maxSkew {} {}, expected {} {}",
                constraint.topology_key, constraint.max_skew, want["topologyKey"], want["maxSkew"]
            ));
        }
        let want_counts: BTreeMap<String, i64> = want["counts"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(-1)))
                    .collect()
            })
            .unwrap_or_default();
        let counts = if constraint.topology_key == spreadlab_engine::model::LABEL_HOSTNAME {
            BTreeMap::new()
        } else {
            state.topology_value_to_pod_counts[index].clone()
        };
        if counts != want_counts {
            problems.push(format!(
                "PreScore state [{index}].counts = {counts:?}, expected {want_counts:?}"
            ));
        }
        if let Some(size) = want["weightArg"].as_u64()
            && state.topology_size[index] as u64 != size
        {
            problems.push(format!(
                "PreScore state [{index}] size {}, expected {size}",
                state.topology_size[index]
            ));
        }
        if let Some(weight) = want["weight"].as_f64()
            && (state.topology_normalizing_weight[index] - weight).abs() > 1e-12
        {
            problems.push(format!(
                "PreScore state [{index}] weight {}, expected {weight}",
                state.topology_normalizing_weight[index]
            ));
        }
    }
}

#[cfg(test)]
mod workspace_tests {
    use super::find_workspace;

    /// A member crate's directory finds the workspace above it, not its own `Cargo.toml`; a
    /// directory outside any workspace finds none.
    #[test]
    fn the_nearest_workspace_manifest_wins() {
        let root = std::env::temp_dir().join(format!("spreadlab-ws-{}", std::process::id()));
        let member = root.join("crates/member/src");
        std::fs::create_dir_all(&member).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/member/Cargo.toml"),
            "[package]\nname = \"member\"\n",
        )
        .unwrap();
        assert_eq!(find_workspace(&member), Some(root.clone()));
        let outside = std::env::temp_dir().join(format!("spreadlab-none-{}", std::process::id()));
        std::fs::create_dir_all(&outside).unwrap();
        assert_ne!(find_workspace(&outside), Some(outside.clone()));
        std::fs::remove_dir_all(&root).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }
}
