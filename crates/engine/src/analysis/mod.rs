//! What-if analyses built on the sequential scheduler: zone and node failure ([`failure`]),
//! capacity headroom ([`capacity`]), rolling updates ([`rollout`]) and the risk hidden in random
//! tie-breaks ([`tie_break`]); PodDisruptionBudgets as the disruption controller computes them
//! ([`disruption`]).
//! They re-run [`crate::scheduler`] on changed inputs and never re-implement a scheduling rule.
//!
//! Every analysis starts from the *settled* scenario ([`settle`], done once and shared): the
//! snapshot's bound pods plus every workload's missing replicas placed where the scheduler puts
//! them.

pub mod bound;
pub mod capacity;
pub mod disruption;
pub mod failure;
pub mod lint;
pub mod rollout;
#[cfg(feature = "serde")]
mod serialize;
mod settle;
pub mod stalemate;
#[cfg(test)]
pub(crate) mod testing;
pub mod tie_break;

pub use crate::model::{Scenario, Workload};
pub use settle::{Placement, Settled, settle};

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::model::{Cluster, LABEL_ZONE, Node};

/// `part / whole` in percent, rounded down; 100 when nothing is wanted (`whole` 0). The one
/// percentage every report and face shows.
pub fn percent(part: usize, whole: usize) -> usize {
    (part * 100).checked_div(whole).unwrap_or(100)
}

/// Where a zone label is missing.
pub const NO_ZONE: &str = "(no zone)";

/// A node's zone (`topology.kubernetes.io/zone`), or [`NO_ZONE`].
pub fn zone_of(node: &Node) -> &str {
    node.labels.get(LABEL_ZONE).map_or(NO_ZONE, String::as_str)
}

/// How many of `keys` are bound in `cluster`, per zone (zones without any are left out).
pub fn per_zone(cluster: &Cluster, keys: &[String]) -> BTreeMap<String, usize> {
    let zones: BTreeMap<&str, &str> = cluster
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), zone_of(n)))
        .collect();
    let wanted: alloc::collections::BTreeSet<(&str, &str)> =
        keys.iter().filter_map(|k| split_key(k)).collect();
    let mut out = BTreeMap::new();
    for pod in &cluster.pods {
        if let Some(node) = &pod.node_name
            && wanted.contains(&(pod.namespace.as_str(), pod.name.as_str()))
            && let Some(zone) = zones.get(node.as_str())
        {
            *out.entry(String::from(*zone)).or_insert(0) += 1;
        }
    }
    out
}

/// `namespace/name` split in two (a pod key as [`Pod::key`] writes it).
fn split_key(key: &str) -> Option<(&str, &str)> {
    key.split_once('/')
}

/// The zones of the cluster's nodes, sorted, each once.
pub fn zones(cluster: &Cluster) -> Vec<&str> {
    let mut zones: Vec<&str> = cluster.nodes.iter().map(zone_of).collect();
    zones.sort_unstable();
    zones.dedup();
    zones
}

/// The cluster with one more node in `zone`: a copy of the zone's schedulable node with the most
/// allocatable GPUs, then cpu (the first such in node order), named `<name>-<suffix>`. Returns
/// the new cluster and the copied node's name; `None` when the zone has no schedulable node.
pub fn with_extra_node(cluster: &Cluster, zone: &str, suffix: &str) -> Option<(Cluster, String)> {
    with_extra_nodes(cluster, zone, suffix, 1)
}

