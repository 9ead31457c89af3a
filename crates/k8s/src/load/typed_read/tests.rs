//! The one-layer reader reads as the three-layer stack it replaced (`serde_path_to_error` around
//! `serde_ignored` around `serde_json::Value`'s deserializer, kept here as the reference): the
//! same typed object, the same unknown-field paths, the same error path and message. Inputs:
//! every object of tests/corpus (public, sources in tests/corpus/SOURCES.md) and
//! tests/scenarios, each also with an unknown field added at, and a value of the wrong type put
//! at, a spread of its places.

use std::fmt::Debug;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::autoscaling::v2 as autoscaling;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::api::node::v1 as node_api;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage_api;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::read_typed;
use crate::error::join_path;
use crate::raw::Limits;
use crate::test_files::corpus_and_scenario_files;

/// What a read gave, in comparable form: the object and its unknown fields, or the error's path
/// and message.
type Outcome<T> = Result<(T, Vec<String>), (String, String)>;

/// The stack the reader replaced, as `load/fields.rs` ran it.
fn reference<T: DeserializeOwned>(value: Value) -> Outcome<T> {
    let mut unknown = Vec::new();
    let mut record = |path: serde_ignored::Path<'_>| unknown.push(ignored_path(&path));
    let typed: Result<T, _> =
        serde_path_to_error::deserialize(serde_ignored::Deserializer::new(value, &mut record));
    match typed {
        Ok(typed) => Ok((typed, unknown)),
        Err(error) => {
            let path = error.path().to_string();
            let path = if path == "." { String::new() } else { path };
            Err((path, error.inner().to_string()))
        }
    }
}

fn ignored_path(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", ignored_path(parent)),
        Path::Map { parent, key } => join_path(&ignored_path(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_path(parent),
    }
}

fn ours<T: DeserializeOwned>(value: Value) -> Outcome<T> {
    read_typed(value, true).map_err(|(path, error)| (path, error.to_string()))
}

/// A value put in place of another (`None`: nothing to put there).
type Change = fn(&Value) -> Option<Value>;

/// Counts of what was compared.
#[derive(Default, Debug)]
struct Tally {
    objects: usize,
    reads: usize,
    errors: usize,
    unknown: usize,
}

fn compare<T: DeserializeOwned + PartialEq + Debug + Clone>(
    value: &Value,
    what: &str,
    tally: &mut Tally,
) {
    tally.objects += 1;
    let mut variants = vec![("as written".to_owned(), value.clone())];
    let places = places(value);
    // A spread of places (all of them for small objects): an unknown field added at each mapping,
    // a value of another type put at each place.
    let step = places.len().div_ceil(40).max(1);
    for (n, place) in places.iter().step_by(step).enumerate() {
        let mut added = value.clone();
        if let Some(Value::Object(map)) = added.pointer_mut(place) {
            // Keys a path could write wrongly: empty, index-like, dotted.
            let key = ["zzNotAField", "", "[0]", "a.b"][n % 4];
            map.insert(key.into(), json!({"a": [1, "b"]}));
            variants.push((format!("unknown field {key:?} at {place:?}"), added));
        }
        let changes: [(&str, Change); 3] = [
            ("another type", other_type),
            ("a mapping or sequence", container_instead),
            ("null", |_| Some(Value::Null)),
        ];
        for (how, other) in changes {
            let mut changed = value.clone();
            if let Some(slot) = changed.pointer_mut(place)
                && let Some(other) = other(slot)
            {
                *slot = other;
                variants.push((format!("{how} at {place:?}"), changed));
            }
        }
    }
    for (how, variant) in variants {
        let theirs = reference::<T>(variant.clone());
        tally.reads += 1;
        match &theirs {
            Err(_) => tally.errors += 1,
            Ok((_, unknown)) => tally.unknown += unknown.len(),
        }
        // Without unknown fields asked for: the same read, none named.
        let quiet = read_typed::<T>(variant.clone(), false)
            .map_err(|(path, error)| (path, error.to_string()));
        let expected_quiet = theirs.clone().map(|(typed, _)| (typed, Vec::new()));
        assert_eq!(
            quiet, expected_quiet,
            "{what}, {how}, unknown fields not asked for"
        );
        assert_eq!(ours::<T>(variant), theirs, "{what}, {how}");
    }
}

/// A mapping where a scalar or a sequence was, a sequence where a mapping was.
fn container_instead(value: &Value) -> Option<Value> {
    Some(match value {
        Value::Object(_) => json!([1]),
        _ => json!({"k": "v"}),
    })
}

/// Every place in `value` as a JSON pointer, in document order (the root first).
fn places(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let key = key.replace('~', "~0").replace('/', "~1");
                    walk(child, format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    walk(child, format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, String::new(), &mut out);
    out
}

/// A value of another JSON type than `value`'s (none for null: every field takes null).
fn other_type(value: &Value) -> Option<Value> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => json!("yes"),
        Value::Number(_) => json!("x"),
        Value::String(_) => json!(7),
        Value::Array(_) => json!({"k": 1}),
        Value::Object(_) => json!("text"),
    })
}

