//! Storage objects to [`spreadlab_engine::model::storage`]: PersistentVolumeClaims,
//! PersistentVolumes, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities, and a pod's
//! volumes (claims, claim templates, the inline disks VolumeRestrictions compares).

use std::sync::Arc;

use k8s_openapi::api::core::v1 as api;
use k8s_openapi::api::storage::v1 as storage_api;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use spreadlab_engine::model::{
    AccessMode, BindingMode, ClaimRef, ClaimSpec, ClaimTemplate, CsiNodeDriver, CsiStorageCapacity,
    InTreeSource, PersistentVolume, PersistentVolumeClaim, PodVolume, Quantity, StorageClass,
    TopologyTerm, VolumeMode, VolumePhase, VolumeSource,
};

use super::selector::{label_selector, node_selector_term};
use super::{labels, namespace_or, unsupported};
use crate::error::ConvertError;

/// `volume.beta.kubernetes.io/storage-class`: read before `storageClassName`
/// (`GetPersistentVolumeClaimClass`, `GetPersistentVolumeClass`).
const BETA_CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";
/// `pv.kubernetes.io/bind-completed`.
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// `volume.kubernetes.io/selected-node`.
const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// The default-class annotations DefaultStorageClass admission honours.
const DEFAULT_CLASS: [&str; 2] = [
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
];

fn annotation<'a>(metadata: &'a ObjectMeta, key: &str) -> Option<&'a str> {
    metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

fn quantity(value: Option<&ApiQuantity>, path: &str) -> Result<Option<Quantity>, ConvertError> {
    value
        .map(|q| Quantity::parse(&q.0).map_err(|e| ConvertError::new(path, e.to_string())))
        .transpose()
}

fn access_modes(modes: Option<&Vec<String>>, path: &str) -> Result<Vec<AccessMode>, ConvertError> {
    let mut out = Vec::new();
    for (index, mode) in modes.into_iter().flatten().enumerate() {
        out.push(AccessMode::parse(mode).ok_or_else(|| {
            ConvertError::new(
                format!("{path}[{index}]"),
                unsupported(
                    mode,
                    &[
                        "ReadOnlyMany",
                        "ReadWriteMany",
                        "ReadWriteOnce",
                        "ReadWriteOncePod",
                    ],
                ),
            )
        })?);
    }
    Ok(out)
}

fn volume_mode(mode: Option<&str>, path: &str) -> Result<VolumeMode, ConvertError> {
    match mode {
        None | Some("Filesystem") => Ok(VolumeMode::Filesystem),
        Some("Block") => Ok(VolumeMode::Block),
        Some(other) => Err(ConvertError::new(
            path,
            unsupported(other, &["Block", "Filesystem"]),
        )),
    }
}

/// A claim's spec (`spec` of a PVC or of a claim template), the class as
/// `GetPersistentVolumeClaimClass` reads it.
fn claim_spec(
    metadata: &ObjectMeta,
    spec: &api::PersistentVolumeClaimSpec,
    path: &str,
) -> Result<ClaimSpec, ConvertError> {
    let storage_class = annotation(metadata, BETA_CLASS_ANNOTATION)
        .map(str::to_owned)
        .or_else(|| spec.storage_class_name.clone())
        .unwrap_or_default();
    let selector = match &spec.selector {
        None => None,
        Some(selector) => Some(label_selector(Some(selector), &format!("{path}.selector"))?),
    };
    Ok(ClaimSpec {
        storage_class,
        request: quantity(
            spec.resources
                .as_ref()
                .and_then(|r| r.requests.as_ref())
                .and_then(|r| r.get("storage")),
            &format!("{path}.resources.requests.storage"),
        )?,
        access_modes: access_modes(spec.access_modes.as_ref(), &format!("{path}.accessModes"))?,
        volume_mode: volume_mode(spec.volume_mode.as_deref(), &format!("{path}.volumeMode"))?,
        selector,
        volume_attributes_class: spec
            .volume_attributes_class_name
            .clone()
            .unwrap_or_default(),
    })
}

