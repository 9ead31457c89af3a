//! In-tree AWS EBS volumes in the generated scenarios, for NodeVolumeLimits' CSI migration
//! (`nodevolumelimits/csi.go`: an in-tree volume counts against `ebs.csi.aws.com`'s attach limit
//! on nodes with a CSINode, under the handle csi-translation-lib gives it): inline
//! `awsElasticBlockStore` volumes on pods to schedule and on running pods (and CSINodes with
//! attach limits where the scenario has none), some IDs in the
//! `aws://<zone>/<id>` form that translates to the same handle as the bare ID (VolumeRestrictions
//! still tells the two strings apart). Drawn from its own stream, so the rest of a seed's
//! scenario is what it was before.
//!
//! And, from another stream, bound in-tree PersistentVolumes for VolumeBinding's CSI migration
//! (`volumebinding/binder.go` `checkBoundClaims`, `tryTranslatePVToCSI`): GCE PD and AWS EBS
//! volumes with zone labels (GA or beta, a GCE PD sometimes regional), some with node affinity,
//! bound to claims pods to schedule use; CSINodes whose
//! `storage.alpha.kubernetes.io/migrated-plugins` annotation lists the plugins (or not, or after
//! a space that keeps a plugin from matching), and nodes labelled with the CSI drivers' topology
//! keys (`topology.gke.io/zone`, `topology.ebs.csi.aws.com/zone`) on most nodes.
//!
//! Not generated: unbound in-tree volumes, malformed IDs and translations that fail, which the
//! loader warns about (a differential run rejects such input); the ported tables
//! `tests/upstream/nodevolumelimits/TestCSILimits.yaml`,
//! `tests/upstream/volumebinding/TestFindPodVolumesWithCSIMigration.yaml` and
//! `crates/k8s/tests/csi_migration.rs` cover them.

use serde_json::{Value, json};

use super::Rng;
use super::storage::add_volume;

/// Inline volume IDs: `vol-a` and `aws://us-east-1a/vol-a` are one disk once translated.
const IDS: [&str; 4] = ["vol-a", "vol-b", "aws://us-east-1a/vol-a", "vol-c"];

/// Adds in-tree EBS volumes to about one scenario in six.
pub(super) fn add_in_tree(seed: u64, objects: &mut Vec<Value>, schedule: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0x9E37_79B9_7F4A_7C15, 0x01D7_EEB5);
    if schedule.is_empty() || !rng.percent(16) {
        return;
    }
    // Attach limits for the EBS CSI driver where the scenario has no CSINodes yet, so that the
    // translated volumes meet a limit (a node without a CSINode never migrates).
    if !objects.iter().any(|o| o["kind"] == "CSINode") && rng.percent(70) {
        let nodes: Vec<String> = objects
            .iter()
            .filter(|o| o["kind"] == "Node")
            .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
            .collect();
        for node in nodes {
            if rng.percent(80) {
                objects.push(json!({
                    "apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                    "metadata": {"name": node},
                    "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": node,
                        "allocatable": {"count": rng.range(0, 3)}}]},
                }));
            }
        }
    }
    // Inline volumes on pods to schedule.
    for _ in 0..rng.range(1, 3) {
        let index = rng.range(0, schedule.len() as i64 - 1) as usize;
        let id = (*rng.pick(&IDS)).to_owned();
        add_volume(
            &mut schedule[index],
            json!({"name": "ebs", "awsElasticBlockStore": {"volumeID": id}}),
        );
    }
    // And on some running pods.
    let running: Vec<usize> = (0..objects.len())
        .filter(|&i| objects[i]["kind"] == "Pod" && objects[i]["spec"]["nodeName"].is_string())
        .collect();
    if !running.is_empty() {
        for _ in 0..rng.range(0, 3) {
            let index = *rng.pick(&running);
            let id = (*rng.pick(&IDS)).to_owned();
            add_volume(
                &mut objects[index],
                json!({"name": "ebs", "awsElasticBlockStore": {"volumeID": id}}),
            );
        }
    }
}

/// `topology.kubernetes.io/zone`.
const ZONE: &str = "topology.kubernetes.io/zone";
/// `failure-domain.beta.kubernetes.io/zone`.
const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
/// The CSI topology keys csi-translation-lib translates GCE PD and AWS EBS zones to.
const GCE_KEY: &str = "topology.gke.io/zone";
const EBS_KEY: &str = "topology.ebs.csi.aws.com/zone";
/// CSINode `migrated-plugins` annotations: the plugin listed, both, the other one, both with a
/// space (binder.go does not trim: GCE PD is then not migrated), none.
const MIGRATED: [&str; 5] = [
    "kubernetes.io/gce-pd",
    "kubernetes.io/aws-ebs,kubernetes.io/gce-pd",
    "kubernetes.io/aws-ebs",
    "kubernetes.io/aws-ebs, kubernetes.io/gce-pd",
    "",
];

