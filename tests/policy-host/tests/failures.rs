//! The policy's failure modes in the real waPC host (docs/bounds.md, "Policy"):
//! - a panic in the guest (forced by the `fault-injection` build) traps the module; policy-server
//!   answers a failed call with a rejection (code 500, `internal server error: …`), so the
//!   request is refused (fail closed) whatever the webhook's `failurePolicy` says, and a fresh
//!   instance of the module answers the next request normally;
//! - oversized and truncated admission requests and settings are answered, not trapped;
//! - cluster lists that come back truncated, without items, or as the wrong JSON are refused as
//!   unreadable (the `onUnparseable` setting decides, `reject` by default), never read as an
//!   empty cluster.

use std::sync::OnceLock;

use serde_json::{Value, json};
use spreadlab_policy_host::{PolicyHost, faults_wasm_path, repo, wasm_path, yaml_objects};

const PANIC_UID: &str = "spreadlab-fault-injection-panic";

fn read(path: std::path::PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn wasm() -> &'static [u8] {
    static WASM: OnceLock<Vec<u8>> = OnceLock::new();
    WASM.get_or_init(|| read(wasm_path()))
}

fn faults_wasm() -> &'static [u8] {
    static WASM: OnceLock<Vec<u8>> = OnceLock::new();
    WASM.get_or_init(|| read(faults_wasm_path()))
}

/// A seed scenario's stored admission payload and its cluster.
fn scenario() -> (Value, Vec<Value>) {
    let payload =
        read(repo().join("crates/policy/test_data/scenario-gpu-three-zones-one-full.json"));
    let cluster =
        yaml_objects(&repo().join("tests/scenarios/gpu-three-zones-one-full/cluster.yaml"));
    (serde_json::from_slice(&payload).unwrap(), cluster)
}

fn bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap()
}

#[test]
fn a_panic_traps_and_policy_server_rejects_the_request() {
    let (mut payload, cluster) = scenario();
    let host = PolicyHost::new(faults_wasm(), None).expect("loads");
    host.set_cluster(cluster.clone());
    // The fault-injection build decides ordinary requests as the released one does.
    let ordinary = host.validate_as_policy_server(&bytes(&payload));
    assert!(ordinary.get("code") != Some(&json!(500)), "{ordinary}");

    payload["request"]["uid"] = json!(PANIC_UID);
    let error = host
        .call_raw("validate", &bytes(&payload))
        .expect_err("a panic is a trap, not an answer");
    assert!(
        error.to_string().starts_with("Guest call failure"),
        "{error}"
    );
    let answer = host.validate_as_policy_server(&bytes(&payload));
    assert_eq!(answer["accepted"], false, "{answer}");
    assert_eq!(answer["code"], 500, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("internal server error: "),
        "{answer}"
    );

    // A fresh instance of the same module (policy-server instantiates the module per policy
    // evaluation environment) answers the next request as before.
    let fresh = PolicyHost::new(faults_wasm(), None).expect("loads");
    fresh.set_cluster(cluster);
    payload["request"]["uid"] = json!("after-the-trap");
    assert_eq!(fresh.validate_as_policy_server(&bytes(&payload)), ordinary);
}

#[test]
fn oversized_and_truncated_requests_and_settings_are_answered() {
    let (payload, cluster) = scenario();
    let host = PolicyHost::new(wasm(), None).expect("loads");
    host.set_cluster(cluster);
    let text = bytes(&payload);

    // Every prefix length class of a truncated request: a rejection naming JSON, never a trap.
    for cut in [1, text.len() / 3, text.len() / 2, text.len() - 1] {
        let answer = host.call("validate", &text[..cut]);
        assert_eq!(answer["accepted"], false, "cut at {cut}: {answer}");
        assert!(
            answer["message"].as_str().unwrap().contains("not JSON"),
            "{answer}"
        );
    }

    // An 8 MiB object (Kubernetes stores at most ~1.5 MiB): answered.
    let mut big = payload.clone();
    big["request"]["object"]["metadata"]["annotations"] =
        json!({"example.com/blob": "x".repeat(8 << 20)});
    let answer = host.call("validate", &bytes(&big));
    assert!(answer["accepted"].is_boolean(), "{answer}");

    // Settings: 4 MiB of them, and settings cut short, each answered by validate_settings.
    let huge = json!({"lintRules": vec!["zone-loss-not-survived"; 200_000]});
    let answer = host.call("validate_settings", &bytes(&huge));
    assert!(answer["valid"].is_boolean(), "{answer}");
    let answer = host.call("validate_settings", br#"{"maxSkew": 1, "mode": "rej"#);
    assert_eq!(answer["valid"], false, "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("not JSON"),
        "{answer}"
    );

    // The module still answers.
    assert_eq!(host.call("protocol_version", b""), json!("v1"));
}

#[test]
fn truncated_or_missing_cluster_lists_are_unreadable_not_empty() {
    let (payload, cluster) = scenario();
    let host = PolicyHost::new(wasm(), None).expect("loads");
    for (kind, answer) in [
        (
            "Node",
            br#"{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":"#.to_vec(),
        ),
        (
            "Pod",
            br#"{"apiVersion":"v1","kind":"PodList","metadata":{}}"#.to_vec(),
        ),
        ("Pod", b"[]".to_vec()),
        ("Node", Vec::new()),
    ] {
        host.set_cluster(cluster.clone());
        host.cluster
            .lock()
            .unwrap()
            .raw
            .push((kind.to_owned(), answer.clone()));
        let response = host.call("validate", &bytes(&payload));
        let shown = String::from_utf8_lossy(&answer);
        assert_eq!(response["accepted"], false, "{kind} {shown}: {response}");
        let message = response["message"].as_str().unwrap();
        assert!(
            message.contains("cannot read the cluster") && message.contains(kind),
            "{kind} {shown}: {message}"
        );
    }
}
