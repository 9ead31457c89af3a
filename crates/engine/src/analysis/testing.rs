//! Test builders shared by the analyses' unit tests (after upstream's
//! `pkg/scheduler/testing/wrappers.go`): zoned nodes, pod templates with requests, hard spread
//! constraints, workloads with their replicas to create, scenarios and their settled result.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Scenario, Settled, Workload, settle};
use crate::framework::testing::{labels, node};
use crate::model::{
    Cluster, Container, IntOrPercent, LABEL_HOSTNAME, LABEL_ZONE, Node, Pod, PodDisruptionBudget,
    Selector, TopologySpreadConstraint, WhenUnsatisfiable,
};
use crate::scheduler::Options;

/// A node (4 cpu, 8 GiB, 110 pods) in `zone`, with its hostname label.
pub fn zone_node(name: &str, zone: &str) -> Node {
    node(name, &[(LABEL_ZONE, zone), (LABEL_HOSTNAME, name)])
}

/// One container `c` requesting `millis` of cpu added to `pod`.
pub fn with_cpu(mut pod: Pod, millis: i64) -> Pod {
    let mut container = Container {
        name: "c".into(),
        ..Default::default()
    };
    container.requests.insert("cpu".into(), millis);
    pod.containers.push(container);
    pod
}

/// The selector `app=<app>`.
pub fn app(app: &str) -> Selector {
    Selector::from_set(&labels(&[("app", app)]))
}

/// A hard (`DoNotSchedule`) zone spread constraint, maxSkew 1, selecting `selector`.
pub fn zone_spread(selector: Selector) -> TopologySpreadConstraint {
    TopologySpreadConstraint {
        max_skew: 1,
        topology_key: LABEL_ZONE.into(),
        when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
        selector,
        min_domains: None,
        node_affinity_policy: None,
        node_taints_policy: None,
        match_label_keys: Vec::new(),
    }
}

/// A Deployment `default/<name>` of `replicas` replicas of `template`, none running: its pods to
/// create are `<name>-0`, `<name>-1`, ...
pub fn deployment(name: &str, template: Pod, replicas: usize) -> Workload {
    let to_create = (0..replicas)
        .map(|i| {
            let mut pod = template.clone();
            pod.name = format!("{name}-{i}");
            pod
        })
        .collect();
    Workload {
        key: format!("Deployment/default/{name}"),
        desired: replicas,
        to_create,
        template,
        ..Workload::default()
    }
}

/// A cluster of `nodes`.
pub fn cluster(nodes: Vec<Node>) -> Cluster {
    Cluster {
        nodes,
        ..Cluster::default()
    }
}

/// The scenario of `cluster` and `workloads`.
pub fn scenario(cluster: &Cluster, workloads: &[Workload]) -> Scenario {
    Scenario {
        cluster: cluster.clone(),
        workloads: workloads.to_vec(),
    }
}

/// [`scenario`], settled with `options`.
pub fn settled(cluster: &Cluster, workloads: &[Workload], options: &Options) -> Settled {
    settle(scenario(cluster, workloads), options)
}

/// A PodDisruptionBudget `default/<name>` selecting `app=<app>`, without a status.
pub fn pdb(
    name: &str,
    app_label: &str,
    min_available: Option<IntOrPercent>,
    max_unavailable: Option<IntOrPercent>,
) -> PodDisruptionBudget {
    PodDisruptionBudget {
        namespace: String::from("default"),
        name: String::from(name),
        selector: app(app_label),
        disruptions_allowed: 0,
        disrupted_pods: Vec::new(),
        min_available,
        max_unavailable,
    }
}
