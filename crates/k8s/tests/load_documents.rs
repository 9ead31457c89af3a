//! Loading documents: multi-document YAML, Lists, JSON, Helm output, unknown kinds.

mod common;

use common::*;
use spreadlab_engine::model::{ControllerKind, IntOrPercent, Selector, TaintEffect};
use spreadlab_k8s::WorkloadKind;

#[test]
fn multi_document_file_with_lists() {
    let text = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {topology.kubernetes.io/zone: a}
  spec:
    taints: [{key: dedicated, value: db, effect: NoSchedule}]
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: p1, namespace: prod, labels: {app: web}}
  spec: {nodeName: n1, containers: [{name: c, image: nginx}]}
  status: {phase: Running}
---
apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {team: a}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: prod}
spec: {selector: {app: web}}
---
apiVersion: v1
kind: Service
metadata: {name: external}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: prod}
spec: {selector: {matchLabels: {app: web}}, minAvailable: 1}
status: {disruptionsAllowed: 2, currentHealthy: 3, desiredHealthy: 1, expectedPods: 3}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: c}]}
"#;
    let loaded = load_text("cluster.yaml", text);
    assert_clean(&loaded);
    let cluster = &loaded.cluster;
    assert_eq!(
        cluster
            .nodes
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>(),
        vec!["n1", "n2"]
    );
    assert_eq!(cluster.nodes[0].allocatable["cpu"], 4000);
    assert_eq!(cluster.nodes[0].allocatable["memory"], 8 << 30);
    assert_eq!(cluster.nodes[0].taints[0].effect, TaintEffect::NoSchedule);
    // A PodList item without kind is a Pod; bound pods get the API server's defaulting and
    // admission as unbound ones do (DefaultTolerationSeconds: not-ready and unreachable, 300 s),
    // which a real snapshot already shows.
    assert_eq!(cluster.pods.len(), 1);
    assert_eq!(cluster.pods[0].key(), "prod/p1");
    let tolerated: Vec<&str> = cluster.pods[0]
        .tolerations
        .iter()
        .map(|t| t.key.as_str())
        .collect();
    assert_eq!(
        tolerated,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    // The API server labels every namespace with its name.
    assert_eq!(
        cluster.namespaces[0].labels,
        labels(&[("kubernetes.io/metadata.name", "prod"), ("team", "a")])
    );
    assert_eq!(
        cluster.services[0].selector,
        Some(labels(&[("app", "web")]))
    );
    assert_eq!(cluster.services[1].selector, None);
    assert_eq!(cluster.services[1].namespace, "default");
    assert_eq!(cluster.pdbs[0].disruptions_allowed, 2);
    assert_eq!(cluster.pdbs[0].min_available, Some(IntOrPercent::Int(1)));
    assert_eq!(cluster.pdbs[0].max_unavailable, None);
    assert_eq!(
        cluster.pdbs[0].selector,
        Selector::from_set(&labels(&[("app", "web")]))
    );
    // A ReplicationController without a selector selects its template's labels.
    assert_eq!(
        cluster.controllers[0].kind,
        ControllerKind::ReplicationController
    );
    assert_eq!(
        cluster.controllers[0].selector,
        Selector::from_set(&labels(&[("app", "legacy")]))
    );
    // And it is a workload: replicas default to 1, its pods are named and owned as the
    // ReplicationController creates them.
    assert_eq!(loaded.workloads.len(), 1);
    let legacy = &loaded.workloads[0];
    assert_eq!(
        (legacy.kind, legacy.replicas, legacy.key().as_str()),
        (
            WorkloadKind::ReplicationController,
            1,
            "ReplicationController/default/legacy"
        )
    );
    let pods = legacy.pods_to_create(cluster);
    assert_eq!(pods[0].name, "legacy-0");
    assert_eq!(
        pods[0]
            .owner
            .as_ref()
            .map(|o| (o.kind.as_str(), o.name.as_str())),
        Some(("ReplicationController", "legacy"))
    );
}

#[test]
fn unknown_kinds_are_skipped_with_a_warning() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
    let loaded = load_text("mixed.yaml", text);
    assert!(loaded.errors.is_empty());
    assert_eq!(loaded.warnings.len(), 1);
    let warning = &loaded.warnings[0];
    assert_eq!(warning.file, "mixed.yaml");
    assert_eq!(warning.document, Some(0));
    assert_eq!(warning.object.as_deref(), Some("ConfigMap/default/cfg"));
    assert!(warning.message.contains("ConfigMap"), "{}", warning.message);
    assert_eq!(loaded.cluster.nodes.len(), 1);
}

#[test]
fn json_input() {
    let text = r#"{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi"}}}
  ]
}
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"}, "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 1}}}]}}
"#;
    let loaded = load_text("-", text);
    assert_clean(&loaded);
    assert_eq!(loaded.cluster.nodes[0].allocatable["cpu"], 2000);
    let pod = &loaded.workloads[0];
    assert_eq!(
        (pod.kind, pod.key(), pod.replicas),
        (WorkloadKind::Pod, "Pod/default/solo".to_string(), 1)
    );
    assert_eq!(pod.origin.document, 1);
    assert_eq!(pod.template.containers[0].requests["cpu"], 1000);
    assert_eq!(pod.pods_to_create(&loaded.cluster)[0].name, "solo");
    // A top-level JSON array is a sequence of objects.
    let array = load_text(
        "nodes.json",
        r#"[{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Node", "metadata": {"name": "b"}}]"#,
    );
    assert_clean(&array);
    assert_eq!(array.cluster.nodes.len(), 2);
    let broken = load_text("broken.json", "{\"kind\": \"Node\",\n \"metadata\": }");
    assert_eq!(
        (broken.errors[0].line, broken.errors[0].column),
        (Some(2), Some(14))
    );
}

