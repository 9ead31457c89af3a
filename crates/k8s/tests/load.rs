//! End-to-end loading: text in, cluster and workloads out, as the CLI and test runners use it.
//! Expected values follow Kubernetes' documented behaviour (API-server defaulting, admission,
//! controllers), not this crate's output.

use spreadlab_engine::model::{
    ControllerKind, IntOrPercent, Operator, PreemptionPolicy, Requirement, Selector, TaintEffect,
    TolerationOperator,
};
use spreadlab_k8s::{LoadOptions, Loaded, Source, WorkloadKind, load, load_values};

fn load_text(name: &str, text: &str) -> Loaded {
    load(
        &[Source {
            name: name.into(),
            text: text.into(),
        }],
        &LoadOptions::default(),
    )
}

fn labels(pairs: &[(&str, &str)]) -> spreadlab_engine::model::Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn assert_clean(loaded: &Loaded) {
    assert!(loaded.errors.is_empty(), "errors: {:#?}", loaded.errors);
    assert!(
        loaded.warnings.is_empty(),
        "warnings: {:#?}",
        loaded.warnings
    );
}

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
    // A PodList item without kind is a Pod; bound pods are not mutated (no default tolerations).
    assert_eq!(cluster.pods.len(), 1);
    assert_eq!(cluster.pods[0].key(), "prod/p1");
    assert!(cluster.pods[0].tolerations.is_empty());
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
    assert!(loaded.workloads.is_empty());
}

const LIMITS_ONLY_DEPLOYMENT: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        resources:
          limits: {cpu: 500m, memory: 256Mi, example.com/dongle: "1"}
          requests: {memory: 128Mi}
      initContainers:
      - name: setup
        resources: {limits: {cpu: "1"}}
"#;

#[test]
fn deployment_with_limits_only_gets_requests() {
    let loaded = load_text("deploy.yaml", LIMITS_ONLY_DEPLOYMENT);
    assert_clean(&loaded);
    let deployment = &loaded.workloads[0];
    assert_eq!(
        (deployment.kind, deployment.replicas),
        (WorkloadKind::Deployment, 3)
    );
    assert_eq!(deployment.key(), "Deployment/shop/web");
    let container = &deployment.template.containers[0];
    // SetDefaults_Pod: a missing request takes the limit; an explicit request is kept.
    assert_eq!(container.requests["cpu"], 500);
    assert_eq!(container.requests["memory"], 128 << 20);
    assert_eq!(container.requests["example.com/dongle"], 1);
    assert_eq!(deployment.template.init_containers[0].requests["cpu"], 1000);
    // DefaultTolerationSeconds.
    let tolerations: Vec<&str> = deployment
        .template
        .tolerations
        .iter()
        .map(|t| t.key.as_str())
        .collect();
    assert_eq!(
        tolerations,
        vec![
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    assert!(
        deployment
            .template
            .tolerations
            .iter()
            .all(|t| t.operator == TolerationOperator::Exists)
    );
    // The Deployment controller's ReplicaSet: pod-template-hash on pods and selector.
    let hash = deployment.template.labels["pod-template-hash"].clone();
    assert_eq!(hash.len(), 10);
    assert!(deployment.selector.matches(&deployment.template.labels));
    assert!(!deployment.selector.matches(&labels(&[("app", "web")])));
    let replica_set = &loaded.cluster.controllers[0];
    assert_eq!(
        (replica_set.kind, replica_set.name.clone()),
        (ControllerKind::ReplicaSet, format!("web-{hash}"))
    );
    let pods = deployment.pods_to_create(&loaded.cluster);
    assert_eq!(pods.len(), 3);
    assert_eq!(pods[0].name, format!("web-{hash}-0"));
    assert_eq!(pods[2].namespace, "shop");
    assert_eq!(pods[0].owner.as_ref().unwrap().name, format!("web-{hash}"));
    assert_eq!(pods[0].containers[0].requests["cpu"], 500);
}

#[test]
fn match_label_keys_are_merged_at_admission() {
    let text = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tenant: t1}}
    spec:
      containers: [{name: c}]
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: web}}
        matchLabelKeys: [pod-template-hash, not-on-the-pod]
      - maxSkew: 1
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: ScheduleAnyway
        matchLabelKeys: [pod-template-hash]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}
            matchLabelKeys: [pod-template-hash]
            mismatchLabelKeys: [tenant]
        podAffinity: {}
