//! Building an [`Analysis`]: the loader's result and the engine's settled placement grouped by
//! zone and node for the views, afresh or after an edit (documents and placement reused).

use std::collections::BTreeMap;

use spreadlab_engine::KubeVersion;
use spreadlab_engine::analysis::settle;
use spreadlab_engine::model::{LABEL_ZONE, Pod};
use spreadlab_engine::scheduler::Simulation;
use spreadlab_k8s::{DocumentCache, Source, WorkloadKind};

use super::{
    AGGREGATE_ABOVE_NODES, Analysis, Issue, NO_ZONE, NodeView, PodChip, SOURCE_NAME, Usage,
    WorkloadView, ZoneView, group_nodes, pod_key,
};
use crate::release::options_for;

/// Loads `text`, expands workloads into the pods their controllers would create, simulates with
/// the kube-scheduler of `version`.
pub fn analyse_for(text: &str, version: KubeVersion) -> Analysis {
    analyse_with(text, version, None, None)
}

/// [`analyse_for`] after an edit: the YAML documents `cache` holds from the last read are not
/// parsed again, and when the edit leaves the scenario as `previous` had it (same release, same
/// cluster and workloads: a comment, spacing, a field the scheduler never reads), its settled
/// placement is kept instead of settled again. Either way the result is [`analyse_for`]'s: a
/// settlement is a function of the scenario and the release only.
pub fn analyse_after(
    text: &str,
    version: KubeVersion,
    previous: Option<&Analysis>,
    cache: &mut DocumentCache,
) -> Analysis {
    analyse_with(text, version, previous, Some(cache))
}

/// Prepares reading `text` into `cache` in slices, under the options [`analyse_after`] reads it
/// with (a big import is parsed between frames: `DocumentCache::warm`).
pub fn warm_up(
    text: &str,
    version: KubeVersion,
    cache: &mut DocumentCache,
) -> spreadlab_k8s::Warmup {
    cache.warm_up(text, &crate::release::load_options_for(version))
}

