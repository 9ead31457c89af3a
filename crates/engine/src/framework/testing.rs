//! Test builders (after upstream's `pkg/scheduler/testing/wrappers.go`), for the unit tests beside
//! each plugin.

use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::{Profile, Snapshot};
use crate::model::resources::{CPU, MEMORY, PODS};
use crate::model::{Cluster, Labels, Node, Pod};
use crate::version::KubeVersion;

/// Labels from pairs.
pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (String::from(*k), String::from(*v)))
        .collect()
}

/// A node with labels, 4 cpu, 8 GiB and 110 pods.
pub fn node(name: &str, pairs: &[(&str, &str)]) -> Node {
    let mut node = Node::named(name);
    node.labels = labels(pairs);
    node.allocatable.insert(CPU.into(), 4000);
    node.allocatable.insert(MEMORY.into(), 8 << 30);
    node.allocatable.insert(PODS.into(), 110);
    node
}

/// A pod in `default` with labels, optionally bound to a node.
pub fn pod(name: &str, pairs: &[(&str, &str)], node_name: Option<&str>) -> Pod {
    let mut pod = Pod::named("default", name);
    pod.labels = labels(pairs);
    pod.node_name = node_name.map(String::from);
    pod
}

/// A snapshot of nodes and bound pods.
pub fn snapshot(nodes: Vec<Node>, pods: Vec<Pod>) -> Snapshot {
    Snapshot::new(
        &Cluster {
            nodes,
            pods: pods.into_iter().map(Into::into).collect(),
            ..Cluster::default()
        },
        KubeVersion::DEFAULT,
    )
    .0
}

/// The profile with only `plugin`.
pub fn only(plugin: crate::framework::PluginName) -> Profile {
    Profile::single(plugin)
}
