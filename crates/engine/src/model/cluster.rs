//! The cluster snapshot the engine schedules against: nodes, bound pods and the objects that shape
//! default spreading, namespace selectors and preemption.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::labels::{Labels, Selector};
use super::node::Node;
use super::pod::Pod;
use super::storage::Storage;

/// A Namespace and its labels (for `namespaceSelector`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Namespace {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`.
    pub labels: Labels,
}

/// A Service: its `spec.selector` feeds the default spread selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Service {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.selector`; `None` when nil.
    pub selector: Option<Labels>,
}

/// Which controller kind a [`Controller`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControllerKind {
    /// `v1/ReplicationController` (map selector).
    ReplicationController,
    /// `apps/v1/ReplicaSet`.
    ReplicaSet,
    /// `apps/v1/StatefulSet`.
    StatefulSet,
}

/// A ReplicaSet, StatefulSet or ReplicationController, for the default spread selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Controller {
    /// Kind.
    pub kind: ControllerKind,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The parsed selector (a ReplicationController's map selector as `key = value` requirements).
    pub selector: Selector,
}

/// A PodDisruptionBudget: its status for preemption's victim ordering (the scheduler reads
/// `status.disruptionsAllowed`), its spec for the analyses (which compute the budget as the
/// disruption controller does, `analysis::disruption`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodDisruptionBudget {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.selector`; `Nothing` when nil (a nil PDB selector selects no pod).
    pub selector: Selector,
    /// `status.disruptionsAllowed` as the snapshot has it (0 when there is no status).
    pub disruptions_allowed: i32,
    /// The names of the pods in `status.disruptedPods` (evictions the API server has processed
    /// and the disruption controller has not yet seen): preemption does not count them against
    /// the budget (`filterPodsWithPDBViolation`, defaultpreemption/default_preemption.go).
    pub disrupted_pods: Vec<String>,
    /// `spec.minAvailable`.
    pub min_available: Option<IntOrPercent>,
    /// `spec.maxUnavailable`.
    pub max_unavailable: Option<IntOrPercent>,
}

/// An `intstr.IntOrString` of the rolling-update and PodDisruptionBudget fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOrPercent {
    /// An absolute number.
    Int(i32),
    /// A percentage of the desired replicas.
    Percent(i32),
}

impl IntOrPercent {
    /// `GetScaledValueFromIntOrPercent`: percentages of `total`, rounded up or down.
    pub fn scaled(self, total: i32, round_up: bool) -> i32 {
        match self {
            IntOrPercent::Int(n) => n,
            IntOrPercent::Percent(p) => {
                let product = i64::from(p) * i64::from(total);
                let value = if round_up {
                    (product + 99).div_euclid(100)
                } else {
                    product.div_euclid(100)
                };
                value as i32
            }
        }
    }

    /// `3` or `25%`.
    pub fn describe(self) -> String {
        match self {
            IntOrPercent::Int(n) => alloc::format!("{n}"),
            IntOrPercent::Percent(p) => alloc::format!("{p}%"),
        }
    }
}

/// Everything the scheduler reads from the cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Nodes, in the order given.
    pub nodes: Vec<Node>,
    /// Pods bound to nodes (`spec.nodeName` set); terminal ones are dropped on load. Shared
    /// (`Arc`): a cluster, its snapshots and the variants analyses try clone pods by reference
    /// (`Arc::make_mut` where one is changed).
    pub pods: Vec<Arc<Pod>>,
    /// Namespaces.
    pub namespaces: Vec<Namespace>,
    /// Services.
    pub services: Vec<Service>,
    /// ReplicaSets, StatefulSets and ReplicationControllers.
    pub controllers: Vec<Controller>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<PodDisruptionBudget>,
    /// Claims, volumes, classes and CSI objects (shared until a simulation binds a claim).
    pub storage: Arc<Storage>,
}
