//! spreadlab as a Kubewarden admission policy: a waPC guest (`wasm32-wasip1`) that rejects, or
//! warns about, Deployments, StatefulSets, ReplicaSets and Pods whose replicas would not spread,
//! fit or survive a zone loss on the current cluster, with the scheduler's own explanation.
//!
//! The decision is [`decide::decide`], a pure function of (admission request, [`Settings`],
//! [`ClusterSource`]), usable without the Kubewarden SDK (`default-features = false`: what
//! `spreadlab serve` links). With the default feature `kubewarden`, [`wapc`] is the thin
//! adapter: it registers the waPC functions and turns a [`Decision`] into Kubewarden's
//! `ValidationResponse`; the cluster comes from the host's Kubernetes capability
//! ([`host::HostCluster`]) in the module and from fixtures in tests.

mod checks;
pub mod decide;
#[cfg(feature = "kubewarden")]
pub mod host;
pub mod mutate;
pub mod prepared;
pub mod request;
pub mod settings;
pub mod slim;
pub mod snapshot;
#[cfg(feature = "kubewarden")]
pub mod wapc;

pub use decide::{Decision, decide, decide_payload, decide_payload_prepared, decide_prepared};
pub use prepared::Prepared;
pub use settings::Settings;
pub use snapshot::{ClusterSource, FixtureCluster};

#[cfg(feature = "kubewarden")]
pub use wapc::{response, settings_response, validate, validate_settings, wapc_init};
