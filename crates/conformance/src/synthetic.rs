//! The large benchmark scenarios, written once as Kubernetes objects so that both sides of the
//! speed comparison read the same input: `cargo xtask speed` hands the JSON to the Go oracle
//! (`oracle -time FILE`) and to spreadlab (through [`crate::differential::prepare`]), and the
//! divan benchmarks (`crates/bench`) load it the same way.
//!
//! The shapes follow upstream `scheduler_perf` (`test/integration/scheduler_perf`): nodes in
//! three zones with 32 cpu, 128Gi and 110 pods, pods requesting 100m and 128Mi, with either a
//! hard zone spread (maxSkew 1 on their own label) or required hostname anti-affinity.

use serde_json::{Value, json};

/// A benchmark shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Pods with a hard zone spread (maxSkew 1, DoNotSchedule) on their own label.
    Spread,
    /// Pods with required hostname anti-affinity to each other.
    AntiAffinity,
}

impl Shape {
    /// Parses `spread` or `anti`.
    pub fn parse(text: &str) -> Option<Shape> {
        match text {
            "spread" => Some(Shape::Spread),
            "anti" => Some(Shape::AntiAffinity),
            _ => None,
        }
    }

    /// The shape's name (and the pods' `app` label).
    pub fn name(self) -> &'static str {
        match self {
            Shape::Spread => "spread",
            Shape::AntiAffinity => "anti",
        }
    }
}

/// Zones the nodes are spread over, round-robin.
pub const ZONES: usize = 3;

/// The scenario (`{name, objects, schedule}`): `nodes` nodes `node-00000`.., `pods` unbound
/// pods `default/<shape>-00000`.. to schedule in that order.
pub fn scenario(shape: Shape, nodes: usize, pods: usize) -> Value {
    let objects: Vec<Value> = (0..nodes)
        .map(|i| {
            let name = format!("node-{i:05}");
            let resources = json!({"cpu": "32", "memory": "128Gi", "pods": "110"});
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
    let app = shape.name();
    let schedule: Vec<Value> = (0..pods)
        .map(|i| {
            let mut spec = json!({
                "containers": [{
                    "name": "c",
                    "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                }],
            });
            match shape {
                Shape::Spread => {
                    spec["topologySpreadConstraints"] = json!([{
                        "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {"matchLabels": {"app": app}},
                    }]);
                }
                Shape::AntiAffinity => {
                    spec["affinity"] = json!({"podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [{
                            "labelSelector": {"matchExpressions": [
                                {"key": "app", "operator": "In", "values": [app]},
                            ]},
                            "topologyKey": "kubernetes.io/hostname",
                        }],
                    }});
                }
            }
            json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": format!("{app}-{i:05}"), "namespace": "default",
                             "labels": {"app": app}},
                "spec": spec,
            })
        })
        .collect();
    json!({
        "name": format!("synthetic-{app}-{nodes}-nodes-{pods}-pods"),
        "objects": objects,
        "schedule": schedule,
    })
}

/// `scenario` with storage, as a StatefulSet of zonal disks has it: a default StorageClass that
/// waits for the first consumer (a CSI provisioner), a CSINode per node reporting the zone as the
/// driver's topology key, and for every pod to schedule its own unbound claim
/// `data-<pod>` (10Gi), created before the pod as the StatefulSet controller does. Each placed
/// replica provisions its disk in its zone.
pub fn with_claims(scenario: &mut Value) {
    let mut added = vec![json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "zonal", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
    })];
    for node in scenario["objects"].as_array().into_iter().flatten() {
        if node["kind"] == "Node" {
            added.push(json!({
                "apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": node["metadata"]["name"]},
                "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": node["metadata"]["name"],
                    "topologyKeys": ["topology.kubernetes.io/zone"]}]},
            }));
        }
    }
    for pod in scenario["schedule"].as_array_mut().into_iter().flatten() {
        let claim = format!(
            "data-{}",
            pod["metadata"]["name"].as_str().unwrap_or_default()
        );
        added.push(json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim, "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
                "resources": {"requests": {"storage": "10Gi"}}},
        }));
        pod["spec"]["volumes"] =
            json!([{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]);
    }
    if let Some(objects) = scenario["objects"].as_array_mut() {
        objects.extend(added);
    }
}

