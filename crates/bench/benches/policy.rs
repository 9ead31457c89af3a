//! `cargo bench -p spreadlab-bench --bench policy`: the admission policy's decision run natively
//! (`spreadlab_policy::decide_payload`, default settings) on the cluster the waPC host test uses:
//! 1,000 nodes / 10,000 pods, and 5,000 nodes / 50,000 pods. The wasm module in the real host is
//! timed by `scripts/test-policy.sh`; this is the guest's own work without the host's list calls.

use spreadlab_bench::policy::admission;

fn main() {
    divan::main();
}

/// Default settings (`rejectPending`) on `nodes` nodes and ten times as many pods.
#[divan::bench(args = [1_000, 5_000], sample_count = 5, sample_size = 1)]
fn decide_default_settings(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = admission(nodes, nodes * 10);
    // The host's answers (JSON pruned to the field masks) read as the module reads them.
    let answered = spreadlab_policy::snapshot::AnsweredCluster::new(&cluster);
    bencher.bench_local(|| spreadlab_policy::decide_payload(&payload, &answered));
}

/// Every cluster check (zone-loss survival, min domains, five lint rules) on 1,000 nodes.
#[divan::bench(args = [1_000], sample_count = 5, sample_size = 1)]
fn decide_every_check(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = admission(nodes, nodes * 10);
    let answered = spreadlab_policy::snapshot::AnsweredCluster::new(&cluster);
    let every = spreadlab_bench::policy::every_check(&payload);
    bencher.bench_local(|| spreadlab_policy::decide_payload(&every, &answered));
}

/// The same decision on the cluster loaded once (`spreadlab_policy::Prepared`, what
/// `spreadlab serve` keeps per state of the cluster): only the admitted object is loaded, and
/// its replicas are placed on the shared snapshot and rolled back.
#[divan::bench(args = [1_000, 5_000], sample_count = 50, sample_size = 1)]
fn decide_prepared_default_settings(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = admission(nodes, nodes * 10);
    let prepared = spreadlab_policy::Prepared::new(std::sync::Arc::new(cluster)).expect("readable");
    prepared.warm(spreadlab_engine::KubeVersion::DEFAULT);
    bencher.bench_local(|| spreadlab_policy::decide_payload_prepared(&payload, &prepared));
}

/// [`decide_prepared_default_settings`] with every pod in the admitted Deployment's namespace:
/// its running pods are found through the model's pod index, not by reading 10 pods per node.
#[divan::bench(args = [1_000, 5_000], sample_count = 50, sample_size = 1)]
fn decide_prepared_one_namespace(bencher: divan::Bencher, nodes: usize) {
    let (cluster, payload) = spreadlab_bench::policy::admission_in(nodes, nodes * 10, 1);
    let prepared = spreadlab_policy::Prepared::new(std::sync::Arc::new(cluster)).expect("readable");
    prepared.warm(spreadlab_engine::KubeVersion::DEFAULT);
    bencher.bench_local(|| spreadlab_policy::decide_payload_prepared(&payload, &prepared));
}

/// One watched pod's change applied to the prepared cluster in place (`Prepared::advance`, what
/// `spreadlab serve` does with each watch event): a pod bound, then deleted, in turn.
#[divan::bench(args = [1_000, 5_000], sample_count = 200, sample_size = 1)]
fn advance_one_pod_change(bencher: divan::Bencher, nodes: usize) {
    use spreadlab_policy::prepared::{Change, ChangedKind};
    let (cluster, payload) = admission(nodes, nodes * 10);
    let source = std::sync::Arc::new(cluster);
    let prepared = spreadlab_policy::Prepared::new(source.clone()).expect("readable");
    spreadlab_policy::decide_payload_prepared(&payload, &prepared);
    let pod = std::sync::Arc::new(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "svc-7-new", "namespace": "team-7", "labels": {"app": "svc-7"}},
        "spec": {"nodeName": "node-00042", "containers": [{"name": "main",
            "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]},
        "status": {"phase": "Running"}}));
    let mut bound = false;
    bencher.bench_local(|| {
        let (old, new) = if bound {
            (Some(pod.clone()), None)
        } else {
            (None, Some(pod.clone()))
        };
        let change = Change {
            kind: ChangedKind::Pod,
            old,
            new,
        };
        bound = !bound;
        assert!(prepared.advance(source.clone(), &[change]));
    });
}

