//! The volume binder (`binder.go`): which volumes a pod's claims would use on a node
//! (`FindPodVolumes`, `checkBoundClaims`, `findMatchingVolumes`, `checkVolumeProvisions`,
//! `hasEnoughCapacity`), and the bindings that hold once the pod is bound there (the end state of
//! `AssumePodVolumes`, `BindPodVolumes` and the PV controller, or the external provisioner).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::filtering::PreFilterState;
use super::{
    ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
};
use crate::framework::Snapshot;
use crate::model::csi_translation::volume_binding_translates;
use crate::model::storage::check_node_affinity;
use crate::model::{
    ClaimRef, NOT_SUPPORTED_PROVISIONER, Node, NodeSelectorTerm, Operator, PersistentVolume,
    PersistentVolumeClaim, Quantity, Requirement, Storage, VolumePhase,
};

/// What binding a pod's unbound claims on one node takes (`PodVolumes`): the claims are
/// PreFilter's, the volumes the storage's (nothing is copied for the nodes that are only
/// filtered or scored).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodVolumes<'c, 'v> {
    /// Claims bound to an existing volume: the claim and the volume's name.
    pub static_bindings: Vec<(&'c PersistentVolumeClaim, &'v str)>,
    /// Claims a provisioner creates a volume for.
    pub dynamic_provisions: Vec<DynamicProvision<'c>>,
}

/// One claim a provisioner creates a volume for (`DynamicProvision`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicProvision<'a> {
    /// The claim.
    pub claim: &'a PersistentVolumeClaim,
    /// The `capacity` of the CSIStorageCapacity `hasEnoughCapacity` found sufficient (`NodeCapacity`),
    /// in bytes: `None` when the driver does not track capacity (or the object has no `capacity`).
    pub node_capacity: Option<i64>,
}

/// `FindPodVolumes`: the bindings on `node` and the reasons it fails, in upstream's order
/// (node affinity of bound volumes, nothing to bind, not enough storage, missing volumes).
/// The node is `snapshot`'s at `node_index`, its CSINode read from the snapshot's memo.
/// `Err` is an error status (a claim without a class, a missing class).
pub fn find_pod_volumes<'c, 'v>(
    state: &'c PreFilterState,
    snapshot: &'v Snapshot,
    node_index: usize,
) -> Result<(PodVolumes<'c, 'v>, Vec<&'static str>), String> {
    let storage = &*snapshot.storage;
    let node = &*snapshot.nodes[node_index].node;
    let migrated_plugins = snapshot.csi_node(node_index).migrated_plugins.as_deref();
    let mut volumes = PodVolumes::default();
    let mut bound_satisfied = true;
    let mut unbound_satisfied = true;
    let mut sufficient_storage = true;
    let mut bound_found = true;
    // checkBoundClaims: the first missing volume or node affinity mismatch ends the check; a
    // volume is checked as tryTranslatePVToCSI makes it for the node, and a failed translation is
    // FindPodVolumes' error.
    for claim in &state.bound {
        let Some(volume) = storage.volumes.get(&claim.volume_name) else {
            bound_found = false;
            break;
        };
        let matches = match try_translate_pv_to_csi(volume, migrated_plugins)? {
            None => volume.node_affinity_matches(&node.labels),
            Some(translated) => check_node_affinity(translated.as_deref(), &node.labels),
        };
        if !matches {
            bound_satisfied = false;
            break;
        }
    }
    'unbound: {
        if state.unbound_delayed.is_empty() {
            break 'unbound;
        }
        // A claim being provisioned for another node: the fast path skips this node. (The
        // node's name is read only when some claim has a selected node, those left out of
        // `match_order`: most pods have none, and the read costs a cache miss per node.)
        debug_assert_eq!(
            state.match_order.len(),
            (state.unbound_delayed.iter())
                .filter(|claim| claim.selected_node.is_none())
                .count(),
            "match_order lists the claims without a selected node"
        );
        let any_selected = state.unbound_delayed.len() != state.match_order.len();
        if any_selected
            && state.unbound_delayed.iter().any(|claim| {
                (claim.selected_node.as_ref()).is_some_and(|selected| *selected != node.name)
            })
        {
            unbound_satisfied = false;
            break 'unbound;
        }
        // findMatchingVolumes over the claims no node was selected for, smallest first
        // (`match_order`); the volumes chosen are the static bindings' (each used once).
        let mut matched = Vec::new();
        for &index in &state.match_order {
            let claim = &state.unbound_delayed[index];
            let chosen = |name: &str| volumes.static_bindings.iter().any(|(_, v)| *v == name);
            let candidates = &state.candidates[index];
            match storage.find_matching_volume(claim, candidates, &node.labels, chosen) {
                Some(volume) => {
                    volumes.static_bindings.push((claim, &volume.name));
                    matched.push(index);
                }
                None => unbound_satisfied = false,
            }
        }
        // The claims to provision: those with a selected node (this one), then those left
        // unmatched, smallest first.
        let selected_claims = (state.unbound_delayed.iter()).filter(|c| c.selected_node.is_some());
        let unmatched = (state.match_order.iter())
            .filter(|index| !matched.contains(*index))
            .map(|&index| &state.unbound_delayed[index]);
        let mut to_provision = selected_claims.chain(unmatched).peekable();
        if to_provision.peek().is_some() {
            let (satisfied, sufficient) =
                check_volume_provisions(storage, to_provision, node, &mut volumes)?;
            unbound_satisfied = satisfied;
            sufficient_storage = sufficient;
        }
    }
    let mut reasons = Vec::new();
    if !bound_satisfied {
        reasons.push(ERR_REASON_NODE_CONFLICT);
    }
    if !unbound_satisfied {
        reasons.push(ERR_REASON_BIND_CONFLICT);
    }
    if !sufficient_storage {
        reasons.push(ERR_REASON_NOT_ENOUGH_SPACE);
    }
    if !bound_found {
        reasons.push(ERR_REASON_PV_NOT_EXIST);
    }
    if !reasons.is_empty() {
        volumes = PodVolumes::default();
    }
    Ok((volumes, reasons))
}

