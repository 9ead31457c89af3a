//! `decide` on the stored admission requests of `test_data/` against the seed clusters. Expected
//! verdicts come from the real kube-scheduler's recordings (`tests/scenarios/*/expected.jsonl`) or
//! from the fixture's own stated expectation (`tests/analyses/*.yaml`, checked by the CLI tests
//! too), never from this policy's output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use spreadlab_policy::Prepared;
use spreadlab_policy::decide::Decision;
use spreadlab_policy::snapshot::FixtureCluster;

fn repo() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("../..")
}

fn yaml_objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

fn cluster(path: &str) -> FixtureCluster {
    FixtureCluster::new(yaml_objects(&repo().join(path)))
}

fn payload(name: &str) -> Vec<u8> {
    let path = repo().join(format!("crates/policy/test_data/{name}.json"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The policy's decision, made both ways: reading the cluster for this decision, and on the
/// cluster loaded once (`Prepared`, what `spreadlab serve` does), which must agree exactly.
fn decide_payload(payload: &[u8], cluster: &FixtureCluster) -> Decision {
    let decision = spreadlab_policy::decide_payload(payload, cluster);
    if let Ok(prepared) = Prepared::new(std::sync::Arc::new(cluster.clone())) {
        // Twice: the second decision runs on the snapshot the first one rolled back.
        for round in 0..2 {
            let again = spreadlab_policy::decide_payload_prepared(payload, &prepared);
            assert_eq!(again, decision, "prepared cluster, round {round}");
        }
    }
    decision
}

fn run(name: &str, cluster: &FixtureCluster) -> Decision {
    decide_payload(&payload(name), cluster)
}

fn rejection(decision: &Decision) -> &str {
    match decision {
        Decision::Reject { message } => message,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

/// The first workload of each seed scenario, admitted on its cluster with the default settings
/// (reject when a replica would be Pending). The verdict follows from the recording of the real
/// kube-scheduler: reject exactly when one of the workload's pods stayed Pending there, with the
/// recorded `0/N nodes are available: ...` sentence in the message. Only workloads scheduled first
/// in the recording are used (later ones depend on the earlier workloads' placements).
#[test]
fn seed_scenarios_follow_the_real_scheduler() {
    let mut checked = 0;
    let mut rejected = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(repo().join("tests/scenarios"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    dirs.sort();
    // Each release's recording, with the setting `kubernetesVersion` naming that release.
    for (version, recording) in [
        ("1.34", "expected-1.34.jsonl"),
        ("1.35", "expected.jsonl"),
        ("1.36", "expected-1.36.jsonl"),
        ("1.37", "expected-1.37.jsonl"),
    ] {
        for dir in &dirs {
            let name = dir.file_name().unwrap().to_string_lossy().to_string();
            let stored: Value =
                serde_json::from_slice(&payload(&format!("scenario-{name}"))).unwrap();
            let object = &stored["request"]["object"];
            let prefix = format!(
                "{}/{}-",
                object["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("default"),
                object["metadata"]["name"].as_str().unwrap()
            );
            let recorded: Vec<Value> = std::fs::read_to_string(dir.join(recording))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let first_other = recorded
                .iter()
                .position(|r| !r["pod"].as_str().unwrap().starts_with(&prefix))
                .unwrap_or(recorded.len());
            if recorded[first_other..]
                .iter()
                .any(|r| r["pod"].as_str().unwrap().starts_with(&prefix))
            {
                continue; // interleaved with another workload: not independent
            }
            let pending: Vec<&Value> = recorded[..first_other]
                .iter()
                .filter(|r| r["node"].is_null())
                .collect();
            let mut with_version = stored.clone();
            with_version["settings"]["kubernetesVersion"] = Value::from(version);
            let decision = decide_payload(
                &serde_json::to_vec(&with_version).unwrap(),
                &cluster(&format!("tests/scenarios/{name}/cluster.yaml")),
            );
            let name = format!("{name} (Kubernetes {version})");
            checked += 1;
            if pending.is_empty() {
                assert_eq!(
                    decision,
                    Decision::Accept { warnings: vec![] },
                    "{name}: the real scheduler placed every replica"
                );
            } else {
                rejected += 1;
                let message = rejection(&decision);
                // Of the desired replicas (running ones in the cluster count; the recording has the
                // pods created).
                let desired = object["spec"]["replicas"].as_u64().unwrap_or(1);
                let expected =
                    format!("{} of {desired} replicas would stay Pending", pending.len());
                assert!(message.contains(&expected), "{name}: {message}");
                let recorded_message = pending[0]["message"].as_str().unwrap();
                let first_sentence = recorded_message.split(". ").next().unwrap();
                assert!(
                    message.contains(first_sentence),
                    "{name}: {message}\nrecorded: {recorded_message}"
                );
                assert!(
                    message.chars().count() <= 1200,
                    "{name}: short enough for kubectl"
                );
            }
        }
    }
    assert!(
        checked >= 40,
        "only {checked} scenario checks were independent"
    );
    assert!(rejected >= 4, "only {rejected} rejections");
}

/// tests/analyses/rollout-gpu-busy.yaml: every GPU busy, maxSurge 1 / maxUnavailable 0 → the
/// surge pod cannot be placed and no old pod may go (the fixture's stated expectation).
#[test]
fn rollout_that_stalls_is_rejected_and_a_relabel_is_not() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let message = rejection(&run("rollout-gpu-busy-update", &cluster)).to_owned();
    assert!(message.contains("would stall at step 0"), "{message}");
    assert!(message.contains("Insufficient nvidia.com/gpu"), "{message}");
    assert!(message.contains("completes with:"), "{message}");
    // No template change: no rollout; the three running pods are its replicas.
    assert_eq!(
        run("rollout-gpu-busy-relabel", &cluster),
        Decision::Accept { warnings: vec![] }
    );
}

/// The same UPDATE judged on its end state (rejectPending): the three old pods go, and the three
/// new ones fit one per zone on the GPUs the old ones held; without removing the old revision
/// every GPU would look busy.
#[test]
fn update_with_a_new_template_is_judged_on_its_end_state() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let mut stored: Value = serde_json::from_slice(&payload("rollout-gpu-busy-update")).unwrap();
    stored["settings"] = json!({});
    assert_eq!(
        decide_payload(stored.to_string().as_bytes(), &cluster),
        Decision::Accept { warnings: vec![] }
    );
    // As a CREATE of a second Deployment with the same pods (another name), nothing is freed.
    stored["request"]["operation"] = json!("CREATE");
    stored["request"]["oldObject"] = Value::Null;
    stored["request"]["object"]["metadata"]["name"] = json!("infer-two");
    stored["request"]["object"]["spec"]["selector"]["matchLabels"]["app"] = json!("infer-two");
    stored["request"]["object"]["spec"]["template"]["metadata"]["labels"]["app"] =
        json!("infer-two");
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &cluster)).to_owned();
    assert!(
        message.contains("3 of 3 replicas would stay Pending"),
        "{message}"
    );
    assert!(message.contains("Insufficient nvidia.com/gpu"), "{message}");
}

/// tests/analyses/spread-three-zones.yaml: one replica per zone. Removing a zone, its replica is
/// rescheduled (100%); an unreachable zone still counts as an empty domain under the default
/// nodeTaintsPolicy, so the replacement stays Pending (66%).
#[test]
fn zone_loss_survival() {
    let cluster = cluster("tests/analyses/spread-three-zones.yaml");
    assert_eq!(
        run("spread-three-zones-survival-removed", &cluster),
        Decision::Accept { warnings: vec![] }
    );
    let message = rejection(&run("spread-three-zones-survival-unreachable", &cluster)).to_owned();
    assert!(
        message.contains("leaves 2 of 3 replicas running (66%), policy requires 100%"),
        "{message}"
    );
    assert!(
        message.contains("didn't match pod topology spread constraints"),
        "{message}"
    );
    assert_eq!(
        run("spread-three-zones-min-domains", &cluster),
        Decision::Accept { warnings: vec![] }
    );
}

#[test]
fn static_rules() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let message = rejection(&run("static-no-zone-spread", &cluster)).to_owned();
    assert_eq!(
        message,
        "spreadlab (kube-scheduler v1.37): Deployment default/infer: [zone-spread-required] no topologySpreadConstraint on topology.kubernetes.io/zone (required by policy)"
    );
    let message = rejection(&run("static-soft-wide-spread", &cluster)).to_owned();
    assert!(
        message.contains("maxSkew 3, policy allows at most 1"),
        "{message}"
    );
    assert!(
        message.contains("is ScheduleAnyway, policy requires DoNotSchedule"),
        "{message}"
    );
}

#[test]
fn mutation_adds_zone_spread_selecting_own_pods() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let Decision::Mutate { object, warnings } = run("mutate-no-zone-spread", &cluster) else {
        panic!("expected a mutation");
    };
    assert!(warnings.is_empty());
    assert_eq!(
        object["spec"]["template"]["spec"]["topologySpreadConstraints"],
        json!([{
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "infer"}},
            "matchLabelKeys": ["pod-template-hash"]
        }])
    );
}

