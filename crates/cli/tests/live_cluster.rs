//! The CLI reading a live cluster: a real kube-apiserver on an embedded etcd (`tests/apiserver`,
//! from Go modules) holding a seed scenario's cluster. Reading it through the API server
//! (`--kubeconfig`) must give the answers of the scenario's files, which are the real
//! scheduler's (`tests/scenarios/<id>/expected.jsonl`, recorded from kube-scheduler v1.35.4);
//! `snapshot` must replay to the same answers; RBAC denials and unreachable servers are clear
//! errors naming the kind, the verb and the server. `serve --kubeconfig` watches the cluster and
//! is the API server's validating admission webhook: it refuses a Deployment with the real
//! scheduler's message and, once watch events have changed the cluster, admits one that fits.

#[path = "live/apiserver.rs"]
mod apiserver;
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use apiserver::{ApiServer, harness};
use base64::Engine as _;
use serde_json::{Value, json};
use support::serve::{Server, deployment_review, request, request_text, serve, server_dir};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario(id: &str, file: &str) -> PathBuf {
    repo().join("tests/scenarios").join(id).join(file)
}

/// The objects of a YAML file (List items flattened).
fn objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for document in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
        match document["kind"].as_str() {
            Some("List") => out.extend(document["items"].as_array().cloned().unwrap_or_default()),
            Some(_) => out.push(document),
            None => {}
        }
    }
    out
}

