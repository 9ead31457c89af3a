//! The engine's view of a Node: what the default profile's plugins read.

use alloc::string::String;
use alloc::vec::Vec;

use super::labels::Labels;
use super::resources::ResourceList;
use super::taint::Taint;

/// Well-known label `kubernetes.io/hostname`.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// Well-known label `topology.kubernetes.io/zone`.
pub const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// Well-known label `topology.kubernetes.io/region`.
pub const LABEL_REGION: &str = "topology.kubernetes.io/region";

/// A container image present on a node (`node.status.images`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContainerImage {
    /// Every name the image is known by.
    pub names: Vec<String>,
    /// Size in bytes.
    pub size_bytes: i64,
}

/// A node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.labels`.
    pub labels: Labels,
    /// `spec.taints`, in order.
    pub taints: Vec<Taint>,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// `status.allocatable`, parsed (cpu in millicores).
    pub allocatable: ResourceList,
    /// `status.images`.
    pub images: Vec<ContainerImage>,
    /// `status.declaredFeatures` (NodeDeclaredFeatures, beta and on from v1.36).
    pub declared_features: Vec<String>,
}

impl Node {
    /// A node with a name and nothing else (builder start).
    pub fn named(name: impl Into<String>) -> Node {
        Node {
            name: name.into(),
            ..Node::default()
        }
    }
}