"#;
    let loaded = load_text("spread.yaml", text);
    assert_clean(&loaded);
    let template = &loaded.workloads[0].template;
    let hash = template.labels["pod-template-hash"].clone();
    let expected = Selector::from_set(&labels(&[("app", "web"), ("pod-template-hash", &hash)]));
    assert_eq!(template.topology_spread_constraints[0].selector, expected);
    // A nil labelSelector is left nil (matches nothing), matchLabelKeys or not.
    assert_eq!(
        template.topology_spread_constraints[1].selector,
        Selector::Nothing
    );
    let anti = template.affinity.pod_anti_affinity.as_ref().unwrap();
    let expected = Selector::Requirements(vec![
        Requirement::equals("app", "web"),
        Requirement::equals("pod-template-hash", hash),
        Requirement::new("tenant", Operator::NotIn, vec!["t1".into()]).unwrap(),
    ]);
    assert_eq!(anti.required[0].selector, expected);
    // podAffinity: {} is kept as present.
    assert_eq!(template.affinity.pod_affinity, Some(Default::default()));
}

#[test]
fn polyaxon_service_component_warns_about_spread_constraints() {
    let text = r#"
version: 1.1
kind: component
name: notebook
run:
  kind: service
  replicas: 2
  ports: [8888]
  environment:
    labels: {team: ml}
    nodeSelector: {accelerator: a100}
    tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}
  container:
    image: jupyter/base
    resources: {limits: {nvidia.com/gpu: 1, cpu: "2"}}
---
version: 1.1
kind: component
name: train
run: {kind: job, container: {image: x}}
"#;
    let loaded = load_text("polyaxonfile.yaml", text);
    assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
    assert_eq!(loaded.warnings.len(), 2, "{:#?}", loaded.warnings);
    let warning = &loaded.warnings[0];
    assert_eq!(
        warning.path.as_deref(),
        Some("run.environment.topologySpreadConstraints")
    );
    assert_eq!(
        (warning.file.as_str(), warning.document),
        ("polyaxonfile.yaml", Some(0))
    );
    assert!(warning.message.contains("topologySpreadConstraints"));
    assert_eq!(loaded.warnings[1].path.as_deref(), Some("run.kind"));
    assert_eq!(loaded.workloads.len(), 1);
    let service = &loaded.workloads[0];
    assert_eq!(
        (service.kind, service.name.as_str(), service.replicas),
        (WorkloadKind::PolyaxonService, "notebook", 2)
    );
    assert!(service.template.topology_spread_constraints.is_empty());
    assert_eq!(service.template.labels, labels(&[("team", "ml")]));
    assert_eq!(
        service.template.node_selector,
        labels(&[("accelerator", "a100")])
    );
    // Limits become requests at admission, as for any pod.
    assert_eq!(service.template.containers[0].requests["nvidia.com/gpu"], 1);
    assert_eq!(service.template.tolerations.len(), 3);
    let pods = service.pods_to_create(&loaded.cluster);
    assert_eq!(
        pods.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        vec!["notebook-0", "notebook-1"]
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
fn type_errors_report_path_document_and_object() {
    let text = r#"apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: "x"
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: prod}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: c
      - name: d
        resources:
          requests:
            cpu: [1]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: quantity}
spec:
  selector: {matchLabels: {app: q}}
  template:
    metadata: {labels: {app: q}}
    spec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}
