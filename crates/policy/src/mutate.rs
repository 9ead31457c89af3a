//! The mutating variant: adds `matchLabelKeys: [pod-template-hash]` to a Deployment's hard
//! topology spread constraints (so old ReplicaSets' pods do not count during a rollout) and a
//! default spread (settings `defaultSpread`: zones, maxSkew 1, DoNotSchedule by default) to a
//! Deployment, StatefulSet or ReplicaSet that has none on that key, selecting only the
//! workload's own pods (`spec.selector`). With the default settings it is the mutation of
//! `policies/kyverno/mutate.yaml` (`tests/shared_fixtures.rs` checks both on the shared
//! fixtures).

use serde_json::{Map, Value, json};

use crate::request::Kind;
use crate::settings::Settings;

/// The Deployment controller's per-ReplicaSet label.
pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";

fn selector_has_key(selector: &Value, key: &str) -> bool {
    selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_some_and(|labels| labels.contains_key(key))
        || selector
            .get("matchExpressions")
            .and_then(Value::as_array)
            .is_some_and(|expressions| {
                expressions
                    .iter()
                    .any(|e| e.get("key").and_then(Value::as_str) == Some(key))
            })
}

/// Adds `pod-template-hash` to `matchLabelKeys` of every hard (`DoNotSchedule`) constraint that
/// has a non-empty labelSelector (the API server rejects matchLabelKeys without one) not already
/// naming the key (the API server rejects a key in both: upstream
/// pkg/apis/core/validation/validation.go `validateMatchLabelKeysInTopologySpread`). Soft
/// constraints are left as written: it is the hard ones that stall a rollout. The same rule as
/// `policies/kyverno/mutate.yaml`'s `add-pod-template-hash-key`. Returns whether anything
/// changed.
fn add_template_hash_key(constraints: &mut [Value]) -> bool {
    let mut changed = false;
    for constraint in constraints.iter_mut() {
        let Some(constraint) = constraint.as_object_mut() else {
            continue;
        };
        if constraint.get("whenUnsatisfiable").and_then(Value::as_str) != Some("DoNotSchedule") {
            continue;
        }
        let selector = match constraint.get("labelSelector") {
            Some(selector @ Value::Object(map)) if !map.is_empty() => selector,
            _ => continue,
        };
        if selector_has_key(selector, POD_TEMPLATE_HASH) {
            continue;
        }
        let keys = constraint
            .entry("matchLabelKeys")
            .or_insert_with(|| Value::Array(Vec::new()));
        if keys.is_null() {
            *keys = Value::Array(Vec::new());
        }
        if let Value::Array(keys) = keys
            && !keys.iter().any(|k| k.as_str() == Some(POD_TEMPLATE_HASH))
        {
            keys.push(Value::from(POD_TEMPLATE_HASH));
            changed = true;
        }
    }
    changed
}

/// The workload's own pods: its `spec.selector` (matchLabels and matchExpressions).
fn own_selector(object: &Value) -> Option<Value> {
    let selector = object.pointer("/spec/selector")?.as_object()?;
    let mut own = Map::new();
    for key in ["matchLabels", "matchExpressions"] {
        if let Some(value) = selector.get(key).filter(|v| !v.is_null()) {
            own.insert(key.to_owned(), value.clone());
        }
    }
    (!own.is_empty()).then_some(Value::Object(own))
}

