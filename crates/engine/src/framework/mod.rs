//! The scheduling framework: verdicts, plugin names, the profile, pod and node infos, the
//! snapshot and the extension-point runner. Mirrors kubernetes v1.35 `pkg/scheduler/framework/`.

mod by_class;
mod cache;
pub(crate) mod classes;
pub mod fit_error;
pub mod names;
pub mod node_tree;
pub mod profile;
pub mod resize;
pub mod runtime;
pub mod snapshot;
pub mod status;
#[cfg(test)]
pub mod testing;
pub mod types;

pub use fit_error::{Diagnosis, fit_error_message};
pub use names::PluginName;
pub use profile::Profile;
pub use runtime::{
    CycleState, PluginScores, PreFilterOutcome, ScoreOutcome, add_pod, remove_pod, run_filter,
    run_filter_with_nominated_pods, run_pre_filter, run_score,
};
pub use snapshot::{Mark, NodeCsi, NominatedPod, Snapshot, SnapshotWarning, TopologyIndex};
pub use status::{Code, Reasons, Status};
pub use types::{AffinityTerm, NodeInfo, PodId, PodInfo, WeightedAffinityTerm, pod_requests};
