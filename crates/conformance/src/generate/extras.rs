//! Rarer shapes (own random stream): ReplicationControllers selecting an app (system default
//! spreading finds a pod's selector through them too), and topology spread constraints with an
//! empty (`{}`: counts nothing) or nil label selector, or `matchLabelKeys` naming a key other
//! than `pod-template-hash`.

use serde_json::{Value, json};

use super::Rng;

/// Adds the shapes to about one scenario in six.
pub(super) fn vary(seed: u64, objects: &mut Vec<Value>, schedule: &mut [Value]) {
    let mut rng = Rng::new(seed.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ 0x00E7_7A5A);
    rng.next_u64();
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
