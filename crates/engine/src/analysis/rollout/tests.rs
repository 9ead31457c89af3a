//! The rollout's unit tests: fenceposts, Deployment and StatefulSet rollouts, alternatives.

use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::framework::testing::{labels, node, pod};
use crate::model::Selector;
use crate::model::{Container, TopologySpreadConstraint};

/// Upstream `TestResolveFenceposts` (pkg/controller/deployment/util/deployment_util_test.go),
/// the cases without parse errors (a nil value resolves as 0 there).
#[test]
fn fenceposts_resolve_as_upstream() {
    let rolling = |surge, unavailable| Strategy::RollingUpdate {
        max_surge: surge,
        max_unavailable: unavailable,
    };
    use IntOrPercent::{Int, Percent};
    assert_eq!(rolling(Percent(0), Percent(0)).resolve(0), (0, 1));
    assert_eq!(rolling(Percent(39), Percent(39)).resolve(10), (4, 3));
    assert_eq!(rolling(Int(0), Percent(39)).resolve(10), (0, 3));
    assert_eq!(rolling(Percent(39), Int(0)).resolve(10), (4, 0));
    assert_eq!(rolling(Int(0), Int(0)).resolve(10), (0, 1));
    // The API defaults (25%/25%) on 3 replicas: surge rounds up, unavailable down.
    assert_eq!(rolling(Percent(25), Percent(25)).resolve(3), (1, 0));
}

