//! PreFilter and Filter of NodeVolumeLimits (`csi.go` `PreFilter`, `Filter`,
//! `filterAttachableVolumes`, `getCSIDriverInfo`, `getCSIDriverInfoFromSC`,
//! `getNodeVolumeAttachmentInfo`).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

use super::ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED;
use crate::framework::{Code, NodeInfo, PodInfo, Snapshot, Status};
use crate::model::{Pod, Storage, VolumeSource};

/// Whether the pod has a claim volume (named, or made from a template).
fn uses_claims(pod: &PodInfo) -> bool {
    pod.pod
        .volumes
        .iter()
        .any(|v| matches!(v.source, VolumeSource::Claim(_) | VolumeSource::Template(_)))
}

/// `PreFilter`: `Skip` for a pod without claim volumes.
pub fn pre_filter(pod: &PodInfo) -> Status {
    if uses_claims(pod) {
        Status::success()
    } else {
        Status::skip()
    }
}

/// `filterAttachableVolumes`: the CSI volumes of `pod` by unique name (`<driver>/<handle>`), with
/// their driver. A claim of the new pod that does not exist is an error (the lister's text); an
/// existing pod's is skipped. An unbound claim counts as a volume of its class's provisioner.
fn attachable(
    storage: &Storage,
    pod: &Pod,
    new_pod: bool,
    out: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    for volume in &pod.volumes {
        let Some((name, claim)) = storage.pod_claim(&pod.namespace, &pod.name, volume) else {
            continue;
        };
        if name.is_empty() {
            return Err(String::from("PersistentVolumeClaim had no name"));
        }
        let Some(claim) = claim else {
            if new_pod {
                return Err(format!(
                    "looking up PVC {}/{name}: persistentvolumeclaim {name:?} not found",
                    pod.namespace
                ));
            }
            continue;
        };
        // getCSIDriverInfo: the bound volume's CSI source, else the class's provisioner with a
        // handle unique to the claim.
        let bound = (!claim.volume_name.is_empty())
            .then(|| storage.volumes.get(&claim.volume_name))
            .flatten();
        let driver_and_handle = match bound {
            Some(pv) => pv.csi_driver.clone().zip(pv.csi_volume_handle.clone()),
            None => {
                let class = &claim.spec.storage_class;
                storage
                    .classes
                    .get(class)
                    .filter(|_| !class.is_empty())
                    .map(|c| {
                        (
                            c.provisioner.clone(),
                            format!("unbound-{}/{}", claim.namespace, claim.name),
                        )
                    })
            }
        };
        if let Some((driver, handle)) = driver_and_handle
            && !driver.is_empty()
            && !handle.is_empty()
        {
            out.insert(format!("{driver}/{handle}"), driver);
        }
    }
    Ok(())
}

/// `Filter`: the node's attached volumes of each driver (the node's pods' and its
/// VolumeAttachments', each volume once) plus the pod's new ones must not exceed the driver's
/// `allocatable.count` in the node's CSINode.
pub fn filter(snapshot: &Snapshot, pod: &PodInfo, node: &NodeInfo) -> Status {
    if pod.pod.volumes.is_empty() {
        return Status::success();
    }
    let storage = &snapshot.storage;
    // The node's limits first (upstream counts the new volumes first; reading them can only
    // fail for a claim that PreFilter of VolumeRestrictions or VolumeZone has rejected already,
    // so the order changes no answer and spares nodes without limits the work).
    let Some(drivers) = storage.csi_nodes.get(&node.node.name) else {
        return Status::success();
    };
    let limits: BTreeMap<&str, i64> = drivers
        .iter()
        .filter_map(|d| Some((d.name.as_str(), i64::from(d.allocatable_count?))))
        .collect();
    if limits.is_empty() {
        return Status::success();
    }
    let mut new_volumes = BTreeMap::new();
    if let Err(message) = attachable(storage, &pod.pod, true, &mut new_volumes) {
        let code = if message.ends_with("not found") {
            Code::UnschedulableAndUnresolvable
        } else {
            Code::Error
        };
        return Status::new(code, message);
    }
    if new_volumes.is_empty() {
        return Status::success();
    }
    let mut attached = BTreeMap::new();
    for &id in &node.pods {
        if let Err(message) = attachable(storage, &snapshot.pod(id).pod, false, &mut attached) {
            return Status::new(Code::Error, message);
        }
    }
    let mut attached_count: BTreeMap<String, i64> = BTreeMap::new();
    for (unique, driver) in &attached {
        new_volumes.remove(unique);
        *attached_count.entry(driver.clone()).or_default() += 1;
    }
    for attachment in storage
        .attachments
        .iter()
        .filter(|a| a.node == node.node.name)
    {
        let Some(handle) = storage
            .volumes
            .get(&attachment.volume)
            .filter(|pv| pv.csi_driver.is_some())
            .and_then(|pv| pv.csi_volume_handle.as_ref())
        else {
            continue;
        };
        if attachment.attacher.is_empty() {
            continue;
        }
        if !attached.contains_key(&format!("{}/{handle}", attachment.attacher)) {
            *attached_count
                .entry(attachment.attacher.clone())
                .or_default() += 1;
        }
    }
    let mut new_count: BTreeMap<&str, i64> = BTreeMap::new();
    for driver in new_volumes.values() {
        *new_count.entry(driver).or_default() += 1;
    }
    for (driver, count) in new_count {
        if let Some(limit) = limits.get(driver)
            && attached_count.get(driver).copied().unwrap_or(0) + count > *limit
        {
            return Status::new(Code::Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
        }
    }
    Status::success()
}

/// Whether Filter tells alike nodes apart: it counts the volumes of the pods on the node, which
/// node classes do not compare, so any pod with claims is filtered node by node.
pub fn reads_node_identity(pod: &PodInfo) -> bool {
    uses_claims(pod)
}
