//! Pods already waiting in the snapshot (own random stream): some pods to schedule get a
//! `creationTimestamp` (the API server stored them before the snapshot, so they wait in the
//! queue ahead of new pods of their priority), some a `status.nominatedNodeName` (an earlier
//! preemption nominated them; the node may since have gone), and some bound pods on a nominated
//! node are terminating because the scheduler preempted them (`DisruptionTarget`,
//! `PreemptionByScheduler`), which makes a nominated pod ineligible to preempt again.

use serde_json::{Value, json};

use super::{Rng, format_time};

/// Marks waiting pods in about one scenario in five (see the module documentation).
pub(super) fn wait_some(seed: u64, objects: &mut [Value], schedule: &mut [Value]) {
    let mut rng = Rng::stream(seed, 0x9FB2_1C65_1E98_DF25, 0x0005_7A17);
    if schedule.is_empty() || !rng.percent(20) {
        return;
    }
    let nodes: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_owned))
        .collect();
    // The highest class that may preempt: a waiting pod given it outranks the pods it preempted.
    let top_class = objects
        .iter()
        .filter(|o| o["kind"] == "PriorityClass" && o["preemptionPolicy"] != "Never")
        .max_by_key(|o| o["value"].as_i64().unwrap_or(0))
        .and_then(|o| o["metadata"]["name"].as_str().map(str::to_owned));
    let busy: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .filter_map(|o| o["spec"]["nodeName"].as_str().map(str::to_owned))
        .collect();
    let base = 1_699_990_000;
    let waiting = rng.range(1, schedule.len().min(6) as i64) as usize;
    let mut nominated_nodes = Vec::new();
    for _ in 0..waiting {
        let index = rng.range(0, schedule.len() as i64 - 1) as usize;
        let pod = &mut schedule[index];
        // Few distinct times, so that equal timestamps (input order decides) occur.
        let created = base + 60 * rng.range(0, 4);
        pod["metadata"]["creationTimestamp"] = json!(format_time(created));
        pod["metadata"]["uid"] = json!(format!("waiting-{seed}-{index}"));
        let mut status = json!({"phase": "Pending"});
        if !nodes.is_empty() && rng.percent(60) {
            let node = if rng.percent(10) {
                String::from("node-gone")
            } else if !busy.is_empty() && rng.percent(60) {
                rng.pick(&busy).clone()
            } else {
                rng.pick(&nodes).clone()
            };
            if let Some(class) = top_class.as_ref().filter(|_| rng.percent(40)) {
                pod["spec"]["priorityClassName"] = json!(class);
                if let Some(spec) = pod["spec"].as_object_mut() {
                    spec.remove("priority");
                    spec.remove("preemptionPolicy");
                }
            }
            status["nominatedNodeName"] = json!(node);
            nominated_nodes.push(node);
        }
        pod["status"] = status;
    }
    // Victims of an earlier preemption, still terminating on a nominated node.
    for node in nominated_nodes {
        if !rng.percent(50) {
            continue;
        }
        for object in objects.iter_mut() {
            let on_node = object["kind"] == "Pod" && object["spec"]["nodeName"] == node.as_str();
            if !on_node || !rng.percent(50) {
                continue;
            }
            object["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:10:00Z");
            object["metadata"]["deletionGracePeriodSeconds"] = json!(30);
            let condition = json!({
                "type": "DisruptionTarget", "status": "True",
                "reason": "PreemptionByScheduler",
                "message": "default-scheduler: preempting to accommodate a higher priority pod",
            });
            object["status"]["conditions"] = json!([condition]);
        }
    }
}
