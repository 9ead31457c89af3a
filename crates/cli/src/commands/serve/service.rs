//! The service behind `spreadlab serve`: the snapshot kept (reloaded when its files change) and
//! the Kubewarden policy's decision on each request, in Gatekeeper's, AdmissionReview's and
//! Kyverno's shapes.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hyper::body::Bytes;
use serde_json::{Value, json};
use spreadlab_k8s::{LoadOptions, Source};
use spreadlab_policy::decide::{Decision, decide, decide_prepared};
use spreadlab_policy::settings::Settings;

use spreadlab_policy::snapshot::ClusterSource;

use super::model::Model;
pub use super::origin::{Origin, watched_kinds};
use super::review;
use super::snapshot::Snapshot;
use super::*;

/// The service: settings, where the cluster comes from, and the decision bounds. Transport-free,
/// so tests drive [`Service::handle`] directly as well as over TLS.
pub struct Service {
    origin: Origin,
    settings: Settings,
    /// Longest decision ([`Service::handle_within`]).
    eval_timeout: Duration,
    /// A slot per decision that may run at once (`max_decisions`); a decision whose deadline
    /// passed keeps its slot until it ends.
    slots: Arc<tokio::sync::Semaphore>,
    /// Set on SIGTERM: `/readyz` answers 503 while requests are still answered.
    shutting_down: AtomicBool,
    max_decisions: usize,
    metrics: super::metrics::Metrics,
    /// The cluster loaded once per state of the origin.
    model: Arc<Model>,
}

/// How long the model thread lets a burst of watch events gather before applying them.
const EVENT_BURST: Duration = Duration::from_millis(2);

/// An HTTP answer: status and JSON body.
pub type Answer = (u16, Value);

/// What a decision reads the cluster from.
enum Decider {
    /// The model of the origin's state ([`Model`]).
    Prepared(Arc<spreadlab_policy::Prepared>),
    /// The origin's objects, read for this decision.
    Source(Arc<dyn ClusterSource + Send + Sync>),
}

impl Decider {
    /// The policy's decision on `request`.
    fn decide(&self, request: &Value, settings: &Settings) -> Decision {
        match self {
            Decider::Prepared(prepared) => decide_prepared(request, settings, prepared),
            Decider::Source(source) => decide(request, settings, source.as_ref()),
        }
    }
}

impl Service {
    /// A service over these snapshot files, reloaded once changed files settle for `settle`
    /// ([`Snapshot`]); reads them (and the settings) once to fail early.
    pub fn new(
        files: Vec<PathBuf>,
        settings: Option<&PathBuf>,
        settle: Duration,
    ) -> Result<Service, String> {
        let settings = read_settings(settings)?;
        Ok(Service::with_origin(
            Origin::Files(Snapshot::open(files, settle)?),
            settings,
        ))
    }

    /// A service answering from a watched cluster (503 until every kind is listed once).
    pub fn live(
        watched: spreadlab_cluster::Watched,
        settings: Option<&PathBuf>,
    ) -> Result<Service, String> {
        Ok(Service::with_origin(
            Origin::Live(watched),
            read_settings(settings)?,
        ))
    }

    fn with_origin(origin: Origin, settings: Settings) -> Service {
        let settings_version = settings.version();
        Service {
            origin,
            settings,
            eval_timeout: Duration::from_secs(3),
            slots: Arc::new(tokio::sync::Semaphore::new(32)),
            shutting_down: AtomicBool::new(false),
            max_decisions: 32,
            metrics: super::metrics::Metrics::default(),
            model: Arc::new(Model::new(settings_version)),
        }
    }

