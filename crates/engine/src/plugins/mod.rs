//! The default profile's plugins, one folder each, with the same file names as upstream's
//! `pkg/scheduler/framework/plugins/<plugin>/`. The framework runtime is the only caller.

pub mod default_preemption;
pub mod helper;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_resources;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod taint_toleration;
