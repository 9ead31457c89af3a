//! Zone loss and PodDisruptionBudgets: every zone holding a replica failed both ways
//! (`analysis::failure`), sudden loss and drain.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::failure::{self, FailureMode};
use crate::scheduler::Options;

use super::*;

impl Checker<'_> {
    /// Every zone holding a replica, failed both ways (removed, and unreachable: under
    /// nodeTaintsPolicy Ignore an unreachable zone can hold every replacement back): the worst
    /// shortfall per mode, and per PodDisruptionBudget the first zone whose sudden loss leaves it
    /// short and the first whose drain blocks (a drain is the same in both modes: asked once).
    pub(super) fn zone_loss(&mut self, options: &Options) {
        let mut zones =
            crate::analysis::per_zone(&self.settled.cluster, &self.settled.members[self.index]);
        // Nodes without a zone label are not a zone: losing "(no zone)" is no zone failure (on
        // a cluster without zone labels the rule has nothing to check).
        zones.remove(crate::analysis::NO_ZONE);
        if zones.is_empty() {
            return;
        }
        // This workload alone is followed; the others stay where they are.
        let Some(single) = self.settled.placement_of(self.index) else {
            return;
        };
        let desired = self.workload.desired;
        let mut short_pdbs: BTreeSet<String> = BTreeSet::new();
        let mut blocked_pdbs: BTreeSet<String> = BTreeSet::new();
        for mode in [FailureMode::Removed, FailureMode::Unreachable] {
            // (running after, zone, held, replacements held by their volumes) of every zone that
            // leaves the workload short.
            let mut short: Vec<(usize, &String, usize, usize)> = Vec::new();
            for (zone, held) in &zones {
                let report = failure::fail_without_recovery(
                    single,
                    &failure::Domain::Zone(zone.clone()),
                    mode,
                    options,
                );
                let impact = &report.workloads[0];
                if impact.running_after < desired {
                    let pinned = impact
                        .replacements
                        .iter()
                        .filter(|r| {
                            !r.was_pending
                                && r.message.as_deref().is_some_and(|m| {
                                    m.contains(
                                        crate::plugins::volume_binding::ERR_REASON_NODE_CONFLICT,
                                    )
                                })
                        })
                        .count();
                    short.push((impact.running_after, zone, *held, pinned));
                }
                for pdb in &report.pdbs {
                    if pdb.violated && short_pdbs.insert(pdb.pdb.clone()) {
                        self.push(
                            "pdb-violated",
                            None,
                            format!(
                                "a failure of zone {zone} leaves {} healthy, PodDisruptionBudget {} needs {}",
                                pdb.healthy_after_failure, pdb.pdb, pdb.budget.desired_healthy
                            ),
                        );
                    }
                    if pdb.drain.blocks() && blocked_pdbs.insert(pdb.pdb.clone()) {
                        self.push(
                            "pdb-violated",
                            None,
                            format!(
                                "draining zone {zone} blocks after {} eviction(s): PodDisruptionBudget {} allows no more{}",
                                pdb.drain.evictions,
                                pdb.pdb,
                                if pdb.drain.pending_replacements.is_empty() {
                                    String::new()
                                } else {
                                    format!(
                                        ", {} replacement(s) Pending: {}",
                                        pdb.drain.pending_replacements.len(),
                                        pdb.drain.message.as_deref().unwrap_or("")
                                    )
                                }
                            ),
                        );
                    }
                }
            }
            // The worst first (fewest running), then zone order.
            short.sort();
            if let Some((running, zone, held, pinned)) = short.first() {
                let others: Vec<&str> = short[1..].iter().map(|(_, z, _, _)| z.as_str()).collect();
                self.push(
                    "zone-loss-not-survived",
                    None,
                    format!(
                        "losing zone {zone} ({held} replica(s), nodes {}) leaves {running} of {desired} running after rescheduling{}{}",
                        mode.as_str(),
                        if *pinned > 0 {
                            format!(
                                "; {pinned} replacement(s) cannot leave the zone of their volume (node(s) didn't match PersistentVolume's node affinity)"
                            )
                        } else {
                            String::new()
                        },
                        if others.is_empty() {
                            String::new()
                        } else {
                            format!("; also short when losing zone {}", others.join(", "))
                        }
                    ),
                );
            }
        }
    }
}