/// A PersistentVolumeClaim as stored.
pub fn convert_claim(
    claim: &api::PersistentVolumeClaim,
    default_namespace: &str,
) -> Result<PersistentVolumeClaim, ConvertError> {
    let metadata = &claim.metadata;
    let spec = claim.spec.clone().unwrap_or_default();
    Ok(PersistentVolumeClaim {
        namespace: namespace_or(metadata, default_namespace),
        name: metadata.name.clone().unwrap_or_default(),
        uid: metadata.uid.clone().unwrap_or_default(),
        spec: claim_spec(metadata, &spec, "spec")?,
        volume_name: spec.volume_name.clone().unwrap_or_default(),
        bind_completed: annotation(metadata, BIND_COMPLETED).is_some(),
        lost: claim.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Lost"),
        deleting: metadata.deletion_timestamp.is_some(),
        selected_node: annotation(metadata, SELECTED_NODE).map(str::to_owned),
        controller_uid: metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| o.uid.clone()),
    })
}

/// A claim template (a StatefulSet's `volumeClaimTemplates[i]`, an ephemeral volume's
/// `volumeClaimTemplate`) under `name`.
pub fn claim_template(
    name: &str,
    ephemeral: bool,
    metadata: &ObjectMeta,
    spec: &api::PersistentVolumeClaimSpec,
    path: &str,
) -> Result<ClaimTemplate, ConvertError> {
    Ok(ClaimTemplate {
        name: name.to_owned(),
        ephemeral,
        spec: claim_spec(metadata, spec, &format!("{path}.spec"))?,
        class_unset: annotation(metadata, BETA_CLASS_ANNOTATION).is_none()
            && spec.storage_class_name.is_none(),
        labels: labels(metadata),
    })
}

/// A PersistentVolume as stored (a volume without a status is `Available`, as the PV controller
/// makes it at once).
pub fn convert_volume(volume: &api::PersistentVolume) -> Result<PersistentVolume, ConvertError> {
    let metadata = &volume.metadata;
    let spec = volume.spec.clone().unwrap_or_default();
    let mut node_affinity = None;
    if let Some(required) = spec
        .node_affinity
        .as_ref()
        .and_then(|a| a.required.as_ref())
    {
        let mut terms = Vec::new();
        for (index, term) in required.node_selector_terms.iter().enumerate() {
            let path = format!("spec.nodeAffinity.required.nodeSelectorTerms[{index}]");
            terms.push(node_selector_term(term, &path)?);
        }
        node_affinity = Some(terms);
    }
    let phase = match volume.status.as_ref().and_then(|s| s.phase.as_deref()) {
        None | Some("Available") => VolumePhase::Available,
        Some("Pending") => VolumePhase::Pending,
        Some("Bound") => VolumePhase::Bound,
        Some("Released") => VolumePhase::Released,
        Some("Failed") => VolumePhase::Failed,
        Some(other) => {
            return Err(ConvertError::new(
                "status.phase",
                unsupported(
                    other,
                    &["Available", "Bound", "Failed", "Pending", "Released"],
                ),
            ));
        }
    };
    Ok(PersistentVolume {
        name: metadata.name.clone().unwrap_or_default(),
        labels: labels(metadata),
        storage_class: annotation(metadata, BETA_CLASS_ANNOTATION)
            .map(str::to_owned)
            .or_else(|| spec.storage_class_name.clone())
            .unwrap_or_default(),
        capacity: quantity(
            spec.capacity.as_ref().and_then(|c| c.get("storage")),
            "spec.capacity.storage",
        )?,
        access_modes: access_modes(spec.access_modes.as_ref(), "spec.accessModes")?,
        volume_mode: volume_mode(spec.volume_mode.as_deref(), "spec.volumeMode")?,
        volume_attributes_class: spec
            .volume_attributes_class_name
            .clone()
            .unwrap_or_default(),
        node_affinity,
        claim_ref: spec.claim_ref.as_ref().map(|r| ClaimRef {
            namespace: r.namespace.clone().unwrap_or_default(),
            name: r.name.clone().unwrap_or_default(),
            uid: r.uid.clone().unwrap_or_default(),
        }),
        phase,
        deleting: metadata.deletion_timestamp.is_some(),
        csi_driver: spec.csi.as_ref().map(|c| c.driver.clone()),
        csi_volume_handle: spec.csi.as_ref().map(|c| c.volume_handle.clone()),
        in_tree: volume_in_tree(&spec),
    })
}