/// The API type of each kind the loader reads, for `compare`.
fn compare_kind(value: &Value, what: &str, tally: &mut Tally) {
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    match kind {
        "Pod" => compare::<core_api::Pod>(value, what, tally),
        "Node" => compare::<core_api::Node>(value, what, tally),
        "Namespace" => compare::<core_api::Namespace>(value, what, tally),
        "Service" => compare::<core_api::Service>(value, what, tally),
        "LimitRange" => compare::<core_api::LimitRange>(value, what, tally),
        "PersistentVolumeClaim" => compare::<core_api::PersistentVolumeClaim>(value, what, tally),
        "PersistentVolume" => compare::<core_api::PersistentVolume>(value, what, tally),
        "Deployment" => compare::<apps::Deployment>(value, what, tally),
        "StatefulSet" => compare::<apps::StatefulSet>(value, what, tally),
        "DaemonSet" => compare::<apps::DaemonSet>(value, what, tally),
        "ReplicaSet" => compare::<apps::ReplicaSet>(value, what, tally),
        "ControllerRevision" => compare::<apps::ControllerRevision>(value, what, tally),
        "Job" => compare::<batch::Job>(value, what, tally),
        "CronJob" => compare::<batch::CronJob>(value, what, tally),
        "PodDisruptionBudget" => compare::<policy::PodDisruptionBudget>(value, what, tally),
        "HorizontalPodAutoscaler" => {
            compare::<autoscaling::HorizontalPodAutoscaler>(value, what, tally);
        }
        "PriorityClass" => compare::<scheduling::PriorityClass>(value, what, tally),
        "StorageClass" => compare::<storage_api::StorageClass>(value, what, tally),
        "CSINode" => compare::<storage_api::CSINode>(value, what, tally),
        "CSIDriver" => compare::<storage_api::CSIDriver>(value, what, tally),
        "RuntimeClass" => compare::<node_api::RuntimeClass>(value, what, tally),
        _ => {}
    }
}

#[test]
fn reads_every_corpus_object_as_the_stack_it_replaced() {
    let files = corpus_and_scenario_files();
    let limits = Limits {
        max_documents: 100_000,
        max_depth: 64,
    };
    let mut tally = Tally::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        for document in crate::yaml::parse_documents(&text, &limits)
            .into_iter()
            .flatten()
        {
            let what = format!("{} document {}", path.display(), document.index);
            match document.value.get("items").and_then(Value::as_array) {
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        compare_kind(item, &format!("{what} item {index}"), &mut tally);
                    }
                }
                None => compare_kind(&document.value, &what, &mut tally),
            }
        }
    }
    eprintln!("{tally:?}");
    // Not vacuous: many objects, many reads, and both kinds of finding among them.
    assert!(
        tally.objects > 300
            && tally.reads > 10_000
            && tally.errors > 1_000
            && tally.unknown > 1_000,
        "{tally:?}"
    );
}

#[test]
fn a_failure_inside_a_sequence_and_at_the_root_is_placed() {
    let pod = json!({"kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": 3}]}});
    let read = ours::<core_api::Pod>(pod.clone());
    assert_eq!(read, reference::<core_api::Pod>(pod));
    assert_eq!(
        read.map(|_| ()).unwrap_err(),
        (
            "spec.containers[1].name".into(),
            "invalid type: integer `3`, expected a string".into()
        )
    );
    let not_an_object = json!(["a"]);
    assert_eq!(
        ours::<core_api::Pod>(not_an_object.clone()),
        reference::<core_api::Pod>(not_an_object)
    );
    // Without asking for them, no unknown field is named.
    let typo = json!({"kind": "Pod", "spec": {"containers": [], "nodeSelecter": {}}});
    assert_eq!(
        read_typed::<core_api::Pod>(typo.clone(), false)
            .map(|r| r.1)
            .ok(),
        Some(vec![])
    );
    assert_eq!(
        ours::<core_api::Pod>(typo).map(|r| r.1).ok(),
        Some(vec!["spec.nodeSelecter".to_owned()])
    );
}
