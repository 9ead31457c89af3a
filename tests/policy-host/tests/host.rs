//! The built policy module inside a real waPC host (wapc + wasmtime, as Kubewarden's
//! policy-server): protocol, settings validation, the seed scenarios accepted and rejected as the
//! real kube-scheduler's recordings say, host calls answered from fixture clusters, malformed
//! input, and the evaluation time on a 1,000-node, 10,000-pod cluster against Kubewarden's
//! default 2 s budget.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spreadlab_policy_host::{PolicyHost, repo, wasm_path, yaml_objects};

fn wasm() -> &'static [u8] {
    static WASM: OnceLock<Vec<u8>> = OnceLock::new();
    WASM.get_or_init(|| {
        let path = wasm_path();
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

fn host() -> PolicyHost {
    PolicyHost::new(wasm(), None).expect("the module loads")
}

fn stored(name: &str) -> Vec<u8> {
    std::fs::read(repo().join(format!("crates/policy/test_data/{name}.json"))).unwrap()
}

fn cluster(path: &str) -> Vec<Value> {
    yaml_objects(&repo().join(path))
}

#[test]
fn protocol_version_is_v1() {
    assert_eq!(host().call("protocol_version", b""), json!("v1"));
}

#[test]
fn settings_validation() {
    let host = host();
    assert_eq!(
        host.call("validate_settings", b"{}"),
        json!({"valid": true, "message": null})
    );
    let answer = host.call(
        "validate_settings",
        br#"{"maxSkew": 1, "lintRules": ["spread-without-selector"], "minZoneLossSurvival": 0.5}"#,
    );
    assert_eq!(answer["valid"], true);
    for (settings, field) in [
        (&br#"{"lintRules": ["nope"]}"#[..], "lintRules[0]"),
        (&br#"{"minZoneLossSurvival": 2}"#[..], "minZoneLossSurvival"),
        (&br#"{"mdoe": "warn"}"#[..], "unknown field `mdoe`"),
        (&br#"{"onUnparseable": "accept"}"#[..], "onUnparseable"),
        (&b"{not json"[..], "not JSON"),
    ] {
        let answer = host.call("validate_settings", settings);
        assert_eq!(answer["valid"], false, "{answer}");
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains(field), "{message}");
    }
}

/// Same derivation as crates/policy/tests/decide.rs: reject exactly the first workloads the real
/// scheduler left a replica Pending for, with its message.
#[test]
fn seed_scenarios_accept_and_reject_as_the_real_scheduler() {
    let host = host();
    let mut accepted = 0;
    let mut rejected = 0;
    for entry in std::fs::read_dir(repo().join("tests/scenarios")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let payload = stored(&format!("scenario-{name}"));
        let request: Value = serde_json::from_slice(&payload).unwrap();
        let object = &request["request"]["object"];
        let prefix = format!(
            "{}/{}-",
            object["metadata"]["namespace"].as_str().unwrap(),
            object["metadata"]["name"].as_str().unwrap()
        );
        // The policy's default release is the newest: that release's recording.
        let recorded: Vec<Value> = std::fs::read_to_string(dir.join("expected-1.37.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mine = |r: &Value| r["pod"].as_str().unwrap().starts_with(&prefix);
        let first_other = recorded
            .iter()
            .position(|r| !mine(r))
            .unwrap_or(recorded.len());
        if recorded[first_other..].iter().any(mine) {
            continue;
        }
        let pending: Vec<&Value> = recorded[..first_other]
            .iter()
            .filter(|r| r["node"].is_null())
            .collect();
        host.set_cluster(cluster(&format!("tests/scenarios/{name}/cluster.yaml")));
        let response = host.call("validate", &payload);
        if pending.is_empty() {
            assert_eq!(response["accepted"], true, "{name}: {response}");
            accepted += 1;
        } else {
            assert_eq!(response["accepted"], false, "{name}: {response}");
            assert_eq!(response["code"], 400);
            let message = response["message"].as_str().unwrap();
            let recorded_message = pending[0]["message"].as_str().unwrap();
            let first_sentence = recorded_message.split(". ").next().unwrap();
            assert!(message.contains(first_sentence), "{name}: {message}");
            rejected += 1;
        }
        // The guest listed what it needs through the host capability, with the spec's shape.
        let calls = &host.cluster.lock().unwrap().calls;
        let kinds: Vec<&str> = calls
            .iter()
            .filter(|(op, _)| op == "kubewarden/kubernetes/list_resources_all")
            .map(|(_, payload)| payload["kind"].as_str().unwrap())
            .collect();
        // The storage kinds only for a workload whose pods use a claim (here: claim templates).
        let mut expected = vec!["Node", "Pod", "Namespace", "PriorityClass", "Service"];
        let uses_claims = request["request"]["object"]["spec"]["volumeClaimTemplates"]
            .as_array()
            .is_some_and(|t| !t.is_empty());
        if uses_claims {
            expected.extend([
                "PersistentVolumeClaim",
                "PersistentVolume",
                "StorageClass",
                "CSINode",
                "CSIDriver",
                "CSIStorageCapacity",
                "VolumeAttachment",
            ]);
        }
        assert_eq!(kinds, expected, "{name}");
        assert_eq!(
            calls[0].1,
            json!({"api_version": "v1", "kind": "Node", "label_selector": null, "field_selector": null, "field_masks": null})
        );
    }
    println!("seed scenarios in the wasm host: {accepted} accepted, {rejected} rejected");
    assert!(
        accepted >= 5 && rejected >= 4,
        "{accepted} accepted, {rejected} rejected"
    );
}

#[test]
fn analyses_fixtures_rollout_survival_and_mutation() {
    let host = host();
    host.set_cluster(cluster("tests/analyses/rollout-gpu-busy.yaml"));
    let response = host.call("validate", &stored("rollout-gpu-busy-update"));
    assert_eq!(response["accepted"], false);
    let message = response["message"].as_str().unwrap();
    assert!(message.contains("would stall at step 0"), "{message}");
    let response = host.call("validate", &stored("rollout-gpu-busy-relabel"));
    assert_eq!(response["accepted"], true, "{response}");

    host.set_cluster(cluster("tests/analyses/spread-three-zones.yaml"));
    let response = host.call("validate", &stored("spread-three-zones-survival-removed"));
    assert_eq!(response["accepted"], true, "{response}");
    let response = host.call(
        "validate",
        &stored("spread-three-zones-survival-unreachable"),
    );
    assert_eq!(response["accepted"], false);
    assert!(response["message"].as_str().unwrap().contains("(66%)"));

    host.set_cluster(cluster(
        "tests/scenarios/gpu-three-zones-one-full/cluster.yaml",
    ));
    let response = host.call("validate", &stored("mutate-no-zone-spread"));
    assert_eq!(response["accepted"], true, "{response}");
    let spread =
        &response["mutated_object"]["spec"]["template"]["spec"]["topologySpreadConstraints"][0];
    assert_eq!(spread["topologyKey"], "topology.kubernetes.io/zone");
    assert_eq!(
        spread["labelSelector"],
        json!({"matchLabels": {"app": "infer"}})
    );
    assert_eq!(spread["matchLabelKeys"], json!(["pod-template-hash"]));

    let response = host.call("validate", &stored("statefulset-gpu-three-zones"));
    assert_eq!(response["accepted"], false);
    let response = host.call("validate", &stored("pod-gpu-three-zones"));
    assert_eq!(response["accepted"], true, "{response}");
}

#[test]
fn malformed_input_and_failed_reads_are_rejected_not_trapped() {
    let host = host();
    host.set_cluster(cluster(
        "tests/scenarios/gpu-three-zones-one-full/cluster.yaml",
    ));
    for (payload, expected) in [
        (b"".to_vec(), "not JSON"),
        (b"\xff\xfe".to_vec(), "not JSON"),
        (b"[]".to_vec(), "request: missing"),
        (
            br#"{"request": 7}"#.to_vec(),
            "request: must be an AdmissionRequest",
        ),
        (stored("malformed-object"), "request.object: not an object"),
        (
            stored("malformed-no-selector"),
            "cannot read the object: spec.selector",
        ),
        (
            br#"{"settings": {"maxSkew": -1}, "request": {}}"#.to_vec(),
            "invalid policy settings",
        ),
    ] {
        let response = host.call("validate", &payload);
        assert_eq!(response["accepted"], false, "{response}");
        let message = response["message"].as_str().unwrap();
        assert!(message.contains(expected), "{message}");
    }
    let response = host.call("validate", &stored("malformed-no-selector-warn"));
    assert_eq!(response["accepted"], true);
    assert!(
        response["warnings"][0]
            .as_str()
            .unwrap()
            .contains("accepted unchecked")
    );

    host.cluster.lock().unwrap().failing.push("Pod".into());
    let response = host.call("validate", &stored("scenario-gpu-three-zones-one-full"));
    assert_eq!(response["accepted"], false);
    let message = response["message"].as_str().unwrap();
    assert!(
        message.contains("cannot read the cluster: cannot list Pod"),
        "{message}"
    );
    assert!(message.contains("forbidden by RBAC (fixture)"), "{message}");

    // The module survives all of it.
    assert_eq!(host.call("protocol_version", b""), json!("v1"));
}

/// 1,000 nodes in 3 zones (8 GPUs, 64 cpu each) and 10,000 bound pods (10 per node; 200 apps
/// in 20 namespaces, a quarter with a zone spread, one in eight holding a GPU), and a GPU
/// Deployment of 30 replicas with a hard zone spread.
fn big_cluster() -> (Vec<Value>, Value) {
    cluster_of(1_000, false)
}

/// [`big_cluster`] with `nodes` nodes (ten bound pods each); `realistic` gives each pod what
/// `kubectl get pod -o json` shows besides scheduling fields (annotations, env, probes, volumes,
/// status conditions and container statuses; about 3 KB of JSON instead of 0.9 KB).
fn cluster_of(nodes: usize, realistic: bool) -> (Vec<Value>, Value) {
    let mut objects = Vec::new();
    let zones = ["zone-a", "zone-b", "zone-c"];
    for n in 0..nodes {
        let name = format!("node-{n:04}");
        objects.push(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "topology.kubernetes.io/zone": zones[n % 3],
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}},
            "spec": {},
            "status": {
                "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "8"},
                "allocatable": {"cpu": "63", "memory": "250Gi", "pods": "110", "nvidia.com/gpu": "8"},
                "conditions": [{"type": "Ready", "status": "True"}]}
        }));
    }
    for p in 0..nodes * 10 {
        let app = format!("svc-{}", p % 200);
        let namespace = format!("team-{}", p % 20);
        let mut spec = json!({
            "nodeName": format!("node-{:04}", p % nodes),
            "containers": [{"name": "main", "image": format!("registry.example/{app}:1.0"),
                "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}],
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0
        });
        if p % 8 == 0 {
            spec["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": "1"});
            spec["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = json!("1");
        }
        if p % 4 == 0 {
            spec["topologySpreadConstraints"] = json!([{"maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": app}}}]);
        }
        let mut pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("{app}-{p}"), "namespace": namespace,
                "labels": {"app": app, "pod-template-hash": "abc123"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{app}-abc123"), "uid": "u", "controller": true}]},
            "spec": spec,
            "status": {"phase": "Running"}
        });
        if realistic {
            add_realistic_fields(&mut pod, p);
        }
        objects.push(pod);
    }
    for ns in 0..20 {
        let name = format!("team-{ns}");
        objects.push(json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}));
    }
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "team-0"},
        "spec": {"replicas": 30, "selector": {"matchLabels": {"app": "llm"}},
            "template": {"metadata": {"labels": {"app": "llm"}}, "spec": {
                "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.1",
                    "resources": {"requests": {"cpu": "4", "memory": "32Gi"}, "limits": {"nvidia.com/gpu": "1"}}}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "llm"}},
                    "matchLabelKeys": ["pod-template-hash"]}]}}}
    });
    let request = json!({
        "uid": "big", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "name": "llm", "namespace": "team-0", "operation": "CREATE", "object": deployment
    });
    (objects, request)
}

