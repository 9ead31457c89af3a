//! Rolling updates: the Deployment controller (`pkg/controller/deployment/rolling.go`,
//! `recreate.go`, `util/deployment_util.go`), the ReplicaSet controller's choice of pods to
//! delete (`pkg/controller/controller_utils.go` `ActivePodsWithRanks`) and the scheduler, step by
//! step on a clock: new pods become Ready `ready_after_seconds` after they are scheduled and
//! available `minReadySeconds` later; deleted pods keep their node's resources (GPUs included)
//! for their termination grace period. The verdict says whether the rollout completes or where
//! it stalls and why (the scheduler's message), the fewest available replicas on the way, the
//! zones at every step, and whether the end state satisfies the new revision's hard spread.
//!
//! The pods the Deployment's selector matches in the snapshot are the current revision (grouped
//! into old ReplicaSets by their `pod-template-hash`); the Deployment read is the new one.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

mod deployment;
mod revision;
mod stateful_set;

use revision::uses_template_hash_key;
pub use revision::{next_revision, restarted, with_template_hash, with_template_hash_key};

use super::{Scenario, Workload};
use crate::framework::{PodInfo, Snapshot, run_pre_filter};
pub use crate::model::IntOrPercent;
use crate::model::{Cluster, Pod, WhenUnsatisfiable};
pub use crate::model::{RolloutSpec, Strategy, stateful_set_max_unavailable};
use crate::scheduler::{self, Options};

/// The label the Deployment controller puts on its ReplicaSets' pods.
pub const LABEL_POD_TEMPLATE_HASH: &str = "pod-template-hash";
/// The label a StatefulSet's pods carry their revision in (`<set>-<hash>`).
pub const LABEL_CONTROLLER_REVISION_HASH: &str = "controller-revision-hash";

/// What the rollout simulation assumes beyond the manifests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumptions {
    /// Seconds from a pod's scheduling to Ready (image pull, start, readiness probe).
    pub ready_after_seconds: u64,
    /// Steps after which the simulation gives up (a bound on hostile input).
    pub max_steps: usize,
}

impl Default for Assumptions {
    fn default() -> Self {
        Assumptions {
            ready_after_seconds: 10,
            max_steps: 10_000,
        }
    }
}

/// Pods of one revision at one step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RevisionCounts {
    /// `spec.replicas` of its ReplicaSet(s).
    pub replicas: usize,
    /// Bound and not terminating.
    pub running: usize,
    /// Running for `minReadySeconds` after Ready.
    pub available: usize,
    /// Not scheduled.
    pub pending: usize,
    /// Deleted, still holding their node's resources.
    pub terminating: usize,
    /// Running pods per zone.
    pub zones: BTreeMap<String, usize>,
}

/// The state after one instant of the rollout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Step number, from 0.
    pub step: usize,
    /// Seconds since the rollout began.
    pub time: u64,
    /// What the controllers and the scheduler did at this instant.
    pub actions: Vec<String>,
    /// The new revision.
    pub new: RevisionCounts,
    /// The old revision(s).
    pub old: RevisionCounts,
    /// Available replicas of both revisions.
    pub available: usize,
    /// Pending pods and the scheduler's message.
    pub pending: Vec<(String, String)>,
}

/// The end state against one hard spread constraint of the new revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadCheck {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// Matching pods per eligible domain (the constraint's selector, after matchLabelKeys).
    pub domains: BTreeMap<String, i64>,
    /// Largest domain count minus the global minimum.
    pub skew: i64,
    /// `skew <= maxSkew`.
    pub satisfied: bool,
}

