//! Live revisions (issue 14, item 1): a Deployment whose template equals a live ReplicaSet's
//! scales that ReplicaSet (its new pods carry its `pod-template-hash`, so `matchLabelKeys`
//! counts the running ones); a changed template is a new revision; without ReplicaSets the
//! running revision whose pods show the template's images and labels is assumed, with a warning.

mod common;

use common::*;
use spreadlab_k8s::revision::Revision;
use spreadlab_k8s::{LoadOptions, Source, load};

fn scenario_file(name: &str) -> String {
    let path = format!(
        "{}/../../tests/scenarios/scale-up-live-revision/{name}",
        std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo")
    );
    std::fs::read_to_string(path).unwrap()
}

fn load_all(texts: &[(&str, String)]) -> spreadlab_k8s::Loaded {
    let sources: Vec<Source> = texts
        .iter()
        .map(|(name, text)| Source {
            name: (*name).into(),
            text: text.clone(),
        })
        .collect();
    load(&sources, &LoadOptions::default())
}

#[test]
fn an_unchanged_template_scales_its_live_replica_set() {
    let loaded = load_all(&[
        ("cluster.yaml", scenario_file("cluster.yaml")),
        ("workload.yaml", scenario_file("workload.yaml")),
    ]);
    assert_clean(&loaded);
    assert_eq!(
        loaded.workloads.len(),
        1,
        "the ReplicaSet is placed through its Deployment"
    );
    let api = &loaded.workloads[0];
    assert_eq!(
        api.revision,
        Revision::ReplicaSet {
            name: "api-7c9d5f8b6".into(),
            hash: "7c9d5f8b6".into()
        }
    );
    let created = api.pods_to_create(&loaded.cluster);
    assert_eq!(created.len(), 1);
    let pod = &created[0];
    assert_eq!(pod.name, "api-7c9d5f8b6-0");
    assert_eq!(
        pod.labels.get("pod-template-hash").map(String::as_str),
        Some("7c9d5f8b6")
    );
    assert_eq!(
        pod.owner.as_ref().map(|o| o.name.as_str()),
        Some("api-7c9d5f8b6")
    );
    // matchLabelKeys merged the live hash, so the constraint counts the two running pods.
    let selector = &pod.topology_spread_constraints[0].selector;
    let running = api.running_pods(&loaded.cluster);
    assert_eq!(running.len(), 2);
    assert!(running.iter().all(|p| selector.matches(&p.labels)));
    // One controller for the ReplicaSet: the live one, no stand-in beside it.
    let sets: Vec<&str> = loaded
        .cluster
        .controllers
        .iter()
        .filter(|c| c.namespace == "shop")
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(sets, ["api-7c9d5f8b6"]);
}

#[test]
fn a_changed_template_is_a_new_revision() {
    let workload = scenario_file("workload.yaml").replace("api:2.3", "api:2.4");
    let loaded = load_all(&[
        ("cluster.yaml", scenario_file("cluster.yaml")),
        ("workload.yaml", workload),
    ]);
    assert_clean(&loaded);
    let api = &loaded.workloads[0];
    assert_eq!(
        api.revision,
        Revision::Changed {
            revisions: vec!["api-7c9d5f8b6".into()]
        }
    );
    let hash = api.template.labels.get("pod-template-hash").unwrap();
    assert_ne!(hash, "7c9d5f8b6");
    let selector = &api.template.topology_spread_constraints[0].selector;
    assert!(
        api.running_pods(&loaded.cluster)
            .iter()
            .all(|p| !selector.matches(&p.labels)),
        "the new revision's constraint counts none of the old revision's pods"
    );
    let sets: Vec<String> = loaded
        .cluster
        .controllers
        .iter()
        .filter(|c| c.namespace == "shop")
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(sets, ["api-7c9d5f8b6".to_string(), format!("api-{hash}")]);
}

#[test]
fn the_oldest_equal_replica_set_is_the_new_one() {
    let cluster = scenario_file("cluster.yaml");
    let start = cluster
        .find("  - apiVersion: apps/v1\n    kind: ReplicaSet")
        .unwrap();
    let end = start
        + cluster[start..]
            .find("  - apiVersion: v1\n    kind: Pod")
            .unwrap();
    let older = cluster[start..end]
        .replace("7c9d5f8b6", "55d8b7c9f4")
        .replace("2026-11-30T08:59:58Z", "2026-10-01T08:00:00Z");
    let cluster = format!("{}{older}{}", &cluster[..end], &cluster[end..]);
    let loaded = load_all(&[
        ("cluster.yaml", cluster),
        ("workload.yaml", scenario_file("workload.yaml")),
    ]);
    assert_clean(&loaded);
    assert_eq!(
        loaded.workloads[0].revision,
        Revision::ReplicaSet {
            name: "api-55d8b7c9f4".into(),
            hash: "55d8b7c9f4".into()
        }
    );
}

