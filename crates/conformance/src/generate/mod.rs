//! Seeded random scenarios for differential testing against the real kube-scheduler
//! (`cargo xtask oracle`): realistic and nasty clusters written as Kubernetes objects, in the
//! oracle's scenario format `{name, objects, schedule}`.
//!
//! Every object is valid for the API server (the oracle applies the real defaulting but no
//! validation; spreadlab's loader validates like the API server). A bound pod looks as it does in a
//! `kubectl get -o json` snapshot: already defaulted and admitted (explicit requests, a start
//! time). The pods to schedule look as the ReplicaSet controller creates them: the template of
//! their group plus name, `pod-template-hash` label and owner reference, before admission.
//!
//! Determinism: [`Rng`] is splitmix64 over integers only, so a seed gives the same scenario on
//! every platform and every run.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5EED_5EED_0B5E_55ED)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi` (the modulo bias is irrelevant here).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// `true` with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One element (`items` must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// Up to `max` distinct elements, in their original order (at least one when `items` is not empty).
    pub fn some<T: Clone>(&mut self, items: &[T], max: usize) -> Vec<T> {
        if items.is_empty() {
            return Vec::new();
        }
        let want = self.range(1, max.clamp(1, items.len()) as i64) as usize;
        let mut chosen = BTreeSet::new();
        while chosen.len() < want {
            chosen.insert((self.next_u64() % items.len() as u64) as usize);
        }
        chosen.into_iter().map(|i| items[i].clone()).collect()
    }
}

/// `topology.kubernetes.io/zone`.
pub const ZONE: &str = "topology.kubernetes.io/zone";
const REGION: &str = "topology.kubernetes.io/region";
const HOSTNAME: &str = "kubernetes.io/hostname";
const CONTROL_PLANE: &str = "node-role.kubernetes.io/control-plane";
const GPU: &str = "nvidia.com/gpu";
const FPGA: &str = "example.com/fpga";
/// The custom topology key some clusters use.
pub const RACK: &str = "rack";
const HASH_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
const APP_NAMES: &[&str] = &[
    "web", "api", "cache", "db", "worker", "ingest", "search", "infer", "auth", "queue", "batch",
    "metrics",
];
const NAMESPACES: &[(&str, &[(&str, &str)])] = &[
    ("team-a", &[("team", "a"), ("env", "prod")]),
    ("team-b", &[("team", "b"), ("env", "staging")]),
    ("prod", &[("env", "prod"), ("tier", "frontend")]),
    ("staging", &[("env", "staging")]),
    ("batch", &[("team", "a"), ("tier", "backend")]),
    ("monitoring", &[]),
];
/// Images some nodes already have: (names the kubelet reports, size in bytes).
const NODE_IMAGES: &[(&[&str], i64)] = &[
    (
        &["docker.io/library/nginx:latest", "nginx:latest"],
        187_000_000,
    ),
    (&["docker.io/library/redis:7"], 117_000_000),
    (&["registry.k8s.io/pause:3.10"], 736_000),
    (&["ghcr.io/acme/infer:v2"], 2_400_000_000),
    (&["ghcr.io/acme/app:v1"], 412_000_000),
];
const POD_IMAGES: &[&str] = &[
    "nginx",
    "nginx:latest",
    "docker.io/library/redis:7",
    "registry.k8s.io/pause:3.10",
    "ghcr.io/acme/infer:v2",
    "ghcr.io/acme/app:v1",
    "busybox:1.36",
];

#[derive(Clone, Debug)]
struct GenNode {
    name: String,
    cpu_m: i64,
    mem_mi: i64,
    pods: i64,
    gpu: i64,
    used_cpu_m: i64,
    used_mem_mi: i64,
    used_pods: i64,
    used_gpu: i64,
    /// A bound pod holds hostPort 9100 here (the kubelet would reject a second one).
    port_9100: bool,
}

#[derive(Clone, Debug)]
struct Class {
    name: String,
    value: i64,
    never: bool,
}

#[derive(Clone, Debug)]
struct App {
    name: String,
    namespace: String,
    hash: String,
    tier: &'static str,
}

struct Gen {
    rng: Rng,
    zones: Vec<String>,
    rack: bool,
    nodes: Vec<GenNode>,
    namespaces: Vec<String>,
    classes: Vec<Class>,
    apps: Vec<App>,
    names: BTreeSet<(String, String)>,
    runtime_class: bool,
    start: i64,
}

