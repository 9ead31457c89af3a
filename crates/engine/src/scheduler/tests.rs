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
    let (mut snapshot, _) = Snapshot::new(cluster, options.profile.version);
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

/// Upstream `TestLess` (framework/plugins/queuesort/priority_sort_test.go): priorities 10 and
/// 100 either way round, then equal priority with timestamps t1 < t2 either way round; here
/// the timestamp of a waiting pod is its creation time.
#[test]
fn queue_order_ports_upstream_less() {
    let queued = |priority: i32, created: Option<i64>| {
        let mut p = pod("p", &[], None);
        p.priority = priority;
        p.waiting = created.is_some();
        p.created = created;
        p
    };
    let less = |p1: Pod, p2: Pod| queue_order(&[p1, p2]) == vec![0, 1];
    assert!(!less(queued(10, None), queued(100, None)));
    assert!(less(queued(100, None), queued(10, None)));
    assert!(less(queued(100, Some(1)), queued(100, Some(2))));
    assert!(!less(queued(100, Some(2)), queued(100, Some(1))));
    // A pod already waiting was queued before any pod the simulation creates; priority first.
    assert!(!less(queued(100, None), queued(100, Some(2))));
    assert!(less(queued(100, None), queued(10, Some(2))));
}

/// `evaluateNominatedNode`: a waiting pod nominated to a node where it fits goes there unscored
/// (even though another node scores higher), and until its turn its nomination holds room
/// there against an earlier pod of equal priority.
#[test]
fn a_nominated_waiting_pod_is_bound_to_its_node_first() {
    let cluster = Cluster {
        nodes: vec![node("a", &[]), node("b", &[])],
        pods: vec![cpu_pod("busy", "busy", 2000, 0, Some("b")).into()],
        ..Cluster::default()
    };
    let mut first = cpu_pod("first", "x", 3000, 0, None);
    first.waiting = true;
    first.created = Some(1);
    let mut nominated = cpu_pod("nominated", "x", 2000, 0, None);
    nominated.waiting = true;
    nominated.created = Some(2);
    nominated.nominated_node_name = Some("b".into());
    let simulation = simulate(&cluster, &[nominated, first], &Options::default());
    let [first, nominated] = &simulation.decisions[..] else {
        panic!("two decisions")
    };
    assert_eq!(first.name, "first");
    // b holds 2000m + the nominated 2000m of 4000m: first (3000m) fits only on a.
    assert_eq!(first.node.as_deref(), Some("a"));
    assert!(first.waiting);
    assert_eq!(nominated.nominated_node.as_deref(), Some("b"));
    assert_eq!(nominated.node.as_deref(), Some("b"));
    assert_eq!((nominated.feasible_nodes, nominated.tied_count), (1, 1));
    assert!(simulation.snapshot.nominated.is_empty());
}

