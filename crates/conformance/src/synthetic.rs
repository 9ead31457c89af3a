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

#[cfg(test)]
mod tests {
    use super::*;

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