/// The scenario of `seed`: `{name, objects, schedule}` (see the module documentation).
pub fn scenario(seed: u64) -> Value {
    let mut g = Gen {
        rng: Rng::new(seed),
        zones: Vec::new(),
        rack: false,
        nodes: Vec::new(),
        namespaces: vec!["default".into()],
        classes: Vec::new(),
        apps: Vec::new(),
        names: BTreeSet::new(),
        runtime_class: false,
        start: 1_700_000_000,
    };
    let mut objects = Vec::new();
    g.namespaces_and_classes(&mut objects);
    g.nodes(&mut objects);
    g.apps();
    let bound = g.bound_pods();
    let schedule = g.incoming_pods();
    g.controllers(&mut objects);
    objects.extend(bound);
    // Namespaces first (as `kubectl get` lists them), then the rest.
    let mut namespace_objects: Vec<Value> = g
        .namespaces
        .iter()
        .map(|name| {
            let mut labels = Map::new();
            if let Some((_, pairs)) = NAMESPACES.iter().find(|(n, _)| n == name) {
                for (k, v) in *pairs {
                    labels.insert((*k).into(), json!(v));
                }
            }
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
        })
        .collect();
    if g.runtime_class {
        namespace_objects.push(json!({
            "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": "kata"}, "handler": "kata",
            "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
        }));
    }
    namespace_objects.extend(objects);
    json!({
        "name": format!("random-{seed}"),
        "objects": namespace_objects,
        "schedule": schedule,
    })
}

fn hash(rng: &mut Rng, len: usize) -> String {
    (0..len).map(|_| *rng.pick(HASH_ALPHABET) as char).collect()
}

fn cpu(millis: i64) -> String {
    if millis % 1000 == 0 {
        (millis / 1000).to_string()
    } else {
        format!("{millis}m")
    }
}