fn add_realistic_fields(pod: &mut Value, p: usize) {
    let meta = &mut pod["metadata"];
    meta["uid"] = json!(format!("5f0c6d1e-0000-4000-8000-{p:012}"));
    meta["resourceVersion"] = json!(format!("{}", 1_000_000 + p));
    meta["creationTimestamp"] = json!("2026-11-30T10:00:00Z");
    meta["generateName"] = json!("svc-abc123-");
    meta["annotations"] = json!({"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
        "kubectl.kubernetes.io/restartedAt": "2026-11-30T09:59:00Z"});
    let spec = &mut pod["spec"];
    let container = &mut spec["containers"][0];
    container["env"] = Value::Array(
        (0..10)
            .map(|i| json!({"name": format!("SETTING_{i}"), "value": format!("value-{i}-{p}")}))
            .collect(),
    );
    container["ports"] = json!([{"containerPort": 8080, "name": "http", "protocol": "TCP"}]);
    container["volumeMounts"] = json!([{"name": "config", "mountPath": "/etc/app"},
        {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}]);
    container["readinessProbe"] = json!({"httpGet": {"path": "/ready", "port": 8080, "scheme": "HTTP"},
        "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3});
    container["imagePullPolicy"] = json!("IfNotPresent");
    container["terminationMessagePath"] = json!("/dev/termination-log");
    spec["volumes"] = json!([{"name": "config", "configMap": {"name": "app-config", "defaultMode": 420}},
        {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}]);
    spec["serviceAccountName"] = json!("default");
    spec["restartPolicy"] = json!("Always");
    spec["dnsPolicy"] = json!("ClusterFirst");
    spec["terminationGracePeriodSeconds"] = json!(30);
    spec["schedulerName"] = json!("default-scheduler");
    spec["enableServiceLinks"] = json!(true);
    pod["status"] = json!({
        "phase": "Running", "qosClass": "Burstable", "podIP": "10.0.0.1", "hostIP": "192.168.0.1",
        "startTime": "2026-11-30T10:00:01Z",
        "conditions": [
            {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": "2026-11-30T10:00:03Z"},
            {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-30T10:00:01Z"},
            {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-30T10:00:10Z"},
            {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2026-11-30T10:00:10Z"},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T10:00:00Z"}],
        "containerStatuses": [{"name": "main", "ready": true, "restartCount": 0, "started": true,
            "image": "registry.example/app:1.0", "imageID": "registry.example/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "containerID": "containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "state": {"running": {"startedAt": "2026-11-30T10:00:02Z"}}, "lastState": {}}]
    });
}

/// Times of 5 `validate` runs under the budget (epoch interruption, as the policy-server
/// enforces its timeout): every run is kept, a run the deadline interrupted counts as over it.
struct Runs {
    /// Finished runs.
    finished: Vec<Duration>,
    /// Of each finished run, the time the host spent answering the list calls.
    answering: Vec<Duration>,
    /// Runs the deadline interrupted.
    interrupted: usize,
}

impl Runs {
    fn median(&self) -> Option<Duration> {
        let mut sorted = self.finished.clone();
        sorted.sort();
        // An interrupted run is slower than every finished one.
        let all = sorted.len() + self.interrupted;
        sorted.get(all / 2).copied()
    }

    fn max(&self) -> Option<Duration> {
        (self.interrupted == 0)
            .then(|| self.finished.iter().max().copied())
            .flatten()
    }
}

/// `request` admitted under `settings` on a module loaded with `budget` as its deadline and
/// `objects` as its cluster, timed by [`timed_runs`]; the host is returned for its calls.
fn time_evaluation(
    objects: Vec<Value>,
    request: &Value,
    settings: Value,
    budget: Duration,
    label: &str,
) -> (PolicyHost, Runs) {
    let start = Instant::now();
    let host = PolicyHost::new(wasm(), Some(budget)).expect("the module loads");
    println!(
        "module loaded (compiled by wasmtime, wapc_init run) in {} ms",
        start.elapsed().as_millis()
    );
    host.set_cluster(objects);
    let payload = serde_json::to_vec(&json!({"settings": settings, "request": request})).unwrap();
    let runs = timed_runs(&host, &payload, label);
    (host, runs)
}

fn timed_runs(host: &PolicyHost, payload: &[u8], label: &str) -> Runs {
    let mut runs = Runs {
        finished: Vec::new(),
        answering: Vec::new(),
        interrupted: 0,
    };
    for _ in 0..5 {
        host.cluster.lock().unwrap().answering = Duration::ZERO;
        let start = Instant::now();
        let answer = host.call_raw("validate", payload);
        let elapsed = start.elapsed();
        match answer {
            Ok(answer) => {
                let response: Value = serde_json::from_slice(&answer).unwrap();
                assert_eq!(response["accepted"], true, "{label}: {response}");
                runs.finished.push(elapsed);
                runs.answering.push(host.cluster.lock().unwrap().answering);
            }
            Err(error) => {
                assert!(error.to_string().contains("deadline"), "{label}: {error}");
                runs.interrupted += 1;
            }
        }
    }
    let ms = |d: Option<Duration>| {
        d.map_or_else(
            || String::from("over budget"),
            |d| format!("{} ms", d.as_millis()),
        )
    };
    println!(
        "evaluation on {label}: median {}, max {}; runs {:?} ms (host answering the list calls {:?} ms), interrupted {}",
        ms(runs.median()),
        ms(runs.max()),
        runs.finished
            .iter()
            .map(|t| t.as_millis())
            .collect::<Vec<_>>(),
        runs.answering
            .iter()
            .map(|t| t.as_millis())
            .collect::<Vec<_>>(),
        runs.interrupted
    );
    runs
}

/// Kubewarden's default evaluation budget is 2 s (`KUBEWARDEN_POLICY_TIMEOUT`), enforced here as
/// the policy-server does. The time includes the host answering the list calls (pruning pods to
/// the policy's field masks and serialising them) and the guest parsing them. Every one of 5
/// runs with the default settings must finish within the budget (an interrupted run is a
/// rejected request); the median and the maximum are printed (scripts/test-policy.sh runs this
/// test alone). The heavier settings are measured and reported under their documented 5 s.
#[test]
fn evaluation_time_on_1000_nodes_and_10000_pods() {
    let (objects, request) = big_cluster();
    let budget = Duration::from_secs(2);
    let (host, runs) = time_evaluation(
        objects.clone(),
        &request,
        json!({}),
        budget,
        "1,000 nodes / 10,000 pods, default settings (rejectPending), 2 s budget",
    );
    assert_eq!(
        runs.interrupted, 0,
        "{} of 5 runs exceeded the {budget:?} budget",
        runs.interrupted
    );
    // The pods were asked for with the policy's field masks.
    {
        let cluster = host.cluster.lock().unwrap();
        let pods = cluster
            .calls
            .iter()
            .find(|(_, payload)| payload["kind"] == "Pod")
            .expect("a Pod list call");
        assert!(
            pods.1["field_masks"]
                .as_array()
                .is_some_and(|m| m.iter().any(|p| p == "spec.nodeName")),
            "{}",
            pods.1
        );
    }

    // Every cluster check at once costs more simulations (zone-loss sweep, lint's own
    // analyses); measured under a 5 s budget (`timeoutEvalSeconds: 5`, see the README).
    let settings = json!({
        "requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone", "minDomains": 3}],
        "maxSkew": 1, "requireDoNotSchedule": true, "minZoneLossSurvival": 0.6,
        "lintRules": ["spread-without-selector", "selector-misses-own-pods", "selector-too-generic",
                      "min-domains-exceeds-domains", "mixed-gpu-models"]});
    let (_, runs) = time_evaluation(
        objects,
        &request,
        settings,
        Duration::from_secs(5),
        "1,000 nodes / 10,000 pods, every cluster check (pending, min domains, zone-loss survival, 5 lint rules), 5 s budget",
    );
    assert!(runs.median().is_some(), "most runs exceeded 5 s");

    // Pods as a real cluster's cache holds them (about 3 KB of JSON each, pruned by the host to
    // the field masks). On the 2-core CI machine this takes 1.1-2.0 s, too close to the 2 s
    // default to hold on every run: measured under the 5 s the README advises for clusters this
    // size (`timeoutEvalSeconds: 5`), every run must finish, and the runs over 2 s are printed.
    let (objects, request) = cluster_of(1_000, true);
    let bytes: usize = objects
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .map(|o| o.to_string().len())
        .sum();
    println!("realistic pods: {} bytes of Pod JSON", bytes);
    let (_, runs) = time_evaluation(
        objects,
        &request,
        json!({}),
        Duration::from_secs(5),
        "1,000 nodes / 10,000 pods, default settings, realistic pods (~3 KB each), 5 s budget",
    );
    println!(
        "realistic pods: {} of 5 runs over the 2 s default",
        runs.finished.iter().filter(|t| **t > budget).count() + runs.interrupted
    );
    assert_eq!(
        runs.interrupted, 0,
        "{} of 5 runs exceeded 5 s",
        runs.interrupted
    );
}

/// Issue 16's row for Kubernetes' largest clusters: 5,000 nodes and 50,000 bound pods, default
/// settings, measured under a 10 s budget (every run must finish; the median is printed).
#[test]
fn evaluation_time_on_5000_nodes_and_50000_pods() {
    let (objects, request) = cluster_of(5_000, false);
    let (_, runs) = time_evaluation(
        objects,
        &request,
        json!({}),
        Duration::from_secs(10),
        "5,000 nodes / 50,000 pods, default settings, 10 s budget",
    );
    assert_eq!(
        runs.interrupted, 0,
        "{} of 5 runs exceeded 10 s",
        runs.interrupted
    );
}

/// The deadline is real: a budget far too small interrupts the evaluation (and is reported as
/// an error to the host, as policy-server turns it into a rejection).
#[test]
fn a_tiny_budget_interrupts_the_evaluation() {
    let (objects, request) = big_cluster();
    let host = PolicyHost::new(wasm(), Some(Duration::from_millis(50))).expect("loads");
    host.set_cluster(objects);
    let payload = serde_json::to_vec(&json!({"settings": {}, "request": request})).unwrap();
    assert!(host.call_raw("validate", &payload).is_err());
}

/// The module's interface is what Kubewarden expects of a waPC policy built for wasm32-wasip1:
/// exports `wapc_init`, `__guest_call`, `memory`; imports only waPC and five WASI functions.
#[test]
fn module_interface() {
    use wasmtime_provider::wasmtime::{Engine, Module};
    let module = Module::new(&Engine::default(), wasm()).expect("a valid module");
    let mut exports: Vec<String> = module.exports().map(|e| e.name().to_owned()).collect();
    exports.sort();
    assert_eq!(exports, ["__guest_call", "memory", "wapc_init"]);
    let imports: Vec<String> = module
        .imports()
        .map(|i| format!("{}.{}", i.module(), i.name()))
        .collect();
    assert!(
        imports
            .iter()
            .all(|i| i.starts_with("wapc.") || i.starts_with("wasi_snapshot_preview1.")),
        "{imports:?}"
    );
    let wasi = imports
        .iter()
        .filter(|i| i.starts_with("wasi_snapshot_preview1."))
        .count();
    assert!(wasi <= 5, "{imports:?}");
    assert!(imports.contains(&String::from("wapc.__host_call")));
}
