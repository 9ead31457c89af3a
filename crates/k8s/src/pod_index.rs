//! An index of a loaded cluster's pods by namespace and label, so that looking for a workload's
//! running pods ([`Loaded::running_pods`]) reads the few pods its selector names instead of
//! every pod: `serve`'s model keeps one ([`Loaded::index_pods`]), and [`Loaded::truncate`],
//! [`Loaded::remove_pod`] and [`apply_change`](crate::apply_change) keep it exact.
//!
//! The index only narrows: every pod it yields is checked by the same predicate as the scan
//! ([`Workload::runs`]), in the cluster's order, so both give the same pods.

use std::collections::BTreeMap;
use std::sync::Arc;

use spreadlab_engine::model::labels::{Operator, Selector};
use spreadlab_engine::model::pod::Pod;

use crate::{Loaded, Workload, WorkloadKind};

/// Positions in `cluster.pods` (ascending) by label value, by label key, by namespace.
type Postings = BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<u32>>>>;

/// Where each of the first `covers` pods of a cluster is, by namespace and label.
#[derive(Clone, Debug, Default)]
pub(crate) struct PodIndex {
    postings: Postings,
    /// Pods `..covers` are indexed; those after (loaded onto the indexed cluster for one
    /// decision, [`crate::load_onto`]) are read one by one.
    covers: usize,
    /// How many of the indexed pods name each node (`spec.nodeName`): a node that joins
    /// looks for the pods already bound to it only when there are some.
    by_node: BTreeMap<String, u32>,
}

impl PodIndex {
    /// The index of `pods`.
    fn build(pods: &[Arc<Pod>]) -> PodIndex {
        let mut index = PodIndex::default();
        for (position, pod) in pods.iter().enumerate() {
            index.post(position, pod);
        }
        index.covers = pods.len();
        index
    }

    /// Adds `pod` at `position` (positions must already leave room for it).
    fn post(&mut self, position: usize, pod: &Pod) {
        if let Some(node) = &pod.node_name {
            match self.by_node.get_mut(node) {
                Some(count) => *count += 1,
                None => {
                    self.by_node.insert(node.clone(), 1);
                }
            }
        }
        let position = u32::try_from(position).unwrap_or(u32::MAX);
        if !self.postings.contains_key(&pod.namespace) {
            self.postings.insert(pod.namespace.clone(), BTreeMap::new());
        }
        let Some(keys) = self.postings.get_mut(&pod.namespace) else {
            return;
        };
        for (key, value) in &pod.labels {
            if !keys.contains_key(key) {
                keys.insert(key.clone(), BTreeMap::new());
            }
            let Some(values) = keys.get_mut(key) else {
                continue;
            };
            if !values.contains_key(value) {
                values.insert(value.clone(), Vec::new());
            }
            if let Some(positions) = values.get_mut(value) {
                let at = positions.partition_point(|&p| p < position);
                positions.insert(at, position);
            }
        }
    }

    /// Every position at or past `from` moves by `by` (+1 or -1).
    fn shift(&mut self, from: usize, by: i64) {
        let from = u32::try_from(from).unwrap_or(u32::MAX);
        for keys in self.postings.values_mut() {
            for values in keys.values_mut() {
                for positions in values.values_mut() {
                    let start = positions.partition_point(|&p| p < from);
                    for p in &mut positions[start..] {
                        *p = u32::try_from(i64::from(*p) + by).unwrap_or(u32::MAX);
                    }
                }
            }
        }
    }

    /// `pod` was inserted at `position` of the cluster's pods.
    pub(crate) fn inserted(&mut self, position: usize, pod: &Pod) {
        if position > self.covers {
            return;
        }
        self.shift(position, 1);
        self.post(position, pod);
        self.covers += 1;
    }

    /// `pod` was taken out of `position` of the cluster's pods.
    pub(crate) fn removed(&mut self, position: usize, pod: &Pod) {
        if position >= self.covers {
            return;
        }
        if let Some(node) = &pod.node_name
            && let Some(count) = self.by_node.get_mut(node)
        {
            *count -= 1;
            if *count == 0 {
                self.by_node.remove(node);
            }
        }
        let at = u32::try_from(position).unwrap_or(u32::MAX);
        if let Some(keys) = self.postings.get_mut(&pod.namespace) {
            for (key, value) in &pod.labels {
                let Some(values) = keys.get_mut(key) else {
                    continue;
                };
                if let Some(positions) = values.get_mut(value) {
                    positions.retain(|&p| p != at);
                    if positions.is_empty() {
                        values.remove(value);
                    }
                }
                if values.is_empty() {
                    keys.remove(key);
                }
            }
            if keys.is_empty() {
                self.postings.remove(&pod.namespace);
            }
        }
        self.shift(position + 1, -1);
        self.covers -= 1;
    }

