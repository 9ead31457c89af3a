//! The generated workloads: apps, their bound pods (as a snapshot shows them), the pods to
//! schedule (as the ReplicaSet controller creates them) and their controllers.

use serde_json::{Map, Value, json};

use super::*;

impl Gen {
    pub(super) fn apps(&mut self) {
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

    pub(super) fn pod_name(&mut self, namespace: &str, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}-{}", hash(&mut self.rng, 5));
            if self.names.insert((namespace.to_owned(), name.clone())) {
                return name;
            }
        }
    }

    pub(super) fn labels_of(&self, app: &App) -> Map<String, Value> {
        let mut labels = Map::new();
        labels.insert("app".into(), json!(app.name));
        labels.insert("tier".into(), json!(app.tier));
        labels.insert("pod-template-hash".into(), json!(app.hash));
        labels
    }

    pub(super) fn owner_of(app: &App) -> Value {
        let rs = format!("{}-{}", app.name, app.hash);
        json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
            "uid": format!("ReplicaSet/{}/{rs}", app.namespace),
            "controller": true, "blockOwnerDeletion": true,
        }])
    }

    /// A label selector that picks pods of `app` (or more), in one of several spellings.
    pub(super) fn selector_for(&mut self, app: &App) -> Value {
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

    /// Existing, bound pods: apps' replicas and a few others, fitting their nodes (mostly).
    pub(super) fn bound_pods(&mut self) -> Vec<Value> {
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
                let previous = self.start;
                self.start += self.rng.range(1, 500);
                let start = self.start;
                // Without drawing from the generator (so every seed keeps its world): about one
                // pod in nine has no start time yet (bound, not started: upstream's
                // `GetPodStartTime` reads `time.Now()` for it, which makes preemption's victim
                // sort position-dependent), and about one in thirteen shares the previous pod's.
                let mut status = json!({"phase": phase});
                if start % 9 != 0 {
                    let shown = if start % 13 == 0 { previous } else { start };
                    status["startTime"] = json!(format_time(shown));
                }
                pods.push(json!({
                    "apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
                    "status": status,
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
    pub(super) fn incoming_pods(&mut self) -> Vec<Value> {
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

    pub(super) fn template(&mut self, app: &App, heavy: bool) -> Value {
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
        if self.rng.percent(4) {
            // Needs a node declaring RestartAllContainersOnContainerExits from v1.36.
            container["restartPolicy"] = json!("Always");
            container["restartPolicyRules"] = json!([
                {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}
            ]);
        }
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
        if self.rng.percent(6) {
            // An image volume (ImageVolume): ImageLocality counts it from v1.36 (image_locality.go).
            let reference = self.rng.pick(POD_IMAGES).to_string();
            spec.insert(
                "volumes".into(),
                json!([{"name": "model", "image": {"reference": reference, "pullPolicy": "IfNotPresent"}}]),
            );
        }
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
    pub(super) fn controllers(&mut self, objects: &mut Vec<Value>) {
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
