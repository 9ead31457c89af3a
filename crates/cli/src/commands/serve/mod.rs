//! `spreadlab serve`: the what-if service for admission controllers that cannot run wasm
//! (Gatekeeper's external data, Kyverno's `apiCall`). An HTTPS server (TLS 1.3 only, certificate
//! and key from PEM files) that answers from a cluster snapshot file, reloaded when it changes,
//! with exactly the decision of the Kubewarden policy (`spreadlab_policy::decide`, same settings).
//!
//! Endpoints (every answer is JSON):
//! - `POST /gatekeeper`: Gatekeeper's `ProviderRequest` (each key is the admitted object as a
//!   JSON string, or a whole AdmissionRequest) to a `ProviderResponse` whose item values are
//!   `{"allowed", "message", "warnings"}`;
//! - `POST /validate`: an `AdmissionReview` (answered with an `AdmissionReview`), or
//!   `{"object", "oldObject", "operation", "namespace"}` (what `policies/kyverno/whatif.yaml`
//!   posts; operation CREATE when absent) answered with `{"allowed", "message", "warnings"}`;
//! - `GET /healthz`: the snapshot's files, object count and reload generation.
//!
//! Bounds: request headers 16 KiB, bodies `--max-body` bytes (413 past it), `--timeout` per
//! socket read and write, `--request-timeout` for the whole request (TLS handshake, head and
//! body: a client trickling bytes gets 408 and loses its slot), `--eval-timeout` per decision
//! (an error answer past it: 503 on `/validate`, a `systemError` on `/gatekeeper`),
//! `--max-connections` handled at once. Past that a connection is answered 503 by one overflow
//! thread (a short handshake deadline) or, when that thread is busy too, closed: the threads
//! never exceed `max_connections` + 1, plus decisions that outlived their deadline, which are
//! counted against `max_connections` until they end.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use serde_json::{Value, json};
use spreadlab_k8s::{LoadOptions, Source};
use spreadlab_policy::decide::{Decision, decide};
use spreadlab_policy::settings::Settings;
use spreadlab_policy::snapshot::FixtureCluster;

/// Largest request head (request line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// Gatekeeper's external-data API version.
const PROVIDER_API_VERSION: &str = "externaldata.gatekeeper.sh/v1beta1";

/// How the service runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// PEM certificate chain (server certificate first).
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// Snapshot files (`kubectl get nodes,pods,namespaces,priorityclasses,services,poddisruptionbudgets
    /// -A -o yaml`), re-read when one changes.
    pub snapshot: Vec<PathBuf>,
    /// The policy's settings (JSON or YAML), as for the Kubewarden policy; defaults when absent.
    pub settings: Option<PathBuf>,
    /// Largest request body in bytes.
    pub max_body: usize,
    /// Socket read and write timeout.
    pub timeout: Duration,
    /// Deadline for receiving a whole request (handshake, head, body).
    pub request_timeout: Duration,
    /// Longest decision.
    pub eval_timeout: Duration,
    /// Connections handled at once.
    pub max_connections: usize,
}

/// Handshake and write deadline of the overflow thread's 503 answers.
const OVERFLOW_DEADLINE: Duration = Duration::from_secs(1);
/// How long a closed connection's late input is read and dropped ([`linger`]).
const LINGER: Duration = Duration::from_millis(500);
/// Over-limit connections queued for the overflow thread; more are closed unanswered.
const OVERFLOW_QUEUE: usize = 16;

/// The TLS 1.3-only server configuration for the PEM certificate chain and key.
pub fn tls_config(cert: &PathBuf, key: &PathBuf) -> Result<Arc<ServerConfig>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("{}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no PEM certificate", cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{}: {e}", key.display()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    Ok(Arc::new(config))
}

/// The snapshot as last read, and what it was read from.
struct Cached {
    /// Modification time and length of every file when read.
    stamps: Vec<(Option<SystemTime>, u64)>,
    /// The objects.
    cluster: Arc<FixtureCluster>,
    /// Reload count (1 after the first read).
    generation: u64,
}

