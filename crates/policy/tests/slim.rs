//! Slimmed pods (`spreadlab_policy::slim`) load exactly like whole ones: on every seed cluster
//! and analysis fixture, and on a pod carrying every scheduling field, the loader's cluster from
//! slimmed typed pods (`spreadlab_k8s::Object::Pod`) equals the one from the original documents.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use spreadlab_k8s::{LoadOptions, Object, load_objects, load_values};
use spreadlab_policy::slim::{POD_FIELD_MASKS, SlimPod, SlimPodList, prune};

fn repo() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("../..")
}

fn objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for doc in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
        if doc["kind"] == "List" {
            out.extend(doc["items"].as_array().cloned().unwrap_or_default());
        } else if !doc.is_null() {
            out.push(doc);
        }
    }
    out
}

fn bound_pods(objects: &[Value]) -> Vec<Value> {
    objects
        .iter()
        .filter(|o| o["kind"] == "Pod" && o["spec"]["nodeName"].is_string())
        .cloned()
        .collect()
}

fn assert_same_conversion(name: &str, pods: Vec<Value>) {
    let options = LoadOptions::default();
    let whole = load_values(name, pods.clone(), &options);
    let typed = |pod: &Value| Object::from(SlimPod::from_value(pod).expect("a pod"));
    let slim = load_objects(name, pods.iter().map(typed).collect(), &options);
    assert_eq!(whole.cluster.pods, slim.cluster.pods, "{name}");
    assert_eq!(whole.errors.len(), slim.errors.len(), "{name}");
    // Pruned by the host to the field masks the policy sends (List items carry no type).
    let pruned = load_objects(
        name,
        pods.iter()
            .map(|pod| typed(&prune(pod, POD_FIELD_MASKS)))
            .collect(),
        &options,
    );
    assert_eq!(
        whole.cluster.pods, pruned.cluster.pods,
        "{name} (field masks)"
    );
    assert_eq!(
        whole.errors.len(),
        pruned.errors.len(),
        "{name} (field masks)"
    );
}

#[test]
fn field_masks_prune_as_described() {
    let pod = json!({"metadata": {"name": "p", "uid": "u"},
        "spec": {"containers": [{"name": "a", "env": [1]}, {"name": "b"}], "volumes": [{}]}});
    assert_eq!(
        prune(&pod, &["metadata.name", "spec.containers.name"]),
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]}})
    );
    assert_eq!(prune(&pod, &[]), pod);
}

#[test]
fn seed_clusters_convert_the_same() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo().join("tests/scenarios")).unwrap() {
        files.push(entry.unwrap().path().join("cluster.yaml"));
    }
    for entry in std::fs::read_dir(repo().join("tests/analyses")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut pods = 0;
    for file in files {
        let bound = bound_pods(&objects(&file));
        pods += bound.len();
        assert_same_conversion(&file.display().to_string(), bound);
    }
    assert!(pods > 50, "{pods} pods compared");
}

#[test]
fn every_scheduling_field_survives() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns", "labels": {"app": "a"},
            "annotations": {"x": "y"}, "deletionTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]},
        "spec": {
            "nodeName": "n1", "priority": 7, "priorityClassName": "high", "preemptionPolicy": "Never",
            "overhead": {"cpu": "100m"}, "resources": {"requests": {"cpu": "1"}},
            "nodeSelector": {"disk": "ssd"}, "hostNetwork": true, "schedulingGates": [{"name": "g"}],
            "hostUsers": false, "resourceClaims": [{"name": "gpu", "resourceClaimName": "claim"}],
            "containers": [{"name": "c", "image": "i:1", "env": [{"name": "A", "value": "b"}],
                "restartPolicy": "Never", "restartPolicyRules": [{"action": "RestartAllContainers",
                    "exitCodes": {"operator": "In", "values": [42]}}],
                "resources": {"requests": {"cpu": "2", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}},
                "ports": [{"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.1", "protocol": "UDP"}]}],
            "initContainers": [{"name": "s", "image": "side:1", "restartPolicy": "Always",
                "resources": {"requests": {"memory": "1Gi"}}}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]},
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "a"}}, "minDomains": 2, "matchLabelKeys": ["pod-template-hash"]}],
            "volumes": [{"name": "v", "emptyDir": {}}, {"name": "m", "image": {"reference": "model:1"}}]
        },
        "status": {"phase": "Running", "nominatedNodeName": "n2", "startTime": "2026-01-01T00:00:00Z",
            "conditions": [{"type": "Ready", "status": "True"}]}
    });
    assert_same_conversion("full pod", vec![pod.clone()]);
}

#[test]
fn host_answers_parse_as_the_host_sends_them() {
    // As bytes, the way the host answers: List items carry no type, other fields are skipped.
    let text = r#"{"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {"nodeName": "n", "containers": [{"name": "c", "env": [{"name": "A"}]}],
                "volumes": [{"name": "v", "emptyDir": {}}]}}]}"#;
    let list: SlimPodList = serde_json::from_slice(text.as_bytes()).unwrap();
    let pod = list.items.into_iter().next().unwrap();
    assert!(pod.is_bound());
    assert_eq!(pod.name(), Some("p"));
    assert_eq!(pod.namespace(), Some("ns"));
    let loaded = load_objects("host", vec![Object::from(pod)], &LoadOptions::default());
    assert_eq!(loaded.cluster.pods[0].containers[0].name, "c");
    let empty: SlimPodList = serde_json::from_value(json!({"items": null})).unwrap();
    assert!(empty.items.is_empty());
    // A truncated or foreign answer is an error, not an empty cluster; so is a pod of the wrong
    // shape (the policy reports the read as failed).
    assert!(serde_json::from_value::<SlimPodList>(json!({"kind": "Status"})).is_err());
    assert!(
        serde_json::from_value::<SlimPodList>(
            json!({"items": [{"metadata": {"name": "p"}, "spec": {"containers": [{"name": 3}]}}]})
        )
        .is_err()
    );
}
