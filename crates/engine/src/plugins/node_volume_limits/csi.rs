//! PreFilter and Filter of NodeVolumeLimits (`csi.go` `PreFilter`, `Filter`,
//! `filterAttachableVolumes`, `checkAttachableInlineVolume`, `getCSIDriverInfo`,
//! `getCSIDriverInfoFromSC`, `getVolumeLimits`; `getNodeVolumeAttachmentInfo` is read with the
//! node's CSINode, `framework/snapshot/csi.rs`; `utils.go`
//! `isCSIMigrationOn`), with in-tree sources translated as `k8s.io/csi-translation-lib` does
//! (`model::csi_translation`).

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED;
use crate::framework::{Code, PodInfo, Snapshot, Status};
use crate::model::csi_translation::{PORTWORX_PLUGIN, csi_driver_of_plugin, is_csi_migration_on};
use crate::model::{CsiNodeDriver, Pod, PodVolume, Storage, VolumeSource};
use crate::version::KubeVersion;

/// Whether PreFilter keeps the plugin for this volume (`csi.go` `PreFilter`): a claim (named or
/// ephemeral) or an inline source csi-translation-lib can migrate (`IsInlineMigratable`).
fn counts(volume: &PodVolume) -> bool {
    matches!(
        volume.source,
        VolumeSource::Claim(_) | VolumeSource::Template(_)
    ) || volume.source.in_tree().is_some()
}

/// The incoming pod's attachable volumes, read once per cycle. Upstream reads them in every
/// Filter call; what it finds depends on the node only through `isCSIMigrationOn`, that is on
/// whether the node has a CSINode and, if so, whether its annotation lists Portworx: one reading
/// per case, each with its error if reading fails.
#[derive(Clone, Debug)]
pub struct PreFilterState {
    new_volumes: [Result<BTreeMap<String, String>, ReadError>; 3],
}

/// A CSINode annotation listing no migrated plugin.
const NONE_MIGRATED: [String; 0] = [];

/// The node case of [`PreFilterState`] a node falls in: 0 without a CSINode, 1 with one, 2 with
/// one whose annotation lists Portworx.
fn node_case(csi_node: &CsiNode<'_>) -> usize {
    if !csi_node.exists {
        0
    } else if csi_node.migration_on(PORTWORX_PLUGIN) {
        2
    } else {
        1
    }
}

/// `PreFilter` (`csi.go`): `Skip` for a pod with neither claims nor migratable inline volumes;
/// otherwise the pod's volumes are read for each node case (`PreFilterState`).
pub fn pre_filter(pod: &PodInfo, snapshot: &Snapshot) -> (Status, Option<PreFilterState>) {
    if !pod.pod.volumes.iter().any(counts) {
        return (Status::skip(), None);
    }
    let portworx = [String::from(PORTWORX_PLUGIN)];
    let read = |exists: bool, migrated_plugins: &[String]| {
        let csi_node = CsiNode {
            exists,
            migrated_plugins,
        };
        let mut out = BTreeMap::new();
        attachable(&snapshot.storage, &csi_node, &pod.pod, true, &mut out).map(|()| out)
    };
    let state = PreFilterState {
        new_volumes: [
            read(false, &NONE_MIGRATED),
            read(true, &NONE_MIGRATED),
            read(true, &portworx),
        ],
    };
    (Status::success(), Some(state))
}

/// The node's CSINode as `isCSIMigrationOn` reads it: whether there is one, and the in-tree
/// plugins its `storage.alpha.kubernetes.io/migrated-plugins` annotation lists.
struct CsiNode<'a> {
    exists: bool,
    migrated_plugins: &'a [String],
}

impl CsiNode<'_> {
    fn migration_on(&self, plugin: &str) -> bool {
        is_csi_migration_on(self.exists, self.migrated_plugins, plugin)
    }
}

/// Why reading a pod's volumes failed: the claim lookup's NotFound (the new pod's claim is
/// missing) or any other error.
#[derive(Clone, Debug)]
enum ReadError {
    NotFound(String),
    Other(String),
}

