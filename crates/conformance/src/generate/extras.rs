//! Rarer shapes (own random stream): ReplicationControllers selecting an app (system default
//! spreading finds a pod's selector through them too), topology spread constraints with an
//! empty (`{}`: counts nothing) or nil label selector, or `matchLabelKeys` naming a key other
//! than `pod-template-hash`, and preemption among equally ranked candidates (identical full
//! nodes, one low-priority pod each: upstream picks one of them at random).

use serde_json::{Value, json};

use super::Rng;

/// Adds the shapes to about one scenario in six.
pub(super) fn vary(seed: u64, objects: &mut Vec<Value>, schedule: &mut Vec<Value>) {
    let mut rng = Rng::stream(seed, 0xD6E8_FEB8_6659_FD93, 0x00E7_7A5A);
    if schedule.is_empty() || !rng.percent(16) {
        return;
    }
    if rng.percent(50) {
        let pod = &schedule[rng.range(0, schedule.len() as i64 - 1) as usize];
        let (namespace, app) = (
            pod["metadata"]["namespace"].clone(),
            pod["metadata"]["labels"]["app"].clone(),
        );
        if let Some(app) = app.as_str() {
            objects.push(json!({
                "apiVersion": "v1", "kind": "ReplicationController",
                "metadata": {"name": format!("{app}-rc"), "namespace": namespace},
                "spec": {
                    "replicas": rng.range(0, 5),
                    "selector": {"app": app},
                    "template": {
                        "metadata": {"labels": {"app": app}},
                        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
                    },
                },
            }));
        }
    }
    if rng.percent(40) {
        tied_preemption(&mut rng, objects, schedule);
    }
    for pod in schedule.iter_mut() {
        let Some(constraints) = pod["spec"]["topologySpreadConstraints"].as_array_mut() else {
            continue;
        };
        for constraint in constraints.iter_mut() {
            if !rng.percent(30) {
                continue;
            }
            let Some(c) = constraint.as_object_mut() else {
                continue;
            };
            match rng.range(0, 2) {
                0 => {
                    c.insert("labelSelector".into(), json!({}));
                    c.remove("matchLabelKeys");
                }
                1 => {
                    c.remove("labelSelector");
                    c.remove("matchLabelKeys");
                }
                _ => {
                    let uses_tier = c
                        .get("labelSelector")
                        .is_some_and(|s| s.to_string().contains("\"tier\""));
                    if c.contains_key("labelSelector") && !uses_tier {
                        c.insert("matchLabelKeys".into(), json!(["tier"]));
                    }
                }
            }
        }
    }
}

/// Two to four identical nodes, each full with one priority-0 pod, and a pod of a high class
/// that fits only by preempting one of them.
fn tied_preemption(rng: &mut Rng, objects: &mut Vec<Value>, schedule: &mut Vec<Value>) {
    let zone = objects
        .iter()
        .find(|o| o["kind"] == "Node")
        .and_then(|o| o["metadata"]["labels"][super::ZONE].as_str())
        .unwrap_or("eu-west-1a")
        .to_owned();
    objects.push(json!({
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "tie-breaker"}, "value": 900_000,
    }));
    let cpu = "1500m";
    for i in 0..rng.range(2, 4) {
        let node = format!("tie-{i}");
        objects.push(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node, (super::ZONE): zone, "tie": "yes"}},
            "spec": {},
            "status": {
                "capacity": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }));
        objects.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("tie-filler-{i}"), "namespace": "default", "labels": {"app": "tie-filler"}},
            "spec": {
                "nodeName": node, "schedulerName": "default-scheduler", "priority": 0,
                "containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
            },
            "status": {"phase": "Running", "startTime": "2023-11-14T22:13:20Z"},
        }));
    }
    schedule.push(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "tie-preemptor", "namespace": "default", "labels": {"app": "tie-preemptor"}},
        "spec": {
            "priorityClassName": "tie-breaker",
            "nodeSelector": {"tie": "yes"},
            "containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
        },
    }));
    // Sometimes free to go elsewhere: preemption only when no other node has room.
    if rng.percent(30)
        && let Some(spec) = schedule.last_mut().and_then(|p| p["spec"].as_object_mut())
    {
        spec.remove("nodeSelector");
    }
}
