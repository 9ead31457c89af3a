//! The N+1 sweep: every zone (or every node holding a replica) failed one at a time, and per
//! workload the worst outcome.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::{Placement, zone_of};
use crate::scheduler::Options;

use super::*;

/// Fails every zone (or every node holding a replica) one at a time.
pub fn fail_each<'a>(
    settled: impl Into<Placement<'a>>,
    kind: DomainKind,
    mode: FailureMode,
    options: &Options,
) -> Sweep {
    let settled: Placement<'a> = settled.into();
    let workloads = settled.workloads;
    let domains: Vec<Domain> = match kind {
        DomainKind::Zone => settled
            .cluster
            .nodes
            .iter()
            .map(|n| String::from(zone_of(n)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(Domain::Zone)
            .collect(),
        DomainKind::Node => {
            let members: BTreeSet<&str> = settled
                .members
                .iter()
                .flatten()
                .map(String::as_str)
                .collect();
            let hosting: BTreeSet<&str> = settled
                .cluster
                .pods
                .iter()
                .filter(|p| members.contains(p.key().as_str()))
                .filter_map(|p| p.node_name.as_deref())
                .collect();
            settled
                .cluster
                .nodes
                .iter()
                .filter(|n| hosting.contains(n.name.as_str()))
                .map(|n| Domain::Node(n.name.clone()))
                .collect()
        }
    };
    let base = base::Base::new(settled, options.profile.version);
    let reports: Vec<FailureReport> = domains
        .iter()
        .map(|d| fail_with(settled, &base, d, mode, options, true))
        .collect();
    let survival = workloads
        .iter()
        .enumerate()
        .map(|(index, workload)| {
            let running_now = settled.members[index].len();
            let mut survival = Survival {
                workload: workload.key.clone(),
                desired: workload.desired,
                worst: None,
                min_running_after: running_now,
                min_surviving: running_now,
            };
            for report in &reports {
                let impact = &report.workloads[index];
                if survival.worst.is_none() || impact.running_after < survival.min_running_after {
                    survival.worst = Some(report.domain.clone());
                    survival.min_running_after = impact.running_after;
                }
                survival.min_surviving = survival.min_surviving.min(impact.surviving);
            }
            survival
        })
        .collect();
    Sweep {
        kind,
        mode,
        reports,
        survival,
    }
}
