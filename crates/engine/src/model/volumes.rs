//! A pod's volumes as the volume plugins see them (claims, claim templates, inline disks), and
//! where each claim's volume lives, for display.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::csi_translation::InTreeSource;
use super::labels::Labels;
use super::storage::{BindingMode, ClaimSpec, PersistentVolumeClaim, Storage};

/// Where one of a pod's claim volumes lives, for display: the claim, its class, the volume it is
/// bound to and the nodes that volume can be used on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeSummary {
    /// The pod volume's name.
    pub volume: String,
    /// The claim's name.
    pub claim: String,
    /// Whether the claim exists (else it is made from the pod's template when the pod is created,
    /// or is missing).
    pub exists: bool,
    /// Whether the pod carries a template to make the claim from.
    pub from_template: bool,
    /// The claim's class (empty for none).
    pub class: String,
    /// The class's binding mode, when the class exists.
    pub binding_mode: Option<BindingMode>,
    /// The volume the claim is bound to.
    pub bound_to: Option<String>,
    /// The bound volume's node affinity, one entry per term (`key In [values]` joined by ` and `);
    /// empty when it can be used on any node. `None` when the bound volume does not exist.
    pub pinned_to: Option<Vec<String>>,
}

impl Storage {
    /// The claim volumes of `pod` and where their volumes live.
    pub fn volume_summaries(&self, pod: &super::pod::Pod) -> Vec<VolumeSummary> {
        pod.volumes
            .iter()
            .filter_map(|volume| {
                let (name, template) = volume.claim(&pod.name)?;
                let stored = self.claim(&pod.namespace, &name);
                let (_, claim) = self.pod_claim(&pod.namespace, &pod.name, volume)?;
                let class = claim
                    .as_ref()
                    .map(|c| c.spec.storage_class.clone())
                    .unwrap_or_default();
                let bound_to = claim
                    .as_ref()
                    .map(|c| c.volume_name.clone())
                    .filter(|v| !v.is_empty());
                let pinned_to = bound_to
                    .as_ref()
                    .and_then(|v| self.volumes.get(v))
                    .map(|v| {
                        v.node_affinity
                            .iter()
                            .flatten()
                            .map(|term| {
                                let parts: Vec<String> = term
                                    .match_expressions
                                    .iter()
                                    .map(|r| {
                                        alloc::format!(
                                            "{} {:?} [{}]",
                                            r.key,
                                            r.operator,
                                            r.values.join(", ")
                                        )
                                    })
                                    .collect();
                                parts.join(" and ")
                            })
                            .collect()
                    });
                Some(VolumeSummary {
                    volume: volume.name.clone(),
                    claim: name,
                    exists: stored.is_some(),
                    from_template: template.is_some(),
                    binding_mode: self.classes.get(&class).and_then(|c| c.binding_mode),
                    class,
                    bound_to,
                    pinned_to,
                })
            })
            .collect()
    }
}

/// A claim a controller makes for a pod when it creates the pod: a StatefulSet's
/// `volumeClaimTemplates` entry (`<template>-<pod>`) or a generic ephemeral volume
/// (`<pod>-<volume>`, owned by the pod).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimTemplate {
    /// The template's `metadata.name` (StatefulSet) or the volume's name (ephemeral).
    pub name: String,
    /// Whether the claim belongs to the pod (ephemeral) rather than outliving it (StatefulSet).
    pub ephemeral: bool,
    /// Its spec.
    pub spec: ClaimSpec,
    /// `storageClassName` is absent: admission (DefaultStorageClass) gives the claim the default
    /// class when it is made.
    pub class_unset: bool,
    /// Its labels (for StatefulSets, the template's labels).
    pub labels: Labels,
}

impl ClaimTemplate {
    /// The claim its controller makes in `namespace` under `name`, as stored after admission
    /// (the default class of `storage` when the template names none): unbound, no UID yet.
    pub fn make_claim(
        &self,
        namespace: &str,
        name: &str,
        storage: &Storage,
    ) -> PersistentVolumeClaim {
        let mut spec = self.spec.clone();
        if self.class_unset
            && let Some(class) = storage.default_class()
        {
            spec.storage_class = class.name.clone();
        }
        PersistentVolumeClaim {
            namespace: String::from(namespace),
            name: String::from(name),
            spec,
            ..PersistentVolumeClaim::default()
        }
    }

