//! The seed scenarios under `tests/scenarios/<name>/` (`cluster.yaml` + `workload.yaml`), judged by
//! the real kube-scheduler.
//!
//! - [`oracle_input`] builds `oracle-input.yaml`: the scenario as the Go oracle (`tests/oracle`)
//!   reads it, a faithful copy of what spreadlab schedules;
//! - `scripts/record-scenarios.sh` runs the oracle on it and stores `expected.jsonl`;
//! - [`compare`] checks the engine's decisions against `expected.jsonl`, pod by pod.
//!
//! # How the oracle input is built (and why it is faithful)
//!
//! `objects` are the cluster's original objects exactly as written in the scenario files (every
//! object that is not a workload, `List` items flattened), in file order, so the oracle sees the
//! same nodes in the same order. The oracle applies the real API-server defaulting to them.
//!
//! Added to `objects`: for each Deployment, the ReplicaSet its controller would create
//! (`<name>-<pod-template-hash>`, selector and template labels with `pod-template-hash`), because
//! spreadlab puts that ReplicaSet in the cluster too and PodTopologySpread's system default
//! constraints find a pod's selector through it (`helper.DefaultSelector`). A StatefulSet is
//! added as written, with the claims its controller creates from `volumeClaimTemplates` before
//! each pod (`<template>-<pod>`, the default class filled in as DefaultStorageClass admission
//! does) where the cluster has none; its pods carry those claims as `persistentVolumeClaim`
//! volumes, as `updateStorage` writes them.
//!
//! `schedule` holds the concrete pods spreadlab schedules (the CLI's expansion:
//! [`Workload::pods_to_create`] per workload in reading order, then the scheduling queue's order,
//! [`scheduler::queue_order`]). Each pod is the Deployment's pod template **as written** (JSON),
//! with what the controller and the API server add, taken from spreadlab's pod:
//! `metadata.name`, `namespace`, `labels` (with `pod-template-hash`), a controller
//! `ownerReferences` entry, and the DefaultTolerationSeconds tolerations (that admission plugin is
//! not emulated by the oracle; `tolerationSeconds: 300`). Defaulting the oracle does itself
//! (requests from limits, `schedulerName`, Priority admission) is left to it, so a spreadlab
//! defaulting bug shows up as a disagreement. The template is used rather than a serializer of
//! the engine's pod, which would hide such bugs and drop fields the engine does not model.
//!
//! As a guard, [`oracle_input`] converts every schedule pod back through `spreadlab_k8s` and
//! requires the result to equal the pod spreadlab schedules.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use spreadlab_engine::KubeVersion;
use spreadlab_engine::model::{ClaimTemplate, Pod, Storage, VolumeSource};
use spreadlab_engine::scheduler::{self, Detail, Options, PodDecision};
use spreadlab_k8s::{LoadOptions, Loaded, Source, Workload, WorkloadKind};

pub use crate::compare::{
    Coverage, compare, json_differences, normalize_oracle_line, normalize_reasons, parse_jsonl,
};

/// The plugin the oracle scores (0 on every node) that spreadlab does not model.
pub const UNMODELLED_SCORE_PLUGIN: &str = "DynamicResources";

/// `tests/scenarios`.
pub fn scenarios_root() -> PathBuf {
    crate::upstream::fixtures_root().join("scenarios")
}

/// Every folder under `tests/scenarios` with a `cluster.yaml` and a `workload.yaml`, sorted.
pub fn scenario_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(scenarios_root())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("cluster.yaml").is_file() && p.join("workload.yaml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// One scenario, loaded as the CLI loads it.
#[derive(Debug)]
pub struct Scenario {
    /// The folder name.
    pub name: String,
    /// The folder.
    pub dir: PathBuf,
    /// The scenario files, in the order given to the loader: `cluster.yaml`, `workload.yaml`.
    pub sources: Vec<Source>,
    /// The load.
    pub loaded: Loaded,
    /// The pods to schedule, in scheduling order.
    pub pods: Vec<Pod>,
    /// For each pod, the index of its workload in `loaded.workloads`.
    pub workload_of: Vec<usize>,
}

/// Loads `dir/cluster.yaml` and `dir/workload.yaml` with `spreadlab_k8s::load` and expands the
/// workloads into pods as `spreadlab simulate` does (then in the scheduling queue's order, which
/// the engine would apply anyway). Input errors are an `Err`.
pub fn load_scenario(dir: &Path) -> Result<Scenario, String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut sources = Vec::new();
    for file in ["cluster.yaml", "workload.yaml"] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        sources.push(Source {
            name: file.to_owned(),
            text,
        });
    }
    let loaded = spreadlab_k8s::load(&sources, &LoadOptions::default());
    if !loaded.errors.is_empty() {
        let errors: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
        return Err(format!("{name}: input errors:\n  {}", errors.join("\n  ")));
    }
    let mut pods = Vec::new();
    let mut workload_of = Vec::new();
    for (index, workload) in loaded.workloads.iter().enumerate() {
        for pod in workload.pods_to_create(&loaded.cluster) {
            pods.push(pod);
            workload_of.push(index);
        }
    }
    let order = scheduler::queue_order(&pods);
    let pods = order.iter().map(|i| pods[*i].clone()).collect();
    let workload_of = order.iter().map(|i| workload_of[*i]).collect();
    Ok(Scenario {
        name,
        dir: dir.to_path_buf(),
        sources,
        loaded,
        pods,
        workload_of,
    })
}