"#;
    let loaded = load_text("app.yaml", text);
    assert_eq!(loaded.cluster.nodes.len(), 1);
    assert!(loaded.workloads.is_empty());
    assert_eq!(loaded.errors.len(), 3, "{:#?}", loaded.errors);
    assert_eq!(
        loaded.errors[0].to_string(),
        "app.yaml:9:3: document 1 (Deployment default/web): spec.replicas: invalid type: string \"x\", expected i32"
    );
    let deep = &loaded.errors[1];
    assert_eq!(deep.document, Some(2));
    assert_eq!(deep.object.as_deref(), Some("Deployment/prod/api"));
    assert_eq!(
        deep.path.as_deref(),
        Some("spec.template.spec.containers[1].resources.requests.cpu")
    );
    // The field's own line and column (counted by hand in the text above), not the document's.
    assert_eq!((deep.line, deep.column), (Some(28), Some(13)));
    let quantity = &loaded.errors[2];
    assert_eq!(
        quantity.path.as_deref(),
        Some("spec.template.spec.containers[0].resources.requests.cpu")
    );
    assert!(quantity.message.contains("lots"), "{}", quantity.message);
    // In a flow mapping: the `cpu` key on the document's last line.
    assert_eq!((quantity.line, quantity.column), (Some(37), Some(58)));
}

#[test]
fn yaml_syntax_error_has_line_and_column_and_loading_goes_on() {
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n labels: x\n---\napiVersion: v1\nkind: Node\nmetadata: {name: c}\n";
    let loaded = load_text("nodes.yaml", text);
    assert_eq!(
        loaded
            .cluster
            .nodes
            .iter()
            .map(|n| n.name.as_str())
            .collect::<Vec<_>>(),
        vec!["a", "c"]
    );
    assert_eq!(loaded.errors.len(), 1);
    let error = &loaded.errors[0];
    // The badly indented `labels` key: line 9, column 2 (1-based, in the whole file).
    assert_eq!(
        (
            error.file.as_str(),
            error.document,
            error.line,
            error.column
        ),
        ("nodes.yaml", Some(1), Some(9), Some(2))
    );
    assert!(
        error.to_string().starts_with("nodes.yaml:9:2: document 1:"),
        "{error}"
    );
}

#[test]
fn billion_laughs_is_rejected() {
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (name, previous) in [
        ("b", "a"),
        ("c", "b"),
        ("d", "c"),
        ("e", "d"),
        ("f", "e"),
        ("g", "f"),
        ("h", "g"),
        ("i", "h"),
    ] {
        text.push_str(&format!(
            "  {name}: &{name} [{}]\n",
            vec![format!("*{previous}"); 9].join(",")
        ));
    }
    text.push_str("---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n");
    let loaded = load_text("lol.yaml", &text);
    assert_eq!(loaded.errors.len(), 1);
    assert_eq!(loaded.errors[0].document, Some(0));
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

#[test]
fn running_replicas_are_counted_and_terminating_ones_are_not() {
    let text = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-abcde, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-fghij, labels: {app: web}, deletionTimestamp: "2025-01-01T00:00:00Z"}
spec: {nodeName: n1, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: other, labels: {app: other}}
spec: {nodeName: n1, containers: [{name: c}]}
"#;
    let loaded = load_text("rs.yaml", text);
    assert_clean(&loaded);
    // Terminating pods stay in the scheduler's view (they hold resources) ...
    assert_eq!(loaded.cluster.pods.len(), 3);
    assert!(loaded.cluster.pods[1].terminating);
    // ... but are not replicas: 3 desired - 1 running = 2.
    let replica_set = &loaded.workloads[0];
    assert_eq!(
        loaded.cluster.controllers[0].kind,
        ControllerKind::ReplicaSet
    );
    let pods = replica_set.pods_to_create(&loaded.cluster);
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|p| {
        p.owner
            .as_ref()
            .is_some_and(|o| o.kind == "ReplicaSet" && o.name == "web")
    }));
}

