//! Volumes and zones: claims whose class binds before the pod is placed, and replicas whose
//! volumes pin them to one zone.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::model::{
    BindingMode, LABEL_REGION, LABEL_ZONE, Operator, PersistentVolume, VolumeSource,
};

use super::*;

/// The zone a volume is pinned to: its node affinity's one required zone (every term asking the
/// same single `topology.kubernetes.io/zone` value), else its zone label.
pub(crate) fn volume_zone(volume: &PersistentVolume) -> Option<String> {
    if let Some(terms) = &volume.node_affinity {
        let mut zone: Option<&String> = None;
        for term in terms {
            let value = term.match_expressions.iter().find_map(|r| {
                (r.key == LABEL_ZONE && r.operator == Operator::In && r.values.len() == 1)
                    .then(|| &r.values[0])
            })?;
            if zone.is_some_and(|z| z != value) {
                return None;
            }
            zone = Some(value);
        }
        if let Some(zone) = zone {
            return Some(zone.clone());
        }
    }
    volume.labels.get(LABEL_ZONE).cloned()
}

impl Checker<'_> {
    pub(super) fn volume_rules(&mut self) {
        let base = spec_path(self.workload);
        let pod = self.template().clone();
        let spreads_zones = pod
            .topology_spread_constraints
            .iter()
            .any(|c| c.topology_key == LABEL_ZONE || c.topology_key == LABEL_REGION);
        // Both rules are about a zone spread the volumes override.
        if !spreads_zones
            || !self.wants(&["immediate-binding-with-zone-spread", "volumes-in-one-zone"])
        {
            return;
        }
        let storage = self.settled.cluster.storage.clone();
        // Claims of a class that binds at once: the volume's zone is chosen before the pod's.
        {
            let templates = pod
                .volumes
                .iter()
                .filter(|v| matches!(&v.source, VolumeSource::Template(t) if !t.ephemeral))
                .count();
            for (i, volume) in pod.volumes.iter().enumerate() {
                let (class, path) = match &volume.source {
                    VolumeSource::Template(t) => {
                        let claim =
                            t.make_claim(&pod.namespace, &t.claim_name(&pod.name), &storage);
                        let path = if t.ephemeral {
                            format!(
                                "{base}.volumes[{}].ephemeral.volumeClaimTemplate.spec.storageClassName",
                                i - templates
                            )
                        } else {
                            format!("spec.volumeClaimTemplates[{i}].spec.storageClassName")
                        };
                        (claim.spec.storage_class, path)
                    }
                    VolumeSource::Claim(name) => {
                        let Some(claim) = storage.claim(&pod.namespace, name) else {
                            continue;
                        };
                        if !claim.volume_name.is_empty() {
                            continue; // already bound: its zone is settled
                        }
                        let path =
                            format!("{base}.volumes[{}].persistentVolumeClaim", i - templates);
                        (claim.spec.storage_class.clone(), path)
                    }
                    _ => continue,
                };
                if storage
                    .classes
                    .get(&class)
                    .is_some_and(|c| c.binding_mode == Some(BindingMode::Immediate))
                {
                    self.push(
                        "immediate-binding-with-zone-spread",
                        Some(path),
                        format!(
                            "volume {} uses StorageClass {class} (volumeBindingMode Immediate): its zone is picked when the claim is created, before the scheduler places the pod, which must then follow it (meanwhile: \"pod has unbound immediate PersistentVolumeClaims\")",
                            volume.name
                        ),
                    );
                }
            }
        }
        // Replicas pinned to one zone by their volumes.
        if storage.volumes.is_empty() {
            return;
        }
        let cluster = &self.settled.cluster;
        let pods: BTreeMap<(&str, &str), &crate::model::Pod> = cluster
            .pods
            .iter()
            .map(|p| ((p.namespace.as_str(), p.name.as_str()), &**p))
            .collect();
        let mut pinned: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for key in &self.settled.members[self.index] {
            let Some(member) = key.split_once('/').and_then(|k| pods.get(&k)) else {
                continue;
            };
            let zone = member.volumes.iter().find_map(|v| {
                let (_, claim) = storage.pod_claim(&member.namespace, &member.name, v)?;
                let volume = storage.volumes.get(&claim?.volume_name)?;
                volume_zone(volume)
            });
            if let Some(zone) = zone {
                pinned.entry(zone).or_default().push(member.name.clone());
            }
        }
        let cluster_zones = crate::analysis::zones(cluster)
            .into_iter()
            .filter(|z| *z != crate::analysis::NO_ZONE)
            .count();
        if pinned.len() == 1 && cluster_zones > 1 {
            let (zone, names) = pinned.iter().next().expect("one zone");
            if names.len() > 1 {
                self.push(
                    "volumes-in-one-zone",
                    None,
                    format!(
                        "the volumes of {} replica(s) ({}) are all in zone {zone}: those replicas can only run there, whatever the zone spread asks, and losing {zone} stops them all until it returns",
                        names.len(),
                        names.join(", ")
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected findings hand-derived from each rule's definition.

    use alloc::sync::Arc;
    use alloc::vec;

    use super::*;
    use crate::analysis::testing::{deployment, settled};
    use crate::framework::testing::{node, pod};
    use crate::model::{
        AccessMode, ClaimRef, ClaimSpec, ClaimTemplate, Cluster, NodeSelectorTerm,
        PersistentVolumeClaim, PodVolume, Requirement, Storage, StorageClass,
        TopologySpreadConstraint, VolumePhase, WhenUnsatisfiable,
    };

    fn class(name: &str, mode: BindingMode) -> StorageClass {
        StorageClass {
            name: name.into(),
            provisioner: "ebs.csi.aws.com".into(),
            binding_mode: Some(mode),
            allowed_topologies: vec![],
            is_default: false,
            created: 0,
        }
    }

    fn cluster(storage: Storage) -> Cluster {
        Cluster {
            nodes: ["z1", "z2", "z3"]
                .iter()
                .map(|z| node(&format!("n-{z}"), &[(LABEL_ZONE, z)]))
                .collect(),
            storage: Arc::new(storage),
            ..Cluster::default()
        }
    }

    /// A pod spreading over zones whose claim `data` comes from a template of `class`.
    fn template(class: &str) -> crate::model::Pod {
        let mut t = pod("", &[("app", "web")], None);
        t.topology_spread_constraints
            .push(TopologySpreadConstraint {
                max_skew: 1,
                topology_key: LABEL_ZONE.into(),
                when_unsatisfiable: WhenUnsatisfiable::ScheduleAnyway,
                selector: Selector::from_set(&crate::framework::testing::labels(&[("app", "web")])),
                min_domains: None,
                node_affinity_policy: None,
                node_taints_policy: None,
                match_label_keys: vec![],
            });
        t.volumes.push(PodVolume {
            name: "data".into(),
            source: VolumeSource::Template(Arc::new(ClaimTemplate {
                name: "data".into(),
                ephemeral: false,
                spec: ClaimSpec {
                    storage_class: class.into(),
                    access_modes: vec![AccessMode::ReadWriteOnce],
                    ..ClaimSpec::default()
                },
                class_unset: false,
                labels: Default::default(),
            })),
        });
        t
    }

    fn rules(cluster: &Cluster, t: crate::model::Pod) -> Vec<Finding> {
        let options = Options::default();
        lint(
            &settled(cluster, &[deployment("web", t, 2)], &options),
            &options,
        )
        .into_iter()
        .filter(|f| f.rule.contains("binding") || f.rule.contains("volumes"))
        .collect()
    }

    #[test]
    fn an_immediate_class_under_a_zone_spread_is_found_where_it_is_named() {
        let mut storage = Storage::default();
        storage
            .classes
            .insert("fast".into(), class("fast", BindingMode::Immediate));
        storage.classes.insert(
            "late".into(),
            class("late", BindingMode::WaitForFirstConsumer),
        );
        let found = rules(&cluster(storage.clone()), template("fast"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "immediate-binding-with-zone-spread");
        assert_eq!(
            found[0].path.as_deref(),
            Some("spec.volumeClaimTemplates[0].spec.storageClassName")
        );
        assert!(rules(&cluster(storage), template("late")).is_empty());
    }

    #[test]
    fn replicas_pinned_to_one_zone_by_their_volumes_are_found() {
        let mut storage = Storage::default();
        storage.classes.insert(
            "late".into(),
            class("late", BindingMode::WaitForFirstConsumer),
        );
        for i in 0..2 {
            let claim = format!("data-web-{i}");
            let volume = format!("pv-{i}");
            storage.claims.insert(
                ("default".into(), claim.clone()),
                PersistentVolumeClaim {
                    namespace: "default".into(),
                    name: claim.clone(),
                    spec: ClaimSpec {
                        storage_class: "late".into(),
                        ..ClaimSpec::default()
                    },
                    volume_name: volume.clone(),
                    bind_completed: true,
                    ..PersistentVolumeClaim::default()
                },
            );
            storage.volumes.insert(
                volume.clone(),
                PersistentVolume {
                    name: volume,
                    storage_class: "late".into(),
                    node_affinity: Some(vec![NodeSelectorTerm {
                        match_expressions: vec![Requirement {
                            key: LABEL_ZONE.into(),
                            operator: Operator::In,
                            values: vec!["z2".into()],
                        }],
                        ..NodeSelectorTerm::default()
                    }]),
                    claim_ref: Some(ClaimRef {
                        namespace: "default".into(),
                        name: claim,
                        uid: String::new(),
                    }),
                    phase: VolumePhase::Bound,
                    ..PersistentVolume::default()
                },
            );
        }
        let found = rules(&cluster(storage), template("late"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "volumes-in-one-zone");
        assert!(
            found[0]
                .message
                .contains("(web-0, web-1) are all in zone z2"),
            "{}",
            found[0].message
        );
    }
}
