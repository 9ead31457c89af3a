//! Lint's unit tests, one or more per rule (expected findings hand-derived, as each says).

use alloc::vec;

use super::*;
use crate::analysis::rollout::IntOrPercent;
use crate::analysis::rollout::{LABEL_POD_TEMPLATE_HASH, RolloutSpec, Strategy};
use crate::analysis::testing::{deployment, settled};
use crate::framework::testing::{labels, node, pod};
use crate::model::{
    Container, NodeInclusionPolicy, PodAffinity, PodDisruptionBudget, Requirement, Taint,
    TopologySpreadConstraint,
};
use crate::model::{LABEL_HOSTNAME, PodAffinityTerm, TaintEffect, WhenUnsatisfiable};
use alloc::collections::BTreeSet;

const ZONE: &str = "topology.kubernetes.io/zone";

fn zone_node(name: &str, zone: &str) -> crate::model::Node {
    node(name, &[(ZONE, zone), (LABEL_HOSTNAME, name)])
}

fn template(app: &str, cpu: i64) -> Pod {
    let mut p = pod("", &[("app", app), (LABEL_POD_TEMPLATE_HASH, "h1")], None);
    let mut c = Container {
        name: "c".into(),
        ..Default::default()
    };
    c.requests.insert("cpu".into(), cpu);
    p.containers.push(c);
    p
}

fn spread(selector: Selector) -> TopologySpreadConstraint {
    TopologySpreadConstraint {
        max_skew: 1,
        topology_key: ZONE.into(),
        when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
        selector,
        min_domains: None,
        node_affinity_policy: None,
        node_taints_policy: None,
        match_label_keys: vec![LABEL_POD_TEMPLATE_HASH.into()],
    }
}

fn app(app: &str) -> Selector {
    Selector::from_set(&labels(&[("app", app)]))
}

fn workload(name: &str, template: Pod, replicas: usize) -> Workload {
    deployment(name, template, replicas)
}

/// Lint of `workloads` on `cluster`, workload `i` rolling out with `rollouts[i]`.
fn lint_of(
    cluster: &Cluster,
    workloads: &[Workload],
    rollouts: &[Option<RolloutSpec>],
    options: &Options,
) -> Vec<Finding> {
    let mut workloads = workloads.to_vec();
    for (workload, rollout) in workloads.iter_mut().zip(rollouts) {
        workload.rollout = rollout.clone();
    }
    checked_lint(&settled(cluster, &workloads, options), options)
}

/// [`lint`], after checking that [`lint_rules`] finds exactly its findings of the rules asked for,
/// each rule alone and every rule but one (the analyses skipped for the others change nothing).
fn checked_lint(settled: &Settled, options: &Options) -> Vec<Finding> {
    let all = lint(settled, options);
    for rule in RULES {
        let only: Vec<&Finding> = all.iter().filter(|f| f.rule == rule.id).collect();
        let asked = lint_rules(settled, options, &|id| id == rule.id);
        assert_eq!(asked.iter().collect::<Vec<_>>(), only, "{} alone", rule.id);
        let others: Vec<&Finding> = all.iter().filter(|f| f.rule != rule.id).collect();
        let asked = lint_rules(settled, options, &|id| id != rule.id);
        assert_eq!(
            asked.iter().collect::<Vec<_>>(),
            others,
            "all but {}",
            rule.id
        );
    }
    all
}

fn three_zones() -> Cluster {
    Cluster {
        nodes: vec![
            zone_node("a", "z1"),
            zone_node("b", "z2"),
            zone_node("c", "z3"),
        ],
        ..Cluster::default()
    }
}

fn rules_of(cluster: &Cluster, workloads: &[Workload]) -> Vec<&'static str> {
    checked_lint(
        &settled(cluster, workloads, &Options::default()),
        &Options::default(),
    )
    .into_iter()
    .map(|f| f.rule)
    .collect()
}

