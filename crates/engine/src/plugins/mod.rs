//! The default profile's plugins, one folder each, with the same file names as upstream's
//! `pkg/scheduler/framework/plugins/<plugin>/`, and the in-tree registry (`registry.rs`) through
//! which the framework's runner reaches them.

pub mod default_preemption;
pub mod helper;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_declared_features;
pub mod node_name;
pub mod node_ports;
pub mod node_resources;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod pod_topology_spread;
pub mod registry;
pub mod taint_toleration;
pub mod volume_binding;
pub mod volume_restrictions;
pub mod volume_zone;