    /// From now on `/readyz` answers 503 (Kubernetes takes the pod out of the Service while it
    /// still answers what reaches it).
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
    }

    /// `/metrics`, with the cluster's gauges as of now.
    fn metrics(&self) -> Answer {
        let mut gauges = self.origin.gauges();
        gauges.model = self.model_status();
        (200, Value::String(self.metrics.render(&gauges)))
    }

    /// The decisions' model against the origin's state now.
    fn model_status(&self) -> super::model::ModelStatus {
        let key = self.origin.cluster().ok().map(|now| now.key);
        self.model.status(key)
    }

    /// The cluster a decision reads now (its model, or the source when no model can be built
    /// from it), or the answer saying why there is none yet.
    fn cluster(&self) -> Result<Decider, Answer> {
        let now = self.origin.cluster()?;
        let source = Arc::clone(&now.source);
        Ok(match self.model.prepared(now) {
            Ok(prepared) => Decider::Prepared(prepared),
            // Decided on the source, which reports the problem as `onUnparseable` says.
            Err(_) => Decider::Source(source),
        })
    }

    /// Builds the model of the origin's state now if it is not built (the refresher thread).
    pub fn refresh_model(&self) {
        let _ = self.cluster();
    }

    /// Events taken in from a watched cluster (0 for snapshot files).
    pub fn events(&self) -> u64 {
        match &self.origin {
            Origin::Live(watched) => watched.events(),
            Origin::Files(_) => 0,
        }
    }

    /// Waits until a watched cluster takes in an event past the `seen`-th (then a little longer,
    /// so that a burst of events is applied to the model at once), at most `timeout`.
    pub fn wait_for_change(&self, seen: u64, timeout: Duration) {
        match &self.origin {
            Origin::Live(watched) => {
                if watched.wait_for_event(seen, timeout) {
                    std::thread::sleep(EVENT_BURST);
                }
            }
            Origin::Files(_) => std::thread::sleep(timeout),
        }
    }

    /// `/healthz`: where the cluster comes from and how current it is, and the decisions' model
    /// of it.
    fn health(&self) -> Answer {
        let (status, mut body) = self.origin.health();
        let model = self.model_status();
        body["model"] = json!({
            "built": model.took.is_some(),
            "current": model.current,
            "ageSeconds": model.age.map(|age| age.as_secs_f64()),
            "buildSeconds": model.took.map(|took| took.as_secs_f64()),
            "changesApplied": model.changes,
            "builds": model.builds,
            "lastChangesSeconds": model.last_changes.map(|took| took.as_secs_f64()),
        });
        (status, body)
    }

    /// Counts the verdicts of one decision answer and its time.
    fn count(&self, endpoint: &str, answer: &Answer, took: Duration) {
        self.metrics.latency(endpoint, took);
        let (status, body) = answer;
        let verdict = |allowed: &Value| match allowed.as_bool() {
            Some(true) => "allowed",
            Some(false) => "denied",
            None => "error",
        };
        if *status == 503 {
            self.metrics.verdict(endpoint, "unavailable");
        } else if *status >= 400 {
            self.metrics.verdict(endpoint, "error");
        } else if let Some(items) = body.pointer("/response/items").and_then(Value::as_array) {
            for item in items {
                self.metrics
                    .verdict(endpoint, verdict(&item["value"]["allowed"]));
            }
        } else if let Some(response) = body.get("response") {
            self.metrics
                .verdict(endpoint, verdict(&response["allowed"]));
        } else {
            self.metrics.verdict(endpoint, verdict(&body["allowed"]));
        }
    }

    /// The same service with these decision bounds: each decision at most `eval_timeout`, at
    /// most `max_decisions` running at once (those past their deadline included).
    pub fn with_bounds(mut self, eval_timeout: Duration, max_decisions: usize) -> Service {
        self.eval_timeout = eval_timeout;
        self.max_decisions = max_decisions.max(1);
        self.slots = Arc::new(tokio::sync::Semaphore::new(self.max_decisions));
        self
    }

    /// Answers one request within the decision deadline: the answer is computed on the
    /// runtime's blocking pool, and past `eval_timeout` the answer is an error (503 on
    /// `/validate`, a `systemError` on `/gatekeeper`, which Gatekeeper reports as a violation)
    /// while the decision finishes in the background, still holding its slot. The engine is pure
    /// and has no cancellation point, so it cannot be stopped, only no longer waited for. A
    /// decision (a POST) starts only with one of the `max_decisions` slots: it waits for one
    /// within the same deadline (503 when none frees in time, and then it never started), so a
    /// burst queues instead of every decision running at once, each with its own copy of a
    /// large cluster. Health, readiness and metrics never wait for a slot.
    pub async fn handle_within(self: &Arc<Self>, method: &str, path: &str, body: Bytes) -> Answer {
        let arrived = tokio::time::Instant::now();
        let decision = method == "POST";
        // The path without its query, and its name on `/metrics`.
        let route = path.split('?').next().unwrap_or(path);
        let endpoint = route.trim_start_matches('/');
        let slot = if decision {
            let slot = Arc::clone(&self.slots).acquire_owned();
            match tokio::time::timeout(self.eval_timeout, slot).await {
                Ok(Ok(slot)) => Some(slot),
                _ => {
                    self.metrics.verdict(endpoint, "busy");
                    return (
                        503,
                        json!({"error": format!(
                            "{} decisions running (--max-decisions) and none ended within {} ms (--eval-timeout); retry",
                            self.max_decisions,
                            self.eval_timeout.as_millis()
                        )}),
                    );
                }
            }
        } else {
            None
        };
        let (service, method_owned, path_owned) =
            (Arc::clone(self), method.to_owned(), path.to_owned());
        let answer = tokio::task::spawn_blocking(move || {
            // Given back however the decision ends (a panic included).
            let _slot = slot;
            service.handle(&method_owned, &path_owned, &body)
        });
        match tokio::time::timeout_at(arrived + self.eval_timeout, answer).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => (
                500,
                json!({"error": "the decision failed (a spreadlab bug: the server's log has the panic)"}),
            ),
            Err(_) => {
                let error = format!(
                    "the decision took longer than {} ms (--eval-timeout)",
                    self.eval_timeout.as_millis()
                );
                self.metrics.verdict(endpoint, "timeout");
                if route == "/gatekeeper" {
                    (
                        200,
                        json!({
                            "apiVersion": PROVIDER_API_VERSION,
                            "kind": "ProviderResponse",
                            "response": {"idempotent": true, "items": [], "systemError": error},
                        }),
                    )
                } else {
                    (503, json!({"error": error}))
                }
            }
        }
    }

    /// Answers one request.
    pub fn handle(&self, method: &str, path: &str, body: &[u8]) -> Answer {
        let path = path.split('?').next().unwrap_or(path);
        match (method, path) {
            ("GET", "/healthz") => self.health(),
            ("GET", "/readyz") if self.shutting_down.load(Ordering::SeqCst) => (
                503,
                json!({"status": "shutting down", "error": "shutting down (SIGTERM): still answering, not ready"}),
            ),
            ("GET", "/readyz") => match self.cluster() {
                Ok(_) => (200, json!({"status": "ready"})),
                Err(answer) => answer,
            },
            ("GET", "/metrics") => self.metrics(),
            ("POST", "/gatekeeper") => {
                let started = std::time::Instant::now();
                let answer = self.gatekeeper(body);
                self.count("gatekeeper", &answer, started.elapsed());
                answer
            }
            ("POST", "/validate") => {
                let started = std::time::Instant::now();
                let answer = self.validate(body);
                self.count("validate", &answer, started.elapsed());
                answer
            }
            (_, "/healthz" | "/readyz" | "/metrics" | "/gatekeeper" | "/validate") => (
                405,
                json!({"error": format!("{method} is not allowed on {path}")}),
            ),
            _ => (404, json!({"error": format!("no endpoint {path}")})),
        }
    }

    fn gatekeeper(&self, body: &[u8]) -> Answer {
        let response = |items: Vec<Value>, system_error: String| {
            json!({
                "apiVersion": PROVIDER_API_VERSION,
                "kind": "ProviderResponse",
                "response": {"idempotent": true, "items": items, "systemError": system_error},
            })
        };
        let request: Value = match serde_json::from_slice(body) {
            Ok(request) => request,
            Err(e) => return (400, response(Vec::new(), format!("body is not JSON: {e}"))),
        };
        if request.get("kind").and_then(Value::as_str) != Some("ProviderRequest") {
            return (
                400,
                response(Vec::new(), String::from("kind: must be ProviderRequest")),
            );
        }
        let Some(keys) = request.pointer("/request/keys").and_then(Value::as_array) else {
            return (
                400,
                response(
                    Vec::new(),
                    String::from("request.keys: missing or not an array"),
                ),
            );
        };
        let cluster = match self.cluster() {
            Ok(cluster) => cluster,
            Err((status, error)) => {
                let message = error["error"].as_str().unwrap_or_default().to_owned();
                return (status, response(Vec::new(), message));
            }
        };
        let items = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let answer = key
                    .as_str()
                    .ok_or_else(|| format!("request.keys[{i}]: not a string"))
                    .and_then(|text| {
                        serde_json::from_str::<Value>(text)
                            .map_err(|e| format!("request.keys[{i}]: not JSON: {e}"))
                    })
                    .map(|value| {
                        let request = key_request(value);
                        verdict(&cluster.decide(&request, &self.settings))
                    });
                match answer {
                    Ok(value) => json!({"key": key, "value": value, "error": ""}),
                    Err(error) => json!({"key": key, "value": Value::Null, "error": error}),
                }
            })
            .collect();
        (200, response(items, String::new()))
    }

    fn validate(&self, body: &[u8]) -> Answer {
        let body: Value = match serde_json::from_slice(body) {
            Ok(body) => body,
            Err(e) => return (400, json!({"error": format!("body is not JSON: {e}")})),
        };
        let cluster = match self.cluster() {
            Ok(cluster) => cluster,
            Err(answer) => return answer,
        };
        if body.get("request").is_some() {
            return review::answer(body, |request| cluster.decide(request, &self.settings));
        }
        let Some(object) = body.get("object").cloned() else {
            return (
                400,
                json!({"error": "body: neither an AdmissionReview (`request`) nor `object`"}),
            );
        };
        // Kyverno's what-if policy sends `request.operation`, `request.namespace` and
        // `oldObject` (null on CREATE): an UPDATE is judged as one (its old revision's pods
        // replaced), never as a CREATE.
        let operation = match body.get("operation") {
            None | Some(Value::Null) => String::from("CREATE"),
            Some(Value::String(operation)) if operation.is_empty() => String::from("CREATE"),
            Some(Value::String(operation)) => operation.clone(),
            Some(_) => return (400, json!({"error": "operation: not a string"})),
        };
        let namespace = match body.get("namespace") {
            None | Some(Value::Null) => None,
            Some(Value::String(namespace)) => Some(namespace.clone()).filter(|n| !n.is_empty()),
            Some(_) => return (400, json!({"error": "namespace: not a string"})),
        };
        let mut request = admission_request(object, body.get("oldObject").cloned(), &operation);
        if let Some(namespace) = namespace {
            request["namespace"] = Value::from(namespace);
        }
        (200, verdict(&cluster.decide(&request, &self.settings)))
    }
}

