//! One scheduling cycle per pod, in sequence: `pkg/scheduler/schedule_one.go` (`schedulePod`,
//! `findNodesThatFitPod`, `prioritizeNodes`, `selectHost`) and the PostFilter step of
//! `schedulingCycle`; binding updates the snapshot before the next pod.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use super::explain::*;
use super::*;
use crate::framework::node_tree::{self, Sample};
use crate::framework::{
    Code, Diagnosis, PluginName, PodInfo, Snapshot, Status, fit_error_message,
    run_filter_with_nominated_pods, run_pre_filter, run_score, runtime,
};
use crate::model::{Cluster, Pod};
use crate::plugins::default_preemption::{self, PreemptionOutcome};
use crate::plugins::pod_topology_spread;

use super::queue::{enqueue_waiting, queue_order, queued_nomination};

/// Schedules `pods` one after another on `cluster`, in queue order, binding each placed pod before
/// the next one is considered.
pub fn simulate(cluster: &Cluster, pods: &[Pod], options: &Options) -> Simulation {
    let (mut snapshot, _warnings) = Snapshot::new(cluster, options.profile.version);
    enqueue_waiting(&mut snapshot, pods, options.profile.version);
    let mut decisions = Vec::with_capacity(pods.len());
    for index in queue_order(pods) {
        decisions.push(schedule_and_bind(&mut snapshot, &pods[index], options));
    }
    Simulation {
        decisions,
        snapshot,
    }
}

/// Schedules `pods` on `snapshot` as [`simulate`] does on a cluster, leaving the snapshot as
/// the last binding left it; the decisions, in queue order.
pub fn simulate_on(snapshot: &mut Snapshot, pods: &[Pod], options: &Options) -> Vec<PodDecision> {
    enqueue_waiting(snapshot, pods, options.profile.version);
    queue_order(pods)
        .into_iter()
        .map(|index| schedule_and_bind(snapshot, &pods[index], options))
        .collect()
}

/// Schedules one pod and binds it when placed (evicting preemption victims first).
pub fn schedule_and_bind(snapshot: &mut Snapshot, pod: &Pod, options: &Options) -> PodDecision {
    let info = PodInfo::new(pod.clone());
    // `PriorityQueue.Add`: a pod entering the queue now with `status.nominatedNodeName` is
    // nominated there (a waiting pod was at the start, see `enqueue_waiting`).
    if let Some(node) =
        queued_nomination(snapshot, pod, options.profile.version).filter(|_| !pod.waiting)
    {
        snapshot.nominate(info.clone(), node);
    }
    let mut decision = schedule_one(snapshot, &info, options);
    if decision.nomination_cleared {
        snapshot.clear_nomination(&pod.namespace, &pod.name);
    }
    if let Some(mut preemption) = decision.preemption.take() {
        // The victims are deleted; the pod is retried and tries its nominated node first.
        let victims: Vec<usize> = preemption_victim_ids(snapshot, &preemption);
        for id in victims {
            snapshot.remove(id);
        }
        let nominated = snapshot.node_index[&preemption.nominated_node];
        // prepareCandidateAsync: lower-priority pods nominated to the node lose their
        // nomination, unless there is no victim to delete (it returns before that step).
        if !preemption.victims.is_empty() {
            snapshot
                .nominated
                .retain(|n| n.node != nominated || n.info.pod.priority >= info.pod.priority);
        }
        let (state, pre_filter) = run_pre_filter(&options.profile, snapshot, &info);
        let fits = pre_filter.status.is_success()
            && run_filter_with_nominated_pods(&options.profile, &state, snapshot, &info, nominated)
                .is_success();
        if fits {
            // The retry evaluates only the nominated node and binds it without scoring, so no
            // node is "top-scored"; the message stays the FitError of the preempting cycle, which
            // is what the pod's FailedScheduling event shows (both checked with the oracle).
            crate::plugins::registry::reserve(&options.profile, snapshot, &info, nominated);
            snapshot.clear_nomination(&pod.namespace, &pod.name);
            snapshot.bind(info, nominated);
            decision.node = Some(preemption.nominated_node.clone());
            preemption.placed = true;
        } else {
            // The pod stays Pending, nominated: later pods of no higher priority must leave room
            // for it on that node (`RunFilterPluginsWithNominatedPods`).
            snapshot.nominate(info, nominated);
        }
        decision.preemption = Some(preemption);
        return decision;
    }
    if let Some(node) = &decision.node {
        let node_index = snapshot.node_index[node];
        crate::plugins::registry::reserve(&options.profile, snapshot, &info, node_index);
        // Assume: `DeleteNominatedPodIfExists`.
        snapshot.clear_nomination(&pod.namespace, &pod.name);
        snapshot.bind(info, node_index);
    }
    decision
}