fn analyse_with(
    text: &str,
    version: KubeVersion,
    previous: Option<&Analysis>,
    cache: Option<&mut DocumentCache>,
) -> Analysis {
    let sources = [Source {
        name: SOURCE_NAME.into(),
        text: text.into(),
    }];
    let options = crate::release::load_options_for(version);
    let loaded = match cache {
        Some(cache) => spreadlab_k8s::load_cached(&sources, &options, cache),
        None => spreadlab_k8s::load(&sources, &options),
    };
    let errors = loaded
        .errors
        .iter()
        .map(|e| Issue {
            line: e.line,
            column: e.column,
            message: e.to_string(),
        })
        .collect();
    let warnings = loaded
        .warnings
        .iter()
        .map(|w| Issue {
            line: w.line,
            column: w.column,
            message: w.to_string(),
        })
        .collect();

    // The previous settlement is kept when the scenario is the same: known from the load's
    // inputs when they are equal (a comment, spacing: no scenario built), else by comparing the
    // scenarios (`previous.settled` is always of `previous.loaded.scenario()`); a scenario built
    // for that comparison is the one settled when they differ.
    let mut scenario = None;
    let kept = previous.filter(|previous| {
        previous.version == version
            && (previous.loaded.same_scenario_as(&loaded)
                || previous.settled.scenario == *scenario.insert(loaded.scenario()))
    });
    let (settled, explained) = match kept {
        Some(previous) => (
            previous.settled.clone(),
            previous.explained.borrow().clone(),
        ),
        None => {
            let scenario = scenario.unwrap_or_else(|| loaded.scenario());
            (
                std::rc::Rc::new(settle(scenario, &options_for(version))),
                BTreeMap::new(),
            )
        }
    };
    let mut workload_of: BTreeMap<String, usize> = BTreeMap::new();
    for (index, workload) in settled.scenario.workloads.iter().enumerate() {
        for running in &workload.running {
            workload_of.insert(running.clone(), index);
        }
        for pod in &workload.to_create {
            workload_of.insert(pod.key(), index);
        }
    }
    let node_count = loaded.cluster.nodes.len();
    let Simulation {
        decisions,
        snapshot,
    } = &settled.simulation;

    let decision_index: BTreeMap<String, usize> = decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (pod_key(d), i))
        .collect();
    let chip = |pod: &Pod| PodChip {
        key: pod.key(),
        workload: workload_of.get(&pod.key()).copied(),
        revision: pod
            .labels
            .get("pod-template-hash")
            .or_else(|| pod.labels.get("controller-revision-hash"))
            .cloned(),
        new: decision_index.contains_key(&pod.key()),
        decision: decision_index.get(&pod.key()).copied(),
    };

    let mut by_zone: BTreeMap<String, Vec<NodeView>> = BTreeMap::new();
    for (index, info) in snapshot.nodes.iter().enumerate() {
        let zone = info
            .node
            .labels
            .get(LABEL_ZONE)
            .cloned()
            .unwrap_or_else(|| NO_ZONE.into());
        let gpu = info
            .allocatable
            .scalar
            .iter()
            .find(|(name, _)| name.ends_with("/gpu"))
            .map(|(name, allocatable)| {
                (
                    name.clone(),
                    Usage {
                        requested: info.requested.get(name),
                        allocatable: *allocatable,
                    },
                )
            });
        by_zone.entry(zone).or_default().push(NodeView {
            name: info.node.name.clone(),
            cpu: Usage {
                requested: info.requested.milli_cpu,
                allocatable: info.allocatable.milli_cpu,
            },
            memory: Usage {
                requested: info.requested.memory,
                allocatable: info.allocatable.memory,
            },
            gpu,
            taints: info
                .node
                .taints
                .iter()
                .map(|t| {
                    if t.value.is_empty() {
                        format!("{}:{}", t.key, t.effect.as_str())
                    } else {
                        format!("{}={}:{}", t.key, t.value, t.effect.as_str())
                    }
                })
                .collect(),
            unschedulable: info.node.unschedulable,
            pods: snapshot.pods_on(index).map(|p| chip(&p.pod)).collect(),
        });
    }
    let aggregate = node_count > AGGREGATE_ABOVE_NODES;
    let mut zones: Vec<ZoneView> = by_zone
        .into_iter()
        .map(|(name, nodes)| {
            let node_count = nodes.len();
            if aggregate {
                ZoneView {
                    name,
                    groups: group_nodes(&nodes),
                    nodes: Vec::new(),
                    node_count,
                }
            } else {
                ZoneView {
                    name,
                    nodes,
                    groups: Vec::new(),
                    node_count,
                }
            }
        })
        .collect();
    // The no-zone column goes last.
    zones.sort_by_key(|z| z.name == NO_ZONE);

    let pending = settled
        .workloads()
        .iter()
        .flat_map(|w| &w.to_create)
        .filter(|p| {
            decision_index
                .get(&p.key())
                .is_some_and(|&i| decisions[i].node.is_none())
        })
        .map(chip)
        .collect();
    let workloads = loaded
        .workloads
        .iter()
        .enumerate()
        .map(|(index, workload)| {
            let mine = decisions
                .iter()
                .filter(|d| workload_of.get(&pod_key(d)) == Some(&index));
            let (placed, pending) = mine.fold((0, 0), |(placed, pending), d| {
                if d.node.is_some() {
                    (placed + 1, pending)
                } else {
                    (placed, pending + 1)
                }
            });
            WorkloadView {
                key: workload.key(),
                desired: workload.replicas,
                running: if workload.kind == WorkloadKind::Pod {
                    0
                } else {
                    settled.workloads()[index].running.len()
                },
                placed,
                pending: pending + settled.workloads()[index].not_built,
                not_built: settled.workloads()[index].not_built,
            }
        })
        .collect();
    Analysis {
        errors,
        warnings,
        workloads,
        zones,
        pending,
        node_count,
        explained: std::cell::RefCell::new(explained),
        loaded,
        settled,
        version,
        text: text.into(),
    }
}
