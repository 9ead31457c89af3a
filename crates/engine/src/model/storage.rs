//! Storage the volume plugins read: PersistentVolumeClaims, PersistentVolumes, StorageClasses,
//! CSINodes, CSIDrivers and CSIStorageCapacities, and the helpers of
//! `k8s.io/component-helpers/storage/volume` (`pv_helpers.go`, `helpers.go`) that the scheduler's
//! VolumeBinding and VolumeZone call on them.

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::csi_translation::InTreeSource;
use super::labels::{Labels, Selector};
use super::pod::NodeSelectorTerm;
use super::quantity::Quantity;
use super::volumes::PodVolume;

/// `v1.PersistentVolumeAccessMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessMode {
    /// `ReadWriteOnce`.
    ReadWriteOnce,
    /// `ReadOnlyMany`.
    ReadOnlyMany,
    /// `ReadWriteMany`.
    ReadWriteMany,
    /// `ReadWriteOncePod`.
    ReadWriteOncePod,
}

impl AccessMode {
    /// Parses the API name.
    pub fn parse(text: &str) -> Option<AccessMode> {
        Some(match text {
            "ReadWriteOnce" => AccessMode::ReadWriteOnce,
            "ReadOnlyMany" => AccessMode::ReadOnlyMany,
            "ReadWriteMany" => AccessMode::ReadWriteMany,
            "ReadWriteOncePod" => AccessMode::ReadWriteOncePod,
            _ => return None,
        })
    }
}

/// `spec.volumeMode` (nil is `Filesystem`, `CheckVolumeModeMismatches`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VolumeMode {
    /// `Filesystem` (also a nil mode).
    #[default]
    Filesystem,
    /// `Block`.
    Block,
}

/// What a claim's `spec` asks for: shared by claims and the templates claims are made from
/// (StatefulSet `volumeClaimTemplates`, generic ephemeral volumes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimSpec {
    /// The class (`GetPersistentVolumeClaimClass`: the beta annotation
    /// `volume.beta.kubernetes.io/storage-class`, else `spec.storageClassName`; empty for none).
    pub storage_class: String,
    /// `spec.resources.requests.storage`.
    pub request: Option<Quantity>,
    /// `spec.accessModes`.
    pub access_modes: Vec<AccessMode>,
    /// `spec.volumeMode`.
    pub volume_mode: VolumeMode,
    /// `spec.selector` (static binding only considers volumes whose labels it matches).
    pub selector: Option<Selector>,
    /// `spec.volumeAttributesClassName` (empty for none).
    pub volume_attributes_class: String,
}

/// A PersistentVolumeClaim.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PersistentVolumeClaim {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `metadata.uid` (empty for a claim made by the simulation).
    pub uid: String,
    /// What it asks for.
    pub spec: ClaimSpec,
    /// `spec.volumeName` (empty while unbound).
    pub volume_name: String,
    /// The `pv.kubernetes.io/bind-completed` annotation is present: with a volume name, the
    /// claim is fully bound (`isPVCFullyBound`).
    pub bind_completed: bool,
    /// `status.phase` is `Lost`.
    pub lost: bool,
    /// `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// The `volume.kubernetes.io/selected-node` annotation (a provisioning already started there).
    pub selected_node: Option<String>,
    /// The UID of the controller owner reference (an ephemeral volume's claim is owned by its pod).
    pub controller_uid: Option<String>,
}

impl PersistentVolumeClaim {
    /// `ephemeral.VolumeIsForPod` (component-helpers `storage/ephemeral`): the claim is in the
    /// pod's namespace and its controller owner is the pod (`IsControlledBy` compares UIDs).
    pub fn is_for_pod(&self, pod: &super::Pod) -> bool {
        self.namespace == pod.namespace && self.controller_uid.as_deref() == Some(pod.uid.as_str())
    }

    /// `namespace/name`.
    pub fn key(&self) -> (String, String) {
        (self.namespace.clone(), self.name.clone())
    }
}

/// `spec.claimRef` of a volume.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimRef {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID (empty: a pre-binding by name).
    pub uid: String,
}

/// `status.phase` of a volume.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VolumePhase {
    /// `Pending`.
    Pending,
    /// `Available` (and a volume without a status: the PV controller makes a new volume
    /// `Available`).
    #[default]
    Available,
    /// `Bound`.
    Bound,
    /// `Released`.
    Released,
    /// `Failed`.
    Failed,
}