/// `filterAttachableVolumes` (`csi.go`): the attachable volumes of `pod` by unique name
/// (`<driver>/<handle>`), with their driver. A claim of the new pod that does not exist is an
/// error (the lister's text); an existing pod's is skipped. An unbound claim counts as a volume
/// of its class's provisioner (translated to its CSI driver for an in-tree provisioner).
fn attachable(
    storage: &Storage,
    csi_node: &CsiNode<'_>,
    pod: &Pod,
    new_pod: bool,
    out: &mut BTreeMap<String, String>,
) -> Result<(), ReadError> {
    for volume in &pod.volumes {
        let Some((name, claim)) = storage.pod_claim(&pod.namespace, &pod.name, volume) else {
            // checkAttachableInlineVolume: an inline volume.
            check_inline(csi_node, volume, out)?;
            continue;
        };
        if name.is_empty() {
            return Err(ReadError::Other(String::from(
                "PersistentVolumeClaim had no name",
            )));
        }
        let Some(claim) = claim else {
            if new_pod {
                return Err(ReadError::NotFound(format!(
                    "looking up PVC {}/{name}: persistentvolumeclaim {name:?} not found",
                    pod.namespace
                )));
            }
            continue;
        };
        // ephemeral.VolumeIsForPod (component-helpers `storage/ephemeral`): a stored claim of an
        // ephemeral volume must be controlled by the pod; upstream returns the error as is, so
        // Filter turns it into an Error status, for the new pod and for a pod on the node alike.
        // A claim the simulation makes from the template (`Cow::Owned`) is the controller's own.
        let ephemeral = matches!(&volume.source, VolumeSource::Template(t) if t.ephemeral);
        if ephemeral && matches!(claim, Cow::Borrowed(_)) && !claim.is_for_pod(pod) {
            return Err(ReadError::Other(format!(
                "PVC {}/{} was not created for pod {}/{} (pod is not owner)",
                claim.namespace, claim.name, pod.namespace, pod.name
            )));
        }
        if let Some((driver, handle)) = driver_info(storage, csi_node, &claim)
            && !driver.is_empty()
            && !handle.is_empty()
        {
            out.insert(format!("{driver}/{handle}"), driver);
        }
    }
    Ok(())
}

/// `checkAttachableInlineVolume` (`csi.go`): a migratable inline source counts, under its CSI
/// driver and translated handle, where its migration is on; a failed translation is an error.
fn check_inline(
    csi_node: &CsiNode<'_>,
    volume: &PodVolume,
    out: &mut BTreeMap<String, String>,
) -> Result<(), ReadError> {
    let Some(source) = volume.source.in_tree() else {
        return Ok(());
    };
    let plugin = source.plugin_name();
    if !csi_node.migration_on(plugin) {
        return Ok(());
    }
    // Migration is on only for sources that translate (`inline_handle` is `Some`).
    let Some(handle) = source.inline_handle() else {
        return Ok(());
    };
    let handle = handle.map_err(|e| {
        ReadError::Other(format!(
            "converting volume({}) from inline to csi: {e}",
            volume.name
        ))
    })?;
    let driver = String::from(source.driver_name());
    out.insert(format!("{driver}/{handle}"), driver);
    Ok(())
}

/// `getCSIDriverInfo` (`csi.go`): the driver and handle of the claim's bound volume (its CSI
/// source, or its in-tree source translated where migration is on), else of its class
/// (`getCSIDriverInfoFromSC`). `None` when the volume is not counted.
fn driver_info(
    storage: &Storage,
    csi_node: &CsiNode<'_>,
    claim: &crate::model::PersistentVolumeClaim,
) -> Option<(String, String)> {
    let bound = (!claim.volume_name.is_empty())
        .then(|| storage.volumes.get(&claim.volume_name))
        .flatten();
    let Some(pv) = bound else {
        return driver_info_from_class(storage, csi_node, claim);
    };
    if let Some(driver) = &pv.csi_driver {
        return Some((
            driver.clone(),
            pv.csi_volume_handle.clone().unwrap_or_default(),
        ));
    }
    // The fast path for volumes that are neither CSI nor migratable, then the migration check
    // and the translation (a failed one is not counted).
    let source = pv.in_tree.as_ref()?;
    if !csi_node.migration_on(source.plugin_name()) {
        return None;
    }
    let handle = source.volume_handle(&pv.labels)?.ok()?;
    Some((String::from(source.driver_name()), handle))
}

/// `getCSIDriverInfoFromSC` (`csi.go`): an unbound claim (or one whose volume does not exist)
/// counts as a volume of its class's provisioner, with a handle unique to the claim (upstream
/// prefixes a random string no real handle has); an in-tree provisioner counts as its CSI driver
/// where its migration is on, else not at all.
fn driver_info_from_class(
    storage: &Storage,
    csi_node: &CsiNode<'_>,
    claim: &crate::model::PersistentVolumeClaim,
) -> Option<(String, String)> {
    let class_name = &claim.spec.storage_class;
    if class_name.is_empty() {
        return None;
    }
    let class = storage.classes.get(class_name)?;
    let handle = format!("unbound-{}/{}", claim.namespace, claim.name);
    let provisioner = class.provisioner.as_str();
    match csi_driver_of_plugin(provisioner) {
        Some(driver) if csi_node.migration_on(provisioner) => Some((String::from(driver), handle)),
        Some(_) => None,
        None => Some((String::from(provisioner), handle)),
    }
}

