//! Stalemates: workloads whose Pending replicas are held back by each other. A Pending replica is
//! *blocked by* another workload when, on some node, the scheduler rejects it for resources
//! (NodeResourcesFit) or anti-affinity (InterPodAffinity) while replicas of that workload run
//! there. Workloads blocking each other in a cycle are a stalemate; for each one the analysis
//! tries what would break it (one more node in a zone, or relaxing one hard constraint), each
//! verified by placing everything again.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::settle::place;
use super::{Placement, Settled, Workload};
use crate::framework::PluginName;
use crate::model::{Cluster, Pod, WeightedPodAffinityTerm, WhenUnsatisfiable};
use crate::scheduler::{Detail, Options, PodDecision};

/// One workload blocked by another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocking {
    /// The workload with Pending replicas.
    pub blocked: String,
    /// The workload whose running replicas hold it back.
    pub by: String,
    /// Nodes where that happens, with the rejecting plugin.
    pub nodes: Vec<(String, PluginName)>,
}

/// A fix that was verified by placing everything again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    /// What changes.
    pub change: String,
    /// Pending replicas of the cycle's workloads after the change (before: see the cycle).
    pub pending_after: usize,
}

/// Workloads blocking each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stalemate {
    /// The workloads of the cycle, sorted.
    pub workloads: Vec<String>,
    /// Their Pending replicas.
    pub pending: usize,
    /// The blocking edges inside the cycle.
    pub edges: Vec<Blocking>,
    /// What would break it (only changes that reduce the Pending replicas), best first.
    pub remedies: Vec<Remedy>,
}

/// Every blocking relation, and the cycles among them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StalemateReport {
    /// Every workload blocked by another.
    pub blocking: Vec<Blocking>,
    /// Cycles.
    pub stalemates: Vec<Stalemate>,
}

fn blocking(settled: Placement<'_>) -> Vec<Blocking> {
    let workloads = settled.workloads;
    let mut owner: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut node_of: BTreeMap<String, &str> = BTreeMap::new();
    for pod in settled.cluster.pods.iter() {
        if let Some(node) = &pod.node_name {
            node_of.insert(pod.key(), node.as_str());
        }
    }
    for (index, members) in settled.members.iter().enumerate() {
        for key in members {
            if let Some(node) = node_of.get(key) {
                owner.insert((*node, key.as_str()), index);
            }
        }
    }
    let mut by_node: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for ((node, _), index) in &owner {
        by_node.entry(node).or_default().insert(*index);
    }
    let mut out: BTreeMap<(usize, usize), Vec<(String, PluginName)>> = BTreeMap::new();
    for (index, pending) in settled.pending.iter().enumerate() {
        for (_, decision) in pending {
            let Some(explanation) = &decision.explanation else {
                continue;
            };
            for verdict in &explanation.nodes {
                let Some(plugin) = verdict.filter.plugin else {
                    continue;
                };
                if verdict.filter.is_success()
                    || !matches!(
                        plugin,
                        PluginName::NodeResourcesFit | PluginName::InterPodAffinity
                    )
                {
                    continue;
                }
                for &other in by_node.get(verdict.node.as_str()).into_iter().flatten() {
                    if other != index {
                        let nodes = out.entry((index, other)).or_default();
                        if !nodes.iter().any(|(n, _)| *n == verdict.node) {
                            nodes.push((verdict.node.clone(), plugin));
                        }
                    }
                }
            }
        }
    }
    out.into_iter()
        .map(|((blocked, by), nodes)| Blocking {
            blocked: workloads[blocked].key.clone(),
            by: workloads[by].key.clone(),
            nodes,
        })
        .collect()
}

