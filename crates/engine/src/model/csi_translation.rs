//! In-tree volume sources and their translation to CSI, as `k8s.io/csi-translation-lib` v0.35
//! (`translate.go`, `plugins/*.go`) does it for the scheduler's NodeVolumeLimits: which sources
//! are migratable, the in-tree plugin and CSI driver names, and the CSI volume handle a source
//! translates to (so a disk used by two pods, inline or through a PersistentVolume, counts once);
//! and for VolumeBinding (`volumebinding/binder.go` `tryTranslatePVToCSI`), the node affinity a
//! bound in-tree PersistentVolume has once translated (`translateTopologyFromInTreeToCSI` of
//! `plugins/in_tree_volume.go`), or the translation's error.

use alloc::format;
use alloc::string::String;

use alloc::vec::Vec;

use super::labels::{Labels, Operator, Requirement};
use super::pod::NodeSelectorTerm;

/// `kubernetes.io/aws-ebs` (`plugins.AWSEBSInTreePluginName`).
pub const AWS_EBS_PLUGIN: &str = "kubernetes.io/aws-ebs";
/// `kubernetes.io/gce-pd`.
pub const GCE_PD_PLUGIN: &str = "kubernetes.io/gce-pd";
/// `kubernetes.io/azure-disk`.
pub const AZURE_DISK_PLUGIN: &str = "kubernetes.io/azure-disk";
/// `kubernetes.io/cinder`.
pub const CINDER_PLUGIN: &str = "kubernetes.io/cinder";
/// `kubernetes.io/azure-file`.
pub const AZURE_FILE_PLUGIN: &str = "kubernetes.io/azure-file";
/// `kubernetes.io/vsphere-volume`.
pub const VSPHERE_PLUGIN: &str = "kubernetes.io/vsphere-volume";
/// `kubernetes.io/portworx-volume`.
pub const PORTWORX_PLUGIN: &str = "kubernetes.io/portworx-volume";

/// The in-tree plugins csi-translation-lib migrates, with their CSI drivers (`inTreePlugins` of
/// `translate.go`; `GetCSINameFromInTreeName`).
pub const MIGRATABLE_PLUGINS: [(&str, &str); 7] = [
    (AWS_EBS_PLUGIN, "ebs.csi.aws.com"),
    (GCE_PD_PLUGIN, "pd.csi.storage.gke.io"),
    (AZURE_DISK_PLUGIN, "disk.csi.azure.com"),
    (CINDER_PLUGIN, "cinder.csi.openstack.org"),
    (AZURE_FILE_PLUGIN, "file.csi.azure.com"),
    (VSPHERE_PLUGIN, "csi.vsphere.vmware.com"),
    (PORTWORX_PLUGIN, "pxd.portworx.com"),
];

/// `IsMigratableIntreePluginByName` and `GetCSINameFromInTreeName`: the CSI driver an in-tree
/// plugin (a StorageClass provisioner) migrates to.
pub fn csi_driver_of_plugin(plugin: &str) -> Option<&'static str> {
    MIGRATABLE_PLUGINS
        .iter()
        .find(|(p, _)| *p == plugin)
        .map(|(_, d)| *d)
}

/// `v1.MigratedPluginsAnnotationKey`: the in-tree plugins a node's CSINode says are migrated.
pub const MIGRATED_PLUGINS_ANNOTATION: &str = "storage.alpha.kubernetes.io/migrated-plugins";

/// `failure-domain.beta.kubernetes.io/zone` (`v1.LabelFailureDomainBetaZone`).
const LABEL_BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// `topology.kubernetes.io/zone`.
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// `failure-domain.beta.kubernetes.io/region` (`v1.LabelFailureDomainBetaRegion`).
const LABEL_BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
/// `topology.kubernetes.io/region`.
const LABEL_REGION: &str = "topology.kubernetes.io/region";
/// `labelMultiZoneDelimiter` (`plugins/const.go`): a label value naming several zones.
const MULTI_ZONE_DELIMITER: &str = "__";

