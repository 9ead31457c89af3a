//! A waPC host for the spreadlab Kubewarden policy, built from the crates Kubewarden's
//! policy-server uses (`wapc` + `wasmtime-provider`): it loads the built `.wasm`, answers the
//! guest's `kubewarden/kubernetes/list_resources_all` host calls from a fixture cluster (as the
//! policy-server answers them from its watch caches), and can enforce an evaluation deadline
//! with wasmtime epoch interruptions, as the policy-server does for `KUBEWARDEN_POLICY_TIMEOUT`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wapc::WapcHost;
use wasmtime_provider::wasmtime;
use wasmtime_provider::{EpochDeadlines, WasmtimeEngineProviderBuilder};

/// Host-call error type of `wapc`.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("../..")
}

/// The policy module: `$SPREADLAB_POLICY_WASM` (`scripts/test-policy.sh` builds it and sets it).
pub fn wasm_path() -> PathBuf {
    match std::env::var("SPREADLAB_POLICY_WASM") {
        Ok(path) => PathBuf::from(path),
        Err(_) => {
            panic!("set SPREADLAB_POLICY_WASM to the built policy (scripts/test-policy.sh does)")
        }
    }
}

/// The policy built with the `fault-injection` feature: `$SPREADLAB_POLICY_FAULTS_WASM`
/// (`scripts/test-policy.sh` builds it and sets it).
pub fn faults_wasm_path() -> PathBuf {
    match std::env::var("SPREADLAB_POLICY_FAULTS_WASM") {
        Ok(path) => PathBuf::from(path),
        Err(_) => panic!(
            "set SPREADLAB_POLICY_FAULTS_WASM to the fault-injection build (scripts/test-policy.sh does)"
        ),
    }
}

/// Objects of a multi-document YAML file (a `kind: List` is flattened).
pub fn yaml_objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut objects = Vec::new();
    for doc in serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    {
        if doc.get("kind").and_then(Value::as_str) == Some("List") {
            objects.extend(doc["items"].as_array().cloned().unwrap_or_default());
        } else if !doc.is_null() {
            objects.push(doc);
        }
    }
    objects
}

/// What the fixture cluster holds and how it answers.
#[derive(Default)]
pub struct Cluster {
    /// Every object.
    pub objects: Vec<Value>,
    /// Kinds whose listing fails.
    pub failing: Vec<String>,
    /// Kinds answered with these bytes instead of their list (truncated or malformed answers).
    pub raw: Vec<(String, Vec<u8>)>,
    /// Every host call received: `binding/namespace/operation` and the payload.
    pub calls: Vec<(String, Value)>,
    /// Time spent answering host calls (building and serialising the lists).
    pub answering: Duration,
    /// Each list asked for so far (kind and field masks), as policy-server's watch cache for it
    /// holds the objects ([`stored`]); emptied with the objects.
    pub stores: std::collections::HashMap<String, Vec<Value>>,
}

impl Cluster {
    fn answer(
        &mut self,
        binding: &str,
        namespace: &str,
        operation: &str,
        payload: &[u8],
    ) -> Result<Vec<u8>, BoxError> {
        let start = std::time::Instant::now();
        let answer = self.answer_call(binding, namespace, operation, payload);
        self.answering += start.elapsed();
        answer
    }

    fn answer_call(
        &mut self,
        binding: &str,
        namespace: &str,
        operation: &str,
        payload: &[u8],
    ) -> Result<Vec<u8>, BoxError> {
        let request: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
        self.calls.push((
            format!("{binding}/{namespace}/{operation}"),
            request.clone(),
        ));
        match (binding, namespace, operation) {
            ("kubewarden", "tracing", "log") => Ok(Vec::new()),
            ("kubewarden", "kubernetes", "list_resources_all") => {
                let kind = request["kind"]
                    .as_str()
                    .ok_or("list_resources_all: no kind")?;
                let api_version = request["api_version"]
                    .as_str()
                    .ok_or("list_resources_all: no api_version")?;
                if self.failing.iter().any(|k| k == kind) {
                    return Err(format!("{kind}: forbidden by RBAC (fixture)").into());
                }
                if let Some((_, bytes)) = self.raw.iter().find(|(k, _)| k == kind) {
                    return Ok(bytes.clone());
                }
                // As policy-server answers (kubewarden-controller, crates/policy-evaluator):
                // a reflector per list keeps the objects with `managedFields` and the
                // last-applied annotation cleared and everything but the metadata pruned to the
                // field masks (`callback_handler/kubernetes/reflector.rs` `modify_object`,
                // `field_mask.rs` `prune_in_place`), built on the first call; each call clones
                // every stored object and serialises the list (`client.rs`
                // `list_resources_from_reflector`: no cache of the answer between calls).
                let masks: Vec<&str> = request["field_masks"]
                    .as_array()
                    .map(|masks| masks.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let key = format!("{kind}|{}", masks.join(","));
                if !self.stores.contains_key(&key) {
                    let tree = MaskNode::new(masks.iter().copied());
                    let store = self
                        .objects
                        .iter()
                        .filter(|o| o["kind"] == kind)
                        .map(|o| stored(o, &tree))
                        .collect();
                    self.stores.insert(key.clone(), store);
                }
                let items: Vec<Value> = self.stores[&key].clone();
                Ok(serde_json::to_vec(&json!({
                    "apiVersion": api_version,
                    "kind": format!("{kind}List"),
                    "metadata": {"resourceVersion": "1"},
                    "items": items,
                }))?)
            }
            _ => Err(format!("unexpected host call {binding}/{namespace}/{operation}").into()),
        }
    }
}

/// `object` as policy-server's reflector stores it: `metadata.managedFields` cleared, the
/// `kubectl.kubernetes.io/last-applied-configuration` annotation removed, and the object's
/// data (all but `apiVersion`, `kind` and `metadata`: a `DynamicObject`'s `data`) pruned to the
/// masks (no masks: all kept).
fn stored(object: &Value, masks: &MaskNode) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        if let Some(fields) = metadata.get_mut("managedFields") {
            *fields = json!([]);
        }
        if let Some(annotations) = metadata
            .get_mut("annotations")
            .and_then(Value::as_object_mut)
        {
            annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
        }
    }
    if let (false, Value::Object(map)) = (masks.children.is_empty(), &mut object) {
        map.retain(|key, value| match key.as_str() {
            "apiVersion" | "kind" | "metadata" => true,
            _ => match masks.children.get(key) {
                Some(node) => {
                    node.prune_in_place(value);
                    true
                }
                None => false,
            },
        });
    }
    object
}