/// A heterogeneous cluster for benchmarks that must not flatter caches of alike nodes: `nodes`
/// nodes in three zones of three sizes (16, 32 and 64 CPUs), every tenth tainted
/// `dedicated=batch:NoSchedule`, every seventh labelled `disk=ssd`; `existing` bound pods of five
/// sizes on pseudo-random nodes (a fixed linear congruential sequence: the same cluster every
/// run); and `pods` unbound pods with a hard zone spread, a quarter of them requiring `disk=ssd`.
pub fn heterogeneous(nodes: usize, existing: usize, pods: usize) -> Value {
    let mut objects: Vec<Value> = (0..nodes)
        .map(|i| {
            let name = format!("node-{i:05}");
            let cpu = [16, 32, 64][(i / 3) % 3];
            let resources = json!({"cpu": cpu.to_string(), "memory": format!("{}Gi", cpu * 4),
                "pods": "110"});
            let mut labels = json!({
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": format!("zone-{}", i % ZONES),
                "kubernetes.io/os": "linux",
            });
            if i % 7 == 0 {
                labels["disk"] = json!("ssd");
            }
            let mut node = json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "status": {"capacity": resources, "allocatable": resources},
            });
            if i % 10 == 0 {
                node["spec"] = json!({"taints": [
                    {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]});
            }
            node
        })
        .collect();
    let mut state: u64 = 0x5eed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    for i in 0..existing {
        let node = next() % nodes.max(1);
        let size = next() % 5;
        objects.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": format!("existing-{i:06}"), "namespace": "default",
                         "labels": {"app": format!("existing-{}", i % 40)}},
            "spec": {
                "nodeName": format!("node-{node:05}"),
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {
                        "cpu": format!("{}m", 100 + 250 * size),
                        "memory": format!("{}Mi", 128 << size)}}}],
            },
            "status": {"phase": "Running"},
        }));
    }
    let schedule: Vec<Value> = (0..pods)
        .map(|i| {
            let mut spec = json!({
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}],
                "topologySpreadConstraints": [{
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "mixed"}},
                }],
            });
            if i % 4 == 0 {
                spec["nodeSelector"] = json!({"disk": "ssd"});
            }
            json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": format!("mixed-{i:05}"), "namespace": "default",
                             "labels": {"app": "mixed"}},
                "spec": spec,
            })
        })
        .collect();
    json!({
        "name": format!("synthetic-heterogeneous-{nodes}-nodes-{existing}-existing-{pods}-pods"),
        "objects": objects,
        "schedule": schedule,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heterogeneous cluster loads with its bound pods, taints and sizes.
    #[test]
    fn heterogeneous_loads() {
        let prepared = crate::differential::prepare(&heterogeneous(30, 50, 8)).unwrap();
        assert_eq!(prepared.cluster.nodes.len(), 30);
        assert_eq!(prepared.cluster.pods.len(), 50);
        assert_eq!(prepared.pods.len(), 8);
        assert!(prepared.cluster.nodes.iter().any(|n| !n.taints.is_empty()));
        let sizes: std::collections::BTreeSet<_> = prepared
            .cluster
            .nodes
            .iter()
            .map(|n| n.allocatable.get("cpu").copied())
            .collect();
        assert_eq!(sizes.len(), 3);
    }

    /// Both shapes load on the spreadlab side without errors, with every pod to schedule.
    #[test]
    fn shapes_load() {
        for shape in [Shape::Spread, Shape::AntiAffinity] {
            let prepared = crate::differential::prepare(&scenario(shape, 7, 5)).unwrap();
            assert_eq!(prepared.cluster.nodes.len(), 7);
            assert_eq!(prepared.pods.len(), 5);
            assert_eq!(Shape::parse(shape.name()), Some(shape));
        }
    }
}