/// `AWSEBSTopologyKey` (`plugins/aws_ebs.go`).
pub const AWS_EBS_TOPOLOGY_KEY: &str = "topology.ebs.csi.aws.com/zone";
/// `GCEPDTopologyKey` (`plugins/gce_pd.go`).
pub const GCE_PD_TOPOLOGY_KEY: &str = "topology.gke.io/zone";
/// `CinderTopologyKey` (`plugins/openstack_cinder.go`).
pub const CINDER_TOPOLOGY_KEY: &str = "topology.cinder.csi.openstack.org/zone";

/// An in-tree volume source csi-translation-lib knows (`CanSupport` / `CanSupportInline`), inline
/// in a pod or in a PersistentVolume, with what its translation reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InTreeSource {
    /// `awsElasticBlockStore`.
    AwsElasticBlockStore {
        /// `volumeID`.
        volume_id: String,
    },
    /// `gcePersistentDisk`.
    GcePersistentDisk {
        /// `pdName`.
        pd_name: String,
    },
    /// `azureDisk`.
    AzureDisk {
        /// `diskURI`.
        disk_uri: String,
        /// `kind` as stored (the API default is `Shared`).
        kind: String,
    },
    /// `cinder`.
    Cinder {
        /// `volumeID`.
        volume_id: String,
    },
    /// `azureFile` (migratable, but the scheduler never counts it: `isCSIMigrationOn`).
    AzureFile,
    /// `vsphereVolume` (likewise never counted).
    VsphereVolume,
    /// `portworxVolume`.
    PortworxVolume {
        /// `volumeID`.
        volume_id: String,
    },
}

impl InTreeSource {
    /// `GetInTreePluginNameFromSpec`.
    pub fn plugin_name(&self) -> &'static str {
        match self {
            InTreeSource::AwsElasticBlockStore { .. } => AWS_EBS_PLUGIN,
            InTreeSource::GcePersistentDisk { .. } => GCE_PD_PLUGIN,
            InTreeSource::AzureDisk { .. } => AZURE_DISK_PLUGIN,
            InTreeSource::Cinder { .. } => CINDER_PLUGIN,
            InTreeSource::AzureFile => AZURE_FILE_PLUGIN,
            InTreeSource::VsphereVolume => VSPHERE_PLUGIN,
            InTreeSource::PortworxVolume { .. } => PORTWORX_PLUGIN,
        }
    }

    /// The CSI driver it migrates to (`GetCSINameFromInTreeName`).
    pub fn driver_name(&self) -> &'static str {
        csi_driver_of_plugin(self.plugin_name()).unwrap_or_default()
    }

    /// `TranslateInTreeInlineVolumeToCSI`: the CSI volume handle of the source inline in a pod,
    /// or the translation's error text. `None` for the sources the scheduler never translates
    /// (azureFile, vsphereVolume: their migration is never on in `isCSIMigrationOn`).
    pub fn inline_handle(&self) -> Option<Result<String, String>> {
        Some(match self {
            // aws_ebs.go: KubernetesVolumeIDToEBSVolumeID.
            InTreeSource::AwsElasticBlockStore { volume_id } => ebs_volume_id(volume_id)
                .map_err(|e| format!("failed to translate Kubernetes ID to EBS Volume ID {e}")),
            // gce_pd.go: the zonal format with project and zone UNSPECIFIED.
            InTreeSource::GcePersistentDisk { pd_name } => Ok(format!(
                "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{pd_name}"
            )),
            InTreeSource::AzureDisk { disk_uri, kind } => azure_disk_handle(disk_uri, kind),
            // openstack_cinder.go, portworx.go: the volume ID.
            InTreeSource::Cinder { volume_id } | InTreeSource::PortworxVolume { volume_id } => {
                Ok(volume_id.clone())
            }
            InTreeSource::AzureFile | InTreeSource::VsphereVolume => return None,
        })
    }

    /// `TranslateInTreePVToCSI`: the CSI volume handle of the source in a PersistentVolume with
    /// `labels`, or the translation's error text; `None` as for [`InTreeSource::inline_handle`].
    pub fn volume_handle(&self, labels: &Labels) -> Option<Result<String, String>> {
        match self {
            // gce_pd.go: the zone from the beta zone label, else the GA one; several zones
            // (`__`-separated) make a regional handle.
            InTreeSource::GcePersistentDisk { pd_name } => {
                let zones = labels
                    .get(LABEL_BETA_ZONE)
                    .filter(|z| !z.is_empty())
                    .or_else(|| labels.get(LABEL_ZONE))
                    .map(String::as_str)
                    .unwrap_or("");
                let parts: alloc::vec::Vec<&str> = zones.split(MULTI_ZONE_DELIMITER).collect();
                Some(if parts.len() == 1 && !parts[0].is_empty() {
                    Ok(format!(
                        "projects/UNSPECIFIED/zones/{}/disks/{pd_name}",
                        parts[0]
                    ))
                } else if parts.len() > 1 {
                    gce_region(&parts)
                        .map(|region| {
                            format!("projects/UNSPECIFIED/regions/{region}/disks/{pd_name}")
                        })
                        .map_err(|e| format!("failed to get region from zones: {e}"))
                } else {
                    Ok(format!(
                        "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{pd_name}"
                    ))
                })
            }
            // The others translate a volume as they translate an inline source (topology
            // translation never fails).
            other => other.inline_handle(),
        }
    }
}

