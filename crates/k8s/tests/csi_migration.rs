//! NodeVolumeLimits on loaded objects: in-tree volumes counted against the CSI driver they
//! migrate to (`nodevolumelimits/csi.go`, `utils.go` `isCSIMigrationOn`, csi-translation-lib),
//! the CSINode's migrated-plugins annotation, failed translations and the loader's warnings;
//! VolumeBinding checking a bound in-tree PersistentVolume translated to CSI (`binder.go`
//! `tryTranslatePVToCSI`) on nodes whose CSINode lists its plugin as migrated.

mod common;

use common::*;
use spreadlab_engine::framework::runtime::{run_filter, run_pre_filter};
use spreadlab_engine::framework::{Code, PluginName, PodInfo, Profile, Snapshot, Status};

/// Node `with-px` has a CSINode listing Portworx as migrated; `plain` a CSINode without the
/// annotation; `bare` none. Every driver has an attach limit of 1.
const NODES: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: with-px}
---
apiVersion: v1
kind: Node
metadata: {name: plain}
---
apiVersion: v1
kind: Node
metadata: {name: bare}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: with-px
  annotations: {storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume"}
spec:
  drivers:
  - {name: pxd.portworx.com, nodeID: with-px, allocatable: {count: 1}}
  - {name: disk.csi.azure.com, nodeID: with-px, allocatable: {count: 1}}
  - {name: pd.csi.storage.gke.io, nodeID: with-px, allocatable: {count: 1}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: plain}
spec:
  drivers:
  - {name: pxd.portworx.com, nodeID: plain, allocatable: {count: 1}}
  - {name: disk.csi.azure.com, nodeID: plain, allocatable: {count: 1}}
  - {name: pd.csi.storage.gke.io, nodeID: plain, allocatable: {count: 1}}
"#;

/// Loads `NODES` and `extra`, then runs NodeVolumeLimits' PreFilter and Filter for `pod` (a Pod
/// as JSON) on every node, by name.
fn filter(extra: &str, pod: serde_json::Value) -> (Status, Vec<(String, Status)>) {
    let loaded = load_text("csi.yaml", &format!("{NODES}---\n{extra}"));
    assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).unwrap();
    let pod = PodInfo::new(spreadlab_k8s::convert_pod(&pod, "default").unwrap());
    let (snapshot, _) = Snapshot::new(&loaded.cluster, spreadlab_engine::KubeVersion::DEFAULT);
    let profile = Profile::single(PluginName::NodeVolumeLimits);
    let (state, pre) = run_pre_filter(&profile, &snapshot, &pod);
    let statuses = (0..snapshot.num_nodes())
        .map(|i| {
            let name = snapshot.nodes[i].node.name.clone();
            (name, run_filter(&profile, &state, &snapshot, &pod, i))
        })
        .collect();
    (pre.status, statuses)
}

fn code(statuses: &[(String, Status)], node: &str) -> Code {
    statuses.iter().find(|(n, _)| n == node).unwrap().1.code
}

fn pod_with(volume: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "new", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [volume]}})
}

const PORTWORX_ON_EVERY_NODE: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: px-a, namespace: default}
spec:
  nodeName: with-px
  containers: [{name: c, image: i}]
  volumes: [{name: d, portworxVolume: {volumeID: a}}]
---
apiVersion: v1
kind: Pod
metadata: {name: px-b, namespace: default}
spec:
  nodeName: plain
  containers: [{name: c, image: i}]
  volumes: [{name: d, portworxVolume: {volumeID: a}}]
"#;

