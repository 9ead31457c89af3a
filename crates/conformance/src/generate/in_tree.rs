//! In-tree AWS EBS volumes in the generated scenarios, for NodeVolumeLimits' CSI migration
//! (`nodevolumelimits/csi.go`: an in-tree volume counts against `ebs.csi.aws.com`'s attach limit
//! on nodes with a CSINode, under the handle csi-translation-lib gives it): inline
//! `awsElasticBlockStore` volumes on pods to schedule and on running pods (and CSINodes with
//! attach limits where the scenario has none), some IDs in the
//! `aws://<zone>/<id>` form that translates to the same handle as the bare ID (VolumeRestrictions
//! still tells the two strings apart). Drawn from its own stream, so the rest of a seed's
//! scenario is what it was before. Not generated: in-tree PersistentVolumes and malformed IDs,
//! which the loader warns about (a differential run rejects such input); the ported table
//! `tests/upstream/nodevolumelimits/TestCSILimits.yaml` and `crates/k8s/tests/csi_migration.rs`
//! cover them.

use serde_json::{Value, json};

use super::Rng;

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

/// Adds `volume` to the pod unless it has a volume of that name.
fn add_volume(pod: &mut Value, volume: Value) {
    let volumes = &mut pod["spec"]["volumes"];
    if !volumes.is_array() {
        *volumes = json!([]);
    }
    let list = volumes.as_array_mut().expect("an array");
    if !list.iter().any(|v| v["name"] == volume["name"]) {
        list.push(volume);
    }
}
