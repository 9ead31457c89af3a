//! The decision: a pure function of (admission request, settings, cluster source) that loads the
//! object and the cluster through `spreadlab-k8s`, runs the engine and its analyses, and returns
//! a [`Decision`]. Verdicts (violations) and problems (what could not be read) are kept apart;
//! the `onUnparseable` setting alone decides what a problem does.

use std::collections::BTreeSet;

use serde_json::Value;
use spreadlab_engine::model::{Pod, WhenUnsatisfiable};
use spreadlab_engine::scheduler::{Detail, Options};
use spreadlab_k8s::slim::SlimPod;
use spreadlab_k8s::{FieldValidation, LoadOptions, Loaded, Object, Workload, WorkloadKind};

use crate::mutate;
use crate::prepared::Prepared;
use crate::request::{self, Admission, Kind, Operation, RequestError};
use crate::settings::{Mode, OnUnparseable, Settings};
use crate::snapshot::{self, ClusterSource, SourceError};

/// Longest message of one violation, in characters (the scheduler's messages on big clusters are
/// long; `kubectl` prints the whole rejection).
pub const MAX_VIOLATION_CHARS: usize = 480;
/// Longest rejection message, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1200;
/// Prefix of every message and warning.
pub const PREFIX: &str = "spreadlab";

/// What the policy answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Accept as is.
    Accept {
        /// Warnings for the client (`mode: warn`, or an unreadable request under
        /// `onUnparseable: warn`).
        warnings: Vec<String>,
    },
    /// Accept this replacement of the object (mutating variant).
    Mutate {
        /// The whole mutated object.
        object: Value,
        /// Warnings for the client.
        warnings: Vec<String>,
    },
    /// Reject.
    Reject {
        /// Shown by `kubectl`.
        message: String,
    },
}

/// Something the policy could not read: never a verdict on the workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The `validate` payload or the admission request.
    Request(RequestError),
    /// The admitted object does not convert (field path and message).
    Object(String),
    /// A cluster read failed.
    Cluster(SourceError),
}

impl core::fmt::Display for Problem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Problem::Request(error) => write!(f, "cannot read the request: {error}"),
            Problem::Object(error) => write!(f, "cannot read the object: {error}"),
            Problem::Cluster(error) => write!(f, "cannot read the cluster: {error}"),
        }
    }
}

/// The checks' result on a readable request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Violations, each a short sentence.
    pub violations: Vec<String>,
    /// The mutated object (mutating variant, when something changed).
    pub mutated: Option<Value>,
}

/// Decides on a whole `validate` payload (`{"request": ..., "settings": ...}`). Settings that do
/// not validate reject the request (they should have been refused by `validate_settings`).
pub fn decide_payload(payload: &[u8], cluster: &dyn ClusterSource) -> Decision {
    decide_payload_in(payload, On::Source(cluster))
}

/// [`decide_payload`] on a cluster loaded once for many decisions: the same decision.
pub fn decide_payload_prepared(payload: &[u8], prepared: &Prepared) -> Decision {
    decide_payload_in(payload, On::Prepared(prepared))
}

/// Where a decision reads the cluster.
#[derive(Clone, Copy)]
enum On<'a> {
    /// Listed and loaded for this decision.
    Source(&'a dyn ClusterSource),
    /// Loaded before ([`Prepared`]); its source when a check needs more.
    Prepared(&'a Prepared),
}

impl<'a> On<'a> {
    fn source(self) -> Source<'a> {
        match self {
            On::Source(source) => Source::Borrowed(source),
            On::Prepared(prepared) => Source::Shared(prepared.source()),
        }
    }
}

/// A decision's cluster source: the caller's, or a prepared cluster's current one.
enum Source<'a> {
    Borrowed(&'a dyn ClusterSource),
    Shared(std::sync::Arc<dyn ClusterSource + Send + Sync>),
}

impl<'a> std::ops::Deref for Source<'a> {
    type Target = dyn ClusterSource + 'a;

    fn deref(&self) -> &Self::Target {
        match self {
            Source::Borrowed(source) => *source,
            Source::Shared(source) => source.as_ref(),
        }
    }
}