/// The outcome of one rollout simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutOutcome {
    /// The strategy simulated.
    pub strategy: Strategy,
    /// `(maxSurge, maxUnavailable)` resolved.
    pub resolved: (i32, i32),
    /// Whether every replica runs the new revision and is available.
    pub completed: bool,
    /// The step after which nothing more happens, when not completed.
    pub stalled_at_step: Option<usize>,
    /// Why it stalls: the scheduler's message for a Pending new pod.
    pub reason: Option<String>,
    /// Fewest available replicas at any step.
    pub min_available: usize,
    /// When the `Progressing` condition turns `ProgressDeadlineExceeded` (it stops nothing).
    pub progress_deadline_exceeded_at: Option<u64>,
    /// Every step.
    pub steps: Vec<Step>,
    /// The end state against each hard spread constraint of the new revision.
    pub spread: Vec<SpreadCheck>,
}

impl RolloutOutcome {
    /// The new revision's running pods per zone at the last step (empty without steps).
    pub fn final_zones(&self) -> BTreeMap<String, usize> {
        self.steps
            .last()
            .map(|step| step.new.zones.clone())
            .unwrap_or_default()
    }
}

/// An alternative tried when the rollout stalls, verified by simulating it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// What changes.
    pub change: String,
    /// Its simulation.
    pub outcome: RolloutOutcome,
}

/// The full rollout report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutReport {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub replicas: usize,
    /// Running replicas of older revisions: the ones the rollout replaces.
    pub old_pods: usize,
    /// Running replicas already at the template's revision (kubectl's `UP-TO-DATE`): a
    /// Deployment's pods whose `pod-template-hash` is the template's, a StatefulSet's whose
    /// `controller-revision-hash` is.
    pub updated_pods: usize,
    /// Nothing to roll out: replicas are running and every one is at the template's revision
    /// (the rollout below then only scales, or does nothing).
    pub up_to_date: bool,
    /// Replicas the simulation followed: `replicas`, or fewer when more were asked than could
    /// ever fit (`analysis::bound`): the simulated ones already cannot all run, so the rollout
    /// stalls either way, and no alternative is tried (none could make every replica fit).
    pub simulated_replicas: usize,
    /// The rollout as specified.
    pub outcome: RolloutOutcome,
    /// The same rollout with the opposite choice about `matchLabelKeys: [pod-template-hash]` on
    /// the hard spread constraints (`None` without hard spread constraints): without it, old pods
    /// count toward the new revision's spread.
    pub match_label_keys: Option<(bool, RolloutOutcome)>,
    /// When the rollout stalls: alternatives, each verified.
    pub alternatives: Vec<Alternative>,
}

/// The GPU resource the temporary-capacity alternative counts.
const GPU: &str = "nvidia.com/gpu";

/// "Temporary capacity of N GPUs in zone X": the fewest copies (at most `max_nodes`) of the
/// zone's largest GPU node with which the rollout completes, found by doubling then bisecting
/// (more capacity never makes a rollout stall that completed with less), each candidate verified
/// by running the rollout again. When even `max_nodes` copies do not let it complete, that run
/// is reported as it is.
fn temporary_gpus(
    cluster: &Cluster,
    zone: &str,
    max_nodes: usize,
    run: impl Fn(&Cluster) -> RolloutOutcome,
) -> Option<Alternative> {
    let (_, like) = super::with_extra_node(cluster, zone, "temporary")?;
    let per_node = cluster
        .nodes
        .iter()
        .find(|n| n.name == like)
        .and_then(|n| n.allocatable.get(GPU).copied())
        .unwrap_or(0);
    if per_node <= 0 {
        return None;
    }
    let attempt = |count: usize| {
        super::with_extra_nodes(cluster, zone, "temporary", count).map(|(bigger, _)| run(&bigger))
    };
    let describe = |count: usize| {
        format!(
            "temporary capacity of {} GPU(s) in zone {zone} ({count} node(s) like {like})",
            per_node * count as i64
        )
    };
    // Doubling: the first count that completes, and the last that did not.
    let (mut low, mut high) = (0usize, 1usize);
    let best: (usize, RolloutOutcome) = loop {
        let count = high.min(max_nodes);
        let outcome = attempt(count)?;
        if outcome.completed {
            break (count, outcome);
        }
        if count == max_nodes {
            return Some(Alternative {
                change: format!("{} does not let it complete", describe(count)),
                outcome,
            });
        }
        low = count;
        high = count * 2;
    };
    // Bisect between the last failing count and the first completing one.
    let (mut found, mut outcome) = best;
    while found - low > 1 {
        let middle = low + (found - low) / 2;
        let tried = attempt(middle)?;
        if tried.completed {
            found = middle;
            outcome = tried;
        } else {
            low = middle;
        }
    }
    Some(Alternative {
        change: describe(found),
        outcome,
    })
}

