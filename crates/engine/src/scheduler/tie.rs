//! Tie handling: where kube-scheduler picks at random among equals (`selectHost` in
//! `pkg/scheduler/schedule_one.go`, `pickOneNodeForPreemption` in
//! `pkg/scheduler/framework/preemption/preemption.go`), the engine follows one [`TieBreak`] policy.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::Snapshot;
use crate::model::Pod;

/// How the engine chooses among equals where the real scheduler picks at random: nodes sharing the
/// top score (`selectHost`) and equally ranked preemption candidates (`pickOneNodeForPreemption`
/// walks a map).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TieBreak {
    /// The first in node input order.
    #[default]
    FirstInNodeOrder,
    /// A pseudo-random pick drawn from the seed and the pod's `namespace/name` (the same seed
    /// gives the same picks on every platform): one of the real scheduler's possible outcomes.
    Seeded(u64),
    /// Per pod (`namespace/name`), the node to pick when it is one of the equals (for preemption,
    /// also any candidate when the real scheduler would only have examined a random subset of
    /// the candidates); otherwise the first in node order. Replays an observed run.
    Follow(BTreeMap<String, String>),
}

impl TieBreak {
    /// Picks one of `equal` (non-empty, node order); `eligible` are further nodes the pick may
    /// follow to (a preemption candidate outside the best-ranked ones).
    pub(super) fn pick(
        &self,
        snapshot: &Snapshot,
        pod: &Pod,
        equal: &[usize],
        eligible: &[usize],
    ) -> usize {
        match self {
            TieBreak::FirstInNodeOrder => equal[0],
            TieBreak::Seeded(seed) => {
                let mut hash = *seed ^ 0xcbf2_9ce4_8422_2325;
                for byte in pod.namespace.bytes().chain([b'/']).chain(pod.name.bytes()) {
                    hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
                equal[(splitmix64(hash) % equal.len() as u64) as usize]
            }
            TieBreak::Follow(choices) => {
                let key = alloc::format!("{}/{}", pod.namespace, pod.name);
                choices
                    .get(&key)
                    .and_then(|name| snapshot.node_index.get(name))
                    .copied()
                    .filter(|node| equal.contains(node) || eligible.contains(node))
                    .unwrap_or(equal[0])
            }
        }
    }
}

/// The `splitmix64` finalizer: a well-mixed 64-bit value from any input.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
/// The nodes of `feasible` whose score `totals` (in the same order) is the highest, in order.
pub(super) fn best(feasible: &[usize], totals: &[i64]) -> Vec<usize> {
    let mut best = i64::MIN;
    let mut tied = Vec::new();
    for (&node, &total) in feasible.iter().zip(totals) {
        if total > best {
            best = total;
            tied.clear();
        }
        if total == best {
            tied.push(node);
        }
    }
    tied
}
