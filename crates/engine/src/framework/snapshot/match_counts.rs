//! Per namespace and selector, how many pods on each node match (`countPodsMatchSelector`), and
//! the same counts summed per domain of the topology keys asked for, both kept up to date as
//! pods bind and leave, so a PodTopologySpread PreFilter reads its domains' counts without a
//! pass over the nodes.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::{MATCH_COUNT_CACHE_LIMIT, Snapshot, TopologyIndex};
use crate::model::Selector;

/// How many topology indexes one selector's counts keep sums for before starting afresh (a
/// snapshot's indexes are rebuilt when its nodes change).
const DOMAIN_SUMS_LIMIT: usize = 8;

/// One (namespace, selector)'s counts.
#[derive(Clone, Debug)]
pub(in crate::framework) struct MatchCounts {
    /// Per node (snapshot index).
    pub(in crate::framework) per_node: Vec<u32>,
    /// Per topology index asked for: `per_node` summed over each of its values' nodes. The index
    /// itself is held, so an index rebuilt later (at whatever address) is never taken for it.
    by_domain: Vec<(Arc<TopologyIndex>, Vec<i64>)>,
}

impl MatchCounts {
    /// The counts of `per_node`, with no domain sums yet.
    pub(in crate::framework) fn new(per_node: Vec<u32>) -> MatchCounts {
        MatchCounts {
            per_node,
            by_domain: Vec::new(),
        }
    }

    /// A matching pod arrived on (`delta` 1) or left (`delta` -1) `node`.
    pub(in crate::framework) fn add(&mut self, node: usize, delta: i32) {
        self.per_node[node] = self.per_node[node].wrapping_add_signed(delta);
        for (index, sums) in &mut self.by_domain {
            let value = index.node_value[node];
            if value != TopologyIndex::NO_VALUE {
                sums[value as usize] += i64::from(delta);
            }
        }
    }

    /// A node with no pods now takes `position` (the indexes are rebuilt: sums start afresh).
    pub(in crate::framework) fn insert_node(&mut self, position: usize) {
        self.per_node.insert(position, 0);
        self.by_domain.clear();
    }

    /// The node at `position` is gone.
    pub(in crate::framework) fn remove_node(&mut self, position: usize) {
        self.per_node.remove(position);
        self.by_domain.clear();
    }

    /// Per value of `index`: the pods counted on the nodes with that value (nodes without the
    /// key count nowhere).
    pub(in crate::framework) fn domain_sums(&mut self, index: &Arc<TopologyIndex>) -> &[i64] {
        let found = self
            .by_domain
            .iter()
            .position(|(kept, _)| Arc::ptr_eq(kept, index));
        let position = match found {
            Some(position) => position,
            None => {
                if self.by_domain.len() >= DOMAIN_SUMS_LIMIT {
                    self.by_domain.clear();
                }
                let mut sums = alloc::vec![0i64; index.values.len()];
                for (&value, &count) in index.node_value.iter().zip(&self.per_node) {
                    if value != TopologyIndex::NO_VALUE {
                        sums[value as usize] += i64::from(count);
                    }
                }
                self.by_domain.push((Arc::clone(index), sums));
                self.by_domain.len() - 1
            }
        };
        &self.by_domain[position].1
    }
}

impl Snapshot {
    /// Calls `f` with the number of pods on each node (by node index) that are in `namespace`, not
    /// terminating and matched by `selector` (`countPodsMatchSelector`, including its rule that an
    /// empty selector counts nothing). Counts are cached and updated as pods bind and leave.
    pub fn with_match_counts<R>(
        &self,
        namespace: &str,
        selector: &Selector,
        f: impl FnOnce(&[u32]) -> R,
    ) -> R {
        if selector.is_empty() {
            let zeros = alloc::vec![0u32; self.nodes.len()];
            return f(&zeros);
        }
        {
            let cache = self.match_counts.borrow();
            if let Some(counts) = cache.get(namespace).and_then(|m| m.get(selector)) {
                return f(&counts.per_node);
            }
        }
        self.with_counts_entry(namespace, selector, |counts| f(&counts.per_node))
    }

    /// [`Snapshot::with_match_counts`] summed per value of `index` (a node without the key counts
    /// nowhere), kept up to date as pods bind and leave.
    pub fn with_domain_counts<R>(
        &self,
        namespace: &str,
        selector: &Selector,
        index: &Arc<TopologyIndex>,
        f: impl FnOnce(&[i64]) -> R,
    ) -> R {
        if selector.is_empty() {
            return f(&alloc::vec![0; index.values.len()]);
        }
        self.with_counts_entry(namespace, selector, |counts| f(counts.domain_sums(index)))
    }

    /// Calls `f` on the counts of (`namespace`, `selector`), counted first when not kept.
    fn with_counts_entry<R>(
        &self,
        namespace: &str,
        selector: &Selector,
        f: impl FnOnce(&mut MatchCounts) -> R,
    ) -> R {
        let mut cache = self.match_counts.borrow_mut();
        if let Some(counts) = cache.get_mut(namespace).and_then(|m| m.get_mut(selector)) {
            return f(counts);
        }
        let mut counts = alloc::vec![0u32; self.nodes.len()];
        for (index, node) in self.nodes.iter().enumerate() {
            for id in &node.pods {
                let pod = &self.pod(*id).pod;
                if !pod.terminating && pod.namespace == namespace && selector.matches(&pod.labels) {
                    counts[index] += 1;
                }
            }
        }
        if cache.values().map(BTreeMap::len).sum::<usize>() >= MATCH_COUNT_CACHE_LIMIT {
            cache.clear();
        }
        let counts = cache
            .entry(String::from(namespace))
            .or_default()
            .entry(selector.clone())
            .or_insert(MatchCounts::new(counts));
        f(counts)
    }
}