#[test]
fn pending_pods_of_a_loaded_controller_are_not_placed_twice() {
    let text = r#"apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  labels: {app: db}
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u, controller: true}]
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lonely, labels: {app: other}}
spec: {containers: [{name: c}]}
"#;
    let loaded = load_text("sts.yaml", text);
    assert_clean(&loaded);
    let keys: Vec<String> = loaded.workloads.iter().map(|w| w.key()).collect();
    assert_eq!(keys, vec!["StatefulSet/default/db", "Pod/default/lonely"]);
    assert_eq!(
        loaded.cluster.controllers[0].kind,
        ControllerKind::StatefulSet
    );
    let pods = loaded.workloads[0].pods_to_create(&loaded.cluster);
    assert_eq!(
        pods.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        vec!["db-0", "db-1"]
    );
    assert_eq!(pods[1].labels["statefulset.kubernetes.io/pod-name"], "db-1");
}

#[test]
fn a_kubectl_snapshot_of_a_deployment_is_placed_once() {
    // `kubectl get deploy,rs,pods -o yaml`: a Deployment, its ReplicaSet, two running pods and one
    // Pending pod. The Deployment stands for all of them: 3 desired - 2 running = 1 to create.
    let pod = |name: &str, node: Option<&str>| {
        let mut pod = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "labels": {"app": "web", "pod-template-hash": "7c6d5b4f8"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7c6d5b4f8", "uid": "u2", "controller": true}]},
            "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": if node.is_some() { "Running" } else { "Pending" }}
        });
        if let Some(node) = node {
            pod["spec"]["nodeName"] = serde_json::json!(node);
        }
        pod
    };
    let template = serde_json::json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}});
    let mut rs_template = template.clone();
    rs_template["metadata"]["labels"]["pod-template-hash"] = serde_json::json!("7c6d5b4f8");
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template}},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-7c6d5b4f8", "namespace": "shop",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1", "controller": true}]},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web", "pod-template-hash": "7c6d5b4f8"}}, "template": rs_template}},
        pod("web-7c6d5b4f8-aaaaa", Some("n1")),
        pod("web-7c6d5b4f8-bbbbb", Some("n2")),
        pod("web-7c6d5b4f8-ccccc", None),
    ]});
    let loaded = load_text("snapshot.json", &list.to_string());
    assert_clean(&loaded);
    let keys: Vec<String> = loaded.workloads.iter().map(|w| w.key()).collect();
    assert_eq!(keys, vec!["Deployment/shop/web"]);
    // The real ReplicaSet stays a controller (default spreading of the running pods needs it).
    assert!(
        loaded
            .cluster
            .controllers
            .iter()
            .any(|c| c.name == "web-7c6d5b4f8")
    );
    assert_eq!(loaded.workloads[0].running_pods(&loaded.cluster).len(), 2);
    assert_eq!(loaded.workloads[0].pods_to_create(&loaded.cluster).len(), 1);
}

