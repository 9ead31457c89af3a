//! In-place resizes under way on bound pods (own random stream): container statuses reporting
//! actuated and allocated requests above or below the spec, with or without `resources`, a second
//! container, a sidecar or a plain init container with its own status, a `PodResizePending`
//! condition (Infeasible or Deferred), and pod-level requests with pod-level status. Each release
//! counts such a pod differently on its node (v1.36 pod-level status, v1.37 the largest total).

use serde_json::{Map, Value, json};

use super::{Rng, cpu};

/// Resizes one to four running bound pods in about one scenario in six.
pub(super) fn resize_some(seed: u64, objects: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0xC2B2_AE3D_27D4_EB4F, 0x0052_E512);
    if !rng.percent(16) {
        return;
    }
    let bound: Vec<usize> = (0..objects.len())
        .filter(|&i| {
            let o = &objects[i];
            o["kind"] == "Pod"
                && o["spec"]["nodeName"].is_string()
                && o["status"]["phase"] == "Running"
        })
        .collect();
    if bound.is_empty() {
        return;
    }
    for _ in 0..rng.range(1, 4) {
        let index = bound[rng.range(0, bound.len() as i64 - 1) as usize];
        resize(&mut rng, &mut objects[index]);
    }
}

/// A quantity's millicores (cpu) or mebibytes (memory), as the generator writes them.
fn amount(value: &Value) -> i64 {
    let text = value.as_str().unwrap_or("0");
    if let Some(millis) = text.strip_suffix('m') {
        millis.parse().unwrap_or(0)
    } else if let Some(mi) = text.strip_suffix("Mi") {
        mi.parse().unwrap_or(0)
    } else {
        text.parse::<i64>().unwrap_or(0) * 1000
    }
}

/// Requests of `cpu_m` millicores and `mem_mi` MiB, each scaled by a random factor (in quarters).
fn scaled(rng: &mut Rng, cpu_m: i64, mem_mi: i64) -> Value {
    let factor = |rng: &mut Rng| *rng.pick(&[2, 3, 4, 4, 6, 8, 12]);
    let (c, m) = (factor(rng), factor(rng));
    let mut list = Map::new();
    list.insert("cpu".into(), json!(cpu((cpu_m * c / 4).max(1))));
    if rng.percent(85) {
        list.insert(
            "memory".into(),
            json!(format!("{}Mi", (mem_mi * m / 4).max(1))),
        );
    }
    Value::Object(list)
}

/// A container status for `name` with requests around `cpu_m`/`mem_mi`, in one of four shapes:
/// resources and allocated, allocated only, `resources: {}` and allocated, resources only.
fn status(rng: &mut Rng, name: &str, cpu_m: i64, mem_mi: i64) -> Value {
    let mut status =
        json!({"name": name, "ready": true, "restartCount": 0, "image": "nginx", "imageID": ""});
    match rng.range(0, 3) {
        0 => {
            status["resources"] = json!({"requests": scaled(rng, cpu_m, mem_mi)});
            status["allocatedResources"] = scaled(rng, cpu_m, mem_mi);
        }
        1 => status["allocatedResources"] = scaled(rng, cpu_m, mem_mi),
        2 => {
            status["resources"] = json!({});
            status["allocatedResources"] = scaled(rng, cpu_m, mem_mi);
        }
        _ => status["resources"] = json!({"requests": scaled(rng, cpu_m, mem_mi)}),
    }
    status
}

fn resize(rng: &mut Rng, pod: &mut Value) {
    let requests = pod["spec"]["containers"][0]["resources"]["requests"].clone();
    let (cpu_m, mem_mi) = (amount(&requests["cpu"]), amount(&requests["memory"]));
    let mut container_statuses = Vec::new();
    if rng.percent(85) {
        container_statuses.push(status(rng, "main", cpu_m, mem_mi));
    }
    let (mut total_cpu, mut total_mem) = (cpu_m, mem_mi);
    if rng.percent(35) {
        let (c, m) = (*rng.pick(&[50, 100, 300]), *rng.pick(&[32, 64, 256]));
        total_cpu += c;
        total_mem += m;
        if let Some(list) = pod["spec"]["containers"].as_array_mut() {
            list.push(json!({"name": "logs", "image": "busybox", "resources": {"requests": {"cpu": cpu(c), "memory": format!("{m}Mi")}}}));
        }
        if rng.percent(80) {
            container_statuses.push(status(rng, "logs", c, m));
        }
    }
    let mut init_statuses = Vec::new();
    if rng.percent(30) {
        let sidecar = rng.percent(50);
        let (c, m) = (*rng.pick(&[100, 400, 1500]), *rng.pick(&[64, 512]));
        let name = if sidecar { "proxy" } else { "setup" };
        let mut init = json!({"name": name, "image": "busybox", "resources": {"requests": {"cpu": cpu(c), "memory": format!("{m}Mi")}}});
        if sidecar {
            init["restartPolicy"] = json!("Always");
            total_cpu += c;
            total_mem += m;
        }
        pod["spec"]["initContainers"] = json!([init]);
        if rng.percent(80) {
            init_statuses.push(status(rng, name, c, m));
        }
    }
    let status_object = &mut pod["status"];
    if !container_statuses.is_empty() {
        status_object["containerStatuses"] = json!(container_statuses);
    }
    if !init_statuses.is_empty() {
        status_object["initContainerStatuses"] = json!(init_statuses);
    }
    if rng.percent(30) {
        let reason = if rng.percent(60) {
            "Infeasible"
        } else {
            "Deferred"
        };
        let condition = json!({"type": "PodResizePending", "status": "True", "reason": reason});
        match status_object["conditions"].as_array_mut() {
            Some(conditions) => conditions.push(condition),
            None => status_object["conditions"] = json!([condition]),
        }
    }
    // Pod-level requests (with their status) or pod-level status alone (the kubelet reports it
    // for every pod when InPlacePodLevelResourcesVerticalScaling is on).
    let pod_level = rng.percent(35);
    if pod_level {
        let mut list = Map::new();
        list.insert(
            "cpu".into(),
            json!(cpu(total_cpu + *rng.pick(&[0, 100, 500]))),
        );
        if rng.percent(70) {
            list.insert(
                "memory".into(),
                json!(format!("{}Mi", total_mem + *rng.pick(&[0, 128]))),
            );
        }
        pod["spec"]["resources"] = json!({"requests": list});
    }
    if pod_level || rng.percent(25) {
        let status_object = &mut pod["status"];
        if rng.percent(85) {
            status_object["resources"] = if rng.percent(85) {
                json!({"requests": scaled(rng, total_cpu, total_mem)})
            } else {
                json!({})
            };
        }
        if rng.percent(80) {
            status_object["allocatedResources"] = scaled(rng, total_cpu, total_mem);
        }
    }
}