#[test]
fn without_replica_sets_the_running_pods_revision_is_assumed_with_a_warning() {
    let cluster = scenario_file("cluster.yaml");
    let start = cluster
        .find("  - apiVersion: apps/v1\n    kind: ReplicaSet")
        .unwrap();
    let end = start
        + cluster[start..]
            .find("  - apiVersion: v1\n    kind: Pod")
            .unwrap();
    let without = format!("{}{}", &cluster[..start], &cluster[end..]);
    let loaded = load_all(&[
        ("cluster.yaml", without.clone()),
        ("workload.yaml", scenario_file("workload.yaml")),
    ]);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let api = &loaded.workloads[0];
    assert_eq!(
        api.revision,
        Revision::FromRunningPods {
            hash: "7c9d5f8b6".into()
        }
    );
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    let warning = &loaded.warnings[0];
    assert_eq!(
        (warning.file.as_str(), warning.path.as_deref()),
        ("workload.yaml", Some("spec.template"))
    );
    assert!(
        warning.message.contains("pod-template-hash=7c9d5f8b6"),
        "{}",
        warning.message
    );
    assert_eq!(
        api.pods_to_create(&loaded.cluster)[0]
            .labels
            .get("pod-template-hash")
            .map(String::as_str),
        Some("7c9d5f8b6")
    );
    // Two revisions running and nothing to compare with: a new revision, said so.
    let mixed = without.replacen(
        "name: api-7c9d5f8b6-m8p3w\n      namespace: shop\n      labels: {app: api, pod-template-hash: 7c9d5f8b6}",
        "name: api-6b8f9d7c5-m8p3w\n      namespace: shop\n      labels: {app: api, pod-template-hash: 6b8f9d7c5}",
        1,
    );
    assert_ne!(mixed, without);
    let loaded = load_all(&[
        ("cluster.yaml", mixed),
        ("workload.yaml", scenario_file("workload.yaml")),
    ]);
    assert_eq!(
        loaded.workloads[0].revision,
        Revision::Unknown {
            hashes: vec!["6b8f9d7c5".into(), "7c9d5f8b6".into()]
        }
    );
    assert!(loaded.warnings[0].message.contains("2 running revisions"));
    // Running pods with another image than the template's: a new revision, nothing assumed.
    let workload = scenario_file("workload.yaml").replace("api:2.3", "api:2.4");
    let loaded = load_all(&[("cluster.yaml", without), ("workload.yaml", workload)]);
    assert_clean(&loaded);
    assert_eq!(
        loaded.workloads[0].revision,
        Revision::DiffersFromRunningPods {
            hashes: vec!["7c9d5f8b6".into()]
        }
    );
}

#[test]
fn a_stateful_set_keeps_its_running_pods_revision() {
    let loaded = load_text("db.yaml", STATEFUL_SET);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let db = &loaded.workloads[0];
    assert_eq!(
        db.revision,
        Revision::FromRunningPods {
            hash: "db-5c7b9d8f6".into()
        }
    );
    let created = db.pods_to_create(&loaded.cluster);
    assert_eq!(created[0].name, "db-1");
    assert_eq!(
        created[0]
            .labels
            .get("controller-revision-hash")
            .map(String::as_str),
        Some("db-5c7b9d8f6")
    );
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
}

const STATEFUL_SET: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
  status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: db-0
    namespace: default
    labels: {app: db, controller-revision-hash: db-5c7b9d8f6, statefulset.kubernetes.io/pod-name: db-0}
    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: "7e1d", controller: true}]
  spec:
    nodeName: n1
    containers: [{name: db, image: "postgres:17"}]
  status: {phase: Running}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: default}
  spec:
    replicas: 2
    serviceName: db
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec:
        containers: [{name: db, image: "postgres:17"}]
"#;

const CONTROLLER_REVISION: &str = r#"
- apiVersion: apps/v1
  kind: ControllerRevision
  metadata:
    name: db-5c7b9d8f6
    namespace: default
    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: "7e1d", controller: true}]
  revision: 1
  data:
    spec:
      template:
        $patch: replace
        metadata: {creationTimestamp: null, labels: {app: db}}
        spec:
          containers:
          - {name: db, image: "postgres:17", imagePullPolicy: IfNotPresent, resources: {}, terminationMessagePath: /dev/termination-log, terminationMessagePolicy: File}
          dnsPolicy: ClusterFirst
          restartPolicy: Always
          schedulerName: default-scheduler
          securityContext: {}
          terminationGracePeriodSeconds: 30
"#;

/// `getStatefulSetRevisions`: the ControllerRevision whose template equals the StatefulSet's
/// is its current revision; new replicas carry its name as `controller-revision-hash`.
#[test]
fn a_stateful_set_matches_its_controller_revision() {
    let base = STATEFUL_SET.to_owned() + CONTROLLER_REVISION;
    let loaded = load_text("db.yaml", &base);
    assert_clean(&loaded);
    let db = &loaded.workloads[0];
    assert_eq!(
        db.revision,
        Revision::ControllerRevision {
            name: "db-5c7b9d8f6".into()
        }
    );
    assert_eq!(
        db.pods_to_create(&loaded.cluster)[0]
            .labels
            .get("controller-revision-hash")
            .map(String::as_str),
        Some("db-5c7b9d8f6")
    );
    let changed = base.replacen(
        "containers: [{name: db, image: \"postgres:17\"}]\n",
        "containers: [{name: db, image: \"postgres:18\"}]\n",
        2,
    );
    let loaded = load_text("db.yaml", &changed);
    assert_clean(&loaded);
    assert_eq!(
        loaded.workloads[0].revision,
        Revision::Changed {
            revisions: vec!["db-5c7b9d8f6".into()]
        }
    );
}