/// The GPU scenario's template as other kinds: a StatefulSet places like the Deployment (the
/// recording: third replica Pending); one Pod fits (the recording placed the first replica).
#[test]
fn other_kinds() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let message = rejection(&run("statefulset-gpu-three-zones", &cluster)).to_owned();
    assert!(
        message.starts_with("spreadlab (kube-scheduler v1.37): StatefulSet default/infer: 1 of 3 replicas would stay Pending: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu."),
        "{message}"
    );
    assert_eq!(
        run("pod-gpu-three-zones", &cluster),
        Decision::Accept { warnings: vec![] }
    );
    assert_eq!(
        run("replicaset-owned-gpu-three-zones", &cluster),
        Decision::Accept { warnings: vec![] },
        "a Deployment's ReplicaSet is skipped by default"
    );
    let message = rejection(&run("replicaset-owned-checked-gpu-three-zones", &cluster)).to_owned();
    assert!(
        message.contains("1 of 3 replicas would stay Pending"),
        "{message}"
    );
}

#[test]
fn malformed_requests_are_never_silently_accepted() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let message = rejection(&run("malformed-object", &cluster)).to_owned();
    assert_eq!(
        message,
        "spreadlab: cannot read the request: request.object: not an object"
    );
    let message = rejection(&run("malformed-no-selector", &cluster)).to_owned();
    assert!(
        message.starts_with("spreadlab: cannot read the object: spec.selector"),
        "{message}"
    );
    let Decision::Accept { warnings } = run("malformed-no-selector-warn", &cluster) else {
        panic!("onUnparseable: warn accepts");
    };
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("accepted unchecked"), "{warnings:?}");

    for (payload, expected) in [
        (&b"not json"[..], "cannot read the request: (payload): not JSON"),
        (&br#"{"settings": {}}"#[..], "cannot read the request: request: missing"),
        (
            &br#"{"settings": {"maxSkew": 0}, "request": {}}"#[..],
            "invalid policy settings: maxSkew: must be at least 1",
        ),
        (
            &br#"{"request": {"kind": {"group": "apps", "kind": "Deployment"}, "operation": "CREATE"}}"#[..],
            "request.object: missing",
        ),
    ] {
        let message = rejection(&decide_payload(payload, &cluster)).to_owned();
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn failed_cluster_reads_follow_on_unparseable() {
    let mut cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    cluster.failing.push("Pod");
    let message = rejection(&run("scenario-gpu-three-zones-one-full", &cluster)).to_owned();
    assert_eq!(
        message,
        "spreadlab: cannot read the cluster: cannot list Pod (v1): fixture read failure"
    );
}

#[test]
fn warn_mode_accepts_with_the_violations_as_warnings() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let mut stored: Value =
        serde_json::from_slice(&payload("scenario-gpu-three-zones-one-full")).unwrap();
    stored["settings"] = json!({"mode": "warn"});
    let decision = decide_payload(stored.to_string().as_bytes(), &cluster);
    let Decision::Accept { warnings } = decision else {
        panic!("warn mode accepts: {decision:?}");
    };
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("1 of 3 replicas would stay Pending"));
}