#[test]
fn priorities_come_from_priority_classes() {
    let text = r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {priorityClassName: high, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec: {priorityClassName: hihg, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bound}
spec: {nodeName: n1, priorityClassName: system-node-critical, containers: [{name: c}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: everyday}
value: 10
globalDefault: true
"#;
    let loaded = load_text("prio.yaml", text);
    assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
    let web = &loaded.workloads[0];
    assert_eq!(
        (web.template.priority, web.template.preemption_policy),
        (1000, PreemptionPolicy::Never)
    );
    assert_eq!(web.priority_class_name.as_deref(), Some("high"));
    assert_eq!(web.pods_to_create(&loaded.cluster)[0].priority, 1000);
    assert_eq!(loaded.workloads[1].template.priority, 10);
    assert_eq!(loaded.workloads[2].template.priority, 0);
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(
        loaded.warnings[0].object.as_deref(),
        Some("Pod/default/typo")
    );
    assert_eq!(
        loaded.warnings[0].path.as_deref(),
        Some("spec.priorityClassName")
    );
    assert_eq!(loaded.cluster.pods[0].priority, 2_000_001_000);
    assert_eq!(loaded.priority_of_class(None), Some(10));
}

#[test]
fn jobs_run_parallelism_pods_with_a_generated_selector() {
    let text = r#"apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  parallelism: 4
  completions: 10
  template:
    metadata: {labels: {app: batch}}
    spec: {restartPolicy: Never, containers: [{name: c}]}
"#;
    let loaded = load_text("job.yaml", text);
    assert_clean(&loaded);
    let job = &loaded.workloads[0];
    assert_eq!(job.replicas, 4);
    assert_eq!(job.template.labels["batch.kubernetes.io/job-name"], "batch");
    assert!(job.selector.matches(&job.template.labels));
    assert!(!job.selector.matches(&labels(&[("app", "batch")])));
    assert_eq!(
        job.pods_to_create(&loaded.cluster)[0]
            .owner
            .as_ref()
            .unwrap()
            .kind,
        "Job"
    );
}

#[test]
fn invalid_objects_are_rejected_with_their_field() {
    let text = r#"apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields: [{key: metadata.name, operator: In, values: [a, b]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: y}}
    spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  containers: [{name: c}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes}
---
just a string
"#;
    let loaded = load_text("bad.yaml", text);
    assert!(loaded.workloads.is_empty());
    let paths: Vec<Option<&str>> = loaded.errors.iter().map(|e| e.path.as_deref()).collect();
    assert_eq!(
        paths,
        vec![
            Some(
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values"
            ),
            Some("spec.template.metadata.labels"),
            Some("spec.topologySpreadConstraints[0].whenUnsatisfiable"),
            None,
        ]
    );
    assert_eq!(loaded.errors[3].document, Some(3));
}

/// PodDisruptionBudget specs as `ValidatePodDisruptionBudgetSpec` (pkg/apis/policy/validation)
/// checks them: not both fields, non-negative, at most 100%.
#[test]
fn pdb_specs_are_read_and_validated() {
    let text = r#"apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ok}
spec: {selector: {matchLabels: {app: web}}, maxUnavailable: 30%}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: both}
spec: {minAvailable: 1, maxUnavailable: 1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: negative}
spec: {minAvailable: -1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: over}
spec: {minAvailable: 101%}
"#;
    let loaded = load_text("pdb.yaml", text);
    assert_eq!(loaded.cluster.pdbs.len(), 1);
    assert_eq!(
        loaded.cluster.pdbs[0].max_unavailable,
        Some(IntOrPercent::Percent(30))
    );
    let errors: Vec<(Option<&str>, &str)> = loaded
        .errors
        .iter()
        .map(|e| (e.path.as_deref(), e.message.as_str()))
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(errors[0].0, Some("spec"));
    assert!(
        errors[0]
            .1
            .ends_with("minAvailable and maxUnavailable cannot be both set"),
        "{errors:?}"
    );
    assert_eq!(errors[1].0, Some("spec.minAvailable"));
    assert!(
        errors[1]
            .1
            .contains("Invalid value: -1: must be greater than or equal to 0"),
        "{errors:?}"
    );
    assert_eq!(errors[2].0, Some("spec.minAvailable"));
    assert!(
        errors[2].1.contains("must not be greater than 100%"),
        "{errors:?}"
    );
}

/// The API server's spread and Deployment rules (pkg/apis/core/validation
/// `validateTopologySpreadConstraints`, pkg/apis/apps/validation `ValidateDeploymentSpec`), with
/// their messages.
#[test]
fn spread_and_deployment_validation_errors() {
    let pod = |constraints: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{app: web}}}}\nspec:\n  containers: [{{name: c}}]\n  topologySpreadConstraints:\n{constraints}"
        )
    };
    let deployment = |fields: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  {fields}\n  selector: {{matchLabels: {{app: x}}}}\n  template:\n    metadata: {{labels: {{app: x}}}}\n    spec: {{containers: [{{name: c}}]}}\n"
        )
    };
    let cases = [
        (
            pod("  - {maxSkew: 1, topologyKey: \"\", whenUnsatisfiable: DoNotSchedule}\n"),
            "spec.topologySpreadConstraints[0].topologyKey",
            "Required value: can not be empty",
        ),
        (
            pod(
                "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
            ),
            "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}",
            "Duplicate value: \"{zone, DoNotSchedule}\"",
        ),
        (
            pod(
                "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [app]}\n",
            ),
            "spec.topologySpreadConstraints[0].matchLabelKeys[0]",
            "Invalid value: \"app\": exists in both matchLabelKeys and labelSelector",
        ),
        (
            deployment("minReadySeconds: 600"),
            "spec.progressDeadlineSeconds",
            "Invalid value: 600: must be greater than minReadySeconds",
        ),
        (
            deployment("minReadySeconds: -1"),
            "spec.minReadySeconds",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            deployment("progressDeadlineSeconds: -5"),
            "spec.progressDeadlineSeconds",
            "Invalid value: -5: must be greater than or equal to 0",
        ),
    ];
    for (text, path, message) in cases {
        let loaded = load_text("bad.yaml", &text);
        assert_eq!(loaded.errors.len(), 1, "{text}: {:?}", loaded.errors);
        assert_eq!(loaded.errors[0].path.as_deref(), Some(path), "{text}");
        assert!(
            loaded.errors[0].message.contains(message),
            "{text}: {}",
            loaded.errors[0].message
        );
    }
    // Two constraints on one key with different whenUnsatisfiable are fine.
    let ok = pod(
        "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n",
    );
    assert_clean(&load_text("ok.yaml", &ok));
}