fn decide_payload_in(payload: &[u8], cluster: On<'_>) -> Decision {
    let payload: Value = match serde_json::from_slice(payload) {
        Ok(payload) => payload,
        Err(error) => {
            return problem_decision(
                &Settings::default(),
                &Problem::Request(RequestError {
                    field: String::from("(payload)"),
                    message: format!("not JSON: {error}"),
                }),
            );
        }
    };
    let settings = match Settings::from_json(payload.get("settings").unwrap_or(&Value::Null)) {
        Ok(settings) => settings,
        Err(error) => {
            return Decision::Reject {
                message: format!("{PREFIX}: invalid policy settings: {error}"),
            };
        }
    };
    match payload.get("request") {
        Some(request) => decide_in(request, &settings, cluster),
        None => problem_decision(
            &settings,
            &Problem::Request(RequestError {
                field: String::from("request"),
                message: String::from("missing"),
            }),
        ),
    }
}

/// Decides on one admission request.
pub fn decide(request: &Value, settings: &Settings, cluster: &dyn ClusterSource) -> Decision {
    decide_in(request, settings, On::Source(cluster))
}

/// [`decide`] on a cluster loaded once for many decisions: the same decision.
pub fn decide_prepared(request: &Value, settings: &Settings, prepared: &Prepared) -> Decision {
    decide_in(request, settings, On::Prepared(prepared))
}

fn decide_in(request: &Value, settings: &Settings, cluster: On<'_>) -> Decision {
    let outcome = request::parse(request)
        .map_err(Problem::Request)
        .and_then(|admission| evaluate_in(&admission, settings, cluster));
    match outcome {
        Err(problem) => problem_decision(settings, &problem),
        Ok(outcome) => verdict(settings, outcome),
    }
}

fn problem_decision(settings: &Settings, problem: &Problem) -> Decision {
    let message = truncate(&format!("{PREFIX}: {problem}"), MAX_MESSAGE_CHARS);
    match settings.on_unparseable {
        OnUnparseable::Reject => Decision::Reject { message },
        OnUnparseable::Warn => Decision::Accept {
            warnings: vec![format!(
                "{message} (accepted unchecked: onUnparseable=warn)"
            )],
        },
    }
}

fn verdict(settings: &Settings, outcome: Outcome) -> Decision {
    let violations: Vec<String> = outcome
        .violations
        .iter()
        .map(|v| truncate(v, MAX_VIOLATION_CHARS))
        .collect();
    // Each verdict says which release's scheduler it is for, where truncation cannot cut it.
    let prefix = format!("{PREFIX} (kube-scheduler v{})", settings.version());
    if !violations.is_empty() && settings.mode == Mode::Reject {
        return Decision::Reject {
            message: truncate(
                &format!("{prefix}: {}", violations.join("; ")),
                MAX_MESSAGE_CHARS,
            ),
        };
    }
    let warnings = violations
        .into_iter()
        .map(|v| format!("{prefix}: {v}"))
        .collect();
    match outcome.mutated {
        Some(object) => Decision::Mutate { object, warnings },
        None => Decision::Accept { warnings },
    }
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Whether the request is in the settings' scope (before mutation).
fn in_scope(admission: &Admission, settings: &Settings) -> bool {
    let scope = &settings.scope;
    if !scope.namespaces.is_empty() && !scope.namespaces.contains(&admission.namespace) {
        return false;
    }
    if scope.excluded_namespaces.contains(&admission.namespace) {
        return false;
    }
    if let Some(selector) = settings.scope_selector()
        && !selector.matches(&admission.labels())
    {
        return false;
    }
    if !scope.check_controlled_objects && admission.made_by_checked_controller() {
        return false;
    }
    true
}

/// Most cluster objects (Nodes, Pods, ...) one evaluation reads; a bigger cluster is a problem
/// (`onUnparseable`), never a partial snapshot.
pub const MAX_CLUSTER_OBJECTS: usize = 200_000;

/// What the cluster's objects are called in their load's errors and warnings (a decision reads
/// them whole or onto a [`Prepared`] cluster: the same name either way).
pub(crate) const CLUSTER_ORIGIN: &str = "cluster snapshot";

pub(crate) fn load_options(namespace: &str) -> LoadOptions {
    LoadOptions {
        default_namespace: namespace.to_owned(),
        max_documents: MAX_CLUSTER_OBJECTS + 1,
        // The API server has validated every object the policy reads: a field the v1.37 types
        // do not have is from a newer cluster, not a mistake to report.
        field_validation: FieldValidation::Ignore,
        ..LoadOptions::default()
    }
}

fn workload_kind(kind: Kind) -> WorkloadKind {
    match kind {
        Kind::Deployment => WorkloadKind::Deployment,
        Kind::StatefulSet => WorkloadKind::StatefulSet,
        Kind::ReplicaSet => WorkloadKind::ReplicaSet,
        Kind::Pod => WorkloadKind::Pod,
    }
}

/// The admitted object's workload in a load, or the first error about it (`index`: its
/// document index).
fn admitted_workload<'l>(
    loaded: &'l Loaded,
    admission: &Admission,
    kind: Kind,
    index: usize,
) -> Result<Option<&'l Workload>, String> {
    admitted_in(loaded, admission, kind, &loaded.errors, index)
}