#[test]
fn every_rule_has_an_explanation_and_a_fix() {
    let mut ids = BTreeSet::new();
    for r in RULES {
        assert!(ids.insert(r.id), "duplicate {}", r.id);
        assert!(r.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'));
        assert!(!r.explanation.is_empty() && !r.fix.is_empty());
    }
}

/// A well-formed zone spread over three zones with room to spare, tainted nodes not counted
/// as domains (nodeTaintsPolicy Honor, so an unreachable zone does not hold replacements
/// back): nothing to say.
#[test]
fn clean_workload_has_no_findings() {
    let mut t = template("web", 100);
    let mut c = spread(app("web"));
    c.node_taints_policy = Some(NodeInclusionPolicy::Honor);
    t.topology_spread_constraints.push(c);
    assert!(rules_of(&three_zones(), &[workload("web", t, 3)]).is_empty());
}

#[test]
fn selector_rules() {
    let mut t = template("web", 100);
    t.topology_spread_constraints.push(spread(app("api")));
    let mut nil = spread(Selector::Nothing);
    nil.topology_key = LABEL_HOSTNAME.into();
    t.topology_spread_constraints.push(nil);
    let mut minimal = spread(app("web"));
    minimal.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
    minimal.min_domains = Some(2);
    t.topology_spread_constraints.push(minimal);
    let found = rules_of(&three_zones(), &[workload("web", t, 3)]);
    assert!(found.contains(&"selector-misses-own-pods"), "{found:?}");
    assert!(found.contains(&"spread-without-selector"), "{found:?}");
    assert!(
        found.contains(&"min-domains-with-schedule-anyway"),
        "{found:?}"
    );

    // `tier=front` selects both web and api.
    let front = |name: &str| {
        let mut t = template(name, 100);
        t.labels.insert("tier".into(), "front".into());
        t.topology_spread_constraints
            .push(spread(Selector::from_set(&labels(&[("tier", "front")]))));
        t
    };
    let found = rules_of(
        &three_zones(),
        &[
            workload("web", front("web"), 1),
            workload("api", front("api"), 1),
        ],
    );
    assert!(found.contains(&"selector-too-generic"), "{found:?}");
}

/// The branches of the selector rules that the test above does not reach: a required
/// anti-affinity term aimed at another app is only a note (a deliberate pattern); a bound pod
/// of no workload that the selector also matches makes it too generic; a Deployment's
/// required anti-affinity to its own pods without matchLabelKeys [pod-template-hash] is
/// flagged at that term's path.
#[test]
fn selector_rule_branches() {
    let term = |app_name: &str| PodAffinityTerm {
        selector: Selector::Requirements(vec![Requirement::equals("app", app_name)]),
        topology_key: LABEL_HOSTNAME.into(),
        namespaces: vec![],
        namespace_selector: None,
        match_label_keys: vec![],
        mismatch_label_keys: vec![],
        parse_error: None,
    };
    let mut t = template("web", 100);
    t.affinity.pod_anti_affinity = Some(PodAffinity {
        required: vec![term("db")],
        preferred: vec![],
    });
    let findings = lint_of(
        &three_zones(),
        &[workload("web", t, 1)],
        &[None],
        &Options::default(),
    );
    let misses = findings
        .iter()
        .find(|f| f.rule == "selector-misses-own-pods")
        .expect("note");
    assert_eq!(misses.severity, Severity::Note);

    let mut cluster = three_zones();
    cluster
        .pods
        .push(pod("stray", &[("app", "web")], Some("a")).into());
    let mut t = template("web", 100);
    t.topology_spread_constraints.push(spread(app("web")));
    let findings = lint_of(
        &cluster,
        &[workload("web", t, 1)],
        &[None],
        &Options::default(),
    );
    let generic = findings
        .iter()
        .find(|f| f.rule == "selector-too-generic")
        .expect("too generic");
    assert!(
        generic
            .message
            .ends_with("also selects 1 other pod(s) or workload(s): Pod/default/stray"),
        "{}",
        generic.message
    );

    let mut t = template("web", 100);
    t.affinity.pod_anti_affinity = Some(PodAffinity {
        required: vec![term("web")],
        preferred: vec![],
    });
    let spec = RolloutSpec {
        strategy: Strategy::RollingUpdate {
            max_surge: IntOrPercent::Percent(25),
            max_unavailable: IntOrPercent::Percent(25),
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let findings = lint_of(
        &three_zones(),
        &[workload("web", t, 2)],
        &[Some(spec)],
        &Options::default(),
    );
    let paths: Vec<&str> = findings
        .iter()
        .filter(|f| f.rule == "missing-pod-template-hash-key")
        .filter_map(|f| f.path.as_deref())
        .collect();
    assert_eq!(
        paths,
        vec![
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys"
        ]
    );
}

#[test]
fn domain_rules() {
    let mut cluster = three_zones();
    // A fourth node without a zone label, and zone z3 only tainted.
    cluster
        .nodes
        .push(node("bare", &[(LABEL_HOSTNAME, "bare")]));
    cluster.nodes[2].taints.push(Taint {
        key: "dedicated".into(),
        value: "gpu".into(),
        effect: TaintEffect::NoSchedule,
    });
    let mut t = template("web", 100);
    let mut c = spread(app("web"));
    c.min_domains = Some(5);
    t.topology_spread_constraints.push(c);
    let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
    assert!(found.contains(&"min-domains-exceeds-domains"), "{found:?}");
    assert!(found.contains(&"topology-key-missing"), "{found:?}");
    assert!(found.contains(&"tainted-nodes-counted"), "{found:?}");
    t.topology_spread_constraints[0].node_taints_policy = Some(NodeInclusionPolicy::Honor);
    let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
    assert!(!found.contains(&"tainted-nodes-counted"), "{found:?}");
}

/// Under the default nodeAffinityPolicy Honor, nodes the pod's nodeSelector excludes are no
/// domains (podtopologyspread/common.go `matchNodeInclusionPolicies`): a tainted zone the
/// pod cannot go to anyway is not counted. nodeTaintsPolicy Honor checks taints only: a
/// cordoned node without the unschedulable taint is still counted.
#[test]
fn tainted_nodes_counted_honors_node_affinity_and_cordons() {
    let mut cluster = three_zones();
    for n in &mut cluster.nodes[..2] {
        n.labels.insert("pool".into(), "web".into());
    }
    cluster.nodes[2].taints.push(Taint {
        key: "dedicated".into(),
        value: "gpu".into(),
        effect: TaintEffect::NoSchedule,
    });
    let mut t = template("web", 100);
    t.topology_spread_constraints.push(spread(app("web")));
    let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
    assert!(found.contains(&"tainted-nodes-counted"), "{found:?}");
    t.node_selector.insert("pool".into(), "web".into());
    let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
    assert!(!found.contains(&"tainted-nodes-counted"), "{found:?}");

    // z2 cordoned without a taint, Honor set: still counted, and the message says why.
    cluster.nodes[1].unschedulable = true;
    t.topology_spread_constraints[0].node_taints_policy = Some(NodeInclusionPolicy::Honor);
    let findings = lint_of(
        &cluster,
        &[workload("web", t, 2)],
        &[None],
        &Options::default(),
    );
    let message = findings
        .iter()
        .find(|f| f.rule == "tainted-nodes-counted")
        .map(|f| f.message.as_str())
        .unwrap_or_default();
    assert!(
        message.starts_with(
            "1 domain(s) of topology.kubernetes.io/zone have only tainted or cordoned nodes and count as empty: z2 (cordoned, no unschedulable taint); nodeTaintsPolicy Honor checks taints only"
        ),
        "{message}"
    );
}

/// Four replicas with required hostname anti-affinity on three nodes: one stays Pending.
///
/// Conflict: zone z1 has nodes a, a2, a3, zone z2 node b; four replicas with hostname
/// anti-affinity and a zone spread of maxSkew 1. Anti-affinity alone fits four (four nodes);
/// the spread alone fits two per zone; together z2 holds at most one (one node), so z1 at
/// most two (skew 1): the fourth replica is rejected by PodTopologySpread on z1's nodes and
/// by InterPodAffinity on b. With a fifth replica on four nodes instead, anti-affinity alone
/// cannot place it: both plugins still reject it, but that is not a conflict.
#[test]
fn anti_affinity_rules() {
    let anti = |t: &mut Pod| {
        t.affinity.pod_anti_affinity = Some(PodAffinity {
            required: vec![PodAffinityTerm {
                selector: Selector::Requirements(vec![Requirement::equals("app", "web")]),
                topology_key: LABEL_HOSTNAME.into(),
                namespaces: vec![],
                namespace_selector: None,
                match_label_keys: vec![],
                mismatch_label_keys: vec![],
                parse_error: None,
            }],
            preferred: vec![],
        });
    };
    let mut t = template("web", 100);
    anti(&mut t);
    let found = rules_of(&three_zones(), &[workload("web", t, 4)]);
    assert!(found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");

    let cluster = Cluster {
        nodes: vec![
            zone_node("a", "z1"),
            zone_node("a2", "z1"),
            zone_node("a3", "z1"),
            zone_node("b", "z2"),
        ],
        ..Cluster::default()
    };
    let mut t = template("web", 100);
    anti(&mut t);
    t.topology_spread_constraints.push(spread(app("web")));
    let found = rules_of(&cluster, &[workload("web", t.clone(), 4)]);
    assert!(
        found.contains(&"spread-and-anti-affinity-conflict"),
        "{found:?}"
    );
    assert!(!found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");

    let found = rules_of(&cluster, &[workload("web", t, 5)]);
    assert!(
        !found.contains(&"spread-and-anti-affinity-conflict"),
        "{found:?}"
    );
    assert!(found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");
}

/// Two 3-cpu replicas on two 4-cpu nodes in zones z1 and z2, one each: losing either zone
/// leaves no room for its replica on the other node (3 + 3 > 4 cpu). PDB minAvailable 2:
/// desiredHealthy 2, so a zone loss leaves 1 healthy (short), and a drain is refused from the
/// first eviction (2 healthy − 2 desired = 0 allowed).
#[test]
fn zone_loss_and_pdb() {
    let cluster = Cluster {
        nodes: vec![zone_node("a", "z1"), zone_node("b", "z2")],
        pdbs: vec![PodDisruptionBudget {
            namespace: "default".into(),
            name: "web".into(),
            selector: app("web"),
            disruptions_allowed: 0,
            disrupted_pods: vec![],
            min_available: Some(IntOrPercent::Int(2)),
            max_unavailable: None,
        }],
        ..Cluster::default()
    };
    let findings = lint_of(
        &cluster,
        &[workload("web", template("web", 3000), 2)],
        &[None],
        &Options::default(),
    );
    let messages: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f.rule, f.message.as_str()))
        .collect();
    assert!(
        messages.contains(&(
            "zone-loss-not-survived",
            "losing zone z1 (1 replica(s), nodes removed) leaves 1 of 2 running after rescheduling; also short when losing zone z2"
        )),
        "{messages:?}"
    );
    assert!(
        messages.contains(&(
            "pdb-violated",
            "a failure of zone z1 leaves 1 healthy, PodDisruptionBudget default/web needs 2"
        )),
        "{messages:?}"
    );
    assert!(
        messages.contains(&(
            "pdb-violated",
            "draining zone z1 blocks after 0 eviction(s): PodDisruptionBudget default/web allows no more"
        )),
        "{messages:?}"
    );
}

/// Three zones of one roomy node each, three replicas with a hard zone spread (maxSkew 1):
/// removing a zone leaves two domains and the replacement fits (skew 2 − 1 = 1); an
/// unreachable zone stays a domain with 0 replicas under nodeTaintsPolicy Ignore, so b or c
/// would reach skew 2 > 1 and the replacement stays Pending. Only the unreachable mode finds
/// the shortfall, in every zone (z1 first).
#[test]
fn unreachable_zone_loss_is_found() {
    let cluster = Cluster {
        nodes: vec![
            zone_node("a", "z1"),
            zone_node("b", "z2"),
            zone_node("c", "z3"),
        ],
        ..Cluster::default()
    };
    let mut t = template("web", 100);
    t.topology_spread_constraints.push(spread(app("web")));
    let findings = lint_of(
        &cluster,
        &[workload("web", t, 3)],
        &[None],
        &Options::default(),
    );
    let zone: Vec<&str> = findings
        .iter()
        .filter(|f| f.rule == "zone-loss-not-survived")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        zone,
        vec![
            "losing zone z1 (1 replica(s), nodes unreachable) leaves 2 of 3 running after rescheduling; also short when losing zone z2, z3"
        ]
    );
}

#[test]
fn gpu_rules() {
    let gpu_node = |name: &str, zone: &str, model: &str| {
        let mut n = zone_node(name, zone);
        n.allocatable.insert(GPU.into(), 1);
        n.labels.insert(GPU_PRODUCT.into(), model.into());
        n
    };
    let cluster = Cluster {
        nodes: vec![gpu_node("g1", "z1", "A100"), gpu_node("g2", "z2", "H100")],
        ..Cluster::default()
    };
    let mut t = template("infer", 100);
    t.containers[0].requests.insert(GPU.into(), 1);
    let mut t_spread = t.clone();
    let mut c = spread(app("infer"));
    c.match_label_keys.clear();
    t_spread.topology_spread_constraints.push(c);
    // The current revision runs on both GPUs.
    let mut old = t_spread.clone();
    old.labels
        .insert(LABEL_POD_TEMPLATE_HASH.into(), "h0".into());
    let mut bound = cluster.clone();
    for (i, n) in ["g1", "g2"].iter().enumerate() {
        let mut p = old.clone();
        p.name = format!("infer-old-{i}");
        p.node_name = Some((*n).into());
        bound.pods.push(p.into());
    }
    let mut w = workload("infer", t_spread, 2);
    w.to_create.clear();
    w.running = vec!["default/infer-old-0".into(), "default/infer-old-1".into()];
    let spec = RolloutSpec {
        strategy: Strategy::RollingUpdate {
            max_surge: IntOrPercent::Percent(25),
            max_unavailable: IntOrPercent::Percent(25),
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let found: Vec<_> = lint_of(&bound, &[w], &[Some(spec)], &Options::default())
        .into_iter()
        .map(|f| f.rule)
        .collect();
    assert!(found.contains(&"mixed-gpu-models"), "{found:?}");
    assert!(found.contains(&"surge-needs-missing-gpu"), "{found:?}");
    assert!(
        found.contains(&"missing-pod-template-hash-key"),
        "{found:?}"
    );
    t.node_selector.insert(GPU_PRODUCT.into(), "A100".into());
    let found = rules_of(&cluster, &[workload("infer", t, 1)]);
    assert!(!found.contains(&"mixed-gpu-models"), "{found:?}");
}

/// A fresh manifest (no replica running yet): the replicas are placed first (one per 1-GPU
/// node), then rolled to a changed template. RollingUpdate 25%/25% of 2 gives surge 1,
/// unavailable 0 (`ResolveFenceposts`): the surge pod needs a third GPU that does not exist,
/// so the rollout stalls on `Insufficient nvidia.com/gpu`. Recreate takes both down (0
/// available) while PDB minAvailable 2 needs 2 healthy.
#[test]
fn rollout_rules_run_on_a_fresh_manifest() {
    let gpu_node = |name: &str, zone: &str| {
        let mut n = zone_node(name, zone);
        n.allocatable.insert(GPU.into(), 1);
        n
    };
    let cluster = Cluster {
        nodes: vec![gpu_node("g1", "z1"), gpu_node("g2", "z2")],
        pdbs: vec![PodDisruptionBudget {
            namespace: "default".into(),
            name: "infer".into(),
            selector: app("infer"),
            disruptions_allowed: 0,
            disrupted_pods: vec![],
            min_available: Some(IntOrPercent::Int(2)),
            max_unavailable: None,
        }],
        ..Cluster::default()
    };
    let mut t = template("infer", 100);
    t.containers[0].requests.insert(GPU.into(), 1);
    let spec = |strategy| RolloutSpec {
        strategy,
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let rolling = spec(Strategy::RollingUpdate {
        max_surge: IntOrPercent::Percent(25),
        max_unavailable: IntOrPercent::Percent(25),
    });
    let w = workload("infer", t, 2);
    let findings = lint_of(
        &cluster,
        core::slice::from_ref(&w),
        &[Some(rolling)],
        &Options::default(),
    );
    let surge = findings
        .iter()
        .find(|f| f.rule == "surge-needs-missing-gpu")
        .expect("surge-needs-missing-gpu");
    assert!(
        surge.message.contains("Insufficient nvidia.com/gpu"),
        "{}",
        surge.message
    );
    let findings = lint_of(
        &cluster,
        &[w],
        &[Some(spec(Strategy::Recreate))],
        &Options::default(),
    );
    let rollout_pdb: Vec<&str> = findings
        .iter()
        .filter(|f| f.rule == "pdb-violated" && f.path.as_deref() == Some("spec.strategy.type"))
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        rollout_pdb,
        vec![
            "the rollout goes down to 0 available; PodDisruptionBudget default/infer needs 2 healthy"
        ]
    );
}