#[test]
fn limits_on_size_count_and_depth() {
    let options = LoadOptions {
        max_bytes: 10,
        ..LoadOptions::default()
    };
    let loaded = load(
        &[Source {
            name: "big.yaml".into(),
            text: "kind: Node\nmetadata: {name: n}\n".into(),
        }],
        &options,
    );
    assert_eq!(loaded.errors.len(), 1);
    assert!(loaded.errors[0].message.contains("over the limit"));

    let options = LoadOptions {
        max_documents: 2,
        ..LoadOptions::default()
    };
    let nodes: Vec<serde_json::Value> =
        (0..5).map(|i| serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": format!("n{i}")}})).collect();
    let loaded = load_values("fixture", nodes, &options);
    assert_eq!(loaded.cluster.nodes.len(), 2);
    assert_eq!(loaded.errors.len(), 1);
    assert_eq!(loaded.errors[0].file, "fixture");

    let mut deep = serde_json::json!("leaf");
    for _ in 0..100 {
        deep = serde_json::json!({"x": deep});
    }
    let value = serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "annotations": deep}});
    let loaded = load_values("fixture", vec![value], &LoadOptions::default());
    assert!(loaded.cluster.nodes.is_empty());
    assert!(
        loaded.errors[0].message.contains("deeper than 64"),
        "{}",
        loaded.errors[0].message
    );
}