/// [`admitted_workload`] with the load's errors about the object among `errors`.
pub(crate) fn admitted_in<'l>(
    loaded: &'l Loaded,
    admission: &Admission,
    kind: Kind,
    errors: &[spreadlab_k8s::InputError],
    index: usize,
) -> Result<Option<&'l Workload>, String> {
    if let Some(error) = errors.iter().find(|e| e.document == Some(index)) {
        let path = error
            .path
            .as_deref()
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        return Err(format!("{path}{}", error.message));
    }
    Ok(loaded.workloads.iter().find(|w| {
        w.kind == workload_kind(kind)
            && w.namespace == admission.namespace
            && w.name == admission.name
    }))
}

fn requests_any(pod: &Pod, resources: &[String]) -> bool {
    pod.containers.iter().chain(&pod.init_containers).any(|c| {
        resources
            .iter()
            .any(|r| c.requests.contains_key(r) || c.limits.contains_key(r))
    })
}

/// Runs every check the settings ask for.
pub fn evaluate(
    admission: &Admission,
    settings: &Settings,
    cluster: &dyn ClusterSource,
) -> Result<Outcome, Problem> {
    evaluate_in(admission, settings, On::Source(cluster))
}

fn evaluate_in(admission: &Admission, settings: &Settings, on: On<'_>) -> Result<Outcome, Problem> {
    let Some(kind) = admission.kind else {
        return Ok(Outcome::default());
    };
    if admission.operation == Operation::Other || !in_scope(admission, settings) {
        return Ok(Outcome::default());
    }
    let mut outcome = Outcome::default();
    let mut object = admission.object.clone();
    // Recorded in the outcome once the object is known to be in scope (`gpuOnly` needs it
    // loaded): an out-of-scope workload is never mutated.
    let mutated = settings.mutate && mutate::mutate(&mut object, kind, settings);
    // The checks judge the object as admitted (mutated): a rollout is a change of its template.
    let rollout_candidate =
        admission.operation == Operation::Update && admission.template_changed_in(&object);

    // The object alone: static checks, and whether it is in scope at all.
    let alone = spreadlab_k8s::load_values(
        "admission request",
        vec![object.clone()],
        &load_options(&admission.namespace),
    );
    let validation_enforced = settings
        .lint_rules
        .iter()
        .any(|r| r == "kubernetes-validation");
    let workload = match admitted_workload(&alone, admission, kind, 0) {
        Ok(Some(workload)) => workload,
        // A Pod bound by its author (spec.nodeName) is not scheduled: nothing to check.
        Ok(None) => return Ok(outcome),
        Err(error) if validation_enforced => {
            if mutated {
                outcome.mutated = Some(object.clone());
            }
            outcome.violations.push(format!(
                "{}: [kubernetes-validation] {error}",
                admission.describe()
            ));
            return Ok(outcome);
        }
        Err(error) => return Err(Problem::Object(error)),
    };
    // The mutation never touches resources, so the mutated template requests what the
    // admitted one does.
    if settings.scope.gpu_only && !requests_any(&workload.template, &settings.scope.gpu_resources) {
        return Ok(Outcome::default());
    }
    if mutated {
        outcome.mutated = Some(object.clone());
    }
    let subject = admission.describe();
    for violation in static_violations(&workload.template, settings) {
        outcome.violations.push(format!("{subject}: {violation}"));
    }
    if !settings.needs_cluster() {
        return Ok(outcome);
    }
    if let On::Prepared(prepared) = on
        && let Some(violations) =
            prepared.violations(admission, &object, kind, rollout_candidate, settings)
    {
        for violation in violations? {
            outcome.violations.push(format!("{subject}: {violation}"));
        }
        return Ok(outcome);
    }
    let source = on.source();
    let cluster: &dyn ClusterSource = &*source;

    // The admitted object first: a load bound can never drop it.
    let mut values = vec![Object::Value(object)];
    values.extend(read_cluster(admission, settings, cluster)?);
    let options = load_options(&admission.namespace);
    if values.len() > options.max_documents {
        return Err(too_many(values.len() - 1));
    }
    let loaded = spreadlab_k8s::load_objects(CLUSTER_ORIGIN, values, &options);
    let workload = match admitted_workload(&loaded, admission, kind, 0) {
        Ok(Some(workload)) => workload,
        // It loaded alone: not finding it now is this policy's bug, never a silent accept.
        Ok(None) => {
            return Err(Problem::Object(String::from(
                "the object loaded alone but not with the cluster snapshot",
            )));
        }
        Err(error) => return Err(Problem::Object(error)),
    };
    for violation in
        crate::checks::cluster_violations(workload, rollout_candidate, &loaded.cluster, settings)
    {
        outcome.violations.push(format!("{subject}: {violation}"));
    }
    Ok(outcome)
}