#[test]
fn scope_settings_skip_requests() {
    let cluster = cluster("tests/scenarios/gpu-three-zones-one-full/cluster.yaml");
    let stored: Value =
        serde_json::from_slice(&payload("scenario-gpu-three-zones-one-full")).unwrap();
    for settings in [
        json!({"scope": {"namespaces": ["other"]}}),
        json!({"scope": {"excludedNamespaces": ["default"]}}),
        json!({"scope": {"labelSelector": {"matchLabels": {"team": "x"}}}}),
        json!({"scope": {"gpuOnly": true, "gpuResources": ["amd.com/gpu"]}}),
    ] {
        let mut request = stored.clone();
        request["settings"] = settings.clone();
        assert_eq!(
            decide_payload(request.to_string().as_bytes(), &cluster),
            Decision::Accept { warnings: vec![] },
            "{settings}"
        );
    }
    let mut request = stored.clone();
    request["settings"] = json!({"scope": {"gpuOnly": true}});
    assert!(matches!(
        decide_payload(request.to_string().as_bytes(), &cluster),
        Decision::Reject { .. }
    ));
}

#[test]
fn lint_rules_are_enforced_by_id() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let mut stored: Value = serde_json::from_slice(&payload("rollout-gpu-busy-update")).unwrap();
    stored["settings"] =
        json!({"rejectPending": false, "lintRules": ["missing-pod-template-hash-key"]});
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &cluster)).to_owned();
    assert!(
        message.contains("[missing-pod-template-hash-key]"),
        "{message}"
    );
}

