//! Score half of ImageLocality (`Score`, `calculatePriority`, `sumImageScores`).

use alloc::format;
use alloc::string::String;

use crate::framework::{NodeInfo, PodInfo, Snapshot};
use crate::model::VolumeSource;
use crate::plugins::helper::MAX_NODE_SCORE;
use crate::version::KubeVersion;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// `normalizedImageName`: appends `:latest` when the name has no tag.
pub fn normalized_image_name(name: &str) -> String {
    let last_colon = name.rfind(':').map(|i| i as isize).unwrap_or(-1);
    let last_slash = name.rfind('/').map(|i| i as isize).unwrap_or(-1);
    if last_colon <= last_slash {
        format!("{name}:latest")
    } else {
        String::from(name)
    }
}

/// Raw score in 0..100 (no NormalizeScore): `sumImageScores` and `calculatePriority`. From
/// v1.36 image volumes count in the sum (`sumImageScores`, kubernetes v1.36.3), and from v1.37
/// also in the image count the maximum threshold scales with (v1.37.2).
pub fn score(version: KubeVersion, snapshot: &Snapshot, pod: &PodInfo, node: &NodeInfo) -> i64 {
    let total_nodes = snapshot.num_nodes();
    let image_volumes = pod.pod.volumes.iter().filter_map(|v| match &v.source {
        VolumeSource::Image { reference } if version.since(36) => Some(reference.as_str()),
        _ => None,
    });
    let images = pod
        .pod
        .init_containers
        .iter()
        .chain(&pod.pod.containers)
        .filter_map(|c| c.image.as_deref())
        .chain(image_volumes.clone());
    let mut sum: i64 = 0;
    if !node.node.images.is_empty() && total_nodes > 0 {
        for image in images {
            let wanted = normalized_image_name(image);
            if let Some(state) = node.node.images.iter().find(|i| i.names.contains(&wanted)) {
                let num_nodes = snapshot.image_num_nodes.get(&wanted).copied().unwrap_or(0);
                let spread = num_nodes as f64 / total_nodes as f64;
                sum += (state.size_bytes as f64 * spread) as i64;
            }
        }
    }
    let mut n_images = (pod.pod.init_containers.len() + pod.pod.containers.len()) as i64;
    if version.since(37) {
        n_images += image_volumes.count() as i64;
    }
    let max_threshold = MAX_CONTAINER_THRESHOLD * n_images;
    let clamped = if sum < MIN_THRESHOLD {
        MIN_THRESHOLD
    } else if sum > max_threshold {
        max_threshold
    } else {
        sum
    };
    MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}
