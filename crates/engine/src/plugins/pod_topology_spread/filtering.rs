//! Filter half of PodTopologySpread (`filtering.go`: `calPreFilterState`, `Filter`, `updateWithPod`).
//!
//! PreFilter counts matching pods per domain over **all** nodes; Filter checks
//! `matchNum + selfMatchNum - minMatchNum <= maxSkew` per node. Per-node domain indexes are
//! resolved once in PreFilter so that Filter does no label lookups.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::common::{
    InclusionReads, SpreadArgs, SpreadConstraint, get_constraints, node_has_all_keys,
};
use super::{ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH};
use crate::framework::{Code, PodInfo, Snapshot, Status, TopologyIndex};
use crate::model::{Node, Pod, WhenUnsatisfiable};

/// `criticalPaths`: the two smallest (value, count) pairs, updated as upstream does (the second one
/// is not guaranteed to be the true second minimum after updates; see upstream's CAVEAT).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticalPaths(pub [(u32, i64); 2]);

impl CriticalPaths {
    const NONE: u32 = u32::MAX;

    fn new() -> CriticalPaths {
        CriticalPaths([(Self::NONE, i32::MAX as i64), (Self::NONE, i32::MAX as i64)])
    }

    fn update(&mut self, value: u32, num: i64) {
        let paths = &mut self.0;
        let index = if value == paths[0].0 {
            Some(0)
        } else if value == paths[1].0 {
            Some(1)
        } else {
            None
        };
        match index {
            Some(i) => {
                paths[i].1 = num;
                if paths[0].1 > paths[1].1 {
                    paths.swap(0, 1);
                }
            }
            None => {
                if num < paths[0].1 {
                    paths[1] = paths[0];
                    paths[0] = (value, num);
                } else if num < paths[1].1 {
                    paths[1] = (value, num);
                }
            }
        }
    }

    /// `CriticalPaths[0].MatchNum`: the minimum (MaxInt32 when there is no domain).
    pub fn min(&self) -> i64 {
        self.0[0].1
    }
}

/// The domains of one constraint (`TpValueToMatchNum[i]`), indexed like the snapshot's
/// [`TopologyIndex`] for the constraint's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainTable {
    /// The topology key's values on the nodes.
    pub index: Arc<TopologyIndex>,
    /// Matching pods per value (0 for values with no eligible node).
    pub counts: Vec<i64>,
    /// Whether the value is a key of `TpValueToMatchNum` (seen on an eligible node).
    pub eligible: Vec<bool>,
    /// Number of eligible values (`len(TpValueToMatchNum[i])`).
    pub n_eligible: usize,
    /// The critical paths.
    pub critical_paths: CriticalPaths,
}

impl DomainTable {
    /// `TpValueToMatchNum[i]` as a map (eligible values only).
    pub fn match_num(&self) -> BTreeMap<String, i64> {
        self.index
            .values
            .iter()
            .zip(&self.counts)
            .zip(&self.eligible)
            .filter(|(_, eligible)| **eligible)
            .map(|((value, count), _)| (value.clone(), *count))
            .collect()
    }
}

/// `preFilterState`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterState {
    /// The hard constraints, in spec order.
    pub constraints: Vec<SpreadConstraint>,
    /// One table per constraint.
    pub domains: Vec<DomainTable>,
    /// Whether each constraint's selector matches the incoming pod's own labels.
    pub self_match: Vec<bool>,
}

impl PreFilterState {
    /// `minMatchNum`: the global minimum, 0 when fewer eligible domains than `minDomains`.
    pub fn min_match_num(&self, constraint: usize) -> i64 {
        let table = &self.domains[constraint];
        if table.n_eligible < self.constraints[constraint].min_domains.max(0) as usize {
            0
        } else {
            table.critical_paths.min()
        }
    }