/// azure_disk.go: only `Managed` disks (any case) migrate; the handle is the disk URI.
fn azure_disk_handle(disk_uri: &str, kind: &str) -> Result<String, String> {
    if !kind.eq_ignore_ascii_case("Managed") {
        return Err(format!("kind({kind}) is not supported in csi migration"));
    }
    Ok(String::from(disk_uri))
}

/// gce_pd.go `gceGetRegionFromZones`: every zone `{locale}-{region}-{zone}` of one region. The
/// error prints the set of regions as Go's `%v` prints a `sets.String` (`map[a:{} b:{}]`, keys
/// sorted).
fn gce_region(zones: &[&str]) -> Result<String, String> {
    let mut regions = alloc::collections::BTreeSet::new();
    if zones.is_empty() {
        return Err(String::from("no zones specified"));
    }
    for zone in zones {
        let parts: alloc::vec::Vec<&str> = zone.split('-').collect();
        if parts.len() != 3 {
            return Err(format!(
                "zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}"
            ));
        }
        regions.insert(format!("{}-{}", parts[0], parts[1]));
    }
    if regions.len() != 1 {
        let set: alloc::vec::Vec<String> = regions.iter().map(|r| format!("{r}:{{}}")).collect();
        return Err(format!(
            "multiple or no regions gotten from zones, got: map[{}]",
            set.join(" ")
        ));
    }
    Ok(regions.into_iter().next().unwrap_or_default())
}

/// aws_ebs.go `KubernetesVolumeIDToEBSVolumeID`: a bare ID is kept; `aws://<zone>/<id>` is
/// parsed as a URL (`net/url.Parse`) and its path must be `vol-...`.
pub fn ebs_volume_id(kubernetes_id: &str) -> Result<String, String> {
    let Some(rest) = kubernetes_id.strip_prefix("aws://") else {
        return Ok(String::from(kubernetes_id));
    };
    let path = parse_url_path(rest).map_err(|e| {
        format!("Invalid disk name ({kubernetes_id}): parse {kubernetes_id:?}: {e}")
    })?;
    let id = path.trim_matches('/');
    if !id.starts_with("vol-") || id.contains('/') {
        return Err(format!("Invalid format for AWS volume ({kubernetes_id})"));
    }
    Ok(String::from(id))
}

/// Whether an `aws://` volume ID holds characters whose handling by Go's `net/url` the
/// translation here only approximates (the loader warns).
pub fn ebs_volume_id_is_approximate(kubernetes_id: &str) -> bool {
    kubernetes_id.strip_prefix("aws://").is_some_and(|rest| {
        !rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/'))
    })
}

