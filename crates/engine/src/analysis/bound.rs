//! Work proportional to what can be placed, not to what is asked: how many replicas of a pod the
//! nodes can ever hold (NodeResourcesFit, `fit.go`), so a workload asking for more builds one
//! replica past that and counts the rest as Pending instead of building them.
//!
//! Why counting is exact. A workload's missing replicas share one priority and come one after
//! another in the scheduling queue (`PrioritySort`, [`crate::scheduler::queue_order`]). Each
//! replica is either bound, left nominated (both change the snapshot), or left Pending without
//! change. A replica bound or nominated holds its requests on its node for every later replica of
//! the same priority (`RunFilterPluginsWithNominatedPods` counts nominated pods of no lower
//! priority), and a replica never preempts one of its own priority (`PodEligibleToPreemptOthers`
//! needs strictly lower-priority victims). So at most [`fit_bound`] replicas change the snapshot;
//! among `fit_bound + 1` built replicas one is Pending without change, and every replica after it
//! meets the same snapshot with the same pod (only the name differs, which no filter reads), so it
//! is Pending with the same message. This holds for every profile that keeps NodeResourcesFit (the
//! default profile does) and, for a StatefulSet, when no selector names the per-pod labels
//! ([`PER_POD_LABELS`]) and the pods make no claims of their own (a claim template names its
//! claim after the pod); [`per_pod_labels_selected`] tells.

use alloc::vec::Vec;

use crate::framework::types::pod_requests;
use crate::model::resources::Resource;
use crate::model::{Cluster, Pod, Selector};

/// Most pods one simulation holds: the snapshot's pods plus every replica built. Past it, the
/// loader refuses the input (`spec.replicas`) and capacity searches stop (and say so), so every
/// face stays within a known memory ceiling (`docs/bounds.md`).
pub const MAX_SIMULATED_PODS: usize = 200_000;

/// Replicas always built, whatever fits: up to this many each gets its own decision in the
/// reports (a manifest checked without nodes still lists every replica).
pub const ALWAYS_BUILT: usize = 1_000;

/// The labels a StatefulSet's controller gives each pod (`statefulset.kubernetes.io/pod-name`,
/// `apps.kubernetes.io/pod-index`): the only difference between two of its replicas besides the
/// name.
pub const PER_POD_LABELS: [&str; 2] = [
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
];

/// How many pods like `pod` the cluster's nodes could hold at most, all at once and on empty
/// nodes: per node the least of `allocatable.pods` and, for cpu, memory and ephemeral storage the
/// pod requests, `allocatable / request` (NodeResourcesFit's `fitsRequest` rejects a pod beyond
/// either). Extended and hugepage resources are left out (a profile may ignore them), which keeps
/// this an upper bound. Saturates at `usize::MAX`.
pub fn fit_bound(cluster: &Cluster, pod: &Pod) -> usize {
    let request = pod_requests(pod, false, false);
    cluster
        .nodes
        .iter()
        .map(|node| per_node(&Resource::from_list(&node.allocatable), &request))
        .fold(0usize, usize::saturating_add)
}

fn per_node(allocatable: &Resource, request: &Resource) -> usize {
    let mut most = allocatable.allowed_pod_number.max(0);
    for (have, want) in [
        (allocatable.milli_cpu, request.milli_cpu),
        (allocatable.memory, request.memory),
        (allocatable.ephemeral_storage, request.ephemeral_storage),
    ] {
        if want > 0 {
            most = most.min(have.max(0) / want);
        }
    }
    usize::try_from(most).unwrap_or(usize::MAX)
}

/// How many of `missing` replicas of `template` to build: all of them, or [`fit_bound`] plus
/// one (at least [`ALWAYS_BUILT`]) when that is fewer (the rest count as Pending: see the module
/// docs); never more than [`MAX_SIMULATED_PODS`]. `exact_per_pod` says whether the replicas differ only by name (false
/// for a StatefulSet whose per-pod labels a selector reads: then nothing is left unbuilt below
/// the ceiling).
pub fn replicas_to_build(
    cluster: &Cluster,
    template: &Pod,
    missing: usize,
    exact_per_pod: bool,
) -> usize {
    let ceiling = missing.min(MAX_SIMULATED_PODS);
    // At most ALWAYS_BUILT: all of them whatever fits (the bound reads every node).
    if !exact_per_pod || ceiling <= ALWAYS_BUILT {
        return ceiling;
    }
    ceiling.min(
        fit_bound(cluster, template)
            .saturating_add(1)
            .max(ALWAYS_BUILT),
    )
}