    /// The cluster's pods were cut to `len`: an index covering more is no longer true.
    pub(crate) fn holds_after_truncate(&self, len: usize) -> bool {
        len >= self.covers
    }

    /// The indexed positions that can match `selector` in `namespace`, ascending: those of its
    /// narrowest `In` requirement (a `matchLabels` entry is one). `None` when it has none (only
    /// `NotIn`, `Exists` or `DoesNotExist`, or no requirement): every pod of the namespace
    /// must be read.
    fn candidates(&self, namespace: &str, selector: &Selector) -> Option<Vec<usize>> {
        let requirements = match selector {
            Selector::Nothing => return Some(Vec::new()),
            Selector::Requirements(requirements) => requirements,
        };
        let keys = self.postings.get(namespace);
        requirements
            .iter()
            .filter(|r| r.operator == Operator::In)
            .map(|r| {
                let values = keys.and_then(|keys| keys.get(&r.key));
                let mut positions: Vec<usize> = r
                    .values
                    .iter()
                    .filter_map(|value| values.and_then(|values| values.get(value)))
                    .flatten()
                    .map(|&p| p as usize)
                    .collect();
                // A pod has one value per key: the lists are disjoint.
                if r.values.len() > 1 {
                    positions.sort_unstable();
                }
                positions
            })
            .min_by_key(Vec::len)
    }
}

impl Loaded {
    /// Indexes the cluster's pods by namespace and label (for [`Loaded::running_pods`]); a
    /// model kept for many decisions does this once.
    pub fn index_pods(&mut self) {
        self.pod_index = Some(PodIndex::build(&self.cluster.pods));
    }

    /// Whether some pod of the cluster names the node `name`; `true` when only a scan would
    /// tell (no index, or pods past it).
    pub fn may_have_pods_on(&self, name: &str) -> bool {
        self.pod_index.as_ref().is_none_or(|index| {
            index.covers < self.cluster.pods.len() || index.by_node.contains_key(name)
        })
    }

