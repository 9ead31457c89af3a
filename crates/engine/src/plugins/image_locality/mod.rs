//! ImageLocality: favours nodes that already hold the pod's images, scaled by how widely they spread.
//! Mirrors `pkg/scheduler/framework/plugins/imagelocality/image_locality.go` (v1.35; image volumes
//! from v1.36 and v1.37).

mod scoring;

pub use scoring::{normalized_image_name, score};

#[cfg(test)]
mod tests {
    /// Upstream `TestNormalizedImageName` (image_locality_test.go, v1.35.4), its four rows; the
    /// digest is upstream's `getImageFakeDigest("root")`, `sha256:` + hex(sha256("root")).
    #[test]
    fn normalized_image_name_upstream_rows() {
        let digest = "root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
        let rows = [
            ("add :latest postfix 1", "root", "root:latest"),
            (
                "add :latest postfix 2",
                "gcr.io:5000/root",
                "gcr.io:5000/root:latest",
            ),
            ("keep it as is 1", "root:tag", "root:tag"),
            ("keep it as is 2", digest, digest),
        ];
        for (name, input, output) in rows {
            assert_eq!(super::normalized_image_name(input), output, "{name}");
        }
    }
}