impl Gen {
    fn namespaces_and_classes(&mut self, objects: &mut Vec<Value>) {
        let extra = self.rng.range(0, 3) as usize;
        let names: Vec<&str> = NAMESPACES.iter().map(|(n, _)| *n).collect();
        if extra > 0 {
            for name in self.rng.some(&names, extra) {
                self.namespaces.push(name.to_owned());
            }
        }
        if self.rng.percent(55) {
            let mut classes = vec![
                Class {
                    name: "low".into(),
                    value: self.rng.range(-5, 100),
                    never: false,
                },
                Class {
                    name: "high".into(),
                    value: self.rng.pick(&[1000, 100_000, 1_000_000_000]).to_owned(),
                    never: false,
                },
            ];
            if self.rng.percent(50) {
                classes.push(Class {
                    name: "urgent-never".into(),
                    value: 500_000,
                    never: true,
                });
            }
            let default_index = self
                .rng
                .percent(25)
                .then(|| self.rng.range(0, classes.len() as i64 - 1) as usize);
            for (index, class) in classes.iter().enumerate() {
                let mut object = json!({
                    "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": class.name}, "value": class.value,
                    "description": "generated",
                });
                if class.never {
                    object["preemptionPolicy"] = json!("Never");
                }
                if default_index == Some(index) && !class.never {
                    object["globalDefault"] = json!(true);
                }
                objects.push(object);
            }
            self.classes = classes;
        }
    }

    fn nodes(&mut self, objects: &mut Vec<Value>) {
        let n_zones = self.rng.range(1, 5);
        self.zones = (0..n_zones)
            .map(|i| format!("eu-west-1{}", (b'a' + i as u8) as char))
            .collect();
        self.rack = self.rng.percent(30);
        let roll = self.rng.range(0, 99);
        let n_nodes = match roll {
            0..=9 => self.rng.range(1, 2),
            10..=84 => self.rng.range(3, 30),
            85..=94 => self.rng.range(31, 100),
            _ => self.rng.range(101, 150),
        };
        let no_zone_percent = *self.rng.pick(&[0, 0, 5, 20]);
        let gpu_percent = *self.rng.pick(&[0, 0, 15, 40]);
        let cordon_percent = *self.rng.pick(&[0, 5, 15]);
        let taint_percent = *self.rng.pick(&[0, 10, 30]);
        let control_planes = if n_nodes >= 4 && self.rng.percent(40) {
            self.rng.range(1, 3)
        } else {
            0
        };
        let small_pods = self.rng.percent(15);
        let naming = self.rng.range(0, 2);
        let mut node_names = BTreeSet::new();
        for i in 0..n_nodes {
            let name = loop {
                let name = match naming {
                    0 => format!("node-{i}"),
                    1 => format!(
                        "ip-10-0-{}-{}.ec2.internal",
                        self.rng.range(0, 255),
                        self.rng.range(1, 254)
                    ),
                    _ => format!("worker-{}", hash(&mut self.rng, 5)),
                };
                if node_names.insert(name.clone()) {
                    break name;
                }
            };
            let control_plane = i < control_planes;
            let zone = (!self.rng.percent(no_zone_percent))
                .then(|| self.rng.pick(&self.zones.clone()).clone());
            let cpu_cores = *self.rng.pick(&[2, 4, 4, 8, 8, 16, 32, 64]);
            let mem_gi = cpu_cores * *self.rng.pick(&[2, 4, 4, 8]);
            let pods = if small_pods {
                self.rng.range(2, 12)
            } else {
                *self.rng.pick(&[110, 110, 58, 250, 32])
            };
            let gpu = if !control_plane && self.rng.percent(gpu_percent) {
                *self.rng.pick(&[1, 2, 4, 8])
            } else {
                0
            };
            let mut labels = Map::new();
            labels.insert(HOSTNAME.into(), json!(name));
            labels.insert("kubernetes.io/os".into(), json!("linux"));
            labels.insert(
                "kubernetes.io/arch".into(),
                json!(self.rng.pick(&["amd64", "amd64", "arm64"])),
            );
            if let Some(zone) = &zone {
                labels.insert(ZONE.into(), json!(zone));
                labels.insert(REGION.into(), json!("eu-west-1"));
            }
            if self.rack && !self.rng.percent(10) {
                labels.insert(
                    RACK.into(),
                    json!(format!("r{}", self.rng.range(1, n_zones * 2))),
                );
            }
            if self.rng.percent(80) {
                labels.insert(
                    "disktype".into(),
                    json!(self.rng.pick(&["ssd", "ssd", "hdd", "nvme"])),
                );
            }
            if self.rng.percent(85) {
                labels.insert("cpu-gen".into(), json!(self.rng.range(3, 9).to_string()));
            }
            labels.insert(
                "node.kubernetes.io/instance-type".into(),
                json!(format!("m5.{}xlarge", cpu_cores / 4)),
            );
            if gpu > 0 {
                labels.insert("nvidia.com/gpu.present".into(), json!("true"));
            }
            if control_plane {
                labels.insert(CONTROL_PLANE.into(), json!(""));
            }
            let mut taints = Vec::new();
            if control_plane && !self.rng.percent(15) {
                taints.push(json!({"key": CONTROL_PLANE, "effect": "NoSchedule"}));
            }
            let cordoned = self.rng.percent(cordon_percent);
            if cordoned && self.rng.percent(60) {
                taints.push(
                    json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}),
                );
            }
            if gpu > 0 && self.rng.percent(50) {
                taints.push(json!({"key": GPU, "value": "present", "effect": "NoSchedule"}));
            }
            if self.rng.percent(taint_percent) {
                let options = [
                    json!({"key": "dedicated", "value": "infra", "effect": "NoSchedule"}),
                    json!({"key": "spot", "value": "true", "effect": "PreferNoSchedule"}),
                    json!({"key": "maintenance", "effect": "NoExecute"}),
                    json!({"key": "example.com/flaky", "value": "yes", "effect": "PreferNoSchedule"}),
                    json!({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}),
                    json!({"key": "dedicated", "value": "batch", "effect": "NoExecute"}),
                ];
                let taint = self.rng.pick(&options);
                if !taints
                    .iter()
                    .any(|t| t["key"] == taint["key"] && t["effect"] == taint["effect"])
                {
                    taints.push(taint.clone());
                }
            }
            let mut capacity = Map::new();
            capacity.insert("cpu".into(), json!(cpu_cores.to_string()));
            capacity.insert(
                "memory".into(),
                json!(format!("{}Ki", mem_gi * 1024 * 1024)),
            );
            capacity.insert("pods".into(), json!(pods.to_string()));
            capacity.insert("ephemeral-storage".into(), json!("100Gi"));
            if gpu > 0 {
                capacity.insert(GPU.into(), json!(gpu.to_string()));
            }
            if self.rng.percent(gpu_percent / 2) {
                capacity.insert(FPGA.into(), json!(self.rng.range(0, 2).to_string()));
            }
            // A node that takes no pods at all (nasty, but a valid status).
            if self.rng.percent(2) {
                capacity.insert("pods".into(), json!("0"));
            }
            let reserve_cpu = *self.rng.pick(&[0, 80, 100, 250]);
            let reserve_mem = *self.rng.pick(&[0, 256, 700, 1024]);
            let cpu_m = cpu_cores * 1000 - reserve_cpu;
            let mem_mi = mem_gi * 1024 - reserve_mem;
            let mut status = Map::new();
            status.insert("capacity".into(), Value::Object(capacity.clone()));
            // Allocatable absent: the API server defaults it to capacity.
            if reserve_cpu + reserve_mem > 0 || self.rng.percent(50) {
                let mut allocatable = capacity;
                allocatable.insert("cpu".into(), json!(cpu(cpu_m)));
                allocatable.insert("memory".into(), json!(format!("{mem_mi}Mi")));
                allocatable.insert("ephemeral-storage".into(), json!("95Gi"));
                status.insert("allocatable".into(), Value::Object(allocatable));
            }
            if self.rng.percent(40) {
                let images: Vec<Value> = self
                    .rng
                    .some(NODE_IMAGES, 3)
                    .into_iter()
                    .map(|(names, size)| json!({"names": names, "sizeBytes": size}))
                    .collect();
                status.insert("images".into(), Value::Array(images));
            }
            status.insert(
                "conditions".into(),
                json!([{"type": "Ready", "status": "True"}]),
            );
            let mut spec = Map::new();
            if cordoned {
                spec.insert("unschedulable".into(), json!(true));
            }
            if !taints.is_empty() {
                spec.insert("taints".into(), Value::Array(taints));
            }
            objects.push(json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": spec, "status": status,
            }));
            self.nodes.push(GenNode {
                name,
                cpu_m,
                mem_mi,
                pods,
                gpu,
                used_cpu_m: 0,
                used_mem_mi: 0,
                used_pods: 0,
                used_gpu: 0,
                port_9100: false,
            });
        }
    }

    fn apps(&mut self) {
        let n = self.rng.range(2, 6) as usize;
        let names = self.rng.some(APP_NAMES, n);
        for name in names {
            let namespace = self.rng.pick(&self.namespaces.clone()).clone();
            let hash = hash(&mut self.rng, 10);
            let tier = *self.rng.pick(&["frontend", "backend", "data"]);
            self.apps.push(App {
                name: name.to_owned(),
                namespace,
                hash,
                tier,
            });
        }
    }

    fn pod_name(&mut self, namespace: &str, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}-{}", hash(&mut self.rng, 5));
            if self.names.insert((namespace.to_owned(), name.clone())) {
                return name;
            }
        }
    }

    fn labels_of(&self, app: &App) -> Map<String, Value> {
        let mut labels = Map::new();
        labels.insert("app".into(), json!(app.name));
        labels.insert("tier".into(), json!(app.tier));
        labels.insert("pod-template-hash".into(), json!(app.hash));
        labels
    }

    fn owner_of(app: &App) -> Value {
        let rs = format!("{}-{}", app.name, app.hash);
        json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
            "uid": format!("ReplicaSet/{}/{rs}", app.namespace),
            "controller": true, "blockOwnerDeletion": true,
        }])
    }

    /// A label selector that picks pods of `app` (or more), in one of several spellings.
    fn selector_for(&mut self, app: &App) -> Value {
        let other = self.rng.pick(&self.apps.clone()).name.clone();
        match self.rng.range(0, 9) {
            0..=5 => json!({"matchLabels": {"app": app.name}}),
            6 => {
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [app.name, other]}]})
            }
            7 => json!({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}),
            8 => {
                json!({"matchLabels": {"tier": app.tier}, "matchExpressions": [{"key": "app", "operator": "NotIn", "values": [other]}]})
            }
            _ => {
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [app.name]}, {"key": "canary", "operator": "DoesNotExist"}]})
            }
        }
    }

    fn topology_key(&mut self) -> &'static str {
        let mut keys = vec![HOSTNAME, ZONE, ZONE, HOSTNAME];
        if self.rack {
            keys.push(RACK);
        }
        if self.rng.percent(10) {
            keys.push(REGION);
        }
        keys[self.rng.range(0, keys.len() as i64 - 1) as usize]
    }

    /// A pod (anti-)affinity term about `target`, written in the namespace `own`.
    fn affinity_term(&mut self, target: &App, own: &str) -> Value {
        let mut term = Map::new();
        term.insert("labelSelector".into(), self.selector_for(target));
        term.insert("topologyKey".into(), json!(self.topology_key()));
        if target.namespace != own || self.rng.percent(20) {
            match self.rng.range(0, 3) {
                0 => {
                    let mut namespaces = vec![target.namespace.clone()];
                    if self.rng.percent(30) {
                        namespaces.push(self.rng.pick(&["ghost", own]).to_string());
                    }
                    namespaces.dedup();
                    term.insert("namespaces".into(), json!(namespaces));
                }
                1 => {
                    term.insert("namespaceSelector".into(), json!({}));
                }
                2 => {
                    term.insert(
                        "namespaceSelector".into(),
                        self.rng
                            .pick(&[
                                json!({"matchLabels": {"team": "a"}}),
                                json!({"matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "staging"]}]}),
                                json!({"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": [target.namespace]}]}),
                            ])
                            .clone(),
                    );
                }
                _ => {
                    term.insert("namespaces".into(), json!([target.namespace]));
                    term.insert(
                        "namespaceSelector".into(),
                        json!({"matchLabels": {"env": "prod"}}),
                    );
                }
            }
        }
        // matchLabelKeys / mismatchLabelKeys: keys that the selector does not use.
        let selector_text = term["labelSelector"].to_string();
        if self.rng.percent(20) && !selector_text.contains("pod-template-hash") {
            term.insert("matchLabelKeys".into(), json!(["pod-template-hash"]));
        } else if self.rng.percent(10) && !selector_text.contains("\"tier\"") {
            term.insert("mismatchLabelKeys".into(), json!(["tier"]));
        }
        Value::Object(term)
    }

    fn pod_affinity(&mut self, app: &App, anti: bool) -> Value {
        let mut affinity = Map::new();
        let targets = self.apps.clone();
        if self.rng.percent(if anti { 55 } else { 35 }) {
            let n = self.rng.range(1, 2);
            let terms: Vec<Value> = (0..n)
                .map(|_| {
                    let target = if anti && self.rng.percent(60) {
                        app.clone()
                    } else {
                        self.rng.pick(&targets).clone()
                    };
                    self.affinity_term(&target, &app.namespace)
                })
                .collect();
            affinity.insert(
                "requiredDuringSchedulingIgnoredDuringExecution".into(),
                Value::Array(terms),
            );
        }
        if affinity.is_empty() || self.rng.percent(50) {
            let n = self.rng.range(1, 3);
            let terms: Vec<Value> = (0..n)
                .map(|_| {
                    let target = self.rng.pick(&targets).clone();
                    json!({
                        "weight": self.rng.range(1, 100),
                        "podAffinityTerm": self.affinity_term(&target, &app.namespace),
                    })
                })
                .collect();
            affinity.insert(
                "preferredDuringSchedulingIgnoredDuringExecution".into(),
                Value::Array(terms),
            );
        }
        Value::Object(affinity)
    }

    fn node_requirement(&mut self) -> Value {
        let zones = self.zones.clone();
        let names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        match self.rng.range(0, 11) {
            0 => json!({"key": ZONE, "operator": "In", "values": self.rng.some(&zones, 2)}),
            1 => json!({"key": ZONE, "operator": "NotIn", "values": self.rng.some(&zones, 1)}),
            2 => {
                json!({"key": "disktype", "operator": "In", "values": self.rng.some(&["ssd", "nvme"], 2)})
            }
            3 => json!({"key": "disktype", "operator": "NotIn", "values": ["hdd"]}),
            4 => json!({"key": "nvidia.com/gpu.present", "operator": "Exists"}),
            5 => json!({"key": CONTROL_PLANE, "operator": "DoesNotExist"}),
            6 => {
                json!({"key": "cpu-gen", "operator": "Gt", "values": [self.rng.range(2, 7).to_string()]})
            }
            7 => {
                json!({"key": "cpu-gen", "operator": "Lt", "values": [self.rng.range(4, 10).to_string()]})
            }
            8 => json!({"key": HOSTNAME, "operator": "In", "values": self.rng.some(&names, 4)}),
            9 => json!({"key": RACK, "operator": "Exists"}),
            10 => json!({"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}),
            _ => json!({"key": "disktype", "operator": "DoesNotExist"}),
        }
    }

    fn node_term(&mut self) -> Value {
        let mut term = Map::new();
        let names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        if self.rng.percent(85) {
            let n = self.rng.range(1, 2);
            let expressions: Vec<Value> = (0..n).map(|_| self.node_requirement()).collect();
            term.insert("matchExpressions".into(), Value::Array(expressions));
        }
        if term.is_empty() || self.rng.percent(12) {
            let operator = if self.rng.percent(70) { "In" } else { "NotIn" };
            term.insert(
                "matchFields".into(),
                json!([{"key": "metadata.name", "operator": operator, "values": [self.rng.pick(&names)]}]),
            );
        }
        Value::Object(term)
    }

    fn node_affinity(&mut self) -> Value {
        let mut affinity = Map::new();
        if self.rng.percent(60) {
            let n = self.rng.range(1, 2);
            let terms: Vec<Value> = (0..n).map(|_| self.node_term()).collect();
            affinity.insert(
                "requiredDuringSchedulingIgnoredDuringExecution".into(),
                json!({"nodeSelectorTerms": terms}),
            );
        }
        if affinity.is_empty() || self.rng.percent(50) {
            let n = self.rng.range(1, 3);
            let terms: Vec<Value> = (0..n)
                .map(|_| json!({"weight": self.rng.range(1, 100), "preference": self.node_term()}))
                .collect();
            affinity.insert(
                "preferredDuringSchedulingIgnoredDuringExecution".into(),
                Value::Array(terms),
            );
        }
        Value::Object(affinity)
    }

    fn tolerations(&mut self) -> Value {
        let options = [
            json!({"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}),
            json!({"key": "dedicated", "value": "batch"}),
            json!({"key": "maintenance", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}),
            json!({"key": CONTROL_PLANE, "operator": "Exists", "effect": "NoSchedule"}),
            json!({"key": "spot", "operator": "Equal", "value": "true"}),
            json!({"key": GPU, "operator": "Exists"}),
            json!({"operator": "Exists", "effect": "NoSchedule"}),
            json!({"operator": "Exists"}),
            json!({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}),
            json!({"key": "example.com/flaky", "operator": "Exists", "effect": "PreferNoSchedule"}),
            json!({"key": "maintenance", "operator": "Equal", "effect": "NoExecute"}),
            json!({"key": "dedicated", "operator": "Equal", "value": "infra"}),
        ];
        let n = self.rng.range(1, 3) as usize;
        Value::Array(self.rng.some(&options, n))
    }

    fn spread_constraints(&mut self, app: &App) -> Value {
        let n = self.rng.range(1, 3);
        let mut seen = BTreeSet::new();
        let mut constraints = Vec::new();
        for _ in 0..n {
            let key = self.topology_key();
            let hard = self.rng.percent(60);
            let when = if hard {
                "DoNotSchedule"
            } else {
                "ScheduleAnyway"
            };
            if !seen.insert((key, when)) {
                continue;
            }
            let mut c = Map::new();
            c.insert("maxSkew".into(), json!(*self.rng.pick(&[1, 1, 1, 2, 3])));
            c.insert("topologyKey".into(), json!(key));
            c.insert("whenUnsatisfiable".into(), json!(when));
            let with_selector = self.rng.percent(92);
            if with_selector {
                let target = if self.rng.percent(85) {
                    app.clone()
                } else {
                    self.rng.pick(&self.apps.clone()).clone()
                };
                c.insert("labelSelector".into(), self.selector_for(&target));
            }
            if hard && self.rng.percent(30) {
                c.insert(
                    "minDomains".into(),
                    json!(self.rng.range(1, self.zones.len() as i64 + 2)),
                );
            }
            if self.rng.percent(25) {
                c.insert(
                    "nodeAffinityPolicy".into(),
                    json!(self.rng.pick(&["Honor", "Ignore"])),
                );
            }
            if self.rng.percent(25) {
                c.insert(
                    "nodeTaintsPolicy".into(),
                    json!(self.rng.pick(&["Honor", "Ignore"])),
                );
            }
            if with_selector && self.rng.percent(30) {
                c.insert("matchLabelKeys".into(), json!(["pod-template-hash"]));
            }
            constraints.push(Value::Object(c));
        }
        Value::Array(constraints)
    }

    fn resources(&mut self, cpu_m: i64, mem_mi: i64, gpu: i64, style: i64) -> Value {
        let mut requests = Map::new();
        let mut limits = Map::new();
        let mem = |mi: i64, spelling: i64| match spelling {
            0 => format!("{mi}Mi"),
            1 if mi % 1024 == 0 => format!("{}Gi", mi / 1024),
            2 => format!("{}M", mi * 1_048_576 / 1_000_000),
            _ => (mi * 1_048_576).to_string(),
        };
        let spelling = self.rng.range(0, 3);
        match style {
            // Limits only: the API server copies them to requests.
            0 => {
                limits.insert("cpu".into(), json!(cpu(cpu_m)));
                limits.insert("memory".into(), json!(mem(mem_mi, spelling)));
            }
            // Requests below limits.
            1 => {
                requests.insert("cpu".into(), json!(cpu(cpu_m)));
                requests.insert("memory".into(), json!(mem(mem_mi, spelling)));
                limits.insert("cpu".into(), json!(cpu(cpu_m * 2)));
                limits.insert("memory".into(), json!(mem(mem_mi * 2, spelling)));
            }
            // CPU only.
            2 => {
                requests.insert("cpu".into(), json!(cpu(cpu_m)));
            }
            // Best effort.
            3 => {}
            _ => {
                requests.insert("cpu".into(), json!(cpu(cpu_m)));
                requests.insert("memory".into(), json!(mem(mem_mi, spelling)));
            }
        }
        if gpu > 0 {
            // Extended resources: limits required, requests equal when given.
            limits.insert(GPU.into(), json!(gpu.to_string()));
            if self.rng.percent(50) {
                requests.insert(GPU.into(), json!(gpu.to_string()));
            }
        }
        if self.rng.percent(8) {
            requests.insert("ephemeral-storage".into(), json!("2Gi"));
        }
        if gpu > 0 && self.rng.percent(40) {
            limits.insert(FPGA.into(), json!("1"));
            requests.insert(FPGA.into(), json!("1"));
        }
        let mut resources = Map::new();
        if !requests.is_empty() {
            resources.insert("requests".into(), Value::Object(requests));
        }
        if !limits.is_empty() {
            resources.insert("limits".into(), Value::Object(limits));
        }
        Value::Object(resources)
    }

    fn priority(&mut self, spec: &mut Map<String, Value>, percent: u64) {
        if self.classes.is_empty() || !self.rng.percent(percent) {
            return;
        }
        let class = self.rng.pick(&self.classes.clone()).clone();
        spec.insert("priorityClassName".into(), json!(class.name));
        // Admission would reject values that disagree with the class: only consistent ones.
        if self.rng.percent(20) {
            spec.insert("priority".into(), json!(class.value));
        }
        if self.rng.percent(20) {
            let policy = if class.never {
                "Never"
            } else {
                "PreemptLowerPriority"
            };
            spec.insert("preemptionPolicy".into(), json!(policy));
        }
    }

    /// Existing, bound pods: apps' replicas and a few others, fitting their nodes (mostly).
    fn bound_pods(&mut self) -> Vec<Value> {
        let mut pods = Vec::new();
        let density = *self.rng.pick(&[0, 1, 2, 3, 5, 12]);
        let node_count = self.nodes.len();
        for node_index in 0..node_count {
            let n = self.rng.range(0, density);
            for _ in 0..n {
                let app = self.rng.pick(&self.apps.clone()).clone();
                let node = self.nodes[node_index].clone();
                let cpu_m = *self.rng.pick(&[50, 100, 250, 500, 1000, 2000]);
                let mem_mi = *self.rng.pick(&[64, 128, 256, 512, 1024, 4096]);
                let gpu = if node.gpu > node.used_gpu && self.rng.percent(30) {
                    1
                } else {
                    0
                };
                let fits = node.used_cpu_m + cpu_m <= node.cpu_m
                    && node.used_mem_mi + mem_mi <= node.mem_mi
                    && node.used_pods < node.pods;
                if !fits && !self.rng.percent(5) {
                    continue;
                }
                let name = self.pod_name(&app.namespace, &format!("{}-{}", app.name, app.hash));
                let mut requests = Map::new();
                requests.insert("cpu".into(), json!(cpu(cpu_m)));
                requests.insert("memory".into(), json!(format!("{mem_mi}Mi")));
                let mut resources = json!({"requests": requests});
                if gpu > 0 {
                    resources["requests"][GPU] = json!("1");
                    resources["limits"] = json!({GPU: "1"});
                }
                let mut container = json!({
                    "name": "main", "image": self.rng.pick(POD_IMAGES), "resources": resources,
                });
                let host_port = !node.port_9100 && self.rng.percent(10);
                if host_port {
                    container["ports"] =
                        json!([{"containerPort": 9100, "hostPort": 9100, "protocol": "TCP"}]);
                }
                let mut spec = Map::new();
                spec.insert("containers".into(), json!([container]));
                spec.insert("nodeName".into(), json!(node.name));
                spec.insert("schedulerName".into(), json!("default-scheduler"));
                self.priority(&mut spec, 40);
                if self.rng.percent(12) {
                    let target = self.rng.pick(&self.apps.clone()).clone();
                    let key = if self.rng.percent(70) { HOSTNAME } else { ZONE };
                    let mut term = json!({
                        "labelSelector": {"matchLabels": {"app": target.name}},
                        "topologyKey": key,
                    });
                    if self.rng.percent(25) {
                        term["namespaceSelector"] = self
                            .rng
                            .pick(&[json!({}), json!({"matchLabels": {"env": "prod"}})])
                            .clone();
                    } else if target.namespace != app.namespace {
                        term["namespaces"] = json!([target.namespace]);
                    }
                    let rule = if self.rng.percent(75) {
                        "podAntiAffinity"
                    } else {
                        "podAffinity"
                    };
                    let mut affinity = Map::new();
                    if self.rng.percent(70) {
                        affinity.insert(
                            rule.into(),
                            json!({"requiredDuringSchedulingIgnoredDuringExecution": [term]}),
                        );
                    } else {
                        affinity.insert(
                            rule.into(),
                            json!({"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": self.rng.range(1, 100), "podAffinityTerm": term}]}),
                        );
                    }
                    spec.insert("affinity".into(), Value::Object(affinity));
                }
                let mut metadata = json!({
                    "name": name, "namespace": app.namespace,
                    "labels": self.labels_of(&app),
                    "ownerReferences": Self::owner_of(&app),
                });
                let phase = if self.rng.percent(4) {
                    "Succeeded"
                } else {
                    "Running"
                };
                if self.rng.percent(6) {
                    metadata["deletionTimestamp"] = json!("2024-01-01T00:10:00Z");
                    metadata["deletionGracePeriodSeconds"] = json!(30);
                }
                self.start += self.rng.range(1, 500);
                let start = self.start;
                pods.push(json!({
                    "apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
                    "status": {
                        "phase": phase,
                        "startTime": format_time(start),
                    },
                }));
                let node = &mut self.nodes[node_index];
                node.used_cpu_m += cpu_m;
                node.used_mem_mi += mem_mi;
                node.used_pods += 1;
                node.used_gpu += gpu;
                node.port_9100 |= host_port;
            }
        }
        pods
    }

    /// The pods to schedule: groups of replicas sharing a template, and a few single pods.
    fn incoming_pods(&mut self) -> Vec<Value> {
        let mut pods = Vec::new();
        let groups = self.rng.range(1, 4);
        let heavy = self.rng.percent(25);
        for _ in 0..groups {
            let app = self.rng.pick(&self.apps.clone()).clone();
            let replicas = if self.rng.percent(15) {
                self.rng.range(8, 20)
            } else {
                self.rng.range(1, 6)
            };
            let standalone = self.rng.percent(10);
            let spec = self.template(&app, heavy);
            for _ in 0..replicas {
                let prefix = if standalone {
                    format!("{}-solo", app.name)
                } else {
                    format!("{}-{}", app.name, app.hash)
                };
                let name = self.pod_name(&app.namespace, &prefix);
                let mut metadata = json!({
                    "name": name, "namespace": app.namespace, "labels": self.labels_of(&app),
                });
                if standalone {
                    metadata["labels"]
                        .as_object_mut()
                        .map(|l| l.remove("pod-template-hash"));
                } else {
                    metadata["ownerReferences"] = Self::owner_of(&app);
                }
                pods.push(
                    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}),
                );
            }
        }
        pods
    }

    fn template(&mut self, app: &App, heavy: bool) -> Value {
        let mut spec = Map::new();
        let (cpu_m, mem_mi) = if heavy {
            (
                *self.rng.pick(&[1000, 2000, 3500, 6000]),
                *self.rng.pick(&[2048, 4096, 8192, 16384]),
            )
        } else {
            (
                *self.rng.pick(&[10, 100, 250, 500, 750, 1000]),
                *self.rng.pick(&[32, 128, 256, 512, 1024, 2048]),
            )
        };
        let gpu = if self.nodes.iter().any(|n| n.gpu > 0) && self.rng.percent(20) {
            self.rng.range(1, 2)
        } else {
            0
        };
        let style = if self.rng.percent(70) {
            4
        } else {
            self.rng.range(0, 3)
        };
        let mut container = json!({
            "name": "main", "image": self.rng.pick(POD_IMAGES),
            "resources": self.resources(cpu_m, mem_mi, gpu, style),
        });
        if self.rng.percent(15) {
            let port = *self.rng.pick(&[8080, 9100, 443]);
            let mut p = json!({"containerPort": port, "hostPort": port});
            if self.rng.percent(30) {
                p["protocol"] = json!(self.rng.pick(&["TCP", "UDP"]));
            }
            if self.rng.percent(20) {
                p["hostIP"] = json!("127.0.0.1");
            }
            container["ports"] = json!([p]);
        }
        if style == 4 && self.rng.percent(5) {
            // Pod-level requests (PodLevelResources, beta and on): at least the containers' sum.
            spec.insert(
                "resources".into(),
                json!({"requests": {"cpu": cpu(cpu_m + 500), "memory": format!("{}Mi", mem_mi + 256)}}),
            );
        }
        let mut containers = vec![container];
        if !spec.contains_key("resources") && self.rng.percent(20) {
            containers.push(json!({
                "name": "logger", "image": "busybox:1.36",
                "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}},
            }));
        }
        spec.insert("containers".into(), Value::Array(containers));
        if !spec.contains_key("resources") && self.rng.percent(12) {
            let mut init = vec![json!({
                "name": "init", "image": "busybox:1.36",
                "resources": {"requests": {"cpu": cpu(cpu_m * 2), "memory": "64Mi"}},
            })];
            if self.rng.percent(50) {
                init.push(json!({
                    "name": "proxy", "image": "envoyproxy/envoy:v1.30", "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                }));
            }
            spec.insert("initContainers".into(), Value::Array(init));
        }
        if self.rng.percent(6) {
            self.runtime_class = true;
            spec.insert("runtimeClassName".into(), json!("kata"));
            spec.insert("overhead".into(), json!({"cpu": "250m", "memory": "120Mi"}));
        }
        if self.rng.percent(5) {
            spec.insert("hostNetwork".into(), json!(true));
            spec["containers"][0]["ports"] = json!([{"containerPort": 10250}]);
        }
        if self.rng.percent(20) {
            let zone = self.rng.pick(&self.zones.clone()).clone();
            let selector = self
                .rng
                .pick(&[
                    json!({"kubernetes.io/os": "linux"}),
                    json!({"disktype": "ssd"}),
                    json!({ZONE: zone}),
                    json!({"nvidia.com/gpu.present": "true"}),
                ])
                .clone();
            spec.insert("nodeSelector".into(), selector);
        }
        let mut affinity = Map::new();
        if self.rng.percent(30) {
            affinity.insert("nodeAffinity".into(), self.node_affinity());
        }
        if self.rng.percent(25) {
            affinity.insert("podAffinity".into(), self.pod_affinity(app, false));
        }
        if self.rng.percent(35) {
            affinity.insert("podAntiAffinity".into(), self.pod_affinity(app, true));
        }
        if !affinity.is_empty() {
            spec.insert("affinity".into(), Value::Object(affinity));
        }
        if self.rng.percent(45) {
            spec.insert(
                "topologySpreadConstraints".into(),
                self.spread_constraints(app),
            );
        }
        if self.rng.percent(35) {
            spec.insert("tolerations".into(), self.tolerations());
        }
        self.priority(&mut spec, 50);
        Value::Object(spec)
    }

    /// ReplicaSets (as their Deployments created them), Services and PDBs of some apps.
    fn controllers(&mut self, objects: &mut Vec<Value>) {
        for app in self.apps.clone() {
            if self.rng.percent(60) {
                let rs = format!("{}-{}", app.name, app.hash);
                let labels = self.labels_of(&app);
                objects.push(json!({
                    "apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "metadata": {
                        "name": rs, "namespace": app.namespace, "labels": labels,
                        "ownerReferences": [{
                            "apiVersion": "apps/v1", "kind": "Deployment", "name": app.name,
                            "uid": format!("Deployment/{}/{}", app.namespace, app.name),
                            "controller": true, "blockOwnerDeletion": true,
                        }],
                    },
                    "spec": {
                        "replicas": self.rng.range(1, 10),
                        "selector": {"matchLabels": {"app": app.name, "pod-template-hash": app.hash}},
                        "template": {
                            "metadata": {"labels": labels},
                            "spec": {"containers": [{"name": "main", "image": "nginx"}]},
                        },
                    },
                }));
            }
            if self.rng.percent(25) {
                objects.push(json!({
                    "apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": app.name, "namespace": app.namespace},
                    "spec": {"selector": {"app": app.name}, "ports": [{"port": 80, "targetPort": 8080}]},
                }));
            }
            if self.rng.percent(15) {
                let allowed = self.rng.range(0, 1);
                objects.push(json!({
                    "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": format!("{}-pdb", app.name), "namespace": app.namespace},
                    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": app.name}}},
                    "status": {
                        "disruptionsAllowed": allowed, "currentHealthy": 2, "desiredHealthy": 1,
                        "expectedPods": 2, "observedGeneration": 1,
                    },
                }));
            }
        }
    }
}

/// RFC 3339 UTC time of a Unix timestamp (for `status.startTime`).
fn format_time(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_scenario() {
        assert_eq!(scenario(7), scenario(7));
        assert_ne!(scenario(7), scenario(8));
    }

    #[test]
    fn rng_is_splitmix64() {
        // Reference values of splitmix64 seeded with 0 after the seed mix.
        let mut rng = Rng(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_time(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
