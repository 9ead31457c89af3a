//! PodDisruptionBudgets computed as the disruption controller computes them
//! (`pkg/controller/disruption/disruption.go`: `getExpectedPodCount`, `getExpectedScale`,
//! `countHealthyPods`, `updatePdbStatus`) on a simulated cluster, instead of trusting a
//! `status.disruptionsAllowed` that a plain manifest does not have and a snapshot has only for the
//! cluster as it was.
//!
//! - `maxUnavailable` (int or percent of the expected count, rounded up): `expected` is the sum of
//!   the scales of the selected pods' controllers, `desiredHealthy = max(0, expected − maxUnavailable)`.
//! - `minAvailable` integer: `desiredHealthy` is the integer and `expected` the number of selected
//!   pods; a percentage is of the controllers' scale, rounded up.
//! - `currentHealthy`: selected pods that are not being deleted and are Ready.
//! - `disruptionsAllowed = currentHealthy − desiredHealthy`, 0 when negative or when `expected`
//!   is 0 (a budget with neither field set, or whose pods have no controller, allows nothing).
//!
//! What the simulation cannot know: pod conditions are not loaded, so a bound pod that is neither
//! terminating nor finished counts as Ready (every pod the simulation places is assumed to start);
//! a controller the input does not describe (a snapshot pod's ReplicaSet without its Deployment)
//! counts its selected pods as its scale.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::Placement;
use crate::model::{Cluster, IntOrPercent, Pod, PodDisruptionBudget};

/// A budget's status as the disruption controller would write it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// `status.expectedPods`.
    pub expected_pods: i32,
    /// `status.desiredHealthy`.
    pub desired_healthy: i32,
    /// `status.currentHealthy`.
    pub current_healthy: i32,
    /// `status.disruptionsAllowed`.
    pub disruptions_allowed: i32,
}

/// One pod a budget selects, as the controller sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selected<'a> {
    /// Not being deleted and Ready.
    pub healthy: bool,
    /// Its controller (an identity and that controller's scale, `spec.replicas`); `None` for an
    /// unmanaged pod (no controller reference), which adds nothing to the expected count.
    pub controller: Option<(&'a str, i32)>,
}

