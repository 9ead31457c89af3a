//! The API server's validation of controller fields: PodDisruptionBudgets, spread constraints,
//! Deployment and StatefulSet strategies, with upstream's messages.

mod common;

use common::*;
use spreadlab_engine::model::IntOrPercent;

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

/// The other fields the engine reads, as the API server validates them: container ports
/// (`validateContainerPorts`: `IsValidPortNum`, protocol), node allocatable
/// (`ValidateNode`: `ValidateNonnegativeQuantity`) and PriorityClass values
/// (`ValidatePriorityClass`: user classes up to 1,000,000,000, `system-` names reserved). Each
/// is an input error naming its field; before, each was read and changed answers (a port
/// 70000 blocked nothing, a node with -4 cpu, a user class out-ranking system pods).
#[test]
fn ports_allocatable_and_priority_classes_are_validated() {
    let pod = |ports: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec: {{containers: [{{name: c, image: x, ports: [{ports}]}}]}}\n"
        )
    };
    for (ports, path, message) in [
        (
            "{containerPort: 70000}",
            "spec.containers[0].ports[0].containerPort",
            "Invalid value: 70000: must be between 1 and 65535, inclusive",
        ),
        (
            "{containerPort: 0}",
            "spec.containers[0].ports[0].containerPort",
            "Required value",
        ),
        (
            "{containerPort: 80, hostPort: -1}",
            "spec.containers[0].ports[0].hostPort",
            "Invalid value: -1: must be between 1 and 65535, inclusive",
        ),
        (
            "{containerPort: 80, protocol: HTTP}",
            "spec.containers[0].ports[0].protocol",
            "Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
        ),
    ] {
        let loaded = load_text("pod.yaml", &pod(ports));
        assert_eq!(loaded.workloads.len(), 0, "{ports}");
        let error = &loaded.errors[0];
        assert_eq!(error.path.as_deref(), Some(path), "{ports}: {error}");
        assert!(error.message.contains(message), "{ports}: {error}");
    }
    let fine = load_text(
        "pod.yaml",
        &pod("{containerPort: 80, hostPort: 8080, protocol: UDP}"),
    );
    assert!(fine.errors.is_empty(), "{:?}", fine.errors);

    let node = load_text(
        "node.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"-4\", pods: \"110\"}}\n",
    );
    assert!(node.cluster.nodes.is_empty());
    assert_eq!(
        node.errors[0].path.as_deref(),
        Some("status.allocatable.cpu")
    );
    assert!(
        node.errors[0]
            .message
            .contains("Invalid value: \"-4\": must be greater than or equal to 0"),
        "{}",
        node.errors[0]
    );

    let classes = load_text(
        "classes.yaml",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: too-big}\nvalue: 2000000001\n---\n\
         apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-mine}\nvalue: 5\n---\n\
         apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-node-critical}\nvalue: 2000001000\n---\n\
         apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\nvalue: 1000000000\n",
    );
    let errors: Vec<(Option<&str>, &str)> = classes
        .errors
        .iter()
        .map(|e| (e.path.as_deref(), e.message.as_str()))
        .collect();
    assert_eq!(
        errors,
        [
            (
                Some("value"),
                "Forbidden: maximum allowed value of a user defined priority is 1000000000"
            ),
            (
                Some("metadata.name"),
                "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"
            ),
        ]
    );
    assert_eq!(classes.priority_of_class(Some("top")), Some(1_000_000_000));
    assert_eq!(classes.priority_of_class(Some("too-big")), None);
}
