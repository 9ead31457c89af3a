//! Runner for the `steps` of `tests/upstream` tables: upstream's PreFilter-extension state tests
//! (`TestPreFilterStateAddPod`, `TestPreFilterStateRemovePod`, `TestPreFilterStateAddRemovePod`),
//! which call `AddPod` / `RemovePod` on the state PreFilter stored and compare the state after each
//! call. Format: `tests/upstream/README.md` ("PreFilter extension steps").

use std::collections::BTreeMap;

use serde_json::Value;
use spreadlab_engine::framework::runtime::{CycleState, run_pre_filter};
use spreadlab_engine::framework::{PodInfo, Profile, Snapshot, TopologyIndex};
use spreadlab_engine::plugins::{inter_pod_affinity, pod_topology_spread, registry};

/// Upstream `criticalPaths`: two `(topologyValue, matchNum)` pairs.
type Paths = [(String, i64); 2];

/// Count maps as the tables write them: topology key, then value, then count.
type Counts = BTreeMap<String, BTreeMap<String, i64>>;

/// Runs the case's `steps` on `state` (what PreFilter stored for `pod` over `snapshot`), in order:
/// each `addPod` / `removePod` is the PreFilter extension of every plugin with state in the cycle
/// (upstream calls the one plugin under test; only it has state here), with the step's pod on the
/// step's node, as upstream passes `nodeInfo` of that node; then the step's `expect` is checked.
/// The snapshot is never changed, as in upstream's tests.
pub(crate) fn check_steps(
    problems: &mut Vec<String>,
    case: &Value,
    profile: &Profile,
    snapshot: &Snapshot,
    pod: &PodInfo,
    mut state: CycleState,
) -> Result<(), String> {
    let Some(steps) = case["steps"].as_array() else {
        return Ok(());
    };
    // The cluster as the steps leave it, for `equalsFreshPreFilter`.
    let mut objects: Vec<Value> = case["objects"].as_array().cloned().unwrap_or_default();
    for (number, step) in steps.iter().enumerate() {
        let (op, delta) = match (step.get("addPod"), step.get("removePod")) {
            (Some(op), None) => (op, 1),
            (None, Some(op)) => (op, -1),
            _ => {
                return Err(format!(
                    "step {number}: want exactly one of addPod, removePod"
                ));
            }
        };
        let what = format!(
            "step {number} ({} {})",
            if delta == 1 { "AddPod" } else { "RemovePod" },
            op["pod"]["metadata"]["name"].as_str().unwrap_or("?")
        );
        let node_name = op["node"].as_str().ok_or(format!("{what}: no node"))?;
        let node_index = *snapshot
            .node_index
            .get(node_name)
            .ok_or(format!("{what}: no node {node_name:?}"))?;
        let info = PodInfo::new(crate::upstream::engine_pod(&op["pod"])?);
        registry::update_state(snapshot, &mut state, pod, &info, node_index, delta);
        if delta == 1 {
            objects.push(op["pod"].clone());
        } else {
            let key = |o: &Value| {
                (
                    o["metadata"]["namespace"].clone(),
                    o["metadata"]["name"].clone(),
                )
            };
            let removed = key(&op["pod"]);
            objects.retain(|o| o["kind"] != "Pod" || key(o) != removed);
        }

        let expect = &step["expect"];
        if let Some(want) = expect["preFilterState"].as_array() {
            match &state.spread {
                None => problems.push(format!("{what}: no PodTopologySpread state")),
                Some(spread) => compare_spread(problems, &what, spread, want),
            }
        }
        if !expect["interPodAffinityState"].is_null() {
            match &state.inter_pod_affinity {
                None => problems.push(format!("{what}: no InterPodAffinity state")),
                Some(affinity) => {
                    for (field, actual) in affinity_counts(affinity) {
                        let want = &expect["interPodAffinityState"][field];
                        if !want.is_null() && actual != counts_of(want) {
                            problems.push(format!(
                                "{what}: {field} = {actual:?}, expected {:?}",
                                counts_of(want)
                            ));
                        }
                    }
                }
            }
        }
        if expect["equalsFreshPreFilter"].as_bool() == Some(true) {
            compare_fresh(problems, &what, profile, pod, &state, objects.clone())?;
        }
    }
    Ok(())
}