/// A ReplicaSet does not replace its pods when its template changes: an UPDATE keeps them, so
/// nothing is freed and nothing new is placed.
#[test]
fn replica_set_template_change_keeps_its_pods() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let mut stored: Value = serde_json::from_slice(&payload("rollout-gpu-busy-update")).unwrap();
    stored["settings"] = json!({"scope": {"checkControlledObjects": true}});
    for side in ["object", "oldObject"] {
        stored["request"][side]["kind"] = json!("ReplicaSet");
        stored["request"][side]["metadata"]["name"] = json!("infer-6d4cf56db6");
    }
    stored["request"]["kind"]["kind"] = json!("ReplicaSet");
    // The running pods are its replicas (selector app=infer): none missing, accepted.
    assert_eq!(
        decide_payload(stored.to_string().as_bytes(), &cluster),
        Decision::Accept { warnings: vec![] }
    );
    // Scaled to 4 with the GPUs still held by its own pods: the fourth stays Pending.
    stored["request"]["object"]["spec"]["replicas"] = json!(4);
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &cluster)).to_owned();
    assert!(
        message.contains("1 of 4 replicas would stay Pending"),
        "{message}"
    );
}

/// The rollout-gpu-busy UPDATE with neither revision carrying a spread constraint: a re-applied
/// manifest of a workload created before the policy (no template change as sent).
fn unspread_update() -> Value {
    let mut stored: Value = serde_json::from_slice(&payload("rollout-gpu-busy-update")).unwrap();
    for side in ["object", "oldObject"] {
        stored["request"][side]["spec"]["template"]["spec"]
            .as_object_mut()
            .unwrap()
            .remove("topologySpreadConstraints");
    }
    stored["request"]["object"] = stored["request"]["oldObject"].clone();
    stored["settings"] =
        json!({"mutate": true, "rejectPending": false, "rejectRolloutStall": true});
    stored
}

/// The mutating variant judges the object it admits. tests/analyses/rollout-gpu-busy.yaml: every
/// GPU busy, default strategy (maxSurge 1, maxUnavailable 0), so any template change stalls (the
/// fixture's stated expectation). An UPDATE sent unchanged that the mutation gives a zone spread
/// is a template change, so a rollout, and stalls; re-applying the un-mutated manifest of a
/// workload the mutation had completed before is no template change, so no rollout.
#[test]
fn mutation_that_changes_the_template_is_a_rollout() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let stored = unspread_update();
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &cluster)).to_owned();
    assert!(message.contains("would stall at step 0"), "{message}");

    // The old revision as the mutation left it; the new one is the manifest without the spread.
    let mut mutated_before = stored.clone();
    let Decision::Mutate { object, .. } = decide_payload(
        {
            let mut create = stored.clone();
            create["request"]["operation"] = json!("CREATE");
            create["request"]["oldObject"] = Value::Null;
            create["settings"] = json!({"mutate": true, "rejectPending": false});
            create.to_string()
        }
        .as_bytes(),
        &cluster,
    ) else {
        panic!("the CREATE is mutated");
    };
    mutated_before["request"]["oldObject"] = object;
    mutated_before["request"]["object"]["spec"]["replicas"] = json!(3);
    assert!(
        matches!(
            decide_payload(mutated_before.to_string().as_bytes(), &cluster),
            Decision::Mutate { .. }
        ),
        "a re-applied manifest the mutation completes to the old template is no rollout"
    );
}

/// `scope.gpuOnly`: a workload requesting no GPU is out of scope, so it is neither checked nor
/// mutated; the same workload with a GPU request is mutated.
#[test]
fn out_of_scope_workloads_are_not_mutated() {
    let cluster = cluster("tests/analyses/rollout-gpu-busy.yaml");
    let mut stored = unspread_update();
    stored["request"]["operation"] = json!("CREATE");
    stored["request"]["oldObject"] = Value::Null;
    stored["settings"] =
        json!({"mutate": true, "rejectPending": false, "scope": {"gpuOnly": true}});
    assert!(matches!(
        decide_payload(stored.to_string().as_bytes(), &cluster),
        Decision::Mutate { .. }
    ));
    let container = &mut stored["request"]["object"]["spec"]["template"]["spec"]["containers"][0];
    container["resources"] = json!({"requests": {"cpu": "1"}});
    assert_eq!(
        decide_payload(stored.to_string().as_bytes(), &cluster),
        Decision::Accept { warnings: vec![] }
    );
}