    /// The name of the claim made for pod `pod_name`: `<template>-<pod>` (`getPersistentVolumeClaimName`
    /// of the StatefulSet controller) or `<pod>-<volume>` (`ephemeral.VolumeClaimName`).
    pub fn claim_name(&self, pod_name: &str) -> String {
        if self.ephemeral {
            alloc::format!("{pod_name}-{}", self.name)
        } else {
            alloc::format!("{}-{pod_name}", self.name)
        }
    }
}

/// Where a pod volume's storage comes from, as far as scheduling is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VolumeSource {
    /// `persistentVolumeClaim.claimName`: a claim the pod names.
    Claim(String),
    /// A claim a controller makes for each pod from a template: a StatefulSet's
    /// `volumeClaimTemplates` entry (the pod's `persistentVolumeClaim` is `<template>-<pod>`) or a
    /// generic ephemeral volume (`<pod>-<volume>`). The name follows the pod's, so a replica an
    /// analysis adds gets its own claim.
    Template(Arc<ClaimTemplate>),
    /// `gcePersistentDisk` (VolumeRestrictions: one writer per disk on a node).
    GcePersistentDisk {
        /// `pdName`.
        pd_name: String,
        /// `readOnly`.
        read_only: bool,
    },
    /// `awsElasticBlockStore` (one pod per volume ID on a node).
    AwsElasticBlockStore {
        /// `volumeID`.
        volume_id: String,
    },
    /// `iscsi`.
    Iscsi {
        /// `iqn`.
        iqn: String,
        /// `readOnly`.
        read_only: bool,
    },
    /// `rbd`.
    Rbd {
        /// `monitors`.
        monitors: Vec<String>,
        /// `pool` (defaulted to `rbd`).
        pool: String,
        /// `image`.
        image: String,
        /// `readOnly`.
        read_only: bool,
    },
    /// Another in-tree source csi-translation-lib migrates (`azureDisk`, `cinder`, `azureFile`,
    /// `vsphereVolume`, `portworxVolume`): NodeVolumeLimits counts it against its CSI driver's
    /// limit on nodes where its migration is on. (GCE PD and AWS EBS have their own variants.)
    InTree(InTreeSource),
    /// `image` (an OCI image mounted as a volume): ImageLocality counts it from v1.36.
    Image {
        /// `reference`.
        reference: String,
    },
    /// Any other source (emptyDir, configMap, secret, hostPath, csi inline, ...): no effect on
    /// scheduling.
    Other,
}

impl VolumeSource {
    /// The source as csi-translation-lib sees it inline (`IsInlineMigratable`): GCE PD, AWS EBS
    /// and the [`VolumeSource::InTree`] ones.
    pub fn in_tree(&self) -> Option<InTreeSource> {
        match self {
            VolumeSource::GcePersistentDisk { pd_name, .. } => {
                Some(InTreeSource::GcePersistentDisk {
                    pd_name: pd_name.clone(),
                })
            }
            VolumeSource::AwsElasticBlockStore { volume_id } => {
                Some(InTreeSource::AwsElasticBlockStore {
                    volume_id: volume_id.clone(),
                })
            }
            VolumeSource::InTree(source) => Some(source.clone()),
            _ => None,
        }
    }
}

/// A pod volume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodVolume {
    /// `name`.
    pub name: String,
    /// Its source.
    pub source: VolumeSource,
}

impl PodVolume {
    /// The claim the volume uses in pod `pod_name`, with the template it is made from when a
    /// controller makes it; `None` for volumes without a claim.
    pub fn claim(&self, pod_name: &str) -> Option<(String, Option<&Arc<ClaimTemplate>>)> {
        match &self.source {
            VolumeSource::Claim(name) => Some((name.clone(), None)),
            VolumeSource::Template(template) => {
                Some((template.claim_name(pod_name), Some(template)))
            }
            _ => None,
        }
    }

    /// The claim name of a `persistentVolumeClaim` source (a StatefulSet's claim included), as
    /// `volume.PersistentVolumeClaim.ClaimName` reads it; `None` for ephemeral and other sources.
    pub fn persistent_volume_claim(&self, pod_name: &str) -> Option<String> {
        match &self.source {
            VolumeSource::Claim(name) => Some(name.clone()),
            VolumeSource::Template(template) if !template.ephemeral => {
                Some(template.claim_name(pod_name))
            }
            _ => None,
        }
    }
}