/// The victims' arena ids, in the order they leave their node: by namespace and name.
/// Upstream deletes them in parallel (`prepareCandidate`), so the order the cache removes them in,
/// which decides the node's pod order after (`removeFromSlice`), is not fixed there; here it
/// depends on the pods alone, not on their arena ids (a snapshot kept up to date by a watched
/// cluster's changes numbers them in arrival order).
fn preemption_victim_ids(snapshot: &Snapshot, preemption: &PreemptionReport) -> Vec<usize> {
    let mut victims: Vec<usize> = snapshot
        .pods
        .iter()
        .enumerate()
        .filter_map(|(id, p)| {
            p.as_ref()
                .filter(|p| preemption.victims.contains(&p.pod.key()))
                .map(|_| id)
        })
        .collect();
    victims.sort_by(|&a, &b| {
        let (a, b) = (&snapshot.pod(a).pod, &snapshot.pod(b).pod);
        (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name))
    });
    victims
}

/// How many tied node names a decision keeps without [`Detail::All`] (the count is always exact).
pub const TIED_NODES_KEPT_WITHOUT_DETAIL: usize = 32;

/// One scheduling cycle (no binding). PostFilter dry runs leave the snapshot unchanged.
pub fn schedule_one(snapshot: &mut Snapshot, pod: &PodInfo, options: &Options) -> PodDecision {
    let profile = &options.profile;
    let n_nodes = snapshot.num_nodes();
    let mut decision = PodDecision {
        namespace: pod.pod.namespace.clone(),
        name: pod.pod.name.clone(),
        node: None,
        waiting: pod.pod.waiting,
        nominated_node: None,
        nomination_cleared: false,
        evaluated_nodes: 0,
        sampled: false,
        tied_nodes: Vec::new(),
        tied_count: 0,
        message: None,
        scheduler_error: false,
        feasible_nodes: 0,
        real_scheduler_samples: (n_nodes >= 100)
            .then(|| profile.num_feasible_nodes_to_find(n_nodes)),
        preemption: None,
        explanation: None,
    };
    if pod.pod.scheduling_gated {
        decision.message = Some(String::from(SCHEDULING_GATED_MSG));
        return decision;
    }
    if n_nodes == 0 {
        decision.message = Some(String::from(NO_NODES_AVAILABLE_MSG));
        return decision;
    }
    // The node the nominator holds for the pod (`status.nominatedNodeName`).
    let nominated_node = snapshot.nomination_of(&pod.pod.namespace, &pod.pod.name);
    decision.nominated_node = nominated_node.map(|n| snapshot.nodes[n].node.name.clone());
    let (state, pre_filter) = run_pre_filter(profile, snapshot, pod);
    // Per node: `None` when the node passed every filter, else the failing status. Filled for
    // every node when a pod stays Pending or every detail is kept; a cycle that filters by node
    // class and places the pod never needs it.
    let mut statuses: Vec<Option<Status>> = Vec::new();
    let mut feasible: Vec<usize> = Vec::new();
    let mut diagnosis = Diagnosis::default();
    // The nominated node's Filter status when it did not pass.
    let mut nominated_failure: Option<(usize, Status)> = None;
    // The nodes the Filter pass processed when it stopped early (node sampling).
    let mut sampled: Option<Vec<usize>> = None;
    // The first feasible node of each class, when the class pass found them and `feasible` is
    // still the nodes it found.
    let mut firsts: Option<Vec<usize>> = None;
    if pre_filter.status.code == Code::Error {
        // `findNodesThatFitPod` returns a PreFilter error before any Filter runs.
        return cycle_error::fail(decision, cycle_error::pre_filter(&pre_filter.status));
    }
    let pre_filter_rejected = pre_filter.status.code.is_rejected();
    if pre_filter_rejected {
        let status = pre_filter.status.clone();
        diagnosis.pre_filter_msg = Some(status.message());
        statuses = alloc::vec![Some(status.clone()); n_nodes];
        diagnosis.absent_nodes_status = Some(status);
    } else {
        // `evaluateNominatedNode`: the nominated node is tried first (before and regardless of
        // the PreFilter result's narrowing); when it passes, the pod goes there unscored.
        if let Some(node) = nominated_node {
            let status = run_filter_with_nominated_pods(profile, &state, snapshot, pod, node);
            if status.is_success() {
                let name = snapshot.nodes[node].node.name.clone();
                decision.feasible_nodes = 1;
                decision.evaluated_nodes = 1;
                decision.tied_count = 1;
                decision.tied_nodes = alloc::vec![name.clone()];
                decision.node = Some(name.clone());
                if options.detail == Detail::All {
                    let statuses = alloc::vec![None; n_nodes];
                    let mut explained =
                        explanation(snapshot, pod, &pre_filter, &state, &statuses, None);
                    explained.nodes.retain(|verdict| verdict.node == name);
                    decision.explanation = Some(explained);
                }
                return decision;
            }
            // An error there is only logged (`Evaluation failed on nominated node`): the node
            // keeps no status, and the pass below meets the same error on it.
            if status.code != Code::Error {
                nominated_failure = Some((node, status));
            }
        }
        // Per node, whether the PreFilter result keeps it (`None`: every node).
        let in_pass: Option<Vec<bool>> = pre_filter.node_names.as_ref().map(|names| {
            snapshot
                .nodes
                .iter()
                .map(|info| names.contains(&info.node.name))
                .collect()
        });
        let in_result = |node: usize| in_pass.as_ref().is_none_or(|set| set[node]);
        let absent = pre_filter.node_names.as_ref().map(|_| {
            let mut plugins = pre_filter.narrowing_plugins.clone();
            // The nominated node's check adds its rejecting plugin to the same set
            // (`Diagnosis.AddPluginStatus` on the diagnosis copy shares UnschedulablePlugins).
            plugins.extend(
                nominated_failure
                    .as_ref()
                    .filter(|(_, status)| status.code.is_rejected())
                    .and_then(|(_, status)| status.plugin),
            );
            plugins.sort();
            plugins.dedup();
            Status::new(
                Code::UnschedulableAndUnresolvable,
                alloc::format!(
                    "node(s) didn't satisfy plugin(s) [{}]",
                    crate::framework::runtime::join_names(&plugins)
                ),
            )
        });
        // Nodes with nominated pods to count are checked after the others, without the cache.
        let mut with_nominated: Vec<usize> = snapshot.nominated.iter().map(|n| n.node).collect();
        with_nominated.sort_unstable();
        with_nominated.dedup();
        with_nominated.retain(|node| !snapshot.nominated_for(pod, *node).is_empty());
        let plan = runtime::FilterPlan::new(profile, &state);
        // Alike nodes are filtered once per class when no plugin reads a node's identity; every
        // detail (the playground's per-node view) is computed node by node.
        let mut class_verdicts = None;
        // The nodes processed when the class pass stopped early, as upstream's does.
        let mut stopped: Option<Vec<usize>> = None;
        if options.detail != Detail::All
            && pre_filter.node_names.is_none()
            && runtime::filters_by_class(profile, &state, pod)
        {
            runtime::refresh_node_classes(snapshot);
            let tree = snapshot.node_tree();
            let walk = runtime::FilterWalk {
                order: &tree,
                start: snapshot.next_start_node_index,
                limit: profile.num_feasible_nodes_to_find(n_nodes),
            };
            let filtered = runtime::run_filter_by_class(
                profile,
                &state,
                &plan,
                snapshot,
                pod,
                &with_nominated,
                Some(walk),
            );
            feasible = filtered.feasible;
            // Nodes with nominated pods join `feasible` below, outside the class pass.
            firsts = filtered.firsts.filter(|_| with_nominated.is_empty());
            class_verdicts = Some(filtered.verdicts);
            stopped = filtered.stopped;
        } else {
            statuses = alloc::vec![None; n_nodes];
            feasible.reserve(n_nodes);
            let mut cache = runtime::prepare_node_local_cache(profile, snapshot, pod);
            for (node_index, node_status) in statuses.iter_mut().enumerate() {
                if !in_result(node_index) {
                    *node_status = absent.clone();
                    continue;
                }
                if with_nominated.binary_search(&node_index).is_ok() {
                    continue;
                }
                let status = runtime::run_filter_cached(
                    profile, &state, &plan, snapshot, pod, node_index, &mut cache,
                );
                if status.is_success() {
                    feasible.push(node_index);
                } else {
                    *node_status = Some(status);
                }
            }
        }
        for &node_index in &with_nominated {
            if !in_result(node_index) {
                continue;
            }
            let status = run_filter_with_nominated_pods(profile, &state, snapshot, pod, node_index);
            if status.is_success() {
                feasible.push(node_index);
            } else {
                if statuses.is_empty() {
                    statuses = alloc::vec![None; n_nodes];
                }
                statuses[node_index] = Some(status);
            }
        }
        // A pass that stopped early placed the pod: no node's status is needed.
        if let Some(verdicts) = &class_verdicts
            && stopped.is_none()
            && (feasible.is_empty() || options.detail != Detail::None || verdicts.has_error())
        {
            let class_of = runtime::node_classes(snapshot);
            // Every node gets its class's verdict (nominated nodes keep their own).
            if statuses.is_empty() {
                statuses = alloc::vec![None; n_nodes];
            }
            for (node_index, status) in statuses.iter_mut().enumerate() {
                if with_nominated.binary_search(&node_index).is_err() {
                    *status = verdicts.of(class_of[node_index]).cloned().flatten();
                }
            }
        }
        // A nominated node the PreFilter result leaves out keeps the status of its own check.
        let nominated_outside = nominated_failure
            .as_ref()
            .filter(|(node, _)| !in_result(*node));
        if let Some((node, status)) = nominated_outside {
            if statuses.is_empty() {
                statuses = alloc::vec![None; n_nodes];
            }
            statuses[*node] = Some(status.clone());
        }
        let nominated_outside = nominated_outside.map(|(node, _)| *node);
        // Both passes list nodes in node order; nodes with nominated pods come after.
        if !with_nominated.is_empty() {
            feasible.sort_unstable();
        }
        // `findNodesThatPassFilters` stops once `numFeasibleNodesToFind` feasible nodes are
        // found, walking the node tree from `nextStartNodeIndex` (framework/node_tree.rs).
        let pass_len = in_pass
            .as_ref()
            .map_or(n_nodes, |set| set.iter().filter(|&&kept| kept).count());
        let limit = profile.num_feasible_nodes_to_find(pass_len);
        let nominated_failed = nominated_failure.as_ref().map(|(node, _)| *node);
        let failed = cycle_error::filter(snapshot, &statuses, &in_result, limit, nominated_failed);
        if let Some(error) = failed {
            return cycle_error::fail(decision, error);
        }
        // The class pass stopped as upstream's does, or the pass is narrowed to where it would.
        let narrowed = match stopped {
            Some(processed) => Some(Sample {
                feasible: core::mem::take(&mut feasible),
                processed,
            }),
            None => (feasible.len() > limit).then(|| {
                let tree = snapshot.node_tree();
                let start = snapshot.next_start_node_index;
                node_tree::sample_feasible(&tree, in_pass.as_deref(), start, limit, &feasible)
            }),
        };
        let mut processed = pass_len;
        if let Some(sample) = narrowed {
            processed = sample.processed.len();
            feasible = sample.feasible;
            sampled = Some(sample.processed);
            firsts = None;
            decision.sampled = true;
        }
        // `processedNodes` is `len(feasibleNodes) + NodeToStatus.Len()`: the nominated node's
        // failed check left its status there even where this pass did not reach it.
        if let Some((node, _)) = &nominated_failure {
            let reached = match &sampled {
                Some(walked) => walked.contains(node),
                None => in_result(*node),
            };
            processed += usize::from(!reached);
        }
        decision.evaluated_nodes = processed;
        snapshot.next_start_node_index = (snapshot.next_start_node_index + processed) % n_nodes;
        if feasible.is_empty() {
            // Nodes with an explicit Filter status; narrowed-out ones count through the absent status.
            diagnosis.node_statuses = statuses
                .iter()
                .enumerate()
                .filter(|(i, _)| nominated_outside == Some(*i) || in_result(*i))
                .filter_map(|(i, s)| {
                    s.as_ref()
                        .map(|s| (snapshot.nodes[i].node.name.clone(), s.clone()))
                })
                .collect();
        }
        diagnosis.absent_nodes_status = absent;
    }
    decision.feasible_nodes = feasible.len();

    if feasible.is_empty() {
        diagnosis.post_filter_msg = if !profile.post_filter {
            None
        } else if pre_filter_rejected {
            // A PreFilter rejection stops the PreFilter loop before DynamicResources writes its
            // state; its PostFilter then fails reading it, and that error (`not found`) ends the
            // PostFilter loop before DefaultPreemption runs (verified with the oracle).
            Some(String::from(DYNAMIC_RESOURCES_STATE_NOT_FOUND))
        } else {
            // The nominated node's status in the cycle's NodeToStatus (absent: the PreFilter
            // result's UnschedulableAndUnresolvable).
            let nominated = nominated_node.map(|node| {
                let code = statuses
                    .get(node)
                    .cloned()
                    .flatten()
                    .map_or(Code::UnschedulableAndUnresolvable, |s| s.code);
                (node, code)
            });
            match default_preemption::post_filter(
                profile, snapshot, &state, pod, &statuses, nominated,
            ) {
                PreemptionOutcome::Nominated(nominated) => {
                    let equal: Vec<usize> = nominated
                        .tied
                        .iter()
                        .map(|&c| nominated.candidates[c].node)
                        .collect();
                    let eligible: Vec<usize> = if nominated.sampled {
                        nominated.candidates.iter().map(|c| c.node).collect()
                    } else {
                        Vec::new()
                    };
                    let node = options
                        .tie_break
                        .pick(snapshot, &pod.pod, &equal, &eligible);
                    let tied_candidates = equal
                        .iter()
                        .map(|&n| snapshot.nodes[n].node.name.clone())
                        .collect();
                    let n_candidates = nominated.candidates.len();
                    let candidate = nominated
                        .candidates
                        .into_iter()
                        .find(|c| c.node == node)
                        .expect("the pick is a candidate");
                    let nominated_node = snapshot.nodes[candidate.node].node.name.clone();
                    let success_message = default_preemption::success_message(
                        profile.version,
                        &nominated_node,
                        candidate.victims.len(),
                    );
                    let mut first_attempt = diagnosis.clone();
                    first_attempt.post_filter_msg = success_message.clone();
                    decision.preemption = Some(PreemptionReport {
                        tied_candidates,
                        candidates: n_candidates,
                        candidates_sampled: nominated.sampled,
                        nominated_node,
                        // From v1.35, victims already terminating are not deleted again
                        // (upstream's prepareCandidate skips them); they keep their resources
                        // until they go. v1.34 deletes every victim (preemption.go
                        // prepareCandidateAsync), and the oracle's API removes it at once.
                        victims: candidate
                            .victims
                            .iter()
                            .filter(|v| {
                                !(profile.version.since(35) && snapshot.pod(**v).pod.terminating)
                            })
                            .map(|v| snapshot.pod(*v).pod.key())
                            .collect(),
                        pdb_violations: candidate.num_pdb_violations,
                        first_attempt_message: fit_error_message(n_nodes, &first_attempt),
                        placed: false,
                    });
                    success_message
                }
                PreemptionOutcome::Failed(message) => {
                    Some(with_dynamic_resources_note(profile.version, message))
                }
                PreemptionOutcome::NoCandidates(message) => {
                    decision.nomination_cleared = true;
                    Some(with_dynamic_resources_note(profile.version, message))
                }
                // An Error ends RunPostFilterPlugins at once: no DynamicResources note, and no
                // result, so the nomination stays.
                PreemptionOutcome::Error(message) => Some(message),
            }
        };
        decision.message = Some(fit_error_message(n_nodes, &diagnosis));
        if options.detail != Detail::None {
            decision.explanation = Some(explanation(
                snapshot,
                pod,
                &pre_filter,
                &state,
                &statuses,
                None,
            ));
        }
        return decision;
    }

    let mut scores = None;
    let tied: Vec<usize> = if feasible.len() == 1 {
        feasible
    } else {
        // Alike nodes are scored once per class when no score plugin reads a node's identity.
        let (outcome, tied) =
            if options.detail != Detail::All && runtime::scores_by_class(profile, snapshot, pod) {
                runtime::refresh_node_classes(snapshot);
                runtime::run_score_by_class(profile, snapshot, pod, feasible, firsts)
            } else {
                let outcome = run_score(profile, snapshot, pod, &feasible);
                let tied = super::tie::best(&feasible, &outcome.totals);
                (outcome, tied)
            };
        if let Some((plugin, error)) = outcome
            .plugins
            .iter()
            .find_map(|p| p.error.as_ref().map(|e| (p.plugin, e)))
        {
            // A PreScore error fails the cycle; the pod stays Pending.
            return cycle_error::fail(decision, cycle_error::pre_score(plugin, error));
        }
        scores = Some(outcome);
        tied
    };
    decision.tied_count = tied.len();
    let chosen = options.tie_break.pick(snapshot, &pod.pod, &tied, &[]);
    decision.node = Some(snapshot.nodes[chosen].node.name.clone());
    // The whole tied list is per-node detail: a placed pod without it keeps the first names
    // (an explanation on demand has them all), so a cluster of alike nodes does not cost pods ×
    // nodes names.
    let kept = if options.detail == Detail::All {
        usize::MAX
    } else {
        TIED_NODES_KEPT_WITHOUT_DETAIL
    };
    decision.tied_nodes = tied
        .iter()
        .take(kept)
        .map(|i| snapshot.nodes[*i].node.name.clone())
        .collect();
    if options.detail == Detail::All {
        let mut explained = explanation(
            snapshot,
            pod,
            &pre_filter,
            &state,
            &statuses,
            scores.as_ref(),
        );
        if let Some(processed) = &sampled {
            // Only the nodes the pass processed have a verdict.
            let names: BTreeSet<&str> = processed
                .iter()
                .map(|&n| snapshot.nodes[n].node.name.as_str())
                .collect();
            explained
                .nodes
                .retain(|verdict| names.contains(verdict.node.as_str()));
        }
        if let Some(scores) = &scores
            && options
                .profile
                .scores
                .iter()
                .any(|(p, _)| *p == PluginName::PodTopologySpread)
        {
            explained.soft_spread = soft_spread_explanations(
                pod_topology_spread::pre_score(
                    &options.profile.spread,
                    pod,
                    snapshot,
                    &scores.nodes,
                )
                .as_ref(),
                snapshot,
                &scores.nodes,
            );
        }
        decision.explanation = Some(explained);
    }
    decision
}
