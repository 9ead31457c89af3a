//! `v1.Node` to [`model::Node`]: labels, taints, `spec.unschedulable`, `status.allocatable`,
//! `status.images` and `status.declaredFeatures`.

use k8s_openapi::api::core::v1 as api;
use spreadlab_engine::model::{self, ContainerImage, Taint, TaintEffect};

use super::{labels, nonnegative_resource_list, unsupported};
use crate::error::ConvertError;

/// Converts a Node. Allocatable quantities: cpu in millicores, everything else in whole units.
pub fn convert_node(node: &api::Node) -> Result<model::Node, ConvertError> {
    let spec = node.spec.as_ref();
    let status = node.status.as_ref();
    let mut taints = Vec::new();
    for (index, taint) in spec
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let effect = TaintEffect::parse(&taint.effect).ok_or_else(|| {
            ConvertError::new(
                format!("spec.taints[{index}].effect"),
                unsupported(
                    &taint.effect,
                    &["NoExecute", "NoSchedule", "PreferNoSchedule"],
                ),
            )
        })?;
        taints.push(Taint {
            key: taint.key.clone(),
            value: taint.value.clone().unwrap_or_default(),
            effect,
        });
    }
    Ok(model::Node {
        name: node.metadata.name.clone().unwrap_or_default(),
        labels: labels(&node.metadata),
        taints,
        unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
        // ValidateNode checks every status.allocatable quantity as nonnegative.
        allocatable: nonnegative_resource_list(
            status.and_then(|s| s.allocatable.as_ref()),
            &"status.allocatable",
        )?,
        images: status
            .and_then(|s| s.images.as_ref())
            .into_iter()
            .flatten()
            .map(|image| ContainerImage {
                names: image.names.clone().unwrap_or_default(),
                size_bytes: image.size_bytes.unwrap_or(0),
            })
            .collect(),
        declared_features: status
            .and_then(|s| s.declared_features.clone())
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_node_fields() {
        let node: api::Node = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "a"}},
            "spec": {"unschedulable": true, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "3920m", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": 2},
                "images": [{"names": ["nginx:1.27"], "sizeBytes": 1000}]}
        }))
        .unwrap();
        let converted = convert_node(&node).unwrap();
        assert_eq!(converted.name, "n1");
        assert!(converted.unschedulable);
        assert_eq!(converted.taints[0].effect, TaintEffect::NoSchedule);
        assert_eq!(converted.allocatable["cpu"], 3920);
        assert_eq!(converted.allocatable["memory"], 16 << 30);
        assert_eq!(converted.allocatable["pods"], 110);
        assert_eq!(converted.allocatable["nvidia.com/gpu"], 2);
        assert_eq!(converted.images[0].size_bytes, 1000);
    }

    #[test]
    fn unknown_taint_effect_is_rejected() {
        let node: api::Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n1"}, "spec": {"taints": [{"key": "k", "effect": "NoWay"}]}
        }))
        .unwrap();
        assert_eq!(
            convert_node(&node).unwrap_err().path,
            "spec.taints[0].effect"
        );
    }
}
