//! Polyaxon components (`kind: component`) with `run.kind: service`, read into the Pod that
//! Polyaxon would run: `run.container` (plus `run.sidecars`) and `run.environment`'s labels,
//! `nodeSelector`, `affinity`, `tolerations`, `priorityClassName`, `priority` and `hostNetwork`.
//!
//! Polyaxon's `environment` has no `topologySpreadConstraints` field: one written there is dropped
//! by Polyaxon, so it gives a warning here rather than silently taking effect.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as api;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde_json::Value;

use crate::error::join_path;

/// The name Polyaxon gives the main container when the component names none.
pub(crate) const MAIN_CONTAINER: &str = "polyaxon-main";

/// A service component, as a Pod.
#[derive(Debug)]
pub(crate) struct Service {
    pub name: String,
    pub replicas: i32,
    pub pod: api::Pod,
    /// `(path, message)` warnings.
    pub warnings: Vec<(String, String)>,
}

/// What a component document gave.
#[derive(Debug)]
pub(crate) enum Component {
    /// A service to place.
    Service(Box<Service>),
    /// Another run kind (job, tfjob, dag, ...): nothing long-running to place.
    Skipped { name: String, run_kind: String },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    replicas: Option<i32>,
    environment: Option<Environment>,
    container: Option<api::Container>,
    sidecars: Option<Vec<api::Container>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Environment {
    labels: Option<BTreeMap<String, String>>,
    node_selector: Option<BTreeMap<String, String>>,
    affinity: Option<api::Affinity>,
    tolerations: Option<Vec<api::Toleration>>,
    priority_class_name: Option<String>,
    priority: Option<i32>,
    host_network: Option<bool>,
}

/// `(path, message)` of a component that does not read.
pub(crate) type ComponentError = (String, String);

/// Reads a `kind: component` document. `fallback_name` names a component without `name`.
pub(crate) fn read_component(
    mut value: Value,
    namespace: &str,
    fallback_name: &str,
) -> Result<Component, ComponentError> {
    let name = match value.get("name") {
        None | Some(Value::Null) => fallback_name.to_owned(),
        Some(Value::String(name)) => name.clone(),
        Some(_) => return Err(("name".into(), "invalid type: expected a string".into())),
    };
    let Some(run) = value.get_mut("run").map(Value::take) else {
        return Err(("run".into(), "missing field `run`".into()));
    };
    let run_kind = run
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if run_kind != "service" {
        return Ok(Component::Skipped { name, run_kind });
    }
    let mut warnings = Vec::new();
    if run
        .get("environment")
        .and_then(|e| e.get("topologySpreadConstraints"))
        .is_some()
    {
        warnings.push((
            "run.environment.topologySpreadConstraints".to_owned(),
            "Polyaxon's environment has no `topologySpreadConstraints` field: Polyaxon drops it, so these \
             constraints are ignored here too"
                .to_owned(),
        ));
    }
    let mut run = run;
    if let Some(container) = run.get_mut("container").and_then(Value::as_object_mut) {
        container
            .entry("name")
            .or_insert_with(|| Value::String(MAIN_CONTAINER.to_owned()));
    }
    let (run, _): (Run, _) = crate::load::read_typed(run, false)
        .map_err(|(path, error)| (join_path("run", &path), error.to_string()))?;
    let environment = run.environment.unwrap_or(Environment {
        labels: None,
        node_selector: None,
        affinity: None,
        tolerations: None,
        priority_class_name: None,
        priority: None,
        host_network: None,
    });
    let main = run.container.unwrap_or_else(|| api::Container {
        name: MAIN_CONTAINER.to_owned(),
        ..Default::default()
    });
    let mut containers = vec![main];
    containers.extend(run.sidecars.unwrap_or_default());
    let pod = api::Pod {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: Some(namespace.to_owned()),
            labels: environment.labels,
            ..Default::default()
        },
        spec: Some(api::PodSpec {
            containers,
            node_selector: environment.node_selector,
            affinity: environment.affinity,
            tolerations: environment.tolerations,
            priority_class_name: environment.priority_class_name,
            priority: environment.priority,
            host_network: environment.host_network,
            ..Default::default()
        }),
        status: None,
    };
    Ok(Component::Service(Box::new(Service {
        name,
        replicas: run.replicas.unwrap_or(1),
        pod,
        warnings,
    })))
}

/// Maps a path in the Pod built by [`read_component`] back to the component's own fields.
pub(crate) fn component_path(pod_path: &str) -> String {
    if let Some(rest) = pod_path.strip_prefix("spec.containers[")
        && let Some((index, tail)) = rest.split_once(']')
    {
        return match index.parse::<usize>() {
            Ok(0) | Err(_) => format!("run.container{tail}"),
            Ok(sidecar) => format!("run.sidecars[{}]{tail}", sidecar - 1),
        };
    }
    for field in [
        "affinity",
        "tolerations",
        "nodeSelector",
        "priorityClassName",
        "priority",
        "hostNetwork",
    ] {
        if let Some(tail) = pod_path.strip_prefix(&format!("spec.{field}")) {
            return format!("run.environment.{field}{tail}");
        }
    }
    match pod_path.strip_prefix("metadata.labels") {
        Some(tail) => format!("run.environment.labels{tail}"),
        None => format!("run ({pod_path})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_service_component() {
        let value = serde_json::json!({
            "version": 1.1, "kind": "component", "name": "notebook",
            "run": {"kind": "service", "replicas": 2, "ports": [8888],
                "environment": {"labels": {"team": "ml"}, "nodeSelector": {"gpu": "true"},
                    "tolerations": [{"key": "gpu", "operator": "Exists"}],
                    "topologySpreadConstraints": [{"maxSkew": 1}]},
                "container": {"image": "jupyter", "resources": {"requests": {"cpu": "2"}}}}
        });
        let Component::Service(service) = read_component(value, "polyaxon", "c").unwrap() else {
            panic!("not a service")
        };
        assert_eq!((service.name.as_str(), service.replicas), ("notebook", 2));
        assert_eq!(service.warnings.len(), 1);
        assert_eq!(
            service.warnings[0].0,
            "run.environment.topologySpreadConstraints"
        );
        let spec = service.pod.spec.as_ref().unwrap();
        assert_eq!(spec.containers[0].name, MAIN_CONTAINER);
        assert_eq!(spec.node_selector.as_ref().unwrap()["gpu"], "true");
        assert_eq!(service.pod.metadata.labels.as_ref().unwrap()["team"], "ml");
    }

    #[test]
    fn other_run_kinds_are_skipped() {
        let value = serde_json::json!({"kind": "component", "run": {"kind": "job", "container": {"image": "x"}}});
        assert!(
            matches!(read_component(value, "ns", "c").unwrap(), Component::Skipped { run_kind, .. } if run_kind == "job")
        );
    }

    #[test]
    fn paths_map_back_to_the_component() {
        assert_eq!(
            component_path("spec.containers[0].resources.requests.cpu"),
            "run.container.resources.requests.cpu"
        );
        assert_eq!(
            component_path("spec.containers[2].image"),
            "run.sidecars[1].image"
        );
        assert_eq!(
            component_path("spec.tolerations[0].effect"),
            "run.environment.tolerations[0].effect"
        );
    }

    #[test]
    fn type_errors_have_component_paths() {
        let value =
            serde_json::json!({"kind": "component", "run": {"kind": "service", "replicas": "two"}});
        assert_eq!(
            read_component(value, "ns", "c").unwrap_err().0,
            "run.replicas"
        );
    }
}
