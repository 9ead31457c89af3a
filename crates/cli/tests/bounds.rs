//! Hostile sizes stay bounded (docs/bounds.md): the worst replica counts (2^31−1) and search
//! bounds (`capacity --max 4000000000`) run every command under a 2 GiB address-space limit
//! (`ulimit -v`), and what cannot be bounded by what fits is refused with exit 3.
//!
//! Expected numbers follow from NodeResourcesFit (`fit.go`): two nodes of 4 cpu and 110 pods
//! hold 4 one-cpu replicas each, so 8 are placed and every further replica is rejected by
//! `Insufficient cpu` on both nodes, with no lower-priority pod to preempt.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const EXIT_PENDING: i32 = 1;
const EXIT_INPUT_ERROR: i32 = 3;
/// The address-space limit every command here runs under, in KiB.
const LIMIT_KIB: u64 = 2 * 1024 * 1024;

const NODES: &str = r#"apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"#;

fn workload(kind: &str, replicas: u64, cpu: &str) -> String {
    let service_name = if kind == "StatefulSet" {
        "\n  serviceName: web"
    } else {
        ""
    };
    format!(
        r#"---
apiVersion: apps/v1
kind: {kind}
metadata: {{name: web}}
spec:
  replicas: {replicas}{service_name}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"#
    )
}

/// Writes `text` to a fresh file named after the test.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spreadlab-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write input");
    path
}

/// `spreadlab <args>` under the address-space limit.
fn limited(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_spreadlab"))
        .args(args)
        .output()
        .expect("run spreadlab under sh")
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A Deployment and a StatefulSet of 2^31−1 replicas: every command answers (exit 0 or 1, never
/// an abort), and `simulate` counts the replicas it did not build as Pending with the message of
/// the last one it built.
#[test]
fn the_largest_replica_count_runs_in_bounded_memory() {
    for kind in ["Deployment", "StatefulSet"] {
        let path = file(
            &format!("{kind}.yaml"),
            &format!("{NODES}{}", workload(kind, 2_147_483_647, "1")),
        );
        let path = path.to_str().unwrap();
        let output = limited(&["simulate", "-o", "json", path]);
        assert_eq!(
            output.status.code(),
            Some(EXIT_PENDING),
            "{kind}: {output:?}"
        );
        let report = stdout_json(&output);
        assert_eq!(report["summary"]["pods"], 2_147_483_647_u64, "{kind}");
        assert_eq!(report["summary"]["placed"], 8, "{kind}");
        assert_eq!(report["summary"]["pending"], 2_147_483_639_u64, "{kind}");
        let web = &report["workloads"][0];
        let built = report["pods"].as_array().unwrap();
        // At most 8 fit; up to 1,000 replicas are always built (each with its decision).
        assert_eq!(built.len(), 1_000, "{kind}");
        assert_eq!(web["notBuilt"], 2_147_483_647_u64 - 1_000, "{kind}");
        let last = built.last().unwrap();
        assert_eq!(web["pendingLike"], last["name"], "{kind}");
        assert_eq!(
            last["message"],
            // v1.37's form (the default release): no DynamicResources note before preemption's.
            "0/2 nodes are available: 2 Insufficient cpu. preemption: \
             0/2 nodes are available: 2 No preemption victims found for incoming pod.",
            "{kind}"
        );
        for args in [
            vec!["whatif", "--fail", "zone=a", path],
            vec!["whatif", "--fail-each", "node", path],
            vec!["lint", path],
            vec!["rollout", path],
            vec!["stalemate", path],
            vec!["risk", "--runs", "3", path],
            vec!["capacity", "--max", "4000000000", path],
        ] {
            let output = limited(&args);
            assert!(
                matches!(output.status.code(), Some(0 | 1)),
                "{kind} {args:?}: {:?} {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

/// `capacity --max 4000000000` for pods that request nothing, on a node that admits a billion
/// pods: the search stops at the simulation's pod ceiling and says so.
#[test]
fn capacity_search_stops_at_the_pod_ceiling() {
    let nodes = NODES.replace("pods: \"110\"", "pods: \"1000000000\"");
    let path = file(
        "capacity.yaml",
        &format!("{nodes}{}", workload("Deployment", 1, "0")),
    );
    let output = limited(&[
        "capacity",
        "--max",
        "4000000000",
        "-o",
        "json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = stdout_json(&output);
    assert_eq!(report[0]["bounded"], true);
    assert_eq!(report[0]["searchLimit"], 199_999);
    assert_eq!(report[0]["additional"], 199_999);
}

/// Replicas that could all fit but would take the simulation past its pod ceiling are an input
/// error on `spec.replicas`, before any work.
#[test]
fn replicas_past_the_pod_ceiling_are_an_input_error() {
    let nodes = NODES.replace("pods: \"110\"", "pods: \"1000000000\"");
    let path = file(
        "ceiling.yaml",
        &format!("{nodes}{}", workload("Deployment", 2_147_483_647, "0")),
    );
    let output = limited(&["simulate", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("(Deployment default/web): spec.replicas: 2147483647 replicas")
            && stderr.contains("over the 200000 pods one simulation holds"),
        "{stderr}"
    );
}

/// `risk --runs` past its bound is a usage error.
#[test]
fn risk_runs_are_bounded() {
    let path = file(
        "risk.yaml",
        &format!("{NODES}{}", workload("Deployment", 2, "1")),
    );
    let output = limited(&["risk", "--runs", "1000000000", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("from 1 to 10000"));
}

/// An endless input (`/dev/zero`) or one over 64 MiB is refused before it is read whole.
#[test]
fn endless_and_oversized_inputs_are_refused_before_reading_them() {
    let output = limited(&["simulate", "/dev/zero"]);
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("/dev/zero: input is over the limit of 67108864 bytes; not read"),
        "{output:?}"
    );
}

/// `spreadlab … | head`: the reader goes away after a few bytes. spreadlab exits quietly with
/// the verdict's code (1: a replica stays Pending) and nothing on stderr (before: a panic, exit
/// 101).
#[test]
fn a_closed_stdout_ends_quietly_with_the_verdict() {
    let path = file(
        "pipe.yaml",
        &format!("{NODES}{}", workload("Deployment", 2_000, "1")),
    );
    let stderr = path.with_extension("stderr");
    let output = Command::new("bash")
        .arg("-c")
        .arg("\"$0\" simulate --detail all \"$1\" 2>\"$2\" | head -c 10 >/dev/null; echo \"${PIPESTATUS[0]}\"")
        .arg(env!("CARGO_BIN_EXE_spreadlab"))
        .arg(&path)
        .arg(&stderr)
        .output()
        .expect("bash");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "1",
        "{output:?}"
    );
    assert_eq!(std::fs::read_to_string(&stderr).unwrap(), "");
}
