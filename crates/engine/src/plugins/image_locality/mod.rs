//! ImageLocality: favours nodes that already hold the pod's images, scaled by how widely they spread.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/imagelocality/image_locality.go`.

mod scoring;

pub use scoring::{normalized_image_name, score};
