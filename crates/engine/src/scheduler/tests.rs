//! The scheduler's unit tests: ties, sequential placement, explanations, preemption.

use alloc::string::String;
use alloc::vec;

use super::*;
use crate::framework::testing::{node, pod};
use crate::framework::{PluginName, Snapshot};
use crate::model::Cluster;
use crate::model::Pod;

/// Identical empty nodes all tie; the first in node order is bound and every tied node is listed.
/// Sequential placement then sees the bound pod (BalancedAllocation/LeastAllocated change).
#[test]
fn ties_are_reported_and_broken_by_node_order() {
    let cluster = Cluster {
        nodes: vec![node("a", &[]), node("b", &[]), node("c", &[])],
        ..Cluster::default()
    };
    // Best-effort pods with one container: scoring counts 100m cpu and 200Mi memory each.
    let mut pods = vec![pod("p1", &[], None), pod("p2", &[], None)];
    for p in &mut pods {
        p.containers.push(crate::model::Container {
            name: "c".into(),
            ..Default::default()
        });
    }
    let options = Options {
        detail: Detail::All,
        ..Options::default()
    };
    let simulation = simulate(&cluster, &pods, &options);
    assert_eq!(simulation.decisions[0].tied_nodes, vec!["a", "b", "c"]);
    assert_eq!(simulation.decisions[0].node.as_deref(), Some("a"));
    assert_eq!(simulation.decisions[1].tied_nodes, vec!["b", "c"]);
    // The same input gives the same decisions.
    assert_eq!(
        simulate(&cluster, &pods, &options).decisions,
        simulation.decisions
    );
}

/// `pods` simulated on `cluster` with the node-local cache, asserted equal to the same pods
/// scheduled with the cache cleared before every cycle; the decisions.
fn decisions_match_without_cache(cluster: &Cluster, pods: &[Pod]) -> vec::Vec<PodDecision> {
    let options = Options {
        detail: Detail::All,
        ..Options::default()
    };
    let cached = simulate(cluster, pods, &options).decisions;
    let (mut snapshot, _) = Snapshot::new(cluster);
    let fresh: vec::Vec<PodDecision> = queue_order(pods)
        .into_iter()
        .map(|i| {
            snapshot.clear_node_local_cache();
            schedule_and_bind(&mut snapshot, &pods[i], &options)
        })
        .collect();
    assert_eq!(cached, fresh);
    cached
}

/// The cache keeps a few signatures at once; six interleaved signatures (more than it keeps)
/// evict one another, and no decision changes.
#[test]
fn node_local_cache_is_exact_past_its_signatures() {
    use crate::model::resources::CPU;
    let nodes: vec::Vec<_> = (0..4)
        .map(|i| {
            node(
                &alloc::format!("n{i}"),
                &[("zone", if i % 2 == 0 { "z1" } else { "z2" })],
            )
        })
        .collect();
    let cluster = Cluster {
        nodes,
        ..Cluster::default()
    };
    let pods: vec::Vec<Pod> = (0..60)
        .map(|i| {
            let mut p = pod(&alloc::format!("p{i}"), &[("app", "x")], None);
            let mut c = crate::model::Container {
                name: "c".into(),
                ..Default::default()
            };
            c.requests.insert(CPU.into(), 100 * (1 + i % 6) as i64);
            p.containers.push(c);
            p
        })
        .collect();
    let cached = decisions_match_without_cache(&cluster, &pods);
    assert!(
        cached.iter().any(|d| d.node.is_none()) && cached.iter().any(|d| d.node.is_some()),
        "the test must fill the nodes"
    );
}

/// Reusing node-local results across replicas never changes a decision: two workloads with
/// different requests interleave, nodes fill up, and a high-priority pod preempts.
#[test]
fn node_local_cache_is_exact() {
    use crate::model::resources::CPU;
    let nodes = vec![
        node("a", &[("zone", "z1")]),
        node("b", &[("zone", "z2")]),
        node("c", &[("zone", "z1")]),
    ];
    // 2,500m of each node's 4,000m is taken by low-priority pods.
    let filler = |name: &str, on: &str| {
        let mut p = pod(name, &[("app", "filler")], Some(on));
        let mut c = crate::model::Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert(CPU.into(), 2500);
        p.containers.push(c);
        p
    };
    let bound = vec![filler("f-a", "a"), filler("f-b", "b"), filler("f-c", "c")];
    let cluster = Cluster {
        nodes,
        pods: bound.into_iter().map(Into::into).collect(),
        ..Cluster::default()
    };
    let mut pods = vec::Vec::new();
    for i in 0..20 {
        let mut p = pod(
            &alloc::format!("w{i}"),
            &[("app", if i % 3 == 0 { "x" } else { "y" })],
            None,
        );
        let mut c = crate::model::Container {
            name: "c".into(),
            ..Default::default()
        };
        let cpu = if i == 19 {
            2000
        } else if i % 3 == 0 {
            300
        } else {
            400
        };
        c.requests.insert(CPU.into(), cpu);
        p.containers.push(c);
        p.priority = if i == 19 { 100 } else { 0 };
        pods.push(p);
    }
    let cached = decisions_match_without_cache(&cluster, &pods);
    assert!(
        cached.iter().any(|d| d.node.is_none()),
        "the test must fill the nodes"
    );
    assert!(
        cached.iter().any(|d| d.preemption.is_some()),
        "the test must preempt: {:?}",
        cached
            .iter()
            .map(|d| (&d.name, &d.node, &d.message))
            .collect::<vec::Vec<_>>()
    );
}

/// PrioritySort: higher priority first, then input order.
#[test]
fn queue_order_is_priority_then_arrival() {
    let mut pods = vec![
        pod("a", &[], None),
        pod("b", &[], None),
        pod("c", &[], None),
    ];
    pods[2].priority = 5;
    assert_eq!(queue_order(&pods), vec![2, 0, 1]);
}