/// `PodEligibleToPreemptOthers`: a pod nominated to a node where a lower-priority pod the
/// scheduler preempted is still terminating does not preempt again, and keeps its nomination.
#[test]
fn a_terminating_victim_on_the_nominated_node_blocks_preemption() {
    let mut victim = cpu_pod("victim", "v", 3000, 0, Some("a"));
    victim.terminating = true;
    victim.terminating_by_preemption = true;
    let cluster = Cluster {
        nodes: vec![node("a", &[]), node("b", &[])],
        pods: vec![
            victim.into(),
            cpu_pod("low", "low", 3000, 0, Some("b")).into(),
        ],
        ..Cluster::default()
    };
    let mut preemptor = cpu_pod("preemptor", "p", 2000, 10, None);
    preemptor.waiting = true;
    preemptor.nominated_node_name = Some("a".into());
    // Up to v1.36 DynamicResources' PostFilter adds its note before preemption's.
    let options = Options::for_version(crate::KubeVersion::V1_35);
    let simulation = simulate(&cluster, &[preemptor], &options);
    let decision = &simulation.decisions[0];
    assert_eq!(decision.node, None);
    assert!(decision.preemption.is_none());
    assert!(
        decision.message.as_deref().unwrap().ends_with(
            "no new claims to deallocate, preemption: not eligible due to a terminating pod on the nominated node."
        ),
        "{:?}",
        decision.message
    );
    assert_eq!(simulation.snapshot.nominated.len(), 1, "nomination kept");
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

/// `pods` simulated on `cluster` node by node ([`Detail::All`]) and with alike nodes evaluated
/// once per class ([`Detail::None`]), asserted equal in everything both keep; the detailed run.
fn decisions_match_by_class(cluster: &Cluster, pods: &[Pod]) -> vec::Vec<PodDecision> {
    let run = |detail| {
        let options = Options {
            detail,
            ..Options::default()
        };
        simulate(cluster, pods, &options).decisions
    };
    let detailed = run(Detail::All);
    let summary = |d: &PodDecision| {
        let mut d = d.clone();
        d.explanation = None;
        d.tied_nodes.truncate(TIED_NODES_KEPT_WITHOUT_DETAIL);
        d
    };
    for (detailed, fast) in detailed.iter().zip(run(Detail::None)) {
        assert_eq!(summary(detailed), summary(&fast));
    }
    detailed
}

/// Alike nodes share a class only while the pods on them add up alike: a used host port, a
/// full pod count and per-node matching pods (a soft hostname spread, which reads a node's
/// identity and so is scored node by node) each tell nodes apart, and the decisions are the
/// node-by-node ones. Expected placements follow upstream's plugins: NodePorts rejects the port
/// holder, NodeResourcesFit the full node (`Too many pods`), PodTopologySpread scores the node
/// already holding an `app=x` pod lower; the rest tie and the first in node order wins.
#[test]
fn node_classes_are_exact() {
    use crate::model::resources::{CPU, MEMORY, PODS};
    use crate::model::{ContainerPort, Selector, TopologySpreadConstraint, WhenUnsatisfiable};
    let nodes: vec::Vec<_> = (0..8)
        .map(|i| {
            let name = alloc::format!("n{i}");
            let zone = if i % 2 == 0 { "z1" } else { "z2" };
            let mut n = node(
                &name,
                &[("zone", zone), (crate::model::LABEL_HOSTNAME, &name)],
            );
            n.allocatable.insert(PODS.into(), 2);
            n
        })
        .collect();
    let with = |mut p: Pod, cpu: i64, port: Option<i32>| {
        let mut c = crate::model::Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert(CPU.into(), cpu);
        c.requests.insert(MEMORY.into(), 0);
        if let Some(host_port) = port {
            c.ports.push(ContainerPort {
                host_port,
                host_ip: "0.0.0.0".into(),
                protocol: "TCP".into(),
                container_port: host_port,
            });
        }
        p.containers.push(c);
        p
    };
    let mut bound = vec![
        with(pod("y0", &[("app", "y")], Some("n0")), 500, None),
        with(pod("y1", &[("app", "y")], Some("n1")), 500, Some(8080)),
        with(pod("y2", &[("app", "y")], Some("n2")), 500, None),
        // Requests nothing (explicit zeros): only the pod count tells n2 apart.
        with(pod("zero", &[("app", "z")], Some("n2")), 0, None),
        with(pod("x3", &[("app", "x")], Some("n3")), 500, None),
    ];
    for i in 4..8 {
        let name = alloc::format!("y{i}");
        let on = alloc::format!("n{i}");
        bound.push(with(pod(&name, &[("app", "y")], Some(&on)), 500, None));
    }
    let cluster = Cluster {
        nodes,
        pods: bound.into_iter().map(Into::into).collect(),
        ..Cluster::default()
    };
    let mut x1 = with(pod("x1", &[("app", "x")], None), 500, None);
    x1.topology_spread_constraints
        .push(TopologySpreadConstraint {
            max_skew: 1,
            topology_key: crate::model::LABEL_HOSTNAME.into(),
            when_unsatisfiable: WhenUnsatisfiable::ScheduleAnyway,
            selector: Selector::from_set(&crate::framework::testing::labels(&[("app", "x")])),
            min_domains: None,
            node_affinity_policy: None,
            node_taints_policy: None,
            match_label_keys: vec![],
        });
    let pods = vec![with(pod("w1", &[("app", "w")], None), 100, Some(8080)), x1];
    let decisions = decisions_match_by_class(&cluster, &pods);
    // w1: n1 holds the port, n2 is full; the other six tie.
    assert_eq!(decisions[0].node.as_deref(), Some("n0"));
    assert_eq!(
        decisions[0].tied_nodes,
        ["n0", "n3", "n4", "n5", "n6", "n7"]
    );
    // x1: n0 and n2 are full; n3 holds an app=x pod and scores lower.
    assert_eq!(decisions[1].node.as_deref(), Some("n1"));
    assert_eq!(decisions[1].tied_nodes, ["n1", "n4", "n5", "n6", "n7"]);
}

/// The Filter pass of a cluster of alike nodes stops where upstream's `findNodesThatPassFilters`
/// does: 300 nodes keep `numFeasibleNodesToFind` = 300 × (50 − 300/125)% = 144 feasible nodes.
/// Zones a, b and c (100 nodes each, c tainted) are walked round-robin (`nodeTree.list()`:
/// a-000, b-000, c-000, a-001, …), so the 144th feasible node is b-071, the 215th node walked;
/// c-071 fails and is recorded, a-072 would be the 145th and stops the pass: 216 nodes
/// processed (`processedNodes`), and the next pod's pass starts at a-072 (`nextStartNodeIndex`),
/// wraps after c-099 and stops the same way at a-044. The class pass and the node-by-node pass
/// agree on every field.
#[test]
fn the_filter_pass_stops_after_num_feasible_nodes_to_find() {
    use crate::model::{LABEL_ZONE, Taint, TaintEffect};
    let mut nodes = vec::Vec::new();
    for zone in ["a", "b", "c"] {
        for i in 0..100 {
            let mut n = node(&alloc::format!("{zone}-{i:03}"), &[(LABEL_ZONE, zone)]);
            if zone == "c" {
                n.taints.push(Taint {
                    key: "dedicated".into(),
                    value: "batch".into(),
                    effect: TaintEffect::NoSchedule,
                });
            }
            nodes.push(n);
        }
    }
    let cluster = Cluster {
        nodes,
        ..Cluster::default()
    };
    let pods: vec::Vec<Pod> = (0..3)
        .map(|i| pod(&alloc::format!("p{i}"), &[], None))
        .collect();
    let decisions = decisions_match_by_class(&cluster, &pods);
    assert_eq!(
        Options::default().profile.num_feasible_nodes_to_find(300),
        144
    );
    let first = &decisions[0];
    assert!(first.sampled);
    assert_eq!((first.feasible_nodes, first.evaluated_nodes), (144, 216));
    assert_eq!(
        (decisions[1].feasible_nodes, decisions[1].evaluated_nodes),
        (144, 216)
    );
    // No pod lands in the tainted zone.
    for decision in &decisions {
        assert!(
            decision
                .node
                .as_deref()
                .is_some_and(|n| !n.starts_with('c'))
        );
    }
}