/// Three zones, one single-GPU node each, all busy with the old revision (three 1-GPU pods
/// with a hard zone spread). With the default 25%/25% (surge 1, unavailable 0) the surge pod
/// cannot be scheduled (Insufficient nvidia.com/gpu) and no old pod may go: the rollout
/// stalls at once, with every old replica still available. maxSurge 0 / maxUnavailable 1
/// replaces one pod at a time (each GPU is freed after the 30 s grace period) and completes
/// with 2 available at worst; Recreate completes with 0 available at worst; one more GPU
/// node in a zone lets the surge pod run first and completes with all 3 available.
#[test]
fn gpu_bound_rollout_stalls_and_alternatives_complete() {
    let gpu = |name: &str, zone: &str| {
        let mut n = node(
            name,
            &[
                ("topology.kubernetes.io/zone", zone),
                ("kubernetes.io/hostname", name),
            ],
        );
        n.allocatable.insert("nvidia.com/gpu".into(), 1);
        n
    };
    let spec_pod = |name: &str, hash: &str, on: Option<&str>| {
        let mut p = pod(
            name,
            &[("app", "infer"), (LABEL_POD_TEMPLATE_HASH, hash)],
            on,
        );
        let mut c = Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert("nvidia.com/gpu".into(), 1);
        c.requests.insert("cpu".into(), 500);
        p.containers.push(c);
        p.topology_spread_constraints
            .push(TopologySpreadConstraint {
                max_skew: 1,
                topology_key: "topology.kubernetes.io/zone".into(),
                when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
                selector: Selector::from_set(&labels(&[("app", "infer")])),
                min_domains: None,
                node_affinity_policy: None,
                node_taints_policy: None,
                match_label_keys: vec![],
            });
        p
    };
    let cluster = Cluster {
        nodes: vec![gpu("gpu-a", "a"), gpu("gpu-b", "b"), gpu("gpu-c", "c")],
        pods: vec![
            spec_pod("infer-old-0", "old", Some("gpu-a")).into(),
            spec_pod("infer-old-1", "old", Some("gpu-b")).into(),
            spec_pod("infer-old-2", "old", Some("gpu-c")).into(),
        ],
        ..Cluster::default()
    };
    let workload = Workload {
        key: "Deployment/default/infer".into(),
        desired: 3,
        running: vec![
            "default/infer-old-0".into(),
            "default/infer-old-1".into(),
            "default/infer-old-2".into(),
        ],
        to_create: vec![],
        template: spec_pod("", "new", None),
        ..Workload::default()
    };
    let spec = RolloutSpec {
        strategy: Strategy::RollingUpdate {
            max_surge: IntOrPercent::Percent(25),
            max_unavailable: IntOrPercent::Percent(25),
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let report = rollout_of(
        &cluster,
        &workload,
        &spec,
        &Assumptions::default(),
        &Options::default(),
    );
    let outcome = &report.outcome;
    assert!(!outcome.completed);
    assert_eq!(outcome.stalled_at_step, Some(0));
    assert_eq!(outcome.min_available, 3);
    assert!(
        outcome
            .reason
            .as_deref()
            .unwrap()
            .starts_with("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")
    );
    assert_eq!(outcome.steps[0].new.replicas, 1);
    assert_eq!(outcome.steps[0].new.pending, 1);
    assert_eq!(outcome.progress_deadline_exceeded_at, Some(600));
    let by_change = |prefix: &str| {
        report
            .alternatives
            .iter()
            .find(|a| a.change.starts_with(prefix))
            .unwrap_or_else(|| panic!("no alternative {prefix}"))
    };
    let one_by_one = &by_change("strategy RollingUpdate with maxSurge 0").outcome;
    assert!(one_by_one.completed);
    assert_eq!(one_by_one.min_available, 2);
    let last = one_by_one.steps.last().unwrap();
    assert_eq!(last.new.running, 3);
    assert_eq!(
        last.new.zones.values().copied().collect::<Vec<_>>(),
        vec![1, 1, 1]
    );
    assert!(one_by_one.spread.iter().all(|s| s.satisfied));
    let recreate = &by_change("strategy Recreate").outcome;
    assert!(recreate.completed);
    assert_eq!(recreate.min_available, 0);
    // One surge pod needs one GPU: no extra GPU stalls (above), one completes.
    let more = &by_change("temporary capacity of 1 GPU(s) in zone a (1 node(s) like").outcome;
    assert!(more.completed, "{more:?}");
    assert_eq!(more.min_available, 3);
    // Without matchLabelKeys the old pods count toward the new revision's spread; the
    // comparison run adds `pod-template-hash` to the hard constraint.
    let (with, _) = report.match_label_keys.as_ref().unwrap();
    assert!(*with);
}

/// A StatefulSet of three 1-GPU pods on three single-GPU nodes, partition 1: ordinals 2 then
/// 1 are replaced one at a time (each GPU freed after the 30 s grace period, the pod
/// recreated under its name on it), ordinal 0 stays: completes with 2 available at worst.
/// A new revision asking for 2 GPUs cannot be placed: stalled at its first replacement.
#[test]
fn stateful_set_updates_one_ordinal_at_a_time_down_to_the_partition() {
    let gpu = |name: &str| {
        let mut n = node(name, &[("kubernetes.io/hostname", name)]);
        n.allocatable.insert("nvidia.com/gpu".into(), 1);
        n
    };
    let member = |name: &str, on: Option<&str>, gpus: i64| {
        let mut p = pod(name, &[("app", "db")], on);
        let mut c = Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert("nvidia.com/gpu".into(), gpus);
        p.containers.push(c);
        p
    };
    let cluster = Cluster {
        nodes: vec![gpu("n0"), gpu("n1"), gpu("n2")],
        pods: vec![
            member("db-0", Some("n0"), 1).into(),
            member("db-1", Some("n1"), 1).into(),
            member("db-2", Some("n2"), 1).into(),
        ],
        ..Cluster::default()
    };
    let workload = |gpus| Workload {
        key: "StatefulSet/default/db".into(),
        desired: 3,
        running: vec![
            "default/db-0".into(),
            "default/db-1".into(),
            "default/db-2".into(),
        ],
        to_create: vec![],
        template: member("", None, gpus),
        ..Workload::default()
    };
    let spec = RolloutSpec {
        strategy: Strategy::OrderedRollingUpdate {
            partition: 1,
            max_unavailable: IntOrPercent::Int(1),
            parallel: false,
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let report = rollout_of(
        &cluster,
        &workload(1),
        &spec,
        &Assumptions::default(),
        &Options::default(),
    );
    let outcome = &report.outcome;
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(outcome.min_available, 2);
    let deleted: Vec<&str> = outcome
        .steps
        .iter()
        .flat_map(|s| &s.actions)
        .filter_map(|a| a.strip_prefix("delete "))
        .collect();
    assert_eq!(deleted, vec!["db-2", "db-1"]);
    let last = outcome.steps.last().unwrap();
    assert_eq!((last.new.available, last.old.running), (2, 1));
    assert!(report.match_label_keys.is_none());

    let report = rollout_of(
        &cluster,
        &workload(2),
        &spec,
        &Assumptions::default(),
        &Options::default(),
    );
    assert!(!report.outcome.completed);
    assert!(
        report
            .outcome
            .reason
            .as_deref()
            .unwrap()
            .starts_with("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")
    );
    assert_eq!(report.outcome.min_available, 2);
}

/// The search for the smallest temporary capacity, with a rollout that completes once the
/// zone has at least 5 extra one-GPU nodes (a stand-in for the simulation): doubling tries
/// 1, 2, 4, 8, bisecting 6 then 5; the answer is 5 GPUs, and with at most 4 nodes allowed
/// the 4-node run is reported as not enough.
#[test]
fn temporary_gpu_capacity_is_the_smallest_that_completes() {
    let mut gpu = node("g", &[("topology.kubernetes.io/zone", "a")]);
    gpu.allocatable.insert(GPU.into(), 1);
    let cluster = Cluster {
        nodes: vec![gpu],
        ..Cluster::default()
    };
    let tried = core::cell::RefCell::new(Vec::new());
    let run = |bigger: &Cluster| {
        let extra = bigger.nodes.len() - 1;
        tried.borrow_mut().push(extra);
        RolloutOutcome {
            strategy: Strategy::Recreate,
            resolved: (0, 0),
            completed: extra >= 5,
            stalled_at_step: None,
            reason: None,
            min_available: extra,
            progress_deadline_exceeded_at: None,
            steps: Vec::new(),
            spread: Vec::new(),
        }
    };
    let found = temporary_gpus(&cluster, "a", 10, run).unwrap();
    assert_eq!(
        found.change,
        "temporary capacity of 5 GPU(s) in zone a (5 node(s) like g)"
    );
    assert_eq!(found.outcome.min_available, 5);
    assert_eq!(*tried.borrow(), vec![1, 2, 4, 8, 6, 5]);
    let short = temporary_gpus(&cluster, "a", 4, run).unwrap();
    assert_eq!(
        short.change,
        "temporary capacity of 4 GPU(s) in zone a (4 node(s) like g) does not let it complete"
    );
    assert!(!short.outcome.completed);
}

/// Recreate over two old ReplicaSets (hashes h0 and h1, one pod each) on one roomy node,
/// minReadySeconds 5, grace 30 s, Ready 10 s after scheduling. Hand-derived from
/// `recreate.go`: both old ReplicaSets are scaled to 0 at once, the new pods are created only
/// once no old pod is left (`oldPodsRunning`: terminating pods still count), so at t = 30;
/// scheduled at once, Ready at 40, available at 45. Nothing is available in between.
#[test]
fn recreate_waits_for_old_pods_of_every_replica_set() {
    let mut template = pod("", &[("app", "web"), (LABEL_POD_TEMPLATE_HASH, "h2")], None);
    let mut container = Container {
        name: "c".into(),
        ..Default::default()
    };
    container.requests.insert("cpu".into(), 1000);
    template.containers.push(container);
    let mut cluster = Cluster {
        nodes: vec![node("n1", &[])],
        ..Cluster::default()
    };
    for (name, hash) in [("web-h0-0", "h0"), ("web-h1-0", "h1")] {
        let mut old = template.clone();
        old.name = name.into();
        old.labels
            .insert(LABEL_POD_TEMPLATE_HASH.into(), hash.into());
        old.node_name = Some("n1".into());
        cluster.pods.push(old.into());
    }
    let workload = Workload {
        key: "Deployment/default/web".into(),
        desired: 2,
        running: vec!["default/web-h0-0".into(), "default/web-h1-0".into()],
        to_create: Vec::new(),
        template: template.clone(),
        ..Workload::default()
    };
    let spec = RolloutSpec {
        strategy: Strategy::Recreate,
        min_ready_seconds: 5,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let outcome = simulate_rollout(
        &cluster,
        &workload,
        &template,
        &spec,
        &Assumptions::default(),
        &Options::default(),
    );
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(outcome.min_available, 0);
    // After the first instant both old ReplicaSets are at 0, their pods terminating.
    assert_eq!(
        (
            outcome.steps[0].old.replicas,
            outcome.steps[0].old.terminating
        ),
        (0, 2)
    );
    let created_at = outcome
        .steps
        .iter()
        .find(|s| s.actions.iter().any(|a| a.starts_with("create ")))
        .map(|s| s.time);
    assert_eq!(created_at, Some(30));
    let last = outcome.steps.last().unwrap();
    assert_eq!((last.time, last.new.available, last.available), (45, 2, 2));
}

/// Two old ReplicaSets of one pod each, the one listed first (h1) started later than h0.
/// RollingUpdate maxSurge 0, maxUnavailable 1 on 2 replicas: the first scale-down takes the
/// oldest ReplicaSet (rolling.go sorts by creation timestamp), so h0's pod is deleted first.
#[test]
fn old_replica_sets_are_scaled_down_oldest_first() {
    let mut template = pod("", &[("app", "web"), (LABEL_POD_TEMPLATE_HASH, "h2")], None);
    template.containers.push(Container {
        name: "c".into(),
        ..Default::default()
    });
    let mut cluster = Cluster {
        nodes: vec![node("n1", &[])],
        ..Cluster::default()
    };
    for (name, hash, start) in [("web-h1-0", "h1", 200), ("web-h0-0", "h0", 100)] {
        let mut old = template.clone();
        old.name = name.into();
        old.labels
            .insert(LABEL_POD_TEMPLATE_HASH.into(), hash.into());
        old.node_name = Some("n1".into());
        old.start_time = Some(start);
        cluster.pods.push(old.into());
    }
    let workload = Workload {
        key: "Deployment/default/web".into(),
        desired: 2,
        running: vec!["default/web-h1-0".into(), "default/web-h0-0".into()],
        to_create: Vec::new(),
        template: template.clone(),
        ..Workload::default()
    };
    let spec = RolloutSpec {
        strategy: Strategy::RollingUpdate {
            max_surge: IntOrPercent::Int(0),
            max_unavailable: IntOrPercent::Int(1),
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let outcome = simulate_rollout(
        &cluster,
        &workload,
        &template,
        &spec,
        &Assumptions::default(),
        &Options::default(),
    );
    assert!(outcome.completed, "{outcome:?}");
    let first_delete = outcome
        .steps
        .iter()
        .flat_map(|s| &s.actions)
        .find(|a| a.starts_with("delete "));
    assert_eq!(first_delete.map(String::as_str), Some("delete web-h0-0"));
}

/// `replicas` StatefulSet pods `db-0..` of one GPU each on as many single-GPU nodes, updated
/// with `max_unavailable` under OrderedReady or Parallel, partition 0, grace 30 s, Ready
/// 10 s after scheduling, minReadySeconds 0: each step's deletions and the outcome.
fn stateful_set_batches(
    replicas: usize,
    max_unavailable: IntOrPercent,
    parallel: bool,
) -> (Vec<Vec<String>>, Vec<String>, RolloutOutcome) {
    let gpu_node = |i: usize| {
        let name = format!("n{i}");
        let mut n = node(&name, &[("kubernetes.io/hostname", &name)]);
        n.allocatable.insert("nvidia.com/gpu".into(), 1);
        n
    };
    let member = |name: &str, on: Option<&str>| {
        let mut p = pod(name, &[("app", "db")], on);
        let mut c = Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert("nvidia.com/gpu".into(), 1);
        p.containers.push(c);
        p
    };
    let cluster = Cluster {
        nodes: (0..replicas).map(gpu_node).collect(),
        pods: (0..replicas)
            .map(|i| member(&format!("db-{i}"), Some(&format!("n{i}"))).into())
            .collect(),
        ..Cluster::default()
    };
    let workload = Workload {
        key: "StatefulSet/default/db".into(),
        desired: replicas,
        running: (0..replicas).map(|i| format!("default/db-{i}")).collect(),
        to_create: vec![],
        template: member("", None),
        ..Workload::default()
    };
    let spec = RolloutSpec {
        strategy: Strategy::OrderedRollingUpdate {
            partition: 0,
            max_unavailable,
            parallel,
        },
        min_ready_seconds: 0,
        progress_deadline_seconds: 600,
        termination_grace_seconds: 30,
    };
    let outcome = rollout_of(
        &cluster,
        &workload,
        &spec,
        &Assumptions::default(),
        &Options::default(),
    )
    .outcome;
    let deletions = outcome
        .steps
        .iter()
        .map(|s| {
            s.actions
                .iter()
                .filter_map(|a| a.strip_prefix("delete "))
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .filter(|d| !d.is_empty())
        .collect();
    let created = outcome
        .steps
        .iter()
        .flat_map(|s| &s.actions)
        .filter_map(|a| {
            a.split_once(" is gone; create ")
                .map(|(n, _)| String::from(n))
        })
        .collect();
    (deletions, created, outcome)
}

fn names(list: &[&[&str]]) -> Vec<Vec<String>> {
    list.iter()
        .map(|l| l.iter().map(|s| String::from(*s)).collect())
        .collect()
}

/// Expected values hand-derived from upstream `updateStatefulSetAfterInvariantEstablished`
/// (pkg/controller/statefulset/stateful_set_control.go): with all 4 pods available,
/// maxUnavailable 2 deletes ordinals 3 and 2 together (highest first); under OrderedReady
/// `processReplica` (monotonic) recreates 2, waits for it to be Running, Ready and
/// available, then 3; only with 0 unavailable are 1 and 0 deleted, and recreated 0 then 1.
/// Timeline: delete at 0, gone at 30, db-2 Ready at 40, db-3 at 50, delete at 50, gone at
/// 80, db-0 Ready at 90, db-1 at 100. Two unavailable at worst.
#[test]
fn stateful_set_max_unavailable_deletes_ordinals_in_batches() {
    let (deletions, created, outcome) = stateful_set_batches(4, IntOrPercent::Int(2), false);
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(deletions, names(&[&["db-3", "db-2"], &["db-1", "db-0"]]));
    assert_eq!(created, ["db-2", "db-3", "db-0", "db-1"]);
    assert_eq!(outcome.resolved, (0, 2));
    assert_eq!(outcome.min_available, 2);
    assert_eq!(outcome.steps.last().unwrap().time, 100);
    assert_eq!(outcome.steps.last().unwrap().new.available, 4);
}

/// Parallel (`allowsBurst`, runForAll without monotonic waits) recreates the deleted batch at
/// once: delete 3, 2 at 0, both recreated at 30 and Ready at 40, delete 1, 0 at 40,
/// recreated at 70, Ready at 80 (hand-derived from the same upstream controller).
#[test]
fn stateful_set_parallel_recreates_a_batch_together() {
    let (deletions, created, outcome) = stateful_set_batches(4, IntOrPercent::Int(2), true);
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(deletions, names(&[&["db-3", "db-2"], &["db-1", "db-0"]]));
    assert_eq!(created, ["db-2", "db-3", "db-0", "db-1"]);
    assert_eq!(outcome.min_available, 2);
    assert_eq!(outcome.steps.last().unwrap().time, 80);
}

/// `getStatefulSetMaxUnavailable`: a percent of spec.replicas rounded down
/// (GetScaledValueFromIntOrPercent(..., false)), at least 1. 50% of 5 is 2 (2.5 down):
/// batches 4,3 then 2,1 then 0. 10% of 4 is 0, raised to 1: one at a time.
#[test]
fn stateful_set_max_unavailable_percent_rounds_down_to_at_least_one() {
    let (deletions, _, outcome) = stateful_set_batches(5, IntOrPercent::Percent(50), false);
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(
        deletions,
        names(&[&["db-4", "db-3"], &["db-2", "db-1"], &["db-0"]])
    );
    assert_eq!(outcome.resolved, (0, 2));
    assert_eq!(
        stateful_set_max_unavailable(IntOrPercent::Percent(10), 4),
        1
    );
    assert_eq!(
        stateful_set_max_unavailable(IntOrPercent::Percent(100), 4),
        4
    );
    assert_eq!(stateful_set_max_unavailable(IntOrPercent::Int(7), 4), 7);
}

/// The default maxUnavailable 1 keeps one pod at a time: 4 deletions of one pod, each
/// 30 s grace + 10 s to Ready, 160 s in all, 3 available at worst.
#[test]
fn stateful_set_default_max_unavailable_is_one_at_a_time() {
    let (deletions, created, outcome) = stateful_set_batches(4, IntOrPercent::Int(1), false);
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(
        deletions,
        names(&[&["db-3"], &["db-2"], &["db-1"], &["db-0"]])
    );
    assert_eq!(created, ["db-3", "db-2", "db-1", "db-0"]);
    assert_eq!(outcome.resolved, (0, 1));
    assert_eq!(outcome.min_available, 3);
    assert_eq!(outcome.steps.last().unwrap().time, 160);
}
