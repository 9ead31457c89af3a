//! NodeDeclaredFeatures: a pod that needs a node feature (inferred from its spec) only fits nodes
//! that declare it in `status.declaredFeatures`. In the default profile from v1.36, where the
//! NodeDeclaredFeatures gate went beta and on (`pkg/features/kube_features.go` v1.36.3), as the
//! last PreFilter and Filter plugin. Mirrors
//! `pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go` and the
//! feature registry of `k8s.io/component-helpers/nodedeclaredfeatures` (v0.36.3, v0.37.2).

mod filtering;

pub use filtering::{PreFilterState, filter, pre_filter};

/// `errReasonUnsatisfiedRequirements`.
pub const ERR_REASON: &str = "node(s) didn't match Pod's required features";
