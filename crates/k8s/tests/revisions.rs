//! The Deployment controller's template comparison (`EqualIgnoreHash`) on the pairs of
//! `tests/revisions/equal-ignore-hash.json`, whose answers the real code gave
//! (`tests/oracle/revision_test.go`).

use k8s_openapi::api::core::v1::PodTemplateSpec;
use spreadlab_k8s::revision::equal_ignore_hash;

#[test]
fn templates_compare_as_the_deployment_controller_compares_them() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/revisions/equal-ignore-hash.json"
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