/// A PersistentVolume.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PersistentVolume {
    /// Name.
    pub name: String,
    /// `metadata.labels` (VolumeZone reads the zone and region labels).
    pub labels: Labels,
    /// The class (`GetPersistentVolumeClass`: beta annotation, else `spec.storageClassName`).
    pub storage_class: String,
    /// `spec.capacity.storage`.
    pub capacity: Option<Quantity>,
    /// `spec.accessModes`.
    pub access_modes: Vec<AccessMode>,
    /// `spec.volumeMode`.
    pub volume_mode: VolumeMode,
    /// `spec.volumeAttributesClassName` (empty for none).
    pub volume_attributes_class: String,
    /// `spec.nodeAffinity.required.nodeSelectorTerms`; `None` when there is no requirement.
    pub node_affinity: Option<Vec<NodeSelectorTerm>>,
    /// `spec.claimRef`.
    pub claim_ref: Option<ClaimRef>,
    /// `status.phase`.
    pub phase: VolumePhase,
    /// `metadata.deletionTimestamp` is set.
    pub deleting: bool,
    /// `spec.csi.driver`, for a CSI volume.
    pub csi_driver: Option<String>,
    /// `spec.csi.volumeHandle`, for a CSI volume.
    pub csi_volume_handle: Option<String>,
    /// Its in-tree source, when csi-translation-lib can translate it (`IsPVMigratable`).
    pub in_tree: Option<InTreeSource>,
}

impl PersistentVolume {
    /// `CheckNodeAffinity`: whether a node with these labels meets the volume's required node
    /// affinity (matched on labels only: `matchFields` see a node without a name).
    pub fn node_affinity_matches(&self, node_labels: &Labels) -> bool {
        check_node_affinity(self.node_affinity.as_deref(), node_labels)
    }

    /// `IsVolumeBoundToClaim`.
    pub fn is_bound_to(&self, claim: &PersistentVolumeClaim) -> bool {
        self.claim_ref.as_ref().is_some_and(|r| {
            r.name == claim.name
                && r.namespace == claim.namespace
                && (r.uid.is_empty() || r.uid == claim.uid)
        })
    }
}

/// `CheckNodeAffinity` (`pkg/volume/util`) of a volume's required node affinity terms (`None`:
/// no requirement, which every node meets; no term: none does).
pub fn check_node_affinity(terms: Option<&[NodeSelectorTerm]>, node_labels: &Labels) -> bool {
    match terms {
        None => true,
        Some(terms) => terms.iter().any(|t| t.matches_labels(node_labels, "")),
    }
}

/// `volumeBindingMode` of a StorageClass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingMode {
    /// `Immediate` (the API default).
    Immediate,
    /// `WaitForFirstConsumer`.
    WaitForFirstConsumer,
}

/// One `allowedTopologies` term: every expression must hold (`MatchTopologySelectorTerms`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyTerm {
    /// `matchLabelExpressions`: a key and the values it may take.
    pub expressions: Vec<(String, Vec<String>)>,
}

/// A StorageClass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageClass {
    /// Name.
    pub name: String,
    /// `provisioner`.
    pub provisioner: String,
    /// `volumeBindingMode`; `None` when unset (the scheduler's plugins report it).
    pub binding_mode: Option<BindingMode>,
    /// `allowedTopologies`.
    pub allowed_topologies: Vec<TopologyTerm>,
    /// The `storageclass.kubernetes.io/is-default-class` (or its beta) annotation is `"true"`.
    pub is_default: bool,
    /// `metadata.creationTimestamp` in seconds (0 when absent): the newest default class wins.
    pub created: i64,
}

/// `NotSupportedProvisioner`: a class of statically provisioned (local) volumes.
pub const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";

impl StorageClass {
    /// `v1helper.MatchTopologySelectorTerms` of `allowedTopologies` against node labels: no terms
    /// allow every node; an empty term allows none.
    // Out of line: inlined into VolumeBinding's per-node loop, the compiler loads the node's
    // labels before the empty check, a cache miss per node for the many classes without
    // `allowedTopologies` (the claims row of `cargo xtask perf` ran about 1.5x faster).
    #[inline(never)]
    pub fn allows(&self, node_labels: &Labels) -> bool {
        if self.allowed_topologies.is_empty() {
            return true;
        }
        self.allowed_topologies.iter().any(|term| {
            !term.expressions.is_empty()
                && term.expressions.iter().all(|(key, values)| {
                    node_labels
                        .get(key)
                        .is_some_and(|v| values.iter().any(|x| x == v))
                })
        })
    }
}