/// Portworx counts only where the CSINode's annotation lists it; a volume two pods share
/// counts once.
#[test]
fn portworx_counts_where_the_annotation_says_it_is_migrated() {
    let (pre, statuses) = filter(
        PORTWORX_ON_EVERY_NODE,
        pod_with(serde_json::json!({"name": "d", "portworxVolume": {"volumeID": "b"}})),
    );
    assert_eq!(pre.code, Code::Success);
    assert_eq!(code(&statuses, "with-px"), Code::Unschedulable);
    assert_eq!(code(&statuses, "plain"), Code::Success);
    assert_eq!(code(&statuses, "bare"), Code::Success);
    // The same volume as the pod already there: not new, fits.
    let (_, statuses) = filter(
        PORTWORX_ON_EVERY_NODE,
        pod_with(serde_json::json!({"name": "d", "portworxVolume": {"volumeID": "a"}})),
    );
    assert_eq!(code(&statuses, "with-px"), Code::Success);
}

/// An inline Azure Disk of the API's default kind (Shared) cannot be translated: Filter fails
/// with upstream's error where migration is on (any node with a CSINode), and the loader warns.
#[test]
fn an_unmanaged_azure_disk_is_an_error_where_migration_is_on() {
    let existing = r#"
apiVersion: v1
kind: Pod
metadata: {name: azure, namespace: default}
spec:
  nodeName: bare
  containers: [{name: c, image: i}]
  volumes: [{name: disk, azureDisk: {diskName: d, diskURI: uri}}]
"#;
    let loaded = load_text("azure.yaml", existing);
    let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("spec.volumes[0]") && w.contains("kind(Shared)")),
        "{warnings:#?}"
    );
    let (_, statuses) = filter(
        "",
        pod_with(
            serde_json::json!({"name": "disk", "azureDisk": {"diskName": "d", "diskURI": "uri"}}),
        ),
    );
    let status = &statuses.iter().find(|(n, _)| n == "plain").unwrap().1;
    assert_eq!(status.code, Code::Error);
    assert_eq!(
        status.reason_strings(),
        vec![
            "converting volume(disk) from inline to csi: kind(Shared) is not supported in csi migration"
        ]
    );
    assert_eq!(code(&statuses, "bare"), Code::Success);
    // A managed disk is counted against disk.csi.azure.com (limit 1, none attached: fits).
    let (_, statuses) = filter(
        "",
        pod_with(serde_json::json!({"name": "disk",
            "azureDisk": {"diskName": "d", "diskURI": "uri", "kind": "Managed"}})),
    );
    assert_eq!(code(&statuses, "plain"), Code::Success);
}

/// A GCE PD PersistentVolume translates with its zone; a claim of a class with an in-tree
/// provisioner counts as its CSI driver (gce-pd) or never (azure-file).
#[test]
fn in_tree_volumes_and_provisioners_count_as_their_csi_driver() {
    let objects = r#"
apiVersion: v1
kind: PersistentVolume
metadata: {name: pd, labels: {topology.kubernetes.io/zone: us-central1-a}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  gcePersistentDisk: {pdName: disk-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: bound, namespace: default}
spec: {volumeName: pd, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: user, namespace: default}
spec:
  nodeName: plain
  containers: [{name: c, image: i}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: bound}}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gce}
provisioner: kubernetes.io/gce-pd
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: files}
provisioner: kubernetes.io/azure-file
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: new-gce, namespace: default}
spec: {storageClassName: gce, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: new-files, namespace: default}
spec: {storageClassName: files, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"#;
    let claim = |name: &str| {
        pod_with(serde_json::json!({"name": "v", "persistentVolumeClaim": {"claimName": name}}))
    };
    // The node already attaches disk-1 (limit 1): a second gce-pd volume does not fit.
    let (_, statuses) = filter(objects, claim("new-gce"));
    assert_eq!(code(&statuses, "plain"), Code::Unschedulable);
    assert_eq!(code(&statuses, "with-px"), Code::Success);
    let (_, statuses) = filter(objects, claim("new-files"));
    assert_eq!(code(&statuses, "plain"), Code::Success);
    // The same PersistentVolume again: counted once.
    let (_, statuses) = filter(objects, claim("bound"));
    assert_eq!(code(&statuses, "plain"), Code::Success);
    // Inline, the same disk translates without a zone (csi-translation-lib): another handle.
    let (_, statuses) = filter(
        objects,
        pod_with(serde_json::json!({"name": "v", "gcePersistentDisk": {"pdName": "disk-1"}})),
    );
    assert_eq!(code(&statuses, "plain"), Code::Unschedulable);
}