fn spreadlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spreadlab"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `simulate -o json` on release 1.35 (the recordings' release), as JSON.
fn simulate(args: &[&str]) -> Value {
    let mut all = vec![
        "simulate",
        "--kubernetes-version",
        "1.35",
        "-o",
        "json",
        "--detail",
        "none",
    ];
    all.extend_from_slice(args);
    let output = spreadlab(&all);
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "spreadlab {all:?}: {}\n{}",
        output.status,
        text(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Each pod's name, node, tied nodes and message: what the answer is.
fn decisions(report: &Value) -> Vec<Value> {
    report["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pod| {
            serde_json::json!([
                pod["namespace"],
                pod["name"],
                pod["node"],
                pod["tiedNodes"],
                pod["message"]
            ])
        })
        .collect()
}

/// The report agrees with the real scheduler's recording: the same pods, each on the recorded
/// node or one tied with it (kube-scheduler picks among equal scores at random), each Pending pod
/// with the recorded message.
fn assert_matches_recording(id: &str, report: &Value) {
    let recording = std::fs::read_to_string(scenario(id, "expected.jsonl")).unwrap();
    let expected: Vec<Value> = recording
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let pods = report["pods"].as_array().unwrap();
    assert_eq!(pods.len(), expected.len(), "{id}: pods");
    for (pod, recorded) in pods.iter().zip(&expected) {
        let key = format!(
            "{}/{}",
            pod["namespace"].as_str().unwrap(),
            pod["name"].as_str().unwrap()
        );
        assert_eq!(recorded["pod"], key.as_str(), "{id}: scheduling order");
        match recorded["node"].as_str() {
            None => {
                assert!(
                    pod["node"].is_null(),
                    "{id}: {key} placed, the scheduler left it Pending"
                );
                assert_eq!(pod["message"], recorded["message"], "{id}: {key}");
            }
            Some(node) => {
                let tied: Vec<&str> = recorded["topNodes"]
                    .as_array()
                    .map(|t| t.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let ours = pod["node"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{id}: {key} Pending"));
                assert!(
                    ours == node || tied.contains(&ours),
                    "{id}: {key} on {ours}, the scheduler: {node} {tied:?}"
                );
            }
        }
    }
}

/// Three seed scenarios whose clusters hold most kinds spreadlab reads (nodes, pods, namespaces,
/// priority classes, ReplicaSets, a PodDisruptionBudget, Services, StorageClass, PersistentVolumes
/// and claims, CSINodes): each loaded into its own API server, read back with `--kubeconfig`,
/// in pages of 2 objects and whole, and from a `snapshot`.
#[test]
fn a_cluster_read_through_its_api_server_answers_as_its_files() {
    let Some(harness) = harness() else { return };
    for id in [
        "statefulset-zonal-volumes",
        "preemption-pdb-checkout",
        "service-default-spread",
    ] {
        let server = ApiServer::start(&harness, id);
        let cluster = scenario(id, "cluster.yaml");
        let workload = scenario(id, "workload.yaml");
        server.create(&objects(&cluster));
        let admin = server.kubeconfig("admin");
        let admin = admin.to_str().unwrap();
        let workload = workload.to_str().unwrap();

        let from_files = simulate(&[cluster.to_str().unwrap(), workload]);
        let live = simulate(&["--kubeconfig", admin, workload]);
        assert_matches_recording(id, &live);
        assert_eq!(
            decisions(&live),
            decisions(&from_files),
            "{id}: live against files"
        );
        assert_eq!(live["summary"], from_files["summary"], "{id}");

        let paged = simulate(&["--kubeconfig", admin, "--chunk-size", "2", workload]);
        assert_eq!(decisions(&paged), decisions(&live), "{id}: pages of 2");
        let whole = simulate(&["--kubeconfig", admin, "--chunk-size", "0", workload]);
        assert_eq!(decisions(&whole), decisions(&live), "{id}: whole lists");

        let snapshot = server.dir.join("snapshot.json");
        let output = spreadlab(&[
            "snapshot",
            "--kubeconfig",
            admin,
            "--file",
            snapshot.to_str().unwrap(),
        ]);
        assert!(
            output.status.success(),
            "{id}: snapshot: {}",
            text(&output.stderr)
        );
        let written = std::fs::read_to_string(&snapshot).unwrap();
        assert!(
            !written.contains("managedFields"),
            "{id}: the snapshot is slimmed"
        );
        let replayed = simulate(&[snapshot.to_str().unwrap(), workload]);
        assert_eq!(
            decisions(&replayed),
            decisions(&live),
            "{id}: snapshot replayed"
        );
        let stderr = text(&output.stderr);
        let nodes = objects(&cluster)
            .iter()
            .filter(|o| o["kind"] == "Node")
            .count();
        assert!(stderr.contains("objects of"), "{id}: {stderr}");
        assert_eq!(
            written.matches("\"kind\":\"Node\"").count(),
            nodes,
            "{id}: nodes in the snapshot"
        );
    }
}

/// `--in-cluster`, as in a pod: kube's `Config::incluster` reads the service account's token and
/// CA at the fixed path a pod has them (`/var/run/secrets/kubernetes.io/serviceaccount`) and the
/// API server's address from `KUBERNETES_SERVICE_HOST` and `_PORT`. The command runs in a
/// mount namespace of its own (`unshare`) with a tmpfs on `/run` holding those files, so the
/// machine's own paths are not touched; it must answer as `--kubeconfig` does.
#[test]
fn in_cluster_configuration_reads_the_pods_service_account() {
    let Some(harness) = harness() else { return };
    let id = "service-default-spread";
    let server = ApiServer::start(&harness, "in-cluster");
    let cluster = scenario(id, "cluster.yaml");
    let workload = scenario(id, "workload.yaml");
    server.create(&objects(&cluster));
    let admin = server.kubeconfig("admin");
    let workload = workload.to_str().unwrap();
    let live = simulate(&["--kubeconfig", admin.to_str().unwrap(), workload]);

    let kubeconfig: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&admin).unwrap()).unwrap();
    let token = kubeconfig["users"][0]["user"]["token"].as_str().unwrap();
    let cluster = &kubeconfig["clusters"][0]["cluster"];
    let ca = base64::engine::general_purpose::STANDARD
        .decode(cluster["certificate-authority-data"].as_str().unwrap())
        .unwrap();
    let account = server.dir.join("serviceaccount");
    std::fs::create_dir_all(&account).unwrap();
    std::fs::write(account.join("token"), token).unwrap();
    std::fs::write(account.join("ca.crt"), ca).unwrap();
    std::fs::write(account.join("namespace"), "default").unwrap();
    let (host, port) = cluster["server"]
        .as_str()
        .unwrap()
        .trim_start_matches("https://")
        .rsplit_once(':')
        .unwrap();
    let script = "mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount \
                  && cp \"$1\"/* /run/secrets/kubernetes.io/serviceaccount/ && shift && exec \"$@\"";
    let output = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&account)
        .arg(env!("CARGO_BIN_EXE_spreadlab"))
        .args([
            "simulate",
            "--in-cluster",
            "--kubernetes-version",
            "1.35",
            "-o",
            "json",
        ])
        .args(["--detail", "none", workload])
        .env("KUBERNETES_SERVICE_HOST", host)
        .env("KUBERNETES_SERVICE_PORT", port)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    if stderr.contains("unshare:") && stderr.contains("not permitted") {
        eprintln!("skipped: no mount namespace here ({stderr})");
        return;
    }
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "{}\n{stderr}",
        output.status
    );
    let in_cluster: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_matches_recording(id, &in_cluster);
    assert_eq!(
        decisions(&in_cluster),
        decisions(&live),
        "in-cluster against --kubeconfig"
    );
    assert!(
        stderr.contains(&format!("from https://{host}:{port}")),
        "{stderr}"
    );
}