/// Adds bound in-tree GCE PD and EBS PersistentVolumes, their claims, pods to schedule using
/// them, migrated-plugins annotations on CSINodes and CSI topology labels on nodes to about one
/// scenario in eight (own stream).
pub(super) fn add_bound_in_tree(seed: u64, objects: &mut Vec<Value>, schedule: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0xD6E8_FEB8_6659_FD93, 0xB0C5_1D7E);
    if schedule.is_empty() || !rng.percent(12) {
        return;
    }
    // Nodes (by index) and their zones; most zoned nodes carry the CSI topology keys.
    let nodes: Vec<(usize, String)> = (0..objects.len())
        .filter(|&i| objects[i]["kind"] == "Node")
        .filter_map(|i| Some((i, objects[i]["metadata"]["name"].as_str()?.to_owned())))
        .collect();
    let mut zones: Vec<String> = Vec::new();
    for (index, _) in &nodes {
        let node = &mut objects[*index];
        let Some(zone) = node["metadata"]["labels"][ZONE].as_str().map(str::to_owned) else {
            continue;
        };
        if !zones.contains(&zone) {
            zones.push(zone.clone());
        }
        for key in [GCE_KEY, EBS_KEY] {
            if rng.percent(85) {
                node["metadata"]["labels"][key] = json!(zone);
            }
        }
    }
    if zones.is_empty() {
        zones.push("eu-west-1a".to_owned());
    }
    // The migrated-plugins annotation on most nodes' CSINodes (made where there is none).
    for (_, name) in &nodes {
        if !rng.percent(70) {
            continue;
        }
        let annotation = *rng.pick(&MIGRATED);
        let existing = objects
            .iter()
            .position(|o| o["kind"] == "CSINode" && o["metadata"]["name"] == name.as_str());
        let index = existing.unwrap_or_else(|| {
            objects.push(json!({
                "apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": name}, "spec": {"drivers": []},
            }));
            objects.len() - 1
        });
        objects[index]["metadata"]["annotations"]["storage.alpha.kubernetes.io/migrated-plugins"] =
            json!(annotation);
    }
    // Bound volumes and their claims, used by pods to schedule.
    for i in 0..rng.range(1, 3) {
        let pod = rng.range(0, schedule.len() as i64 - 1) as usize;
        let namespace = schedule[pod]["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_owned();
        let volume_name = format!("intree-pv-{i}");
        let claim_name = format!("intree-{i}");
        let zone = rng.pick(&zones).clone();
        let gce = rng.percent(60);
        let mut zone_value = zone.clone();
        if gce && zones.len() > 1 && rng.percent(20) {
            // A regional disk: zones of one region (`gceGetRegionFromZones`).
            let other = rng.pick(&zones).clone();
            zone_value = format!("{zone}__{other}");
        }
        let beta = rng.percent(40);
        let mut labels = serde_json::Map::new();
        labels.insert(
            (if beta { BETA_ZONE } else { ZONE }).to_owned(),
            json!(zone_value),
        );
        if rng.percent(25) {
            let region = if beta {
                "failure-domain.beta.kubernetes.io/region"
            } else {
                "topology.kubernetes.io/region"
            };
            labels.insert(region.to_owned(), json!("eu-west-1"));
        }
        let source = if gce {
            json!({"gcePersistentDisk": {"pdName": format!("disk-{i}")}})
        } else if rng.percent(30) {
            json!({"awsElasticBlockStore": {"volumeID": format!("aws://{zone}/vol-intree-{i}")}})
        } else {
            json!({"awsElasticBlockStore": {"volumeID": format!("vol-intree-{i}")}})
        };
        let mut spec = json!({
            "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
            "storageClassName": "",
            "claimRef": {"namespace": namespace, "name": claim_name},
        });
        for (key, value) in source.as_object().into_iter().flatten() {
            spec[key] = value.clone();
        }
        match rng.range(0, 9) {
            // In-tree topology, renamed to the CSI key on migrated nodes (replaceTopology).
            0..=1 => {
                let key = if beta { BETA_ZONE } else { ZONE };
                spec["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": key, "operator": "In", "values": [zone]}]}]}});
            }
            // Another key: the CSI zone is added to the term (addTopology).
            2 => {
                let (_, node) = rng.pick(&nodes);
                spec["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                        "values": [node]}]}]}});
            }
            _ => {}
        }
        objects.push(json!({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": volume_name, "labels": labels},
            "spec": spec,
            "status": {"phase": "Bound"},
        }));
        objects.push(json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim_name, "namespace": namespace,
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                "resources": {"requests": {"storage": "10Gi"}}, "volumeName": volume_name},
            "status": {"phase": "Bound"},
        }));
        let volume =
            json!({"name": claim_name, "persistentVolumeClaim": {"claimName": claim_name}});
        add_volume(&mut schedule[pod], volume.clone());
        // Sometimes a second pod of the namespace uses it too.
        if rng.percent(30) {
            let other = rng.range(0, schedule.len() as i64 - 1) as usize;
            if schedule[other]["metadata"]["namespace"]
                .as_str()
                .unwrap_or("default")
                == namespace
            {
                add_volume(&mut schedule[other], volume);
            }
        }
    }
}
