//! spreadlab's engine: kube-scheduler v1.35 placement semantics as a pure `no_std` + `alloc` library.
//!
//! Layers, from the bottom:
//! - [`model`]: typed, parsed inputs (nodes, pods, selectors, quantities). Adapters build it.
//! - [`framework`]: verdicts, the profile, pod and node infos, the snapshot and the runner of the
//!   extension points, as in `pkg/scheduler/framework/`.
//! - [`plugins`]: one module per scheduler plugin, with upstream's file names.
//! - [`scheduler`]: one scheduling cycle per pod, in sequence, with explanations.
//! - [`analysis`]: what-if analyses (failures, capacity, tie-break risk) that re-run the scheduler.
//!
//! **Invariant:** the engine is a pure function of (cluster, pods, profile): no I/O, no clock, no
//! randomness; the same input gives the same report on every platform.

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(any(test, feature = "std"))]
extern crate std;

pub mod analysis;
pub mod config;
pub mod framework;
pub mod model;
pub mod plugins;
pub mod scheduler;
pub mod version;

pub use framework::{Code, PluginName, Profile, Status};
pub use model::{Cluster, Node, Pod};
pub use scheduler::{Detail, Options, PodDecision, Simulation, simulate};
pub use version::KubeVersion;