/// Schedules the scenario's pods with the engine, keeping every per-node detail.
pub fn run_engine(scenario: &Scenario, version: KubeVersion) -> Vec<PodDecision> {
    let options = Options {
        detail: Detail::All,
        ..Options::for_version(version)
    };
    scheduler::simulate(&scenario.loaded.cluster, &scenario.pods, &options).decisions
}

// ---------------------------------------------------------------------------------------------
// Oracle input
// ---------------------------------------------------------------------------------------------

/// The file holding what the real scheduler of `version` decided on a seed scenario:
/// `expected.jsonl` for the reference release ([`crate::REFERENCE_RELEASE`]), `expected-1.NN.jsonl` for the others
/// (`scripts/record-scenarios.sh` records every release).
pub fn expected_file(version: KubeVersion) -> String {
    if version == crate::REFERENCE_RELEASE {
        String::from("expected.jsonl")
    } else {
        format!("expected-{version}.jsonl")
    }
}

/// The oracle binary of `version` next to the reference one (`SPREADLAB_ORACLE`), as
/// scripts/test.sh builds them: the path itself for the reference release, `<path>-1.NN` else.
pub fn oracle_for(default_oracle: &std::path::Path, version: KubeVersion) -> std::path::PathBuf {
    if version == crate::REFERENCE_RELEASE {
        default_oracle.to_path_buf()
    } else {
        let mut name = default_oracle.as_os_str().to_owned();
        name.push(format!("-{version}"));
        std::path::PathBuf::from(name)
    }
}

/// The documents of a YAML (or JSON) text, `List`s flattened into their items, nulls dropped.
fn raw_objects(source: &Source) -> Result<Vec<Value>, String> {
    let documents: Vec<Value> = serde_saphyr::from_str_multiple(&source.text)
        .map_err(|e| format!("{}: invalid YAML: {e}", source.name))?;
    let mut objects = Vec::new();
    let mut stack: Vec<Value> = documents.into_iter().rev().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => {}
            Value::Array(items) => stack.extend(items.into_iter().rev()),
            Value::Object(mut map) => {
                let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
                if let Some(item_kind) = kind.strip_suffix("List") {
                    let item_kind = item_kind.to_owned();
                    let api_version = map.get("apiVersion").cloned();
                    let items = match map.remove("items") {
                        Some(Value::Array(items)) => items,
                        _ => Vec::new(),
                    };
                    for mut item in items.into_iter().rev() {
                        if let Some(item) = item.as_object_mut()
                            && !item_kind.is_empty()
                            && !item.contains_key("kind")
                        {
                            item.insert("kind".into(), Value::String(item_kind.clone()));
                            if let Some(api_version) = &api_version {
                                item.entry("apiVersion").or_insert(api_version.clone());
                            }
                        }
                        stack.push(item);
                    }
                } else {
                    objects.push(Value::Object(map));
                }
            }
            other => return Err(format!("{}: not an object: {other}", source.name)),
        }
    }
    Ok(objects)
}