/// `tryTranslatePVToCSI` (`binder.go`): for an in-tree volume whose plugin's migration is on and
/// which the node's CSINode lists as migrated (`volume_binding_translates`), the translated
/// volume's node affinity (`Some`), or the error FindPodVolumes returns; `None` when the volume is
/// read as written.
#[allow(clippy::type_complexity)]
fn try_translate_pv_to_csi(
    volume: &PersistentVolume,
    migrated_plugins: Option<&[String]>,
) -> Result<Option<Option<Vec<NodeSelectorTerm>>>, String> {
    let Some(source) = &volume.in_tree else {
        return Ok(None);
    };
    if !volume_binding_translates(migrated_plugins, source.plugin_name()) {
        return Ok(None);
    }
    source
        .translate_pv_node_affinity(&volume.labels, volume.node_affinity.as_deref())
        .map(Some)
        .map_err(|e| format!("could not translate pv: {e}"))
}

/// `checkVolumeProvisions`: every claim's class must have a provisioner that may create a volume
/// for the node (`allowedTopologies`) with room for it (`hasEnoughCapacity`). Returns
/// (provisioning possible, enough storage).
fn check_volume_provisions<'c>(
    storage: &Storage,
    claims: impl Iterator<Item = &'c PersistentVolumeClaim>,
    node: &Node,
    volumes: &mut PodVolumes<'c, '_>,
) -> Result<(bool, bool), String> {
    let mut provisions = Vec::new();
    for claim in claims {
        let class_name = &claim.spec.storage_class;
        if class_name.is_empty() {
            return Err(format!(
                "no class for claim \"{}/{}\"",
                claim.namespace, claim.name
            ));
        }
        let Some(class) = storage.classes.get(class_name) else {
            return Err(format!("failed to find storage class {class_name:?}"));
        };
        if class.provisioner.is_empty() || class.provisioner == NOT_SUPPORTED_PROVISIONER {
            return Ok((false, true));
        }
        if !class.allows(&node.labels) {
            return Ok((false, true));
        }
        let Some(node_capacity) = has_enough_capacity(storage, &class.provisioner, claim, node)
        else {
            return Ok((true, false));
        };
        provisions.push(DynamicProvision {
            claim,
            node_capacity,
        });
    }
    volumes.dynamic_provisions = provisions;
    Ok((true, true))
}

