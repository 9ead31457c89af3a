//! Storage objects and pod volumes: what the volume plugins read, the StatefulSet claim templates,
//! the API server's defaults, and bad storage input named by file, object and field.

mod common;

use common::*;
use spreadlab_engine::model::{AccessMode, BindingMode, VolumeMode, VolumePhase, VolumeSource};

const STORAGE: &str = r#"apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: zonal
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [a, b]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: plain}
provisioner: example.com/nfs
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: a}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  volumeMode: Block
  storageClassName: zonal
  claimRef: {namespace: default, name: data-web-0, uid: u1}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a]}]
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data-web-0
  namespace: default
  uid: u1
  annotations: {pv.kubernetes.io/bind-completed: "yes"}
spec:
  accessModes: [ReadWriteOncePod]
  resources: {requests: {storage: 10Gi}}
  storageClassName: zonal
  volumeName: pv-1
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers:
  - {name: ebs.csi.aws.com, nodeID: i-1, topologyKeys: [topology.kubernetes.io/zone]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
      volumes:
      - {name: data, emptyDir: {}}
      - {name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}}
      - {name: disk, gcePersistentDisk: {pdName: shared, readOnly: true}}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
"#;

#[test]
fn storage_objects_are_read_with_the_api_defaults() {
    let loaded = load_text("storage.yaml", STORAGE);
    assert_clean(&loaded);
    let storage = &loaded.cluster.storage;
    let zonal = &storage.classes["zonal"];
    assert_eq!(zonal.binding_mode, Some(BindingMode::WaitForFirstConsumer));
    assert!(zonal.is_default);
    assert!(zonal.allows(&labels(&[("topology.kubernetes.io/zone", "b")])));
    assert!(!zonal.allows(&labels(&[("topology.kubernetes.io/zone", "c")])));
    // SetDefaults_StorageClass: an unset binding mode is Immediate.
    assert_eq!(
        storage.classes["plain"].binding_mode,
        Some(BindingMode::Immediate)
    );
    let volume = &storage.volumes["pv-1"];
    assert_eq!(volume.phase, VolumePhase::Bound);
    assert_eq!(volume.volume_mode, VolumeMode::Block);
    assert_eq!(volume.csi_driver.as_deref(), Some("ebs.csi.aws.com"));
    assert!(volume.node_affinity_matches(&labels(&[("topology.kubernetes.io/zone", "a")])));
    assert!(!volume.node_affinity_matches(&labels(&[("topology.kubernetes.io/zone", "b")])));
    let claim = storage.claim("default", "data-web-0").expect("the claim");
    assert!(claim.bind_completed);
    assert_eq!(claim.volume_name, "pv-1");
    assert_eq!(claim.spec.access_modes, vec![AccessMode::ReadWriteOncePod]);
    assert!(volume.is_bound_to(claim));
    assert_eq!(
        storage.csi_nodes["n1"][0].topology_keys,
        vec!["topology.kubernetes.io/zone".to_string()]
    );
}

#[test]
fn stateful_set_claim_templates_become_per_replica_claims() {
    let loaded = load_text("storage.yaml", STORAGE);
    let workload = &loaded.workloads[0];
    let volumes = &workload.template.volumes;
    // updateStorage: the template's claim replaces the pod volume of the same name, first.
    let names: Vec<&str> = volumes.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["data", "scratch", "disk"]);
    let VolumeSource::Template(data) = &volumes[0].source else {
        panic!("{:?}", volumes[0])
    };
    assert!(!data.ephemeral && data.class_unset);
    assert_eq!(data.claim_name("web-1"), "data-web-1");
    let VolumeSource::Template(scratch) = &volumes[1].source else {
        panic!("{:?}", volumes[1])
    };
    assert!(scratch.ephemeral);
    assert_eq!(scratch.claim_name("web-1"), "web-1-scratch");
    assert!(matches!(
        &volumes[2].source,
        VolumeSource::GcePersistentDisk { pd_name, read_only: true } if pd_name == "shared"
    ));
    // An existing claim is reused; a missing one is made from the template, in the default class.
    let storage = &loaded.cluster.storage;
    let pods = workload.pods_to_create(&loaded.cluster);
    let (name, claim) = storage
        .pod_claim("default", &pods[1].name, &pods[1].volumes[0])
        .unwrap();
    assert_eq!(name, "data-web-1");
    let claim = claim.unwrap();
    assert_eq!(claim.spec.storage_class, "zonal");
    assert!(claim.volume_name.is_empty());
    let (_, existing) = storage
        .pod_claim("default", "web-0", &pods[0].volumes[0])
        .unwrap();
    assert_eq!(existing.unwrap().volume_name, "pv-1");
}

#[test]
fn bad_storage_fields_are_named() {
    let text = r#"apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1}
spec:
  accessModes: [ReadWriteSometimes]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: s1}
provisioner: x
volumeBindingMode: Later
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: d, nodeID: n1, allocatable: {count: 25}}]
"#;
    let loaded = load_text("bad.yaml", text);
    let errors: Vec<String> = loaded.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors[0].contains("bad.yaml")
            && errors[0].contains("spec.accessModes[0]")
            && errors[0].contains("ReadWriteSometimes"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("volumeBindingMode") && errors[1].contains("Later"),
        "{}",
        errors[1]
    );
    // Attach limits are read (NodeVolumeLimits).
    assert_eq!(
        loaded.cluster.storage.csi_nodes["n1"][0].allocatable_count,
        Some(25)
    );
}

#[test]
fn resource_claims_are_said_to_be_ignored() {
    let text = r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  replicas: 1
  selector: {matchLabels: {app: infer}}
  template:
    metadata: {labels: {app: infer}}
    spec:
      containers: [{name: c, image: vllm, resources: {claims: [{name: gpu}]}}]
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
"#;
    let loaded = load_text("dra.yaml", text);
    assert!(loaded.errors.is_empty(), "{:#?}", loaded.errors);
    let warnings: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("spec.template.spec.resourceClaims")
                && w.contains("DynamicResources (DRA) is not modelled")),
        "{warnings:#?}"
    );
}

/// DynamicResources objects are named as such, not as an unknown kind.
#[test]
fn dra_kinds_get_a_specific_warning() {
    let text = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one-gpu}\nspec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}\n";
    let loaded = load_text("dra.yaml", text);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    assert_eq!(loaded.warnings.len(), 2);
    for warning in &loaded.warnings {
        assert!(
            warning.message.contains("DynamicResources (DRA)"),
            "{warning}"
        );
    }
}