fn namespace_of(object: &Value) -> &str {
    object["metadata"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or("default")
}

/// Whether the loader reads this object as a workload (something to place).
fn is_workload(object: &Value) -> bool {
    match object["kind"].as_str().unwrap_or_default() {
        "Deployment" | "ReplicaSet" | "StatefulSet" | "Job" => true,
        "Pod" => object["spec"]["nodeName"]
            .as_str()
            .is_none_or(str::is_empty),
        _ => false,
    }
}

/// Builds the oracle's scenario (see the module documentation). Only Deployments and StatefulSets
/// are supported as workloads; anything else is an `Err`, as is a schedule pod that does not
/// convert back to the pod spreadlab schedules.
pub fn oracle_input(scenario: &Scenario) -> Result<Value, String> {
    let mut raw = Vec::new();
    for source in &scenario.sources {
        raw.extend(raw_objects(source)?);
    }
    let (workloads, mut objects): (Vec<Value>, Vec<Value>) = raw.into_iter().partition(is_workload);
    let object_of = |workload: &Workload| -> Result<&Value, String> {
        let kind = match workload.kind {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            other => {
                return Err(format!(
                    "{}: {} is a {other}; only Deployments and StatefulSets are recorded",
                    scenario.name,
                    workload.key(),
                ));
            }
        };
        workloads
            .iter()
            .find(|w| {
                w["kind"] == kind
                    && w["metadata"]["name"] == workload.name.as_str()
                    && namespace_of(w) == workload.namespace
            })
            .ok_or_else(|| {
                format!(
                    "{}: {} not found in the files",
                    scenario.name,
                    workload.key()
                )
            })
    };
    for workload in &scenario.loaded.workloads {
        let object = object_of(workload)?;
        if workload.kind == WorkloadKind::StatefulSet {
            let mut set = object.clone();
            set["metadata"]["namespace"] = json!(workload.namespace);
            objects.push(set);
        } else {
            objects.push(replica_set(workload, object)?);
        }
    }
    // The claims the StatefulSet controller creates before each pod (`createPersistentVolumeClaims`),
    // as admission stores them (DefaultStorageClass fills in the default class).
    let storage = &scenario.loaded.cluster.storage;
    let mut made = std::collections::BTreeSet::new();
    for (pod, &index) in scenario.pods.iter().zip(&scenario.workload_of) {
        let object = object_of(&scenario.loaded.workloads[index])?;
        for volume in &pod.volumes {
            let VolumeSource::Template(template) = &volume.source else {
                continue;
            };
            let name = template.claim_name(&pod.name);
            if template.ephemeral
                || storage.claim(&pod.namespace, &name).is_some()
                || !made.insert((pod.namespace.clone(), name.clone()))
            {
                continue;
            }
            objects.push(claim_object(
                object,
                template,
                &pod.namespace,
                &name,
                storage,
            )?);
        }
    }
    let mut schedule = Vec::new();
    for (pod, &index) in scenario.pods.iter().zip(&scenario.workload_of) {
        let workload = &scenario.loaded.workloads[index];
        let value = schedule_pod(pod, workload, object_of(workload)?)?;
        check_round_trip(&value, pod)?;
        schedule.push(value);
    }
    Ok(json!({
        "name": format!(
            "{}: generated from cluster.yaml and workload.yaml by `record-scenarios` (crates/conformance); do not edit",
            scenario.name
        ),
        "objects": objects,
        "schedule": schedule,
    }))
}

/// `oracle-input.yaml`'s text: a comment, then the scenario as pretty JSON (JSON is YAML).
pub fn render_oracle_input(input: &Value) -> String {
    let json = serde_json::to_string_pretty(input).unwrap_or_default();
    format!(
        "# Generated by `cargo run -p spreadlab-conformance --bin record-scenarios`; do not edit.\n\
         # The scenario as the Go oracle (tests/oracle) reads it, written as JSON (a subset of YAML).\n\
         {json}\n"
    )
}

fn labels_json(pod: &Pod) -> Value {
    Value::Object(
        pod.labels
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// The ReplicaSet the Deployment controller creates for `workload`.
fn replica_set(workload: &Workload, deployment: &Value) -> Result<Value, String> {
    let pod = workload
        .pods_to_create(&spreadlab_engine::model::Cluster::default())
        .into_iter()
        .next()
        .unwrap_or_else(|| workload.template.clone());
    let owner = pod
        .owner
        .as_ref()
        .ok_or_else(|| format!("{}: its pods have no owner", workload.key()))?;
    let hash = pod
        .labels
        .get("pod-template-hash")
        .cloned()
        .ok_or_else(|| format!("{}: no pod-template-hash", workload.key()))?;
    let spec = &deployment["spec"];
    let mut selector = spec["selector"].clone();
    let selector_map = selector
        .as_object_mut()
        .ok_or_else(|| format!("{}: spec.selector is not a mapping", workload.key()))?;
    let match_labels = selector_map
        .entry("matchLabels")
        .or_insert_with(|| json!({}));
    match_labels
        .as_object_mut()
        .ok_or_else(|| format!("{}: matchLabels is not a mapping", workload.key()))?
        .insert("pod-template-hash".into(), Value::String(hash));
    let mut template = spec["template"].clone();
    template["metadata"]["labels"] = labels_json(&pod);
    Ok(json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": owner.name,
            "namespace": workload.namespace,
            "labels": labels_json(&pod),
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "Deployment", "name": workload.name,
                "uid": format!("Deployment/{}/{}", workload.namespace, workload.name),
                "controller": true, "blockOwnerDeletion": true,
            }],
        },
        "spec": {
            "replicas": workload.replicas,
            "selector": selector,
            "template": template,
        },
    }))
}