/// A pod on the node whose ephemeral claim it does not own makes Filter fail with
/// `VolumeIsForPod`'s error, even for a pod with other volumes.
#[test]
fn a_foreign_ephemeral_claim_on_the_node_is_an_error() {
    let objects = r#"
apiVersion: v1
kind: Pod
metadata: {name: owner, namespace: default, uid: u-1}
spec:
  nodeName: plain
  containers: [{name: c, image: i}]
  volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: owner-scratch, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"#;
    let (_, statuses) = filter(
        objects,
        pod_with(serde_json::json!({"name": "d", "portworxVolume": {"volumeID": "b"}})),
    );
    let status = &statuses.iter().find(|(n, _)| n == "plain").unwrap().1;
    // Portworx is not migrated on `plain`: no new volume, so the node's pods are not read.
    assert_eq!(status.code, Code::Success);
    let (_, statuses) = filter(
        objects,
        pod_with(
            serde_json::json!({"name": "d", "azureDisk": {"diskName": "d", "diskURI": "u", "kind": "Managed"}}),
        ),
    );
    let status = &statuses.iter().find(|(n, _)| n == "plain").unwrap().1;
    assert_eq!(status.code, Code::Error);
    assert_eq!(
        status.reason_strings(),
        vec!["PVC default/owner-scratch was not created for pod default/owner (pod is not owner)"]
    );
}