/// A tree of dotted field-mask paths, pruning as Kubewarden's host does (policy-evaluator's
/// `FieldMaskNode`: objects keep the masked keys, a path ending at a key keeps its subtree,
/// arrays are traversed, a scalar is kept as it is).
#[derive(Default)]
struct MaskNode {
    children: std::collections::BTreeMap<String, MaskNode>,
}

impl MaskNode {
    fn new<'a>(paths: impl IntoIterator<Item = &'a str>) -> MaskNode {
        let mut root = MaskNode::default();
        for path in paths {
            let mut node = &mut root;
            for part in path.split('.') {
                node = node.children.entry(part.to_owned()).or_default();
            }
        }
        root
    }

    fn prune_in_place(&self, value: &mut Value) {
        if self.children.is_empty() {
            return;
        }
        match value {
            Value::Object(map) => map.retain(|key, child| match self.children.get(key) {
                Some(node) => {
                    node.prune_in_place(child);
                    true
                }
                None => false,
            }),
            Value::Array(items) => items.iter_mut().for_each(|item| self.prune_in_place(item)),
            _ => {}
        }
    }
}

/// The loaded policy and its fixture cluster.
pub struct PolicyHost {
    host: WapcHost,
    /// The cluster the host calls are answered from (replace its objects between calls).
    pub cluster: Arc<Mutex<Cluster>>,
    stop: Arc<AtomicBool>,
}

impl Drop for PolicyHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Epoch tick of the deadline.
pub const TICK: Duration = Duration::from_millis(50);

impl PolicyHost {
    /// Loads the module. With `deadline`, a guest call running longer is interrupted (epoch
    /// interruptions, as policy-server enforces its evaluation timeout).
    pub fn new(wasm: &[u8], deadline: Option<Duration>) -> Result<PolicyHost, BoxError> {
        let cluster = Arc::new(Mutex::new(Cluster::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let mut builder = WasmtimeEngineProviderBuilder::new()
            .module_bytes(wasm)
            .wasi_params(wapc::WasiParams::default());
        if let Some(deadline) = deadline {
            let mut config = wasmtime::Config::new();
            config.epoch_interruption(true);
            let engine = wasmtime::Engine::new(&config)?;
            let ticks = (deadline.as_millis() / TICK.as_millis()).max(1) as u64;
            builder = builder
                .engine(engine.clone())
                .enable_epoch_interruptions(EpochDeadlines {
                    // Module start-up is not what is measured: at least 2 s for it.
                    wapc_init: ticks.max(2000 / TICK.as_millis() as u64),
                    wapc_func: ticks,
                });
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                }
            });
        }
        let engine = builder.build()?;
        let answering = cluster.clone();
        let host = WapcHost::new(
            Box::new(engine),
            Some(Box::new(
                move |_id, binding, namespace, operation, payload| {
                    answering
                        .lock()
                        .map_err(|_| "poisoned")?
                        .answer(binding, namespace, operation, payload)
                },
            )),
        )?;
        Ok(PolicyHost {
            host,
            cluster,
            stop,
        })
    }

    /// Replaces the cluster's objects.
    pub fn set_cluster(&self, objects: Vec<Value>) {
        let mut cluster = self.cluster.lock().unwrap();
        cluster.objects = objects;
        cluster.stores.clear();
        cluster.failing.clear();
        cluster.raw.clear();
        cluster.calls.clear();
    }

    /// Calls a guest function with raw bytes.
    pub fn call_raw(
        &self,
        operation: &str,
        payload: &[u8],
    ) -> Result<Vec<u8>, wapc::errors::Error> {
        self.host.call(operation, payload)
    }

    /// `validate` as policy-server answers it: the guest's response, or, when the call fails (a
    /// trap, a deadline), a rejection with code 500 and `internal server error: <error>`, as
    /// kubewarden/policy-evaluator's waPC runtime does (`Runtime::validate`:
    /// `ValidationResponse::reject_internal_server_error`).
    pub fn validate_as_policy_server(&self, payload: &[u8]) -> Value {
        match self.call_raw("validate", payload) {
            Ok(answer) => serde_json::from_slice(&answer).unwrap_or_else(|e| {
                json!({
                    "accepted": false,
                    "code": 500,
                    "message": format!("internal server error: cannot deserialize policy validation response: {e}"),
                })
            }),
            Err(error) => json!({
                "accepted": false,
                "code": 500,
                "message": format!("internal server error: {error}"),
            }),
        }
    }

    /// Calls a guest function and parses its JSON answer.
    pub fn call(&self, operation: &str, payload: &[u8]) -> Value {
        let answer = self
            .call_raw(operation, payload)
            .unwrap_or_else(|e| panic!("{operation}: guest error: {e}"));
        serde_json::from_slice(&answer).unwrap_or_else(|e| {
            panic!(
                "{operation}: answer is not JSON ({e}): {}",
                String::from_utf8_lossy(&answer)
            )
        })
    }
}