/// An `azureDisk` source (a PersistentVolume's or a pod's inline one), its `kind` defaulted as
/// the API server does (`SetDefaults_AzureDiskVolumeSource`: `Shared`).
fn azure_disk(disk: &api::AzureDiskVolumeSource) -> InTreeSource {
    InTreeSource::AzureDisk {
        disk_uri: disk.disk_uri.clone(),
        kind: disk.kind.clone().unwrap_or_else(|| "Shared".to_owned()),
    }
}

/// A PersistentVolume's in-tree source csi-translation-lib can translate (`CanSupport`).
fn volume_in_tree(spec: &api::PersistentVolumeSpec) -> Option<InTreeSource> {
    if let Some(disk) = &spec.aws_elastic_block_store {
        Some(InTreeSource::AwsElasticBlockStore {
            volume_id: disk.volume_id.clone(),
        })
    } else if let Some(disk) = &spec.gce_persistent_disk {
        Some(InTreeSource::GcePersistentDisk {
            pd_name: disk.pd_name.clone(),
        })
    } else if let Some(disk) = &spec.azure_disk {
        Some(azure_disk(disk))
    } else if let Some(disk) = &spec.cinder {
        Some(InTreeSource::Cinder {
            volume_id: disk.volume_id.clone(),
        })
    } else if spec.azure_file.is_some() {
        Some(InTreeSource::AzureFile)
    } else if spec.vsphere_volume.is_some() {
        Some(InTreeSource::VsphereVolume)
    } else {
        spec.portworx_volume
            .as_ref()
            .map(|disk| InTreeSource::PortworxVolume {
                volume_id: disk.volume_id.clone(),
            })
    }
}

/// What NodeVolumeLimits cannot count as upstream does for an inline in-tree source (a warning
/// for the loader): a translation that fails (Filter then fails with an error where its migration
/// is on) or one only approximated here.
pub fn in_tree_warning(source: &InTreeSource) -> Option<String> {
    if let Some(message) = ebs_approximate_warning(source) {
        return Some(message);
    }
    let failed = source.inline_handle().and_then(Result::err)?;
    Some(format!(
        "{} cannot be translated to CSI ({failed}): NodeVolumeLimits fails with an error on every node where its CSI migration is on",
        source.plugin_name()
    ))
}

/// An `aws://` EBS volume ID whose translation is only approximated here.
fn ebs_approximate_warning(source: &InTreeSource) -> Option<String> {
    match source {
        InTreeSource::AwsElasticBlockStore { volume_id }
            if spreadlab_engine::model::csi_translation::ebs_volume_id_is_approximate(
                volume_id,
            ) =>
        {
            Some(format!(
                "awsElasticBlockStore volumeID {volume_id:?}: an aws:// ID is parsed as a URL by the scheduler (net/url); spreadlab parses the common forms only, so the CSI volume handle counted against attach limits, and whether VolumeBinding can translate the volume, may differ"
            ))
        }
        _ => None,
    }
}