/// Nodes for VolumeBinding: `z1-migrated` in us-east-1 and `z2-migrated` in us-east-2 (label
/// `topology.gke.io/zone`) have CSINodes listing GCE PD as migrated; `z2-plain` a CSINode without
/// the annotation; `z2-bare` none; `z2-spaced` lists it after a space (binder.go splits the
/// annotation on commas and does not trim).
const ZONED_NODES: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: z1-migrated, labels: {topology.gke.io/zone: us-east-1}}
---
apiVersion: v1
kind: Node
metadata: {name: z2-migrated, labels: {topology.gke.io/zone: us-east-2}}
---
apiVersion: v1
kind: Node
metadata: {name: z2-plain, labels: {topology.gke.io/zone: us-east-2}}
---
apiVersion: v1
kind: Node
metadata: {name: z2-bare, labels: {topology.gke.io/zone: us-east-2}}
---
apiVersion: v1
kind: Node
metadata: {name: z2-spaced, labels: {topology.gke.io/zone: us-east-2}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: z1-migrated
  annotations: {storage.alpha.kubernetes.io/migrated-plugins: kubernetes.io/gce-pd}
spec: {drivers: []}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: z2-migrated
  annotations: {storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"}
spec: {drivers: []}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: z2-plain}
spec: {drivers: []}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: z2-spaced
  annotations: {storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/aws-ebs, kubernetes.io/gce-pd"}
spec: {drivers: []}
"#;

/// A GCE PD volume with `labels`, bound to claim `default/data` (which the pod uses).
fn bound_pd(labels: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: PersistentVolume
metadata: {{name: pd, labels: {labels}}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  claimRef: {{namespace: default, name: data, uid: data-uid}}
  gcePersistentDisk: {{pdName: disk-1}}
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
  uid: data-uid
  annotations: {{pv.kubernetes.io/bind-completed: "yes"}}
spec: {{volumeName: pd, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
status: {{phase: Bound}}
"#
    )
}

/// Loads `ZONED_NODES` and `extra`, runs VolumeBinding for a pod using claim `data` on every
/// node; returns the loader's warnings and each node's Filter status.
fn volume_binding(extra: &str) -> (Vec<String>, Vec<(String, Status)>) {
    let loaded = load_text("vb.yaml", &format!("{ZONED_NODES}---\n{extra}"));
    assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
    let warnings = loaded.warnings.iter().map(|w| w.to_string()).collect();
    let pod =
        pod_with(serde_json::json!({"name": "v", "persistentVolumeClaim": {"claimName": "data"}}));
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).unwrap();
    let pod = PodInfo::new(spreadlab_k8s::convert_pod(&pod, "default").unwrap());
    let (snapshot, _) = Snapshot::new(&loaded.cluster, spreadlab_engine::KubeVersion::DEFAULT);
    let profile = Profile::single(PluginName::VolumeBinding);
    let (state, pre) = run_pre_filter(&profile, &snapshot, &pod);
    assert_eq!(pre.status.code, Code::Success, "{:?}", pre.status);
    let statuses = (0..snapshot.num_nodes())
        .map(|i| {
            let name = snapshot.nodes[i].node.name.clone();
            (name, run_filter(&profile, &state, &snapshot, &pod, i))
        })
        .collect();
    (warnings, statuses)
}

fn status<'a>(statuses: &'a [(String, Status)], node: &str) -> &'a Status {
    &statuses.iter().find(|(n, _)| n == node).unwrap().1
}

/// binder.go `checkBoundClaims` / `tryTranslatePVToCSI`: on a node whose CSINode lists
/// kubernetes.io/gce-pd as migrated, the bound GCE PD is checked translated (gce_pd.go,
/// in_tree_volume.go: its beta zone label becomes `topology.gke.io/zone In [us-east-1]`), so a
/// node in another zone is rejected with `ErrReasonNodeConflict`; elsewhere the volume has no
/// node affinity and fits. A bound volume draws no loader warning.
#[test]
fn a_bound_gce_pd_is_checked_translated_where_the_csinode_says_migrated() {
    let (warnings, statuses) = volume_binding(&bound_pd(
        "{failure-domain.beta.kubernetes.io/zone: us-east-1, failure-domain.beta.kubernetes.io/region: us-east-1a}",
    ));
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert_eq!(status(&statuses, "z1-migrated").code, Code::Success);
    let rejected = status(&statuses, "z2-migrated");
    assert_eq!(rejected.code, Code::UnschedulableAndUnresolvable);
    assert_eq!(
        rejected.reason_strings(),
        vec!["node(s) didn't match PersistentVolume's node affinity"]
    );
    for node in ["z2-plain", "z2-bare", "z2-spaced"] {
        assert_eq!(status(&statuses, node).code, Code::Success, "{node}");
    }
    // Node affinity on the GA zone key is renamed to the CSI key (replaceTopology): us-east-2
    // nodes with only topology.gke.io/zone match where migrated, and fail as written elsewhere.
    let (_, statuses) = volume_binding(&bound_pd("{}").replace(
        "  gcePersistentDisk:",
        "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-2]}]}]}}\n  gcePersistentDisk:",
    ));
    assert_eq!(status(&statuses, "z2-migrated").code, Code::Success);
    assert_eq!(
        status(&statuses, "z1-migrated").code,
        Code::UnschedulableAndUnresolvable
    );
    assert_eq!(
        status(&statuses, "z2-plain").code,
        Code::UnschedulableAndUnresolvable
    );
}

/// A regional zone label across two regions cannot be translated (gce_pd.go
/// `gceGetRegionFromZones`): FindPodVolumes' error, an Error status, where the CSINode lists the
/// plugin; the loader warns.
#[test]
fn an_untranslatable_bound_pv_is_an_error_where_migrated() {
    let (warnings, statuses) = volume_binding(&bound_pd(
        "{topology.kubernetes.io/zone: us-central1-a__us-east1-b}",
    ));
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("cannot be translated") && w.contains("VolumeBinding")),
        "{warnings:#?}"
    );
    let failed = status(&statuses, "z2-migrated");
    assert_eq!(failed.code, Code::Error);
    assert_eq!(
        failed.reason_strings(),
        vec![
            "could not translate pv: failed to get region from zones: multiple or no regions gotten from zones, got: map[us-central1:{} us-east1:{}]"
        ]
    );
    assert_eq!(status(&statuses, "z2-plain").code, Code::Success);
}

