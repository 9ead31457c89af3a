//! `spreadlab serve` over real TLS 1.3 on 127.0.0.1, with a throwaway CA: Gatekeeper's
//! ProviderRequest and the plain JSON endpoint answer with the scheduler's verdict on the seed
//! scenarios (expectations recorded from the real kube-scheduler in `tests/scenarios/*/
//! expected.jsonl`), the snapshot is re-read when it changes, and bad or oversized requests get
//! clear errors; a TLS 1.2-only client is refused.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rustls::pki_types::ServerName;
use rustls::{ClientConnection, StreamOwned};
use serde_json::{Value, json};
use support::serve::{Server, client, deployment_review, request, serve, server_dir};

fn scenario(name: &str) -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/scenarios")
        .join(name)
}

/// The object of a scenario's workload.yaml, as JSON.
fn workload(name: &str) -> Value {
    let text = std::fs::read_to_string(scenario(name).join("workload.yaml")).unwrap();
    let mut values = spreadlab_k8s::read_documents(
        &spreadlab_k8s::Source {
            name: "workload.yaml".into(),
            text,
        },
        &spreadlab_k8s::LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(values.len(), 1);
    values.remove(0)
}

/// The real scheduler's messages for the Pending pods of a scenario.
/// The Pending pods' messages the real scheduler of the default release (the newest, 1.37: no
/// `--kubernetes-version` and no `kubernetesVersion` setting here) gave on a seed scenario.
fn pending_messages(name: &str) -> Vec<String> {
    std::fs::read_to_string(scenario(name).join("expected-1.37.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["node"].is_null())
        .map(|v| v["message"].as_str().unwrap().to_owned())
        .collect()
}

/// Starts `spreadlab serve` on a free port with a fresh CA and a copy of `snapshot`.
fn start(test: &str, snapshot: &Path, extra: &[&str]) -> Server {
    let dir = server_dir("serve", test);
    std::fs::copy(snapshot, dir.join("snapshot.yaml")).unwrap();
    let snapshot = dir.join("snapshot.yaml");
    let mut args = vec!["--snapshot", snapshot.to_str().unwrap()];
    args.extend_from_slice(extra);
    serve(dir, &args)
}

#[test]
fn gatekeeper_provider_request_gets_the_scheduler_verdicts() {
    let server = start(
        "gatekeeper",
        &scenario("gpu-three-zones-one-full").join("cluster.yaml"),
        &[],
    );
    let full = workload("gpu-three-zones-one-full");
    let keys = json!([full.to_string(), "not json", 7]);
    let body = json!({
        "apiVersion": "externaldata.gatekeeper.sh/v1beta1",
        "kind": "ProviderRequest",
        "request": {"keys": keys},
    });
    let (status, answer) = request(&server, "POST", "/gatekeeper", body.to_string().as_bytes());
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["kind"], "ProviderResponse");
    assert_eq!(answer["apiVersion"], "externaldata.gatekeeper.sh/v1beta1");
    assert_eq!(answer["response"]["systemError"], "");
    let items = answer["response"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["key"], keys[0]);
    assert_eq!(items[0]["error"], "");
    assert_eq!(items[0]["value"]["allowed"], false);
    let message = items[0]["value"]["message"].as_str().unwrap();
    let expected = pending_messages("gpu-three-zones-one-full");
    assert_eq!(expected.len(), 1);
    assert!(
        message.contains(expected[0].split(" preemption:").next().unwrap()),
        "{message}\nshould carry the real scheduler's {:?}",
        expected[0]
    );
    assert!(items[1]["error"].as_str().unwrap().contains("not JSON"));
    assert!(items[2]["error"].as_str().unwrap().contains("not a string"));

    let (status, answer) = request(&server, "POST", "/gatekeeper", b"{\"kind\":\"Nope\"}");
    assert_eq!(status, 400);
    assert!(
        answer["response"]["systemError"]
            .as_str()
            .unwrap()
            .contains("ProviderRequest")
    );
}

#[test]
fn plain_endpoint_accepts_what_fits_and_reloads_the_snapshot() {
    let server = start(
        "plain",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        // Read a changed snapshot at once (as for files replaced by a rename).
        &["--max-body", "65536", "--reload-settle", "0"],
    );
    assert!(pending_messages("vllm-eight-two-zones").is_empty());
    let body = json!({"object": workload("vllm-eight-two-zones")}).to_string();
    let (status, answer) = request(&server, "POST", "/validate", body.as_bytes());
    assert_eq!(
        (status, &answer["allowed"]),
        (200, &json!(true)),
        "{answer}"
    );

    // An AdmissionReview gets an AdmissionReview with the request's uid.
    let review = deployment_review("abc-123", workload("vllm-eight-two-zones"));
    let (status, answer) = request(&server, "POST", "/validate", review.to_string().as_bytes());
    assert_eq!(status, 200);
    assert_eq!(answer["kind"], "AdmissionReview");
    assert_eq!(answer["response"]["uid"], "abc-123");
    assert_eq!(answer["response"]["allowed"], true);
    // A review without a field the API server always sends is refused, naming it.
    let mut partial = review.clone();
    partial["request"]
        .as_object_mut()
        .unwrap()
        .remove("resource");
    let (status, answer) = request(&server, "POST", "/validate", partial.to_string().as_bytes());
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("missing field `resource`"),
        "{answer}"
    );

    let (_, health) = request(&server, "GET", "/healthz", b"");
    assert_eq!(health["snapshot"]["generation"], 1);
    // The snapshot's files are counted, their paths not shown.
    assert_eq!(health["snapshot"]["files"], 1, "{health}");
    assert!(!health.to_string().contains("snapshot.yaml"), "{health}");
    let objects = health["snapshot"]["objects"].as_u64().unwrap();
    // Empty the snapshot: the next request re-reads it and nothing fits any more.
    std::fs::write(
        server.dir.join("snapshot.yaml"),
        "apiVersion: v1\nkind: List\nitems: []\n",
    )
    .unwrap();
    let (_, health) = request(&server, "GET", "/healthz", b"");
    assert_eq!(health["snapshot"]["generation"], 2);
    assert!(health["snapshot"]["objects"].as_u64().unwrap() < objects);
    let (_, answer) = request(&server, "POST", "/validate", body.as_bytes());
    assert_eq!(answer["allowed"], false, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            // kube-scheduler's ErrNoNodesAvailable (pkg/scheduler/schedule_one.go).
            .contains("no nodes available to schedule pods"),
        "{answer}"
    );
}

#[test]
fn bad_requests_get_clear_errors_and_tls12_is_refused() {
    let server = start(
        "bad",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--max-body", "100"],
    );
    let (status, answer) = request(&server, "POST", "/validate", &[b'x'; 200]);
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("over the limit of 100")
    );
    let (status, answer) = request(&server, "POST", "/validate", b"{not json");
    assert_eq!(status, 400);
    assert!(answer["error"].as_str().unwrap().contains("not JSON"));
    let (status, _) = request(&server, "POST", "/validate", b"{}");
    assert_eq!(status, 400);
    let (status, _) = request(&server, "GET", "/nowhere", b"");
    assert_eq!(status, 404);
    let (status, _) = request(&server, "GET", "/validate", b"");
    assert_eq!(status, 405);

    // TLS 1.2 only: the handshake fails.
    let config = Arc::new(client(&server, &[&rustls::version::TLS12]));
    let connection =
        ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
    let socket = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let mut stream = StreamOwned::new(connection, socket);
    assert!(
        stream.write_all(b"GET /healthz HTTP/1.1\r\n\r\n").is_err() || {
            let mut buffer = Vec::new();
            stream.read_to_end(&mut buffer).is_err()
        }
    );
}