/// The unescaped path of `aws://<rest>` as `net/url.Parse` finds it (fragment and query cut off;
/// the authority up to the first `/`), with the common errors: control characters, bad percent
/// escapes, a non-numeric port, characters a host may not hold.
fn parse_url_path(rest: &str) -> Result<String, String> {
    let rest = rest.split('#').next().unwrap_or("");
    if rest.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(String::from("net/url: invalid control character in URL"));
    }
    let rest = rest.split('?').next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or("");
    if !host.starts_with('[')
        && let Some(i) = host.rfind(':')
    {
        let port = &host[i..];
        if !port[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("invalid port {port:?} after host"));
        }
    }
    for c in host.chars() {
        let allowed =
            c.is_ascii_alphanumeric() || !c.is_ascii() || "-._~!$&'()*+,;=:[]<>\"%".contains(c);
        if !allowed {
            return Err(format!("invalid character \"{c}\" in host name"));
        }
    }
    unescape(host)?;
    unescape(path)
}

/// Percent-decoding as `net/url` does it, with its error for a bad escape.
fn unescape(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = alloc::vec::Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| (b as char).to_digit(16);
            match (bytes.get(i + 1), bytes.get(i + 2)) {
                (Some(&a), Some(&b)) if hex(a).is_some() && hex(b).is_some() => {
                    out.push((hex(a).unwrap_or(0) * 16 + hex(b).unwrap_or(0)) as u8);
                    i += 3;
                }
                _ => {
                    let end = (i + 3).min(bytes.len());
                    return Err(format!(
                        "invalid URL escape {:?}",
                        String::from_utf8_lossy(&bytes[i..end])
                    ));
                }
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `isCSIMigrationOn` (`nodevolumelimits/utils.go`): on a node with a CSINode, migration is on
/// for AWS EBS, GCE PD, Azure Disk and Cinder (their gates are GA and locked), and for Portworx
/// (`CSIMigrationPortworx`, GA and locked on in v1.35) only where the CSINode's
/// `storage.alpha.kubernetes.io/migrated-plugins` annotation lists it; never for other plugins
/// (Azure File and vSphere included) nor without a CSINode.
pub fn is_csi_migration_on(
    csi_node_exists: bool,
    migrated_plugins: &[String],
    plugin: &str,
) -> bool {
    if !csi_node_exists || plugin.is_empty() {
        return false;
    }
    match plugin {
        AWS_EBS_PLUGIN | GCE_PD_PLUGIN | AZURE_DISK_PLUGIN | CINDER_PLUGIN => true,
        PORTWORX_PLUGIN => migrated_plugins.iter().any(|p| p == plugin),
        _ => false,
    }
}

/// Whether VolumeBinding translates a PersistentVolume of the in-tree `plugin` on a node whose
/// CSINode's `storage.alpha.kubernetes.io/migrated-plugins` annotation lists `migrated_plugins`
/// (`None`: no CSINode, or one without the annotation). `volumebinding/binder.go`:
/// `isCSIMigrationOnForPlugin` is true for AWS EBS, GCE PD, Azure Disk and Cinder, and for
/// Portworx under `CSIMigrationPortworx` (GA and locked on in v1.35, `pkg/features/kube_features.go`),
/// never for Azure File or vSphere; `isPluginMigratedToCSIOnNode` needs the annotation, split on
/// commas as written (no trimming), to list the plugin.
pub fn volume_binding_translates(migrated_plugins: Option<&[String]>, plugin: &str) -> bool {
    is_csi_migration_on_for_plugin(plugin)
        && migrated_plugins.is_some_and(|plugins| plugins.iter().any(|p| p == plugin))
}

/// `isCSIMigrationOnForPlugin` (`volumebinding/binder.go`): AWS EBS, GCE PD, Azure Disk, Cinder,
/// and Portworx (`CSIMigrationPortworx` is GA and locked on in v1.35).
pub fn is_csi_migration_on_for_plugin(plugin: &str) -> bool {
    matches!(
        plugin,
        AWS_EBS_PLUGIN | GCE_PD_PLUGIN | AZURE_DISK_PLUGIN | CINDER_PLUGIN | PORTWORX_PLUGIN
    )
}

impl InTreeSource {
    /// `TranslateInTreePVToCSI` (`translate.go`, `plugins/*.go`) as VolumeBinding reads its result
    /// (`checkBoundClaims` then calls `CheckNodeAffinity`): the node affinity (required terms) of
    /// the translated PersistentVolume with `labels` and `node_affinity`, or the translation's
    /// error text (without `tryTranslatePVToCSI`'s `could not translate pv: ` prefix).
    ///
    /// - AWS EBS (`aws_ebs.go`): the volume ID must translate (`KubernetesVolumeIDToEBSVolumeID`),
    ///   then the topology translates to [`AWS_EBS_TOPOLOGY_KEY`].
    /// - GCE PD (`gce_pd.go`): a multi-zone (`__`) zone label (beta first, else GA) must name zones
    ///   of one region (`gceGetRegionFromZones`), then the topology translates to
    ///   [`GCE_PD_TOPOLOGY_KEY`].
    /// - Cinder (`openstack_cinder.go`): the topology translates to [`CINDER_TOPOLOGY_KEY`].
    /// - Azure Disk (`azure_disk.go`): only a `Managed` kind translates; the node affinity is kept.
    /// - Portworx (`portworx.go`): the node affinity is kept.
    /// - Azure File and vSphere: VolumeBinding never translates them
    ///   ([`volume_binding_translates`]); the node affinity is returned as written.
    pub fn translate_pv_node_affinity(
        &self,
        labels: &Labels,
        node_affinity: Option<&[NodeSelectorTerm]>,
    ) -> Result<Option<Vec<NodeSelectorTerm>>, String> {
        let kept = || node_affinity.map(<[NodeSelectorTerm]>::to_vec);
        match self {
            InTreeSource::AwsElasticBlockStore { volume_id } => {
                ebs_volume_id(volume_id).map_err(|e| {
                    format!("failed to translate Kubernetes ID to EBS Volume ID {e}")
                })?;
                Ok(translate_topology(
                    labels,
                    node_affinity,
                    AWS_EBS_TOPOLOGY_KEY,
                ))
            }
            InTreeSource::GcePersistentDisk { .. } => {
                if let Some(Err(e)) = self.volume_handle(labels) {
                    return Err(e);
                }
                Ok(translate_topology(
                    labels,
                    node_affinity,
                    GCE_PD_TOPOLOGY_KEY,
                ))
            }
            InTreeSource::Cinder { .. } => Ok(translate_topology(
                labels,
                node_affinity,
                CINDER_TOPOLOGY_KEY,
            )),
            InTreeSource::AzureDisk { disk_uri, kind } => {
                azure_disk_handle(disk_uri, kind)?;
                Ok(kept())
            }
            InTreeSource::PortworxVolume { .. }
            | InTreeSource::AzureFile
            | InTreeSource::VsphereVolume => Ok(kept()),
        }
    }
}

/// `translateTopologyFromInTreeToCSI` (`plugins/in_tree_volume.go`): the zone key the volume uses
/// (`getTopologyLabel`: the GA zone key in the node affinity, else the beta one there, else the GA
/// zone label, else the beta one, else GA) is renamed to `csi_key` in every term when some
/// expression on it has values (`getTopologyValues`, `replaceTopology`); otherwise the volume's
/// label of that key, split on `__`, trimmed, deduplicated and sorted (`addTopology`), is added to
/// every term (to one new term when there is none) as `csi_key In [zones]`, nothing when no zone is
/// left. With the beta zone key, a beta region key with values is renamed to the GA one.
fn translate_topology(
    labels: &Labels,
    node_affinity: Option<&[NodeSelectorTerm]>,
    csi_key: &str,
) -> Option<Vec<NodeSelectorTerm>> {
    let mut terms: Option<Vec<NodeSelectorTerm>> = node_affinity.map(<[NodeSelectorTerm]>::to_vec);
    let current = terms.as_deref().unwrap_or(&[]);
    let has_key = |key: &str| {
        current
            .iter()
            .any(|t| t.match_expressions.iter().any(|r| r.key == key))
    };
    let (zone_key, region_key) = if has_key(LABEL_ZONE) {
        (LABEL_ZONE, LABEL_REGION)
    } else if has_key(LABEL_BETA_ZONE) {
        (LABEL_BETA_ZONE, LABEL_BETA_REGION)
    } else if labels.contains_key(LABEL_ZONE) {
        (LABEL_ZONE, LABEL_REGION)
    } else if labels.contains_key(LABEL_BETA_ZONE) {
        (LABEL_BETA_ZONE, LABEL_BETA_REGION)
    } else {
        (LABEL_ZONE, LABEL_REGION)
    };
    if has_values(current, zone_key) {
        rename_key(terms.as_deref_mut().unwrap_or(&mut []), zone_key, csi_key);
    } else if let Some(label) = labels.get(zone_key) {
        let zones: alloc::collections::BTreeSet<String> = label
            .split(MULTI_ZONE_DELIMITER)
            .map(str::trim)
            .filter(|z| !z.is_empty())
            .map(String::from)
            .collect();
        if !zones.is_empty() {
            let list = terms.get_or_insert_with(Vec::new);
            if list.is_empty() {
                list.push(NodeSelectorTerm::default());
            }
            let topology = Requirement {
                key: String::from(csi_key),
                operator: Operator::In,
                values: zones.into_iter().collect(),
            };
            for term in list.iter_mut() {
                term.match_expressions.push(topology.clone());
            }
        }
    }
    if region_key == LABEL_BETA_REGION && has_values(terms.as_deref().unwrap_or(&[]), region_key) {
        rename_key(
            terms.as_deref_mut().unwrap_or(&mut []),
            LABEL_BETA_REGION,
            LABEL_REGION,
        );
    }
    terms
}

/// `getTopologyValues` is not empty: some expression on `key` has a value.
fn has_values(terms: &[NodeSelectorTerm], key: &str) -> bool {
    terms.iter().any(|t| {
        t.match_expressions
            .iter()
            .any(|r| r.key == key && !r.values.is_empty())
    })
}

/// `replaceTopology`: every expression on `old` is on `new` instead.
fn rename_key(terms: &mut [NodeSelectorTerm], old: &str, new: &str) {
    for term in terms {
        for requirement in &mut term.match_expressions {
            if requirement.key == old {
                requirement.key = String::from(new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ebs_ids() {
        assert_eq!(ebs_volume_id("vol-1").unwrap(), "vol-1");
        assert_eq!(ebs_volume_id("anything/at all").unwrap(), "anything/at all");
        assert_eq!(ebs_volume_id("aws://us-east-1a/vol-12").unwrap(), "vol-12");
        assert_eq!(ebs_volume_id("aws:///vol-12").unwrap(), "vol-12");
        assert_eq!(
            ebs_volume_id("aws://vol-12").unwrap_err(),
            "Invalid format for AWS volume (aws://vol-12)"
        );
        assert!(ebs_volume_id("aws://zone/vol-%zz").is_err());
        assert_eq!(ebs_volume_id("aws://zone/vol-%41").unwrap(), "vol-A");
        assert!(ebs_volume_id_is_approximate("aws://zone/vol-%41"));
        assert!(!ebs_volume_id_is_approximate("aws://zone/vol-1"));
    }

    #[test]
    fn gce_handles() {
        let pd = InTreeSource::GcePersistentDisk {
            pd_name: String::from("d"),
        };
        let mut labels = Labels::new();
        assert_eq!(
            pd.volume_handle(&labels).unwrap().unwrap(),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"
        );
        labels.insert(String::from(LABEL_ZONE), String::from("us-central1-a"));
        assert_eq!(
            pd.volume_handle(&labels).unwrap().unwrap(),
            "projects/UNSPECIFIED/zones/us-central1-a/disks/d"
        );
        labels.insert(
            String::from(LABEL_BETA_ZONE),
            String::from("us-central1-a__us-central1-b"),
        );
        assert_eq!(
            pd.volume_handle(&labels).unwrap().unwrap(),
            "projects/UNSPECIFIED/regions/us-central1/disks/d"
        );
        assert_eq!(
            pd.inline_handle().unwrap().unwrap(),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"
        );
    }

    #[test]
    fn azure_disk_kinds_and_migration() {
        let disk = |kind: &str| InTreeSource::AzureDisk {
            disk_uri: String::from("uri"),
            kind: String::from(kind),
        };
        assert_eq!(disk("managed").inline_handle().unwrap().unwrap(), "uri");
        assert_eq!(
            disk("Shared").inline_handle().unwrap().unwrap_err(),
            "kind(Shared) is not supported in csi migration"
        );
        assert!(InTreeSource::AzureFile.inline_handle().is_none());
        assert!(is_csi_migration_on(true, &[], AWS_EBS_PLUGIN));
        assert!(!is_csi_migration_on(false, &[], AWS_EBS_PLUGIN));
        assert!(!is_csi_migration_on(true, &[], PORTWORX_PLUGIN));
        assert!(is_csi_migration_on(
            true,
            &[String::from(PORTWORX_PLUGIN)],
            PORTWORX_PLUGIN
        ));
        assert!(!is_csi_migration_on(true, &[], AZURE_FILE_PLUGIN));
    }

    fn requirement(key: &str, operator: Operator, values: &[&str]) -> Requirement {
        Requirement {
            key: String::from(key),
            operator,
            values: values.iter().map(|v| String::from(*v)).collect(),
        }
    }

    fn term(expressions: &[Requirement]) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: expressions.to_vec(),
            ..NodeSelectorTerm::default()
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (String::from(*k), String::from(*v)))
            .collect()
    }

    fn gce() -> InTreeSource {
        InTreeSource::GcePersistentDisk {
            pd_name: String::from("test-disk"),
        }
    }

    // binder_test.go TestFindPodVolumesWithCSIMigration (makeTestPVForCSIMigration): a GCE PD
    // with the beta zone label and no node affinity gets topology.gke.io/zone In [us-east-1].
    #[test]
    fn zone_label_becomes_csi_topology() {
        let l = labels(&[
            (LABEL_BETA_ZONE, "us-east-1"),
            (LABEL_BETA_REGION, "us-east-1a"),
        ]);
        let translated = gce().translate_pv_node_affinity(&l, None).unwrap();
        assert_eq!(
            translated,
            Some(alloc::vec![term(&[requirement(
                GCE_PD_TOPOLOGY_KEY,
                Operator::In,
                &["us-east-1"]
            )])])
        );
        // No terms at all: one term is made; every existing term gets the expression.
        assert_eq!(
            gce().translate_pv_node_affinity(&l, Some(&[])).unwrap(),
            translated
        );
        let other = requirement("rack", Operator::Exists, &[]);
        let two = [term(core::slice::from_ref(&other)), term(&[])];
        let out = InTreeSource::Cinder {
            volume_id: String::from("v"),
        }
        .translate_pv_node_affinity(&labels(&[(LABEL_ZONE, " b__a__b__ ")]), Some(&two))
        .unwrap()
        .unwrap();
        let zones = requirement(CINDER_TOPOLOGY_KEY, Operator::In, &["a", "b"]);
        assert_eq!(
            out,
            alloc::vec![term(&[other, zones.clone()]), term(&[zones])]
        );
    }

    // in_tree_volume.go translateTopologyFromInTreeToCSI: in-tree topology wins over labels; the
    // beta region key is renamed to the GA one along with a beta zone key.
    #[test]
    fn node_affinity_keys_are_renamed() {
        let ebs = InTreeSource::AwsElasticBlockStore {
            volume_id: String::from("vol-1"),
        };
        let na = [term(&[
            requirement(LABEL_BETA_ZONE, Operator::In, &["z1"]),
            requirement(LABEL_BETA_REGION, Operator::In, &["r1"]),
        ])];
        let out = ebs
            .translate_pv_node_affinity(&labels(&[(LABEL_BETA_ZONE, "z9")]), Some(&na))
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            alloc::vec![term(&[
                requirement(AWS_EBS_TOPOLOGY_KEY, Operator::In, &["z1"]),
                requirement(LABEL_REGION, Operator::In, &["r1"]),
            ])]
        );
        // A GA zone key without values in the node affinity: the GA zone label is read, and the
        // beta one is not.
        let exists = [term(&[requirement(LABEL_ZONE, Operator::Exists, &[])])];
        let out = ebs
            .translate_pv_node_affinity(&labels(&[(LABEL_BETA_ZONE, "z9")]), Some(&exists))
            .unwrap();
        assert_eq!(out, Some(exists.to_vec()));
        // No zone anywhere: unchanged.
        assert_eq!(
            ebs.translate_pv_node_affinity(&Labels::new(), None)
                .unwrap(),
            None
        );
    }

    #[test]
    fn translation_errors() {
        let l = labels(&[(LABEL_ZONE, "us-central1-a__us-east1-b")]);
        assert_eq!(
            gce().translate_pv_node_affinity(&l, None).unwrap_err(),
            "failed to get region from zones: multiple or no regions gotten from zones, got: map[us-central1:{} us-east1:{}]"
        );
        let l = labels(&[(LABEL_ZONE, "us-central1-a__bad")]);
        assert_eq!(
            gce().translate_pv_node_affinity(&l, None).unwrap_err(),
            "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: bad"
        );
        let shared = InTreeSource::AzureDisk {
            disk_uri: String::from("uri"),
            kind: String::from("Shared"),
        };
        assert_eq!(
            shared
                .translate_pv_node_affinity(&Labels::new(), None)
                .unwrap_err(),
            "kind(Shared) is not supported in csi migration"
        );
        let ebs = InTreeSource::AwsElasticBlockStore {
            volume_id: String::from("aws://vol-12"),
        };
        assert_eq!(
            ebs.translate_pv_node_affinity(&Labels::new(), None)
                .unwrap_err(),
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://vol-12)"
        );
        // Azure Disk and Portworx keep their node affinity (no topology translation).
        let managed = InTreeSource::AzureDisk {
            disk_uri: String::from("uri"),
            kind: String::from("Managed"),
        };
        let l = labels(&[(LABEL_ZONE, "z")]);
        assert_eq!(managed.translate_pv_node_affinity(&l, None).unwrap(), None);
    }

    #[test]
    fn volume_binding_migration() {
        let gce_listed = [String::from(GCE_PD_PLUGIN)];
        assert!(volume_binding_translates(Some(&gce_listed), GCE_PD_PLUGIN));
        assert!(!volume_binding_translates(
            Some(&gce_listed),
            AWS_EBS_PLUGIN
        ));
        assert!(!volume_binding_translates(None, GCE_PD_PLUGIN));
        assert!(!volume_binding_translates(Some(&[]), GCE_PD_PLUGIN));
        let spaced = [String::from(" kubernetes.io/gce-pd")];
        assert!(!volume_binding_translates(Some(&spaced), GCE_PD_PLUGIN));
        let listed = [
            String::from(AZURE_FILE_PLUGIN),
            String::from(PORTWORX_PLUGIN),
        ];
        assert!(!volume_binding_translates(Some(&listed), AZURE_FILE_PLUGIN));
        assert!(volume_binding_translates(Some(&listed), PORTWORX_PLUGIN));
    }
}
