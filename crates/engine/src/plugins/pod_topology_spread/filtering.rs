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

/// PreFilter's counts where the inclusion policies must be asked per node (required node
/// affinity or a taints policy honoured).
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
    for (node_index, node_info) in snapshot.nodes.iter().enumerate() {
        // All-keys gate: a node lacking any constraint's key is ignored for every constraint.
        if domains
            .iter()
            .any(|t| t.index.node_value[node_index] == TopologyIndex::NO_VALUE)
        {
            continue;
        }
        let node = &node_info.node;
        let affinity_matches = reads.affinity_matches(pod, node);
        for (c_index, constraint) in constraints.iter().enumerate() {
            if !constraint.matches_node_inclusion_policies(pod, node, affinity_matches) {
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