/// `equalsFreshPreFilter`: the state equals what PreFilter computes over the objects as the steps
/// so far left them (upstream: `allPodsState` after AddPod, `originalState` after RemovePod).
/// InterPodAffinity only: its three count maps are compared (the incoming pod and its namespace
/// labels are the same on both sides by construction).
fn compare_fresh(
    problems: &mut Vec<String>,
    what: &str,
    profile: &Profile,
    pod: &PodInfo,
    state: &CycleState,
    objects: Vec<Value>,
) -> Result<(), String> {
    let loaded = crate::upstream::load_objects(objects)?;
    let (snapshot, _) = Snapshot::new(&loaded.cluster, profile.version);
    let (fresh, _) = run_pre_filter(profile, &snapshot, pod);
    match (&state.inter_pod_affinity, &fresh.inter_pod_affinity) {
        (Some(updated), Some(fresh)) => {
            for ((field, actual), (_, want)) in affinity_counts(updated)
                .into_iter()
                .zip(affinity_counts(fresh))
            {
                if actual != want {
                    problems.push(format!(
                        "{what}: {field} = {actual:?}, but a fresh PreFilter over the cluster as \
                         the steps left it gives {want:?}"
                    ));
                }
            }
        }
        _ => {
            return Err(format!(
                "{what}: equalsFreshPreFilter needs InterPodAffinity state"
            ));
        }
    }
    Ok(())
}

/// The three count maps of InterPodAffinity's state, by upstream field name.
fn affinity_counts(state: &inter_pod_affinity::PreFilterState) -> [(&'static str, Counts); 3] {
    let nest = |counts: &inter_pod_affinity::TopologyCounts| {
        let mut nested = Counts::new();
        for ((key, value), count) in counts.to_map() {
            nested.entry(key).or_default().insert(value, count);
        }
        nested
    };
    [
        (
            "existingAntiAffinityCounts",
            nest(&state.existing_anti_affinity_counts),
        ),
        ("affinityCounts", nest(&state.affinity_counts)),
        ("antiAffinityCounts", nest(&state.anti_affinity_counts)),
    ]
}

/// A table's count map (`{key: {value: count}}`).
fn counts_of(value: &Value) -> Counts {
    let inner = |v: &Value| -> BTreeMap<String, i64> {
        v.as_object()
            .into_iter()
            .flatten()
            .map(|(value, count)| (value.clone(), count.as_i64().unwrap_or(i64::MIN)))
            .collect()
    };
    value
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, values)| (key.clone(), inner(values)))
        .collect()
}

/// Upstream's `criticalPaths.sort` (from the test's `stateCmpOpts`): two paths with the same
/// count are compared with their values in alphabetical order.
fn sorted(mut paths: Paths) -> Paths {
    if paths[0].1 == paths[1].1 && paths[0].0 > paths[1].0 {
        let (first, second) = paths.split_at_mut(1);
        std::mem::swap(&mut first[0].0, &mut second[0].0);
    }
    paths
}

/// PodTopologySpread's state against `preFilterState` entries (one per constraint, spec order).
fn compare_spread(
    problems: &mut Vec<String>,
    what: &str,
    state: &pod_topology_spread::PreFilterState,
    want: &[Value],
) {
    if state.constraints.len() != want.len() {
        problems.push(format!(
            "{what}: {} constraints, expected {}",
            state.constraints.len(),
            want.len()
        ));
        return;
    }
    for (index, want) in want.iter().enumerate() {
        let constraint = &state.constraints[index];
        let table = &state.domains[index];
        let fields = [
            ("topologyKey", Value::from(constraint.topology_key.clone())),
            ("maxSkew", Value::from(constraint.max_skew)),
            ("minDomains", Value::from(constraint.min_domains)),
        ];
        for (field, actual) in fields {
            if !want[field].is_null() && actual != want[field] {
                problems.push(format!(
                    "{what}: [{index}].{field} = {actual}, expected {}",
                    want[field]
                ));
            }
        }
        let domains = table.match_num();
        let want_domains: BTreeMap<String, i64> = want["domains"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(i64::MIN)))
            .collect();
        if domains != want_domains {
            problems.push(format!(
                "{what}: [{index}].domains = {domains:?}, expected {want_domains:?}"
            ));
        }
        if let Some(want_paths) = want["criticalPaths"].as_array() {
            let path = |(domain, count): (u32, i64)| {
                let value = if domain == TopologyIndex::NO_VALUE {
                    String::new()
                } else {
                    table.index.values[domain as usize].clone()
                };
                (value, count)
            };
            let actual = sorted(table.critical_paths.0.map(path));
            let parsed: Vec<(String, i64)> = want_paths
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap_or_default().to_string(),
                        p[1].as_i64().unwrap_or(i64::MIN),
                    )
                })
                .collect();
            match <[(String, i64); 2]>::try_from(parsed) {
                Ok(expected) if sorted(expected.clone()) == actual => {}
                Ok(expected) => problems.push(format!(
                    "{what}: [{index}].criticalPaths = {actual:?}, expected {expected:?}"
                )),
                Err(_) => problems.push(format!("{what}: [{index}].criticalPaths: want 2 pairs")),
            }
        }
    }
}