#[test]
fn hostile_inputs_never_panic() {
    let fixed = [
        "",
        "---",
        "...",
        "\u{feff}kind: Node\nmetadata: {name: n}",
        "- - - -",
        "{",
        "[",
        "[[[]]]",
        "kind: List\nitems: 3",
        "kind: PodList\nitems:\n- 1\n- null\n- {metadata: {name: p}, spec: {containers: 7}}",
        "kind: [1]",
        "kind: Node\nmetadata: {name: n}\nspec: {taints: [{effect: x}]}",
        "*a",
        "a: &a [*a]",
        "%YAML 1.2\n%TAG ! tag:x,2000:\n--- !x\nkind: Pod",
        "kind: Pod\nmetadata: !!binary aGVsbG8=",
        "a: .nan\nb: .inf\nc: 1e400\nd: 99999999999999999999999999999999999999999",
        "kind: Deployment\napiVersion: apps/v1beta1\nmetadata: {name: d}",
        "kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2147483647, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}",
        "kind: Job\nmetadata: {generateName: j-}\nspec: {completions: -5, template: {}}",
        "kind: component\nrun: {kind: service, container: 5}",
        "kind: component\nrun: 5",
        "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"99999999999999999999999999999999Ei\"}}}]}",
        "{\"kind\": \"Pod\"} {\"kind\":",
        "<<: 5\nkind: Node",
        "a: &x {b: 1}\n<<: [*x, 3]",
    ];
    for text in fixed {
        let _ = load_text("hostile.yaml", text);
    }
    // Deterministic noise over YAML's punctuation.
    let alphabet: Vec<char> = "ab:- \n{}[],&*!|>'\"#%@`?.0123456789kindNodePo"
        .chars()
        .collect();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3000 {
        let mut text = String::new();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let length = (state % 60) as usize;
        for _ in 0..length {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        let _ = load_text("noise.yaml", &text);
    }
}

/// A StatefulSet's `updateStrategy.rollingUpdate.maxUnavailable` and `podManagementPolicy`, read
/// and validated as the API server does (pkg/apis/apps/validation/validation.go
/// `validateRollingUpdateStatefulSet`: ValidatePositiveIntOrPercent, "cannot be 0",
/// IsNotMoreThan100Percent; `ValidateStatefulSetSpec` for the policy), default 1 / OrderedReady.
#[test]
fn stateful_set_max_unavailable_is_read_and_validated() {
    use spreadlab_engine::analysis::rollout::Strategy;
    let sts = |fields: &str| {
        format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  replicas: 4\n  serviceName: db\n{fields}  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec: {{containers: [{{name: c}}]}}\n"
        )
    };
    let strategy = |fields: &str| {
        let loaded = load_text("sts.yaml", &sts(fields));
        assert_clean(&loaded);
        loaded.workloads[0].rollout.as_ref().unwrap().strategy
    };
    assert_eq!(
        strategy(""),
        Strategy::OrderedRollingUpdate {
            partition: 0,
            max_unavailable: IntOrPercent::Int(1),
            parallel: false,
        }
    );
    assert_eq!(
        strategy(
            "  podManagementPolicy: Parallel\n  updateStrategy: {rollingUpdate: {partition: 1, maxUnavailable: 50%}}\n"
        ),
        Strategy::OrderedRollingUpdate {
            partition: 1,
            max_unavailable: IntOrPercent::Percent(50),
            parallel: true,
        }
    );
    const PATH: &str = "spec.updateStrategy.rollingUpdate.maxUnavailable";
    let cases = [
        (
            "  updateStrategy: {rollingUpdate: {maxUnavailable: 0}}\n",
            PATH,
            "Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: cannot be 0",
        ),
        (
            "  updateStrategy: {rollingUpdate: {maxUnavailable: 0%}}\n",
            PATH,
            "Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"0%\"}: cannot be 0",
        ),
        (
            "  updateStrategy: {rollingUpdate: {maxUnavailable: -1}}\n",
            PATH,
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            "  updateStrategy: {rollingUpdate: {maxUnavailable: 101%}}\n",
            PATH,
            "Invalid value: \"101%\": must not be greater than 100%",
        ),
        (
            "  updateStrategy: {rollingUpdate: {maxUnavailable: two}}\n",
            PATH,
            "a valid percent string must be a numeric string followed by an ending '%'",
        ),
        (
            "  podManagementPolicy: Random\n",
            "spec.podManagementPolicy",
            "Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
        ),
    ];
    for (fields, path, message) in cases {
        let loaded = load_text("bad.yaml", &sts(fields));
        assert_eq!(loaded.errors.len(), 1, "{fields}: {:?}", loaded.errors);
        assert_eq!(loaded.errors[0].path.as_deref(), Some(path), "{fields}");
        assert!(
            loaded.errors[0].message.contains(message),
            "{fields}: {}",
            loaded.errors[0].message
        );
    }
}