/// One watched node's change applied in place: a taint put on a node, then taken off, in turn.
#[divan::bench(args = [1_000, 5_000], sample_count = 200, sample_size = 1)]
fn advance_one_node_change(bencher: divan::Bencher, nodes: usize) {
    use spreadlab_policy::prepared::{Change, ChangedKind};
    use spreadlab_policy::snapshot::ClusterSource;
    let (cluster, payload) = admission(nodes, nodes * 10);
    let node = cluster
        .list(spreadlab_policy::snapshot::NODE)
        .expect("nodes")
        .swap_remove(42);
    let mut tainted = node.clone();
    tainted["spec"]["taints"] = serde_json::json!([{"key": "maintenance", "effect": "NoSchedule"}]);
    let (node, tainted) = (std::sync::Arc::new(node), std::sync::Arc::new(tainted));
    let source = std::sync::Arc::new(cluster);
    let prepared = spreadlab_policy::Prepared::new(source.clone()).expect("readable");
    spreadlab_policy::decide_payload_prepared(&payload, &prepared);
    let mut on = false;
    bencher.bench_local(|| {
        let (old, new) = if on {
            (&tainted, &node)
        } else {
            (&node, &tainted)
        };
        on = !on;
        let change = Change {
            kind: ChangedKind::Node,
            old: Some(old.clone()),
            new: Some(new.clone()),
        };
        assert!(prepared.advance(source.clone(), &[change]));
    });
}

/// A node joining and leaving the watched cluster, in turn, applied in place (a new node goes
/// where a fresh read lists it, by name: every node index after it moves).
#[divan::bench(args = [1_000, 5_000], sample_count = 200, sample_size = 1)]
fn advance_node_added_or_deleted(bencher: divan::Bencher, nodes: usize) {
    node_turns(bencher, nodes, false);
}

/// [`advance_node_added_or_deleted`] followed by a decision: what the first decision after a
/// node joins or leaves pays too (the topology values, node tree and node classes built again).
#[divan::bench(args = [1_000, 5_000], sample_count = 100, sample_size = 1)]
fn decide_after_node_added_or_deleted(bencher: divan::Bencher, nodes: usize) {
    node_turns(bencher, nodes, true);
}

/// Benches a node's joining and leaving in turn ([`joining_node`]), each followed by a decision
/// when `decide`.
fn node_turns(bencher: divan::Bencher, nodes: usize, decide: bool) {
    let (prepared, source, payload, changes) = joining_node(nodes);
    spreadlab_policy::decide_payload_prepared(&payload, &prepared);
    let mut turn = 0;
    bencher.bench_local(|| {
        let change = changes[turn % 2].clone();
        turn += 1;
        assert!(prepared.advance(source.clone(), &[change]));
        decide.then(|| spreadlab_policy::decide_payload_prepared(&payload, &prepared))
    });
}

/// The default-settings admission cluster prepared, and a node's joining and leaving: a copy of
/// node 42 under the name that sorts right after it.
#[allow(clippy::type_complexity)]
fn joining_node(
    nodes: usize,
) -> (
    spreadlab_policy::Prepared,
    std::sync::Arc<spreadlab_policy::FixtureCluster>,
    Vec<u8>,
    [spreadlab_policy::prepared::Change; 2],
) {
    use spreadlab_policy::prepared::{Change, ChangedKind};
    use spreadlab_policy::snapshot::ClusterSource;
    let (cluster, payload) = admission(nodes, nodes * 10);
    let mut node = cluster
        .list(spreadlab_policy::snapshot::NODE)
        .expect("nodes")
        .swap_remove(42);
    let name = format!(
        "{}-joined",
        node["metadata"]["name"].as_str().expect("a name")
    );
    node["metadata"]["name"] = serde_json::json!(name);
    node["metadata"]["labels"]["kubernetes.io/hostname"] = serde_json::json!(name);
    let node = std::sync::Arc::new(node);
    let source = std::sync::Arc::new(cluster);
    let prepared = spreadlab_policy::Prepared::new(source.clone()).expect("readable");
    let joins = Change {
        kind: ChangedKind::Node,
        old: None,
        new: Some(node.clone()),
    };
    let leaves = Change {
        kind: ChangedKind::Node,
        old: Some(node),
        new: None,
    };
    (prepared, source, payload, [joins, leaves])
}
