//! The engine's input model: typed, parsed once, free of Kubernetes API crates.
//!
//! This is the "Repr" layer: adapters (the `spreadlab-k8s` crate) build it from API objects and
//! apply API-server defaulting; the plugins only ever read it.

pub mod cluster;
pub mod csi_translation;
pub mod labels;
pub mod node;
pub mod pod;
pub mod quantity;
pub mod resources;
pub mod storage;
pub mod taint;
pub mod validation;
pub mod volumes;
pub mod workload;

pub use cluster::{
    Cluster, Controller, ControllerKind, IntOrPercent, Namespace, PodDisruptionBudget, Service,
};
pub use csi_translation::InTreeSource;
pub use labels::{Labels, Operator, Requirement, Selector, SelectorError};
pub use node::{ContainerImage, LABEL_HOSTNAME, LABEL_REGION, LABEL_ZONE, Node};
pub use pod::{
    Affinity, Container, ContainerPort, NodeAffinity, NodeInclusionPolicy, NodeSelectorTerm,
    OwnerRef, Pod, PodAffinity, PodAffinityTerm, PodPhase, PreemptionPolicy,
    PreferredSchedulingTerm, ResourceStatus, TopologySpreadConstraint, WeightedPodAffinityTerm,
    WhenUnsatisfiable,
};
pub use quantity::{Quantity, QuantityError};
pub use resources::{Resource, ResourceList};
pub use storage::{
    AccessMode, BindingMode, ClaimRef, ClaimSpec, CsiDriver, CsiNodeDriver, CsiStorageCapacity,
    NOT_SUPPORTED_PROVISIONER, PersistentVolume, PersistentVolumeClaim, Storage, StorageClass,
    TopologyTerm, VolumeAttachment, VolumeMode, VolumePhase,
};
pub use taint::{Taint, TaintEffect, Toleration, TolerationOperator};
pub use volumes::{ClaimTemplate, PodVolume, VolumeSource, VolumeSummary};
pub use workload::{RolloutSpec, Scenario, Strategy, Workload, stateful_set_max_unavailable};