    /// [`Workload::running_pods`] on this cluster: the same pods in the same order, read
    /// through the index when there is one ([`Loaded::index_pods`]).
    pub fn running_pods<'c>(&'c self, workload: &Workload) -> Vec<&'c Pod> {
        let pods = &self.cluster.pods;
        let indexed = self.pod_index.as_ref().filter(|_| {
            !matches!(
                workload.kind,
                WorkloadKind::Pod | WorkloadKind::PolyaxonService
            )
        });
        let Some(index) = indexed else {
            return workload.running_pods(&self.cluster);
        };
        let selector = workload.running_selector();
        let Some(candidates) = index.candidates(&workload.namespace, &selector) else {
            return workload.running_pods(&self.cluster);
        };
        let desired = usize::try_from(workload.replicas).unwrap_or(0);
        let tail = index.covers.min(pods.len())..pods.len();
        candidates
            .into_iter()
            .chain(tail)
            .filter_map(|position| pods.get(position))
            .map(|pod| &**pod)
            .filter(|pod| workload.runs(pod, &selector, desired))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::{LoadOptions, Object, ObjectChange, apply_change, load_onto, load_values};

    /// A bound pod: `p` picks its namespace, labels, owner and phase.
    fn pod(name: &str, p: usize) -> Value {
        let owner = match p % 4 {
            0 => json!([]),
            1 => {
                json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc12", "uid": "u", "controller": true}])
            }
            2 => {
                json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "other-x1", "uid": "u", "controller": true}])
            }
            _ => {
                json!([{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "u", "controller": true}])
            }
        };
        let app = ["web", "db", "cache"][p % 7 % 3];
        let phase = if p.is_multiple_of(11) {
            "Succeeded"
        } else {
            "Running"
        };
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": format!("ns-{}", p % 3),
                "labels": {"app": app, "track": format!("t{}", p % 5),
                    "pod-template-hash": "abc12"},
                "ownerReferences": owner},
            "spec": {"nodeName": format!("n{}", p % 13 % 4), "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": phase}})
    }

    /// A node and `pods` pods, in key order (as a watched cluster lists them).
    fn cluster(pods: usize) -> Vec<Value> {
        let mut pods: Vec<Value> = (0..pods).map(|p| pod(&format!("p-{p:04}"), p)).collect();
        let key = |pod: &Value| {
            format!(
                "{}/{}",
                pod["metadata"]["namespace"].as_str().unwrap_or_default(),
                pod["metadata"]["name"].as_str().unwrap_or_default()
            )
        };
        pods.sort_by_key(key);
        let mut objects = vec![
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
            "status": {"allocatable": {"cpu": "64", "pods": "1000"}}}),
        ];
        objects.extend(pods);
        objects
    }

    /// Workloads whose selectors the index narrows (matchLabels, `In` over two values, one
    /// matching nothing) and one it cannot (`NotIn`).
    fn workloads() -> Loaded {
        let template = |labels: Value| json!({"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}});
        let objects = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "ns-1"},
                "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template(json!({"app": "web"}))}}),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "ns-0"},
                "spec": {"replicas": 2, "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db", "cache"]}]},
                    "template": template(json!({"app": "db"}))}}),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "any", "namespace": "ns-2"},
                "spec": {"replicas": 2, "selector": {"matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["t1"]}]},
                    "template": template(json!({"track": "t0"}))}}),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "none", "namespace": "ns-2"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "nowhere", "track": "t1"}},
                    "template": template(json!({"app": "nowhere", "track": "t1"}))}}),
        ];
        let loaded = load_values("w", objects, &LoadOptions::default());
        assert_eq!(loaded.workloads.len(), 4, "{:?}", loaded.errors);
        loaded
    }

    fn keys(pods: &[&Pod]) -> Vec<String> {
        pods.iter().map(|pod| pod.key()).collect()
    }

    /// Every workload's running pods through the index are the scan's, in its order; the index
    /// says a node may have pods whenever one names it, and only then while it covers them all.
    fn agrees(loaded: &Loaded, workloads: &Loaded) {
        let pods = &loaded.cluster.pods;
        let covered = loaded
            .pod_index
            .as_ref()
            .is_some_and(|index| index.covers == pods.len());
        for node in ["n0", "n1", "n2", "n3", "n4"] {
            let named = pods
                .iter()
                .any(|pod| pod.node_name.as_deref() == Some(node));
            assert_eq!(loaded.may_have_pods_on(node), named || !covered, "{node}");
        }
        for workload in &workloads.workloads {
            let scanned = workload.running_pods(&loaded.cluster);
            assert_eq!(
                keys(&loaded.running_pods(workload)),
                keys(&scanned),
                "{}",
                workload.name
            );
        }
    }

    #[test]
    fn the_index_finds_what_the_scan_finds_through_changes() {
        let options = LoadOptions::default();
        let mut loaded = load_values("c", cluster(240), &options);
        assert!(loaded.pods_by_key());
        loaded.index_pods();
        let workloads = workloads();
        for workload in &workloads.workloads[..3] {
            assert!(!workload.running_pods(&loaded.cluster).is_empty());
        }
        agrees(&loaded, &workloads);
        // Pods loaded onto the indexed cluster (the tail), then taken off again.
        let mark = loaded.mark();
        let more = (0..20)
            .map(|p| Object::Value(pod(&format!("q-{p:04}"), p)))
            .collect();
        load_onto(&mut loaded, "more", more, &options);
        assert_eq!(loaded.cluster.pods.len(), mark_pods(&loaded));
        agrees(&loaded, &workloads);
        loaded.truncate(mark);
        agrees(&loaded, &workloads);
        // Pods changed, added and deleted in place, as a watch applies them.
        let new = |name: &str, p: usize| Some(Object::Value(pod(name, p)));
        let changes = [
            (None, new("a-first", 1)),
            (None, new("z-last", 3)),
            (Some(("ns-1", "p-0001")), None),
            (Some(("ns-0", "p-0003")), new("p-0003", 6)),
            (Some(("ns-1", "p-0004")), new("p-0004", 7)),
            (Some(("ns-2", "p-0005")), None),
        ];
        for (old, new) in changes {
            let change = ObjectChange::Pod { old, new };
            assert!(apply_change(
                &mut loaded,
                &mut [],
                "watch",
                change,
                &options
            ));
            agrees(&loaded, &workloads);
        }
        // The cluster without its index agrees too (and the index was used: it is there).
        let mut fresh = loaded.clone();
        fresh.pod_index = None;
        assert!(loaded.pod_index.is_some());
        for workload in &workloads.workloads {
            assert_eq!(
                keys(&loaded.running_pods(workload)),
                keys(&fresh.running_pods(workload))
            );
        }
    }

    fn mark_pods(loaded: &Loaded) -> usize {
        loaded.pod_index.as_ref().map_or(0, |index| index.covers) + 20
    }
}
