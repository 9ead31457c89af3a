//! What every failure of a sweep starts from, built once per settled cluster: its snapshot
//! (each failure derives its own from it instead of building one from the cluster), the zone of
//! every node and of every followed replica.

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::{Placement, zone_of};
use crate::framework::Snapshot;
use crate::version::KubeVersion;

/// The settled cluster's snapshot and zones, shared by the failures of a sweep.
pub(super) struct Base<'a> {
    /// `Snapshot::new` of the settled cluster (the settled scenario's shared one, when it has it).
    pub(super) snapshot: Cow<'a, Snapshot>,
    /// Node name to zone.
    pub(super) zone_of_node: BTreeMap<String, String>,
    /// Followed replica (`namespace/name`) to the zone of its node.
    zone_of_member: BTreeMap<String, String>,
}

impl<'a> Base<'a> {
    pub(super) fn new(settled: Placement<'a>, version: KubeVersion) -> Base<'a> {
        let snapshot = settled.snapshot(version);
        let zone_of_node: BTreeMap<String, String> = settled
            .cluster
            .nodes
            .iter()
            .map(|n| (n.name.clone(), String::from(zone_of(n))))
            .collect();
        let wanted: BTreeSet<&str> = settled
            .members
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let zone_of_member = settled
            .cluster
            .pods
            .iter()
            .filter_map(|pod| {
                let zone = zone_of_node.get(pod.node_name.as_deref()?)?;
                let key = pod.key();
                wanted.contains(key.as_str()).then(|| (key, zone.clone()))
            })
            .collect();
        Base {
            snapshot,
            zone_of_node,
            zone_of_member,
        }
    }

    /// How many of `keys` run per zone (as `analysis::per_zone` counts them): a key placed by
    /// the failure or the recovery (`placed`: key to zone) counts where it was placed, any other
    /// where the settled cluster has it; keys bound nowhere are left out.
    pub(super) fn per_zone(
        &self,
        keys: &[String],
        placed: &BTreeMap<String, String>,
    ) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for key in keys {
            if let Some(zone) = placed.get(key).or_else(|| self.zone_of_member.get(key)) {
                *out.entry(zone.clone()).or_insert(0) += 1;
            }
        }
        out
    }

    /// The snapshot indexes of the nodes named in `failed`, and the arena ids of the pods on them.
    pub(super) fn failed(&self, failed: &BTreeSet<String>) -> (BTreeSet<usize>, Vec<usize>) {
        let nodes: BTreeSet<usize> = failed
            .iter()
            .filter_map(|name| self.snapshot.node_index.get(name).copied())
            .collect();
        let pods = nodes
            .iter()
            .flat_map(|&n| self.snapshot.nodes[n].pods.iter().copied())
            .collect();
        (nodes, pods)
    }
}

/// The `gone` pods that are workload `members`, by key: the only keys the failure analysis looks
/// up. Each gone pod is checked against the members' keys (few) instead of every gone pod's key
/// being made and sorted (each key read every way it splits:
/// [`Pod::key_splits`](crate::model::Pod::key_splits)).
pub(super) fn gone_members<'p>(
    gone: &[&'p crate::model::Pod],
    members: &[Vec<String>],
) -> BTreeMap<String, &'p crate::model::Pod> {
    let member_keys: BTreeSet<(&str, &str)> = members
        .iter()
        .flatten()
        .flat_map(|key| crate::model::Pod::key_splits(key))
        .collect();
    gone.iter()
        .filter(|p| member_keys.contains(&(p.namespace.as_str(), p.name.as_str())))
        .map(|p| (p.key(), *p))
        .collect()
}
