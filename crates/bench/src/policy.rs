//! The admission benchmark's cluster: the shape of `tests/policy-host`'s `big_cluster` (the waPC
//! host test that times the wasm module), built natively so that `cargo bench` and profilers see
//! the policy's own work (`spreadlab_policy::decide_payload`) without the host.

use serde_json::{Value, json};
use spreadlab_policy::snapshot::FixtureCluster;

/// `nodes` GPU nodes in three zones and `pods` bound pods of 200 Services in 20 namespaces (a
/// quarter with a hard zone spread, an eighth with a GPU), and the admission request of a
/// 30-replica GPU Deployment with a hard zone spread: the cluster is given as the host gives it
/// (pods slimmed to the policy's field masks).
pub fn admission(nodes: usize, pods: usize) -> (FixtureCluster, Vec<u8>) {
    admission_in(nodes, pods, 20)
}

/// [`admission`] with the pods in `namespaces` namespaces (at least one; the Deployment is
/// admitted to the first).
pub fn admission_in(nodes: usize, pods: usize, namespaces: usize) -> (FixtureCluster, Vec<u8>) {
    let namespaces = namespaces.max(1);
    let zones = ["zone-a", "zone-b", "zone-c"];
    let mut objects: Vec<Value> = (0..nodes)
        .map(|n| {
            let name = format!("node-{n:05}");
            json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                    "topology.kubernetes.io/zone": zones[n % 3],
                    "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}},
                "spec": {},
                "status": {
                    "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "8"},
                    "allocatable": {"cpu": "63", "memory": "250Gi", "pods": "110", "nvidia.com/gpu": "8"},
                    "conditions": [{"type": "Ready", "status": "True"}]}
            })
        })
        .collect();
    for p in 0..pods {
        let app = format!("svc-{}", p % 200);
        let mut spec = json!({
            "nodeName": format!("node-{:05}", p % nodes.max(1)),
            "containers": [{"name": "main", "image": format!("registry.example/{app}:1.0"),
                "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}],
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0
        });
        if p % 8 == 0 {
            spec["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": "1"});
            spec["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = json!("1");
        }
        if p % 4 == 0 {
            spec["topologySpreadConstraints"] = json!([{"maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": app}}}]);
        }
        objects.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("{app}-{p}"), "namespace": format!("team-{}", p % namespaces),
                "labels": {"app": app, "pod-template-hash": "abc123"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": format!("{app}-abc123"), "uid": "u", "controller": true}]},
            "spec": spec,
            "status": {"phase": "Running"}
        }));
    }
    // Pods in `namespace/name` order, as a watched cluster lists them (its changes can then be
    // applied in place: `Prepared::advance`).
    objects[nodes..].sort_by_key(|pod| {
        let metadata = &pod["metadata"];
        format!(
            "{}/{}",
            metadata["namespace"].as_str().unwrap_or_default(),
            metadata["name"].as_str().unwrap_or_default()
        )
    });
    objects.extend((0..namespaces).map(|ns| {
        let name = format!("team-{ns}");
        json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}})
    }));
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "llm", "namespace": "team-0"},
        "spec": {"replicas": 30, "selector": {"matchLabels": {"app": "llm"}},
            "template": {"metadata": {"labels": {"app": "llm"}}, "spec": {
                "containers": [{"name": "server", "image": "vllm/vllm-openai:v0.6.1",
                    "resources": {"requests": {"cpu": "4", "memory": "32Gi"}, "limits": {"nvidia.com/gpu": "1"}}}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "llm"}},
                    "matchLabelKeys": ["pod-template-hash"]}]}}}
    });
    let request = json!({
        "uid": "big", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "name": "llm", "namespace": "team-0", "operation": "CREATE", "object": deployment
    });
    let payload = serde_json::to_vec(&json!({"settings": {}, "request": request}))
        .expect("JSON values serialise");
    (FixtureCluster::new(objects), payload)
}

/// `payload` with the settings of every cluster check, as the waPC host's timing test sets them
/// (`tests/policy-host/tests/host.rs`): a required zone spread with 3 domains, `maxSkew` 1,
/// `DoNotSchedule`, 60 % surviving a zone loss, and five lint rules.
pub fn every_check(payload: &[u8]) -> Vec<u8> {
    let mut value: Value = serde_json::from_slice(payload).expect("a JSON payload");
    value["settings"] = json!({
        "requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone", "minDomains": 3}],
        "maxSkew": 1, "requireDoNotSchedule": true, "minZoneLossSurvival": 0.6,
        "lintRules": ["spread-without-selector", "selector-misses-own-pods", "selector-too-generic",
                      "min-domains-exceeds-domains", "mixed-gpu-models"]});
    serde_json::to_vec(&value).expect("JSON values serialise")
}
