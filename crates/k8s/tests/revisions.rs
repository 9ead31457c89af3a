//! The Deployment controller's template comparison (`EqualIgnoreHash`) on the pairs of
//! `tests/revisions/equal-ignore-hash.json`, whose answers the real code gave
//! (`tests/oracle/revision_test.go`).

use k8s_openapi::api::core::v1::PodTemplateSpec;
use spreadlab_k8s::revision::equal_ignore_hash;

#[test]
fn templates_compare_as_the_deployment_controller_compares_them() {
    let path = format!(
        "{}/../../tests/revisions/equal-ignore-hash.json",
        manifest_dir()
    );
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    let mut wrong = Vec::new();
    for case in cases {
        let template =
            |key: &str| -> PodTemplateSpec { serde_json::from_value(case[key].clone()).unwrap() };
        let equal = equal_ignore_hash(&template("deployment"), &template("replicaSet"));
        if equal != case["equal"].as_bool().unwrap() {
            wrong.push(case["name"].as_str().unwrap().to_owned());
        }
    }
    assert!(
        wrong.is_empty(),
        "decided otherwise than upstream: {wrong:?}"
    );
}

/// Every controller template in `tests/corpus` and `tests/scenarios`, as written and as the API
/// server stores it (`tests/revisions/stored-templates.json`, recorded by
/// `tests/oracle/revision_test.go` with the real defaulting): the Deployment controller finds
/// each pair equal, and so must spreadlab; a stored template with another image is not equal.
#[test]
fn real_templates_equal_their_stored_form() {
    let path = format!(
        "{}/../../tests/revisions/stored-templates.json",
        manifest_dir()
    );
    let pairs: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(pairs.len() >= 20, "{} pairs", pairs.len());
    let mut unequal = Vec::new();
    for pair in &pairs {
        let written: PodTemplateSpec = serde_json::from_value(pair["written"].clone()).unwrap();
        let stored: PodTemplateSpec = serde_json::from_value(pair["stored"].clone()).unwrap();
        if !equal_ignore_hash(&written, &stored) {
            unequal.push(pair["source"].as_str().unwrap().to_owned());
        }
        let mut other = pair["stored"].clone();
        if let Some(container) = other.pointer_mut("/spec/containers/0") {
            container["image"] = "changed.example.com/other:1".into();
            let other: PodTemplateSpec = serde_json::from_value(other).unwrap();
            assert!(!equal_ignore_hash(&written, &other), "{}", pair["source"]);
        }
    }
    assert!(
        unequal.is_empty(),
        "not equal to their stored form: {unequal:#?}"
    );
}

/// The package directory, read at run time (a cached test binary may have been built in another
/// checkout).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo")
}