    /// `updateWithPod`: adds (delta +1) or removes (-1) a pod on a node, for nominated pods and
    /// preemption dry runs.
    pub fn update_with_pod(
        &mut self,
        updated: &Pod,
        preemptor: &PodInfo,
        node: &Node,
        node_index: usize,
        delta: i64,
    ) {
        if updated.namespace != preemptor.pod.namespace
            || !node_has_all_keys(&node.labels, &self.constraints)
        {
            return;
        }
        let affinity_matches = preemptor.pod.matches_required_node_affinity(node);
        for (index, constraint) in self.constraints.iter().enumerate() {
            if !constraint.selector.matches(&updated.labels)
                || !constraint.matches_node_inclusion_policies(preemptor, node, affinity_matches)
            {
                continue;
            }
            let table = &mut self.domains[index];
            // The node has every key (checked above) and is in the snapshot the index was built on.
            let domain = table.index.node_value[node_index] as usize;
            if !table.eligible[domain] {
                table.eligible[domain] = true;
                table.n_eligible += 1;
            }
            table.counts[domain] += delta;
            table
                .critical_paths
                .update(domain as u32, table.counts[domain]);
        }
    }
}

/// PreFilter: `Skip` without hard constraints; otherwise the counts.
pub fn pre_filter(
    args: &SpreadArgs,
    pod: &PodInfo,
    snapshot: &Snapshot,
) -> (Status, Option<PreFilterState>) {
    let constraints = get_constraints(args, pod, snapshot, WhenUnsatisfiable::DoNotSchedule);
    if constraints.is_empty() {
        return (Status::skip(), None);
    }
    let mut domains: Vec<DomainTable> = constraints
        .iter()
        .map(|c| {
            let index = snapshot.topology_index(&c.topology_key);
            let n_values = index.values.len();
            DomainTable {
                index,
                counts: alloc::vec![0; n_values],
                eligible: alloc::vec![false; n_values],
                n_eligible: 0,
                critical_paths: CriticalPaths::new(),
            }
        })
        .collect();
    // Without required node affinity or a taints policy to honour, every node with the keys
    // counts: each constraint's counts are then summed over the domain indexes alone, without
    // reading the nodes.
    let reads = InclusionReads::of(pod, &constraints);
    if reads.nodes {
        count_reading_nodes(&constraints, &mut domains, pod, snapshot, reads);
    } else {
        // All-keys gate: a node lacking any constraint's key is ignored for every constraint.
        let gate: Option<Vec<bool>> = (domains.len() > 1).then(|| {
            (0..snapshot.nodes.len())
                .map(|n| {
                    domains
                        .iter()
                        .all(|t| t.index.node_value[n] != TopologyIndex::NO_VALUE)
                })
                .collect()
        });
        for (table, constraint) in domains.iter_mut().zip(&constraints) {
            let index = Arc::clone(&table.index);
            let namespace = &pod.pod.namespace;
            if gate.is_none() {
                // Every value of the index is some node's: every domain is eligible, and the
                // snapshot keeps the counts summed per domain.
                snapshot.with_domain_counts(namespace, &constraint.selector, &index, |sums| {
                    table.counts.copy_from_slice(sums);
                });
                table.eligible.fill(true);
                table.n_eligible = table.eligible.len();
                continue;
            }
            snapshot.with_match_counts(namespace, &constraint.selector, |counts| {
                for (node, (&value, &count)) in index.node_value.iter().zip(counts).enumerate() {
                    if value == TopologyIndex::NO_VALUE || gate.as_ref().is_some_and(|g| !g[node]) {
                        continue;
                    }
                    table.eligible[value as usize] = true;
                    table.counts[value as usize] += i64::from(count);
                }
            });
            table.n_eligible = table.eligible.iter().filter(|e| **e).count();
        }
    }
    for table in &mut domains {
        // Upstream walks a Go map here (random order); the minimum it keeps is the same either way.
        for domain in 0..table.counts.len() {
            if table.eligible[domain] {
                table
                    .critical_paths
                    .update(domain as u32, table.counts[domain]);
            }
        }
    }
    let self_match = constraints
        .iter()
        .map(|c| c.selector.matches(&pod.pod.labels))
        .collect();
    (
        Status::success(),
        Some(PreFilterState {
            constraints,
            domains,
            self_match,
        }),
    )
}