/// `Filter` (`csi.go`): the pod's new volumes (reading them may fail: a missing claim is
/// `UnschedulableAndUnresolvable`, other errors `Error`), then, when the node's CSINode has
/// limits, the node's attached volumes of each driver (its pods' and its VolumeAttachments', each
/// volume once) plus the pod's new ones must not exceed the driver's `allocatable.count`. The new
/// volumes come from PreFilter's `state` (read here without one, as upstream always does).
/// `node_index` is the node's index in `snapshot`.
pub fn filter(
    version: KubeVersion,
    state: Option<&PreFilterState>,
    snapshot: &Snapshot,
    pod: &PodInfo,
    node_index: usize,
) -> Status {
    if pod.pod.volumes.is_empty() {
        return Status::success();
    }
    let storage = &snapshot.storage;
    let node_csi = snapshot.csi_node(node_index);
    let drivers = node_csi.drivers.as_ref();
    let csi_node = CsiNode {
        exists: drivers.is_some(),
        migrated_plugins: node_csi.migrated_plugins.as_deref().unwrap_or_default(),
    };
    let read;
    let new_volumes = match state {
        Some(state) => &state.new_volumes[node_case(&csi_node)],
        None => {
            let mut out = BTreeMap::new();
            read = attachable(storage, &csi_node, &pod.pod, true, &mut out).map(|()| out);
            &read
        }
    };
    let new_volumes = match new_volumes {
        Ok(volumes) => volumes,
        Err(ReadError::NotFound(message)) => {
            return Status::new(Code::UnschedulableAndUnresolvable, message.clone());
        }
        Err(ReadError::Other(message)) => return Status::new(Code::Error, message.clone()),
    };
    if new_volumes.is_empty() {
        return Status::success();
    }
    // v1.37 (gate VolumeLimitScaling, beta and on; csi.go `checkCSIDriverOnNode`): a driver whose
    // CSIDriver sets `preventPodSchedulingIfMissing` must be on the node's CSINode. Upstream walks
    // a Go map, so with two such drivers missing its message names either; spreadlab names the
    // driver of the first volume in `<driver>/<handle>` order.
    if version.since(37) {
        for driver in new_volumes.values() {
            if !driver_on_node(storage, driver, drivers.map(Vec::as_slice)) {
                return Status::new(
                    Code::Unschedulable,
                    format!("{driver} CSI driver is not installed on the node"),
                );
            }
        }
    }
    // getVolumeLimits: the drivers of the CSINode with an `allocatable.count`.
    if !node_csi.limited {
        return Status::success();
    }
    let limits: BTreeMap<&str, i64> = drivers
        .into_iter()
        .flatten()
        .filter_map(|d| Some((d.name.as_str(), i64::from(d.allocatable_count?))))
        .collect();
    let node = &snapshot.nodes[node_index];
    let mut attached = BTreeMap::new();
    for &id in &node.pods {
        let existing = &snapshot.pod(id).pod;
        if let Err(ReadError::NotFound(message) | ReadError::Other(message)) =
            attachable(storage, &csi_node, existing, false, &mut attached)
        {
            return Status::new(Code::Error, message);
        }
    }
    let mut attached_count: BTreeMap<&str, i64> = BTreeMap::new();
    for driver in attached.values() {
        *attached_count.entry(driver).or_default() += 1;
    }
    // getNodeVolumeAttachmentInfo: the node's VolumeAttachments of CSI volumes, by
    // `<attacher>/<handle>`, each once (read with the CSINode), not counted again when a pod
    // there uses the volume.
    for (unique, driver) in &node_csi.attached_volumes {
        if !attached.contains_key(unique) {
            *attached_count.entry(driver).or_default() += 1;
        }
    }
    // A volume a pod on the node already uses is not new (upstream deletes it from newVolumes).
    let mut new_count: BTreeMap<&str, i64> = BTreeMap::new();
    for (unique, driver) in new_volumes {
        if !attached.contains_key(unique) {
            *new_count.entry(driver).or_default() += 1;
        }
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

/// `checkCSIDriverOnNode` (csi.go, v1.37): a driver without a CSIDriver, or whose CSIDriver does
/// not opt in, counts as installed; otherwise the node's CSINode (none: not installed) must list it.
fn driver_on_node(storage: &Storage, driver: &str, csi_node: Option<&[CsiNodeDriver]>) -> bool {
    if !storage
        .csi_drivers
        .get(driver)
        .is_some_and(|d| d.prevent_pod_scheduling_if_missing)
    {
        return true;
    }
    csi_node.is_some_and(|drivers| drivers.iter().any(|d| d.name == driver))
}

/// Whether Filter tells alike nodes apart: it counts the volumes of the pods on the node, which
/// node classes do not compare, so any pod PreFilter keeps is filtered node by node.
pub fn reads_node_identity(pod: &PodInfo) -> bool {
    pod.pod.volumes.iter().any(counts)
}
