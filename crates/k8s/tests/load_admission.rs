//! LimitRanger and RuntimeClass admission (issue 14: admission defaults): the pods a controller
//! creates get their namespace's LimitRange defaults and their RuntimeClass's overhead and
//! scheduling, whatever the order of the objects in the input; stored bound pods are left as
//! they were admitted.

mod common;

use common::*;
use spreadlab_engine::model::{TaintEffect, Toleration, TolerationOperator};

const LIMIT_RANGE_AFTER_DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      runtimeClassName: gvisor
      containers:
      - {name: bare, image: "api:1"}
      - {name: limited, image: "api:1", resources: {limits: {cpu: "1"}}}
      initContainers:
      - {name: init, image: "init:1", resources: {requests: {memory: 64Mi}}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: shop}
spec:
  limits:
  - type: Container
    default: {memory: 256Mi}
    defaultRequest: {cpu: 100m}
    max: {cpu: "2"}
  - type: Pod
    max: {cpu: "4"}
---
apiVersion: v1
kind: LimitRange
metadata: {name: elsewhere, namespace: other}
spec:
  limits:
  - {type: Container, defaultRequest: {cpu: "3"}}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
scheduling:
  nodeSelector: {sandbox.example.com/runtime: gvisor}
  tolerations:
  - {key: sandbox.example.com/runtime, operator: Equal, value: gvisor, effect: NoSchedule}
"#;

/// `SetDefaults_LimitRangeItem`: the default limit from `max` (cpu 2), the default request from
/// the default limit (memory 256Mi); `mergeContainerResources` fills only what a container
/// lacks (the `limited` container keeps cpu 1, which `SetDefaults_Pod` also made its request).
#[test]
fn limit_range_defaults_and_runtime_class_apply_to_created_pods() {
    let loaded = load_text("api.yaml", LIMIT_RANGE_AFTER_DEPLOYMENT);
    assert_clean(&loaded);
    let pods = loaded.workloads[0].pods_to_create(&loaded.cluster);
    assert_eq!(pods.len(), 2);
    let pod = &pods[0];
    let (bare, limited, init) = (
        &pod.containers[0],
        &pod.containers[1],
        &pod.init_containers[0],
    );
    assert_eq!(
        (bare.requests.get("cpu"), bare.requests.get("memory")),
        (Some(&100), Some(&(256 << 20)))
    );
    assert_eq!(
        (bare.limits.get("cpu"), bare.limits.get("memory")),
        (Some(&2000), Some(&(256 << 20)))
    );
    assert_eq!(
        (limited.requests.get("cpu"), limited.limits.get("cpu")),
        (Some(&1000), Some(&1000))
    );
    assert_eq!(
        (init.requests.get("memory"), init.requests.get("cpu")),
        (Some(&(64 << 20)), Some(&100))
    );
    // RuntimeClass gvisor: overhead, node selector, toleration.
    assert_eq!(
        (pod.overhead.get("cpu"), pod.overhead.get("memory")),
        (Some(&250), Some(&(120 << 20)))
    );
    assert_eq!(
        pod.node_selector
            .get("sandbox.example.com/runtime")
            .map(String::as_str),
        Some("gvisor")
    );
    assert!(pod.tolerations.contains(&Toleration {
        key: "sandbox.example.com/runtime".into(),
        operator: TolerationOperator::Equal,
        value: "gvisor".into(),
        effect: Some(TaintEffect::NoSchedule),
    }));
}

#[test]
fn stored_bound_pods_keep_what_they_were_admitted_with() {
    let bound = r#"
---
apiVersion: v1
kind: Pod
metadata: {name: written, namespace: shop}
spec:
  nodeName: n1
  containers: [{name: c, image: "api:1"}]
---
apiVersion: v1
kind: Pod
metadata: {name: stored, namespace: shop, uid: 0f6c3d1e-8a2b-4c5d-9e7f-1a2b3c4d5e6f, creationTimestamp: "2026-11-01T00:00:00Z"}
spec:
  nodeName: n1
  containers: [{name: c, image: "api:1"}]
"#;
    let text = format!("{LIMIT_RANGE_AFTER_DEPLOYMENT}{bound}");
    let loaded = load_text("api.yaml", &text);
    assert_clean(&loaded);
    let pod = |name: &str| loaded.cluster.pods.iter().find(|p| p.name == name).unwrap();
    assert_eq!(pod("written").containers[0].requests.get("cpu"), Some(&100));
    assert!(pod("stored").containers[0].requests.is_empty());
}

#[test]
fn runtime_class_rejections_and_a_missing_class() {
    let conflict = LIMIT_RANGE_AFTER_DEPLOYMENT.replace(
        "      runtimeClassName: gvisor\n",
        "      runtimeClassName: gvisor\n      nodeSelector: {sandbox.example.com/runtime: kata}\n",
    );
    let loaded = load_text("api.yaml", &conflict);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    let error = &loaded.errors[0];
    assert_eq!(
        error.path.as_deref(),
        Some("spec.template.spec.nodeSelector")
    );
    assert!(
        error.message.ends_with(
            "conflict: runtimeClass.scheduling.nodeSelector[sandbox.example.com/runtime] = gvisor; pod.spec.nodeSelector[sandbox.example.com/runtime] = kata"
        ),
        "{}",
        error.message
    );

    let overhead = LIMIT_RANGE_AFTER_DEPLOYMENT.replace(
        "      runtimeClassName: gvisor\n",
        "      runtimeClassName: gvisor\n      overhead: {cpu: 100m}\n",
    );
    let loaded = load_text("api.yaml", &overhead);
    assert!(
        loaded.errors[0].message.ends_with(
            "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
        )
    );

    let missing = LIMIT_RANGE_AFTER_DEPLOYMENT
        .replace("runtimeClassName: gvisor", "runtimeClassName: nvidia");
    let loaded = load_text("api.yaml", &missing);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert_eq!(
        loaded.warnings[0].path.as_deref(),
        Some("spec.template.spec.runtimeClassName")
    );
    assert!(
        loaded.warnings[0]
            .message
            .contains("RuntimeClass \"nvidia\" is not in the input")
    );
}

/// `PodValidateLimitFunc`: a container whose limit passes the LimitRange's `max` (or whose
/// request is under its `min`) is refused at creation, with the plugin's message.
#[test]
fn limit_range_bounds_refuse_pods() {
    let over = LIMIT_RANGE_AFTER_DEPLOYMENT.replace(
        "resources: {limits: {cpu: \"1\"}}",
        "resources: {limits: {cpu: \"4\", memory: 1Gi}}",
    );
    let loaded = load_text("api.yaml", &over);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    let error = &loaded.errors[0];
    assert_eq!(error.path.as_deref(), Some("spec.template.spec.containers"));
    assert!(
        error
            .message
            .ends_with("(LimitRanger): maximum cpu usage per Container is 2, but limit is 4"),
        "{}",
        error.message
    );
    let under = LIMIT_RANGE_AFTER_DEPLOYMENT.replace(
        "    max: {cpu: \"2\"}\n",
        "    max: {cpu: \"2\"}\n    min: {memory: 512Mi}\n",
    );
    let loaded = load_text("api.yaml", &under);
    // Every container's memory request defaulted to 256Mi, under the 512Mi minimum; the init
    // container asked for 64Mi.
    let message = &loaded.errors[0].message;
    assert!(
        message.contains("[minimum memory usage per Container is 512Mi, but request is 256Mi, ")
            && message
                .contains("minimum memory usage per Container is 512Mi, but request is 64Mi]"),
        "{message}"
    );
}