/// `hasEnoughCapacity`: only for a CSI driver that opts into storage capacity tracking, a
/// CSIStorageCapacity of the class the node can reach with room for the claim. `None`: not
/// enough; `Some(capacity)`: enough, with the `capacity` of the object found (v1.37's Score reads
/// it), `Some(None)` when nothing was checked. Upstream takes the first such object in its
/// lister's (unordered) list; spreadlab the first in input order.
fn has_enough_capacity(
    storage: &Storage,
    provisioner: &str,
    claim: &PersistentVolumeClaim,
    node: &Node,
) -> Option<Option<i64>> {
    let Some(request) = &claim.spec.request else {
        return Some(None);
    };
    if !storage
        .csi_drivers
        .get(provisioner)
        .is_some_and(|driver| driver.storage_capacity)
    {
        return Some(None);
    }
    let size = request.value();
    storage
        .capacities
        .iter()
        .find(|capacity| {
            capacity.storage_class == claim.spec.storage_class
                && capacity.limit().is_some_and(|limit| limit.value() >= size)
                && capacity
                    .node_topology
                    .as_ref()
                    .is_some_and(|selector| selector.matches(&node.labels))
        })
        .map(|capacity| capacity.capacity.as_ref().map(Quantity::value))
}

/// Binds the claims of a pod placed on `node` as the cluster ends up: each static binding's
/// volume and claim point at each other; each provisioned claim gets a new volume, pinned by the
/// topology keys its CSI driver reports for the node (CSINode `topologyKeys`, as the external
/// provisioner pins it; no pin when the node lists no such driver). Claims made from templates
/// are stored first. The bindings are a [`PodVolumes`]' with the volume names copied (binding
/// changes the storage they were read from). Returns the names of the volumes provisioned.
pub fn bind_pod_volumes(
    storage: &mut Storage,
    node: &Node,
    static_bindings: &[(&PersistentVolumeClaim, String)],
    dynamic_provisions: &[DynamicProvision<'_>],
) -> Vec<String> {
    let mut provisioned = Vec::new();
    for (claim, volume_name) in static_bindings {
        if let Some(volume) = storage.volumes.get_mut(volume_name) {
            volume.claim_ref = Some(claim_ref(claim));
            volume.phase = VolumePhase::Bound;
        }
        store_bound(storage, claim, volume_name.clone());
    }
    for DynamicProvision { claim, .. } in dynamic_provisions {
        let name = format!("pvc-{}-{}", claim.namespace, claim.name);
        let provisioner = storage
            .classes
            .get(&claim.spec.storage_class)
            .map(|c| c.provisioner.clone())
            .unwrap_or_default();
        let keys: Vec<String> = storage
            .csi_nodes
            .get(&node.name)
            .and_then(|drivers| drivers.iter().find(|d| d.name == provisioner))
            .map(|d| d.topology_keys.clone())
            .unwrap_or_default();
        let expressions: Vec<Requirement> = keys
            .iter()
            .filter_map(|key| {
                let value = node.labels.get(key)?;
                Some(Requirement {
                    key: key.clone(),
                    operator: Operator::In,
                    values: alloc::vec![value.clone()],
                })
            })
            .collect();
        let volume = PersistentVolume {
            name: name.clone(),
            storage_class: claim.spec.storage_class.clone(),
            capacity: claim.spec.request,
            access_modes: claim.spec.access_modes.clone(),
            volume_mode: claim.spec.volume_mode,
            volume_attributes_class: claim.spec.volume_attributes_class.clone(),
            node_affinity: (!expressions.is_empty()).then(|| {
                alloc::vec![NodeSelectorTerm {
                    match_expressions: expressions,
                    ..NodeSelectorTerm::default()
                }]
            }),
            claim_ref: Some(claim_ref(claim)),
            phase: VolumePhase::Bound,
            csi_volume_handle: Some(format!("{}-{}", claim.namespace, claim.name)),
            csi_driver: Some(provisioner),
            ..PersistentVolume::default()
        };
        storage.volumes.insert(name.clone(), volume);
        store_bound(storage, claim, name.clone());
        provisioned.push(name);
    }
    provisioned
}

/// A volume's reference to `claim`.
fn claim_ref(claim: &PersistentVolumeClaim) -> ClaimRef {
    ClaimRef {
        namespace: claim.namespace.clone(),
        name: claim.name.clone(),
        uid: claim.uid.clone(),
    }
}

fn store_bound(storage: &mut Storage, claim: &PersistentVolumeClaim, volume_name: String) {
    let entry = storage
        .claims
        .entry(claim.key())
        .or_insert_with(|| claim.clone());
    entry.volume_name = volume_name;
    entry.bind_completed = true;
}