/// An in-tree volume not yet bound may be bound by the scheduler, whose PreBind re-checks it
/// translated (not modelled): the loader warns. Azure File is never translated: no warning.
#[test]
fn unbound_in_tree_volumes_are_warned_about() {
    let objects = r#"
apiVersion: v1
kind: PersistentVolume
metadata: {name: free, labels: {topology.kubernetes.io/zone: us-east-1}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  awsElasticBlockStore: {volumeID: vol-1}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: files}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  azureFile: {secretName: s, shareName: share}
"#;
    let loaded = load_text("free.yaml", objects);
    let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("awsElasticBlockStore") && warnings[0].contains("not yet bound"),
        "{warnings:#?}"
    );
}

/// A VolumeAttachment to n2 names the volume the simulation provisions for pod `a`'s claim on n1
/// (`pvc-default-c0`, CSI handle `default-c0`). Once `a` is bound, n2's attached volume exists,
/// and with the new claim of pod `b` it exceeds n2's limit of one EBS volume (upstream
/// `getNodeVolumeAttachmentInfo` counts every VolumeAttachment of a CSI volume): `b`, which must
/// run on n2, stays Pending. Without the attachment `b` lands on n2. (The snapshot's CSINode memo
/// must be refreshed when binding provisions the attached volume.)
#[test]
fn an_attachment_counts_once_binding_provisions_its_volume() {
    let objects = |attachment: &str| {
        format!(
            r#"
apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---
apiVersion: v1
kind: Node
metadata: {{name: n2, labels: {{kubernetes.io/hostname: n2}}}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: n1}}
spec: {{drivers: [{{name: ebs.csi.aws.com, nodeID: n1, allocatable: {{count: 1}}}}]}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: n2}}
spec: {{drivers: [{{name: ebs.csi.aws.com, nodeID: n2, allocatable: {{count: 1}}}}]}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {{name: ebs}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: c0, namespace: default}}
spec: {{storageClassName: ebs, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: c1, namespace: default}}
spec: {{storageClassName: ebs, accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
{attachment}"#
        )
    };
    let attachment = r#"---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec: {attacher: ebs.csi.aws.com, nodeName: n2, source: {persistentVolumeName: pvc-default-c0}}
"#;
    let pod = |name: &str, claim: &str, node: &str, created: &str| {
        let pod = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": node},
                "containers": [{"name": "c", "image": "app"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
            },
        });
        let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(pod).unwrap();
        spreadlab_k8s::convert_pod(&pod, "default").unwrap()
    };
    let pods = [
        pod("a", "c0", "n1", "2024-01-01T00:00:00Z"),
        pod("b", "c1", "n2", "2024-01-01T00:00:01Z"),
    ];
    let placed = |attachment: &str| {
        let loaded = load_text("attached.yaml", &objects(attachment));
        assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
        let options = spreadlab_engine::scheduler::Options::default();
        let simulation = spreadlab_engine::scheduler::simulate(&loaded.cluster, &pods, &options);
        (simulation.decisions.iter())
            .map(|d| (d.name.clone(), d.node.clone()))
            .collect::<Vec<_>>()
    };
    let n = |name: &str| Some(String::from(name));
    assert_eq!(
        placed(""),
        [("a".into(), n("n1")), ("b".into(), n("n2"))],
        "without the attachment"
    );
    assert_eq!(
        placed(attachment),
        [("a".into(), n("n1")), ("b".into(), None)],
        "with the attachment"
    );
}
