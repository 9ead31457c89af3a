//! Synthetic clusters for the benchmarks: the shapes of upstream `scheduler_perf` (5,000 nodes in three
//! zones; pods with hard zone spread; pods with required hostname anti-affinity), built directly in
//! the engine's model so the benchmark measures scheduling, not parsing.

use spreadlab_engine::model::resources::{CPU, MEMORY, PODS};
use spreadlab_engine::model::{
    Cluster, LABEL_HOSTNAME, LABEL_ZONE, Labels, Node, Pod, PodAffinity, PodAffinityTerm, Selector,
    TopologySpreadConstraint, WhenUnsatisfiable,
};
use spreadlab_engine::model::{Container, Requirement};

/// `n` nodes round-robin over `zones` zones, 32 cpu, 128 GiB, 110 pods each.
pub fn cluster(n: usize, zones: usize) -> Cluster {
    let nodes = (0..n)
        .map(|i| {
            let mut node = Node::named(format!("node-{i:05}"));
            node.labels.insert(LABEL_HOSTNAME.into(), node.name.clone());
            node.labels
                .insert(LABEL_ZONE.into(), format!("zone-{}", i % zones));
            node.labels
                .insert("kubernetes.io/os".into(), "linux".into());
            node.allocatable.insert(CPU.into(), 32_000);
            node.allocatable.insert(MEMORY.into(), 128 << 30);
            node.allocatable.insert(PODS.into(), 110);
            node
        })
        .collect();
    Cluster {
        nodes,
        ..Cluster::default()
    }
}

fn app_labels(app: &str) -> Labels {
    Labels::from([("app".to_string(), app.to_string())])
}

fn pod(app: &str, index: usize) -> Pod {
    let mut pod = Pod::named("default", format!("{app}-{index:05}"));
    pod.labels = app_labels(app);
    let mut container = Container {
        name: "c".into(),
        ..Container::default()
    };
    container.requests.insert(CPU.into(), 100);
    container.requests.insert(MEMORY.into(), 128 << 20);
    pod.containers.push(container);
    pod
}

/// `n` pods with a hard zone spread (maxSkew 1) on their own label.
pub fn spread_pods(n: usize) -> Vec<Pod> {
    (0..n)
        .map(|i| {
            let mut pod = pod("spread", i);
            pod.topology_spread_constraints
                .push(TopologySpreadConstraint {
                    max_skew: 1,
                    topology_key: LABEL_ZONE.into(),
                    when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
                    selector: Selector::from_set(&app_labels("spread")),
                    min_domains: None,
                    node_affinity_policy: None,
                    node_taints_policy: None,
                    match_label_keys: Vec::new(),
                });
            pod
        })
        .collect()
}

/// `n` pods with required hostname anti-affinity to each other.
pub fn anti_affinity_pods(n: usize) -> Vec<Pod> {
    (0..n)
        .map(|i| {
            let mut pod = pod("anti", i);
            pod.affinity.pod_anti_affinity = Some(PodAffinity {
                required: vec![PodAffinityTerm {
                    selector: Selector::Requirements(vec![Requirement::equals("app", "anti")]),
                    topology_key: LABEL_HOSTNAME.into(),
                    namespaces: Vec::new(),
                    namespace_selector: None,
                    match_label_keys: Vec::new(),
                    mismatch_label_keys: Vec::new(),
                    parse_error: None,
                }],
                preferred: Vec::new(),
            });
            pod
        })
        .collect()
}
