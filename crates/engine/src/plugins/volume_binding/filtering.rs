//! PreFilter and Filter of VolumeBinding (`volume_binding.go` `podHasPVCs`, `PreFilter`,
//! `Filter`; `binder.go` `GetPodVolumeClaims`; component-helpers `ephemeral.VolumeIsForPod`).

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ERR_UNBOUND_IMMEDIATE;
use super::binder::find_pod_volumes;
use crate::framework::{Code, PodInfo, Snapshot, Status};
use crate::model::{PersistentVolumeClaim, Quantity, VolumeSource};

/// The pod's claims, sorted as `GetPodVolumeClaims` sorts them.
#[derive(Clone, Debug, Default)]
pub struct PreFilterState {
    /// Fully bound claims (a volume name and the `bind-completed` annotation).
    pub bound: Vec<PersistentVolumeClaim>,
    /// Unbound claims of a class that waits for the first consumer.
    pub unbound_delayed: Vec<PersistentVolumeClaim>,
    /// Per unbound claim, the volumes that could match it on some node
    /// (`Storage::matching_candidates`: the node-independent checks, done once per cycle).
    pub candidates: Vec<Vec<String>>,
    /// The unbound claims no node was selected for (indexes into `unbound_delayed`), smallest
    /// request first: the order `findMatchingVolumes` tries them in, the same on every node. Equal
    /// requests keep their order, as Go's `sort.Sort` does for up to 12 claims (its insertion
    /// sort); past 12 its pdqsort is not stable, and spreadlab keeps the order still.
    pub match_order: Vec<usize>,
}

/// `PreFilter`: `Skip` for a pod without claims; a missing, lost or deleted claim, or one of an
/// `Immediate` class still unbound, rejects the pod everywhere.
pub fn pre_filter(pod: &PodInfo, snapshot: &Snapshot) -> (Status, Option<PreFilterState>) {
    let p = &pod.pod;
    let storage = &snapshot.storage;
    let mut claims = Vec::new();
    // podHasPVCs
    for volume in &p.volumes {
        let Some((name, claim)) = storage.pod_claim(&p.namespace, &p.name, volume) else {
            continue;
        };
        let ephemeral = matches!(&volume.source, VolumeSource::Template(t) if t.ephemeral);
        let rejected = |message: String| {
            (
                Status::new(Code::UnschedulableAndUnresolvable, message),
                None,
            )
        };
        let Some(claim) = claim else {
            return rejected(if ephemeral {
                format!(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}"
                )
            } else {
                format!("persistentvolumeclaim {name:?} not found")
            });
        };
        if claim.lost {
            return rejected(format!(
                "persistentvolumeclaim {:?} bound to non-existent persistentvolume {:?}",
                claim.name, claim.volume_name
            ));
        }
        if claim.deleting {
            return rejected(format!(
                "persistentvolumeclaim {:?} is being deleted",
                claim.name
            ));
        }
        let claim = match claim {
            // `ephemeral.VolumeIsForPod` (component-helpers `storage/ephemeral`): a stored claim
            // of a generic ephemeral volume must be controlled by this pod (`IsControlledBy`
            // compares the controller owner's UID with the pod's).
            Cow::Borrowed(stored) if ephemeral && !stored.is_for_pod(p) => {
                return rejected(format!(
                    "PVC {}/{} was not created for pod {}/{} (pod is not owner)",
                    stored.namespace, stored.name, p.namespace, p.name
                ));
            }
            Cow::Borrowed(stored) => stored.clone(),
            // A claim made from the template here is the ephemeral volume controller's, which
            // makes the pod its controller owner: kept once binding stores it.
            Cow::Owned(mut made) => {
                if ephemeral {
                    made.controller_uid = Some(p.uid.clone());
                }
                made
            }
        };
        claims.push(claim);
    }
    if claims.is_empty() {
        return (Status::skip(), None);
    }
    // GetPodVolumeClaims
    let mut state = PreFilterState::default();
    let mut immediate = false;
    for claim in claims {
        if !claim.volume_name.is_empty() && claim.bind_completed {
            state.bound.push(claim);
            continue;
        }
        match storage.is_delay_binding(&claim.spec) {
            Err(message) => return (Status::new(Code::Error, message), None),
            Ok(true) if claim.volume_name.is_empty() => state.unbound_delayed.push(claim),
            Ok(_) => immediate = true,
        }
    }
    state.candidates = state
        .unbound_delayed
        .iter()
        .map(|claim| storage.matching_candidates(claim))
        .collect();
    if immediate {
        return (
            Status::new(Code::UnschedulableAndUnresolvable, ERR_UNBOUND_IMMEDIATE),
            None,
        );
    }
    state.match_order = (0..state.unbound_delayed.len())
        .filter(|&index| state.unbound_delayed[index].selected_node.is_none())
        .collect();
    let claims = &state.unbound_delayed;
    let request = |index: &usize| {
        claims[*index]
            .spec
            .request
            .as_ref()
            .map_or(0, Quantity::milli_value)
    };
    state.match_order.sort_by_key(request);
    (Status::success(), Some(state))
}

/// `Filter`: `FindPodVolumes` on the node at `node_index`; its reasons, all at once, are
/// unresolvable.
pub fn filter(state: &PreFilterState, snapshot: &Snapshot, node_index: usize) -> Status {
    match find_pod_volumes(state, snapshot, node_index) {
        Err(message) => Status::new(Code::Error, message),
        Ok((_, reasons)) if reasons.is_empty() => Status::success(),
        Ok((_, reasons)) => Status::with_reasons(
            Code::UnschedulableAndUnresolvable,
            reasons.into_iter().map(String::from).collect(),
        ),
    }
}

/// Whether Filter tells alike nodes apart: a volume's node affinity may name a host, and a claim
/// being provisioned names its node, so any pod with claims is filtered node by node.
pub fn reads_node_identity(state: Option<&PreFilterState>) -> bool {
    state.is_some()
}