/// tests/scenarios/service-default-spread: the inventory Deployment has no spread constraints,
/// so PodTopologySpread's system defaults place it, with the selector built from the Services
/// selecting its pods and its ReplicaSet. With a hostname `minDomains` above what it reaches, the
/// rejection lists the hosts its nine replicas run on: the two running pods' nodes and the nodes
/// the real kube-scheduler chose for the seven new ones (the recording, expected.jsonl).
/// Services are read from the cluster: a failed Service list is a failed read, never a guess.
/// (On this scenario the Services' labels select the same pods as the ReplicaSet's selector, so
/// the placement alone does not show the read.)
#[test]
fn default_spreading_reads_services() {
    let dir = "tests/scenarios/service-default-spread";
    let fixture = cluster(&format!("{dir}/cluster.yaml"));
    let mut hosts: BTreeSet<String> = fixture
        .objects
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .filter(|o| o["metadata"]["labels"]["app"] == "inventory")
        .map(|o| o["spec"]["nodeName"].as_str().unwrap().to_owned())
        .collect();
    let recording = std::fs::read_to_string(repo().join(format!("{dir}/expected.jsonl"))).unwrap();
    for line in recording.lines().filter(|l| !l.trim().is_empty()) {
        let decision: Value = serde_json::from_str(line).unwrap();
        if decision["pod"]
            .as_str()
            .unwrap()
            .starts_with("retail/inventory-")
        {
            hosts.insert(decision["node"].as_str().unwrap().to_owned());
        }
    }
    let mut stored: Value =
        serde_json::from_slice(&payload("scenario-service-default-spread")).unwrap();
    assert_eq!(stored["request"]["object"]["metadata"]["name"], "inventory");
    stored["settings"] = json!({"requiredTopologyKeys": [
        {"topologyKey": "kubernetes.io/hostname", "minDomains": 9}
    ]});
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &fixture)).to_owned();
    let list = hosts.iter().cloned().collect::<Vec<_>>().join(", ");
    assert!(
        message.contains(&format!(
            "replicas would run in {} kubernetes.io/hostname domain(s) [{list}], policy requires 9",
            hosts.len()
        )),
        "{message}"
    );
    let mut failing = fixture.clone();
    failing.failing = vec!["Service"];
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &failing)).to_owned();
    assert!(message.contains("cannot list Service (v1)"), "{message}");
}

/// tests/analyses/rollout-gpu-busy.yaml as a StatefulSet `infer` (its three pods `infer-0..2`,
/// owned by it),
/// updated to two GPUs per replica. Under the default RollingUpdate the StatefulSet controller
/// replaces every pod (upstream pkg/controller/statefulset/stateful_set_control.go): judged on
/// the end state, no node has two GPUs (NodeResourcesFit), so all three new replicas stay
/// Pending. Under `OnDelete` it replaces none until they are deleted: the running pods stay its
/// replicas and nothing new is placed.
#[test]
fn stateful_set_updates_follow_the_update_strategy() {
    let mut fixture = cluster("tests/analyses/rollout-gpu-busy.yaml");
    for (ordinal, object) in fixture
        .objects
        .iter_mut()
        .filter(|o| o["kind"] == "Pod")
        .enumerate()
    {
        object["metadata"]["name"] = json!(format!("infer-{ordinal}"));
        object["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1",
            "kind": "StatefulSet", "name": "infer", "uid": "ss", "controller": true}]);
    }
    let mut stored: Value = serde_json::from_slice(&payload("rollout-gpu-busy-update")).unwrap();
    stored["settings"] = json!({});
    stored["request"]["kind"]["kind"] = json!("StatefulSet");
    for side in ["object", "oldObject"] {
        stored["request"][side]["kind"] = json!("StatefulSet");
        stored["request"][side]["spec"]["serviceName"] = json!("infer");
    }
    let resources =
        &mut stored["request"]["object"]["spec"]["template"]["spec"]["containers"][0]["resources"];
    resources["requests"]["nvidia.com/gpu"] = json!("2");
    resources["limits"]["nvidia.com/gpu"] = json!("2");
    let message = rejection(&decide_payload(stored.to_string().as_bytes(), &fixture)).to_owned();
    assert!(
        message.contains("StatefulSet default/infer: 3 of 3 replicas would stay Pending")
            && message.contains("Insufficient nvidia.com/gpu"),
        "{message}"
    );
    for side in ["object", "oldObject"] {
        stored["request"][side]["spec"]["updateStrategy"] = json!({"type": "OnDelete"});
    }
    assert_eq!(
        decide_payload(stored.to_string().as_bytes(), &fixture),
        Decision::Accept { warnings: vec![] }
    );
}

