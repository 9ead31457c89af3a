//! Storage in the generated scenarios: StorageClasses (waiting for the first consumer or binding
//! at once, a provisioner or none, allowed topologies), CSINodes (some with attach limits), VolumeAttachments and CSIDrivers with storage
//! capacity, PersistentVolumes pinned to zones or hosts (by node affinity or by zone labels),
//! claims in every state the volume plugins tell apart (bound, unbound, pre-bound, lost,
//! missing, `ReadWriteOncePod`), and pod volumes using them, inline disks included; generic
//! ephemeral volumes with their claims ([`add_ephemeral`]).
//!
//! Drawn from its own stream after the rest of the scenario, so a seed's cluster and pods are
//! what they were before storage existed. Static volumes have distinct sizes: upstream lists a
//! class's volumes in its cache's order and picks the first of equal size, which no test can
//! predict.

use serde_json::{Value, json};

use super::Rng;

const ZONE: &str = "topology.kubernetes.io/zone";
const HOSTNAME: &str = "kubernetes.io/hostname";
const CSI_DRIVER: &str = "ebs.csi.aws.com";

struct Node {
    name: String,
    zone: Option<String>,
}

/// Adds storage to about a third of the scenarios of `seed`.
pub(super) fn add_storage(seed: u64, objects: &mut Vec<Value>, schedule: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0xD1B5_4A32_D192_ED03, 0x5704_A6E5);
    if !rng.percent(35) || schedule.is_empty() {
        return;
    }
    let nodes: Vec<Node> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .map(|o| Node {
            name: o["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            zone: o["metadata"]["labels"][ZONE].as_str().map(str::to_owned),
        })
        .collect();
    let zones: Vec<String> = {
        let mut z: Vec<String> = nodes.iter().filter_map(|n| n.zone.clone()).collect();
        z.sort();
        z.dedup();
        z
    };
    let mut added = Vec::new();
    // Classes.
    let mut zonal = json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "zonal"},
        "provisioner": CSI_DRIVER, "volumeBindingMode": "WaitForFirstConsumer",
    });
    if rng.percent(50) {
        zonal["metadata"]["annotations"] =
            json!({"storageclass.kubernetes.io/is-default-class": "true"});
    }
    if !zones.is_empty() && rng.percent(35) {
        let allowed: Vec<&String> = zones.iter().filter(|_| rng.percent(60)).collect();
        zonal["allowedTopologies"] =
            json!([{"matchLabelExpressions": [{"key": ZONE, "values": allowed}]}]);
    }
    added.push(zonal);
    added.push(json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "local"},
        "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer",
    }));
    let mut fast = json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "fast"}, "provisioner": CSI_DRIVER,
    });
    if rng.percent(50) {
        fast["volumeBindingMode"] = json!("Immediate");
    }
    added.push(fast);
    // CSI: most nodes report the driver with the zone as its topology key.
    // Attach limits (NodeVolumeLimits) in some scenarios: a few volumes per node.
    let limits = rng.percent(35);
    for node in &nodes {
        if rng.percent(80) {
            let mut driver =
                json!({"name": CSI_DRIVER, "nodeID": node.name, "topologyKeys": [ZONE]});
            if limits {
                driver["allocatable"] = json!({"count": rng.range(0, 3)});
            }
            added.push(json!({
                "apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": node.name},
                "spec": {"drivers": [driver]},
            }));
        }
    }
    if rng.percent(25) {
        // From v1.37 NodeVolumeLimits rejects the nodes whose CSINode lacks a driver that asks
        // for it (own stream, so the rest of the storage world stays as it was).
        let prevent = Rng::stream(seed, 0x94D0_49BB_1331_11EB, 0x0C51).percent(40);
        let mut spec = json!({"storageCapacity": true});
        if prevent {
            spec["preventPodSchedulingIfMissing"] = json!(true);
        }
        added.push(json!({
            "apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
            "metadata": {"name": CSI_DRIVER}, "spec": spec,
        }));
        for zone in &zones {
            if rng.percent(70) {
                let gi = rng.range(5, 200);
                added.push(json!({
                    "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                    "metadata": {"name": format!("cap-{zone}"), "namespace": "kube-system"},
                    "storageClassName": "zonal",
                    "nodeTopology": {"matchLabels": {ZONE: zone}},
                    "capacity": format!("{gi}Gi"),
                }));
            }
        }
    }
    // Claims and volumes.
    let mut claims: Vec<(String, String)> = Vec::new(); // (namespace, name)
    let mut bound_claims: Vec<(String, String)> = Vec::new();
    let n_claims = rng.range(2, 10);
    let mut size_gi = 1;
    for i in 0..n_claims {
        let namespace =
            schedule[rng.range(0, schedule.len() as i64 - 1) as usize]["metadata"]["namespace"]
                .as_str()
                .unwrap_or("default")
                .to_owned();
        let name = format!("data-{i}");
        let request = rng.range(1, 20);
        let mut modes = vec!["ReadWriteOnce"];
        if rng.percent(12) {
            modes = vec!["ReadWriteOncePod"];
        }
        let mut claim = json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": modes, "resources": {"requests": {"storage": format!("{request}Gi")}}},
        });
        let state = rng.range(0, 99);
        let pin = |rng: &mut Rng, volume: &mut Value| {
            let node = rng.pick(&nodes);
            match (rng.range(0, 3), &node.zone) {
                (0, Some(zone)) => {
                    volume["spec"]["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}]}});
                }
                (1, Some(zone)) => {
                    volume["metadata"]["labels"] = json!({ZONE: zone});
                }
                (2, _) => {
                    volume["spec"]["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node.name]}]}]}});
                }
                _ => {}
            }
        };
        match state {
            // Bound to a volume (pinned or not), as a snapshot shows it.
            0..=44 => {
                size_gi += rng.range(1, 5);
                let volume_name = format!("pv-{i}");
                let mut volume = json!({
                    "apiVersion": "v1", "kind": "PersistentVolume",
                    "metadata": {"name": volume_name},
                    "spec": {"capacity": {"storage": format!("{}Gi", request + size_gi)},
                        "accessModes": modes, "storageClassName": "zonal",
                        "claimRef": {"namespace": namespace, "name": name},
                        "csi": {"driver": CSI_DRIVER, "volumeHandle": volume_name}},
                    "status": {"phase": "Bound"},
                });
                pin(&mut rng, &mut volume);
                claim["spec"]["storageClassName"] = json!("zonal");
                claim["spec"]["volumeName"] = json!(volume_name);
                claim["status"] = json!({"phase": "Bound"});
                // A claim without the bind-completed annotation is not fully bound.
                if rng.percent(90) {
                    claim["metadata"]["annotations"] =
                        json!({"pv.kubernetes.io/bind-completed": "yes"});
                }
                // Sometimes the volume is gone; sometimes it stays attached to a node.
                if rng.percent(92) {
                    added.push(volume);
                    if rng.percent(20) {
                        let node = rng.pick(&nodes);
                        added.push(json!({
                            "apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                            "metadata": {"name": format!("attach-{i}")},
                            "spec": {"attacher": CSI_DRIVER, "nodeName": node.name,
                                "source": {"persistentVolumeName": format!("pv-{i}")}},
                        }));
                    }
                }
                bound_claims.push((namespace.clone(), name.clone()));
            }
            // Waiting for its first consumer: provisioned, or a static local volume.
            45..=79 => {
                let class = if rng.percent(60) { "zonal" } else { "local" };
                claim["spec"]["storageClassName"] = json!(class);
                claim["status"] = json!({"phase": "Pending"});
            }
            // Immediate binding, still unbound.
            80..=87 => {
                claim["spec"]["storageClassName"] = json!("fast");
                claim["status"] = json!({"phase": "Pending"});
            }
            // Lost.
            88..=91 => {
                claim["spec"]["storageClassName"] = json!("zonal");
                claim["spec"]["volumeName"] = json!("pv-gone");
                claim["metadata"]["annotations"] =
                    json!({"pv.kubernetes.io/bind-completed": "yes"});
                claim["status"] = json!({"phase": "Lost"});
            }
            // Not there at all (referenced anyway).
            _ => {
                claims.push((namespace, name));
                continue;
            }
        }
        added.push(claim);
        claims.push((namespace, name));
    }
    // Static local volumes, pinned to hosts, of distinct sizes.
    for i in 0..rng.range(0, 6) {
        size_gi += rng.range(1, 7);
        let mut volume = json!({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": format!("local-{i}")},
            "spec": {"capacity": {"storage": format!("{}Gi", 10 + size_gi)},
                "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                "local": {"path": "/mnt/disks/ssd1"}},
            "status": {"phase": "Available"},
        });
        let node = rng.pick(&nodes);
        volume["spec"]["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node.name]}]}]}});
        added.push(volume);
    }
    // Pods using them: each claim by a pod of its namespace, some by two.
    for (namespace, name) in &claims {
        let users: Vec<usize> = (0..schedule.len())
            .filter(|&i| schedule[i]["metadata"]["namespace"].as_str() == Some(namespace))
            .collect();
        if users.is_empty() {
            continue;
        }
        for _ in 0..rng.range(1, 2) {
            let pod = &mut schedule[*rng.pick(&users)];
            add_volume(
                pod,
                json!({"name": name, "persistentVolumeClaim": {"claimName": name}}),
            );
        }
    }
    // Running pods using the bound claims (their volumes count against attach limits).
    let running: Vec<usize> = (0..objects.len())
        .filter(|&i| objects[i]["kind"] == "Pod" && objects[i]["spec"]["nodeName"].is_string())
        .collect();
    for (namespace, name) in &bound_claims {
        let users: Vec<usize> = running
            .iter()
            .copied()
            .filter(|&i| objects[i]["metadata"]["namespace"].as_str() == Some(namespace))
            .collect();
        if !users.is_empty() && rng.percent(50) {
            let pod = &mut objects[*rng.pick(&users)];
            add_volume(
                pod,
                json!({"name": name, "persistentVolumeClaim": {"claimName": name}}),
            );
        }
    }
    // An inline disk shared by two pods.
    if rng.percent(20) && schedule.len() >= 2 {
        let read_only = rng.percent(30);
        for _ in 0..2 {
            let index = rng.range(0, schedule.len() as i64 - 1) as usize;
            add_volume(
                &mut schedule[index],
                json!({"name": "disk", "gcePersistentDisk": {"pdName": "shared-disk", "readOnly": read_only}}),
            );
        }
    }
    objects.extend(added);
}

/// Gives one or two pods to schedule a generic ephemeral volume in about one scenario in ten (own
/// stream, after the waiting pods are marked): a waiting pod (one with a `uid`) mostly finds the
/// claim the ephemeral volume controller made for it (`<pod>-<volume>`, controlled by the pod;
/// unbound, or bound to a pinned volume), otherwise a claim of that name another pod owns, which
/// `VolumeIsForPod` refuses. The claim is never missing: the simulation stands in for the
/// ephemeral volume controller, which the oracle does not run.
pub(super) fn add_ephemeral(seed: u64, objects: &mut Vec<Value>, schedule: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0x2545_F491_4F6C_DD1D, 0x0E9E_3A11);
    if schedule.is_empty() || !rng.percent(10) {
        return;
    }
    let nodes: Vec<Node> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .map(|o| Node {
            name: o["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            zone: o["metadata"]["labels"][ZONE].as_str().map(str::to_owned),
        })
        .collect();
    let class = objects
        .iter()
        .any(|o| o["kind"] == "StorageClass" && o["metadata"]["name"] == "zonal")
        .then_some("zonal");
    let mut added = Vec::new();
    for k in 0..rng.range(1, 2) {
        // Mostly a waiting pod: the ephemeral volume controller has had time to make its claim.
        let waiting: Vec<usize> = (0..schedule.len())
            .filter(|&i| schedule[i]["metadata"]["uid"].is_string())
            .collect();
        let index = if !waiting.is_empty() && rng.percent(80) {
            *rng.pick(&waiting)
        } else {
            rng.range(0, schedule.len() as i64 - 1) as usize
        };
        let pod = &mut schedule[index];
        let volume = format!("eph-{k}");
        let mut spec = json!({"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": format!("{}Gi", rng.range(1, 9))}}});
        if let Some(class) = class {
            spec["storageClassName"] = json!(class);
        }
        add_volume(
            pod,
            json!({"name": volume, "ephemeral": {"volumeClaimTemplate": {"spec": spec.clone()}}}),
        );
        let pod_name = pod["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let namespace = pod["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_owned();
        // A claim made for the pod means the API server stored the pod: it is waiting.
        if !pod["metadata"]["uid"].is_string() && rng.percent(70) {
            pod["metadata"]["uid"] = json!(format!("waiting-{seed}-eph-{index}"));
            pod["metadata"]["creationTimestamp"] =
                json!(super::format_time(1_699_990_000 + 60 * rng.range(0, 4)));
        }
        let uid = pod["metadata"]["uid"].as_str().map(str::to_owned);
        let claim_name = format!("{pod_name}-{volume}");
        if added
            .iter()
            .any(|c: &Value| c["metadata"]["name"] == claim_name.as_str())
        {
            continue;
        }
        let owner = match &uid {
            Some(uid) if rng.percent(75) => uid.clone(),
            _ => format!("old-{pod_name}"),
        };
        let mut claim = json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim_name, "namespace": namespace,
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                    "uid": owner, "controller": true, "blockOwnerDeletion": true}]},
            "spec": spec,
            "status": {"phase": "Pending"},
        });
        if class.is_some() && !nodes.is_empty() && rng.percent(40) {
            let volume_name = format!("pv-{claim_name}");
            let node = rng.pick(&nodes);
            let (key, value) = match &node.zone {
                Some(zone) if rng.percent(70) => (ZONE, zone.clone()),
                _ => (HOSTNAME, node.name.clone()),
            };
            added.push(json!({
                "apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"name": volume_name},
                "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                    "storageClassName": "zonal",
                    "claimRef": {"namespace": namespace, "name": claim_name},
                    "csi": {"driver": CSI_DRIVER, "volumeHandle": volume_name},
                    "nodeAffinity": {"required": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}},
                "status": {"phase": "Bound"},
            }));
            claim["spec"]["volumeName"] = json!(volume_name);
            claim["metadata"]["annotations"] = json!({"pv.kubernetes.io/bind-completed": "yes"});
            claim["status"] = json!({"phase": "Bound"});
        }
        added.push(claim);
    }
    objects.extend(added);
}

/// Adds a volume to a pod (a volume of the same name is not added twice).
pub(super) fn add_volume(pod: &mut Value, volume: Value) {
    let volumes = &mut pod["spec"]["volumes"];
    if !volumes.is_array() {
        *volumes = json!([]);
    }
    let list = volumes.as_array_mut().expect("an array");
    if !list.iter().any(|v| v["name"] == volume["name"]) {
        list.push(volume);
    }
}
