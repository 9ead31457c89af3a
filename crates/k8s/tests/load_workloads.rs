//! Workloads as loaded: admission (limits to requests, matchLabelKeys), running replicas,
//! snapshots of controllers, priorities, Jobs, Polyaxon services.

mod common;

use common::*;
use spreadlab_engine::model::{
    ControllerKind, Operator, PreemptionPolicy, Requirement, Selector, TolerationOperator,
};
use spreadlab_k8s::WorkloadKind;

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
fn a_polyaxon_component_of_the_wrong_type_is_named_at_its_field() {
    let text = r#"
version: 1.1
kind: component
name: notebook
run:
  kind: service
  replicas: 2
  environment:
    tolerations: [{key: nvidia.com/gpu, operator: Exists}, {key: 7, tolerationSeconds: soon}]
  container: {image: jupyter/base}
"#;
    let loaded = load_text("polyaxonfile.yaml", text);
    assert_eq!(loaded.errors.len(), 1, "{:#?}", loaded.errors);
    let error = &loaded.errors[0];
    assert_eq!(
        (error.path.as_deref(), error.message.as_str()),
        (
            Some("run.environment.tolerations[1].key"),
            "invalid type: integer `7`, expected a string"
        )
    );
    assert!(loaded.workloads.is_empty());
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

/// Replicas belong to a workload by ownership (`ClaimPods`): a pod its selector matches counts
/// when its controller is the workload's own (a Deployment's ReplicaSet `<name>-<hash>`) or when
/// it has none (an orphan the controller adopts), never when another controller owns it.
#[test]
fn running_replicas_are_found_by_ownership_not_by_selector_alone() {
    let pod = |name: &str, owner: Option<&str>| {
        let owner = owner.map_or(String::new(), |o| {
            format!(", ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: {o}, uid: u, controller: true}}]")
        });
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: web}}{owner}}}\n\
             spec: {{nodeName: n, containers: [{{name: c, image: x}}]}}\nstatus: {{phase: Running}}\n"
        )
    };
    let text = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\n\
         spec: {{replicas: 5, selector: {{matchLabels: {{app: web}}}}, template: {{metadata: {{labels: {{app: web}}}}, spec: {{containers: [{{name: c, image: x}}]}}}}}}\n{}{}{}{}",
        pod("web-7d4b9c-1", Some("web-7d4b9c")),
        pod("orphan", None),
        pod("other-7d4b9c-1", Some("other-7d4b9c")),
        pod("web-api-5f6d7-1", Some("web-api-5f6d7")),
    );
    let loaded = load_text("owners.yaml", &text);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let running: Vec<&str> = loaded.workloads[0]
        .running_pods(&loaded.cluster)
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(running, ["web-7d4b9c-1", "orphan"]);
}

/// A snapshot's Pending pods (stored: uid or creationTimestamp) are already waiting: a bare one
/// is a Pod workload marked waiting; a controller's is scheduled as that controller's replica
/// under its own name, with its nomination and creation time, before any replica it would
/// create; a hand-written unbound pod the controller selects is what it creates instead.
#[test]
fn waiting_pods_of_a_snapshot_keep_their_names_and_nominations() {
    let text = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-aaaaa, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
spec: {nodeName: n1, containers: [{name: c, image: nginx}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-later, uid: w2, creationTimestamp: "2026-01-01T00:05:00Z", labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
spec: {containers: [{name: c, image: nginx}]}
status: {phase: Pending}
---
apiVersion: v1
kind: Pod
metadata: {name: web-first, uid: w1, creationTimestamp: "2026-01-01T00:00:00Z", labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
spec: {containers: [{name: c, image: nginx}]}
status: {phase: Pending, nominatedNodeName: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: handwritten, labels: {app: web}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, creationTimestamp: "2026-01-01T00:01:00Z"}
spec: {containers: [{name: c, image: nginx}]}
"#;
    let loaded = load_text("snapshot.yaml", text);
    assert_clean(&loaded);
    let kinds: Vec<WorkloadKind> = loaded.workloads.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, vec![WorkloadKind::ReplicaSet, WorkloadKind::Pod]);
    let replica_set = &loaded.workloads[0];
    let waiting: Vec<&str> = replica_set
        .waiting
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(waiting, vec!["web-first", "web-later"], "oldest first");
    // 4 desired - 1 running = 3: the two waiting pods, then one new replica.
    let pods = replica_set.pods_to_create(&loaded.cluster);
    let names: Vec<&str> = pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["web-first", "web-later", "web-0"]);
    assert!(pods[0].waiting && pods[1].waiting && !pods[2].waiting);
    assert_eq!(pods[0].nominated_node_name.as_deref(), Some("n1"));
    assert!(pods[0].created < pods[1].created);
    let solo = &loaded.workloads[1].pods_to_create(&loaded.cluster)[0];
    assert!(solo.waiting && solo.created.is_some());
}

/// `podTerminatingByPreemption`: deletionTimestamp and a DisruptionTarget condition True with
/// reason PreemptionByScheduler; another reason, or no deletion, is not.
#[test]
fn pods_terminating_by_preemption_are_recognised() {
    let pod = |name: &str, deleting: bool, reason: &str| {
        let deletion = if deleting {
            r#", deletionTimestamp: "2026-01-01T00:00:00Z""#
        } else {
            ""
        };
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}{deletion}}}\nspec: {{nodeName: n1, containers: [{{name: c}}]}}\nstatus: {{phase: Running, conditions: [{{type: DisruptionTarget, status: \"True\", reason: {reason}}}]}}\n"
        )
    };
    let text = [
        pod("preempted", true, "PreemptionByScheduler"),
        pod("evicted", true, "EvictionByEvictionAPI"),
        pod("alive", false, "PreemptionByScheduler"),
    ]
    .join("---\n");
    let loaded = load_text("pods.yaml", &text);
    assert_clean(&loaded);
    let flags: Vec<bool> = loaded
        .cluster
        .pods
        .iter()
        .map(|p| p.terminating_by_preemption)
        .collect();
    assert_eq!(flags, vec![true, false, false]);
}
