//! A real kube-apiserver with an embedded etcd, started from the prebuilt Go test binary of
//! `tests/apiserver` (`$SPREADLAB_APISERVER`, built by `tests/apiserver/build.sh`), and a client
//! that puts objects into it as `kubectl create` would, then sets their status.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// One API server, torn down when dropped (its standard input closes).
pub struct ApiServer {
    child: Child,
    /// Holds the kubeconfigs and the server's log.
    pub dir: PathBuf,
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
    restarts: usize,
}

/// The harness binary, or `None` (the test says it is skipped) when `$SPREADLAB_APISERVER` is not
/// set; CI sets it (scripts/test.sh), and a set path that does not exist fails.
pub fn harness() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("SPREADLAB_APISERVER").or_else(|| {
        eprintln!(
            "skipped: SPREADLAB_APISERVER is not set (bash tests/apiserver/build.sh <binary> builds it)"
        );
        None
    })?);
    assert!(
        path.is_file(),
        "SPREADLAB_APISERVER={} is not a file",
        path.display()
    );
    Some(path)
}

impl ApiServer {
    /// Starts a server and waits until it is ready (at most two minutes).
    pub fn start(harness: &Path, name: &str) -> ApiServer {
        let dir =
            std::env::temp_dir().join(format!("spreadlab-apiserver-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let mut child = Command::new(harness)
            .args(["-test.run=^TestServe$", "-test.v"])
            .env("SPREADLAB_APISERVER_DIR", &dir)
            .stdin(Stdio::piped())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", harness.display()));
        let started = Instant::now();
        while !dir.join("ready").exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the API server exited ({status}):\n{}", tail(&dir));
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the API server was not ready in 120 s:\n{}",
                tail(&dir)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!(
            "{name}: API server ready in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async {
            let kubeconfig =
                kube::config::Kubeconfig::read_from(dir.join("admin.kubeconfig")).unwrap();
            let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
                .await
                .unwrap();
            kube::Client::try_from(config).unwrap()
        });
        ApiServer {
            child,
            dir,
            runtime,
            client,
            restarts: 0,
        }
    }

    /// Stops the API server and starts a new one on the same etcd, behind the same address
    /// (the harness's proxy cuts every connection, as a restarting server does); returns once the
    /// new one is healthy.
    pub fn restart(&mut self) {
        use std::io::Write;
        self.restarts += 1;
        let stdin = self.child.stdin.as_mut().expect("the harness's input");
        stdin.write_all(b"restart\n").unwrap();
        stdin.flush().unwrap();
        let marker = self.dir.join(format!("restarted-{}", self.restarts));
        let started = Instant::now();
        while !marker.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the API server did not restart in 120 s:\n{}",
                tail(&self.dir)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The kubeconfig of `user` (`admin` or `viewer`).
    pub fn kubeconfig(&self, user: &str) -> PathBuf {
        self.dir.join(format!("{user}.kubeconfig"))
    }

    /// Creates every object (as the admin), each namespace it names first, then sets the status
    /// it carries (`kubectl create` drops status; the status subresource takes it) and, for nodes,
    /// their own taints (see below).
    pub fn create(&self, objects: &[Value]) {
        self.runtime.block_on(async {
            let mut namespaces: Vec<String> = objects
                .iter()
                .filter_map(|o| o["metadata"]["namespace"].as_str().map(str::to_owned))
                .filter(|n| n != "default")
                .collect();
            namespaces.sort();
            namespaces.dedup();
            let declared: Vec<&str> = objects
                .iter()
                .filter(|o| o["kind"] == "Namespace")
                .filter_map(|o| o["metadata"]["name"].as_str())
                .collect();
            for namespace in namespaces.iter().filter(|n| !declared.contains(&n.as_str())) {
                let object = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
                self.create_one(&object).await;
            }
            for object in objects {
                self.create_one(object).await;
            }
        });
    }

    /// Creates one object as the admin: `Err` with the API server's message when it is refused
    /// (an admission webhook's denial among others).
    pub fn try_create(&self, object: &Value) -> Result<(), String> {
        self.runtime.block_on(async {
            let dynamic: DynamicObject = serde_json::from_value(object.clone()).unwrap();
            api_for(&self.client, object)
                .create(&PostParams::default(), &dynamic)
                .await
                .map(drop)
                .map_err(|e| match e {
                    kube::Error::Api(status) => status.message,
                    other => other.to_string(),
                })
        })
    }

    /// Creates one object as the admin and returns the server's answer (a review's status).
    pub fn create_returning(&self, object: &Value) -> Value {
        self.runtime.block_on(async {
            let dynamic: DynamicObject = serde_json::from_value(object.clone()).unwrap();
            let created = api_for(&self.client, object)
                .create(&PostParams::default(), &dynamic)
                .await
                .unwrap_or_else(|e| panic!("creating {object}: {e}"));
            serde_json::to_value(created).unwrap()
        })
    }

    /// Applies a JSON merge patch to one object as the admin.
    pub fn patch(&self, object: &Value, patch: Value) {
        self.runtime.block_on(async {
            let name = object["metadata"]["name"].as_str().expect("a name");
            api_for(&self.client, object)
                .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                .await
                .unwrap_or_else(|e| panic!("patching {name}: {e}"));
        });
    }

    /// Deletes one object as the admin.
    pub fn delete(&self, object: &Value) {
        self.runtime.block_on(async {
            let name = object["metadata"]["name"].as_str().expect("a name");
            api_for(&self.client, object)
                .delete(name, &Default::default())
                .await
                .unwrap_or_else(|e| panic!("deleting {name}: {e}"));
        });
    }

    /// [`ApiServer::create`] for many objects of kinds without a namespace to create first,
    /// `concurrency` requests in flight (a big cluster in seconds).
    pub fn create_many(&self, objects: &[Value], concurrency: usize) {
        use futures::StreamExt;
        self.runtime.block_on(
            futures::stream::iter(objects.iter().map(|object| self.create_one(object)))
                .buffer_unordered(concurrency)
                .collect::<Vec<()>>(),
        );
    }

    async fn create_one(&self, object: &Value) {
        let kind = object["kind"].as_str().expect("kind");
        let api = api_for(&self.client, object);
        let dynamic: DynamicObject = serde_json::from_value(object.clone()).unwrap();
        let name = object["metadata"]["name"]
            .as_str()
            .expect("a name")
            .to_owned();
        api.create(&PostParams::default(), &dynamic)
            .await
            .unwrap_or_else(|e| panic!("creating {kind} {name}: {e}"));
        if kind == "Node" {
            // The TaintNodesByCondition admission plugin taints every new node
            // `node.kubernetes.io/not-ready:NoSchedule`; the node lifecycle controller (not run
            // here) lifts it once the kubelet reports Ready. Do its part: the node's own taints.
            let taints = object["spec"]["taints"].clone();
            api.patch(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"taints": taints}})),
            )
            .await
            .unwrap_or_else(|e| panic!("taints of node {name}: {e}"));
        }
        if let Some(status) = object.get("status") {
            api.patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": status})),
            )
            .await
            .unwrap_or_else(|e| panic!("status of {kind} {name}: {e}"));
        }
    }
}