/// Mutates `object` (a Deployment, StatefulSet, ReplicaSet or Pod) in place. Pods are left
/// alone: a single pod has nothing to spread, and a controller's pods get the template's spread.
/// Returns whether anything changed.
pub fn mutate(object: &mut Value, kind: Kind, settings: &Settings) -> bool {
    if kind == Kind::Pod {
        return false;
    }
    let own = own_selector(object);
    let Some(spec) = object
        .pointer_mut("/spec/template/spec")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let constraints = spec
        .entry("topologySpreadConstraints")
        .or_insert_with(|| Value::Array(Vec::new()));
    if constraints.is_null() {
        *constraints = Value::Array(Vec::new());
    }
    let Value::Array(constraints) = constraints else {
        return false;
    };
    let mut changed = false;
    let spread = &settings.default_spread;
    let has_key = constraints
        .iter()
        .any(|c| c.get("topologyKey").and_then(Value::as_str) == Some(&spread.topology_key));
    if !has_key && let Some(own) = own {
        let when = match settings.default_spread_when() {
            spreadlab_engine::model::WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
            spreadlab_engine::model::WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
        };
        constraints.push(json!({
            "maxSkew": spread.max_skew,
            "topologyKey": spread.topology_key,
            "whenUnsatisfiable": when,
            "labelSelector": own,
        }));
        changed = true;
    }
    if kind == Kind::Deployment {
        changed |= add_template_hash_key(constraints);
    }
    if constraints.is_empty() {
        spec.remove("topologySpreadConstraints");
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(constraints: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                    "containers": [{"name": "c", "image": "i"}],
                    "topologySpreadConstraints": constraints
                }}
            }
        })
    }

    #[test]
    fn adds_zone_spread_and_template_hash_key() {
        let mut object = deployment(Value::Null);
        assert!(mutate(&mut object, Kind::Deployment, &Settings::default()));
        assert_eq!(
            object
                .pointer("/spec/template/spec/topologySpreadConstraints")
                .unwrap(),
            &json!([{
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
                "matchLabelKeys": ["pod-template-hash"]
            }])
        );
        // Idempotent.
        let once = object.clone();
        assert!(!mutate(&mut object, Kind::Deployment, &Settings::default()));
        assert_eq!(object, once);
    }

    #[test]
    fn keeps_existing_spread_and_respects_selector_keys() {
        let mut object = deployment(json!([
            {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}},
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web", "pod-template-hash": "x"}}},
            {"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"}
        ]));
        assert!(mutate(&mut object, Kind::Deployment, &Settings::default()));
        let constraints = object
            .pointer("/spec/template/spec/topologySpreadConstraints")
            .unwrap()
            .as_array()
            .unwrap();
        assert_eq!(constraints.len(), 3);
        assert_eq!(constraints[0]["maxSkew"], 2);
        assert_eq!(
            constraints[0]["matchLabelKeys"],
            json!(["pod-template-hash"])
        );
        assert!(constraints[1].get("matchLabelKeys").is_none());
        assert!(constraints[2].get("matchLabelKeys").is_none());
    }

    #[test]
    fn soft_constraints_and_an_explicit_soft_default_get_no_template_hash() {
        let mut object = deployment(json!([
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"app": "web"}}}
        ]));
        let settings = Settings {
            default_spread: crate::settings::DefaultSpread {
                when_unsatisfiable: Some(crate::settings::WhenUnsatisfiableSetting::ScheduleAnyway),
                ..Default::default()
            },
            ..Settings::default()
        };
        assert!(mutate(&mut object, Kind::Deployment, &settings));
        let constraints = &object["spec"]["template"]["spec"]["topologySpreadConstraints"];
        assert!(constraints[0].get("matchLabelKeys").is_none());
        assert_eq!(constraints[1]["whenUnsatisfiable"], "ScheduleAnyway");
        assert!(constraints[1].get("matchLabelKeys").is_none());
    }

    #[test]
    fn stateful_sets_get_the_spread_without_template_hash_and_pods_nothing() {
        let mut object = deployment(Value::Null);
        object["kind"] = json!("StatefulSet");
        let settings = Settings {
            require_do_not_schedule: true,
            ..Settings::default()
        };
        assert!(mutate(&mut object, Kind::StatefulSet, &settings));
        let constraint = &object["spec"]["template"]["spec"]["topologySpreadConstraints"][0];
        assert_eq!(constraint["whenUnsatisfiable"], "DoNotSchedule");
        assert!(constraint.get("matchLabelKeys").is_none());

        let mut pod =
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}});
        assert!(!mutate(&mut pod, Kind::Pod, &settings));
    }

    #[test]
    fn custom_default_spread_key_and_skew() {
        let mut object = deployment(json!([
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["pod-template-hash"]}
        ]));
        let settings = Settings::from_json(&json!({
            "mutate": true,
            "defaultSpread": {"topologyKey": "kubernetes.io/hostname", "maxSkew": 2}
        }))
        .unwrap();
        assert!(mutate(&mut object, Kind::Deployment, &settings));
        let constraints = &object["spec"]["template"]["spec"]["topologySpreadConstraints"];
        assert_eq!(
            constraints[1],
            json!({
                "maxSkew": 2,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
                "matchLabelKeys": ["pod-template-hash"]
            })
        );
        // A constraint on the custom key already there: nothing added.
        let once = object.clone();
        assert!(!mutate(&mut object, Kind::Deployment, &settings));
        assert_eq!(object, once);
    }

    #[test]
    fn without_a_selector_no_spread_is_invented() {
        let mut object = deployment(Value::Null);
        object["spec"].as_object_mut().unwrap().remove("selector");
        assert!(!mutate(&mut object, Kind::Deployment, &Settings::default()));
        assert!(
            object
                .pointer("/spec/template/spec/topologySpreadConstraints")
                .is_none()
        );
    }
}