/// The controller's arithmetic over the selected pods (`getExpectedPodCount`, `countHealthyPods`,
/// `updatePdbStatus`).
pub fn compute(
    min_available: Option<IntOrPercent>,
    max_unavailable: Option<IntOrPercent>,
    pods: &[Selected<'_>],
) -> Budget {
    // getExpectedScale: each controller counted once, unmanaged pods skipped.
    let scale = || -> i32 {
        let mut seen: BTreeMap<&str, i32> = BTreeMap::new();
        for (id, scale) in pods.iter().filter_map(|p| p.controller) {
            seen.entry(id).or_insert(scale);
        }
        seen.values().copied().fold(0i32, i32::saturating_add)
    };
    let (expected_pods, desired_healthy) = match (max_unavailable, min_available) {
        (Some(max), _) => {
            let expected = scale();
            (
                expected,
                expected.saturating_sub(max.scaled(expected, true)).max(0),
            )
        }
        (None, Some(IntOrPercent::Int(n))) => (i32::try_from(pods.len()).unwrap_or(i32::MAX), n),
        (None, Some(min)) => {
            let expected = scale();
            (expected, min.scaled(expected, true))
        }
        (None, None) => (0, 0),
    };
    let current_healthy = i32::try_from(pods.iter().filter(|p| p.healthy).count()).unwrap_or(0);
    let allowed = current_healthy.saturating_sub(desired_healthy);
    Budget {
        expected_pods,
        desired_healthy,
        current_healthy,
        disruptions_allowed: if expected_pods <= 0 || allowed <= 0 {
            0
        } else {
            allowed
        },
    }
}

/// Who controls which pod, for [`budget`]: the workloads' replicas (bound, Pending, and their
/// replacements, which keep their keys) belong to the workload with its desired replicas; other
/// pods with a controller reference belong to that controller, whose scale is taken as its pods
/// in the cluster.
#[derive(Clone, Debug, Default)]
pub struct Ownership {
    /// Pod key to (workload key, desired replicas).
    by_pod: BTreeMap<String, (String, i32)>,
}

impl Ownership {
    /// The ownership of the settled cluster's pods.
    pub fn of(settled: Placement<'_>) -> Ownership {
        let mut by_pod = BTreeMap::new();
        for (index, workload) in settled.workloads.iter().enumerate() {
            let owner = (
                workload.key.clone(),
                i32::try_from(workload.desired).unwrap_or(i32::MAX),
            );
            let members = settled.members.get(index).into_iter().flatten().cloned();
            let pending = settled
                .pending
                .get(index)
                .into_iter()
                .flatten()
                .map(|(p, _)| p.key());
            for key in members
                .chain(pending)
                .chain(workload.running.iter().cloned())
            {
                by_pod.entry(key).or_insert_with(|| owner.clone());
            }
        }
        Ownership { by_pod }
    }
}

/// Whether `pdb` selects `pod` for the disruption controller and the eviction API: same
/// namespace and the selector matches (policy/v1: an empty selector selects every pod of the
/// namespace, a nil one none; client-go `listers/policy/v1` `GetPodPodDisruptionBudgets`).
pub fn selects(pdb: &PodDisruptionBudget, pod: &Pod) -> bool {
    pod.namespace == pdb.namespace && pdb.selector.matches(&pod.labels)
}

/// Ready as far as the simulation knows: bound, not being deleted, not finished.
pub fn healthy(pod: &Pod) -> bool {
    pod.node_name.is_some() && !pod.terminating && !pod.phase.is_terminal()
}

/// `pdb`'s status over `cluster`'s pods plus `unbound` ones (Pending replicas exist as API
/// objects: they count toward an integer `minAvailable`'s expected pods, not as healthy).
pub fn budget(
    cluster: &Cluster,
    unbound: &[&Pod],
    pdb: &PodDisruptionBudget,
    owners: &Ownership,
) -> Budget {
    let selected: Vec<&Pod> = cluster
        .pods
        .iter()
        .map(|p| &**p)
        .chain(unbound.iter().copied())
        .filter(|p| selects(pdb, p))
        .collect();
    // Controllers outside the input: their scale is the pods they have here.
    let mut outside: BTreeMap<String, i32> = BTreeMap::new();
    let mut ids: Vec<Option<(String, i32)>> = Vec::with_capacity(selected.len());
    let mut seen = BTreeSet::new();
    for pod in &selected {
        let key = pod.key();
        if !seen.insert(key.clone()) {
            ids.push(None);
            continue;
        }
        if let Some((id, scale)) = owners.by_pod.get(&key) {
            ids.push(Some((id.clone(), *scale)));
        } else if let Some(owner) = &pod.owner {
            let id = alloc::format!("{}/{}/{}", owner.kind, pod.namespace, owner.name);
            *outside.entry(id.clone()).or_insert(0) += 1;
            ids.push(Some((id, 0)));
        } else {
            ids.push(None);
        }
    }
    let pods: Vec<Selected<'_>> = selected
        .iter()
        .zip(&ids)
        .map(|(pod, id)| Selected {
            healthy: healthy(pod),
            controller: id.as_ref().map(|(id, scale)| {
                (
                    id.as_str(),
                    outside.get(id).copied().unwrap_or(*scale).max(*scale),
                )
            }),
        })
        .collect();
    compute(pdb.min_available, pdb.max_unavailable, &pods)
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntOrPercent::{Int, Percent};

    fn owned(healthy: bool, id: &str, scale: i32) -> Selected<'_> {
        Selected {
            healthy,
            controller: Some((id, scale)),
        }
    }

    const NAKED: Selected<'static> = Selected {
        healthy: true,
        controller: None,
    };

    fn status(budget: Budget) -> (i32, i32, i32, i32) {
        (
            budget.disruptions_allowed,
            budget.current_healthy,
            budget.desired_healthy,
            budget.expected_pods,
        )
    }

    /// Ported from upstream `pkg/controller/disruption/disruption_test.go`; the expected tuples
    /// are the arguments of its `VerifyPdbStatus(disruptionsAllowed, currentHealthy,
    /// desiredHealthy, expectedPods)` calls.
    #[test]
    fn upstream_disruption_controller_cases() {
        // TestReplicationController / TestStatefulSetController: minAvailable 34% of a
        // controller of 3 (rounds up to 2), pods added one at a time; then a rogue unmanaged pod.
        let rc = |n: usize| (0..n).map(|_| owned(true, "rc", 3)).collect::<Vec<_>>();
        assert_eq!(
            status(compute(Some(Percent(34)), None, &rc(1))),
            (0, 1, 2, 3)
        );
        assert_eq!(
            status(compute(Some(Percent(34)), None, &rc(2))),
            (0, 2, 2, 3)
        );
        assert_eq!(
            status(compute(Some(Percent(34)), None, &rc(3))),
            (1, 3, 2, 3)
        );
        let mut rogue = rc(3);
        rogue.push(NAKED);
        assert_eq!(
            compute(Some(Percent(34)), None, &rogue).disruptions_allowed,
            2
        );

        // TestIntegerMaxUnavailableWithScaling: maxUnavailable 2, ReplicaSet of 7 then 5, one pod.
        let one = |scale| [owned(true, "rs", scale)];
        assert_eq!(status(compute(None, Some(Int(2)), &one(7))), (0, 1, 5, 7));
        assert_eq!(status(compute(None, Some(Int(2)), &one(5))), (0, 1, 3, 5));
        // TestPercentageMaxUnavailableWithScaling: 30% of 7 and of 3, rounded up.
        assert_eq!(
            status(compute(None, Some(Percent(30)), &one(7))),
            (0, 1, 4, 7)
        );
        assert_eq!(
            status(compute(None, Some(Percent(30)), &one(3))),
            (0, 1, 2, 3)
        );
        // TestReplicaSet: minAvailable 20% of a ReplicaSet of 10, one pod.
        assert_eq!(
            status(compute(Some(Percent(20)), None, &one(10))),
            (0, 1, 2, 10)
        );
        // TestIntegerMaxUnavailable and TestNakedPod: an unmanaged pod allows nothing.
        assert_eq!(compute(None, Some(Int(1)), &[NAKED]).disruptions_allowed, 0);
        assert_eq!(
            compute(Some(Percent(28)), None, &[NAKED]).disruptions_allowed,
            0
        );
        // TestUnavailable: minAvailable 3 (an integer counts the selected pods as expected);
        // four Ready pods allow one, and one of them losing Ready allows none.
        let naked = |ready: [bool; 4]| {
            ready.map(|healthy| Selected {
                healthy,
                controller: None,
            })
        };
        assert_eq!(
            status(compute(Some(Int(3)), None, &naked([true; 4]))),
            (1, 4, 3, 4)
        );
        assert_eq!(
            status(compute(
                Some(Int(3)),
                None,
                &naked([false, true, true, true])
            )),
            (0, 3, 3, 4)
        );
        // TestScaleResource: maxUnavailable 5 of a scale of 10 with 4 pods: desired 5, none allowed.
        let four = [owned(true, "cr", 10); 4];
        assert_eq!(status(compute(None, Some(Int(5)), &four)), (0, 4, 5, 10));
    }

    /// Neither field set (policy/v1 does not default one): nothing expected, nothing allowed
    /// (`updatePdbStatus` requires `expectedCount > 0`). Hand-derived from `getExpectedPodCount`.
    #[test]
    fn budget_without_fields_allows_nothing() {
        let pods = [owned(true, "rs", 3); 3];
        assert_eq!(status(compute(None, None, &pods)), (0, 3, 0, 0));
    }
}