/// PreFilter's counts where the inclusion policies must be asked of the nodes (required node
/// affinity or a taints policy honoured): once per spec class, or per node as upstream asks.
fn count_reading_nodes(
    constraints: &[SpreadConstraint],
    domains: &mut [DomainTable],
    pod: &PodInfo,
    snapshot: &Snapshot,
    reads: InclusionReads,
) {
    let all_counts: Vec<Vec<u32>> = constraints
        .iter()
        .map(|c| snapshot.with_match_counts(&pod.pod.namespace, &c.selector, <[u32]>::to_vec))
        .collect();
    // Nodes of one spec class (`framework/classes.rs`) differ only in identity and pods, so the
    // policies' answer is asked once per spec class, unless the pod's node affinity reads a
    // node's identity (then per node, as upstream asks).
    let by_spec = !crate::plugins::node_affinity::reads_node_identity(&Default::default(), pod);
    let mut classes = snapshot
        .node_classes
        .try_borrow_mut()
        .ok()
        .filter(|_| by_spec);
    let (specs, n_specs) = match classes.as_deref_mut() {
        Some(classes) => classes.specs(&snapshot.nodes),
        None => (&[][..], 0),
    };
    // Per spec class and constraint: unknown, included or not.
    let mut included = alloc::vec![UNKNOWN; n_specs * constraints.len()];
    for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
        // All-keys gate: a node lacking any constraint's key is ignored for every constraint.
        if domains
            .iter()
            .any(|t| t.index.node_value[node_index] == TopologyIndex::NO_VALUE)
        {
            continue;
        }
        let node = &node_info.node;
        let memo = specs
            .get(node_index)
            .map(|&spec| spec as usize * constraints.len());
        if let Some(at) = memo
            && included[at] == UNKNOWN
        {
            let affinity_matches = reads.affinity_matches(pod, node);
            for (c_index, constraint) in constraints.iter().enumerate() {
                let counts =
                    constraint.matches_node_inclusion_policies(pod, node, affinity_matches);
                included[at + c_index] = if counts { INCLUDED } else { EXCLUDED };
            }
        }
        let affinity_matches = memo.is_none() && reads.affinity_matches(pod, node);
        for (c_index, constraint) in constraints.iter().enumerate() {
            let counts = match memo {
                Some(at) => included[at + c_index] == INCLUDED,
                None => constraint.matches_node_inclusion_policies(pod, node, affinity_matches),
            };
            if !counts {
                continue;
            }
            let table = &mut domains[c_index];
            let domain = table.index.node_value[node_index] as usize;
            if !table.eligible[domain] {
                table.eligible[domain] = true;
                table.n_eligible += 1;
            }
            table.counts[domain] += all_counts[c_index][node_index] as i64;
        }
    }
}

/// A spec class whose inclusion [`count_reading_nodes`] has not asked yet.
const UNKNOWN: u8 = 0;
/// A spec class whose nodes count for a constraint.
const INCLUDED: u8 = 1;
/// A spec class whose nodes do not count for a constraint.
const EXCLUDED: u8 = 2;

