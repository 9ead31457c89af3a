//! Bad and hostile input: type errors with file, document, object, field and line; YAML syntax
//! errors; size, count, depth and alias-expansion bounds; invalid objects rejected.

mod common;

use common::*;
use spreadlab_k8s::{LoadOptions, Source, load, load_values};

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

/// Negative quantities in a pod's resources are refused as the API server refuses them
/// (`ValidateNonnegativeQuantity`, pkg/apis/core/validation: "must be greater than or equal to
/// 0"): container requests and limits, pod-level resources and overhead. Before, a pod requesting
/// `-100m` CPU was placed and freed room on its node for another pod.
#[test]
fn negative_resource_quantities_are_rejected() {
    let pod = |resources: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: c\n    resources: {resources}\n"
        )
    };
    for (resources, path, value) in [
        (
            "{requests: {cpu: -100m}}",
            "spec.containers[0].resources.requests.cpu",
            "-100m",
        ),
        (
            "{limits: {memory: -1Gi}}",
            "spec.containers[0].resources.limits.memory",
            "-1Gi",
        ),
    ] {
        let loaded = load_text("neg.yaml", &pod(resources));
        assert!(loaded.workloads.is_empty(), "{resources}");
        assert_eq!(loaded.errors.len(), 1, "{resources}: {:?}", loaded.errors);
        let error = &loaded.errors[0];
        assert_eq!(error.path.as_deref(), Some(path));
        assert_eq!(
            error.message,
            format!("Invalid value: \"{value}\": must be greater than or equal to 0")
        );
    }
    let overhead = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  overhead: {cpu: -1}\n  containers: [{name: c}]\n";
    let loaded = load_text("neg.yaml", overhead);
    assert_eq!(
        loaded.errors.first().and_then(|e| e.path.as_deref()),
        Some("spec.overhead.cpu")
    );
    // Zero is allowed.
    assert_clean(&load_text("zero.yaml", &pod("{requests: {cpu: \"0\"}}")));
}

/// Strict field validation, as `kubectl apply` does it by default: a misspelled or wrongly cased
/// field is an input error naming the field and where it is (before, the constraint was dropped
/// and the answer changed with exit 0); `Warn` reads on with a warning per field, `Ignore` drops
/// them. Both of issue 14's examples: `topologySpreadConstraint:` and `NodeAffinityPolicy:`.
#[test]
fn unknown_fields_are_errors_warnings_or_ignored_as_asked() {
    use spreadlab_k8s::{FieldValidation, LoadOptions, Source};
    let text = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
      topologySpreadConstraint:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, labels: {app: solo}}
spec:
  containers: [{name: c, image: x}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, NodeAffinityPolicy: Honor, labelSelector: {matchLabels: {app: solo}}}
";
    let load = |validation| {
        spreadlab_k8s::load(
            &[Source {
                name: "strict.yaml".into(),
                text: text.into(),
            }],
            &LoadOptions {
                field_validation: validation,
                ..LoadOptions::default()
            },
        )
    };
    let strict = load(FieldValidation::Strict);
    let errors: Vec<String> = strict.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [
            "strict.yaml:11:7: document 0 (Deployment default/web): spec.template.spec.topologySpreadConstraint: \
             unknown field \"spec.template.spec.topologySpreadConstraint\" (misspelled, or from a Kubernetes newer than v1.37)",
            "strict.yaml:20:71: document 1 (Pod default/solo): spec.topologySpreadConstraints[0].NodeAffinityPolicy: \
             unknown field \"spec.topologySpreadConstraints[0].NodeAffinityPolicy\" (misspelled, or from a Kubernetes newer than v1.37)",
        ]
    );
    assert!(strict.workloads.is_empty());

    let warn = load(FieldValidation::Warn);
    assert!(warn.errors.is_empty(), "{:?}", warn.errors);
    assert_eq!(warn.workloads.len(), 2);
    let warned: Vec<&str> = warn
        .warnings
        .iter()
        .filter_map(|w| w.path.as_deref())
        .collect();
    assert!(
        warned.contains(&"spec.template.spec.topologySpreadConstraint"),
        "{warned:?}"
    );
    assert!(
        warned.contains(&"spec.topologySpreadConstraints[0].NodeAffinityPolicy"),
        "{warned:?}"
    );

    let ignore = load(FieldValidation::Ignore);
    assert!(
        ignore.errors.is_empty()
            && ignore
                .warnings
                .iter()
                .all(|w| !w.message.contains("unknown field"))
    );
    assert_eq!(ignore.workloads.len(), 2);
}

