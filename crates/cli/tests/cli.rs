//! End-to-end tests of the `spreadlab` binary on the seed scenarios (`tests/scenarios/`), whose
//! `expected-1.37.jsonl` holds what the real kube-scheduler of the default release (the newest)
//! decided (recorded with the Go oracle by `scripts/record-scenarios.sh`), and on bad input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const EXIT_PLACED: i32 = 0;
const EXIT_PENDING: i32 = 1;
const EXIT_INPUT_ERROR: i32 = 3;

fn spreadlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spreadlab"))
}

fn scenarios_root() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/scenarios")
}

/// What the real scheduler of the release `spreadlab` runs without `--kubernetes-version` decided.
const DEFAULT_RECORDING: &str = "expected-1.37.jsonl";

/// Every scenario folder with a recording of the default release, sorted.
fn scenarios() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(scenarios_root())
        .expect("tests/scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("cluster.yaml").is_file() && p.join("workload.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no scenarios under tests/scenarios");
    for dir in &dirs {
        assert!(
            dir.join(DEFAULT_RECORDING).is_file(),
            "{}: no {DEFAULT_RECORDING}; run scripts/record-scenarios.sh",
            dir.display()
        );
    }
    dirs
}

/// The oracle's lines for a scenario.
fn expected(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join(DEFAULT_RECORDING))
        .expect("the default release's recording")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a recording's line"))
        .collect()
}

fn simulate(args: &[&str]) -> Output {
    spreadlab()
        .arg("simulate")
        .args(args)
        .output()
        .expect("run spreadlab")
}

fn simulate_scenario(dir: &Path, format: &str) -> Output {
    spreadlab()
        .arg("simulate")
        .arg(dir.join("cluster.yaml"))
        .arg(dir.join("workload.yaml"))
        .args(["-o", format])
        .output()
        .expect("run spreadlab")
}

/// Runs `spreadlab args...` with `input` on its standard input.
fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = spreadlab()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run spreadlab");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("wait for spreadlab")
}

fn name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_pending(line: &Value) -> bool {
    line["node"].is_null()
}