/// Filter: the first failing constraint in spec order decides.
pub fn filter(state: &PreFilterState, node_index: usize) -> Status {
    for (index, constraint) in state.constraints.iter().enumerate() {
        let table = &state.domains[index];
        let domain = table.index.node_value[node_index];
        if domain == TopologyIndex::NO_VALUE {
            return Status::new(
                Code::UnschedulableAndUnresolvable,
                ERR_REASON_NODE_LABEL_NOT_MATCH,
            );
        }
        let min_match_num = state.min_match_num(index);
        let self_match_num = i64::from(state.self_match[index]);
        let match_num = if table.eligible[domain as usize] {
            table.counts[domain as usize]
        } else {
            0
        };
        // 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
        let skew = match_num + self_match_num - min_match_num;
        if skew > constraint.max_skew as i64 {
            return Status::new(Code::Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH);
        }
    }
    Status::success()
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec::Vec;

    use super::*;
    use crate::framework::PodInfo;
    use crate::framework::testing::{labels, node, pod, snapshot};
    use crate::model::{
        LABEL_HOSTNAME, NodeInclusionPolicy, Selector, Taint, TaintEffect, TopologySpreadConstraint,
    };

    /// `matchNodeInclusionPolicies` asked once per spec class gives the counts upstream's
    /// per-node asking gives (the per-node path runs here while the classes are borrowed
    /// elsewhere). Twelve nodes in two zones, a third `disk=ssd`, every fourth tainted, one
    /// `app=x` pod on each. A pod selecting `disk=ssd` and honouring taints counts n0 and n6 in
    /// z1 and n3 in z2 (n9 is tainted): counts 2 and 1. A pod selecting n6 by hostname counts n6
    /// alone, although n0 shares its spec class and is met first.
    #[test]
    fn inclusion_asked_per_spec_class_is_exact() {
        let nodes: Vec<Node> = (0..12)
            .map(|i| {
                let name = format!("n{i}");
                let zone = if i % 2 == 0 { "z1" } else { "z2" };
                let disk = if i % 3 == 0 { "ssd" } else { "hdd" };
                let mut n = node(
                    &name,
                    &[("zone", zone), ("disk", disk), (LABEL_HOSTNAME, &name)],
                );
                if i % 4 == 1 {
                    n.taints.push(Taint {
                        key: "dedicated".into(),
                        value: "gpu".into(),
                        effect: TaintEffect::NoSchedule,
                    });
                }
                n
            })
            .collect();
        let bound: Vec<Pod> = (0..12)
            .map(|i| {
                let on = format!("n{}", (i * 5) % 12);
                pod(&format!("x{i}"), &[("app", "x")], Some(&on))
            })
            .collect();
        let s = snapshot(nodes, bound);
        assert!(!s.node_classes.borrow().has_specs());
        let incoming = |selector: &[(&str, &str)]| {
            let mut p = pod("p", &[("app", "x")], None);
            p.node_selector = labels(selector);
            p.topology_spread_constraints
                .push(TopologySpreadConstraint {
                    max_skew: 1,
                    topology_key: "zone".into(),
                    when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
                    selector: Selector::from_set(&labels(&[("app", "x")])),
                    min_domains: None,
                    node_affinity_policy: None,
                    node_taints_policy: Some(NodeInclusionPolicy::Honor),
                    match_label_keys: alloc::vec![],
                });
            PodInfo::new(p)
        };
        let counts = |state: &PreFilterState| {
            let table = &state.domains[0];
            let zone = |z: &str| {
                let at = table.index.values.iter().position(|v| v == z).unwrap();
                (table.eligible[at], table.counts[at])
            };
            (zone("z1"), zone("z2"))
        };
        let args = SpreadArgs::default();
        for (selector, expected) in [
            (&[("disk", "ssd")][..], ((true, 2), (true, 1))),
            (&[(LABEL_HOSTNAME, "n6")][..], ((true, 1), (false, 0))),
        ] {
            let pod = incoming(selector);
            let (status, by_spec) = pre_filter(&args, &pod, &s);
            // The spec classes were built and asked: {n0, n6}, {n1, n5}, {n2, n4, n8, n10},
            // {n3}, {n7, n11}, {n9}.
            assert_eq!(s.node_classes.borrow_mut().specs(&s.nodes).1, 6);
            let held = s.node_classes.borrow();
            let (node_status, by_node) = pre_filter(&args, &pod, &s);
            drop(held);
            assert_eq!(status, node_status);
            let (by_spec, by_node) = (by_spec.unwrap(), by_node.unwrap());
            assert_eq!(by_spec, by_node, "{selector:?}");
            assert_eq!(counts(&by_spec), expected, "{selector:?}");
        }
    }
}