/// Three nodes of 8 cpu, each running a 7-cpu pod of another Deployment (`other`, through its
/// ReplicaSet) whose labels a new Deployment's selector also matches.
fn borrowed_cluster() -> FixtureCluster {
    let mut objects = Vec::new();
    for n in 0..3 {
        objects.push(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("n{n}"), "labels": {"topology.kubernetes.io/zone": format!("z{n}")}},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}));
        objects.push(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("other-7d4b9c-{n}"), "namespace": "default",
                "labels": {"app": "web"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "other-7d4b9c",
                    "uid": "u", "controller": true}]},
            "spec": {"nodeName": format!("n{n}"), "containers": [{"name": "c", "image": "x",
                "resources": {"requests": {"cpu": "7"}}}]},
            "status": {"phase": "Running"}}));
    }
    FixtureCluster::new(objects)
}

/// A new Deployment `web` of three 4-cpu replicas selecting `app: web`, with `metadata` extra.
fn web_request(metadata: Value) -> Vec<u8> {
    let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "4"}}}]}}}});
    for (key, value) in metadata.as_object().unwrap() {
        object["metadata"][key] = value.clone();
    }
    serde_json::to_vec(&json!({"settings": {}, "request": {
        "uid": "u", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "CREATE", "namespace": "default", "object": object}}))
    .unwrap()
}

/// Issue 20's two bypasses, refused with the scheduler's message. Expected from NodeResourcesFit
/// (`fit.go`): 4 cpu do not fit next to 7 of 8 on any node, and the running pods have the same
/// priority, so no victim can be preempted.
/// - A selector that matches another workload's running pods: replicas belong to a workload by
///   ownership, so the other Deployment's pods are not this one's (before, they were counted as
///   its 3 running replicas and nothing was simulated).
/// - An owner that is neither a Deployment nor a built-in controller (a ConfigMap, an operator's
///   resource): the object is checked (before, any controller reference put it out of scope).
#[test]
fn borrowed_selectors_and_foreign_owners_do_not_bypass_the_check() {
    let cluster = borrowed_cluster();
    let expected =
        "3 of 3 replicas would stay Pending: 0/3 nodes are available: 3 Insufficient cpu.";
    let plain = decide_payload(&web_request(json!({})), &cluster);
    assert!(rejection(&plain).contains(expected), "{plain:?}");
    for owner in [
        json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "c", "controller": true}),
        json!({"apiVersion": "example.com/v1", "kind": "InferenceService", "name": "svc", "uid": "i", "controller": true}),
    ] {
        let owned = decide_payload(
            &web_request(json!({"ownerReferences": [owner.clone()]})),
            &cluster,
        );
        assert!(rejection(&owned).contains(expected), "{owner}: {owned:?}");
    }
}

/// Issue 19: an admitted Deployment of 2^31−1 replicas is decided in bounded memory and time
/// (1,000 replicas built, the rest counted) and refused with the scheduler's message; before,
/// building every replica exhausted memory.
#[test]
fn the_largest_replica_count_is_decided_not_built() {
    let cluster = borrowed_cluster();
    let mut payload: Value = serde_json::from_slice(&web_request(json!({}))).unwrap();
    payload["request"]["object"]["spec"]["replicas"] = json!(2_147_483_647);
    let decision = decide_payload(&serde_json::to_vec(&payload).unwrap(), &cluster);
    let message = rejection(&decision);
    assert!(
        message.contains("2147483647 of 2147483647 replicas would stay Pending: 0/3 nodes are available: 3 Insufficient cpu."),
        "{message}"
    );
}

/// Many admissions judged one after another on one prepared cluster of 360 nodes (beyond the
/// 100 where the scheduler starts sampling nodes, so the queue's start index matters) decide as
/// each would on the cluster read afresh: hard and soft zone and host spreads, anti-affinity,
/// GPUs, sizes that fit and sizes that stay Pending, and default spreading through a Service.
#[test]
fn a_prepared_cluster_decides_many_admissions_as_fresh_reads_do() {
    let objects = large_cluster();
    let cluster = FixtureCluster::new(objects);
    let prepared = Prepared::new(std::sync::Arc::new(cluster.clone())).unwrap();
    // Accepted; rejected as Pending; rejected for too few zones.
    let mut counts = [0; 3];
    for case in 0..24u32 {
        let payload = admission(case);
        let fresh = spreadlab_policy::decide_payload(payload.as_bytes(), &cluster);
        let again = spreadlab_policy::decide_payload_prepared(payload.as_bytes(), &prepared);
        assert_eq!(again, fresh, "case {case}");
        let message = match &fresh {
            Decision::Reject { message } => message.as_str(),
            _ => "",
        };
        counts[0] += usize::from(message.is_empty());
        counts[1] += usize::from(message.contains("would stay Pending: 0/360 nodes are available"));
        counts[2] += usize::from(message.contains("policy requires 3"));
    }
    assert!(
        counts.iter().all(|&n| n >= 3),
        "{counts:?}: too few cases of a kind"
    );
}