#[test]
fn bad_certificate_or_snapshot_fails_at_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_spreadlab"))
        .args([
            "serve",
            "--snapshot",
            "/nonexistent.yaml",
            "--cert",
            "/nonexistent.crt",
        ])
        .args(["--key", "/nonexistent.key", "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent.crt"));
}

fn analyses(name: &str) -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/analyses")
        .join(name)
}

/// tests/analyses/rollout-gpu-busy.yaml's Deployment (three replicas, one per zone on three
/// single-GPU nodes, all running) with `gpus` GPUs per replica.
fn infer(gpus: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "infer", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "infer"}},
            "template": {"metadata": {"labels": {"app": "infer"}}, "spec": {
                "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.1",
                    "resources": {"requests": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": gpus},
                                  "limits": {"nvidia.com/gpu": gpus}}}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "infer"}}}]}}}
    })
}

/// An UPDATE that changes the template to two GPUs per replica, as Kyverno's what-if policy
/// (`policies/kyverno/whatif.yaml`: object, oldObject, operation, namespace) and Gatekeeper's
/// (`policies/gatekeeper/whatif/template.yaml`: the admission request) send it. Derived from the
/// scheduler's NodeResourcesFit filter (upstream pkg/scheduler/framework/plugins/noderesources/
/// fit.go): after the rollout the old pods are gone and no node has two GPUs, so the three new
/// replicas stay Pending. Judged as a CREATE, the three running pods would be its replicas.
#[test]
fn updates_are_judged_as_updates_on_both_endpoints() {
    let server = start(
        "update",
        &analyses("rollout-gpu-busy.yaml"),
        &["--max-body", "65536"],
    );
    let check = |answer: &Value| {
        assert_eq!(answer["allowed"], false, "{answer}");
        let message = answer["message"].as_str().unwrap();
        assert!(
            message.contains("3 of 3 replicas would stay Pending")
                && message.contains("Insufficient nvidia.com/gpu"),
            "{message}"
        );
    };
    // Kyverno: oldObject is sent (null on CREATE).
    let kyverno = json!({"object": infer("2"), "oldObject": infer("1"), "operation": "UPDATE", "namespace": "default"});
    let (status, answer) = request(&server, "POST", "/validate", kyverno.to_string().as_bytes());
    assert_eq!(status, 200, "{answer}");
    check(&answer);
    // A no-op UPDATE (same template): the running pods are its replicas.
    let same = json!({"object": infer("1"), "oldObject": infer("1"), "operation": "UPDATE", "namespace": "default"});
    let (_, answer) = request(&server, "POST", "/validate", same.to_string().as_bytes());
    assert_eq!(answer["allowed"], true, "{answer}");
    // Kyverno on CREATE sends oldObject: null.
    let create = json!({"object": infer("1"), "oldObject": null, "operation": "CREATE", "namespace": "default"});
    let (status, answer) = request(&server, "POST", "/validate", create.to_string().as_bytes());
    assert_eq!(
        (status, &answer["allowed"]),
        (200, &json!(true)),
        "{answer}"
    );

    // Gatekeeper: the key is the admission request.
    let key = json!({
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "UPDATE", "namespace": "default", "name": "infer",
        "object": infer("2"), "oldObject": infer("1"),
    })
    .to_string();
    // As Gatekeeper's audit sends it: no operation, no oldObject (a CREATE).
    let audit = json!({
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "", "namespace": "default", "name": "infer",
        "object": infer("1"), "oldObject": null,
    })
    .to_string();
    let body = json!({
        "apiVersion": "externaldata.gatekeeper.sh/v1beta1",
        "kind": "ProviderRequest",
        "request": {"keys": [key, audit]},
    });
    let (status, answer) = request(&server, "POST", "/gatekeeper", body.to_string().as_bytes());
    assert_eq!(status, 200, "{answer}");
    let items = answer["response"]["items"].as_array().unwrap();
    assert_eq!(items[0]["error"], "", "{answer}");
    check(&items[0]["value"]);
    assert_eq!(items[1]["error"], "", "{answer}");
    assert_eq!(items[1]["value"]["allowed"], true, "{answer}");
}