/// One driver of a CSINode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsiNodeDriver {
    /// `name`.
    pub name: String,
    /// `topologyKeys`: the node labels a volume this driver provisions for the node is pinned by.
    pub topology_keys: Vec<String>,
    /// `allocatable.count`: how many of its volumes the node can attach.
    pub allocatable_count: Option<i32>,
}

/// A CSIStorageCapacity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsiStorageCapacity {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `storageClassName`.
    pub storage_class: String,
    /// `nodeTopology`; `None` when absent (then no node has access).
    pub node_topology: Option<Selector>,
    /// `capacity`.
    pub capacity: Option<Quantity>,
    /// `maximumVolumeSize`.
    pub maximum_volume_size: Option<Quantity>,
}

impl CsiStorageCapacity {
    /// `volumeLimit`: the maximum volume size when given, else the capacity.
    pub fn limit(&self) -> Option<&Quantity> {
        self.maximum_volume_size.as_ref().or(self.capacity.as_ref())
    }
}

/// Everything storage in a cluster (`PersistentVolumeClaim`s by namespace and name, the rest by
/// name). Shared by snapshots: cloning one copies nothing until the simulation binds a claim.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    /// PersistentVolumeClaims by `(namespace, name)`.
    pub claims: BTreeMap<(String, String), PersistentVolumeClaim>,
    /// PersistentVolumes by name.
    pub volumes: BTreeMap<String, PersistentVolume>,
    /// StorageClasses by name.
    pub classes: BTreeMap<String, StorageClass>,
    /// CSINode drivers by node name.
    pub csi_nodes: BTreeMap<String, Vec<CsiNodeDriver>>,
    /// The in-tree plugins each CSINode's `storage.alpha.kubernetes.io/migrated-plugins`
    /// annotation lists (comma-separated), by node name; only CSINodes that have it.
    pub csi_migrated_plugins: BTreeMap<String, Vec<String>>,
    /// CSIDrivers by name.
    pub csi_drivers: BTreeMap<String, CsiDriver>,
    /// CSIStorageCapacities, in input order.
    pub capacities: Vec<CsiStorageCapacity>,
    /// VolumeAttachments (NodeVolumeLimits counts a volume attached to a node even when no pod
    /// there uses it any more).
    pub attachments: Vec<VolumeAttachment>,
    /// Claims are read as stored only: a claim template's missing claim is missing, not made as
    /// its controller would make it. Upstream's plugin unit tests read claims from listers that
    /// hold only the claims they list (the conformance runner sets it for such tables).
    pub claims_stored_only: bool,
}

/// A CSIDriver's fields the scheduler reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsiDriver {
    /// `spec.storageCapacity`: the driver opts into storage capacity tracking (VolumeBinding).
    pub storage_capacity: bool,
    /// `spec.preventPodSchedulingIfMissing` (v1.37 API): NodeVolumeLimits rejects a node whose
    /// CSINode does not list the driver (gate VolumeLimitScaling, beta and on from v1.37).
    pub prevent_pod_scheduling_if_missing: bool,
}

/// A VolumeAttachment: a CSI volume attached (or being attached) to a node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VolumeAttachment {
    /// `spec.nodeName`.
    pub node: String,
    /// `spec.attacher` (the CSI driver).
    pub attacher: String,
    /// `spec.source.persistentVolumeName`.
    pub volume: String,
}

impl Storage {
    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.claims.is_empty()
            && self.volumes.is_empty()
            && self.classes.is_empty()
            && self.csi_nodes.is_empty()
            && self.csi_drivers.is_empty()
            && self.capacities.is_empty()
            && self.attachments.is_empty()
    }

    /// The claim `namespace/name`.
    pub fn claim(&self, namespace: &str, name: &str) -> Option<&PersistentVolumeClaim> {
        // BTreeMap lookups need an owned key of the same type; claims are few per pod.
        self.claims
            .get(&(String::from(namespace), String::from(name)))
    }

    /// `volume.IsDelayBindingMode`: the claim's class exists and waits for the first consumer.
    /// `Err` with upstream's text when the class has no binding mode.
    pub fn is_delay_binding(&self, claim: &ClaimSpec) -> Result<bool, String> {
        if claim.storage_class.is_empty() {
            return Ok(false);
        }
        match self.classes.get(&claim.storage_class) {
            None => Ok(false),
            Some(class) => match class.binding_mode {
                None => Err(alloc::format!(
                    "VolumeBindingMode not set for StorageClass {:?}",
                    claim.storage_class
                )),
                Some(mode) => Ok(mode == BindingMode::WaitForFirstConsumer),
            },
        }
    }
}

