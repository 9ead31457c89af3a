//! The pod and Service fields the policy asks the host for (field masks), and the host's pod
//! lists read with `spreadlab_k8s::slim` (straight into the fields scheduling reads).
//!
//! CAVEAT: a field the loader starts reading from bound pods must be added to
//! `spreadlab_k8s::slim` and to [`POD_FIELD_MASKS`].

pub use spreadlab_k8s::slim::{POD_FIELD_MASKS, SERVICE_FIELD_MASKS, SlimPod, SlimPodList, prune};
