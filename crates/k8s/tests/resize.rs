//! A bound pod's count while an in-place resize is under way, per release, against what each
//! release's own `resource.PodRequests` returned for the same pod (`data/resize-cases.json`: its
//! `source` names the upstream code and options; the thirteen pods cover upsize, downsize,
//! Deferred and Infeasible resizes, containers without `resources`, two containers, a plain init
//! container, and pod-level requests with pod-level status).

use k8s_openapi::api::core::v1 as api;
use serde_json::Value;
use spreadlab_engine::KubeVersion;
use spreadlab_engine::framework::PodInfo;
use spreadlab_engine::model::Quantity;

#[test]
fn bound_pod_requests_follow_each_release() {
    let data: Value =
        serde_json::from_str(include_str!("data/resize-cases.json")).expect("resize-cases.json");
    let cases = data["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 13);
    let mut differ = 0;
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let pod: api::Pod = serde_json::from_value(case["pod"].clone()).expect(name);
        let pod = spreadlab_k8s::convert_pod(&pod, "default").expect(name);
        let mut seen = Vec::new();
        for version in KubeVersion::ALL {
            let expected = &case["expected"][version.to_string().trim_start_matches('v')];
            let quantity = |key: &str| expected[key].as_str().map(|q| Quantity::parse(q).expect(q));
            let info = PodInfo::bound(pod.clone(), version);
            let cpu = quantity("cpu").map_or(0, |q| q.milli_value());
            let memory = quantity("memory").map_or(0, |q| q.value());
            assert_eq!(
                (info.requests.milli_cpu, info.requests.memory),
                (cpu, memory),
                "{name} on {version}"
            );
            seen.push((cpu, memory));
        }
        differ += usize::from(seen.windows(2).any(|w| w[0] != w[1]));
    }
    // The releases tell eight of the pods apart; spec-only counting would tell none.
    assert_eq!(differ, 8);
}