/// The API of `object`'s kind, in its namespace when the kind has namespaces.
fn api_for(client: &kube::Client, object: &Value) -> Api<DynamicObject> {
    let api_version = object["apiVersion"].as_str().expect("apiVersion");
    let kind = object["kind"].as_str().expect("kind");
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let (plural, namespaced) = resource(kind);
    let resource = ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: api_version.into(),
        kind: kind.into(),
        plural,
    };
    if namespaced {
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default");
        Api::namespaced_with(client.clone(), namespace, &resource)
    } else {
        Api::all_with(client.clone(), &resource)
    }
}

/// The resource of `kind` and whether it is namespaced: spreadlab's kinds, and RBAC's.
fn resource(kind: &str) -> (String, bool) {
    if let Some(known) = spreadlab_cluster::KINDS.iter().find(|k| k.kind == kind) {
        return (known.plural.into(), known.namespaced);
    }
    match kind {
        "ClusterRole" => ("clusterroles".into(), false),
        "ClusterRoleBinding" => ("clusterrolebindings".into(), false),
        "ValidatingWebhookConfiguration" => ("validatingwebhookconfigurations".into(), false),
        "MutatingWebhookConfiguration" => ("mutatingwebhookconfigurations".into(), false),
        "SubjectAccessReview" => ("subjectaccessreviews".into(), false),
        "ServiceAccount" => ("serviceaccounts".into(), true),
        "ConfigMap" => ("configmaps".into(), true),
        other => panic!("the test client does not know kind {other}"),
    }
}

fn tail(dir: &Path) -> String {
    let mut log = String::new();
    if let Ok(mut file) = std::fs::File::open(dir.join("server.log")) {
        let _ = file.read_to_string(&mut log);
    }
    let start = log.len().saturating_sub(4000);
    log[log.floor_char_boundary(start)..].to_owned()
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        // Closing standard input ends the harness, which tears etcd and the server down.
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_dir_all(&self.dir);
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
