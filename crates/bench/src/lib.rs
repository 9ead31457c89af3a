//! The benchmark inputs: the synthetic scenarios of `spreadlab_conformance::synthetic` (upstream
//! `scheduler_perf` shapes: 5,000 nodes in three zones; pods with hard zone spread or required
//! hostname anti-affinity), loaded once through the same path as every other input, so that
//! `cargo bench` measures scheduling (not parsing) on exactly what `cargo xtask speed` gives the
//! real scheduler.

pub mod kubectl;
pub mod policy;

use serde_json::{Value, json};
use spreadlab_conformance::differential::prepare;
use spreadlab_conformance::synthetic::{Shape, ZONES, scenario};
use spreadlab_engine::model::{Cluster, Pod, Scenario};
use spreadlab_k8s::LoadOptions;

/// The cluster and the pods to schedule of the synthetic scenario `shape` with `nodes` nodes and
/// `pods` pods.
pub fn load(shape: Shape, nodes: usize, pods: usize) -> (Cluster, Vec<Pod>) {
    let prepared = prepare(&scenario(shape, nodes, pods))
        .unwrap_or_else(|error| panic!("the synthetic scenario does not load: {error}"));
    (prepared.cluster, prepared.pods)
}

/// [`load`] with storage as a StatefulSet of zonal disks has it: every pod to schedule has its own
/// unbound `WaitForFirstConsumer` claim, provisioned where the pod lands
/// (`spreadlab_conformance::synthetic::with_claims`).
pub fn load_with_claims(shape: Shape, nodes: usize, pods: usize) -> (Cluster, Vec<Pod>) {
    let mut value = scenario(shape, nodes, pods);
    spreadlab_conformance::synthetic::with_claims(&mut value);
    let prepared = prepare(&value)
        .unwrap_or_else(|error| panic!("the synthetic scenario does not load: {error}"));
    (prepared.cluster, prepared.pods)
}

/// `cluster` as an EKS cluster has its EBS volumes: every CSINode driver may attach 25 volumes
/// (`allocatable.count`), and each node has `per_node` VolumeAttachments of volumes no pod uses
/// any more, which NodeVolumeLimits counts against that limit.
pub fn with_attach_limits(cluster: &mut Cluster, per_node: usize) {
    use spreadlab_engine::model::{PersistentVolume, VolumeAttachment};
    let storage = std::sync::Arc::make_mut(&mut cluster.storage);
    for drivers in storage.csi_nodes.values_mut() {
        for driver in drivers {
            driver.allocatable_count = Some(25);
        }
    }
    for node in &cluster.nodes {
        for i in 0..per_node {
            let name = format!("pv-{}-{i}", node.name);
            storage.attachments.push(VolumeAttachment {
                node: node.name.clone(),
                attacher: String::from("ebs.csi.aws.com"),
                volume: name.clone(),
            });
            storage.volumes.insert(
                name.clone(),
                PersistentVolume {
                    name: name.clone(),
                    csi_driver: Some(String::from("ebs.csi.aws.com")),
                    csi_volume_handle: Some(format!("vol-{name}")),
                    ..PersistentVolume::default()
                },
            );
        }
    }
}

/// The input of the analysis benchmarks: the scenario the loader gives (the snapshot and the
/// workloads with their update strategies).
pub struct AnalysisInput {
    /// The scenario.
    pub scenario: Scenario,
}

/// `nodes` nodes in three zones (8 GPUs each on every tenth node), `background` bound pods
/// spread round-robin over them, and a Deployment `infer` of `replicas` GPU replicas with a hard
/// zone spread and `matchLabelKeys: [pod-template-hash]`, all of whose pods run the previous
/// revision (so a rollout replaces every one), loaded through `spreadlab_k8s` as the CLI does.
pub fn analysis_input(nodes: usize, background: usize, replicas: usize) -> AnalysisInput {
    let mut objects: Vec<Value> = (0..nodes)
        .map(|i| {
            let name = format!("node-{i:05}");
            let mut resources = json!({"cpu": "32", "memory": "128Gi", "pods": "110"});
            if i % 10 == 0 {
                resources["nvidia.com/gpu"] = json!("8");
            }
            json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name,
                    "topology.kubernetes.io/zone": format!("zone-{}", i % ZONES),
                    "kubernetes.io/os": "linux",
                }},
                "status": {"capacity": resources, "allocatable": resources},
            })
        })
        .collect();
    let pod = |name: String, labels: Value, node: String, spec_extra: Value| {
        let mut pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels},
            "spec": {
                "nodeName": node,
                "containers": [{
                    "name": "c",
                    "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }],
            },
            "status": {"phase": "Running"},
        });
        if let Value::Object(extra) = spec_extra {
            for (key, value) in extra {
                pod["spec"][key] = value;
            }
        }
        pod
    };
    objects.extend((0..background).map(|i| {
        pod(
            format!("background-{i:05}"),
            json!({"app": format!("background-{}", i % 50)}),
            format!("node-{:05}", i % nodes),
            Value::Null,
        )
    }));
    let spread = json!([{
        "maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "infer"}},
        "matchLabelKeys": ["pod-template-hash"],
    }]);
    let gpu_container = |image: &str| {
        json!([{
            "name": "server",
            "image": image,
            "resources": {
                "requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                "limits": {"nvidia.com/gpu": "1"},
            },
        }])
    };
    // The running revision: one replica per GPU node, round-robin over the zones.
    let gpu_nodes: Vec<usize> = (0..nodes).step_by(10).collect();
    objects.extend((0..replicas).map(|i| {
        pod(
            format!("infer-old-{i:04}"),
            json!({"app": "infer", "pod-template-hash": "old"}),
            format!("node-{:05}", gpu_nodes[i % gpu_nodes.len()]),
            json!({"containers": gpu_container("vllm:0.9"), "topologySpreadConstraints": spread}),
        )
    }));
    objects.push(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "infer", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "infer"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "infer"}},
                "spec": {"containers": gpu_container("vllm:1.0"), "topologySpreadConstraints": spread},
            },
        },
    }));
    let loaded = spreadlab_k8s::load_values("analysis-bench", objects, &LoadOptions::default());
    assert!(
        loaded.errors.is_empty(),
        "the analysis benchmark input does not load: {:?}",
        loaded.errors
    );
    AnalysisInput {
        scenario: loaded.scenario(),
    }
}

/// The release the benchmarks simulate: `SPREADLAB_BENCH_KUBERNETES_VERSION` (`1.35`, ...), else
/// the default (newest) one. Comparing a release with an older commit's numbers needs that
/// release: `SPREADLAB_BENCH_KUBERNETES_VERSION=1.35 cargo bench -p spreadlab-bench`.
pub fn release() -> spreadlab_engine::KubeVersion {
    match std::env::var("SPREADLAB_BENCH_KUBERNETES_VERSION") {
        Ok(text) => spreadlab_engine::KubeVersion::parse(&text)
            .unwrap_or_else(|error| panic!("SPREADLAB_BENCH_KUBERNETES_VERSION: {error}")),
        Err(_) => spreadlab_engine::KubeVersion::DEFAULT,
    }
}