/// A TLS 1.3 session with the server, handshake done.
fn connect(server: &Server) -> StreamOwned<ClientConnection, TcpStream> {
    let config = Arc::new(client(server, &[&rustls::version::TLS13]));
    let connection =
        ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
    let socket = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut stream = StreamOwned::new(connection, socket);
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock).unwrap();
    }
    stream
}

/// The status of the answer on a stream (read to its end).
fn status_of(stream: &mut impl Read) -> (u16, String) {
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
    (status, text)
}

/// What hyper's HTTP/1.1 parser answers to heads past 16 KiB (431) and to framing a proxy in
/// front could read differently (RFC 9112 §6.3): two different lengths, a length that is not
/// only digits or past any size (400); a length beside `Transfer-Encoding: chunked` is dropped
/// and the body read as chunked, then the connection closed (§6.1); a chunked body is read
/// within `--max-body` (413 past it). Equal repeated lengths are one length (RFC 9110 §8.6).
#[test]
fn heads_and_framing_are_bounded_and_unambiguous() {
    let server = start(
        "framing",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--max-body", "100"],
    );
    let exchange = |request: &[u8]| {
        let mut stream = connect(&server);
        let _ = stream.write_all(request).and_then(|()| stream.flush());
        status_of(&mut stream)
    };
    let mut long = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-A: ".to_vec();
    long.extend(std::iter::repeat_n(b'a', 20_000));
    long.extend(b"\r\n\r\n");
    assert_eq!(exchange(&long).0, 431);
    let post = |headers: &str, body: &str| {
        format!("POST /validate HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n{body}").into_bytes()
    };
    for (headers, body, status) in [
        ("Content-Length: 2\r\nContent-Length: 3\r\n", "{}", 400),
        ("Content-Length: +2\r\n", "{}", 400),
        ("Content-Length: -1\r\n", "{}", 400),
        ("Content-Length: 2 2\r\n", "{}", 400),
        ("Content-Length:\r\n", "{}", 400),
        ("Content-Length: 99999999999999999999999\r\n", "{}", 400),
        ("Content-Length: 999\r\n", "{}", 413),
        // Read as one length of 2: an empty object is no admission request (400).
        ("Content-Length: 2\r\nContent-Length: 2\r\n", "{}", 400),
        // Read as chunked (the length is dropped): `{not json` is read and refused as such.
        (
            "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",
            "9\r\n{not json\r\n0\r\n\r\n",
            400,
        ),
        (
            "Transfer-Encoding: chunked\r\n",
            "9\r\n{not json\r\n0\r\n\r\n",
            400,
        ),
    ] {
        let (got, text) = exchange(&post(headers, body));
        assert_eq!(got, status, "{headers:?}: {text}");
    }
    let (status, text) = exchange(&post(
        "Transfer-Encoding: chunked\r\n",
        "9\r\n{not json\r\n0\r\n\r\n",
    ));
    assert!(text.contains("not JSON"), "{status}: {text}");
    // A chunked body past `--max-body` is cut at the limit.
    let chunk = "x".repeat(80);
    let (status, text) = exchange(&post(
        "Transfer-Encoding: chunked\r\n",
        &format!("50\r\n{chunk}\r\n50\r\n{chunk}\r\n0\r\n\r\n"),
    ));
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("over the limit of 100 bytes"), "{text}");
}

