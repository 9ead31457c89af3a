//! The generated cluster: namespaces, priority classes and nodes (zones, regions, racks, GPUs,
//! taints, images, cordons).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::*;

impl Gen {
    pub(super) fn namespaces_and_classes(&mut self, objects: &mut Vec<Value>) {
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

    pub(super) fn nodes(&mut self, objects: &mut Vec<Value>) {
        // Node pools are drawn from their own stream, so the rest of the scenario is drawn as
        // it was before pools existed.
        let mut pools = Rng::new(self.rng.peek().wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x9001);
        pools.next_u64();
        let first_node = objects.len();
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
            95..=97 => self.rng.range(101, 150),
            // Where the adaptive percentageOfNodesToScore keeps more than 100 nodes.
            _ => self.rng.range(250, 600),
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
            if self.rng.percent(30) {
                // NodeDeclaredFeatures (a filter from v1.36) reads it.
                status.insert(
                    "declaredFeatures".into(),
                    json!(["RestartAllContainersOnContainerExits"]),
                );
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
        if pools.percent(50) {
            self.pool_nodes(
                &mut pools,
                &mut objects[first_node..],
                control_planes as usize,
            );
        }
    }

    /// Makes the workers copies of one to three templates (the first workers), as real clusters'
    /// node pools are: each keeps its name, hostname and topology labels (pools span zones),
    /// and takes the template's other labels, spec and status. Alike nodes exercise ties and
    /// the engine's node classes (`crates/engine/src/framework/classes.rs`).
    fn pool_nodes(&mut self, pools: &mut Rng, nodes: &mut [Value], control_planes: usize) {
        let n_templates = pools.range(1, 3) as usize;
        let own = [HOSTNAME, ZONE, REGION, RACK];
        for i in control_planes + n_templates..nodes.len() {
            let t = control_planes + (i - control_planes) % n_templates;
            let template = nodes[t].clone();
            let node = &mut nodes[i];
            let mut labels = template["metadata"]["labels"].clone();
            if let Some(labels) = labels.as_object_mut() {
                for key in own {
                    labels.remove(key);
                    if let Some(value) = node["metadata"]["labels"].get(key) {
                        labels.insert(key.into(), value.clone());
                    }
                }
            }
            node["metadata"]["labels"] = labels;
            node["spec"] = template["spec"].clone();
            node["status"] = template["status"].clone();
            let (cpu_m, mem_mi, pods, gpu) = {
                let t = &self.nodes[t];
                (t.cpu_m, t.mem_mi, t.pods, t.gpu)
            };
            let gen_node = &mut self.nodes[i];
            (gen_node.cpu_m, gen_node.mem_mi, gen_node.pods, gen_node.gpu) =
                (cpu_m, mem_mi, pods, gpu);
        }
    }
}