/// Strongly connected components of size 2 or more, by mutual reachability (one graph node per
/// workload, so quadratic is fine).
fn cycles(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adjacency = alloc::vec![Vec::new(); n];
    for &(a, b) in edges {
        adjacency[a].push(b);
    }
    let reach = |start: usize| {
        let mut seen = alloc::vec![false; n];
        let mut stack = alloc::vec![start];
        while let Some(v) = stack.pop() {
            for &w in &adjacency[v] {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
        seen
    };
    let reaches: Vec<Vec<bool>> = (0..n).map(reach).collect();
    let mut assigned = alloc::vec![false; n];
    let mut out = Vec::new();
    for v in 0..n {
        if assigned[v] || !reaches[v][v] {
            continue;
        }
        let component: Vec<usize> = (0..n).filter(|&w| reaches[v][w] && reaches[w][v]).collect();
        for &w in &component {
            assigned[w] = true;
        }
        if component.len() >= 2 {
            out.push(component);
        }
    }
    out
}

/// Finds the stalemates among the settled workloads and verifies remedies for each (every remedy
/// placed again from the scenario's input). The blocking replicas are read from the Pending
/// replicas' explanations: a `settled` made with [`Detail::None`] is placed again with them.
pub fn stalemates(settled: &Settled, options: &Options) -> StalemateReport {
    let cluster = &settled.scenario.cluster;
    let workloads = settled.workloads();
    let explained;
    let placed = if settled.detail == Detail::None {
        let with_reasons = Options {
            detail: Detail::PendingOnly,
            ..options.clone()
        };
        explained = place(cluster, workloads, &with_reasons);
        Placement {
            cluster: &explained.cluster,
            workloads,
            members: &explained.members,
            pending: &explained.pending,
            shared: None,
        }
    } else {
        settled.placement()
    };
    let blocking = blocking(placed);
    // Remedies only count what stays Pending: no per-node detail needed.
    let options = Options {
        detail: Detail::None,
        ..options.clone()
    };
    let index_of = |key: &str| workloads.iter().position(|w| w.key == key).unwrap_or(0);
    let edges: Vec<(usize, usize)> = blocking
        .iter()
        .map(|b| (index_of(&b.blocked), index_of(&b.by)))
        .collect();
    let mut stalemates = Vec::new();
    for component in cycles(workloads.len(), &edges) {
        let members: BTreeSet<usize> = component.iter().copied().collect();
        let pending_of = |pending: &[Vec<(Pod, PodDecision)>]| -> usize {
            members.iter().map(|&i| pending[i].len()).sum()
        };
        let pending = pending_of(placed.pending);
        let mut remedies = Vec::new();
        let mut try_change = |change: String, cluster: &Cluster, workloads: &[Workload]| {
            let after = place(cluster, workloads, &options);
            let pending_after = pending_of(&after.pending);
            if pending_after < pending {
                remedies.push(Remedy {
                    change,
                    pending_after,
                });
            }
        };
        for zone in super::zones(cluster) {
            let Some((bigger, like)) = super::with_extra_node(cluster, zone, "extra") else {
                continue;
            };
            try_change(
                format!("one more node in zone {zone} like {like}"),
                &bigger,
                workloads,
            );
        }
        for &i in &component {
            let template = &workloads[i].template;
            for (c, constraint) in template.topology_spread_constraints.iter().enumerate() {
                if constraint.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule {
                    continue;
                }
                let relaxed = relax(workloads, i, |pod| {
                    pod.topology_spread_constraints[c].when_unsatisfiable =
                        WhenUnsatisfiable::ScheduleAnyway;
                });
                try_change(
                    format!(
                        "{}: topologySpreadConstraints[{c}] ({}) whenUnsatisfiable: ScheduleAnyway",
                        workloads[i].key, constraint.topology_key
                    ),
                    cluster,
                    &relaxed,
                );
            }
            let required = template
                .affinity
                .pod_anti_affinity
                .as_ref()
                .map_or(0, |a| a.required.len());
            for t in 0..required {
                let relaxed = relax(workloads, i, |pod| {
                    if let Some(anti) = &mut pod.affinity.pod_anti_affinity {
                        let term = anti.required.remove(t);
                        anti.preferred
                            .push(WeightedPodAffinityTerm { weight: 100, term });
                    }
                });
                try_change(
                    format!(
                        "{}: required anti-affinity term {t} made preferred (weight 100)",
                        workloads[i].key
                    ),
                    cluster,
                    &relaxed,
                );
            }
        }
        remedies.sort_by_key(|r| r.pending_after);
        let names: Vec<String> = component
            .iter()
            .map(|&i| workloads[i].key.clone())
            .collect();
        stalemates.push(Stalemate {
            workloads: names.clone(),
            pending,
            edges: blocking
                .iter()
                .filter(|b| names.contains(&b.blocked) && names.contains(&b.by))
                .cloned()
                .collect(),
            remedies,
        });
    }
    StalemateReport {
        blocking,
        stalemates,
    }
}

/// The workloads with workload `index`'s template (and its pods to create) changed by `edit`.
fn relax(
    workloads: &[Workload],
    index: usize,
    edit: impl Fn(&mut crate::model::Pod),
) -> Vec<Workload> {
    let mut out = workloads.to_vec();
    edit(&mut out[index].template);
    for pod in &mut out[index].to_create {
        edit(pod);
    }
    out
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::analysis::testing::{cluster, settled, zone_node, zone_spread};
    use crate::framework::testing::pod;
    use crate::model::Container;

    /// Two zones with one single-GPU node each and two workloads of two 1-GPU replicas with a
    /// hard zone spread over their own pods, whose replicas interleave in the queue (priorities
    /// 10, 10, 5, 5): `a-0` takes g1, `b-0` g2; `a-1` may only go to zone z2 (z1 would make skew
    /// 2) where `b` holds the GPU, and `b-1` only to z1 where `a` does: each blocks the other.
    /// One more GPU node in either zone lets one of them finish.
    #[test]
    fn interleaved_spread_replicas_deadlock_and_one_more_node_breaks_it() {
        let gpu = |name: &str, zone: &str| {
            let mut n = zone_node(name, zone);
            n.allocatable.insert("nvidia.com/gpu".into(), 1);
            n
        };
        let cluster = cluster(vec![gpu("g1", "z1"), gpu("g2", "z2")]);
        let template = |app: &str| {
            let mut p = pod("", &[("app", app)], None);
            let mut c = Container {
                name: "c".into(),
                ..Default::default()
            };
            c.requests.insert("nvidia.com/gpu".into(), 1);
            p.containers.push(c);
            p.topology_spread_constraints
                .push(zone_spread(crate::analysis::testing::app(app)));
            p
        };
        let workload = |app: &str, names: &[&str]| Workload {
            key: format!("Deployment/default/{app}"),
            desired: names.len(),
            running: vec![],
            to_create: names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let mut p = template(app);
                    p.name = (*n).into();
                    p.priority = if i == 0 { 10 } else { 5 };
                    p
                })
                .collect(),
            template: template(app),
            ..Workload::default()
        };
        let workloads = vec![
            workload("a", &["a-0", "a-1"]),
            workload("b", &["b-0", "b-1"]),
        ];
        let options = Options::default();
        let report = stalemates(&settled(&cluster, &workloads, &options), &options);
        assert_eq!(report.stalemates.len(), 1, "{report:?}");
        let stalemate = &report.stalemates[0];
        assert_eq!(stalemate.workloads.len(), 2);
        assert_eq!(stalemate.pending, 2);
        assert!(stalemate.edges.iter().all(|e| {
            e.nodes
                .iter()
                .all(|(_, p)| *p == PluginName::NodeResourcesFit)
        }));
        assert!(
            stalemate
                .remedies
                .iter()
                .any(|r| r.change.starts_with("one more node in zone") && r.pending_after < 2),
            "{:?}",
            stalemate.remedies
        );
    }
}