/// What spreadlab cannot read as upstream does, or what fails upstream, for a PersistentVolume
/// with an in-tree source (warnings for the loader):
///
/// - a translation to CSI that fails (csi-translation-lib `TranslateInTreePVToCSI`): NodeVolumeLimits
///   does not count the volume, and VolumeBinding's Filter fails with an error for a pod whose
///   claim is bound to it on nodes whose CSINode lists the plugin as migrated (modelled; a
///   warning because the cluster is likely misconfigured), or one only approximated here;
/// - a volume VolumeBinding translates (`isCSIMigrationOnForPlugin`) that is not yet bound (no
///   `claimRef` or phase not `Bound`): were the scheduler to bind it to a claim, upstream's
///   PreBind (`BindPodVolumes`, `checkBindings`) re-checks the translated volume's node affinity,
///   which spreadlab does not model (it binds by the node affinity as written, as Filter's
///   `findMatchingVolumes` matches upstream).
///
/// VolumeZone reads the volume's labels as written in v1.35 (`volume_zone.go` translates
/// nothing), as spreadlab does.
pub fn in_tree_volume_warnings(volume: &PersistentVolume, field: &str) -> Vec<String> {
    let Some(source) = &volume.in_tree else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    if let Some(message) = ebs_approximate_warning(source) {
        warnings.push(message);
    } else if let Err(failed) =
        source.translate_pv_node_affinity(&volume.labels, volume.node_affinity.as_deref())
    {
        warnings.push(format!(
            "{} cannot be translated to CSI ({failed}): NodeVolumeLimits does not count it against attach limits, and VolumeBinding fails with an error (could not translate pv) for a pod whose claim is bound to it on nodes whose CSINode lists {} as migrated",
            source.plugin_name(),
            source.plugin_name()
        ));
    }
    let translated = spreadlab_engine::model::csi_translation::is_csi_migration_on_for_plugin(
        source.plugin_name(),
    );
    if translated && (volume.claim_ref.is_none() || volume.phase != VolumePhase::Bound) {
        warnings.push(format!(
            "in-tree volume source `{field}` not yet bound (no claimRef, or phase not Bound): if the scheduler binds it to a claim, VolumeBinding's PreBind (checkBindings) re-checks the volume translated to CSI on nodes whose CSINode lists {} as migrated, which spreadlab does not model (bound volumes are checked translated, as upstream's Filter does)",
            source.plugin_name()
        ));
    }
    warnings
}

/// The field of a PersistentVolume's in-tree source csi-translation-lib can translate
/// (`CanSupport`), for messages.
pub fn in_tree_source(volume: &api::PersistentVolume) -> Option<&'static str> {
    let spec = volume.spec.as_ref()?;
    [
        (
            spec.aws_elastic_block_store.is_some(),
            "awsElasticBlockStore",
        ),
        (spec.gce_persistent_disk.is_some(), "gcePersistentDisk"),
        (spec.azure_disk.is_some(), "azureDisk"),
        (spec.azure_file.is_some(), "azureFile"),
        (spec.cinder.is_some(), "cinder"),
        (spec.vsphere_volume.is_some(), "vsphereVolume"),
        (spec.portworx_volume.is_some(), "portworxVolume"),
    ]
    .into_iter()
    .find_map(|(present, name)| present.then_some(name))
}

/// A StorageClass.
pub fn convert_class(class: &storage_api::StorageClass) -> Result<StorageClass, ConvertError> {
    let metadata = &class.metadata;
    let binding_mode = match class.volume_binding_mode.as_deref() {
        None => None,
        Some("Immediate") => Some(BindingMode::Immediate),
        Some("WaitForFirstConsumer") => Some(BindingMode::WaitForFirstConsumer),
        Some(other) => {
            return Err(ConvertError::new(
                "volumeBindingMode",
                unsupported(other, &["Immediate", "WaitForFirstConsumer"]),
            ));
        }
    };
    let allowed_topologies = class
        .allowed_topologies
        .iter()
        .flatten()
        .map(|term| TopologyTerm {
            expressions: term
                .match_label_expressions
                .iter()
                .flatten()
                .map(|e| (e.key.clone(), e.values.clone()))
                .collect(),
        })
        .collect();
    Ok(StorageClass {
        name: metadata.name.clone().unwrap_or_default(),
        provisioner: class.provisioner.clone(),
        binding_mode,
        allowed_topologies,
        is_default: DEFAULT_CLASS
            .iter()
            .any(|key| annotation(metadata, key) == Some("true")),
        created: metadata
            .creation_timestamp
            .as_ref()
            .map_or(0, |t| t.0.as_second()),
    })
}

/// The in-tree plugins a CSINode's `storage.alpha.kubernetes.io/migrated-plugins` annotation
/// lists (`isCSIMigrationOn` splits it on commas), `None` without the annotation.
pub fn csi_node_migrated_plugins(node: &storage_api::CSINode) -> Option<Vec<String>> {
    let value = annotation(
        &node.metadata,
        spreadlab_engine::model::csi_translation::MIGRATED_PLUGINS_ANNOTATION,
    )?;
    Some(if value.is_empty() {
        Vec::new()
    } else {
        value.split(',').map(str::to_owned).collect()
    })
}

