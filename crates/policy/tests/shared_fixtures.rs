//! The Kubewarden policy on `policies/fixtures`, the fixture set that also drives the
//! Gatekeeper, Kyverno and ValidatingAdmissionPolicy policies (and, for the shared rules,
//! `spreadlab lint`): with settings equal to those policies' defaults, the rule IDs it rejects
//! with must be exactly `policies/fixtures/expected.yaml`'s.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use spreadlab_policy::decide::{Decision, decide};
use spreadlab_policy::settings::Settings;
use spreadlab_policy::snapshot::FixtureCluster;

fn fixtures() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../policies/fixtures")
}

/// The static rules of `policies/` as settings: zone spread required, maxSkew at most 1,
/// DoNotSchedule, the four lint rules shared with the policies; no cluster check.
fn settings() -> Settings {
    Settings::from_json(&json!({
        "requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone"}],
        "maxSkew": 1,
        "requireDoNotSchedule": true,
        "rejectPending": false,
        "lintRules": [
            "min-domains-with-schedule-anyway",
            "spread-without-selector",
            "selector-misses-own-pods",
            "missing-pod-template-hash-key",
        ],
    }))
    .expect("settings")
}

fn rule_ids(message: &str) -> BTreeSet<String> {
    message
        .split('[')
        .skip(1)
        .filter_map(|part| part.split_once(']').map(|(id, _)| id.to_owned()))
        .filter(|id| id.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect()
}

#[test]
fn shared_fixtures_are_rejected_for_the_expected_rules() {
    let expected: std::collections::BTreeMap<String, Vec<String>> =
        serde_saphyr::from_str(&std::fs::read_to_string(fixtures().join("expected.yaml")).unwrap())
            .unwrap();
    let settings = settings();
    // Three zones with room for every fixture's replicas: only the static rules can refuse.
    let nodes = (0..3).map(|i| {
        json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("n{i}"), "labels": {
                "kubernetes.io/hostname": format!("n{i}"),
                "topology.kubernetes.io/zone": format!("z{i}"),
            }},
            "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
        })
    });
    let cluster = FixtureCluster::new(nodes);
    for (name, rules) in expected {
        let text = std::fs::read_to_string(fixtures().join(format!("{name}.yaml"))).unwrap();
        let object: Value = serde_saphyr::from_str(&text).unwrap();
        let kind = object["kind"].as_str().unwrap().to_owned();
        let request = json!({
            "uid": name,
            "kind": {"group": "apps", "version": "v1", "kind": kind},
            "operation": "CREATE",
            "namespace": "default",
            "object": object,
        });
        let got = match decide(&request, &settings, &cluster) {
            Decision::Accept { warnings } => {
                assert!(warnings.is_empty(), "{name}: {warnings:?}");
                BTreeSet::new()
            }
            Decision::Reject { message } => rule_ids(&message),
            other => panic!("{name}: {other:?}"),
        };
        let want: BTreeSet<String> = rules.into_iter().collect();
        assert_eq!(got, want, "{name}");
    }
}

/// The mutating variant (default settings, `mutate: true`) mutates every shared fixture exactly
/// as `policies/kyverno/mutate.yaml` does: into `policies/kyverno/patched/<name>.yaml` where
/// that file exists (written by hand from the Kyverno rules and checked by the real Kyverno CLI,
/// `policies/kyverno/tests/mutate`), and not at all otherwise (every other fixture already has a
/// zone constraint, and each of its hard constraints either has `pod-template-hash` in
/// matchLabelKeys or no labelSelector; the Kyverno CLI leaves them unchanged too).
#[test]
fn mutation_agrees_with_kyverno_on_the_shared_fixtures() {
    let settings = Settings::from_json(&json!({"mutate": true})).unwrap();
    let patched_dir = fixtures().join("../kyverno/patched");
    let mut patched = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "expected" {
            continue;
        }
        let object: Value =
            serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let kind = match object["kind"].as_str().unwrap() {
            "Deployment" => spreadlab_policy::request::Kind::Deployment,
            "StatefulSet" => spreadlab_policy::request::Kind::StatefulSet,
            "ReplicaSet" => spreadlab_policy::request::Kind::ReplicaSet,
            other => panic!("{name}: kind {other}"),
        };
        let mut mutated = object.clone();
        let changed = spreadlab_policy::mutate::mutate(&mut mutated, kind, &settings);
        let want = match std::fs::read_to_string(patched_dir.join(format!("{name}.yaml"))) {
            Ok(text) => {
                patched += 1;
                serde_saphyr::from_str::<Value>(&text).unwrap()
            }
            Err(_) => object,
        };
        assert_eq!(
            mutated["spec"]["template"]["spec"]["topologySpreadConstraints"],
            want["spec"]["template"]["spec"]["topologySpreadConstraints"],
            "{name}"
        );
        assert_eq!(
            changed,
            patched_dir.join(format!("{name}.yaml")).exists(),
            "{name}"
        );
    }
    assert_eq!(
        patched, 3,
        "the three Kyverno-patched fixtures were compared"
    );
}