fn has_hard_spread(pod: &Pod) -> bool {
    pod.topology_spread_constraints
        .iter()
        .any(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
}

/// Simulates one rollout of `template` over the old revision (`workload.running`, pod keys in
/// `cluster`) to `workload.desired` replicas; when more were asked than could ever fit
/// (`workload.not_built`), to the replicas built, which already cannot all run
/// (`analysis::bound`), so the work stays bounded and the rollout stalls either way.
pub fn simulate_rollout(
    cluster: &Cluster,
    workload: &Workload,
    template: &Pod,
    spec: &RolloutSpec,
    assumptions: &Assumptions,
    options: &Options,
) -> RolloutOutcome {
    let capped;
    let workload = if workload.not_built > 0 {
        capped = Workload {
            desired: workload.desired.saturating_sub(workload.not_built),
            not_built: 0,
            ..workload.clone()
        };
        &capped
    } else {
        workload
    };
    if matches!(
        spec.strategy,
        Strategy::OrderedRollingUpdate { .. } | Strategy::OnDelete
    ) {
        return stateful_set::simulate_stateful_set(
            cluster,
            workload,
            template,
            spec,
            assumptions,
            options,
        );
    }
    deployment::simulate_deployment(cluster, workload, template, spec, assumptions, options)
}

/// The end state against the template's hard spread constraints, computed by
/// PodTopologySpread's own PreFilter for one more pod of the new revision.
fn spread_checks(snapshot: &Snapshot, template: &Pod) -> Vec<SpreadCheck> {
    if !has_hard_spread(template) {
        return Vec::new();
    }
    let profile = crate::framework::Profile::default_for(snapshot.version);
    let (state, _) = run_pre_filter(&profile, snapshot, &PodInfo::new(template.clone()));
    scheduler::spread_explanations(state.spread.as_ref())
        .into_iter()
        .map(|e| {
            let max = e.domains.values().copied().max().unwrap_or(0);
            let skew = max - e.global_minimum;
            SpreadCheck {
                topology_key: e.topology_key,
                max_skew: e.max_skew,
                domains: e.domains,
                skew,
                satisfied: skew <= i64::from(e.max_skew),
            }
        })
        .collect()
}

/// The rollout of the scenario's workload `index` (its `running` pods in the scenario's cluster
/// are the current revision, its `template` the new one), the matchLabelKeys comparison, and when
/// it stalls, verified alternatives: maxSurge 0 with maxUnavailable 1, Recreate, and one more node
/// (a copy of the zone's largest) per zone. `None` for a workload without an update strategy (or
/// no such workload). It starts from the scenario's input, not from a settled cluster: the
/// running replicas are the old revision, and the missing ones are created at the new one.
pub fn rollout(
    scenario: &Scenario,
    index: usize,
    assumptions: &Assumptions,
    options: &Options,
) -> Option<RolloutReport> {
    let workload = scenario.workloads.get(index)?;
    let spec = workload.rollout.as_ref()?;
    Some(rollout_of(
        &scenario.cluster,
        workload,
        spec,
        assumptions,
        options,
    ))
}

fn rollout_of(
    cluster: &Cluster,
    workload: &Workload,
    spec: &RolloutSpec,
    assumptions: &Assumptions,
    options: &Options,
) -> RolloutReport {
    let replicas = workload.desired;
    let simulated_replicas = replicas.saturating_sub(workload.not_built);
    let run = |cluster: &Cluster, template: &Pod, spec: &RolloutSpec| {
        simulate_rollout(cluster, workload, template, spec, assumptions, options)
    };
    let outcome = run(cluster, &workload.template, spec);
    let is_deployment = matches!(
        spec.strategy,
        Strategy::RollingUpdate { .. } | Strategy::Recreate
    );
    let match_label_keys = (is_deployment && has_hard_spread(&workload.template)).then(|| {
        let with = !uses_template_hash_key(&workload.template);
        let template = with_template_hash_key(&workload.template, with);
        (with, run(cluster, &template, spec))
    });
    let mut alternatives = Vec::new();
    if !outcome.completed && simulated_replicas == replicas {
        let surge_zero = RolloutSpec {
            strategy: Strategy::RollingUpdate {
                max_surge: IntOrPercent::Int(0),
                max_unavailable: IntOrPercent::Int(1),
            },
            ..spec.clone()
        };
        let deployment = matches!(
            spec.strategy,
            Strategy::RollingUpdate { .. } | Strategy::Recreate
        );
        if deployment && surge_zero.strategy != spec.strategy {
            alternatives.push(Alternative {
                change: String::from("strategy RollingUpdate with maxSurge 0, maxUnavailable 1"),
                outcome: run(cluster, &workload.template, &surge_zero),
            });
        }
        if deployment && spec.strategy != Strategy::Recreate {
            let recreate = RolloutSpec {
                strategy: Strategy::Recreate,
                ..spec.clone()
            };
            alternatives.push(Alternative {
                change: String::from("strategy Recreate"),
                outcome: run(cluster, &workload.template, &recreate),
            });
        }
        let gpus_per_pod = workload
            .template
            .containers
            .iter()
            .filter_map(|c| c.requests.get(GPU).or_else(|| c.limits.get(GPU)))
            .sum::<i64>();
        for zone in super::zones(cluster) {
            if gpus_per_pod > 0 {
                if let Some(alternative) =
                    temporary_gpus(cluster, zone, workload.desired.max(1), |bigger| {
                        run(bigger, &workload.template, spec)
                    })
                {
                    alternatives.push(alternative);
                }
                continue;
            }
            let Some((bigger, like)) = super::with_extra_node(cluster, zone, "temporary") else {
                continue;
            };
            alternatives.push(Alternative {
                change: format!("one more node in zone {zone} like {like} (temporary capacity)"),
                outcome: run(&bigger, &workload.template, spec),
            });
        }
    }
    let updated_pods = updated_replicas(cluster, workload, spec);
    let old_pods = workload.running.len().saturating_sub(updated_pods);
    RolloutReport {
        workload: workload.key.clone(),
        replicas,
        old_pods,
        updated_pods,
        up_to_date: old_pods == 0 && updated_pods > 0,
        simulated_replicas,
        outcome,
        match_label_keys,
        alternatives,
    }
}

/// How many of the workload's running replicas carry the template's revision label.
fn updated_replicas(cluster: &Cluster, workload: &Workload, spec: &RolloutSpec) -> usize {
    let label = match spec.strategy {
        Strategy::OrderedRollingUpdate { .. } | Strategy::OnDelete => {
            LABEL_CONTROLLER_REVISION_HASH
        }
        Strategy::RollingUpdate { .. } | Strategy::Recreate => LABEL_POD_TEMPLATE_HASH,
    };
    let Some(revision) = workload.template.labels.get(label) else {
        return 0;
    };
    let running: alloc::collections::BTreeSet<&str> =
        workload.running.iter().map(String::as_str).collect();
    cluster
        .pods
        .iter()
        .filter(|pod| !pod.terminating && pod.labels.get(label) == Some(revision))
        .filter(|pod| running.contains(pod.key().as_str()))
        .count()
}

#[cfg(test)]
mod tests;
