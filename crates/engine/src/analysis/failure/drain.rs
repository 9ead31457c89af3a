//! Draining a failed domain instead of losing it: `kubectl drain` (cordon, the
//! `node.kubernetes.io/unschedulable` taint) and the eviction API, which refuses an eviction
//! while the PodDisruptionBudget allows none (`pkg/registry/core/pod/storage/eviction.go`);
//! replacements are scheduled after every eviction.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::analysis::Placement;
use crate::analysis::disruption::{self, Ownership};
use crate::model::{Pod, Taint, TaintEffect};
use crate::scheduler::{self, Options};

use super::*;

/// The taint the node lifecycle controller puts on cordoned nodes (`TaintNodesByCondition`).
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// Drains `nodes` of the settled cluster (see [`DrainImpact`]): per budget of the cluster, in
/// order. Pods are evicted in the cluster's pod order, a refused one retried after every
/// successful eviction, until nothing more can be evicted.
pub(super) fn drain(
    settled: Placement<'_>,
    nodes: &BTreeSet<String>,
    owners: &Ownership,
    options: &Options,
) -> Vec<DrainImpact> {
    let mut cluster = settled.cluster.clone();
    for node in cluster.nodes.iter_mut().filter(|n| nodes.contains(&n.name)) {
        node.unschedulable = true;
        if !node.taints.iter().any(|t| t.key == TAINT_UNSCHEDULABLE) {
            node.taints.push(Taint {
                key: TAINT_UNSCHEDULABLE.into(),
                value: String::new(),
                effect: TaintEffect::NoSchedule,
            });
        }
    }
    let member: BTreeSet<&str> = settled
        .members
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut unbound: Vec<Pod> = settled
        .pending
        .iter()
        .flatten()
        .map(|(p, _)| p.clone())
        .collect();
    let mut queue: Vec<String> = cluster
        .pods
        .iter()
        .filter(|p| !p.terminating && p.node_name.as_ref().is_some_and(|n| nodes.contains(n)))
        .map(|p| p.key())
        .collect();
    let mut drains = alloc::vec![DrainImpact::default(); cluster.pdbs.len()];
    // Budgets are recomputed only after the cluster changed (an eviction, a replacement).
    let mut budgets: Vec<Option<i32>> = alloc::vec![None; cluster.pdbs.len()];
    loop {
        let mut progress = false;
        let mut index = 0;
        while index < queue.len() {
            let wanted = queue[index].split_once('/');
            let Some(position) = cluster
                .pods
                .iter()
                .position(|p| Some((p.namespace.as_str(), p.name.as_str())) == wanted)
            else {
                queue.remove(index);
                continue;
            };
            let covering: Vec<usize> = cluster
                .pdbs
                .iter()
                .enumerate()
                .filter(|(_, pdb)| disruption::selects(pdb, &cluster.pods[position]))
                .map(|(i, _)| i)
                .collect();
            // The eviction API refuses a pod covered by more than one budget, and one whose
            // budget allows no disruption now.
            let refused = covering.len() > 1
                || covering.iter().any(|&i| {
                    let allowed = *budgets[i].get_or_insert_with(|| {
                        let pending: Vec<&Pod> = unbound.iter().collect();
                        disruption::budget(&cluster, &pending, &cluster.pdbs[i], owners)
                            .disruptions_allowed
                    });
                    allowed < 1
                });
            if refused {
                index += 1;
                continue;
            }
            budgets.iter_mut().for_each(|b| *b = None);
            let evicted = cluster.pods.remove(position);
            queue.remove(index);
            progress = true;
            for &i in &covering {
                drains[i].evictions += 1;
            }
            if !member.contains(evicted.key().as_str()) {
                continue;
            }
            let mut replacement = Arc::unwrap_or_clone(evicted);
            replacement.unbind();
            let simulation =
                scheduler::simulate(&cluster, core::slice::from_ref(&replacement), options);
            match simulation.decisions.first() {
                Some(decision) if decision.node.is_some() => {
                    replacement.node_name = decision.node.clone();
                    cluster.pods.push(Arc::new(replacement));
                }
                decision => {
                    for &i in &covering {
                        drains[i].pending_replacements.push(replacement.key());
                        if drains[i].message.is_none() {
                            drains[i].message = decision.and_then(|d| d.message.clone());
                        }
                    }
                    unbound.push(replacement);
                }
            }
        }
        if !progress {
            break;
        }
    }
    let pending: Vec<&Pod> = unbound.iter().collect();
    for key in &queue {
        if let Some(pod) = cluster.pods.iter().find(|p| p.key() == *key) {
            for (i, pdb) in cluster.pdbs.iter().enumerate() {
                if disruption::selects(pdb, pod) {
                    drains[i].blocked += 1;
                }
            }
        }
    }
    for (i, pdb) in cluster.pdbs.iter().enumerate() {
        drains[i].healthy_at_end =
            disruption::budget(&cluster, &pending, pdb, owners).current_healthy;
    }
    drains
}