/// A user RBAC grants nothing is refused with the kind and the verb it lacks, and `serve` watching
/// as that user stays unready (503, the watch's 403 in `/healthz`); bound to
/// `policies/rbac/spreadlab-reader.yaml`, the same user reads everything and `serve` becomes ready.
#[test]
fn rbac_denial_names_the_kind_and_verb_and_the_reader_role_grants_every_kind() {
    let Some(harness) = harness() else { return };
    let server = ApiServer::start(&harness, "rbac");
    let id = "service-default-spread";
    server.create(&objects(&scenario(id, "cluster.yaml")));
    let viewer = server.kubeconfig("viewer");
    let workload = scenario(id, "workload.yaml");
    let args = [
        "simulate",
        "--kubeconfig",
        viewer.to_str().unwrap(),
        workload.to_str().unwrap(),
    ];
    let denied = spreadlab(&args);
    let stderr = text(&denied.stderr);
    assert_eq!(denied.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cannot list namespaces (verb `list` on resource `namespaces` in API group \"\"): 403 Forbidden"),
        "{stderr}"
    );
    assert!(
        stderr.contains("User \"viewer\" cannot list resource \"namespaces\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("policies/rbac/spreadlab-reader.yaml"),
        "{stderr}"
    );
    // serve watching as the viewer: never synced, so not ready and no decision, with the watch's
    // 403 in /healthz.
    let serving = serve(
        server_dir("live-serve", "rbac"),
        &["--kubeconfig", viewer.to_str().unwrap()],
    );
    let started = Instant::now();
    let health = loop {
        let (_, health) = request(&serving, "GET", "/healthz", b"");
        if health["cluster"]["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("403"))
        {
            break health;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no 403 in {health}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(health["cluster"]["synced"], false, "{health}");
    let (status, ready) = request(&serving, "GET", "/readyz", b"");
    assert_eq!(status, 503, "{ready}");
    assert!(
        ready["error"].as_str().unwrap().contains("not synced yet"),
        "{ready}"
    );
    let body = json!({"object": objects(&workload).remove(0)}).to_string();
    assert_eq!(
        request(&serving, "POST", "/validate", body.as_bytes()).0,
        503
    );

    let mut grant = objects(&repo().join("policies/rbac/spreadlab-reader.yaml"));
    grant.push(serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "spreadlab-reader-viewer"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "spreadlab-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "viewer"}]
    }));
    server.create(&grant);
    // The RBAC authorizer sees new bindings through its informers, within moments.
    let started = Instant::now();
    loop {
        let output = spreadlab(&args);
        if output.status.code().is_some_and(|c| c <= 1) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the reader role did not let the viewer read: {}",
            text(&output.stderr)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    // The same grant lets the watching serve list everything: ready (its backoff is at most 5 s).
    let started = Instant::now();
    while request(&serving, "GET", "/readyz", b"").0 != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "serve did not sync once granted: {}",
            request(&serving, "GET", "/healthz", b"").1
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The API server restarted under `serve --kubeconfig` (every connection cut; the new server's
/// watch cache starts at the current revision, past the watches' own): the watches answer
/// `410 Gone`, the watcher lists again, and a change made after the restart reaches the next
/// decision.
#[test]
fn serve_keeps_watching_across_an_api_server_restart() {
    let Some(harness) = harness() else { return };
    let mut server = ApiServer::start(&harness, "restart");
    let full = "gpu-three-zones-one-full";
    let cluster = objects(&scenario(full, "cluster.yaml"));
    server.create(&cluster);
    let admin = server.kubeconfig("admin");
    let serving = serve(
        server_dir("live-serve", "restart"),
        &["--kubeconfig", admin.to_str().unwrap()],
    );
    let workload = objects(&scenario(full, "workload.yaml")).remove(0);
    let reason = pending_messages(full)[0]
        .split(" preemption:")
        .next()
        .unwrap()
        .to_owned();
    let wait_until = |what: &str, check: &mut dyn FnMut() -> bool| {
        wait_for(&serving, Duration::from_secs(90), what, check)
    };
    wait_until("the first decision", &mut || {
        plain(&serving, &workload)["message"]
            .as_str()
            .is_some_and(|m| m.contains(&reason))
    });
    let (_, before) = request(&serving, "GET", "/healthz", b"");

    // A write serve does not watch moves the cluster's revision past every watch's: the new
    // server's watch cache starts there, so resuming a watch is `410 Gone` (too old resource
    // version) and the watcher lists again.
    server.create(&[json!({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "bump", "namespace": "default"}})]);
    let restarting = Instant::now();
    server.restart();
    eprintln!(
        "the API server restarted in {:.1} s",
        restarting.elapsed().as_secs_f64()
    );
    for object in cluster
        .iter()
        .filter(|o| o["kind"] == "Pod" || o["kind"] == "Node")
    {
        server.delete(object);
    }
    let fits = "default-stacking";
    server.create(&objects(&scenario(fits, "cluster.yaml")));
    let workload = objects(&scenario(fits, "workload.yaml")).remove(0);
    wait_until("the changes after the restart", &mut || {
        plain(&serving, &workload)["allowed"] == true
    });
    let (_, after) = request(&serving, "GET", "/healthz", b"");
    eprintln!(
        "before the restart: {}\nafter: {}",
        before["cluster"], after["cluster"]
    );
    assert_eq!(after["cluster"]["synced"], true, "{after}");
    let cut = |health: &Value| {
        health["cluster"]["relists"].as_u64().unwrap()
            + health["cluster"]["watchErrors"].as_u64().unwrap()
    };
    assert!(
        cut(&after) > cut(&before),
        "the restart went unnoticed: {before} {after}"
    );
    wait_until("a relist after `410 Gone`", &mut || {
        request(&serving, "GET", "/healthz", b"").1["cluster"]["relists"].as_u64() >= Some(1)
    });
}

/// A pod bound elsewhere changes the spread counts of the next decision. Node `a` (zone-a) has
/// room; node `b` (zone-b) has a 7-cpu pod on its 8 cpus. One 2-cpu replica with a hard zone
/// spread (maxSkew 1) on `app: x` fits on `a` while no `app: x` pod runs (skew 1 - 0 = 1). Once
/// another controller's `app: x` pod is bound on `a`, placing there gives zone-a 2 against zone-b 0: skew 2 > 1, so
/// PodTopologySpread's filter refuses `a` (`node(s) didn't match pod topology spread
/// constraints`, podtopologyspread/filtering.go; zone-b still counts, its node is eligible
/// whatever its free cpu) and NodeResourcesFit refuses `b` (`Insufficient cpu`).
#[test]
fn a_pod_bound_elsewhere_changes_the_next_decisions_spread_counts() {
    let Some(harness) = harness() else { return };
    let server = ApiServer::start(&harness, "spread");
    let node = |name: &str, zone: &str| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
               "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                          "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})
    };
    let pod = |name: &str, node: &str, app: &str, cpu: &str| {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
               "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox",
                        "resources": {"requests": {"cpu": cpu}}}]}})
    };
    server.create(&[
        node("a", "zone-a"),
        node("b", "zone-b"),
        pod("filler", "b", "filler", "7"),
    ]);
    let admin = server.kubeconfig("admin");
    let serving = serve(
        server_dir("live-serve", "spread"),
        &["--kubeconfig", admin.to_str().unwrap()],
    );
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "x", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "x"}},
                 "template": {"metadata": {"labels": {"app": "x"}},
                              "spec": {"containers": [{"name": "c", "image": "busybox",
                                                       "resources": {"requests": {"cpu": "2"}}}],
                                       "topologySpreadConstraints": [{"maxSkew": 1,
                                           "topologyKey": "topology.kubernetes.io/zone",
                                           "whenUnsatisfiable": "DoNotSchedule",
                                           "labelSelector": {"matchLabels": {"app": "x"}}}]}}}});
    let body = json!({"object": deployment}).to_string();
    let decide = || request(&serving, "POST", "/validate", body.as_bytes());
    let started = Instant::now();
    while decide().0 != 200 || decide().1["allowed"] != true {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{}",
            decide().1
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Owned by another controller: counted by the constraint's selector, but not a replica the
    // Deployment would adopt (an orphan matching its selector would be, as the ReplicaSet
    // controller adopts orphans, and then nothing would be placed at all).
    let mut other = pod("x-other", "a", "x", "1");
    other["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "name": "other", "uid": "0e8f6a52-5d43-4c1b-9f3e-6a2b7c1d9e40", "controller": true}]);
    server.create(&[other]);
    let expected = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints";
    let started = Instant::now();
    loop {
        let (_, answer) = decide();
        if answer["message"]
            .as_str()
            .is_some_and(|m| m.contains(expected))
        {
            assert_eq!(answer["allowed"], false, "{answer}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{answer}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The pod's event was applied to the model in place, not by building it again.
    let (_, health) = request(&serving, "GET", "/healthz", b"");
    assert!(
        health["model"]["changesApplied"].as_u64() >= Some(1),
        "{health}"
    );
}

/// `policies/webhook/`: the real API server accepts every object of the webhook's manifests
/// (schema, validation, admission), and its RBAC (the reader ClusterRole bound to serve's
/// ServiceAccount) lets serve list and watch every kind it reads, as the API server's own
/// SubjectAccessReview answers. cert-manager's kinds are checked for the names the others use.
#[test]
fn the_webhook_manifests_are_accepted_and_grant_serve_what_it_reads() {
    let Some(harness) = harness() else { return };
    let server = ApiServer::start(&harness, "manifests");
    let webhook = repo().join("policies/webhook");
    server.create(&objects(
        &repo().join("policies/rbac/spreadlab-reader.yaml"),
    ));
    let serve_objects = objects(&webhook.join("serve.yaml"));
    server.create(&serve_objects);
    server.create(&objects(&webhook.join("validating.yaml")));
    let mutating: Vec<Value> = objects(&webhook.join("mutating.yaml"))
        .into_iter()
        .filter(|o| o["kind"] != "ConfigMap")
        .collect();
    server.create(&mutating);
    for kind in spreadlab_cluster::KINDS {
        for verb in ["list", "watch"] {
            let review = server.create_returning(&json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SubjectAccessReview",
                "spec": {
                    "user": "system:serviceaccount:spreadlab:spreadlab",
                    "groups": ["system:serviceaccounts", "system:serviceaccounts:spreadlab", "system:authenticated"],
                    "resourceAttributes": {"verb": verb, "group": kind.group, "resource": kind.plural}
                }
            }));
            assert_eq!(
                review["status"]["allowed"], true,
                "{verb} {}: {review}",
                kind.plural
            );
        }
    }
    // Read-only: no write verb on anything.
    let review = server.create_returning(&json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": "system:serviceaccount:spreadlab:spreadlab",
                 "resourceAttributes": {"verb": "create", "group": "", "resource": "pods"}}
    }));
    assert_ne!(review["status"]["allowed"], true, "{review}");

    // The certificate cert-manager writes is the secret serve mounts, for the Service's names.
    let certificates = objects(&webhook.join("cert-manager.yaml"));
    let serving = certificates
        .iter()
        .find(|o| o["kind"] == "Certificate" && o["metadata"]["name"] == "spreadlab-webhook")
        .expect("the serving Certificate");
    let deployment = serve_objects
        .iter()
        .find(|o| o["kind"] == "Deployment")
        .unwrap();
    let volumes = deployment["spec"]["template"]["spec"]["volumes"]
        .as_array()
        .unwrap();
    assert!(
        volumes
            .iter()
            .any(|v| v["secret"]["secretName"] == serving["spec"]["secretName"])
    );
    let service = serve_objects
        .iter()
        .find(|o| o["kind"] == "Service")
        .unwrap();
    let name = format!(
        "{}.{}.svc",
        service["metadata"]["name"].as_str().unwrap(),
        service["metadata"]["namespace"].as_str().unwrap()
    );
    assert!(
        serving["spec"]["dnsNames"]
            .as_array()
            .unwrap()
            .contains(&json!(name))
    );
    for file in ["validating.yaml", "mutating.yaml"] {
        let configuration = objects(&webhook.join(file))
            .into_iter()
            .find(|o| {
                o["kind"]
                    .as_str()
                    .unwrap()
                    .ends_with("WebhookConfiguration")
            })
            .unwrap();
        assert_eq!(
            configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "spreadlab/spreadlab-webhook",
            "{file}"
        );
    }
}

