//! What the analyses place and follow: a [`Scenario`] (the cluster and its workloads, each with
//! the controller fields the analyses read), as the loader resolved it. The rollout fields mirror
//! `apps/v1` `DeploymentStrategy` and `StatefulSetUpdateStrategy` (`pkg/apis/apps/types.go`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Cluster, IntOrPercent, Pod};

/// A cluster and the workloads to place on it: everything an analysis reads. Settled once
/// (`analysis::settle`), the result is shared by the simulation report and every analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scenario {
    /// The cluster as given (nodes, bound pods, PDBs, ...).
    pub cluster: Cluster,
    /// The workloads, in input order.
    pub workloads: Vec<Workload>,
}

/// A set of replicas the analyses follow (a Deployment, StatefulSet, Job, ...), as the loader
/// resolved it against the cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    /// `Kind/namespace/name`.
    pub key: String,
    /// Desired replicas.
    pub desired: usize,
    /// Its replicas already in the cluster (`namespace/name`), bound or not.
    pub running: Vec<String>,
    /// The pods its controller creates now (the missing replicas), as many as can change an
    /// answer (`analysis::bound::replicas_to_build`).
    pub to_create: Vec<Pod>,
    /// Missing replicas past `to_create`, counted and not built: more of them than could ever
    /// fit, each stays Pending as the last of `to_create` does (`analysis::bound`).
    pub not_built: usize,
    /// The admitted pod template, for extra replicas (capacity); its name is replaced.
    pub template: Pod,
    /// A Deployment's or StatefulSet's update strategy and timings (defaulted), for the rollout
    /// analysis; `None` for kinds that do not roll out.
    pub rollout: Option<RolloutSpec>,
    /// The `maxReplicas` of the HorizontalPodAutoscaler that scales it, if any (capacity).
    pub hpa_max_replicas: Option<usize>,
}

/// `spec.strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Delete every old pod, then create the new ones.
    Recreate,
    /// Surge and replace.
    RollingUpdate {
        /// `maxSurge` (default 25%).
        max_surge: IntOrPercent,
        /// `maxUnavailable` (default 25%).
        max_unavailable: IntOrPercent,
    },
    /// A StatefulSet's `RollingUpdate`: from the highest ordinal down to `partition`, up to
    /// `maxUnavailable` pods at a time are deleted, recreated under the same name and waited for
    /// (the MaxUnavailableStatefulSet feature, beta and on by default in v1.35).
    OrderedRollingUpdate {
        /// `updateStrategy.rollingUpdate.partition` (default 0).
        partition: i32,
        /// `updateStrategy.rollingUpdate.maxUnavailable` (default 1).
        max_unavailable: IntOrPercent,
        /// `podManagementPolicy: Parallel`: the deleted pods are recreated together rather than
        /// one at a time in ordinal order (OrderedReady, the default).
        parallel: bool,
    },
    /// A StatefulSet's `OnDelete`: the controller replaces nothing by itself.
    OnDelete,
}

impl Strategy {
    /// `ResolveFenceposts`: (surge rounded up, unavailable rounded down); both 0 gives
    /// unavailable 1. Recreate gives (0, replicas).
    pub fn resolve(self, replicas: i32) -> (i32, i32) {
        match self {
            Strategy::Recreate => (0, replicas),
            Strategy::OrderedRollingUpdate {
                max_unavailable, ..
            } => (0, stateful_set_max_unavailable(max_unavailable, replicas)),
            Strategy::OnDelete => (0, 0),
            Strategy::RollingUpdate {
                max_surge,
                max_unavailable,
            } => {
                let surge = max_surge.scaled(replicas, true);
                let unavailable = max_unavailable.scaled(replicas, false);
                if surge == 0 && unavailable == 0 {
                    (0, 1)
                } else {
                    (surge, unavailable.min(replicas))
                }
            }
        }
    }

    /// `RollingUpdate(maxSurge=…, maxUnavailable=…)` or `Recreate`.
    pub fn describe(self) -> String {
        match self {
            Strategy::Recreate => String::from("Recreate"),
            Strategy::OrderedRollingUpdate {
                partition,
                max_unavailable,
                parallel,
            } => format!(
                "RollingUpdate(partition={partition}, maxUnavailable={}) (StatefulSet, {})",
                max_unavailable.describe(),
                if parallel {
                    "Parallel: up to maxUnavailable pods replaced together"
                } else {
                    "OrderedReady: up to maxUnavailable pods deleted together, recreated one at a time"
                }
            ),
            Strategy::OnDelete => String::from("OnDelete (StatefulSet)"),
            Strategy::RollingUpdate {
                max_surge,
                max_unavailable,
            } => format!(
                "RollingUpdate(maxSurge={}, maxUnavailable={})",
                max_surge.describe(),
                max_unavailable.describe()
            ),
        }
    }
}

/// `getStatefulSetMaxUnavailable` (`pkg/controller/statefulset/stateful_set_control.go`):
/// `maxUnavailable` scaled against `spec.replicas` rounding down
/// (`intstr.GetScaledValueFromIntOrPercent(..., false)`), at least 1.
pub fn stateful_set_max_unavailable(max_unavailable: IntOrPercent, replicas: i32) -> i32 {
    max_unavailable.scaled(replicas, false).max(1)
}

/// The Deployment (or StatefulSet) fields the rollout reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolloutSpec {
    /// `spec.strategy`.
    pub strategy: Strategy,
    /// `spec.minReadySeconds`.
    pub min_ready_seconds: u64,
    /// `spec.progressDeadlineSeconds` (default 600).
    pub progress_deadline_seconds: u64,
    /// The template's `terminationGracePeriodSeconds` (default 30).
    pub termination_grace_seconds: u64,
}