#[test]
fn json_report_matches_the_real_scheduler() {
    let mut problems = Vec::new();
    for dir in scenarios() {
        let scenario = name(&dir);
        let oracle = expected(&dir);
        let output = simulate_scenario(&dir, "json");
        let want_code = if oracle.iter().any(is_pending) {
            EXIT_PENDING
        } else {
            EXIT_PLACED
        };
        if output.status.code() != Some(want_code) {
            problems.push(format!(
                "{scenario}: exit code {:?}, want {want_code}; stderr: {}",
                output.status.code(),
                text(&output.stderr)
            ));
        }
        let report: Value = match serde_json::from_slice(&output.stdout) {
            Ok(report) => report,
            Err(error) => {
                problems.push(format!("{scenario}: stdout is not JSON: {error}"));
                continue;
            }
        };
        let Some(pods) = report["pods"].as_array() else {
            problems.push(format!("{scenario}: no top-level `pods` array"));
            continue;
        };
        if pods.len() != oracle.len() {
            problems.push(format!(
                "{scenario}: {} pods in the report, the oracle scheduled {}",
                pods.len(),
                oracle.len()
            ));
        }
        // Scheduling order: the oracle schedules the pods in the order spreadlab does.
        for (index, (pod, line)) in pods.iter().zip(&oracle).enumerate() {
            let key = format!(
                "{}/{}",
                pod["namespace"].as_str().unwrap_or("?"),
                pod["name"].as_str().unwrap_or("?")
            );
            let at = format!("{scenario}: pods[{index}] {key}");
            if !pod["namespace"].is_string() || !pod["name"].is_string() {
                problems.push(format!("{at}: namespace and name must be strings"));
            }
            if Some(key.as_str()) != line["pod"].as_str() {
                problems.push(format!("{at}: the oracle's pod {index} is {}", line["pod"]));
            }
            let workload = pod["workload"].as_str().unwrap_or_default();
            let parts: Vec<&str> = workload.split('/').collect();
            if parts.len() != 3
                || !matches!(parts[0], "Deployment" | "StatefulSet")
                || parts[1] != pod["namespace"]
            {
                problems.push(format!(
                    "{at}: workload {:?} is not Deployment or StatefulSet/<ns>/<name>",
                    pod["workload"]
                ));
            }
            if !(pod["node"].is_string() || pod["node"].is_null()) {
                problems.push(format!(
                    "{at}: node {} is not a string or null",
                    pod["node"]
                ));
            }
            if !pod["tiedNodes"].is_array() {
                problems.push(format!(
                    "{at}: tiedNodes {} is not an array",
                    pod["tiedNodes"]
                ));
            }
            let listed = pod["tiedNodes"].as_array().map_or(0, Vec::len) as u64;
            if pod["tiedCount"].as_u64().is_none_or(|count| count < listed) {
                problems.push(format!(
                    "{at}: tiedCount {} does not count the {listed} tied nodes listed",
                    pod["tiedCount"]
                ));
            }
            if !(pod["message"].is_string() || pod["message"].is_null()) {
                problems.push(format!(
                    "{at}: message {} is not a string or null",
                    pod["message"]
                ));
            }
            if pod["node"] != line["node"] {
                problems.push(format!(
                    "{at}: node {}, the real scheduler {}",
                    pod["node"], line["node"]
                ));
            }
            if pod["message"] != line["message"] {
                problems.push(format!(
                    "{at}: message {}, the real scheduler {}",
                    pod["message"], line["message"]
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn pending_table_shows_the_message_and_the_reasons_per_node() {
    let mut pending_scenarios = 0;
    for dir in scenarios() {
        let scenario = name(&dir);
        let oracle = expected(&dir);
        let pending: Vec<&Value> = oracle.iter().filter(|l| is_pending(l)).collect();
        if pending.is_empty() {
            continue;
        }
        pending_scenarios += 1;
        let output = simulate_scenario(&dir, "table");
        assert_eq!(output.status.code(), Some(EXIT_PENDING), "{scenario}");
        let table = text(&output.stdout);
        for line in pending {
            let pod = line["pod"].as_str().unwrap();
            let message = line["message"].as_str().unwrap();
            assert!(
                table.contains(&format!("Pending {pod}:")),
                "{scenario}: no section for {pod}:\n{table}"
            );
            assert!(
                table.contains(message),
                "{scenario}: the full message of {pod} is missing:\n{message}\n---\n{table}"
            );
            assert!(
                table.contains("PLUGIN") && table.contains("REASON") && table.contains("NODES"),
                "{scenario}: no per-node reason table:\n{table}"
            );
            // Every node's rejecting plugin and reasons, as the real scheduler reported them, are in
            // a row of the reason table (which lists up to six node names per row).
            let section = table
                .split(&format!("Pending {pod}:"))
                .nth(1)
                .unwrap_or_default()
                .split("\nPending ")
                .next()
                .unwrap_or_default();
            for (node, status) in line["filter"].as_object().unwrap() {
                let plugin = status["plugin"].as_str().unwrap_or_default();
                for reason in status["reasons"].as_array().unwrap() {
                    let reason = reason.as_str().unwrap();
                    assert!(
                        section.lines().any(|row| row.contains(plugin)
                            && row.contains(reason)
                            && (row.contains(node.as_str()) || row.contains(" more)"))),
                        "{scenario}: no row with {node} / {plugin} / {reason}:\n{section}"
                    );
                }
            }
        }
    }
    assert!(pending_scenarios > 0, "no scenario has a Pending pod");
}

#[test]
fn json_output_is_deterministic() {
    for dir in scenarios() {
        let first = simulate_scenario(&dir, "json");
        let second = simulate_scenario(&dir, "json");
        assert!(!first.stdout.is_empty(), "{}", dir.display());
        assert_eq!(first.stdout, second.stdout, "{}", dir.display());
    }
}

#[test]
fn stdin_is_read_with_a_dash() {
    let dir = scenarios().into_iter().next().unwrap();
    let from_files = simulate_scenario(&dir, "json");
    let cluster = dir.join("cluster.yaml").display().to_string();
    let workload = std::fs::read(dir.join("workload.yaml")).unwrap();
    let from_stdin = run_with_stdin(&["simulate", &cluster, "-", "-o", "json"], &workload);
    assert_eq!(
        from_stdin.status.code(),
        from_files.status.code(),
        "{}",
        text(&from_stdin.stderr)
    );
    let pods = |output: &Output| -> Value {
        serde_json::from_slice::<Value>(&output.stdout).unwrap()["pods"].clone()
    };
    assert_eq!(pods(&from_stdin), pods(&from_files));
}

/// A temporary file removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> TempFile {
        let dir = std::env::temp_dir().join(format!("spreadlab-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn yaml_syntax_error_names_file_document_and_line_column() {
    // Document 1 (0-based): `labels` is indented by one space, line 9, column 2.
    let file = TempFile::new(
        "broken.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n labels: x\n",
    );
    let output = simulate(&[file.path()]);
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:9:2: document 1", file.path())),
        "stderr: {stderr}"
    );
}

#[test]
fn unknown_kind_is_a_warning_and_the_rest_still_works() {
    let dir = scenarios()
        .into_iter()
        .find(|d| !expected(d).iter().any(is_pending))
        .expect("a scenario without Pending pods");
    let extra = TempFile::new(
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n",
    );
    let output = spreadlab()
        .arg("simulate")
        .arg(dir.join("cluster.yaml"))
        .arg(dir.join("workload.yaml"))
        .arg(extra.path())
        .args(["-o", "json"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(EXIT_PLACED), "stderr: {stderr}");
    assert!(
        stderr.contains("warning:") && stderr.contains("Widget"),
        "stderr: {stderr}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let nodes: Vec<&Value> = report["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["node"])
        .collect();
    let oracle = expected(&dir);
    let want: Vec<&Value> = oracle.iter().map(|l| &l["node"]).collect();
    assert_eq!(nodes, want);
}

#[test]
fn missing_file_is_an_input_error() {
    let missing = scenarios_root().join("no-such-scenario/cluster.yaml");
    let output = simulate(&[missing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR));
    assert!(
        text(&output.stderr).contains("no-such-scenario/cluster.yaml"),
        "stderr: {}",
        text(&output.stderr)
    );
}

fn analyses_fixture(name: &str) -> String {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../tests/analyses")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> (i32, String) {
    let output = spreadlab().args(args).output().expect("run spreadlab");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `whatif` on three zones of one node, three replicas with a hard zone spread (maxSkew 1) and a
/// PDB allowing no disruption. Removed: the zone's domain is gone, the replacement lands in
/// another zone (two domains left, skew 2 - 1 = 1). Unreachable: the tainted zone still counts as
/// a domain with 0 replicas (nodeTaintsPolicy Ignore), so zone b or c would reach skew 2: Pending
/// with PodTopologySpread on both, the tainted node rejected by TaintToleration; when the zone is
/// back the replacement returns to it. Exit 1: a failure leaves the workload short.
#[test]
fn whatif_zone_failure_removed_vs_unreachable() {
    let file = analyses_fixture("spread-three-zones.yaml");
    let (code, json) = run(&["whatif", &file, "--fail", "zone=zone-a", "-o", "json"]);
    assert_eq!(code, EXIT_PENDING);
    let view: Value = serde_json::from_str(&json).expect("json");
    let failures = view["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "both modes by default");
    let removed = &failures[0];
    assert_eq!(removed["mode"], "removed");
    assert_eq!(removed["failedNodes"], serde_json::json!(["node-a"]));
    let web = &removed["workloads"][0];
    assert_eq!(web["workload"], "Deployment/default/web");
    assert_eq!(web["runningBefore"], 3);
    assert_eq!(web["lost"].as_array().unwrap().len(), 1);
    assert_eq!(web["surviving"], 2);
    assert_eq!(web["runningAfter"], 3);
    assert_eq!(web["replacements"][0]["zone"], "zone-b");
    // The PDB has no status: minAvailable 3 of 3 pods is computed (desiredHealthy 3, nothing
    // allowed). A sudden loss leaves 2 healthy (1 short); a drain is refused from the start.
    let pdb = &removed["pdbs"][0];
    assert_eq!(pdb["violated"], true);
    assert_eq!(pdb["desiredHealthy"], 3);
    assert_eq!(pdb["disruptionsAllowed"], 0);
    assert_eq!(pdb["healthyAfterFailure"], 2);
    assert_eq!(pdb["shortfall"], 1);
    assert_eq!(pdb["drain"]["blocks"], true);
    assert_eq!(pdb["drain"]["evictions"], 0);
    let unreachable = &failures[1];
    assert_eq!(unreachable["mode"], "unreachable");
    assert!(
        unreachable["notes"][0]
            .as_str()
            .unwrap()
            .contains("toleration expires (300 s"),
        "{unreachable}"
    );
    assert_eq!(removed["notes"], serde_json::json!([]));
    let web = &unreachable["workloads"][0];
    assert_eq!(web["runningAfter"], 2);
    assert_eq!(web["runningAfterPercent"], 66);
    let replacement = &web["replacements"][0];
    assert_eq!(replacement["node"], Value::Null);
    let message = replacement["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod topology spread constraints."
        ),
        "{message}"
    );
    assert_eq!(web["afterRecovery"]["running"], 3);
    assert_eq!(
        web["afterRecovery"]["placed"][0][1], "node-a",
        "the replacement returns to the recovered zone"
    );
    let (code, table) = run(&[
        "whatif",
        &file,
        "--fail",
        "zone=zone-a",
        "--mode",
        "removed",
    ]);
    assert_eq!(code, EXIT_PLACED, "{table}");
    assert!(table.contains("replacement for default/web-"), "{table}");
    assert!(
        table.contains("a failure of zone=zone-a leaves 2 healthy, the budget needs 3 (1 short)"),
        "{table}"
    );
    assert!(
        table.contains("draining zone=zone-a blocks after 0 eviction(s)"),
        "{table}"
    );
}

/// A `--fail` value naming no zone or node of the snapshot is a usage error (exit 2) listing the
/// known values, not a failure of nothing.
#[test]
fn whatif_unknown_domain_is_a_usage_error() {
    let file = analyses_fixture("spread-three-zones.yaml");
    for (arg, known) in [
        ("zone=zone-x", "known zones: zone-a, zone-b, zone-c"),
        ("node=node-x", "known nodes: node-a, node-b, node-c"),
    ] {
        let output = spreadlab()
            .args(["whatif", &file, "--fail", arg])
            .output()
            .expect("run spreadlab");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(arg) && stderr.contains(known), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// `--fail-each zone`: every zone is as bad as the others (one replica each); the N+1 verdict
/// with unreachable nodes is 2 of 3 (66%), with removed nodes 3 of 3.
#[test]
fn whatif_fail_each_zone_gives_the_n_plus_one_verdict() {
    let file = analyses_fixture("spread-three-zones.yaml");
    let (_, json) = run(&["whatif", &file, "--fail-each", "zone", "-o", "json"]);
    let view: Value = serde_json::from_str(&json).expect("json");
    let sweeps = view["sweeps"].as_array().unwrap();
    assert_eq!(sweeps.len(), 2);
    assert_eq!(sweeps[0]["failures"].as_array().unwrap().len(), 3);
    assert_eq!(sweeps[0]["survival"][0]["minRunningAfterPercent"], 100);
    assert_eq!(sweeps[1]["survival"][0]["minRunningAfterPercent"], 66);
    assert_eq!(sweeps[1]["survival"][0]["worst"], "zone=zone-a");
    let (_, table) = run(&[
        "whatif",
        &file,
        "--fail-each",
        "node",
        "--mode",
        "unreachable",
    ]);
    assert!(
        table.contains(
            "does NOT survive the loss of any one node: at least 2 of 3 replicas (66%) run after rescheduling"
        ),
        "{table}"
    );
    let (code, _) = run(&["whatif", &file, "--fail", "rack=1"]);
    assert_eq!(code, 2, "a bad --fail is a usage error");
    let (code, _) = run(&["whatif", &file]);
    assert_eq!(code, 2, "whatif needs a failure");
}

/// `capacity`: zone a has 8 cpu over two nodes, zone b 4 cpu; 1-cpu replicas with a hard zone
/// spread: zone b holds at most 4, zone a then at most 5 (skew 1), so 9 in all: 7 more than the 2
/// desired. The 10th is rejected by PodTopologySpread on zone a's two nodes and by
/// NodeResourcesFit on b1. The HPA's maxReplicas 12 is not reachable: exit 1.
#[test]
fn capacity_counts_extra_replicas_and_the_limit() {
    let file = analyses_fixture("capacity-two-zones.yaml");
    let (code, json) = run(&["capacity", &file, "-o", "json"]);
    assert_eq!(code, EXIT_PENDING);
    let view: Value = serde_json::from_str(&json).expect("json");
    let web = &view[0];
    assert_eq!(web["running"], 2);
    assert_eq!(web["additional"], 7);
    assert_eq!(web["limit"], "spread");
    assert_eq!(web["rejections"]["PodTopologySpread"], 2);
    assert_eq!(web["rejections"]["NodeResourcesFit"], 1);
    assert_eq!(web["hpaMaxReplicas"], 12);
    assert_eq!(web["reachesHpaMax"], false);
    // Stopped by --max 3 at 2 + 3 replicas, short of 12: the search limit, not "unreachable",
    // and no failing exit code for it.
    let (code, table) = run(&["capacity", &file, "--workload", "web", "--max", "3"]);
    assert!(table.contains("at least 3 more fit"), "{table}");
    assert!(
        table.contains("maxReplicas 12: not decided: the search limit was reached at 5 replicas"),
        "{table}"
    );
    assert!(!table.contains("NOT reachable"), "{table}");
    assert_eq!(code, EXIT_PLACED);
    let (_, json) = run(&[
        "capacity",
        &file,
        "--workload",
        "web",
        "--max",
        "3",
        "-o",
        "json",
    ]);
    let view: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(view[0]["reachesHpaMax"], Value::Null);
}

/// `risk`: every run is counted once per distribution.
#[test]
fn risk_reports_distributions_over_the_runs() {
    let file = analyses_fixture("capacity-two-zones.yaml");
    let (code, json) = run(&["risk", &file, "--runs", "12", "-o", "json"]);
    assert_eq!(code, EXIT_PLACED);
    let view: Value = serde_json::from_str(&json).expect("json");
    let web = &view[0];
    assert_eq!(web["runs"], 12);
    let total: u64 = web["maxPerNode"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 12);
    // Two replicas with a hard zone spread: one per zone in every run.
    assert_eq!(web["maxPerZone"]["1"], 12);
    assert_eq!(web["zoneLossOverHalfPercent"], 0.0);
    let (_, table) = run(&["risk", &file, "--runs", "3"]);
    assert!(table.contains("3 seeded tie-break runs"), "{table}");
    // --workload keeps one workload's report; an unknown name is a usage error naming the known.
    let workload = web["workload"].as_str().unwrap().to_owned();
    let (code, json) = run(&[
        "risk",
        &file,
        "--runs",
        "2",
        "--workload",
        &workload,
        "-o",
        "json",
    ]);
    assert_eq!(code, EXIT_PLACED);
    let only: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(only.as_array().unwrap().len(), 1);
    assert_eq!(only[0]["workload"], workload.as_str());
    let output = spreadlab()
        .args(["risk", &file, "--workload", "nope"])
        .output()
        .expect("run spreadlab");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(&workload));
}

/// `rollout` with every GPU busy: the default strategy resolves to maxSurge 1 (25% of 3 rounded
/// up) and maxUnavailable 0 (rounded down), so the surge pod needs a fourth GPU that does not
/// exist and no old pod may go: stalled at the first step with the scheduler's message, all 3
/// old replicas available. The alternatives are each simulated: maxSurge 0 / maxUnavailable 1
/// completes with 2 available at worst, Recreate with 0, one more GPU node in any zone with 3.
#[test]
fn rollout_with_every_gpu_busy_stalls_and_proposes_alternatives() {
    let file = analyses_fixture("rollout-gpu-busy.yaml");
    let (code, json) = run(&["rollout", &file, "-o", "json"]);
    assert_eq!(code, EXIT_PENDING);
    let view: Value = serde_json::from_str(&json).expect("json");
    let infer = &view[0];
    assert_eq!(infer["workload"], "Deployment/default/infer");
    assert_eq!(infer["oldPods"], 3);
    assert_eq!(infer["maxSurge"], 1);
    assert_eq!(infer["maxUnavailable"], 0);
    assert_eq!(infer["completed"], false);
    assert_eq!(infer["stalledAtStep"], 0);
    assert_eq!(infer["minAvailable"], 3);
    assert!(
        infer["reason"]
            .as_str()
            .unwrap()
            .starts_with("0/3 nodes are available: 3 Insufficient nvidia.com/gpu."),
        "{}",
        infer["reason"]
    );
    assert!(infer["steps"].as_array().is_some_and(|s| !s.is_empty()));
    assert_eq!(infer["steps"][0]["new"]["pending"], 1);
    assert_eq!(infer["progressDeadlineExceededAt"], 600);
    let alternatives = infer["alternatives"].as_array().unwrap();
    let find = |prefix: &str| {
        alternatives
            .iter()
            .find(|a| a["change"].as_str().unwrap().starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix}"))
    };
    let one_by_one = find("strategy RollingUpdate with maxSurge 0");
    assert_eq!(one_by_one["completed"], true);
    assert_eq!(one_by_one["minAvailable"], 2);
    assert_eq!(find("strategy Recreate")["minAvailable"], 0);
    // The surge pod needs one GPU: the smallest temporary capacity is 1 GPU.
    let capacity = find("temporary capacity of 1 GPU(s) in zone zone-a (1 node(s) like gpu-a)");
    assert_eq!(capacity["completed"], true);
    assert_eq!(capacity["minAvailable"], 3);
    assert_eq!(infer["matchLabelKeys"]["withPodTemplateHash"], true);
    let (_, table) = run(&["rollout", &file, "--workload", "infer"]);
    assert!(table.contains("STALLS at step 0"), "{table}");
    assert!(table.contains("ProgressDeadlineExceeded"), "{table}");
}

/// tests/analyses/rollout-match-label-keys.yaml (hand derivation in the fixture): without
/// `matchLabelKeys: [pod-template-hash]` the old pods count toward the new revision's spread and
/// the rollout completes with both new pods in zone-a (end skew 2 > maxSkew 1); with it the
/// second new pod is rejected on node-a by the spread and on node-b for cpu (the old pod that
/// maxUnavailable 0 keeps): the rollout stalls.
#[test]
fn rollout_shows_the_match_label_keys_effect() {
    let file = analyses_fixture("rollout-match-label-keys.yaml");
    let (code, json) = run(&["rollout", &file, "-o", "json"]);
    let view: Value = serde_json::from_str(&json).expect("json");
    let web = &view[0];
    assert_eq!(web["completed"], true);
    assert_eq!(web["minAvailable"], 2);
    assert_eq!(web["endSatisfiesSpread"], false);
    assert_eq!(code, EXIT_PLACED, "it completes");
    let with = &web["matchLabelKeys"];
    assert_eq!(with["withPodTemplateHash"], true);
    assert_eq!(with["completed"], false);
    assert_eq!(with["minAvailable"], 2);
    assert!(
        with["reason"].as_str().unwrap().starts_with(
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints."
        ),
        "{with}"
    );
}

/// A rolling-update value the API server rejects is an input error naming the field.
#[test]
fn rollout_rejects_invalid_strategy_values() {
    let text = std::fs::read_to_string(analyses_fixture("rollout-gpu-busy.yaml")).unwrap();
    let bad = text.replacen(
        "spec:\n  replicas: 3\n",
        "spec:\n  replicas: 3\n  strategy: {rollingUpdate: {maxSurge: oops}}\n",
        1,
    );
    let output = run_with_stdin(&["rollout", "-"], bad.as_bytes());
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("spec.strategy.rollingUpdate.maxSurge")
            && stderr.contains("a valid percent string"),
        "{stderr}"
    );
}

/// `lint` on the seed scenario with too few nodes for required hostname anti-affinity: the
/// error-level rule fires with the numbers (4 replicas, 3 nodes), so the exit code is 1; JSON
/// and SARIF carry the same findings; `--rules` lists every rule.
#[test]
fn lint_formats_and_exit_codes() {
    let dir = scenarios_root().join("anti-affinity-too-few-nodes");
    let cluster = dir.join("cluster.yaml").display().to_string();
    let workload = dir.join("workload.yaml").display().to_string();
    let (code, table) = run(&["lint", &cluster, &workload]);
    assert_eq!(code, EXIT_PENDING, "{table}");
    assert!(
        table.contains("error [anti-affinity-too-few-nodes] Deployment/default/cache"),
        "{table}"
    );
    assert!(table.contains("4 replicas"), "{table}");
    assert!(table.contains("fix: "), "{table}");
    let (_, json) = run(&["lint", &cluster, &workload, "-o", "json"]);
    let findings: Value = serde_json::from_str(&json).expect("json");
    let rules: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"anti-affinity-too-few-nodes"), "{rules:?}");
    let (_, sarif) = run(&["lint", &cluster, &workload, "-o", "sarif"]);
    let sarif: Value = serde_json::from_str(&sarif).expect("sarif json");
    assert_eq!(sarif["version"], "2.1.0");
    let run0 = &sarif["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "spreadlab");
    assert_eq!(
        run0["results"].as_array().unwrap().len(),
        rules.len(),
        "one SARIF result per finding"
    );
    assert!(
        run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("workload.yaml")
    );
    let (code, listing) = run(&["lint", "--rules"]);
    assert_eq!(code, EXIT_PLACED);
    assert!(
        listing.contains("surge-needs-missing-gpu (error)"),
        "{listing}"
    );
}

/// `whatif` says an unreachable zone leaves tests/analyses/spread-three-zones.yaml at 2 of 3
/// (66%); lint tries every zone in both modes and says so too, and the plain PDB
/// (minAvailable 3 of 3) is short after a zone loss and blocks a drain.
#[test]
fn lint_finds_the_unreachable_zone_loss() {
    let (code, json) = run(&[
        "lint",
        &analyses_fixture("spread-three-zones.yaml"),
        "-o",
        "json",
    ]);
    let findings: Value = serde_json::from_str(&json).expect("json");
    let messages: Vec<(&str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert!(
        messages.contains(&(
            "zone-loss-not-survived",
            "losing zone zone-a (1 replica(s), nodes unreachable) leaves 2 of 3 running after rescheduling; also short when losing zone zone-b, zone-c"
        )),
        "{messages:?}"
    );
    assert!(
        messages.contains(&(
            "pdb-violated",
            "a failure of zone zone-a leaves 2 healthy, PodDisruptionBudget default/web needs 3"
        )),
        "{messages:?}"
    );
    assert_eq!(code, EXIT_PLACED, "warnings only: {messages:?}");
}

/// tests/scenarios/gpu-three-zones-one-full: a fresh Deployment of 3 one-GPU replicas on three
/// one-GPU nodes, zone-c's GPU taken. Its replicas are placed first (two run, zone-c's stays
/// Pending), then a template change is rolled out: 25% surge of 3 rounds up to 1 and 25%
/// unavailable down to 0, so the surge pod needs a fourth GPU: `surge-needs-missing-gpu`, an error.
#[test]
fn lint_checks_the_surge_of_a_fresh_gpu_deployment() {
    let dir = scenarios_root().join("gpu-three-zones-one-full");
    let (code, json) = run(&[
        "lint",
        &dir.join("cluster.yaml").display().to_string(),
        &dir.join("workload.yaml").display().to_string(),
        "-o",
        "json",
    ]);
    let findings: Value = serde_json::from_str(&json).expect("json");
    let surge = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "surge-needs-missing-gpu")
        .unwrap_or_else(|| panic!("no surge finding: {findings}"));
    assert!(
        surge["message"]
            .as_str()
            .unwrap()
            .contains("Insufficient nvidia.com/gpu"),
        "{surge}"
    );
    assert_eq!(code, EXIT_PENDING, "an error finding");
}

/// The API server's validation rules become `kubernetes-validation` findings with the file and
/// line; the rest of the input is still checked (minDomains with ScheduleAnyway, which the
/// loader reads, is its own rule).
#[test]
fn lint_reports_validation_errors_as_findings() {
    let text = std::fs::read_to_string(analyses_fixture("spread-three-zones.yaml")).unwrap();
    let bad = text.replacen(
        "whenUnsatisfiable: DoNotSchedule",
        "whenUnsatisfiable: ScheduleAnyway\n        minDomains: 2",
        1,
    ) + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken, namespace: default}\nspec:\n  replicas: -1\n  selector: {matchLabels: {app: broken}}\n  template:\n    metadata: {labels: {app: broken}}\n    spec: {containers: [{name: c, image: x}]}\n";
    let output = run_with_stdin(&["lint", "-", "-o", "json"], bad.as_bytes());
    assert_eq!(output.status.code(), Some(EXIT_PENDING));
    let findings: Value = serde_json::from_slice(&output.stdout).expect("json");
    let findings = findings.as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["rule"] == "min-domains-with-schedule-anyway"),
        "{findings:?}"
    );
    let validation = findings
        .iter()
        .find(|f| f["rule"] == "kubernetes-validation")
        .expect("validation finding");
    assert_eq!(validation["file"], "-");
    assert!(validation["line"].as_u64().is_some(), "{validation}");
    assert!(
        validation["path"]
            .as_str()
            .unwrap_or("")
            .contains("replicas"),
        "{validation}"
    );
}

/// `stalemate`: a's second replica may only go to zone z2 (z1 would make its skew 2) where b's
/// replica holds the only GPU, and b's only to z1 where a's does: a cycle of two workloads, two
/// replicas Pending; one more GPU node in either zone lets one of them through (one Pending).
#[test]
fn stalemate_finds_the_cycle_and_verified_remedies() {
    let file = analyses_fixture("stalemate-two-gpus.yaml");
    let (code, json) = run(&["stalemate", &file, "-o", "json"]);
    assert_eq!(code, EXIT_PENDING);
    let view: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(view["schemaVersion"], 1);
    assert_eq!(view["blocking"].as_array().unwrap().len(), 2);
    let cycle = &view["stalemates"][0];
    assert_eq!(
        cycle["workloads"],
        serde_json::json!(["Deployment/default/a", "Deployment/default/b"])
    );
    assert_eq!(cycle["pending"], 2);
    let remedies = cycle["remedies"].as_array().unwrap();
    assert!(
        remedies
            .iter()
            .any(|r| r["change"] == "one more node in zone z1 like g1" && r["pendingAfter"] == 1),
        "{remedies:?}"
    );
    let (_, table) = run(&["stalemate", &file]);
    assert!(table.contains("STALEMATE"), "{table}");
    let (code, table) = run(&["stalemate", &analyses_fixture("spread-three-zones.yaml")]);
    assert_eq!(code, EXIT_PLACED);
    assert!(table.contains("no stalemate"), "{table}");
}

/// `--validate`, as `kubectl apply --validate`: a misspelled field is an input error by default
/// (exit 3, naming file, line, column and field), a warning with `--validate=warn` (the answer is
/// then computed without it), and silent with `--validate=ignore`.
#[test]
fn unknown_fields_follow_validate() {
    let dir = std::env::temp_dir().join(format!("spreadlab-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"4\", pods: \"110\"}}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n  nodeSelecter: {disk: ssd}\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let strict = simulate(&[path]);
    assert_eq!(strict.status.code(), Some(EXIT_INPUT_ERROR));
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(
        stderr.contains("typo.yaml:11:3: document 1 (Pod default/p): spec.nodeSelecter: unknown field \"spec.nodeSelecter\""),
        "{stderr}"
    );
    let warn = simulate(&["--validate", "warn", path]);
    assert_eq!(warn.status.code(), Some(EXIT_PLACED), "{warn:?}");
    assert!(String::from_utf8_lossy(&warn.stderr).contains("warning: "));
    let ignore = simulate(&["--validate=ignore", path]);
    assert_eq!(ignore.status.code(), Some(EXIT_PLACED));
    assert!(!String::from_utf8_lossy(&ignore.stderr).contains("nodeSelecter"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 14, item 5: a warning is printed once (on standard error; the table no longer repeats
/// it), and a UTF-16 file gets a hint to convert it instead of a decoding error.
#[test]
fn warnings_once_and_utf16_hint() {
    let dir = std::env::temp_dir().join(format!("spreadlab-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("warn.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\", pods: \"110\"}}\n---\n\
         apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
    )
    .unwrap();
    let output = simulate(&[path.to_str().unwrap()]);
    let both = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(both.matches("kind `Widget`").count(), 1, "{both}");

    let utf16 = dir.join("utf16.yaml");
    std::fs::write(&utf16, b"\xff\xfea\x00p\x00").unwrap();
    let output = simulate(&[utf16.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(EXIT_INPUT_ERROR));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("the text is UTF-16"),
        "{output:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 14, item 5: lint names a syntax error `input-unreadable` (not the API server's
/// validation), and on a cluster without zone labels it does not warn about losing "(no zone)"
/// (before: two zone-loss warnings per workload).
#[test]
fn lint_tells_unreadable_text_apart_and_needs_zones_for_zone_loss() {
    let dir = std::env::temp_dir().join(format!("spreadlab-lint5-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "apiVersion: v1\nkind: Node\nmetadata: {name: n1\n").unwrap();
    let (code, json) = run(&["lint", "-o", "json", bad.to_str().unwrap()]);
    assert_eq!(code, EXIT_PENDING);
    let findings: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(findings[0]["rule"], "input-unreadable", "{findings}");
    let zoneless = dir.join("zoneless.yaml");
    std::fs::write(
        &zoneless,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\", pods: \"110\"}}\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  \
         selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    \
         spec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}\n",
    )
    .unwrap();
    let (_, table) = run(&["lint", zoneless.to_str().unwrap()]);
    assert!(!table.contains("zone-loss-not-survived"), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `rollout` on a snapshot whose Deployment's template is its live ReplicaSet's (nothing
/// changed): up to date, nothing replaced, exit 0. `--restart` rolls a new revision of the same
/// template (as `kubectl rollout restart`): both running pods are replaced.
#[test]
fn rollout_of_an_unchanged_deployment_is_up_to_date() {
    let dir = scenarios_root().join("scale-up-live-revision");
    let deployment = std::fs::read_to_string(dir.join("workload.yaml"))
        .unwrap()
        .replace("replicas: 3", "replicas: 2");
    let tmp =
        std::env::temp_dir().join(format!("spreadlab-up-to-date-{}.yaml", std::process::id()));
    std::fs::write(&tmp, deployment).unwrap();
    let cluster = dir.join("cluster.yaml").display().to_string();
    let file = tmp.display().to_string();
    let (code, json) = run(&["rollout", &cluster, &file, "-o", "json"]);
    let view: Value = serde_json::from_str(&json).expect("json");
    let api = &view[0];
    assert_eq!(
        (
            &api["upToDate"],
            &api["oldPods"],
            &api["updatedPods"],
            &api["completed"]
        ),
        (
            &Value::from(true),
            &Value::from(0),
            &Value::from(2),
            &Value::from(true)
        ),
        "{api}"
    );
    assert_eq!(code, EXIT_PLACED);
    let (_, table) = run(&["rollout", &cluster, &file]);
    assert!(table.contains("up to date"), "{table}");
    let (code, json) = run(&["rollout", &cluster, &file, "--restart", "-o", "json"]);
    let api = &serde_json::from_str::<Value>(&json).expect("json")[0];
    assert_eq!(
        (
            &api["upToDate"],
            &api["oldPods"],
            &api["updatedPods"],
            &api["completed"]
        ),
        (
            &Value::from(false),
            &Value::from(2),
            &Value::from(0),
            &Value::from(true)
        ),
        "{api}"
    );
    assert_eq!(code, EXIT_PLACED);
    // simulate says which revision the template is, and that no running pod was adopted.
    let (_, json) = run(&["simulate", &cluster, &file, "-o", "json"]);
    let workload = &serde_json::from_str::<Value>(&json).expect("json")["workloads"][0];
    assert_eq!(
        (&workload["revision"], &workload["adopted"]),
        (
            &serde_json::json!({"found": "replicaSet", "name": "api-7c9d5f8b6", "hash": "7c9d5f8b6"}),
            &Value::from(0)
        )
    );
    std::fs::remove_file(tmp).ok();
}

/// LimitRanger: pods written without requests get their namespace's default request (cpu 2
/// here) when the ReplicaSet creates them, so one 3-cpu node holds one replica, not two.
#[test]
fn limit_range_defaults_make_requests() {
    let input = r#"
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "3", memory: 16Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: "api:1"}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: shop}
spec:
  limits: [{type: Container, defaultRequest: {cpu: "2"}}]
"#;
    let output = run_with_stdin(&["simulate", "-", "-o", "json"], input.as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["pending"], 1, "{report}");
    assert!(report.to_string().contains("Insufficient cpu"), "{report}");
}

/// A snapshot with pods already Pending (tests/regressions/queue-waiting-pods.yaml: its objects
/// and pods written as one `kubectl get -o json` List): `simulate` schedules them in queue order
/// (priority, then creation), honours and reports their nominations, and every pod lands (or
/// stays Pending with the message) as the real kube-scheduler's recording says.
#[test]
fn a_snapshot_with_waiting_pods_matches_the_real_scheduler() {
    let regressions = scenarios_root().join("../regressions");
    let text = std::fs::read_to_string(regressions.join("queue-waiting-pods.yaml")).unwrap();
    let json: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let scenario: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut items = scenario["objects"].as_array().unwrap().clone();
    items.extend(scenario["schedule"].as_array().unwrap().iter().cloned());
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    let dir = std::env::temp_dir().join(format!("spreadlab-waiting-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("snapshot.json");
    std::fs::write(&path, list.to_string()).unwrap();
    // The regression was recorded from the v1.35 scheduler.
    let output = simulate(&[
        path.to_str().unwrap(),
        "-o",
        "json",
        "--kubernetes-version",
        "1.35",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let pods = report["pods"].as_array().unwrap();
    let expected =
        std::fs::read_to_string(regressions.join("queue-waiting-pods.expected.jsonl")).unwrap();
    let expected: Vec<serde_json::Value> = expected
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pods.len(), expected.len());
    for (pod, oracle) in pods.iter().zip(&expected) {
        let key = format!(
            "{}/{}",
            pod["namespace"].as_str().unwrap(),
            pod["name"].as_str().unwrap()
        );
        assert_eq!(key, oracle["pod"].as_str().unwrap(), "queue order");
        assert_eq!(pod["node"], oracle["node"], "{key}: node");
        assert_eq!(pod["message"], oracle["message"], "{key}: message");
    }
    let by_name = |name: &str| pods.iter().find(|p| p["name"] == name).unwrap();
    assert_eq!(by_name("parked")["waiting"], true);
    assert_eq!(by_name("parked")["nominatedNode"], "node-d");
    assert_eq!(by_name("parked")["evaluatedNodes"], 1);
    assert_eq!(by_name("fresh")["waiting"], false);
    let table = simulate(&[path.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("already waiting in the input, nominated to node-d: it fits there, bound without scoring"),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--percentage-of-nodes-to-score` takes 0 (the adaptive default) to 100, nothing else.
#[test]
fn percentage_of_nodes_to_score_is_bounded() {
    let dir = scenarios_root().join("nodes-capacity-only");
    for (value, ok) in [("100", true), ("0", true), ("101", false), ("-1", false)] {
        let output = spreadlab()
            .arg(format!("--percentage-of-nodes-to-score={value}"))
            .arg("simulate")
            .arg(dir.join("cluster.yaml"))
            .arg(dir.join("workload.yaml"))
            .output()
            .unwrap();
        assert_eq!(output.status.code() != Some(2), ok, "{value}: {output:?}");
    }
}

/// `--kubernetes-version`: on the `version-*` seed scenarios, whose outcomes differ between
/// releases, `simulate -o json` places each pod where that release's real scheduler did
/// (`expected.jsonl` for 1.35, `expected-1.NN.jsonl` for the others) and says which release it
/// mirrored; an unsupported release is a usage error.
#[test]
fn kubernetes_version_flag_follows_each_release() {
    let mut checked = 0;
    for dir in scenarios()
        .iter()
        .filter(|d| name(d).starts_with("version-"))
    {
        for (version, recording) in [
            ("1.34", "expected-1.34.jsonl"),
            ("1.35", "expected.jsonl"),
            ("v1.36.3", "expected-1.36.jsonl"),
            ("1.37", "expected-1.37.jsonl"),
        ] {
            let oracle: Vec<Value> = std::fs::read_to_string(dir.join(recording))
                .expect("recording")
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            let output = spreadlab()
                .args(["--kubernetes-version", version, "simulate"])
                .arg(dir.join("cluster.yaml"))
                .arg(dir.join("workload.yaml"))
                .args(["-o", "json"])
                .output()
                .expect("run spreadlab");
            let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
            let minor = version.trim_start_matches('v').get(..4).unwrap();
            assert_eq!(report["kubernetesVersion"], format!("v{minor}"));
            let pods = report["pods"].as_array().expect("pods");
            assert_eq!(pods.len(), oracle.len(), "{}", name(dir));
            for (pod, line) in pods.iter().zip(&oracle) {
                assert_eq!(
                    pod["node"],
                    line["node"],
                    "{} with --kubernetes-version {version}",
                    name(dir)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} checks");
    // Without the flag: the newest release.
    let dir = &scenarios()[0];
    let output = spreadlab()
        .arg("simulate")
        .arg(dir.join("cluster.yaml"))
        .arg(dir.join("workload.yaml"))
        .args(["-o", "json"])
        .output()
        .expect("run spreadlab");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["kubernetesVersion"], "v1.37");
    let output = spreadlab()
        .args(["--kubernetes-version", "1.30", "simulate", "x.yaml"])
        .output()
        .expect("run spreadlab");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("unsupported Kubernetes version \"1.30\""),
        "{}",
        text(&output.stderr)
    );
}

/// 40 alike empty nodes and one pod: every node passes and scores the same (nothing tells them
/// apart), so all 40 tie. The JSON counts them all; the list is whole with `--detail all` and
/// keeps the first 32, in node order, otherwise (per-node detail).
#[test]
fn tied_nodes_are_counted_whole_and_listed_whole_with_all_detail() {
    let mut input = String::new();
    for i in 0..40 {
        input.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i:02}, labels: {{kubernetes.io/hostname: n{i:02}}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n"
        ));
    }
    input.push_str("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]\n");
    for (detail, listed) in [("all", 40), ("pending", 32), ("none", 32)] {
        let output = run_with_stdin(
            &["simulate", "-", "-o", "json", "--detail", detail],
            input.as_bytes(),
        );
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let pod = &report["pods"][0];
        assert_eq!(pod["tiedCount"], 40, "--detail {detail}");
        let names: Vec<&str> = pod["tiedNodes"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|n| n.as_str().expect("a name"))
            .collect();
        let expected: Vec<String> = (0..listed).map(|i| format!("n{i:02}")).collect();
        assert_eq!(names, expected, "--detail {detail}");
    }
}