/// A client sending its request one byte every 100 ms (for 1.2 s) never completes it within a 1 s
/// `--request-timeout` although each byte arrives well within the 5 s `--timeout`: it gets 408
/// at the deadline.
#[test]
fn a_trickling_client_loses_its_slot_at_the_request_deadline() {
    let server = start(
        "trickle",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--request-timeout", "1", "--timeout", "5"],
    );
    let mut stream = connect(&server);
    let start = std::time::Instant::now();
    let head = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    for byte in head.iter().take(40) {
        if stream
            .write_all(&[*byte])
            .and_then(|()| stream.flush())
            .is_err()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        if start.elapsed() > std::time::Duration::from_millis(1200) {
            break;
        }
    }
    let (status, text) = status_of(&mut stream);
    assert_eq!(status, 408, "{text}");
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

/// A body that trickles past `--request-timeout` (its head on time), and one that stops for
/// longer than `--timeout` well before that deadline, are both answered 408.
#[test]
fn a_body_that_trickles_or_stops_gets_408() {
    let server = start(
        "body-late",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--request-timeout", "1", "--timeout", "5"],
    );
    let mut stream = connect(&server);
    let began = std::time::Instant::now();
    stream
        .write_all(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 40\r\n\r\n")
        .unwrap();
    for _ in 0..20 {
        if stream
            .write_all(b" ")
            .and_then(|()| stream.flush())
            .is_err()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        if began.elapsed() > std::time::Duration::from_millis(1200) {
            break;
        }
    }
    let (status, text) = status_of(&mut stream);
    assert_eq!(status, 408, "{text}");
    assert!(began.elapsed() < std::time::Duration::from_secs(4));

    let server = start(
        "body-stops",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &[
            "--request-timeout",
            "20",
            "--header-timeout",
            "20",
            "--timeout",
            "1",
        ],
    );
    let mut stream = connect(&server);
    let began = std::time::Instant::now();
    stream
        .write_all(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 40\r\n\r\n{")
        .unwrap();
    stream.flush().unwrap();
    let (status, text) = status_of(&mut stream);
    assert_eq!(status, 408, "{text}");
    assert!(
        began.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}

/// With `--max-connections 1` and the one slot held by a client that never sends its request,
/// the next client is answered 503 at once, not after the holder's deadline, and connections
/// past the limit do not each get a thread (Linux: /proc/<pid>/task).
#[test]
fn past_max_connections_the_answer_is_503_at_once() {
    let server = start(
        "busy",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--max-connections", "1", "--request-timeout", "8"],
    );
    let _holder = connect(&server);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let start = std::time::Instant::now();
    let mut stream = connect(&server);
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    stream.flush().unwrap();
    let (status, text) = status_of(&mut stream);
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("too many connections"), "{text}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    // Thirty more clients that never handshake: the server's threads do not grow with them
    // (connections are tasks; past the limit they are answered or closed by tasks too).
    let threads = || {
        std::fs::read_dir(format!("/proc/{}/task", server.child.id()))
            .unwrap()
            .count()
    };
    let before = threads();
    let idle: Vec<TcpStream> = (0..30)
        .map(|_| TcpStream::connect(("127.0.0.1", server.port)).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let after = threads();
    assert!(
        after <= before,
        "{before} threads before 30 more connections, {after} after"
    );
    drop(idle);
}

/// A decision over its `--eval-timeout` (50 ms; this one places 300 replicas on 1,500 nodes,
/// far longer in a debug build) is answered with an error, on both endpoints, and the service
/// keeps answering.
#[test]
fn a_decision_past_its_deadline_is_an_error() {
    let dir = std::env::temp_dir().join(format!("spreadlab-serve-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for n in 0..1500 {
        text.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{n}, labels: {{kubernetes.io/hostname: n{n}, topology.kubernetes.io/zone: z{}}}}}, status: {{allocatable: {{cpu: '8', memory: 32Gi, pods: '110'}}}}}}\n",
            n % 3
        ));
    }
    let snapshot = dir.join("big.yaml");
    std::fs::write(&snapshot, text).unwrap();
    let server = start("slow", &snapshot, &["--eval-timeout", "0.05"]);
    let _ = std::fs::remove_dir_all(&dir);
    let mut object = infer("1");
    object["spec"]["replicas"] = json!(300);
    let object = {
        let containers = &mut object["spec"]["template"]["spec"]["containers"][0];
        containers["resources"] = json!({"requests": {"cpu": "1"}});
        object
    };
    let body = json!({"object": object}).to_string();
    let (status, answer) = request(&server, "POST", "/validate", body.as_bytes());
    assert_eq!(status, 503, "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("longer than 50 ms (--eval-timeout)"),
        "{answer}"
    );
    let provider = json!({
        "apiVersion": "externaldata.gatekeeper.sh/v1beta1",
        "kind": "ProviderRequest",
        "request": {"keys": [object.to_string()]},
    });
    let (status, answer) = request(
        &server,
        "POST",
        "/gatekeeper",
        provider.to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["response"]["systemError"]
            .as_str()
            .unwrap()
            .contains("--eval-timeout"),
        "{answer}"
    );
    let (status, _) = request(&server, "GET", "/healthz", b"");
    assert_eq!(status, 200);
}

/// `--settings`: the policy's settings file. `mode: warn` turns the refusal on the full GPU
/// scenario (the real scheduler left one replica Pending, expected.jsonl) into warnings, and
/// `mutate: true` answers an AdmissionReview with a JSONPatch from the object to the mutated
/// one (a zone spread selecting its own pods added to a Deployment without one).
#[test]
fn settings_file_and_admission_review_patch() {
    let dir = std::env::temp_dir().join(format!("spreadlab-settings-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.yaml");
    std::fs::write(&settings, "mode: warn\nmutate: true\n").unwrap();
    let settings_arg = settings.display().to_string();
    let server = start(
        "settings",
        &scenario("gpu-three-zones-one-full").join("cluster.yaml"),
        &["--settings", &settings_arg, "--max-body", "65536"],
    );
    let _ = std::fs::remove_dir_all(&dir);
    let mut object = workload("gpu-three-zones-one-full");
    object["spec"]["template"]["spec"]
        .as_object_mut()
        .unwrap()
        .remove("topologySpreadConstraints");
    let review = deployment_review("u-1", object.clone());
    let (status, answer) = request(&server, "POST", "/validate", review.to_string().as_bytes());
    assert_eq!(status, 200, "{answer}");
    let response = &answer["response"];
    assert_eq!(response["uid"], "u-1");
    assert_eq!(response["allowed"], true, "{answer}");
    assert_eq!(response["patchType"], "JSONPatch");
    use base64::Engine as _;
    let patch: Value = serde_json::from_slice(
        &base64::engine::general_purpose::STANDARD
            .decode(response["patch"].as_str().unwrap())
            .unwrap(),
    )
    .unwrap();
    // Only what changed: the constraint added, nothing else of the object rewritten.
    assert_eq!(patch.as_array().unwrap().len(), 1, "{patch}");
    assert_eq!(patch[0]["op"], "add", "{patch}");
    assert_eq!(
        patch[0]["path"], "/spec/template/spec/topologySpreadConstraints",
        "{patch}"
    );
    let mut patched = object.clone();
    json_patch::patch(
        &mut patched,
        &serde_json::from_value::<json_patch::Patch>(patch).unwrap(),
    )
    .unwrap();
    let constraints = &patched["spec"]["template"]["spec"]["topologySpreadConstraints"];
    assert_eq!(constraints[0]["topologyKey"], "topology.kubernetes.io/zone");
    assert_eq!(constraints[0]["whenUnsatisfiable"], "DoNotSchedule");
    assert_eq!(constraints[0]["labelSelector"], object["spec"]["selector"]);

    // mode: warn: the scenario's own workload is allowed, its Pending replica a warning.
    let body = json!({"object": workload("gpu-three-zones-one-full")}).to_string();
    let (_, answer) = request(&server, "POST", "/validate", body.as_bytes());
    assert_eq!(answer["allowed"], true, "{answer}");
    let expected = pending_messages("gpu-three-zones-one-full");
    let warning = answer["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains(expected[0].split(" preemption:").next().unwrap()),
        "{warning}"
    );
}

/// Three 8-cpu nodes each running a 7-cpu pod: as `kubectl get -o yaml` writes it (one List,
/// `kind` last) or as separate documents. A Deployment of three 4-cpu replicas cannot be placed
/// on the whole snapshot (NodeResourcesFit, `fit.go`: 4 > 8 - 7 on every node, and the running
/// pods' priority equals the replicas', so nothing is preempted), but it can on a prefix that
/// lacks some of the pods.
fn full_cluster(as_list: bool) -> String {
    let mut items = Vec::new();
    for n in 0..3 {
        items.push(format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{n}\n  labels:\n    topology.kubernetes.io/zone: z{n}\n\
             status:\n  allocatable:\n    cpu: \"8\"\n    memory: 32Gi\n    pods: \"110\"\n"
        ));
    }
    for n in 0..3 {
        items.push(format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: busy-{n}\n  namespace: default\n\
             spec:\n  nodeName: n{n}\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests:\n        cpu: \"7\"\n\
             status:\n  phase: Running\n"
        ));
    }
    if as_list {
        let indented: Vec<String> = items
            .iter()
            .map(|item| {
                let mut lines = item.lines();
                let first = format!("- {}", lines.next().unwrap());
                std::iter::once(first)
                    .chain(lines.map(|l| format!("  {l}")))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        format!(
            "apiVersion: v1\nitems:\n{}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
            indented.join("\n")
        )
    } else {
        items.join("---\n")
    }
}

fn three_by_four_cpu() -> Value {
    json!({"object": {"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "x",
                    "resources": {"requests": {"cpu": "4"}}}]}}}}})
}

