//! The spread-and-anti-affinity conflict: a replica Pending on both rules while each alone places
//! every replica (each variant placed again).

use alloc::collections::BTreeSet;
use alloc::format;

use crate::analysis::settle::place;
use crate::framework::PluginName;
use crate::model::{Pod, WhenUnsatisfiable};
use crate::scheduler::Options;

use super::*;

impl Checker<'_> {
    /// A replica Pending with both PodTopologySpread and InterPodAffinity among the nodes'
    /// rejections is a conflict only when each rule alone can be satisfied: placing everything
    /// again with the hard spread constraints dropped, and again with the required anti-affinity
    /// dropped, leaves none of this workload's replicas Pending, while both together do.
    pub(super) fn conflicts(&mut self, options: &Options) {
        let both = self.settled.pending[self.index]
            .iter()
            .find(|(_, decision)| {
                decision.explanation.as_ref().is_some_and(|explanation| {
                    let plugins: BTreeSet<PluginName> = explanation
                        .nodes
                        .iter()
                        .filter(|v| !v.filter.is_success())
                        .filter_map(|v| v.filter.plugin)
                        .collect();
                    plugins.contains(&PluginName::PodTopologySpread)
                        && plugins.contains(&PluginName::InterPodAffinity)
                })
            });
        let Some((pod, decision)) = both else {
            return;
        };
        let places_all = |relax: fn(&mut Pod)| {
            let mut workloads = self.workloads.to_vec();
            let variant = &mut workloads[self.index];
            relax(&mut variant.template);
            for p in &mut variant.to_create {
                relax(p);
            }
            place(self.cluster, &workloads, options).pending[self.index].is_empty()
        };
        let without_spread = places_all(|p| {
            p.topology_spread_constraints
                .retain(|c| c.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule);
        });
        let without_anti = places_all(|p| {
            if let Some(anti) = &mut p.affinity.pod_anti_affinity {
                anti.required.clear();
            }
        });
        if without_spread && without_anti {
            let message = decision.message.clone().unwrap_or_default();
            self.push(
                "spread-and-anti-affinity-conflict",
                None,
                format!(
                    "{} stays Pending: {message} (each rule alone places every replica)",
                    pod.name
                ),
            );
        }
    }
}
