//! The cluster snapshot the engine schedules against: nodes, bound pods and the objects that shape
//! default spreading, namespace selectors and preemption.

use alloc::string::String;
use alloc::vec::Vec;

use super::labels::{Labels, Selector};
use super::node::Node;
use super::pod::Pod;

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

/// A PodDisruptionBudget, for preemption's victim ordering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodDisruptionBudget {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `spec.selector`; `Nothing` when nil (a nil PDB selector selects no pod).
    pub selector: Selector,
    /// `status.disruptionsAllowed`.
    pub disruptions_allowed: i32,
}

/// Everything the scheduler reads from the cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Nodes, in the order given.
    pub nodes: Vec<Node>,
    /// Pods bound to nodes (`spec.nodeName` set); terminal ones are dropped on load.
    pub pods: Vec<Pod>,
    /// Namespaces.
    pub namespaces: Vec<Namespace>,
    /// Services.
    pub services: Vec<Service>,
    /// ReplicaSets, StatefulSets and ReplicationControllers.
    pub controllers: Vec<Controller>,
    /// PodDisruptionBudgets.
    pub pdbs: Vec<PodDisruptionBudget>,
}