impl Storage {
    /// The claim `volume` of pod `namespace/pod_name` uses, by name, with the claim itself: the
    /// stored one, else the one its controller makes from the template when the pod is created
    /// (the StatefulSet controller before the pod, the ephemeral volume controller right after);
    /// `None` for a volume without a claim.
    pub fn pod_claim<'a>(
        &'a self,
        namespace: &str,
        pod_name: &str,
        volume: &PodVolume,
    ) -> Option<(String, Option<Cow<'a, PersistentVolumeClaim>>)> {
        let (name, template) = volume.claim(pod_name)?;
        let claim = match self.claim(namespace, &name) {
            Some(claim) => Some(Cow::Borrowed(claim)),
            None if self.claims_stored_only => None,
            None => template.map(|t| Cow::Owned(t.make_claim(namespace, &name, self))),
        };
        Some((name, claim))
    }

    /// The class DefaultStorageClass admission gives a claim without one (`GetDefaultClass`): of
    /// the classes annotated default, the newest, then the first by name.
    pub fn default_class(&self) -> Option<&StorageClass> {
        self.classes
            .values()
            .filter(|c| c.is_default)
            .min_by(|a, b| b.created.cmp(&a.created).then(a.name.cmp(&b.name)))
    }

    /// `ListPVs(class)`: the volumes of a class, by name (upstream lists them in its cache's
    /// order, which is not defined; by name, ties among equal matches are decided the same way
    /// every time).
    pub fn volumes_of_class<'a>(
        &'a self,
        class: &'a str,
    ) -> impl Iterator<Item = &'a PersistentVolume> + 'a {
        self.volumes
            .values()
            .filter(move |v| v.storage_class == class)
    }

    /// The node-independent half of `FindMatchingVolume` (component-helpers `pv_helpers.go`,
    /// with a node, delayed binding and VolumeAttributesClass on, GA since v1.34): the volumes of
    /// the claim's class, by name, that could match it on some node. A volume pre-bound to the
    /// claim is kept whatever its phase, selector or access modes (it wins before those checks).
    pub fn matching_candidates(&self, claim: &PersistentVolumeClaim) -> Vec<String> {
        let requested = claim.spec.request.as_ref().map_or(0, Quantity::milli_value);
        let class = claim.spec.storage_class.as_str();
        self.volumes
            .values()
            .filter(|v| v.storage_class == class)
            .filter(|volume| {
                if volume.claim_ref.is_some() && !volume.is_bound_to(claim) {
                    return false;
                }
                let size = volume.capacity.as_ref().map_or(0, Quantity::milli_value);
                if size < requested
                    || volume.volume_mode != claim.spec.volume_mode
                    || volume.volume_attributes_class != claim.spec.volume_attributes_class
                    || volume.deleting
                {
                    return false;
                }
                volume.is_bound_to(claim)
                    || (volume.phase == VolumePhase::Available
                        && claim
                            .spec
                            .selector
                            .as_ref()
                            .is_none_or(|s| s.matches(&volume.labels))
                        && claim
                            .spec
                            .access_modes
                            .iter()
                            .all(|m| volume.access_modes.contains(m)))
            })
            .map(|v| v.name.clone())
            .collect()
    }

    /// The node half of `FindMatchingVolume` over [`Storage::matching_candidates`]: on a node with
    /// `node_labels`, skipping the volumes `excluded` says are taken, a volume pre-bound to the
    /// claim wins outright (or, when its node affinity fails, nothing matches); else the smallest
    /// whose node affinity holds (the first of equal size by name).
    pub fn find_matching_volume(
        &self,
        claim: &PersistentVolumeClaim,
        candidates: &[String],
        node_labels: &Labels,
        excluded: impl Fn(&str) -> bool,
    ) -> Option<&PersistentVolume> {
        let mut smallest: Option<(&PersistentVolume, i64)> = None;
        for name in candidates {
            if excluded(name) {
                continue;
            }
            let Some(volume) = self.volumes.get(name) else {
                continue;
            };
            let affinity_ok = volume.node_affinity_matches(node_labels);
            if volume.is_bound_to(claim) {
                return affinity_ok.then_some(volume);
            }
            if !affinity_ok {
                continue;
            }
            let size = volume.capacity.as_ref().map_or(0, Quantity::milli_value);
            if smallest.is_none_or(|(_, best)| best > size) {
                smallest = Some((volume, size));
            }
        }
        smallest.map(|(volume, _)| volume)
    }
}