/// No nodes at all gives upstream's ErrNoNodesAvailable text.
#[test]
fn no_nodes() {
    let simulation = simulate(
        &Cluster::default(),
        &[pod("p", &[], None)],
        &Options::default(),
    );
    assert_eq!(
        simulation.decisions[0].message.as_deref(),
        Some(NO_NODES_AVAILABLE_MSG)
    );
}

fn cpu_pod(name: &str, app: &str, cpu: i64, priority: i32, on: Option<&str>) -> Pod {
    let mut p = pod(name, &[("app", app)], on);
    p.priority = priority;
    let mut c = crate::model::Container {
        name: "c".into(),
        ..Default::default()
    };
    c.requests.insert(crate::model::resources::CPU.into(), cpu);
    p.containers.push(c);
    p
}

/// A preemptor whose only victim is already terminating deletes nothing, fails its retry and
/// stays Pending, nominated (upstream `prepareCandidateAsync` skips terminating victims). The
/// next pod must leave it room (`RunFilterPluginsWithNominatedPods`, first pass), and a pod
/// whose required affinity only the nominated pod would satisfy does not fit either (second
/// pass, without nominated pods).
#[test]
fn nominated_pods_are_counted_by_later_pods() {
    let mut old = cpu_pod("old", "old", 3000, 0, Some("a"));
    old.terminating = true;
    let cluster = Cluster {
        nodes: vec![
            node("a", &[("kubernetes.io/hostname", "a")]),
            node("b", &[("kubernetes.io/hostname", "b")]),
        ],
        pods: vec![
            old.into(),
            cpu_pod("full", "full", 4000, 100, Some("b")).into(),
        ],
        ..Cluster::default()
    };
    let hi = cpu_pod("hi", "hi", 2000, 10, None);
    let lo = cpu_pod("lo", "lo", 1000, 0, None);
    let mut follower = cpu_pod("follower", "follower", 0, 0, None);
    follower.affinity.pod_affinity = Some(crate::model::PodAffinity {
        required: vec![crate::model::PodAffinityTerm {
            selector: crate::model::Selector::from_set(&crate::framework::testing::labels(&[(
                "app", "hi",
            )])),
            topology_key: "kubernetes.io/hostname".into(),
            namespaces: vec![],
            namespace_selector: None,
            match_label_keys: vec![],
            mismatch_label_keys: vec![],
            parse_error: None,
        }],
        preferred: vec![],
    });
    let options = Options {
        detail: Detail::All,
        ..Options::default()
    };
    let simulation = simulate(&cluster, &[hi, lo, follower], &options);
    let [hi, lo, follower] = &simulation.decisions[..] else {
        panic!("three decisions")
    };
    let preemption = hi.preemption.as_ref().expect("hi preempts");
    assert_eq!(preemption.nominated_node, "a");
    assert!(preemption.victims.is_empty(), "old is already terminating");
    assert_eq!(hi.node, None);
    assert_eq!(simulation.snapshot.nominated.len(), 1);
    // Without the nominated pod, lo would fit on a (3000m + 1000m of 4000m).
    assert_eq!(lo.node, None);
    let on_a = &lo.explanation.as_ref().unwrap().nodes[0];
    assert_eq!(on_a.filter.plugin, Some(PluginName::NodeResourcesFit));
    assert_eq!(follower.node, None);
    let on_a = &follower.explanation.as_ref().unwrap().nodes[0];
    assert_eq!(on_a.filter.plugin, Some(PluginName::InterPodAffinity));
    // The same pods without the terminating victim: hi evicts nothing, fits at once.
    let mut free = cluster.clone();
    free.pods.remove(0);
    let simulation = simulate(
        &free,
        &[
            cpu_pod("hi", "hi", 2000, 10, None),
            cpu_pod("lo", "lo", 1000, 0, None),
        ],
        &options,
    );
    assert_eq!(simulation.decisions[0].node.as_deref(), Some("a"));
    assert_eq!(simulation.decisions[1].node.as_deref(), Some("a"));
    assert!(simulation.snapshot.nominated.is_empty());
}

/// Seeded tie-breaks pick among the tied nodes only, the same way for the same seed, and
/// reach every tied node over seeds; `Follow` picks the named node when it is tied.
#[test]
fn tie_breaks_stay_among_the_tied_nodes() {
    let cluster = Cluster {
        nodes: vec![node("a", &[]), node("b", &[]), node("c", &[])],
        ..Cluster::default()
    };
    let pods = vec![cpu_pod("p", "p", 100, 0, None)];
    let mut seen = alloc::collections::BTreeSet::new();
    for seed in 0..64 {
        let options = Options {
            tie_break: TieBreak::Seeded(seed),
            ..Options::default()
        };
        let first = simulate(&cluster, &pods, &options).decisions;
        assert_eq!(first, simulate(&cluster, &pods, &options).decisions);
        assert_eq!(first[0].tied_count, 3);
        seen.insert(first[0].node.clone().unwrap());
    }
    assert_eq!(seen.len(), 3, "64 seeds reach every tied node: {seen:?}");
    let follow = |node: &str| Options {
        tie_break: TieBreak::Follow([(String::from("default/p"), String::from(node))].into()),
        ..Options::default()
    };
    let decisions = simulate(&cluster, &pods, &follow("c")).decisions;
    assert_eq!(decisions[0].node.as_deref(), Some("c"));
    // A node that is not among the tied falls back to the first in node order.
    let decisions = simulate(&cluster, &pods, &follow("nowhere")).decisions;
    assert_eq!(decisions[0].node.as_deref(), Some("a"));
}