#[test]
fn helm_comment_only_documents_are_skipped() {
    let text = r#"---
# Source: web/templates/serviceaccount.yaml
# (disabled in values)
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-web
  labels: {helm.sh/chart: web-0.1.0}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/name: web}}
  template:
    metadata: {labels: {app.kubernetes.io/name: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
---

"#;
    let loaded = load_text("rendered.yaml", text);
    assert_clean(&loaded);
    assert_eq!(loaded.workloads.len(), 1);
    assert_eq!(loaded.workloads[0].origin.document, 1);
    assert_eq!(loaded.workloads[0].replicas, 2);
}

/// One identity per object (kind, namespace, name), as the API server keeps one: the same file
/// given twice does not double the nodes, a snapshot's Deployment followed by the user's edited
/// copy is one Deployment (the edit), each replaced object is named in a warning, and the same
/// object twice in one file is an error on the second.
#[test]
fn later_sources_replace_objects_and_duplicates_in_one_source_are_errors() {
    use spreadlab_k8s::{LoadOptions, Source};
    let nodes = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\", pods: \"110\"}}\n";
    let deployment = |replicas: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {replicas}\n  \
             selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    \
             spec: {{containers: [{{name: c, image: x}}]}}\n"
        )
    };
    let source = |name: &str, text: String| Source {
        name: name.into(),
        text,
    };
    let snapshot = format!(
        "apiVersion: v1\nkind: List\nitems:\n- {}\n",
        deployment(1).replace('\n', "\n  ").trim_end()
    );
    let loaded = spreadlab_k8s::load(
        &[
            source("nodes.yaml", nodes.into()),
            source("nodes.yaml", nodes.into()),
            source("snapshot.yaml", snapshot),
            source("edit.yaml", deployment(3)),
        ],
        &LoadOptions::default(),
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.cluster.nodes.len(), 1);
    assert_eq!(loaded.workloads.len(), 1);
    assert_eq!(loaded.workloads[0].replicas, 3);
    let warnings: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert!(
        warnings.iter().any(|w| w
            == "nodes.yaml:1: document 0 (Node n1): replaced by the same object read later from nodes.yaml (document 0)"),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w
            == "snapshot.yaml:4:1: document 0 (Deployment default/web): items[0]: replaced by the same object read later from edit.yaml (document 0)"),
        "{warnings:?}"
    );

    let twice = format!("{}---\n{}", deployment(1), deployment(2));
    let loaded = spreadlab_k8s::load(&[source("twice.yaml", twice)], &LoadOptions::default());
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    assert_eq!(loaded.errors[0].document, Some(1));
    assert!(
        loaded.errors[0]
            .message
            .starts_with("the same object is already in this file (document 0)")
    );
}

/// Issue 14, item 4: a bound pod with only `limits` holds them as requests, as the API server's
/// defaulting stores it (`SetDefaults_Pod`), so its GPU is not handed to another pod.
#[test]
fn bound_pods_get_the_api_server_defaulting() {
    let text = "apiVersion: v1
kind: Pod
metadata: {name: gpu-user}
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: \"1\", cpu: \"2\"}}}]
";
    let loaded = load_text("bound.yaml", text);
    assert_clean(&loaded);
    let requests = &loaded.cluster.pods[0].containers[0].requests;
    assert_eq!(requests.get("nvidia.com/gpu"), Some(&1));
    assert_eq!(requests.get("cpu"), Some(&2000));
}

/// Issue 14, item 5: a UTF-8 byte order mark before JSON is not content (before YAML it never
/// was); a Node with only `generateName` gets a name, as the API server would give it; a
/// removed API version says when it was removed and what to use; a cluster-scoped kind that
/// spreadlab skips is not named with a namespace.
#[test]
fn byte_order_marks_generated_names_removed_apis_and_cluster_scope() {
    let bom = load_text(
        "bom.json",
        "\u{feff}{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}}",
    );
    assert_clean(&bom);
    assert_eq!(bom.cluster.nodes[0].name, "n1");

    let generated = load_text(
        "gen.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {generateName: node-}\n",
    );
    assert_clean(&generated);
    let name = &generated.cluster.nodes[0].name;
    assert!(
        name.starts_with("node-") && name.len() > "node-".len(),
        "{name}"
    );

    let removed = load_text(
        "pdb.yaml",
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {minAvailable: 1}\n",
    );
    assert_eq!(removed.errors[0].path.as_deref(), Some("apiVersion"));
    assert!(
        removed.errors[0]
            .message
            .starts_with("policy/v1beta1 PodDisruptionBudget was removed in Kubernetes 1.25; use apiVersion policy/v1"),
        "{}",
        removed.errors[0]
    );

    let skipped = load_text(
        "ic.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n",
    );
    assert_eq!(
        skipped.warnings[0].object.as_deref(),
        Some("IngressClass/nginx")
    );
}
