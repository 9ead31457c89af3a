//! PreFilter and Filter of VolumeZone (`volume_zone.go` `getPVbyPod`, `getPVTopologies`,
//! `Filter`; `LabelZonesToSet` of `k8s.io/cloud-provider/volume/helpers`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ERR_REASON_CONFLICT;
use crate::framework::{Code, NodeInfo, PodInfo, Snapshot, Status};
use crate::model::{BindingMode, LABEL_REGION, LABEL_ZONE};

/// `v1.LabelFailureDomainBetaZone`.
const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// `v1.LabelFailureDomainBetaRegion`.
const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
/// `topologyLabels`, in upstream's order.
const TOPOLOGY_LABELS: [&str; 4] = [BETA_ZONE, BETA_REGION, LABEL_ZONE, LABEL_REGION];
/// `cloudvolume.LabelMultiZoneDelimiter`.
const MULTI_ZONE_DELIMITER: &str = "__";

/// The zone and region labels of the pod's bound volumes: a key and the values a node may have.
#[derive(Clone, Debug, Default)]
pub struct PreFilterState {
    topologies: Vec<(&'static str, Vec<String>)>,
}

/// `translateToGALabel`.
fn ga_label(key: &str) -> &str {
    match key {
        BETA_REGION => LABEL_REGION,
        BETA_ZONE => LABEL_ZONE,
        other => other,
    }
}

/// `LabelZonesToSet`: `a__b` is two zones; an empty element makes the label unusable (ignored).
fn zones(value: &str) -> Option<Vec<String>> {
    value
        .split(MULTI_ZONE_DELIMITER)
        .map(|zone| {
            let zone = zone.trim();
            (!zone.is_empty()).then(|| String::from(zone))
        })
        .collect()
}

/// `PreFilter` (`getPVbyPod`): every `persistentVolumeClaim` volume must name a claim that exists
/// and is bound to an existing volume, or wait for its first consumer; `Skip` when no bound
/// volume carries a zone or region label.
pub fn pre_filter(pod: &PodInfo, snapshot: &Snapshot) -> (Status, Option<PreFilterState>) {
    let p = &pod.pod;
    let storage = &snapshot.storage;
    let rejected = |message: String| {
        (
            Status::new(Code::UnschedulableAndUnresolvable, message),
            None,
        )
    };
    let mut state = PreFilterState::default();
    for volume in &p.volumes {
        let Some(name) = volume.persistent_volume_claim(&p.name) else {
            continue;
        };
        if name.is_empty() {
            return rejected(String::from("PersistentVolumeClaim had no name"));
        }
        let Some((_, Some(claim))) = storage.pod_claim(&p.namespace, &p.name, volume) else {
            return rejected(format!("persistentvolumeclaim {name:?} not found"));
        };
        if claim.volume_name.is_empty() {
            let class_name = &claim.spec.storage_class;
            if class_name.is_empty() {
                return rejected(String::from(
                    "PersistentVolumeClaim had no pv name and storageClass name",
                ));
            }
            let Some(class) = storage.classes.get(class_name) else {
                return rejected(format!(
                    "storageclass.storage.k8s.io {class_name:?} not found"
                ));
            };
            match class.binding_mode {
                None => {
                    return rejected(format!(
                        "VolumeBindingMode not set for StorageClass {class_name:?}"
                    ));
                }
                Some(BindingMode::WaitForFirstConsumer) => continue,
                Some(BindingMode::Immediate) => {
                    return rejected(String::from("PersistentVolume had no name"));
                }
            }
        }
        let Some(pv) = storage.volumes.get(&claim.volume_name) else {
            return rejected(format!(
                "persistentvolume {:?} not found",
                claim.volume_name
            ));
        };
        for key in TOPOLOGY_LABELS {
            if let Some(values) = pv.labels.get(key).and_then(|v| zones(v)) {
                state.topologies.push((key, values));
            }
        }
    }
    if state.topologies.is_empty() {
        return (Status::skip(), None);
    }
    (Status::success(), Some(state))
}

/// `Filter`: a node with a zone or region label must carry, for each volume label, one of its
/// values (under the label's key or its GA name).
pub fn filter(state: &PreFilterState, pod: &PodInfo, node: &NodeInfo) -> Status {
    if pod.pod.volumes.is_empty() {
        return Status::success();
    }
    let labels = &node.node.labels;
    if !TOPOLOGY_LABELS.iter().any(|key| labels.contains_key(*key)) {
        return Status::success();
    }
    for (key, values) in &state.topologies {
        let value = labels.get(*key).or_else(|| labels.get(ga_label(key)));
        if !value.is_some_and(|v| values.contains(v)) {
            return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_CONFLICT);
        }
    }
    Status::success()
}