/// [`with_extra_node`] with `count` copies: the first named `<name>-<suffix>`, the next
/// `<name>-<suffix>-2`, `-3`, ...
pub fn with_extra_nodes(
    cluster: &Cluster,
    zone: &str,
    suffix: &str,
    count: usize,
) -> Option<(Cluster, String)> {
    let amount = |node: &Node, resource: &str| node.allocatable.get(resource).copied().unwrap_or(0);
    let largest = cluster
        .nodes
        .iter()
        .filter(|n| zone_of(n) == zone && !n.unschedulable)
        .rev()
        .max_by_key(|n| (amount(n, "nvidia.com/gpu"), amount(n, "cpu")))?;
    let mut bigger = cluster.clone();
    for i in 1..=count {
        let mut extra = largest.clone();
        extra.name = if i == 1 {
            alloc::format!("{}-{suffix}", largest.name)
        } else {
            alloc::format!("{}-{suffix}-{i}", largest.name)
        };
        if let Some(host) = extra.labels.get_mut(crate::model::LABEL_HOSTNAME) {
            *host = extra.name.clone();
        }
        bigger.nodes.push(extra);
    }
    Some((bigger, largest.name.clone()))
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::framework::testing::{node, pod};
    use crate::model::{Container, Pod};
    use crate::scheduler::Options;

    fn with_cpu(mut p: Pod, millis: i64) -> Pod {
        let mut c = Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert("cpu".into(), millis);
        p.containers.push(c);
        p
    }

    /// One 4-cpu node holding a running 1-cpu replica; two more 2-cpu replicas to create: the
    /// first fits (3 of 4 cpu), the second does not (5 > 4) and stays Pending with the
    /// scheduler's message. Members list the running replica, then the placed one.
    #[test]
    fn settle_binds_what_fits_and_keeps_the_rest_pending() {
        let running = with_cpu(pod("web-0", &[("app", "web")], Some("n1")), 1000);
        let cluster = Cluster {
            nodes: vec![node("n1", &[])],
            pods: vec![running.into()],
            ..Cluster::default()
        };
        let template = with_cpu(pod("", &[("app", "web")], None), 2000);
        let to_create = ["web-1", "web-2"]
            .iter()
            .map(|name| {
                let mut p = template.clone();
                p.name = (*name).into();
                p
            })
            .collect();
        let workload = Workload {
            key: "Deployment/default/web".into(),
            desired: 3,
            running: vec!["default/web-0".into()],
            to_create,
            template,
            ..Workload::default()
        };
        let scenario = Scenario {
            cluster,
            workloads: vec![workload],
        };
        let settled = settle(scenario, &Options::default());
        assert_eq!(
            settled.members[0],
            vec![String::from("default/web-0"), "default/web-1".into()]
        );
        assert_eq!(settled.cluster.pods.len(), 2);
        assert_eq!(settled.cluster.pods[1].node_name.as_deref(), Some("n1"));
        assert_eq!(settled.pending[0].len(), 1);
        assert_eq!(settled.pending[0][0].0.name, "web-2");
        assert!(
            settled.pending[0][0]
                .1
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("0/1 nodes are available: 1 Insufficient cpu.")),
            "{:?}",
            settled.pending[0][0].1.message
        );
        assert_eq!(
            per_zone(&settled.cluster, &settled.members[0]),
            BTreeMap::from([(String::from(NO_ZONE), 2)])
        );
    }

    /// The copy is of the zone's schedulable node with the most GPUs (then cpu); cordoned nodes
    /// and other zones are skipped; the copy gets its own name and hostname label.
    #[test]
    fn extra_node_copies_the_zones_largest_schedulable_node() {
        let zone = |name: &str, z: &str, gpus: i64| {
            let mut n = node(
                name,
                &[(LABEL_ZONE, z), (crate::model::LABEL_HOSTNAME, name)],
            );
            n.allocatable.insert("nvidia.com/gpu".into(), gpus);
            n
        };
        let mut cordoned = zone("big", "a", 8);
        cordoned.unschedulable = true;
        let cluster = Cluster {
            nodes: vec![
                zone("small", "a", 1),
                cordoned,
                zone("mid", "a", 2),
                zone("other", "b", 4),
            ],
            ..Cluster::default()
        };
        let (bigger, like) = with_extra_node(&cluster, "a", "temporary").unwrap();
        assert_eq!(like, "mid");
        let extra = bigger.nodes.last().unwrap();
        assert_eq!(extra.name, "mid-temporary");
        assert_eq!(
            extra
                .labels
                .get(crate::model::LABEL_HOSTNAME)
                .map(String::as_str),
            Some("mid-temporary")
        );
        assert_eq!(bigger.nodes.len(), 5);
        let (two, _) = with_extra_nodes(&cluster, "a", "t", 2).unwrap();
        let names: Vec<&str> = two.nodes[4..].iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, vec!["mid-t", "mid-t-2"]);
        assert!(with_extra_node(&cluster, "zone-x", "t").is_none());
    }
}
