//! The generated placement rules: topology keys, pod (anti-)affinity terms, node affinity,
//! tolerations, topology spread constraints, resources and priorities.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::*;

impl Gen {
    pub(super) fn topology_key(&mut self) -> &'static str {
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
    pub(super) fn affinity_term(&mut self, target: &App, own: &str) -> Value {
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
                                // Selectors that match an empty label set: up to v1.36 they
                                // matched every namespace (interpodaffinity/plugin.go).
                                json!({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}),
                                json!({"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]}),
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

    pub(super) fn pod_affinity(&mut self, app: &App, anti: bool) -> Value {
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

    pub(super) fn node_requirement(&mut self) -> Value {
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

    pub(super) fn node_term(&mut self) -> Value {
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

    pub(super) fn node_affinity(&mut self) -> Value {
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

    pub(super) fn tolerations(&mut self) -> Value {
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

    pub(super) fn spread_constraints(&mut self, app: &App) -> Value {
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

    pub(super) fn resources(&mut self, cpu_m: i64, mem_mi: i64, gpu: i64, style: i64) -> Value {
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

    pub(super) fn priority(&mut self, spec: &mut Map<String, Value>, percent: u64) {
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
}