/// 360 nodes in three zones (some with GPUs, some tainted) and 2,400 bound pods of 40 apps, the
/// pods in `namespace/name` order as a watched cluster lists them.
fn large_cluster() -> Vec<Value> {
    let zones = ["zone-a", "zone-b", "zone-c"];
    let mut objects: Vec<Value> = (0..360)
        .map(|n| {
            let name = format!("node-{n:03}");
            let gpu = if n % 4 == 0 { "8" } else { "0" };
            json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                    "topology.kubernetes.io/zone": zones[n % 3]}},
                "spec": if n % 17 == 0 { json!({"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}) } else { json!({}) },
                "status": {"allocatable": {"cpu": format!("{}", 8 + (n % 3) * 8), "memory": "64Gi",
                    "pods": "30", "nvidia.com/gpu": gpu}}})
        })
        .collect();
    for p in 0..2400 {
        let app = format!("svc-{}", p % 40);
        objects.push(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("{app}-{p}"), "namespace": "apps",
                "labels": {"app": app, "pod-template-hash": "h1"}},
            "spec": {"nodeName": format!("node-{:03}", (p * 7) % 360),
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running"}}));
    }
    objects.push(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "apps"}, "spec": {"selector": {"app": "web"}}}));
    objects.sort_by_key(|o| {
        let kind = o["kind"].as_str().unwrap_or_default().to_owned();
        let rank = ["Node", "Pod", "Service"].iter().position(|k| *k == kind);
        (
            rank,
            format!(
                "{}/{}",
                o["metadata"]["namespace"].as_str().unwrap_or(""),
                o["metadata"]["name"].as_str().unwrap_or("")
            ),
        )
    });
    objects
}

