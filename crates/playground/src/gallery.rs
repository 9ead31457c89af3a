//! The gallery: every built-in example (the seed situations, with where their answers come from)
//! and scenarios made of public manifests nobody on the project wrote (`tests/corpus`, each with
//! its repository, path, commit and licence), searchable by any words of their title, summary,
//! tags or source.

use crate::examples::{EXAMPLES, Example, join_documents};

/// Where a gallery entry's text comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A built-in example (opened as the example, with its hint).
    Example(&'static Example),
    /// Public manifests, verbatim, after a cluster built from their source's description: the
    /// parts are joined with `---`.
    Public(&'static [&'static str]),
}

/// One gallery entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Stable id (tests, URLs).
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// What to look at.
    pub summary: &'static str,
    /// Search words beyond the title and summary.
    pub tags: &'static [&'static str],
    /// Where it comes from, in one line.
    pub source: &'static str,
    /// Its text.
    pub kind: Kind,
}

impl Entry {
    /// The editor text.
    pub fn text(&self) -> String {
        match self.kind {
            Kind::Example(example) => example.text(),
            Kind::Public(parts) => join_documents(parts),
        }
    }

    /// Whether every word of `query` occurs (ignoring case) in the title, summary, tags or source.
    pub fn matches(&self, query: &str) -> bool {
        let haystack = format!(
            "{} {} {} {} {}",
            self.id,
            self.title,
            self.summary,
            self.tags.join(" "),
            self.source
        )
        .to_lowercase();
        query
            .split_whitespace()
            .all(|word| haystack.contains(&word.to_lowercase()))
    }
}

/// The Kubernetes documentation's 4-node cluster for its topology spread examples, as its table
/// gives it (labels `node` and `zone`; the page states no capacities, so each node gets room).
const DOCS_CLUSTER: &str = "# The 4-node cluster of the Kubernetes docs' Pod Topology Spread Constraints page
# (kubernetes/website content/en/docs/concepts/scheduling-eviction/topology-spread-constraints.md
# @ 02aa04fe, CC-BY-4.0): labels as its table lists them; it states no capacities, so each node has
# room. \"3 Pods labeled foo: bar are located in node1, node2 and node3 respectively.\"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node1, labels: {node: node1, zone: zoneA}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node2, labels: {node: node2, zone: zoneA}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node3, labels: {node: node3, zone: zoneB}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node4, labels: {node: node4, zone: zoneB}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p1, labels: {foo: bar}}, spec: {nodeName: node1, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p2, labels: {foo: bar}}, spec: {nodeName: node2, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p3, labels: {foo: bar}}, spec: {nodeName: node3, containers: [{name: c, image: pause}]}}";

/// The same page's cluster for its conflicting-constraints example: node1 (zoneA) runs 2 pods,
/// node2 (zoneA) 1, node3 (zoneB) 2.
const DOCS_CONFLICT_CLUSTER: &str = "# The Kubernetes docs' cluster for conflicting topologySpreadConstraints (same page, @ 02aa04fe,
# CC-BY-4.0): node1 and node2 in zoneA, node3 in zoneB; foo: bar pods: 2 on node1, 1 on node2, 2 on
# node3. No capacities stated: each node has room.
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node1, labels: {node: node1, zone: zoneA}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node2, labels: {node: node2, zone: zoneA}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node3, labels: {node: node3, zone: zoneB}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p1, labels: {foo: bar}}, spec: {nodeName: node1, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p2, labels: {foo: bar}}, spec: {nodeName: node1, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p3, labels: {foo: bar}}, spec: {nodeName: node2, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p4, labels: {foo: bar}}, spec: {nodeName: node3, containers: [{name: c, image: pause}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: p5, labels: {foo: bar}}, spec: {nodeName: node3, containers: [{name: c, image: pause}]}}";

/// The scenarios made of public manifests (tests/corpus/SOURCES.md lists each file's commit and
/// licence; tests/corpus/DOCUMENTED.md quotes the outcome each source states).
pub const PUBLIC: &[Entry] = &[
    Entry {
        id: "docs-one-constraint",
        title: "Kubernetes docs: one zone constraint",
        summary: "The docs' first example: mypod may only go to zone B (node3 or node4).",
        tags: &["public", "topology spread", "maxSkew", "documentation"],
        source: "kubernetes/website content/en/examples/pods/topology-spread-constraints/one-constraint.yaml @ 7a090ad7 (CC-BY-4.0)",
        kind: Kind::Public(&[
            DOCS_CLUSTER,
            include_str!("../../../tests/corpus/k8s-website/one-constraint.yaml"),
        ]),
    },
    Entry {
        id: "docs-two-constraints",
        title: "Kubernetes docs: zone and node constraints",
        summary: "Two constraints together: \"the only valid placement is onto node node4\".",
        tags: &["public", "topology spread", "documentation"],
        source: "kubernetes/website content/en/examples/pods/topology-spread-constraints/two-constraints.yaml @ 6ef03d7b (CC-BY-4.0)",
        kind: Kind::Public(&[
            DOCS_CLUSTER,
            include_str!("../../../tests/corpus/k8s-website/two-constraints.yaml"),
        ]),
    },
    Entry {
        id: "docs-conflicting-constraints",
        title: "Kubernetes docs: conflicting constraints",
        summary: "The same two constraints on another cluster: \"the Pod mypod stays in the Pending state\".",
        tags: &["public", "topology spread", "pending", "documentation"],
        source: "kubernetes/website content/en/examples/pods/topology-spread-constraints/two-constraints.yaml @ 6ef03d7b (CC-BY-4.0)",
        kind: Kind::Public(&[
            DOCS_CONFLICT_CLUSTER,
            include_str!("../../../tests/corpus/k8s-website/two-constraints.yaml"),
        ]),
    },
    Entry {
        id: "kwok-regions",
        title: "KWOK: four replicas spread over two regions",
        summary: "KWOK's scenario 6: four fake nodes in two regions, a Deployment spread by region (two per region).",
        tags: &["public", "kwok", "region", "deployment", "simulation"],
        source: "kubernetes-sigs/kwok site/content/en/docs (node-in-us-west-1.yaml @ 8f3ec32b, node-in-us-west-2.yaml @ d66f90d0, deployment.yaml @ 3db5b491; Apache-2.0)",
        kind: Kind::Public(&[
            include_str!("../../../tests/corpus/kwok/node-in-us-west-1.yaml"),
            include_str!("../../../tests/corpus/kwok/node-in-us-west-2.yaml"),
            include_str!("../../../tests/corpus/kwok/deployment.yaml"),
        ]),
    },
];

/// Where a built-in example's answers come from.
fn example_source(example: &Example) -> &'static str {
    if example.recorded {
        "spreadlab seed scenario (tests/scenarios): placements and messages recorded from the real kube-scheduler 1.34–1.37"
    } else {
        "spreadlab analysis fixture (tests/analyses): the rollout and failure rules cite the upstream controllers"
    }
}

/// Every entry: the built-in examples in menu order, then the public ones.
pub fn entries() -> Vec<Entry> {
    EXAMPLES
        .iter()
        .map(|example| Entry {
            id: example.id,
            title: example.title,
            summary: example.hint,
            tags: &["example"],
            source: example_source(example),
            kind: Kind::Example(example),
        })
        .chain(PUBLIC.iter().copied())
        .collect()
}

/// The entries matching `query` (every entry for an empty query), in gallery order.
pub fn search(query: &str) -> Vec<Entry> {
    entries().into_iter().filter(|e| e.matches(query)).collect()
}

#[cfg(test)]
mod tests;