/// No server listening: the error names the server and says it cannot be reached.
#[test]
fn an_unreachable_server_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("spreadlab-unreachable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    // Port 1 on loopback: nothing listens there.
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n\
         users: [{name: u, user: {token: t}}]\ncontexts: [{name: nowhere, context: {cluster: c, user: u}}]\n\
         current-context: nowhere\n",
    )
    .unwrap();
    let output = spreadlab(&["simulate", "--kubeconfig", kubeconfig.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("https://127.0.0.1:1 (context \"nowhere\"): cannot reach the API server"),
        "{stderr}"
    );

    let output = spreadlab(&[
        "simulate",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--context",
        "other",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("context \"other\""), "{stderr}");

    let missing = dir.join("missing");
    let output = spreadlab(&["snapshot", "--kubeconfig", missing.to_str().unwrap()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("kubeconfig {}", missing.display())),
        "{stderr}"
    );

    let output = spreadlab(&["snapshot"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `kind` (Validating or MutatingWebhookConfiguration) sending the objects `rules` match to
/// `serving`'s `/validate`, trusting its CA, failing closed, 10 s per call.
fn webhook_configuration(kind: &str, serving: &Server, rules: Value) -> Value {
    let ca = base64::engine::general_purpose::STANDARD.encode(&serving.ca_pem);
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "spreadlab"},
        "webhooks": [{
            "name": "placement.spreadlab.dev",
            "clientConfig": {"url": format!("https://127.0.0.1:{}/validate", serving.port), "caBundle": ca},
            "rules": rules,
            "failurePolicy": "Fail",
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 10,
        }]
    })
}

/// serve's plain JSON answer (`/validate` with `{"object"}`) for `object`.
fn plain(serving: &Server, object: &Value) -> Value {
    let body = json!({"object": object});
    request(serving, "POST", "/validate", body.to_string().as_bytes()).1
}

/// Polls `check` every 100 ms until it holds; fails after `limit` with serve's log.
fn wait_for(serving: &Server, limit: Duration, what: &str, check: &mut dyn FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(
            started.elapsed() < limit,
            "{what}: not within {} s; serve's log:\n{}",
            limit.as_secs(),
            serving.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The Pending messages the real scheduler of the default release (1.37, what `serve` mirrors
/// without `--kubernetes-version`) gave on a seed scenario.
fn pending_messages(id: &str) -> Vec<String> {
    std::fs::read_to_string(scenario(id, "expected-1.37.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|decision| decision["node"].is_null())
        .map(|decision| decision["message"].as_str().unwrap().to_owned())
        .collect()
}

/// `serve --kubeconfig` on an empty cluster: the scenario's objects arrive by watch events; the
/// API server, configured with `serve` as its validating webhook, refuses the scenario's
/// Deployment with the real scheduler's message. Then that cluster's nodes and pods are deleted
/// and another scenario's created (events again), and that scenario's Deployment, which the real
/// scheduler places whole, is admitted.
#[test]
fn serve_watches_the_cluster_and_is_the_api_servers_admission_webhook() {
    let Some(harness) = harness() else { return };
    let server = ApiServer::start(&harness, "webhook");
    let admin = server.kubeconfig("admin");
    let serving = serve(
        server_dir("live-serve", "webhook"),
        &["--kubeconfig", admin.to_str().unwrap()],
    );
    let wait_until = |what: &str, check: &mut dyn FnMut() -> bool| {
        wait_for(&serving, Duration::from_secs(60), what, check)
    };
    wait_until("/readyz", &mut || {
        request(&serving, "GET", "/readyz", b"").0 == 200
    });

    // The first scenario, created after serve listed the cluster: it learns it by events.
    let full = "gpu-three-zones-one-full";
    let cluster = objects(&scenario(full, "cluster.yaml"));
    server.create(&cluster);
    let workload = objects(&scenario(full, "workload.yaml")).remove(0);
    let expected = pending_messages(full);
    assert_eq!(expected.len(), 1);
    let reason = expected[0].split(" preemption:").next().unwrap().to_owned();
    wait_until("the cluster's events applied", &mut || {
        plain(&serving, &workload)["message"]
            .as_str()
            .is_some_and(|m| m.contains(&reason))
    });
    let (_, health) = request(&serving, "GET", "/healthz", b"");
    assert_eq!(health["cluster"]["synced"], true, "{health}");
    assert_eq!(health["cluster"]["relists"], 0, "{health}");
    assert!(
        health["cluster"]["events"].as_u64().unwrap() >= cluster.len() as u64,
        "{health}"
    );

    // serve as the API server's webhook.
    server.create(&[webhook_configuration(
        "ValidatingWebhookConfiguration",
        &serving,
        json!([{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                "resources": ["deployments", "statefulsets", "replicasets"]},
               {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["pods"]}]),
    )]);
    // The API server picks the configuration up within moments: until then a create passes
    // unjudged, so each attempt has its own name.
    let mut attempt = 0;
    let denial = loop {
        attempt += 1;
        let mut deployment = workload.clone();
        deployment["metadata"]["name"] = json!(format!("infer-{attempt}"));
        match server.try_create(&deployment) {
            Err(message) => break message,
            Ok(()) => {
                assert!(attempt < 300, "the webhook never judged a Deployment");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    assert!(
        denial.contains("admission webhook \"placement.spreadlab.dev\" denied the request"),
        "{denial}"
    );
    eprintln!("the API server's answer: {denial}");
    assert!(
        denial.contains(&reason),
        "{denial}\nshould carry the real scheduler's {reason:?}"
    );

    // A bare Pod no node can hold: refused with NodeResourcesFit's reason (`Insufficient cpu`,
    // pkg/scheduler/framework/plugins/noderesources/fit.go).
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "huge", "namespace": "default"},
                     "spec": {"containers": [{"name": "c", "image": "busybox",
                                              "resources": {"requests": {"cpu": "1000"}}}]}});
    let denial = server
        .try_create(&pod)
        .expect_err("a Pod that fits no node was admitted");
    assert!(
        denial.contains("admission webhook \"placement.spreadlab.dev\" denied the request")
            && denial.contains("Insufficient cpu"),
        "{denial}"
    );

    // The cluster changes under serve: the first scenario's nodes and pods go, the second's come.
    for object in cluster
        .iter()
        .filter(|o| o["kind"] == "Pod" || o["kind"] == "Node")
    {
        server.delete(object);
    }
    let fits = "default-stacking";
    assert!(pending_messages(fits).is_empty());
    server.create(&objects(&scenario(fits, "cluster.yaml")));
    let workload = objects(&scenario(fits, "workload.yaml")).remove(0);
    wait_until("the second scenario's events applied", &mut || {
        plain(&serving, &workload)["allowed"] == true
    });
    server.try_create(&workload).unwrap_or_else(|denial| {
        panic!("a Deployment the scheduler places whole was refused: {denial}")
    });

    // Every node tainted: the next decision reads the taints (TaintToleration's filter reason,
    // `node(s) had untolerated taint(s)`, pkg/scheduler/framework/plugins/tainttoleration).
    let taint = json!({"spec": {"taints": [{"key": "maintenance", "effect": "NoSchedule"}]}});
    for node in objects(&scenario(fits, "cluster.yaml"))
        .iter()
        .filter(|o| o["kind"] == "Node")
    {
        server.patch(node, taint.clone());
    }
    wait_until("the taints' events applied", &mut || {
        plain(&serving, &workload)["message"]
            .as_str()
            .is_some_and(|m| m.contains("3 node(s) had untolerated taint(s)"))
    });

    let (_, health) = request(&serving, "GET", "/healthz", b"");
    assert_eq!(health["cluster"]["watchErrors"], 0, "{health}");
    // Every change since the first model was applied to it in place: it was built once. The
    // model applies the difference between the cluster it saw last and the cluster now, so
    // what it counts depends on when requests came; it counts at least the first scenario's
    // nodes and pods deleted and the second's created (a node's creation and its taint are one
    // change when no request came between them).
    let nodes_and_pods = |objects: &[Value]| {
        objects
            .iter()
            .filter(|o| o["kind"] == "Pod" || o["kind"] == "Node")
            .count() as u64
    };
    let least =
        nodes_and_pods(&cluster) + nodes_and_pods(&objects(&scenario(fits, "cluster.yaml")));
    assert!(
        health["model"]["changesApplied"].as_u64() >= Some(least),
        "{health}"
    );
    assert_eq!(
        health["model"]["builds"],
        1,
        "{health}\n{}",
        serving.log.lock().unwrap()
    );
    let (status, metrics) = request_text(&serving, "/metrics");
    assert_eq!(status, 200);
    for line in [
        "spreadlab_decisions_total{endpoint=\"validate\",verdict=\"denied\"}",
        "spreadlab_decisions_total{endpoint=\"validate\",verdict=\"allowed\"}",
        "spreadlab_cluster_synced 1",
        "spreadlab_decision_duration_seconds_count{endpoint=\"validate\"}",
    ] {
        assert!(metrics.contains(line), "{line} not in\n{metrics}");
    }
}

/// `policies/webhook/mutating.yaml`'s path end to end: `serve --settings` with `mutate: true`,
/// registered as the API server's MutatingWebhookConfiguration, answers a Deployment without a
/// spread with a JSON Patch (kube-core's AdmissionResponse, `json_patch::diff`) that the real API
/// server applies: the stored Deployment carries the added zone spread over its own pods.
#[test]
fn the_api_server_applies_the_mutating_webhooks_patch() {
    let Some(harness) = harness() else { return };
    let server = ApiServer::start(&harness, "mutating");
    let id = "default-stacking";
    server.create(&objects(&scenario(id, "cluster.yaml")));
    let dir = server_dir("live-serve", "mutating");
    let settings = server.dir.join("settings.yaml");
    std::fs::write(&settings, "mutate: true\n").unwrap();
    let admin = server.kubeconfig("admin");
    let serving = serve(
        dir,
        &[
            "--kubeconfig",
            admin.to_str().unwrap(),
            "--settings",
            settings.to_str().unwrap(),
        ],
    );
    let workload = objects(&scenario(id, "workload.yaml")).remove(0);
    assert!(workload["spec"]["template"]["spec"]["topologySpreadConstraints"].is_null());
    wait_for(
        &serving,
        Duration::from_secs(60),
        "the cluster listed",
        &mut || plain(&serving, &workload)["allowed"] == true,
    );
    server.create(&[webhook_configuration(
        "MutatingWebhookConfiguration",
        &serving,
        json!([{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["deployments"]}]),
    )]);
    // The configuration takes a moment to reach the admission chain: each try has its own name.
    let started = Instant::now();
    let created = (1..)
        .find_map(|attempt| {
            let mut deployment = workload.clone();
            deployment["metadata"]["name"] = json!(format!("mutated-{attempt}"));
            let created = server.create_returning(&deployment);
            let spread = &created["spec"]["template"]["spec"]["topologySpreadConstraints"];
            if spread.is_null() {
                assert!(
                    started.elapsed() < Duration::from_secs(30),
                    "never mutated; serve's log:\n{}",
                    serving.log.lock().unwrap()
                );
                std::thread::sleep(Duration::from_millis(100));
                return None;
            }
            Some(created)
        })
        .unwrap();
    let spread = &created["spec"]["template"]["spec"]["topologySpreadConstraints"][0];
    assert_eq!(
        spread["topologyKey"], "topology.kubernetes.io/zone",
        "{created}"
    );
    assert_eq!(
        spread["labelSelector"], workload["spec"]["selector"],
        "{created}"
    );
    // Nothing else was rewritten: the template's containers are as sent.
    assert_eq!(
        created["spec"]["template"]["spec"]["containers"][0]["name"],
        workload["spec"]["template"]["spec"]["containers"][0]["name"]
    );
}

/// Measurement, not a test (`--ignored`; sizes from `SPREADLAB_LIVE_NODES`, default 1,000, and
/// `SPREADLAB_LIVE_PODS`, default 10,000): a cluster of that size in the real API server, then
/// the time to read it (`snapshot`), `serve --kubeconfig`'s time to be ready and its memory, the
/// decision latency (p50 and p99 of 50 sequential `/validate` AdmissionReviews, and of 8 clients
/// at once), and the time from a node's creation (and deletion) to the first decision that sees
/// it, applied to the model in place.
#[test]
#[ignore]
fn live_scale() {
    let Some(harness) = harness() else { return };
    let size = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (nodes, pods) = (
        size("SPREADLAB_LIVE_NODES", 1_000),
        size("SPREADLAB_LIVE_PODS", 10_000),
    );
    let server = ApiServer::start(&harness, "scale");
    let zones = ["zone-a", "zone-b", "zone-c"];
    let node = |i: usize| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": format!("node-{i}"), "labels": {
                   "kubernetes.io/hostname": format!("node-{i}"),
                   "topology.kubernetes.io/zone": zones[i % 3]}},
               "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                          "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"}}})
    };
    let started = Instant::now();
    server.create_many(&(0..nodes).map(node).collect::<Vec<_>>(), 16);
    let pod_objects: Vec<Value> = (0..pods)
        .map(|i| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": format!("pod-{i}"), "namespace": "default",
                                "labels": {"app": format!("app-{}", i % 50)}},
                   "spec": {"nodeName": format!("node-{}", i % nodes),
                            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}})
        })
        .collect();
    server.create_many(&pod_objects, 16);
    eprintln!(
        "created {nodes} nodes and {pods} pods in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let admin = server.kubeconfig("admin");
    let snapshot = server.dir.join("snapshot.json");
    let started = Instant::now();
    let output = spreadlab(&[
        "snapshot",
        "--kubeconfig",
        admin.to_str().unwrap(),
        "--file",
        snapshot.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    eprintln!(
        "snapshot: {:.2} s, {} bytes ({})",
        started.elapsed().as_secs_f64(),
        std::fs::metadata(&snapshot).unwrap().len(),
        text(&output.stderr).trim()
    );

    let started = Instant::now();
    let serving = serve(
        server_dir("live-serve", "scale"),
        &["--kubeconfig", admin.to_str().unwrap()],
    );
    while request(&serving, "GET", "/readyz", b"").0 != 200 {
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "serve ready (every kind listed) {:.2} s after start",
        started.elapsed().as_secs_f64()
    );
    let review = deployment_review("u", json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "namespace": "default"},
                   "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                            "template": {"metadata": {"labels": {"app": "web"}},
                                         "spec": {"containers": [{"name": "web", "image": "nginx",
                                                  "resources": {"requests": {"cpu": "1"}}}],
                                                  "topologySpreadConstraints": [{"maxSkew": 1,
                                                      "topologyKey": "topology.kubernetes.io/zone",
                                                      "whenUnsatisfiable": "DoNotSchedule",
                                                      "labelSelector": {"matchLabels": {"app": "web"}}}]}}}}))
    .to_string();
    let percentiles = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
        let slowest: Vec<String> = times
            .iter()
            .rev()
            .take(3)
            .map(|t| format!("{t:.1}"))
            .collect();
        format!(
            "p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (slowest: {} ms)",
            at(0.5),
            at(0.99),
            at(1.0),
            slowest.join(", ")
        )
    };
    // The time of one decision, or `None` when serve answered otherwise (503 past
    // --eval-timeout under load).
    let decide = || {
        let started = Instant::now();
        let (status, answer) = request(&serving, "POST", "/validate", review.as_bytes());
        if status != 200 {
            eprintln!("  {status}: {answer}");
            return None;
        }
        assert_eq!(answer["response"]["allowed"], true, "{answer}");
        Some(started.elapsed().as_secs_f64() * 1000.0)
    };
    let report = |label: &str, times: Vec<Option<f64>>| {
        let answered: Vec<f64> = times.iter().flatten().copied().collect();
        eprintln!(
            "decisions, {label}: {} of {} answered, {}",
            answered.len(),
            times.len(),
            percentiles(answered)
        );
    };
    // serve's own time per decision (from the request read to the answer), beside the client's.
    let served = || {
        let (_, metrics) = request_text(&serving, "/metrics");
        let value = |name: &str| -> f64 {
            metrics
                .lines()
                .find(|l| l.starts_with(name) && l.contains("endpoint=\"validate\""))
                .and_then(|l| l.rsplit(' ').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0)
        };
        (
            value("spreadlab_decision_duration_seconds_sum"),
            value("spreadlab_decision_duration_seconds_count"),
        )
    };
    let (sum_before, count_before) = served();
    report("one client", (0..200).map(|_| decide()).collect());
    let (sum, count) = served();
    eprintln!(
        "  of which serve's own time per decision: mean {:.1} ms",
        (sum - sum_before) / (count - count_before).max(1.0) * 1000.0
    );
    let concurrent: Vec<Option<f64>> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| (0..25).map(|_| decide()).collect::<Vec<_>>()))
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    report("8 clients at once", concurrent);
    let status = std::fs::read_to_string(format!("/proc/{}/status", serving.child.id())).unwrap();
    let memory: Vec<&str> = status
        .lines()
        .filter(|l| l.starts_with("VmHWM") || l.starts_with("VmRSS"))
        .collect();
    eprintln!("serve memory: {memory:?}");

    // A node created now: how long until a decision sees it (the new node's zone count).
    let (_, before) = request(&serving, "GET", "/healthz", b"");
    let started = Instant::now();
    server.create(&[node(nodes)]);
    let created = started.elapsed();
    loop {
        let (_, health) = request(&serving, "GET", "/healthz", b"");
        if health["cluster"]["objects"].as_u64() > before["cluster"]["objects"].as_u64() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let in_view = started.elapsed();
    // Then in the decisions' model (applied in place: every node index after it moves).
    loop {
        let (_, health) = request(&serving, "GET", "/healthz", b"");
        if health["model"]["current"] == true {
            eprintln!("model: {}", health["model"]);
            assert_eq!(
                health["model"]["builds"], before["model"]["builds"],
                "{health}"
            );
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    eprintln!(
        "a new node: created in {:.1} ms, in serve's watched objects {:.1} ms and in the \
         decisions' model {:.1} ms after the create call began",
        created.as_secs_f64() * 1000.0,
        in_view.as_secs_f64() * 1000.0,
        started.elapsed().as_secs_f64() * 1000.0
    );
    // The node deleted again: out of the model in place too.
    let (_, before) = request(&serving, "GET", "/healthz", b"");
    let started = Instant::now();
    server.delete(&node(nodes));
    loop {
        let (_, health) = request(&serving, "GET", "/healthz", b"");
        if health["cluster"]["objects"].as_u64() < before["cluster"]["objects"].as_u64()
            && health["model"]["current"] == true
        {
            eprintln!(
                "the node deleted: out of the decisions' model {:.1} ms after the delete call \
                 began (model: {})",
                started.elapsed().as_secs_f64() * 1000.0,
                health["model"]
            );
            assert_eq!(
                health["model"]["builds"], before["model"]["builds"],
                "{health}"
            );
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{health}");
        std::thread::sleep(Duration::from_millis(1));
    }

    // A pod bound now: applied to the model in place (`Prepared::advance`), not rebuilt.
    let (_, before) = request(&serving, "GET", "/healthz", b"");
    let applied = |health: &Value| health["model"]["changesApplied"].as_u64().unwrap_or(0);
    let started = Instant::now();
    let mut extra = pod_objects[0].clone();
    extra["metadata"]["name"] = json!("late-pod");
    server.create(&[extra]);
    loop {
        let (_, health) = request(&serving, "GET", "/healthz", b"");
        if health["model"]["current"] == true && applied(&health) > applied(&before) {
            eprintln!(
                "a new pod: in the decisions' model {:.1} ms after the create call began; \
                 applying its change took {:.3} ms (model: {})",
                started.elapsed().as_secs_f64() * 1000.0,
                health["model"]["lastChangesSeconds"]
                    .as_f64()
                    .unwrap_or(f64::NAN)
                    * 1000.0,
                health["model"]
            );
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{health}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