/// The admission request of case `case`: a Deployment of 3 to 900 replicas spread over zones or
/// hosts, hard or soft, some with anti-affinity or GPUs, half with a minDomains rule.
fn admission(case: u32) -> String {
    let replicas = [3, 12, 60, 900][case as usize % 4];
    let key = ["topology.kubernetes.io/zone", "kubernetes.io/hostname"][case as usize / 4 % 2];
    let when = ["DoNotSchedule", "ScheduleAnyway"][case as usize / 8 % 2];
    let app = if case.is_multiple_of(5) {
        String::from("web")
    } else {
        format!("app-{case}")
    };
    let mut spec = json!({"containers": [{"name": "c", "resources": {"requests":
        {"cpu": format!("{}", 1 + case % 4), "memory": "2Gi"}}}]});
    if case % 3 != 2 {
        spec["topologySpreadConstraints"] = json!([{"maxSkew": 1 + case % 2, "topologyKey": key,
        "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"app": app}}}]);
    }
    if case % 6 == 1 {
        spec["affinity"] = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        [{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": app}}}]}});
    }
    if case % 7 == 3 {
        spec["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": "2"});
    }
    let request = json!({"request": {"uid": format!("u{case}"),
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "name": app, "namespace": "apps", "operation": "CREATE",
        "object": {"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app, "namespace": "apps"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app}}, "spec": spec}}}},
        "settings": if case.is_multiple_of(2) { json!({"requiredTopologyKeys":
        [{"topologyKey": "topology.kubernetes.io/zone", "minDomains": 3}]}) } else { json!({}) }});
    request.to_string()
}

/// A prepared cluster advanced by pod and node changes (`Prepared::advance`, as `serve` applies a
/// watched cluster's events: nodes changed, added and deleted, pods deleted, relabelled and bound)
/// decides every case as a fresh read of the changed cluster does; a pod the source cannot list
/// is refused and leaves the model as it was.
#[test]
fn a_prepared_cluster_advanced_by_changes_decides_as_a_fresh_read() {
    use spreadlab_policy::prepared::{Change, ChangedKind};
    use std::sync::Arc;
    let mut objects = large_cluster();
    let prepared = Prepared::new(Arc::new(FixtureCluster::new(objects.clone()))).unwrap();
    let name = |o: &Value| {
        o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let at =
        |objects: &[Value], wanted: &str| objects.iter().position(|o| name(o) == wanted).unwrap();
    let shared = |v: &Value| Some(Arc::new(v.clone()));
    let mut rounds = 0;
    for round in 0..4usize {
        let mut changes = Vec::new();
        // A pod deleted, one relabelled into `web` (the Service's app), one moved to another node.
        for (step, p) in [
            (0, 7 + round * 31),
            (1, 500 + round * 97),
            (2, 1200 + round * 13),
        ] {
            let wanted = format!("svc-{}-{p}", p % 40);
            let index = at(&objects, &wanted);
            let old = objects[index].clone();
            match step {
                0 => {
                    objects.remove(index);
                    changes.push(Change {
                        kind: ChangedKind::Pod,
                        old: shared(&old),
                        new: None,
                    });
                }
                1 => {
                    objects[index]["metadata"]["labels"]["app"] = json!("web");
                    changes.push(Change {
                        kind: ChangedKind::Pod,
                        old: shared(&old),
                        new: shared(&objects[index]),
                    });
                }
                _ => {
                    // Deleted, and a replacement bound elsewhere (it sorts right after it).
                    let mut new = old.clone();
                    new["metadata"]["name"] = json!(format!("{wanted}-r{round}"));
                    new["spec"]["nodeName"] = json!(format!("node-{:03}", (p * 3 + round) % 360));
                    objects.insert(index + 1, new.clone());
                    changes.push(Change {
                        kind: ChangedKind::Pod,
                        old: None,
                        new: shared(&new),
                    });
                }
            }
        }
        // A node tainted, and one moved to another zone.
        for (step, n) in [(0, 3 + round * 5), (1, 100 + round * 11)] {
            let index = at(&objects, &format!("node-{n:03}"));
            let old = objects[index].clone();
            if step == 0 {
                objects[index]["spec"]["taints"] =
                    json!([{"key": "maintenance", "effect": "NoSchedule"}]);
            } else {
                objects[index]["metadata"]["labels"]["topology.kubernetes.io/zone"] =
                    json!("zone-d");
            }
            changes.push(Change {
                kind: ChangedKind::Node,
                old: shared(&old),
                new: shared(&objects[index]),
            });
        }
        // A GPU node joins in the middle of the name order (in the zone of the one before it),
        // and a node holding pods is deleted: its pods stay, bound to a node no longer there.
        let after = format!("node-{:03}", 40 + round * 80);
        let index = at(&objects, &after);
        let mut joined = objects[index].clone();
        let joined_name = format!("{after}-joined");
        joined["metadata"]["name"] = json!(joined_name);
        joined["metadata"]["labels"]["kubernetes.io/hostname"] = json!(joined_name);
        joined["status"]["allocatable"]["nvidia.com/gpu"] = json!("8");
        objects.insert(index + 1, joined.clone());
        changes.push(Change {
            kind: ChangedKind::Node,
            old: None,
            new: shared(&joined),
        });
        let deleted = at(&objects, &format!("node-{:03}", 7 + round * 90));
        let gone = objects.remove(deleted);
        changes.push(Change {
            kind: ChangedKind::Node,
            old: shared(&gone),
            new: None,
        });
        let cluster = FixtureCluster::new(objects.clone());
        assert!(
            prepared.advance(Arc::new(cluster.clone()), &changes),
            "round {round}"
        );
        // A third of the cases each round (a fresh read per case is the slow part).
        for case in (round as u32..24).step_by(3) {
            let payload = admission(case);
            let fresh = spreadlab_policy::decide_payload(payload.as_bytes(), &cluster);
            let advanced = spreadlab_policy::decide_payload_prepared(payload.as_bytes(), &prepared);
            assert_eq!(advanced, fresh, "round {round} case {case}");
        }
        rounds += 1;
    }
    // A pod the source could not list is not applied in place: refused, with the model as it was.
    let before: Vec<Decision> = (0..24)
        .map(|case| {
            spreadlab_policy::decide_payload_prepared(admission(case).as_bytes(), &prepared)
        })
        .collect();
    let broken = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "broken", "namespace": "apps", "labels": "not a map"},
        "spec": {"nodeName": "node-001", "containers": []}});
    let mut grown = objects.clone();
    grown.push(broken.clone());
    let change = Change {
        kind: ChangedKind::Pod,
        old: None,
        new: shared(&broken),
    };
    assert!(!prepared.advance(Arc::new(FixtureCluster::new(grown)), &[change]));
    for (case, decision) in before.iter().enumerate() {
        let again =
            spreadlab_policy::decide_payload_prepared(admission(case as u32).as_bytes(), &prepared);
        assert_eq!(&again, decision, "case {case}");
    }
    assert_eq!(rounds, 4);
}
