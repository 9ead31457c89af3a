//! The order in which kube-scheduler examines nodes, and where it stops: the scheduler cache's
//! node tree (`pkg/scheduler/backend/cache/node_tree.go`: nodes grouped by zone, zones in the
//! order their first node arrived, listed round robin across zones) and the sampling of
//! `findNodesThatPassFilters` (`pkg/scheduler/schedule_one.go`: nodes from
//! `nextStartNodeIndex` on, stopping once `numFeasibleNodesToFind` feasible nodes are found;
//! the next cycle starts where this one stopped).
//!
//! The tree is built as the scheduler's informer delivers nodes: at start-up, the API server
//! lists them by name, so spreadlab builds it from the nodes in name order (a scheduler that
//! has run for a while holds later nodes in the order they joined). kube-scheduler checks nodes
//! with 16 workers at once, so which feasible nodes it finds first varies from run to run near
//! the stopping point; spreadlab checks them one at a time, as kube-scheduler configured with
//! `parallelism: 1` does.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::types::NodeInfo;

/// `failure-domain.beta.kubernetes.io/zone`.
const LABEL_BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// `failure-domain.beta.kubernetes.io/region`.
const LABEL_BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
/// `topology.kubernetes.io/zone`.
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// `topology.kubernetes.io/region`.
const LABEL_REGION: &str = "topology.kubernetes.io/region";

/// `utilnode.GetZoneKey` (component-helpers/node/topology): region and zone, the beta labels
/// first; empty when the node has neither.
fn zone_key(node: &NodeInfo) -> String {
    let labels = &node.node.labels;
    let zone = labels
        .get(LABEL_BETA_ZONE)
        .or_else(|| labels.get(LABEL_ZONE))
        .map_or("", String::as_str);
    let region = labels
        .get(LABEL_BETA_REGION)
        .or_else(|| labels.get(LABEL_REGION))
        .map_or("", String::as_str);
    if region.is_empty() && zone.is_empty() {
        return String::new();
    }
    let mut key = String::with_capacity(region.len() + zone.len() + 3);
    key.push_str(region);
    key.push_str(":\0:");
    key.push_str(zone);
    key
}

/// `nodeTree.list()` of a tree built from `nodes` added in name order: snapshot node indexes,
/// round robin across zones (zones in the order of their first node by name).
pub fn tree_order(nodes: &[NodeInfo]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..nodes.len()).collect();
    by_name.sort_by(|a, b| nodes[*a].node.name.cmp(&nodes[*b].node.name));
    let mut zone_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut zones: Vec<Vec<usize>> = Vec::new();
    for index in by_name {
        let key = zone_key(&nodes[index]);
        let zone = *zone_of.entry(key).or_insert_with(|| {
            zones.push(Vec::new());
            zones.len() - 1
        });
        zones[zone].push(index);
    }
    let mut list = Vec::with_capacity(nodes.len());
    let longest = zones.iter().map(Vec::len).max().unwrap_or(0);
    for position in 0..longest {
        for zone in &zones {
            if let Some(&index) = zone.get(position) {
                list.push(index);
            }
        }
    }
    list
}

/// The nodes one cycle's Filter pass examines, in order, and where it stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The feasible nodes the pass keeps (at most `numFeasibleNodesToFind`), snapshot indexes
    /// in ascending order.
    pub feasible: Vec<usize>,
    /// The nodes whose verdict the pass records: the kept feasible ones and the infeasible ones
    /// examined before it stopped (`len(feasibleNodes) + NodeToStatus.Len()`).
    pub processed: Vec<usize>,
}

/// `findNodesThatPassFilters` run one node at a time over `order` (the pass's nodes in node
/// tree order) from `start`: feasible nodes are kept until `limit` of them are found; the node
/// that would be one more is examined but neither kept nor recorded, and the pass stops.
pub fn sample(order: &[usize], start: usize, limit: usize, is_feasible: &[bool]) -> Sample {
    let mut feasible = Vec::new();
    let mut processed = Vec::new();
    let n = order.len();
    for step in 0..n {
        let node = order[(start + step) % n];
        if is_feasible[node] {
            if feasible.len() == limit {
                break;
            }
            feasible.push(node);
        }
        processed.push(node);
    }
    feasible.sort_unstable();
    Sample {
        feasible,
        processed,
    }
}

/// [`sample`] over the nodes of `tree` (node tree order) that `in_pass` keeps (`None`: every
/// node), where the feasible ones are `feasible`.
pub fn sample_feasible(
    tree: &[usize],
    in_pass: Option<&[bool]>,
    start: usize,
    limit: usize,
    feasible: &[usize],
) -> Sample {
    let mut is_feasible = alloc::vec![false; tree.len()];
    for &node in feasible {
        is_feasible[node] = true;
    }
    match in_pass {
        Some(set) => {
            let narrowed: Vec<usize> = tree.iter().copied().filter(|&n| set[n]).collect();
            sample(&narrowed, start, limit, &is_feasible)
        }
        None => sample(tree, start, limit, &is_feasible),
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::framework::testing::node;

    /// `nodeTree.list()`: zones in order of their first node (by name), one node per zone per
    /// round; nodes without zone labels form their own (empty-key) zone.
    #[test]
    fn nodes_are_listed_round_robin_across_zones() {
        let nodes: Vec<NodeInfo> = [
            ("a-1", "a"),
            ("b-1", "b"),
            ("a-2", "a"),
            ("a-3", "a"),
            ("c-1", "c"),
            ("b-2", "b"),
        ]
        .iter()
        .map(|(name, zone)| NodeInfo::new(node(name, &[(LABEL_ZONE, zone)])))
        .chain([NodeInfo::new(node("plain", &[]))])
        .collect();
        let names: Vec<&str> = tree_order(&nodes)
            .into_iter()
            .map(|i| nodes[i].node.name.as_str())
            .collect();
        assert_eq!(
            names,
            vec!["a-1", "b-1", "c-1", "plain", "a-2", "b-2", "a-3"]
        );
    }

    /// The beta zone label wins over the GA one, and region is part of the key.
    #[test]
    fn zone_keys_follow_get_zone_key() {
        let info = |labels: &[(&str, &str)]| NodeInfo::new(node("n", labels));
        assert_eq!(zone_key(&info(&[])), "");
        assert_eq!(zone_key(&info(&[(LABEL_ZONE, "z")])), ":\0:z");
        assert_eq!(
            zone_key(&info(&[
                (LABEL_ZONE, "z"),
                (LABEL_BETA_ZONE, "old"),
                (LABEL_REGION, "r")
            ])),
            "r:\0:old"
        );
    }

    /// The pass stops at the limit; the node that would exceed it is not recorded, so the next
    /// cycle starts there.
    #[test]
    fn sampling_stops_after_the_limit() {
        let order = [0, 1, 2, 3, 4, 5];
        let feasible = [true, false, true, true, false, true];
        let s = sample(&order, 1, 2, &feasible);
        assert_eq!(s.feasible, vec![2, 3]);
        assert_eq!(s.processed, vec![1, 2, 3, 4]);
        let all = sample(&order, 4, 10, &feasible);
        assert_eq!(all.feasible, vec![0, 2, 3, 5]);
        assert_eq!(all.processed.len(), 6);
    }
}