/// Whether a StatefulSet's replicas differ by more than their names: the template makes claims
/// per pod, or a selector that can read an incoming pod's labels names one of
/// [`PER_POD_LABELS`] (the bound pods' (anti-)affinity terms, InterPodAffinity reading existing
/// pods' terms against the incoming pod, and the template's own spread constraints and
/// (anti-)affinity terms).
pub fn per_pod_labels_selected(cluster: &Cluster, template: &Pod) -> bool {
    // A claim made per pod (a StatefulSet's claim template, an ephemeral volume) is named after
    // the pod, and an existing one can be pinned anywhere: replicas differ by more than the name.
    if template
        .volumes
        .iter()
        .any(|v| matches!(v.source, crate::model::VolumeSource::Template(_)))
    {
        return true;
    }
    let mut selectors: Vec<&Selector> = Vec::new();
    for pod in cluster
        .pods
        .iter()
        .map(|p| &**p)
        .chain(core::iter::once(template))
    {
        if let Some(affinity) = &pod.affinity.pod_affinity {
            selectors.extend(affinity.required.iter().map(|t| &t.selector));
            selectors.extend(affinity.preferred.iter().map(|t| &t.term.selector));
        }
        if let Some(anti) = &pod.affinity.pod_anti_affinity {
            selectors.extend(anti.required.iter().map(|t| &t.selector));
            selectors.extend(anti.preferred.iter().map(|t| &t.term.selector));
        }
    }
    selectors.extend(
        template
            .topology_spread_constraints
            .iter()
            .map(|c| &c.selector),
    );
    selectors.iter().any(|selector| match selector {
        Selector::Nothing => false,
        Selector::Requirements(requirements) => requirements
            .iter()
            .any(|r| PER_POD_LABELS.contains(&r.key.as_str())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testing::{self, app, deployment, with_cpu, zone_spread};
    use crate::framework::testing::{node, pod};
    use crate::model::Workload;
    use crate::scheduler::{Detail, Options};

    /// `workload` with only its first `build` replicas built and the rest counted.
    fn counted(workload: &Workload, build: usize) -> Workload {
        let mut counted = workload.clone();
        counted.not_built = counted.to_create.len() - build;
        counted.to_create.truncate(build);
        counted
    }

    /// Building every replica and building `fit_bound + 1` of them give the same placements, the
    /// same Pending count and the same message, with preemption in play (two lower-priority pods
    /// that the replicas evict) and a later workload that must see the same cluster.
    #[test]
    fn counting_the_rest_agrees_with_building_them() {
        let (a, b) = (
            [("topology.kubernetes.io/zone", "a")],
            [("topology.kubernetes.io/zone", "b")],
        );
        let mut cluster =
            testing::cluster(alloc::vec![node("a1", &a), node("a2", &a), node("b1", &b)]);
        for (name, on) in [("low-0", "a1"), ("low-1", "b1")] {
            let mut low = with_cpu(pod(name, &[("app", "low")], Some(on)), 2000);
            low.priority = -10;
            cluster.pods.push(low.into());
        }
        let mut template = with_cpu(pod("", &[("app", "web")], None), 1000);
        template
            .topology_spread_constraints
            .push(zone_spread(app("web")));
        let web = deployment("web", template.clone(), 40);
        let after = deployment(
            "after",
            with_cpu(pod("", &[("app", "after")], None), 500),
            3,
        );
        let build = fit_bound(&cluster, &template) + 1;
        assert_eq!(build, 13);
        let options = Options {
            detail: Detail::PendingOnly,
            ..Options::default()
        };
        let all = testing::settled(&cluster, &[web.clone(), after.clone()], &options);
        let some = testing::settled(&cluster, &[counted(&web, build), after], &options);
        assert!(
            all.simulation
                .decisions
                .iter()
                .any(|d| d.preemption.is_some())
        );
        assert_eq!(all.members, some.members);
        assert_eq!(all.cluster.pods, some.cluster.pods);
        assert_eq!(all.pending_count(0), 40 - all.members[0].len());
        assert_eq!(some.pending_count(0), all.pending_count(0));
        assert_eq!(some.pending_count(1), all.pending_count(1));
        let message = |settled: &crate::analysis::Settled| {
            settled.pending[0]
                .last()
                .and_then(|(_, d)| d.message.clone())
        };
        assert!(message(&all).is_some());
        assert_eq!(message(&all), message(&some));
        // Every replica past the built ones is Pending with that same message.
        let built_last = message(&some);
        assert!(
            all.pending[0][some.pending[0].len()..]
                .iter()
                .all(|(_, d)| d.message == built_last)
        );
    }

    /// Three 4-cpu nodes (110 pods each, the test builder's default): 1-cpu pods fit 4 per node.
    #[test]
    fn resources_and_pod_count_bound_the_replicas() {
        let cluster = Cluster {
            nodes: alloc::vec![node("a", &[]), node("b", &[]), node("c", &[])],
            ..Cluster::default()
        };
        let one_cpu = with_cpu(pod("p", &[], None), 1000);
        assert_eq!(fit_bound(&cluster, &one_cpu), 12);
        assert_eq!(
            replicas_to_build(&cluster, &one_cpu, 2_147_483_647, true),
            ALWAYS_BUILT
        );
        assert_eq!(replicas_to_build(&cluster, &one_cpu, 5, true), 5);
        let big = Cluster {
            nodes: (0..400)
                .map(|i| node(&alloc::format!("n{i}"), &[]))
                .collect(),
            ..Cluster::default()
        };
        assert_eq!(
            replicas_to_build(&big, &one_cpu, 2_147_483_647, true),
            1_601
        );
        let no_request = pod("p", &[], None);
        assert_eq!(fit_bound(&cluster, &no_request), 330);
        assert_eq!(
            replicas_to_build(&cluster, &no_request, usize::MAX, false),
            MAX_SIMULATED_PODS
        );
    }
}
