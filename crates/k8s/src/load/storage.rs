//! Storage objects into the cluster's [`Storage`](spreadlab_engine::model::Storage), and the
//! StatefulSet claim templates into its replicas' volumes.

use std::sync::Arc;

use k8s_openapi::api::core::v1 as core_api;
use k8s_openapi::api::storage::v1 as storage_api;
use serde_json::Value;
use spreadlab_engine::model::{BindingMode, CsiDriver, PodVolume, VolumeAttachment, VolumeSource};

use super::{Failure, Loader, Place, object_name};
use crate::convert::storage::{
    claim_template, convert_capacity, convert_claim, convert_class, convert_csi_node,
    convert_volume, csi_node_migrated_plugins, in_tree_source, in_tree_volume_warnings,
};

impl Loader<'_> {
    /// A PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, CSIDriver,
    /// VolumeAttachment or CSIStorageCapacity.
    pub(super) fn add_storage(
        &mut self,
        place: &Place,
        kind: &str,
        value: Value,
    ) -> Result<(), Failure> {
        let default_namespace = self.options.default_namespace.clone();
        match kind {
            "PersistentVolumeClaim" => {
                let object: core_api::PersistentVolumeClaim = self.typed(place, value)?;
                let mut claim = convert_claim(&object, &default_namespace)
                    .map_err(|e| place.convert_error(e))?;
                claim.name = object_name(place, &object.metadata)?;
                self.storage().claims.insert(claim.key(), claim);
            }
            "PersistentVolume" => {
                let object: core_api::PersistentVolume = self.typed(place, value)?;
                let mut volume = convert_volume(&object).map_err(|e| place.convert_error(e))?;
                volume.name = object_name(place, &object.metadata)?;
                let field = in_tree_source(&object).unwrap_or_default();
                for message in in_tree_volume_warnings(&volume, field) {
                    self.loaded
                        .warnings
                        .push(place.warning(Some("spec"), message));
                }
                self.storage().volumes.insert(volume.name.clone(), volume);
            }
            "StorageClass" => {
                let object: storage_api::StorageClass = self.typed(place, value)?;
                let mut class = convert_class(&object).map_err(|e| place.convert_error(e))?;
                class.name = object_name(place, &object.metadata)?;
                // The API server's defaulting (`SetDefaults_StorageClass`): an unset binding
                // mode is stored as Immediate.
                class.binding_mode.get_or_insert(BindingMode::Immediate);
                self.storage().classes.insert(class.name.clone(), class);
            }
            "CSINode" => {
                let object: storage_api::CSINode = self.typed(place, value)?;
                let name = object_name(place, &object.metadata)?;
                let drivers = convert_csi_node(&object);
                match csi_node_migrated_plugins(&object) {
                    Some(plugins) => {
                        self.storage()
                            .csi_migrated_plugins
                            .insert(name.clone(), plugins);
                    }
                    None => {
                        self.storage().csi_migrated_plugins.remove(&name);
                    }
                }
                self.storage().csi_nodes.insert(name, drivers);
            }
            "CSIDriver" => {
                let object: storage_api::CSIDriver = self.typed(place, value)?;
                let name = object_name(place, &object.metadata)?;
                let driver = CsiDriver {
                    storage_capacity: object.spec.storage_capacity.unwrap_or(false),
                    prevent_pod_scheduling_if_missing: object
                        .spec
                        .prevent_pod_scheduling_if_missing
                        .unwrap_or(false),
                };
                self.storage().csi_drivers.insert(name, driver);
            }
            "VolumeAttachment" => {
                let object: storage_api::VolumeAttachment = self.typed(place, value)?;
                // An inline volume's attachment (CSI migration) names no volume: not counted
                // upstream either.
                if let Some(volume) = object.spec.source.persistent_volume_name {
                    self.storage().attachments.push(VolumeAttachment {
                        node: object.spec.node_name,
                        attacher: object.spec.attacher,
                        volume,
                    });
                }
            }
            _ => {
                let object: storage_api::CSIStorageCapacity = self.typed(place, value)?;
                let mut capacity = convert_capacity(&object, &default_namespace)
                    .map_err(|e| place.convert_error(e))?;
                capacity.name = object_name(place, &object.metadata)?;
                self.storage().capacities.push(capacity);
            }
        }
        Ok(())
    }

    fn storage(&mut self) -> &mut spreadlab_engine::model::Storage {
        Arc::make_mut(&mut self.loaded.cluster.storage)
    }

    /// The StatefulSet controller's `updateStorage` for workload `index`: each claim template
    /// becomes a volume of that name (replacing one the pod template has) whose claim is
    /// `<template>-<pod>`, made from the template when it does not exist.
    pub(super) fn add_claim_templates(
        &mut self,
        place: &Place,
        index: usize,
        templates: &[core_api::PersistentVolumeClaim],
    ) -> Result<(), Failure> {
        let mut volumes = Vec::new();
        for (i, template) in templates.iter().enumerate() {
            let path = format!("spec.volumeClaimTemplates[{i}]");
            let name = template.metadata.name.clone().unwrap_or_default();
            if name.is_empty() {
                return Err(place.error(Some(&format!("{path}.metadata.name")), "Required value"));
            }
            let spec = template.spec.clone().unwrap_or_default();
            let converted = claim_template(&name, false, &template.metadata, &spec, &path)
                .map_err(|e| place.convert_error(e))?;
            volumes.push(PodVolume {
                name,
                source: VolumeSource::Template(Arc::new(converted)),
            });
        }
        if volumes.is_empty() {
            return Ok(());
        }
        let Some(workload) = self.loaded.workloads.get_mut(index) else {
            return Ok(());
        };
        let pod = &mut workload.template;
        let kept: Vec<PodVolume> = pod
            .volumes
            .drain(..)
            .filter(|v| !volumes.iter().any(|t| t.name == v.name))
            .collect();
        volumes.extend(kept);
        pod.volumes = volumes;
        Ok(())
    }
}