/// The service: settings, snapshot files and the snapshot cache. Transport-free, so tests drive
/// [`Service::handle`] directly as well as over TLS.
pub struct Service {
    files: Vec<PathBuf>,
    settings: Settings,
    cached: Mutex<Option<Cached>>,
    /// Longest decision ([`Service::handle_within`]).
    eval_timeout: Duration,
    /// Decisions running (also those whose deadline passed), bounded by `max_decisions`.
    running: AtomicUsize,
    max_decisions: usize,
}

/// An HTTP answer: status and JSON body.
pub type Answer = (u16, Value);

impl Service {
    /// A service over these snapshot files; reads them (and the settings) once to fail early.
    pub fn new(files: Vec<PathBuf>, settings: Option<&PathBuf>) -> Result<Service, String> {
        let settings = match settings {
            None => Settings::default(),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
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
        if files.is_empty() {
            return Err(String::from("no snapshot file (--snapshot)"));
        }
        let service = Service {
            files,
            settings,
            cached: Mutex::new(None),
            eval_timeout: Duration::from_secs(3),
            running: AtomicUsize::new(0),
            max_decisions: 32,
        };
        service.cluster()?;
        Ok(service)
    }

    fn stamps(&self) -> Vec<(Option<SystemTime>, u64)> {
        self.files
            .iter()
            .map(|f| match std::fs::metadata(f) {
                Ok(m) => (m.modified().ok(), m.len()),
                Err(_) => (None, 0),
            })
            .collect()
    }

    /// The snapshot, re-read when a file's modification time or length changed. A snapshot
    /// that no longer reads is an error (the last good one is not used silently).
    fn cluster(&self) -> Result<(Arc<FixtureCluster>, u64), String> {
        let stamps = self.stamps();
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref()
            && c.stamps == stamps
        {
            return Ok((Arc::clone(&c.cluster), c.generation));
        }
        let mut objects = Vec::new();
        for file in &self.files {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let source = Source {
                name: file.display().to_string(),
                text,
            };
            objects.extend(
                spreadlab_k8s::read_documents(&source, &LoadOptions::default())
                    .map_err(|e| e.to_string())?,
            );
        }
        let generation = cached.as_ref().map_or(0, |c| c.generation) + 1;
        let cluster = Arc::new(FixtureCluster::new(objects));
        *cached = Some(Cached {
            stamps,
            cluster: Arc::clone(&cluster),
            generation,
        });
        Ok((cluster, generation))
    }

    /// The same service with these decision bounds: each decision at most `eval_timeout`, at
    /// most `max_decisions` running at once (those past their deadline included).
    pub fn with_bounds(mut self, eval_timeout: Duration, max_decisions: usize) -> Service {
        self.eval_timeout = eval_timeout;
        self.max_decisions = max_decisions.max(1);
        self
    }

    /// Answers one request within the decision deadline: the decision runs on its own thread,
    /// and past `eval_timeout` the answer is an error (503 on `/validate`, a `systemError` on
    /// `/gatekeeper`, which Gatekeeper reports as a violation) while the decision finishes in the
    /// background, still counted as running. The engine is pure and has no cancellation point,
    /// so it cannot be stopped, only no longer waited for.
    pub fn handle_within(self: &Arc<Self>, method: &str, path: &str, body: Vec<u8>) -> Answer {
        if method != "POST" {
            return self.handle(method, path, &body);
        }
        if self.running.fetch_add(1, Ordering::SeqCst) >= self.max_decisions {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return (503, json!({"error": "too many decisions running; retry"}));
        }
        let (send, receive) = mpsc::sync_channel(1);
        let (service, method_owned, path_owned) =
            (Arc::clone(self), method.to_owned(), path.to_owned());
        let spawned = std::thread::Builder::new()
            .name(String::from("spreadlab-decide"))
            .spawn(move || {
                let answer = service.handle(&method_owned, &path_owned, &body);
                service.running.fetch_sub(1, Ordering::SeqCst);
                let _ = send.send(answer);
            });
        if let Err(error) = spawned {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return (
                503,
                json!({"error": format!("cannot start the decision: {error}")}),
            );
        }
        match receive.recv_timeout(self.eval_timeout) {
            Ok(answer) => answer,
            Err(_) => {
                let error = format!(
                    "the decision took longer than {} ms (--eval-timeout)",
                    self.eval_timeout.as_millis()
                );
                if path.split('?').next() == Some("/gatekeeper") {
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
            ("GET", "/healthz") => match self.cluster() {
                Ok((cluster, generation)) => (
                    200,
                    json!({
                        "status": "ok",
                        "snapshot": {
                            "files": self.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
                            "objects": cluster.objects.len(),
                            "generation": generation,
                        },
                    }),
                ),
                Err(error) => (503, json!({"status": "error", "error": error})),
            },
            ("POST", "/gatekeeper") => self.gatekeeper(body),
            ("POST", "/validate") => self.validate(body),
            (_, "/healthz" | "/gatekeeper" | "/validate") => (
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
            Ok((cluster, _)) => cluster,
            Err(error) => return (200, response(Vec::new(), format!("snapshot: {error}"))),
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
                        verdict(&decide(&request, &self.settings, cluster.as_ref()))
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
            Ok((cluster, _)) => cluster,
            Err(error) => return (503, json!({"error": format!("snapshot: {error}")})),
        };
        if let Some(request) = body.get("request") {
            // An AdmissionReview.
            let decision = decide(request, &self.settings, cluster.as_ref());
            let verdict = verdict(&decision);
            let mut response = json!({
                "uid": request.get("uid").cloned().unwrap_or(Value::from("")),
                "allowed": verdict["allowed"],
            });
            if let Some(message) = verdict["message"].as_str() {
                response["status"] = json!({"code": 400, "message": message});
            }
            if !verdict["warnings"].as_array().is_none_or(Vec::is_empty) {
                response["warnings"] = verdict["warnings"].clone();
            }
            if let Decision::Mutate { object, .. } = &decision {
                response["patchType"] = Value::from("JSONPatch");
                response["patch"] = Value::from(whole_object_patch(object));
            }
            return (
                200,
                json!({
                    "apiVersion": "admission.k8s.io/v1",
                    "kind": "AdmissionReview",
                    "response": response,
                }),
            );
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
        (
            200,
            verdict(&decide(&request, &self.settings, cluster.as_ref())),
        )
    }
}

/// An AdmissionRequest for an object (kind and group from its `apiVersion` and `kind`).
fn admission_request(object: Value, old_object: Option<Value>, operation: &str) -> Value {
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
fn key_request(value: Value) -> Value {
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
fn verdict(decision: &Decision) -> Value {
    match decision {
        Decision::Accept { warnings } | Decision::Mutate { warnings, .. } => {
            json!({"allowed": true, "message": Value::Null, "warnings": warnings})
        }
        Decision::Reject { message } => {
            json!({"allowed": false, "message": message, "warnings": []})
        }
    }
}

/// A base64 JSON patch replacing the whole object (AdmissionReview's `patch`).
fn whole_object_patch(object: &Value) -> String {
    let patch = json!([{"op": "replace", "path": "", "value": object}]);
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&patch).unwrap_or_default())
}

/// Serves until the process ends.
pub fn run(config: &Config) -> Result<(), String> {
    let tls = tls_config(&config.cert, &config.key)?;
    let service = Arc::new(
        Service::new(config.snapshot.clone(), config.settings.as_ref())?
            .with_bounds(config.eval_timeout, config.max_connections),
    );
    let listener =
        TcpListener::bind(config.listen).map_err(|e| format!("{}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("spreadlab serve: listening on https://{address} (TLS 1.3)");
    let active = Arc::new(AtomicUsize::new(0));
    // One thread answers 503 to connections past the limit; a full queue closes them.
    let (overflow, overflowed) = mpsc::sync_channel::<TcpStream>(OVERFLOW_QUEUE);
    {
        let tls = Arc::clone(&tls);
        std::thread::Builder::new()
            .name(String::from("spreadlab-overflow"))
            .spawn(move || {
                for stream in overflowed {
                    let _ = stream.set_read_timeout(Some(OVERFLOW_DEADLINE));
                    let _ = stream.set_write_timeout(Some(OVERFLOW_DEADLINE));
                    answer_busy(stream, Arc::clone(&tls));
                }
            })
            .map_err(|e| format!("cannot start the overflow thread: {e}"))?;
    }
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= config.max_connections {
            active.fetch_sub(1, Ordering::SeqCst);
            // Dropped (closed) when the overflow thread is behind.
            let _ = overflow.try_send(stream);
            continue;
        }
        let _ = stream.set_write_timeout(Some(config.timeout));
        let (tls, service, done) = (Arc::clone(&tls), Arc::clone(&service), Arc::clone(&active));
        let limits = Limits {
            max_body: config.max_body,
            read_timeout: config.timeout,
            request_timeout: config.request_timeout,
        };
        let spawned = std::thread::Builder::new()
            .name(String::from("spreadlab-connection"))
            .spawn(move || {
                serve_connection(stream, tls, &service, &limits);
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
}

/// What bounds one connection.
struct Limits {
    max_body: usize,
    read_timeout: Duration,
    request_timeout: Duration,
}

/// A TLS stream whose reads stop at a deadline: each read waits at most the time left (and at
/// most the per-read timeout), so a client trickling bytes cannot hold the connection past it.
struct Deadlined<'s> {
    stream: &'s mut StreamOwned<ServerConnection, TcpStream>,
    deadline: Instant,
    read_timeout: Duration,
}

impl Read for Deadlined<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let left = self
            .deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::TimedOut))?;
        self.stream
            .sock
            .set_read_timeout(Some(left.min(self.read_timeout)))?;
        self.stream.read(buffer)
    }
}

/// Writes one JSON answer and closes the TLS session.
fn write_answer(stream: &mut StreamOwned<ServerConnection, TcpStream>, (status, body): Answer) {
    let body = serde_json::to_vec(&body).unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    stream.conn.send_close_notify();
    let _ = stream.conn.complete_io(&mut stream.sock);
    linger(&mut stream.sock);
}

/// Closes the write side and reads what the client still sends for a moment (at most
/// `LINGER` and 64 KiB): closing a socket with unread input resets the connection, and the
/// client may then lose the answer (a 503, 408 or 413 sent before its request was read).
fn linger(socket: &mut TcpStream) {
    let _ = socket.shutdown(std::net::Shutdown::Write);
    let deadline = Instant::now() + LINGER;
    let mut buffer = [0u8; 4096];
    let mut drained = 0;
    while drained < 64 * 1024 {
        let Some(left) = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        else {
            break;
        };
        if socket.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match socket.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// The overflow thread's answer: 503 after the handshake, without reading the request.
fn answer_busy(stream: TcpStream, tls: Arc<ServerConfig>) {
    let Ok(connection) = ServerConnection::new(tls) else {
        return;
    };
    let mut stream = StreamOwned::new(connection, stream);
    let deadline = Instant::now() + OVERFLOW_DEADLINE;
    while stream.conn.is_handshaking() {
        if Instant::now() >= deadline || stream.conn.complete_io(&mut stream.sock).is_err() {
            return;
        }
    }
    write_answer(
        &mut stream,
        (503, json!({"error": "too many connections; retry"})),
    );
}

/// One request on one TLS connection (`Connection: close`).
fn serve_connection(
    stream: TcpStream,
    tls: Arc<ServerConfig>,
    service: &Arc<Service>,
    limits: &Limits,
) {
    let Ok(connection) = ServerConnection::new(tls) else {
        return;
    };
    let mut stream = StreamOwned::new(connection, stream);
    let deadline = Instant::now() + limits.request_timeout;
    let read = read_request(
        &mut Deadlined {
            stream: &mut stream,
            deadline,
            read_timeout: limits.read_timeout,
        },
        limits.max_body,
    );
    let answer = match read {
        Ok((method, path, body)) => service.handle_within(&method, &path, body),
        Err(Some(answer)) => answer,
        Err(None) => return,
    };
    write_answer(&mut stream, answer);
}

/// Reads the request head and body. `Err(None)`: the connection failed (nothing to answer).
fn read_request(
    stream: &mut impl Read,
    max_body: usize,
) -> Result<(String, String, Vec<u8>), Option<Answer>> {
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(&buffer) {
            Ok(httparse::Status::Complete(head_len)) => {
                let method = request.method.unwrap_or("").to_owned();
                let path = request.path.unwrap_or("").to_owned();
                let length = request
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                    .map(|h| {
                        std::str::from_utf8(h.value)
                            .ok()
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .ok_or_else(|| {
                                Some((400, json!({"error": "Content-Length is not a number"})))
                            })
                    })
                    .transpose()?
                    .unwrap_or(0);
                if request
                    .headers
                    .iter()
                    .any(|h| h.name.eq_ignore_ascii_case("transfer-encoding"))
                {
                    return Err(Some((
                        411,
                        json!({"error": "send a Content-Length (chunked bodies are not read)"}),
                    )));
                }
                if length > max_body {
                    return Err(Some((
                        413,
                        json!({"error": format!("body of {length} bytes is over the limit of {max_body}")}),
                    )));
                }
                let mut body = buffer[head_len..].to_vec();
                while body.len() < length {
                    let n = stream.read(&mut chunk).map_err(read_failure)?;
                    if n == 0 {
                        return Err(None);
                    }
                    body.extend_from_slice(&chunk[..n]);
                }
                body.truncate(length);
                return Ok((method, path, body));
            }
            Ok(httparse::Status::Partial) => {}
            Err(e) => return Err(Some((400, json!({"error": format!("bad request: {e}")})))),
        }
        if buffer.len() > MAX_HEAD {
            return Err(Some((431, json!({"error": "request head over 16 KiB"}))));
        }
        let n = stream.read(&mut chunk).map_err(read_failure)?;
        if n == 0 {
            return Err(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// A failed read: a timeout is answered 408 (the client is still there), anything else closes.
fn read_failure(error: std::io::Error) -> Option<Answer> {
    matches!(
        error.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
    .then(|| (408, json!({"error": "the request did not arrive in time"})))
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admission_request_takes_group_and_version_from_api_version() {
        let request = admission_request(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "n"}}),
            None,
            "CREATE",
        );
        assert_eq!(
            request["kind"],
            json!({"group": "apps", "version": "v1", "kind": "Deployment"})
        );
        assert_eq!(request["namespace"], "n");
        let pod = admission_request(json!({"apiVersion": "v1", "kind": "Pod"}), None, "CREATE");
        assert_eq!(pod["kind"]["group"], "");
        assert_eq!(pod["kind"]["version"], "v1");
    }

    #[test]
    fn head_and_body_limits() {
        let too_big = b"POST /validate HTTP/1.1\r\nContent-Length: 99\r\n\r\n".to_vec();
        let answer = read_request(&mut &too_big[..], 10).unwrap_err().unwrap();
        assert_eq!(answer.0, 413);
        let mut long = b"GET /healthz HTTP/1.1\r\nX-A: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', 20_000));
        let answer = read_request(&mut &long[..], 10).unwrap_err().unwrap();
        assert_eq!(answer.0, 431);
        let ok = b"POST /validate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}".to_vec();
        let (method, path, body) = read_request(&mut &ok[..], 10).unwrap();
        assert_eq!(
            (method.as_str(), path.as_str(), &body[..]),
            ("POST", "/validate", &b"{}"[..])
        );
    }
}
