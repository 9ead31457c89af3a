//! Upstream's test objects made whole for the loader, which validates like the API server.

use serde_json::Value;

/// Upstream's Go tests build some objects the API server would reject (Services and ReplicaSets
/// without names, ReplicaSets without a pod template). The conversion crate validates like the API
/// server, so the runner completes such objects with fields the scheduler never reads: a name,
/// template labels that satisfy the selector, and a `containerPort` (required by the API server;
/// NodePorts reads only `hostPort`, `hostIP` and `protocol`) equal to the port's `hostPort`.
pub(crate) fn complete_objects(mut objects: Vec<Value>) -> Vec<Value> {
    for (index, object) in objects.iter_mut().enumerate() {
        let kind = object["kind"]
            .as_str()
            .unwrap_or("object")
            .to_ascii_lowercase();
        if object["metadata"]["name"]
            .as_str()
            .is_none_or(str::is_empty)
        {
            object["metadata"]["name"] = Value::from(format!("{kind}-{index}"));
        }
        if matches!(kind.as_str(), "replicaset" | "statefulset")
            && object["spec"]["template"].is_null()
        {
            let selector = &object["spec"]["selector"];
            let mut labels = selector["matchLabels"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for expression in selector["matchExpressions"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let key = expression["key"].as_str().unwrap_or_default().to_string();
                match expression["operator"].as_str() {
                    Some("In") => labels.insert(key, expression["values"][0].clone()),
                    Some("Exists") => labels.insert(key, Value::from("x")),
                    _ => None,
                };
            }
            object["spec"]["template"] =
                serde_json::json!({"metadata": {"labels": labels}, "spec": {"containers": []}});
        }
        for list in ["containers", "initContainers"] {
            // `get_mut`, not indexing: indexing a missing key would add it.
            let containers = object
                .get_mut("spec")
                .and_then(|spec| spec.get_mut(list))
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten();
            let ports = containers
                .filter_map(|c| c.get_mut("ports").and_then(Value::as_array_mut))
                .flatten();
            for port in ports {
                if port
                    .get("containerPort")
                    .and_then(Value::as_i64)
                    .unwrap_or(0)
                    == 0
                {
                    port["containerPort"] = port.get("hostPort").cloned().unwrap_or(Value::Null);
                }
            }
        }
    }
    objects
}