/// The problem of a cluster of `objects` objects, over [`MAX_CLUSTER_OBJECTS`].
pub(crate) fn too_many(objects: usize) -> Problem {
    Problem::Cluster(SourceError {
        resource: snapshot::POD,
        message: format!(
            "the cluster has {objects} objects, more than the {MAX_CLUSTER_OBJECTS} the policy reads"
        ),
    })
}

/// Checks of the pod template alone. Each violation starts with its rule ID in brackets, the
/// IDs of `policies/README.md` (shared with the Gatekeeper, Kyverno and VAP policies, which the
/// same fixtures test). maxSkew and DoNotSchedule apply to the constraints on the required keys
/// (on every constraint when none is required), so a deliberate soft node-level spread next to
/// the required zone spread is not a violation.
fn static_violations(template: &Pod, settings: &Settings) -> Vec<String> {
    let mut violations = Vec::new();
    let constraints = &template.topology_spread_constraints;
    for required in &settings.required_topology_keys {
        if !constraints
            .iter()
            .any(|c| c.topology_key == required.topology_key)
        {
            violations.push(format!(
                "[zone-spread-required] no topologySpreadConstraint on {} (required by policy)",
                required.topology_key
            ));
        }
    }
    let required: BTreeSet<&str> = settings
        .required_topology_keys
        .iter()
        .map(|r| r.topology_key.as_str())
        .collect();
    let governed = |c: &&spreadlab_engine::model::TopologySpreadConstraint| {
        required.is_empty() || required.contains(c.topology_key.as_str())
    };
    if let Some(max_skew) = settings.max_skew {
        for constraint in constraints
            .iter()
            .filter(governed)
            .filter(|c| c.max_skew > max_skew)
        {
            violations.push(format!(
                "[max-skew-exceeded] topologySpreadConstraint on {} has maxSkew {}, policy allows at most {max_skew}",
                constraint.topology_key, constraint.max_skew
            ));
        }
    }
    if settings.require_do_not_schedule {
        for constraint in constraints
            .iter()
            .filter(governed)
            .filter(|c| c.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule)
        {
            violations.push(format!(
                "[do-not-schedule-required] topologySpreadConstraint on {} is ScheduleAnyway, policy requires DoNotSchedule",
                constraint.topology_key
            ));
        }
    }
    violations
}