/// The snapshot rewritten in place, over and over, the way `kubectl get … -o yaml > snap.yaml`
/// does (truncate, then write in pieces), in both shapes, while at least 1,000 requests (and as
/// many as span 5 rewrites) are answered from four clients: every answer is a 200 with the whole snapshot's verdict (refused, with the
/// scheduler's message), none from a half-written file; reloads still happen between rewrites.
/// Before, 17-45 requests failed and 1-7 verdicts flipped to allowed on a prefix.
#[test]
fn a_snapshot_rewritten_in_place_never_answers_from_a_prefix() {
    let dir = std::env::temp_dir().join(format!("spreadlab-torn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("first.yaml");
    std::fs::write(&first, full_cluster(true)).unwrap();
    // A generous decision deadline: other tests load the 2 cores too, and a late decision is
    // not what this test is about.
    let server = start(
        "torn",
        &first,
        &[
            "--reload-settle",
            "0.3",
            "--eval-timeout",
            "60",
            "--header-timeout",
            "60",
        ],
    );
    let snapshot = server.dir.join("snapshot.yaml");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Rewrites done so far: the clients go on until there were at least 5 (how many requests
    // fit between two depends on the machine and the build).
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let stop = Arc::clone(&stop);
        let done = Arc::clone(&done);
        let texts = [full_cluster(true), full_cluster(false)];
        std::thread::spawn(move || {
            let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
            let mut rewrites = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let text = &texts[rewrites % 2];
                let mut file = std::fs::File::create(&snapshot).unwrap();
                for piece in text.as_bytes().chunks(97) {
                    file.write_all(piece).unwrap();
                    file.flush().unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(3));
                }
                drop(file);
                rewrites += 1;
                done.store(rewrites, std::sync::atomic::Ordering::Relaxed);
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                std::thread::sleep(std::time::Duration::from_millis(seed % 700));
            }
            rewrites
        })
    };
    let body = three_by_four_cpu().to_string();
    let expected = "0/3 nodes are available: 3 Insufficient cpu.";
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let mut answers = Vec::new();
                    while answers.len() < 250
                        || (done.load(std::sync::atomic::Ordering::Relaxed) < 5
                            && answers.len() < 5_000)
                    {
                        answers.push(request(&server, "POST", "/validate", body.as_bytes()));
                    }
                    answers
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let rewrites = writer.join().unwrap();
    let failed = answers.iter().filter(|(status, _)| *status != 200).count();
    let flipped = answers
        .iter()
        .filter(|(status, answer)| {
            *status == 200
                && (answer["allowed"] != false
                    || !answer["message"].as_str().unwrap_or("").contains(expected))
        })
        .count();
    assert!(answers.len() >= 1000, "{} answers", answers.len());
    assert_eq!(
        (failed, flipped),
        (0, 0),
        "{:?}",
        answers
            .iter()
            .find(|(s, a)| *s != 200 || a["allowed"] != false)
    );
    assert!(rewrites >= 5, "{rewrites} rewrites");
    // Let the last rewrite settle: it is read, and it is whole.
    std::thread::sleep(std::time::Duration::from_millis(800));
    let (_, health) = request(&server, "GET", "/healthz", b"");
    assert!(
        health["snapshot"]["generation"].as_u64().unwrap() >= 2,
        "{health}"
    );
    assert_eq!(health["snapshot"]["objects"], 6, "{health}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A half-written snapshot that then stays as it is (the writer died): it is read once settled,
/// rejected (a List without its closing `kind`), counted on /healthz, and the last good snapshot
/// keeps answering.
#[test]
fn a_snapshot_left_cut_short_is_rejected_and_the_last_good_one_answers() {
    let dir = std::env::temp_dir().join(format!("spreadlab-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("first.yaml");
    let text = full_cluster(true);
    std::fs::write(&first, &text).unwrap();
    let server = start(
        "cut",
        &first,
        &["--reload-settle", "0.2", "--eval-timeout", "60"],
    );
    // Cut after the third node, at an item boundary: valid YAML, fewer objects, no `kind`.
    let cut = text.find("- apiVersion: v1\n  kind: Pod").unwrap();
    std::fs::write(server.dir.join("snapshot.yaml"), &text[..cut]).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    let body = three_by_four_cpu().to_string();
    for _ in 0..3 {
        let (status, answer) = request(&server, "POST", "/validate", body.as_bytes());
        assert_eq!(
            (status, &answer["allowed"]),
            (200, &json!(false)),
            "{answer}"
        );
    }
    let (_, health) = request(&server, "GET", "/healthz", b"");
    assert_eq!(health["snapshot"]["generation"], 1, "{health}");
    assert_eq!(health["snapshot"]["rejectedReloads"], 1, "{health}");
    assert_eq!(health["snapshot"]["objects"], 6, "{health}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Forty clients that connect and never send a byte (reconnecting whenever they are dropped)
/// while 58 legitimate requests are made: every legitimate request is answered, because a slow
/// client loses its slot at the header deadline and waiting connections do not take the
/// decision slots. Before, 56 of 58 got 503.
#[test]
fn slow_clients_do_not_deny_service() {
    let server = start(
        "slow",
        &scenario("vllm-eight-two-zones").join("cluster.yaml"),
        &["--header-timeout", "1", "--eval-timeout", "60"],
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let port = server.port;
    let attackers: Vec<_> = (0..40)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let Ok(mut socket) = TcpStream::connect(("127.0.0.1", port)) else {
                        continue;
                    };
                    let _ = socket.set_read_timeout(Some(std::time::Duration::from_millis(200)));
                    let mut byte = [0u8; 1];
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        match socket.read(&mut byte) {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(e)
                                if e.kind() == std::io::ErrorKind::WouldBlock
                                    || e.kind() == std::io::ErrorKind::TimedOut => {}
                            Err(_) => break,
                        }
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let body = json!({"object": workload("vllm-eight-two-zones")}).to_string();
    let statuses: Vec<u16> = (0..58)
        .map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            request(&server, "POST", "/validate", body.as_bytes()).0
        })
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for attacker in attackers {
        attacker.join().unwrap();
    }
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
}

/// Loopback load, bounded (8 clients, 10 requests each) on a server deciding one at a time
/// (`--max-decisions 1`): the others wait for the slot, and every AdmissionReview gets the real
/// scheduler's verdict, none dropped, refused or mixed up; throughput and latency are printed (a
/// measurement, not a bound: the machine decides them).
#[test]
fn eight_clients_at_once_each_get_the_scheduler_verdict() {
    let server = start(
        "load",
        &scenario("gpu-three-zones-one-full").join("cluster.yaml"),
        &["--max-decisions", "1"],
    );
    let reason = pending_messages("gpu-three-zones-one-full")[0]
        .split(" preemption:")
        .next()
        .unwrap()
        .to_owned();
    let started = std::time::Instant::now();
    let times: Vec<f64> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..8)
            .map(|client| {
                let (server, reason) = (&server, &reason);
                scope.spawn(move || {
                    (0..10)
                        .map(|i| {
                            let uid = format!("u-{client}-{i}");
                            let review =
                                deployment_review(&uid, workload("gpu-three-zones-one-full"));
                            let asked = std::time::Instant::now();
                            let (status, answer) =
                                request(server, "POST", "/validate", review.to_string().as_bytes());
                            let took = asked.elapsed().as_secs_f64() * 1000.0;
                            assert_eq!(status, 200, "{answer}");
                            let response = &answer["response"];
                            assert_eq!(response["uid"], uid.as_str());
                            assert_eq!(response["allowed"], false, "{answer}");
                            let message = response["status"]["message"].as_str().unwrap();
                            assert!(message.contains(reason.as_str()), "{message}");
                            took
                        })
                        .collect::<Vec<f64>>()
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "80 decisions from 8 clients in {elapsed:.2} s: {:.0}/s, p50 {:.1} ms, p99 {:.1} ms",
        80.0 / elapsed,
        at(0.5),
        at(0.99)
    );
    assert_eq!(times.len(), 80);
}

/// SIGTERM (what Kubernetes sends a pod it stops): `/readyz` says 503 at once while decisions
/// are still answered for `--shutdown-delay`, then the process exits 0.
#[test]
fn sigterm_makes_it_unready_then_it_exits_cleanly() {
    let mut server = start(
        "sigterm",
        &scenario("gpu-three-zones-one-full").join("cluster.yaml"),
        &["--shutdown-delay", "2"],
    );
    assert_eq!(request(&server, "GET", "/readyz", b"").0, 200);
    let signalled = std::time::Instant::now();
    let kill = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while request(&server, "GET", "/readyz", b"").0 != 503 {
        assert!(
            std::time::Instant::now() < deadline,
            "still ready after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let body = json!({"object": workload("gpu-three-zones-one-full")}).to_string();
    let (status, answer) = request(&server, "POST", "/validate", body.as_bytes());
    assert_eq!(status, 200, "a decision during the delay: {answer}");
    assert_eq!(answer["allowed"], false, "{answer}");
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            signalled.elapsed() < std::time::Duration::from_secs(20),
            "still running 20 s after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert!(
        signalled.elapsed() >= std::time::Duration::from_secs(2),
        "exited before --shutdown-delay"
    );
    assert!(server.log.lock().unwrap().contains("shut down"));
}

/// A renewed certificate written over the files (as cert-manager renews one) is presented from
/// the next handshake on, without a restart; a half-written renewal (a key that does not match)
/// is refused and the current certificate stays.
#[test]
fn a_renewed_certificate_is_served_without_a_restart() {
    let server = start(
        "renewal",
        &scenario("gpu-three-zones-one-full").join("cluster.yaml"),
        &[],
    );
    // A second CA and its server certificate: a client trusting only it can connect once the
    // server presents the renewed certificate.
    let (ca, renewed, key) = support::serve::certificate_authority(&["localhost"]);
    let handshake = |trusted: &rcgen::Certificate| {
        let config =
            support::serve::client_trusting(trusted.der().clone(), &[&rustls::version::TLS13]);
        let mut connection =
            ClientConnection::new(Arc::new(config), ServerName::try_from("localhost").unwrap())
                .unwrap();
        let mut socket = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        let mut ok = true;
        while connection.is_handshaking() {
            if connection.complete_io(&mut socket).is_err() {
                ok = false;
                break;
            }
        }
        ok
    };
    assert!(!handshake(&ca), "the new CA is trusted before the renewal");

    // Half-written: the new certificate beside the old key. Refused; the old one still serves.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(server.dir.join("tls.crt"), renewed.pem()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(request(&server, "GET", "/healthz", b"").0, 200);
    assert!(!handshake(&ca));

    std::fs::write(server.dir.join("tls.key"), key.serialize_pem()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !handshake(&ca) {
        assert!(
            std::time::Instant::now() < deadline,
            "the renewed certificate was not served within 5 s; log:\n{}",
            server.log.lock().unwrap()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // serve's stderr reaches the log through a reader thread: its last line may come after the
    // handshake that the swap already allowed.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !server.log.lock().unwrap().contains("read again") && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let log = server.log.lock().unwrap().clone();
    assert!(log.contains("certificate not replaced"), "{log}");
    assert!(log.contains("read again"), "{log}");
}
