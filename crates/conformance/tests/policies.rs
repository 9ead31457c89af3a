//! The static admission rules of `policies/` (Gatekeeper, ValidatingAdmissionPolicy, Kubewarden)
//! and `spreadlab lint` must not drift apart: for every fixture of `policies/fixtures`, the rules
//! they share with the engine's lint (same IDs) must fire exactly where the engine's lint fires
//! them on the topology spread constraints. `expected.yaml` is what the policies' own suites
//! (gator, the real apiserver CEL evaluator, the waPC host) assert.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use spreadlab_engine::analysis::{lint, settle};
use spreadlab_engine::scheduler::Options;
use spreadlab_k8s::{LoadOptions, Source};

/// Rules both the policies and `spreadlab lint` implement.
const SHARED: [&str; 4] = [
    "min-domains-with-schedule-anyway",
    "spread-without-selector",
    "selector-misses-own-pods",
    "missing-pod-template-hash-key",
];

/// Every rule ID the policies use.
const POLICY_RULES: [&str; 7] = [
    "zone-spread-required",
    "max-skew-exceeded",
    "do-not-schedule-required",
    "min-domains-with-schedule-anyway",
    "spread-without-selector",
    "selector-misses-own-pods",
    "missing-pod-template-hash-key",
];

fn fixtures() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo"))
        .join("../../policies/fixtures")
}

fn expected() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(fixtures().join("expected.yaml")).expect("expected.yaml");
    serde_saphyr::from_str(&text).expect("expected.yaml: a map of fixture names to rule IDs")
}

/// The shared rules `spreadlab lint` reports on the fixture's topology spread constraints.
fn engine_findings(name: &str) -> BTreeSet<String> {
    let path = fixtures().join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path).expect("fixture");
    let loaded = spreadlab_k8s::load(
        &[Source {
            name: path.display().to_string(),
            text,
        }],
        &LoadOptions::default(),
    );
    assert_eq!(loaded.workloads.len(), 1, "{name}: one workload");
    let options = Options::default();
    lint::lint(&settle(loaded.scenario(), &options), &options)
        .into_iter()
        .filter(|f| {
            f.path
                .as_deref()
                .is_some_and(|p| p.contains("topologySpreadConstraints"))
        })
        .map(|f| f.rule.to_owned())
        .filter(|rule| SHARED.contains(&rule.as_str()))
        .collect()
}

#[test]
fn every_fixture_has_an_expectation_with_known_rules() {
    let expected = expected();
    let mut files: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name != "expected.yaml")
                .then(|| name.strip_suffix(".yaml").map(str::to_owned))
                .flatten()
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        expected.keys().cloned().collect::<Vec<_>>(),
        "fixtures and expected.yaml differ"
    );
    for (name, rules) in &expected {
        for rule in rules {
            assert!(
                POLICY_RULES.contains(&rule.as_str()),
                "{name}: unknown rule {rule}"
            );
        }
    }
    for rule in SHARED {
        assert!(lint::rule(rule).is_some(), "{rule} is not a lint rule");
    }
    // The agreement covers every policy rule the engine has a counterpart for: the others
    // (settings-driven: required key, maxSkew bound, DoNotSchedule) are no lint rule, and are
    // checked for the Kubewarden policy by crates/policy/tests/shared_fixtures.rs. A lint rule
    // with one of their IDs must join SHARED.
    for rule in POLICY_RULES.iter().filter(|r| !SHARED.contains(r)) {
        assert!(
            lint::rule(rule).is_none(),
            "{rule} is a lint rule now: add it to SHARED"
        );
    }
}

#[test]
fn shared_rules_agree_with_the_engine_lint() {
    let mut checked = 0;
    for (name, rules) in expected() {
        let policies: BTreeSet<String> = rules
            .into_iter()
            .filter(|rule| SHARED.contains(&rule.as_str()))
            .collect();
        checked += policies.len();
        assert_eq!(engine_findings(&name), policies, "{name}");
    }
    assert!(checked > 0, "no shared rule fires on any fixture");
}