/// Issue 14, item 5: an error in a JSON file points at its field's line and column (before: at
/// the document's first line), in a List item too.
#[test]
fn json_errors_point_at_their_field() {
    let text = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\",\n     \"metadata\": {\"name\": \"web\"},\n     \"spec\": {\"replicas\": -1, \"selector\": {\"matchLabels\": {\"app\": \"web\"}},\n              \"template\": {\"metadata\": {\"labels\": {\"app\": \"web\"}}, \"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x\"}]}}}}\n  ]\n}\n";
    let loaded = load_text("list.json", text);
    let error = &loaded.errors[0];
    assert_eq!(
        error.path.as_deref(),
        Some("items[0].spec.replicas"),
        "{error}"
    );
    assert_eq!((error.line, error.column), (Some(7), Some(15)), "{error}");
}

#[test]
fn errors_in_the_items_of_a_big_list_point_at_their_fields() {
    // A `kubectl get pods -o yaml` List (read item by item) where every 7th pod has a label
    // value YAML reads as a number (kubectl would have quoted it): each error is located in its
    // own item, at the label's line and column, as in a small List.
    let mut text = String::from("apiVersion: v1\nitems:\n");
    let mut expected = Vec::new();
    let mut line = 3;
    for i in 0..1_500 {
        let label = if i % 7 == 3 { "0001" } else { "\"0001\"" };
        let item = format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    labels:\n      app: web\n      hash: {label}\n    name: p{i}\n    namespace: default\n  spec:\n    containers:\n    - image: registry.example/web:1\n      name: web\n      resources:\n        requests:\n          cpu: 100m\n    nodeName: n1\n{}",
            "  # padding to make the List big enough to be read item by item\n".repeat(2)
        );
        if i % 7 == 3 {
            expected.push((line + 5, 7));
        }
        line += item.matches('\n').count();
        text.push_str(&item);
    }
    text.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    assert!(text.len() > 256 << 10, "{} bytes", text.len());
    let loaded = load(
        &[Source {
            name: "pods.yaml".into(),
            text: text.clone(),
        }],
        &LoadOptions::default(),
    );
    // Where each error was placed.
    let located = |loaded: &spreadlab_k8s::Loaded| -> Vec<(usize, usize)> {
        (loaded.errors.iter())
            .map(|e| (e.line.expect("a line"), e.column.expect("a column")))
            .collect()
    };
    assert_eq!(located(&loaded), expected);
    let first = &loaded.errors[0];
    assert_eq!(first.path.as_deref(), Some("items[3].metadata.labels.hash"));
    // Read through a document cache warmed in slices (the playground's import), and again from
    // it: the same places.
    let mut cache = spreadlab_k8s::DocumentCache::new();
    let mut warmup = cache.warm_up(&text, &LoadOptions::default());
    while !cache.warm(&mut warmup, &text, 16 << 10).finished() {}
    for _ in 0..2 {
        let cached = spreadlab_k8s::load_cached(
            &[Source {
                name: "pods.yaml".into(),
                text: text.clone(),
            }],
            &LoadOptions::default(),
            &mut cache,
        );
        assert_eq!(located(&cached), expected);
    }
    // The same text as a small List (no item-by-item reading) locates the same way.
    let small: String = text
        .lines()
        .take(expected[0].0 + 20)
        .map(|l| format!("{l}\n"))
        .collect();
    let small = load(
        &[Source {
            name: "pods.yaml".into(),
            text: format!("{small}kind: List\n"),
        }],
        &LoadOptions::default(),
    );
    assert_eq!(small.errors[0].line, first.line);
    assert_eq!(small.errors[0].column, first.column);
}