/// Lists the cluster through the source: Nodes, bound Pods (not the admitted Pod itself),
/// Namespaces, PriorityClasses, Services (their selectors only), and PodDisruptionBudgets when a
/// rule reads them. No controllers: the pods placed are the admitted workload's, whose
/// controller for `DefaultSelector` is the admitted object itself (the loader registers it; a
/// Deployment's through its ReplicaSet). An admitted Pod owned by a ReplicaSet or StatefulSet
/// (`scope.checkControlledObjects`) gets its default spread selector from the Services alone
/// (the loader would adopt the Pod into a listed owner and place the owner instead).
fn read_cluster(
    admission: &Admission,
    settings: &Settings,
    cluster: &dyn ClusterSource,
) -> Result<Vec<Object>, Problem> {
    let admitted_pod = (admission.kind == Some(Kind::Pod))
        .then_some((admission.namespace.as_str(), admission.name.as_str()));
    let mut objects = read_base(cluster, admitted_pod)?;
    let mut values = Vec::new();
    if settings.lint_rules.iter().any(|r| r == "pdb-violated") {
        values.extend(cluster.list(snapshot::PDB).map_err(Problem::Cluster)?);
    }
    if uses_claims(&admission.object) {
        for &resource in snapshot::STORAGE {
            values.extend(cluster.list(resource).map_err(Problem::Cluster)?);
        }
    }
    objects.extend(values.into_iter().map(Object::Value));
    Ok(objects)
}

/// What every check against the cluster reads: Nodes, bound Pods but the one named `exclude`
/// (namespace, name: the admitted Pod's old copy), Namespaces, PriorityClasses and Services
/// (their selectors only), in that order.
pub(crate) fn read_base(
    cluster: &dyn ClusterSource,
    exclude: Option<(&str, &str)>,
) -> Result<Vec<Object>, Problem> {
    let nodes = cluster.list(snapshot::NODE).map_err(Problem::Cluster)?;
    let pods = cluster.list_pods().map_err(Problem::Cluster)?;
    let is_excluded = |pod: &SlimPod| {
        exclude.is_some_and(|(namespace, name)| {
            pod.namespace() == Some(namespace) && pod.name() == Some(name)
        })
    };
    let mut objects: Vec<Object> = nodes.into_iter().map(Object::Value).collect();
    // Unbound pods in the cache are other workloads' Pending replicas: the scheduler's queue,
    // not capacity; the admitted workload is judged against the bound ones.
    objects.extend(
        pods.into_iter()
            .filter(|pod| pod.is_bound() && !is_excluded(pod))
            .map(Object::from),
    );
    let mut values = Vec::new();
    values.extend(
        cluster
            .list(snapshot::NAMESPACE)
            .map_err(Problem::Cluster)?,
    );
    values.extend(
        cluster
            .list(snapshot::PRIORITY_CLASS)
            .map_err(Problem::Cluster)?,
    );
    values.extend(
        cluster
            .list(snapshot::SERVICE)
            .map_err(Problem::Cluster)?
            .into_iter()
            .map(slim_service),
    );
    objects.extend(values.into_iter().map(Object::Value));
    Ok(objects)
}

/// Whether the admitted object's pods use a claim (a `persistentVolumeClaim` or ephemeral volume,
/// or a StatefulSet's `volumeClaimTemplates`): only then do the volume plugins read storage.
pub(crate) fn uses_claims(object: &Value) -> bool {
    let spec = &object["spec"];
    let pod_spec = if object["kind"] == "Pod" {
        spec
    } else {
        &spec["template"]["spec"]
    };
    let has_claim_volume = pod_spec["volumes"].as_array().is_some_and(|volumes| {
        volumes
            .iter()
            .any(|v| v.get("persistentVolumeClaim").is_some() || v.get("ephemeral").is_some())
    });
    has_claim_volume
        || spec["volumeClaimTemplates"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
}

/// A Service cut to what `DefaultSelector` reads: namespace, name and `spec.selector`.
fn slim_service(service: Value) -> Value {
    let mut slim = serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {}});
    for key in ["name", "namespace"] {
        if let Some(value) = service.pointer(&format!("/metadata/{key}")) {
            slim["metadata"][key] = value.clone();
        }
    }
    if let Some(selector) = service.pointer("/spec/selector") {
        slim["spec"] = serde_json::json!({"selector": selector});
    }
    slim
}

/// The options every check runs with: the release of `kubernetesVersion`, no per-node detail
/// (only verdicts and messages are read).
pub(crate) fn options(settings: &Settings) -> Options {
    Options {
        detail: Detail::None,
        ..Options::for_version(settings.version())
    }
}
