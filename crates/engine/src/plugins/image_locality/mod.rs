//! ImageLocality: favours nodes that already hold the pod's images, scaled by how widely they spread.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/imagelocality/image_locality.go`.

mod scoring;

pub use scoring::{normalized_image_name, score};

#[cfg(test)]
mod tests {
    #[test]
    fn untagged_images_get_latest() {
        assert_eq!(super::normalized_image_name("nginx"), "nginx:latest");
        assert_eq!(
            super::normalized_image_name("registry:5000/nginx"),
            "registry:5000/nginx:latest"
        );
        assert_eq!(super::normalized_image_name("nginx:1.27"), "nginx:1.27");
    }
}