/// The policy's settings from `path` (defaults when `None`), with `--kubernetes-version` unless
/// they name a release.
fn read_settings(path: Option<&PathBuf>) -> Result<Settings, String> {
    let mut settings = match path {
        None => Settings::default(),
        Some(path) => {
            let mut left = crate::input::MAX_TOTAL_INPUT_BYTES;
            let text = crate::input::read_path(path, &mut left)?;
            let values = spreadlab_k8s::read_documents(
                &Source {
                    name: path.display().to_string(),
                    text,
                },
                &LoadOptions::default(),
            )
            .map_err(|e| e.to_string())?;
            let value = values.into_iter().next().unwrap_or(Value::Null);
            Settings::from_json(&value).map_err(|e| format!("{}: {e}", path.display()))?
        }
    };
    if settings.kubernetes_version.is_none() {
        settings.kubernetes_version = Some(crate::input::kubernetes_version().as_str().to_owned());
    }
    Ok(settings)
}

/// An AdmissionRequest for an object (kind and group from its `apiVersion` and `kind`).
pub(super) fn admission_request(
    object: Value,
    old_object: Option<Value>,
    operation: &str,
) -> Value {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = object.get("kind").cloned().unwrap_or(Value::Null);
    let namespace = object
        .pointer("/metadata/namespace")
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "uid": "spreadlab-serve",
        "kind": {"group": group, "version": version, "kind": kind},
        "operation": operation,
        "namespace": namespace,
        "object": object,
        "oldObject": old_object,
    })
}