/// The claim of `template` the StatefulSet controller makes for a pod: the template's metadata
/// and spec as written, named `name`, with the class admission gives it.
fn claim_object(
    set: &Value,
    template: &ClaimTemplate,
    namespace: &str,
    name: &str,
    storage: &Storage,
) -> Result<Value, String> {
    let written = set["spec"]["volumeClaimTemplates"]
        .as_array()
        .and_then(|list| {
            list.iter()
                .find(|t| t["metadata"]["name"] == template.name.as_str())
        })
        .ok_or_else(|| format!("no volumeClaimTemplate {}", template.name))?;
    let mut claim = json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": written["metadata"].clone(),
        "spec": written["spec"].clone(),
    });
    claim["metadata"]["name"] = json!(name);
    claim["metadata"]["namespace"] = json!(namespace);
    let class = template
        .make_claim(namespace, name, storage)
        .spec
        .storage_class;
    if template.class_unset && !class.is_empty() {
        claim["spec"]["storageClassName"] = json!(class);
    }
    Ok(claim)
}

/// One pod to schedule: the template as written plus what controller and admission add (a
/// StatefulSet's claim volumes as its controller's `updateStorage` writes them).
fn schedule_pod(pod: &Pod, workload: &Workload, owner: &Value) -> Result<Value, String> {
    let template = &owner["spec"]["template"];
    let mut metadata = template["metadata"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    metadata.insert("name".into(), Value::String(pod.name.clone()));
    metadata.insert("namespace".into(), Value::String(pod.namespace.clone()));
    metadata.insert("labels".into(), labels_json(pod));
    if let Some(owner) = &pod.owner {
        metadata.insert(
            "ownerReferences".into(),
            json!([{
                "apiVersion": owner.api_version, "kind": owner.kind, "name": owner.name,
                "uid": format!("{}/{}/{}", owner.kind, pod.namespace, owner.name),
                "controller": true, "blockOwnerDeletion": true,
            }]),
        );
    }
    let mut spec: Map<String, Value> = template["spec"].as_object().cloned().unwrap_or_default();
    let claims: Vec<Value> = pod
        .volumes
        .iter()
        .filter_map(|v| match &v.source {
            VolumeSource::Template(t) if !t.ephemeral => Some(json!({
                "name": v.name, "persistentVolumeClaim": {"claimName": t.claim_name(&pod.name)},
            })),
            _ => None,
        })
        .collect();
    if !claims.is_empty() {
        let mut volumes = claims;
        for volume in spec
            .get("volumes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !volumes.iter().any(|c| c["name"] == volume["name"]) {
                volumes.push(volume.clone());
            }
        }
        spec.insert("volumes".into(), Value::Array(volumes));
    }
    if spec
        .get("nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty())
    {
        return Err(format!("{}: the template sets nodeName", workload.key()));
    }
    // DefaultTolerationSeconds: the tolerations spreadlab's admission appended.
    let written = json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec});
    crate::differential::with_admitted_tolerations(&written, pod)
}

/// Converts a schedule pod back through `spreadlab_k8s` (with the API server's admission) and
/// requires it to equal the pod spreadlab schedules.
fn check_round_trip(value: &Value, pod: &Pod) -> Result<(), String> {
    let typed: k8s_openapi::api::core::v1::Pod = serde_json::from_value(value.clone())
        .map_err(|e| format!("{}: schedule pod does not parse: {e}", pod.key()))?;
    let mut converted = spreadlab_k8s::convert_pod(&typed, "default")
        .map_err(|e| format!("{}: schedule pod does not convert: {e}", pod.key()))?;
    spreadlab_k8s::admit_pod(&mut converted);
    // Resolved from the PriorityClasses by both sides' Priority admission.
    converted.priority = pod.priority;
    converted.preemption_policy = pod.preemption_policy;
    // The StatefulSet controller writes a template's claim as a `persistentVolumeClaim`.
    let mut pod = pod.clone();
    for volume in &mut pod.volumes {
        if let VolumeSource::Template(t) = &volume.source
            && !t.ephemeral
        {
            volume.source = VolumeSource::Claim(t.claim_name(&pod.name));
        }
    }
    let pod = &pod;
    if converted != *pod {
        return Err(format!(
            "{}: the oracle's pod would differ from spreadlab's:\n  oracle: {converted:?}\n  spreadlab: {pod:?}",
            pod.key()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_scalar_insufficient_reasons_are_sorted() {
        let reasons: Vec<String> = [
            "Too many pods",
            "Insufficient cpu",
            "Insufficient nvidia.com/gpu",
            "Insufficient example.com/foo",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            normalize_reasons(&reasons),
            [
                "Too many pods",
                "Insufficient cpu",
                "Insufficient example.com/foo",
                "Insufficient nvidia.com/gpu",
            ]
            .map(String::from)
            .to_vec()
        );
    }
}