/// A CSINode's drivers.
pub fn convert_csi_node(node: &storage_api::CSINode) -> Vec<CsiNodeDriver> {
    node.spec
        .drivers
        .iter()
        .map(|d| CsiNodeDriver {
            name: d.name.clone(),
            topology_keys: d.topology_keys.clone().unwrap_or_default(),
            allocatable_count: d.allocatable.as_ref().and_then(|a| a.count),
        })
        .collect()
}

/// A CSIStorageCapacity.
pub fn convert_capacity(
    capacity: &storage_api::CSIStorageCapacity,
    default_namespace: &str,
) -> Result<CsiStorageCapacity, ConvertError> {
    let node_topology = match &capacity.node_topology {
        None => None,
        Some(selector) => Some(label_selector(Some(selector), &"nodeTopology")?),
    };
    Ok(CsiStorageCapacity {
        namespace: namespace_or(&capacity.metadata, default_namespace),
        name: capacity.metadata.name.clone().unwrap_or_default(),
        storage_class: capacity.storage_class_name.clone(),
        node_topology,
        capacity: quantity(capacity.capacity.as_ref(), "capacity")?,
        maximum_volume_size: quantity(capacity.maximum_volume_size.as_ref(), "maximumVolumeSize")?,
    })
}

/// A pod's volumes, as the volume plugins see them.
pub fn convert_volumes(
    volumes: Option<&Vec<crate::slim::SlimVolume>>,
) -> Result<Vec<PodVolume>, ConvertError> {
    let mut out = Vec::new();
    for (index, volume) in volumes.into_iter().flatten().enumerate() {
        let path = format!("spec.volumes[{index}]");
        let source = if let Some(claim) = &volume.persistent_volume_claim {
            VolumeSource::Claim(claim.claim_name.clone())
        } else if let Some(ephemeral) = &volume.ephemeral {
            let template = ephemeral.volume_claim_template.as_ref().ok_or_else(|| {
                ConvertError::new(
                    format!("{path}.ephemeral.volumeClaimTemplate"),
                    "Required value",
                )
            })?;
            let metadata = template.metadata.clone().unwrap_or_default();
            VolumeSource::Template(Arc::new(claim_template(
                &volume.name,
                true,
                &metadata,
                &template.spec,
                &format!("{path}.ephemeral.volumeClaimTemplate"),
            )?))
        } else if let Some(disk) = &volume.gce_persistent_disk {
            VolumeSource::GcePersistentDisk {
                pd_name: disk.pd_name.clone(),
                read_only: disk.read_only.unwrap_or(false),
            }
        } else if let Some(disk) = &volume.aws_elastic_block_store {
            VolumeSource::AwsElasticBlockStore {
                volume_id: disk.volume_id.clone(),
            }
        } else if let Some(disk) = &volume.iscsi {
            VolumeSource::Iscsi {
                iqn: disk.iqn.clone(),
                read_only: disk.read_only.unwrap_or(false),
            }
        } else if let Some(disk) = &volume.rbd {
            VolumeSource::Rbd {
                monitors: disk.monitors.clone(),
                pool: disk.pool.clone().unwrap_or_else(|| "rbd".to_owned()),
                image: disk.image.clone(),
                read_only: disk.read_only.unwrap_or(false),
            }
        } else if let Some(disk) = &volume.azure_disk {
            VolumeSource::InTree(azure_disk(disk))
        } else if let Some(disk) = &volume.cinder {
            VolumeSource::InTree(InTreeSource::Cinder {
                volume_id: disk.volume_id.clone(),
            })
        } else if volume.azure_file.is_some() {
            VolumeSource::InTree(InTreeSource::AzureFile)
        } else if volume.vsphere_volume.is_some() {
            VolumeSource::InTree(InTreeSource::VsphereVolume)
        } else if let Some(disk) = &volume.portworx_volume {
            VolumeSource::InTree(InTreeSource::PortworxVolume {
                volume_id: disk.volume_id.clone(),
            })
        } else if let Some(image) = &volume.image {
            VolumeSource::Image {
                reference: image.reference.clone().unwrap_or_default(),
            }
        } else {
            VolumeSource::Other
        };
        out.push(PodVolume {
            name: volume.name.clone(),
            source,
        });
    }
    Ok(out)
}