/// The AdmissionRequest of one Gatekeeper key: a key with an `object` is an AdmissionRequest
/// (what `policies/gatekeeper/whatif/template.yaml` sends: `input.review`'s kind, operation,
/// namespace, name, object and oldObject), anything else the bare object (a CREATE). Gatekeeper's
/// audit and `gator` review stored objects with no operation: those are judged as a CREATE, as
/// is a request with no `kind` (taken from the object then).
pub(super) fn key_request(value: Value) -> Value {
    if value.get("object").is_none() {
        return admission_request(value, None, "CREATE");
    }
    let mut request = value;
    let object = request.get("object").cloned().unwrap_or(Value::Null);
    if let Value::Object(map) = &mut request {
        if map
            .get("operation")
            .is_none_or(|o| o.is_null() || o.as_str() == Some(""))
        {
            map.insert("operation".into(), Value::from("CREATE"));
        }
        if map.get("kind").is_none_or(Value::is_null) {
            let derived = admission_request(object, None, "CREATE");
            map.insert("kind".into(), derived["kind"].clone());
        }
        if map.get("namespace").is_some_and(|n| n.as_str() == Some("")) {
            map.remove("namespace");
        }
    }
    request
}

/// `{"allowed", "message", "warnings"}` of a decision (a mutation is allowed).
pub(super) fn verdict(decision: &Decision) -> Value {
    match decision {
        Decision::Accept { warnings } | Decision::Mutate { warnings, .. } => {
            json!({"allowed": true, "message": Value::Null, "warnings": warnings})
        }
        Decision::Reject { message } => {
            json!({"allowed": false, "message": message, "warnings": []})
        }
    }
}
