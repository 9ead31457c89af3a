//! One scheduling cycle per pod, in sequence, with a full explanation of every decision.
//! Mirrors kubernetes v1.35 `pkg/scheduler/schedule_one.go` (`schedulePod`, `findNodesThatFitPod`,
//! `prioritizeNodes`, `selectHost`) and the PostFilter step of `schedulingCycle`.
//!
//! Where kube-scheduler is nondeterministic the engine is not: every node is evaluated (the real
//! scheduler samples when there are 100 nodes or more; the report says so), and among nodes with the
//! top score the first in node input order is chosen (the real one picks any; the report lists them).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::{
    Code, Diagnosis, PluginName, PodInfo, PreFilterOutcome, Profile, Snapshot, Status,
    fit_error_message, run_filter_with_nominated_pods, run_pre_filter, run_score,
};
use crate::model::{Cluster, Pod};
use crate::plugins::default_preemption::{self, PreemptionOutcome};
use crate::plugins::pod_topology_spread;

/// The message of a pod whose `schedulingGates` keep it out of the queue (condition reason SchedulingGated).
pub const SCHEDULING_GATED_MSG: &str = "Scheduling is blocked due to non-empty scheduling gates";
/// `ErrNoNodesAvailable`.
pub const NO_NODES_AVAILABLE_MSG: &str = "no nodes available to schedule pods";
/// The DynamicResources PostFilter error after a PreFilter rejection (its cycle state was never written).
pub const DYNAMIC_RESOURCES_STATE_NOT_FOUND: &str = "not found";
/// The DynamicResources PostFilter reason for pods without resource claims.
pub const NO_NEW_CLAIMS_TO_DEALLOCATE: &str = "no new claims to deallocate";

/// How much detail to keep per pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Per-node verdicts and scores for every pod (memory grows with pods × nodes).
    All,
    /// Per-node detail only for pods left Pending; placed pods keep the summary.
    PendingOnly,
    /// Summaries only.
    None,
}

/// How the engine chooses among equals where the real scheduler picks at random: nodes sharing the
/// top score (`selectHost`) and equally ranked preemption candidates (`pickOneNodeForPreemption`
/// walks a map).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TieBreak {
    /// The first in node input order.
    #[default]
    FirstInNodeOrder,
    /// A pseudo-random pick drawn from the seed and the pod's `namespace/name` (the same seed
    /// gives the same picks on every platform): one of the real scheduler's possible outcomes.
    Seeded(u64),
    /// Per pod (`namespace/name`), the node to pick when it is one of the equals (for preemption,
    /// also any candidate when the real scheduler would only have examined a random subset of
    /// the candidates); otherwise the first in node order. Replays an observed run.
    Follow(BTreeMap<String, String>),
}

impl TieBreak {
    /// Picks one of `equal` (non-empty, node order); `eligible` are further nodes the pick may
    /// follow to (a preemption candidate outside the best-ranked ones).
    fn pick(&self, snapshot: &Snapshot, pod: &Pod, equal: &[usize], eligible: &[usize]) -> usize {
        match self {
            TieBreak::FirstInNodeOrder => equal[0],
            TieBreak::Seeded(seed) => {
                let mut hash = *seed ^ 0xcbf2_9ce4_8422_2325;
                for byte in pod.namespace.bytes().chain([b'/']).chain(pod.name.bytes()) {
                    hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
                equal[(splitmix64(hash) % equal.len() as u64) as usize]
            }
            TieBreak::Follow(choices) => {
                let key = alloc::format!("{}/{}", pod.namespace, pod.name);
                choices
                    .get(&key)
                    .and_then(|name| snapshot.node_index.get(name))
                    .copied()
                    .filter(|node| equal.contains(node) || eligible.contains(node))
                    .unwrap_or(equal[0])
            }
        }
    }
}

/// The `splitmix64` finalizer: a well-mixed 64-bit value from any input.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Simulation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The profile.
    pub profile: Profile,
    /// The detail kept.
    pub detail: Detail,
    /// How ties are broken.
    pub tie_break: TieBreak,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            profile: Profile::default_v1_35(),
            detail: Detail::PendingOnly,
            tie_break: TieBreak::FirstInNodeOrder,
        }
    }
}

/// One plugin's score on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginScore {
    /// The plugin.
    pub plugin: PluginName,
    /// Score before NormalizeScore.
    pub raw: i64,
    /// Score after NormalizeScore (0..100).
    pub normalized: i64,
    /// `normalized × weight`.
    pub weighted: i64,
}

/// What happened to the pod on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    /// Node name.
    pub node: String,
    /// The filter verdict: Success, or the first failing plugin's status. Nodes removed by a PreFilter
    /// narrowing or rejection carry that status.
    pub filter: Status,
    /// Scores when the node was feasible and scoring ran (empty otherwise).
    pub scores: Vec<PluginScore>,
    /// The weighted total when scored.
    pub total: Option<i64>,
}

/// The spread arithmetic of one hard constraint for the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadExplanation {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// minDomains (1 when unset).
    pub min_domains: i32,
    /// The selector after the matchLabelKeys merge, in apimachinery's string form.
    pub selector: String,
    /// Matching pods per eligible domain.
    pub domains: BTreeMap<String, i64>,
    /// The global minimum used in the skew formula.
    pub global_minimum: i64,
    /// The most matching pods a domain may hold with this pod placed in it: `global_minimum +
    /// max_skew`. The filter rejects a domain when `matchNum + selfMatchNum - minMatchNum >
    /// maxSkew` (upstream pkg/scheduler/framework/plugins/podtopologyspread/filtering.go), i.e.
    /// when `count + self_match` exceeds this limit.
    pub limit: i64,
    /// Whether minDomains forced the global minimum to 0.
    pub min_domains_forced_zero: bool,
    /// Whether the pod matches its own selector (+1 on the candidate domain).
    pub self_match: bool,
}

/// One soft (`ScheduleAnyway`) spread constraint as PodTopologySpread's PreScore saw it: it only
/// scores (fewer matching pods in a node's domain, higher score), never rejects (upstream
/// pkg/scheduler/framework/plugins/podtopologyspread/scoring.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoftSpreadExplanation {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// The selector after the matchLabelKeys merge, in apimachinery's string form.
    pub selector: String,
    /// Matching pods per domain among the feasible nodes' domains (per feasible node for the
    /// hostname key), as counted for scoring.
    pub domains: BTreeMap<String, i64>,
}

/// The preemption attempt made for the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptionReport {
    /// The nominated node.
    pub nominated_node: String,
    /// Victims (`namespace/name`), most important first.
    pub victims: Vec<String>,
    /// Victims whose eviction violates a PodDisruptionBudget.
    pub pdb_violations: usize,
    /// The FitError message of the attempt that triggered preemption.
    pub first_attempt_message: String,
    /// Every node whose candidate ranks as high as the nominated one, in node order (the real
    /// scheduler picks any of them).
    pub tied_candidates: Vec<String>,
    /// How many nodes preemption would make room on.
    pub candidates: usize,
    /// Whether the real scheduler would have examined only a random subset of the candidate
    /// nodes (it stops at `max(10% of the nodes, 100)` candidates), so it may nominate a node
    /// ranked lower than this one.
    pub candidates_sampled: bool,
}

/// The full explanation of one scheduling decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Each PreFilter plugin's status, in order.
    pub pre_filter: Vec<(PluginName, Status)>,
    /// One verdict per node, in node order.
    pub nodes: Vec<NodeVerdict>,
    /// Hard spread constraints.
    pub spread: Vec<SpreadExplanation>,
    /// Soft (`ScheduleAnyway`) spread constraints as PodTopologySpread's PreScore counted them
    /// (empty when scoring did not run or the pod has none).
    pub soft_spread: Vec<SoftSpreadExplanation>,
    /// Required pod (anti-)affinity: which existing pods matched which term.
    pub affinity: Vec<AffinityExplanation>,
}

/// Which term of a required pod (anti-)affinity rule is explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AffinityRule {
    /// A required affinity term of the incoming pod (an existing pod must match all of them).
    Affinity,
    /// A required anti-affinity term of the incoming pod.
    AntiAffinity,
    /// A required anti-affinity term of an existing pod that the incoming pod matches.
    ExistingAntiAffinity,
}

/// The pods that matched one required term, and where they run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinityExplanation {
    /// Which rule.
    pub rule: AffinityRule,
    /// For [`AffinityRule::ExistingAntiAffinity`]: the pod that owns the term (`namespace/name`).
    pub owner: Option<String>,
    /// The term's topology key.
    pub topology_key: String,
    /// The term's label selector, in apimachinery's string form.
    pub selector: String,
    /// Matching pods (`namespace/name`, node, topology value), at most [`AFFINITY_MATCHES_LISTED`].
    pub matches: Vec<(String, String, Option<String>)>,
    /// How many pods matched in all.
    pub match_count: usize,
}

/// How many matching pods an [`AffinityExplanation`] lists.
pub const AFFINITY_MATCHES_LISTED: usize = 20;

/// The decision for one pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodDecision {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The node chosen, or `None` when Pending.
    pub node: Option<String>,
    /// The nodes with the top score, in node order (the real scheduler may pick any of them); with
    /// [`Detail::None`] only the first [`TIED_NODES_KEPT_WITHOUT_DETAIL`].
    pub tied_nodes: Vec<String>,
    /// How many nodes share the top score.
    pub tied_count: usize,
    /// The FitError message of the pod's first scheduling cycle when it did not place the pod:
    /// the pod is Pending, or it was placed after preempting (the FailedScheduling event's text).
    pub message: Option<String>,
    /// Feasible nodes found.
    pub feasible_nodes: usize,
    /// When the cluster has 100+ nodes: how many feasible nodes the real scheduler would have stopped at.
    pub real_scheduler_samples: Option<usize>,
    /// Preemption that placed the pod, if any.
    pub preemption: Option<PreemptionReport>,
    /// Per-node detail, when kept.
    pub explanation: Option<Explanation>,
}

/// The result of a simulation.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// Decisions in scheduling order.
    pub decisions: Vec<PodDecision>,
    /// The cluster state after the simulation.
    pub snapshot: Snapshot,
}

/// The scheduling queue order (`PrioritySort`): higher priority first, then arrival order.
pub fn queue_order(pods: &[Pod]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pods.len()).collect();
    order.sort_by(|a, b| pods[*b].priority.cmp(&pods[*a].priority).then(a.cmp(b)));
    order
}

/// Schedules `pods` one after another on `cluster`, in queue order, binding each placed pod before
/// the next one is considered.
pub fn simulate(cluster: &Cluster, pods: &[Pod], options: &Options) -> Simulation {
    let (mut snapshot, _warnings) = Snapshot::new(cluster);
    let mut decisions = Vec::with_capacity(pods.len());
    for index in queue_order(pods) {
        decisions.push(schedule_and_bind(&mut snapshot, &pods[index], options));
    }
    Simulation {
        decisions,
        snapshot,
    }
}

/// Schedules one pod and binds it when placed (evicting preemption victims first).
pub fn schedule_and_bind(snapshot: &mut Snapshot, pod: &Pod, options: &Options) -> PodDecision {
    let info = PodInfo::new(pod.clone());
    let mut decision = schedule_one(snapshot, &info, options);
    if let Some(preemption) = decision.preemption.take() {
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
            snapshot.bind(info, nominated);
            decision.node = Some(preemption.nominated_node.clone());
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
        snapshot.bind(info, node_index);
    }
    decision
}

fn preemption_victim_ids(snapshot: &Snapshot, preemption: &PreemptionReport) -> Vec<usize> {
    snapshot
        .pods
        .iter()
        .enumerate()
        .filter_map(|(id, p)| {
            p.as_ref()
                .filter(|p| preemption.victims.contains(&p.pod.key()))
                .map(|_| id)
        })
        .collect()
}

/// How many tied node names a decision keeps with [`Detail::None`] (the count is always exact).
pub const TIED_NODES_KEPT_WITHOUT_DETAIL: usize = 32;

/// One scheduling cycle (no binding). PostFilter dry runs leave the snapshot unchanged.
pub fn schedule_one(snapshot: &mut Snapshot, pod: &PodInfo, options: &Options) -> PodDecision {
    let profile = &options.profile;
    let n_nodes = snapshot.num_nodes();
    let mut decision = PodDecision {
        namespace: pod.pod.namespace.clone(),
        name: pod.pod.name.clone(),
        node: None,
        tied_nodes: Vec::new(),
        tied_count: 0,
        message: None,
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
    let (state, pre_filter) = run_pre_filter(profile, snapshot, pod);
    // Per node: `None` when the node passed every filter, else the failing status.
    let mut statuses: Vec<Option<Status>> = alloc::vec![None; n_nodes];
    let mut feasible: Vec<usize> = Vec::new();
    let mut diagnosis = Diagnosis::default();
    let pre_filter_rejected =
        pre_filter.status.code.is_rejected() || pre_filter.status.code == Code::Error;
    if pre_filter_rejected {
        let status = pre_filter.status.clone();
        diagnosis.pre_filter_msg = Some(status.message());
        statuses.iter_mut().for_each(|s| *s = Some(status.clone()));
        diagnosis.absent_nodes_status = Some(status);
    } else {
        let absent = pre_filter.node_names.as_ref().map(|_| {
            let mut plugins = pre_filter.narrowing_plugins.clone();
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
        let mut cache = crate::framework::runtime::prepare_node_local_cache(profile, snapshot, pod);
        for (node_index, node_status) in statuses.iter_mut().enumerate() {
            let in_result = pre_filter
                .node_names
                .as_ref()
                .is_none_or(|names| names.contains(&snapshot.nodes[node_index].node.name));
            if !in_result {
                *node_status = absent.clone();
                continue;
            }
            if with_nominated.binary_search(&node_index).is_ok() {
                continue;
            }
            let status = crate::framework::runtime::run_filter_cached(
                profile, &state, snapshot, pod, node_index, &mut cache,
            );
            if status.is_success() {
                feasible.push(node_index);
            } else {
                *node_status = Some(status);
            }
        }
        drop(cache);
        for node_index in with_nominated {
            let in_result = pre_filter
                .node_names
                .as_ref()
                .is_none_or(|names| names.contains(&snapshot.nodes[node_index].node.name));
            if !in_result {
                continue;
            }
            let status = run_filter_with_nominated_pods(profile, &state, snapshot, pod, node_index);
            if status.is_success() {
                feasible.push(node_index);
            } else {
                statuses[node_index] = Some(status);
            }
        }
        feasible.sort_unstable();
        if feasible.is_empty() {
            // Nodes with an explicit Filter status; narrowed-out ones count through the absent status.
            diagnosis.node_statuses = statuses
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    pre_filter
                        .node_names
                        .as_ref()
                        .is_none_or(|names| names.contains(&snapshot.nodes[*i].node.name))
                })
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
            match default_preemption::post_filter(profile, snapshot, &state, pod, &statuses) {
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
                    decision.preemption = Some(PreemptionReport {
                        tied_candidates,
                        candidates: n_candidates,
                        candidates_sampled: nominated.sampled,
                        nominated_node: snapshot.nodes[candidate.node].node.name.clone(),
                        // Victims already terminating are not deleted again (upstream's
                        // prepareCandidate skips them); they keep their resources until they go.
                        victims: candidate
                            .victims
                            .iter()
                            .filter(|v| !snapshot.pod(**v).pod.terminating)
                            .map(|v| snapshot.pod(*v).pod.key())
                            .collect(),
                        pdb_violations: candidate.num_pdb_violations,
                        first_attempt_message: fit_error_message(n_nodes, &diagnosis),
                    });
                    None
                }
                PreemptionOutcome::Failed(message) => {
                    Some(alloc::format!("{NO_NEW_CLAIMS_TO_DEALLOCATE}, {message}"))
                }
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
        feasible.clone()
    } else {
        let outcome = run_score(profile, snapshot, pod, &feasible);
        if let Some(error) = outcome.plugins.iter().find_map(|p| p.error.clone()) {
            // A PreScore error fails the cycle (SchedulerError); the pod stays Pending.
            decision.message = Some(error);
            return decision;
        }
        let best = outcome.totals.iter().copied().max().unwrap_or(0);
        let tied = feasible
            .iter()
            .zip(&outcome.totals)
            .filter(|(_, t)| **t == best)
            .map(|(n, _)| *n)
            .collect();
        scores = Some(outcome);
        tied
    };
    decision.tied_count = tied.len();
    let chosen = options.tie_break.pick(snapshot, &pod.pod, &tied, &[]);
    decision.node = Some(snapshot.nodes[chosen].node.name.clone());
    let kept = if options.detail == Detail::None {
        TIED_NODES_KEPT_WITHOUT_DETAIL
    } else {
        usize::MAX
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

/// Builds the per-node explanation from the filter statuses and, when scoring ran, the scores.
fn explanation(
    snapshot: &Snapshot,
    pod: &PodInfo,
    pre_filter: &PreFilterOutcome,
    state: &crate::framework::CycleState,
    statuses: &[Option<Status>],
    scores: Option<&crate::framework::ScoreOutcome>,
) -> Explanation {
    let mut nodes: Vec<NodeVerdict> = statuses
        .iter()
        .enumerate()
        .map(|(index, status)| NodeVerdict {
            node: snapshot.nodes[index].node.name.clone(),
            filter: status.clone().unwrap_or_else(Status::success),
            scores: Vec::new(),
            total: None,
        })
        .collect();
    if let Some(scores) = scores {
        for (position, &node_index) in scores.nodes.iter().enumerate() {
            let verdict = &mut nodes[node_index];
            verdict.total = Some(scores.totals[position]);
            verdict.scores = scores
                .plugins
                .iter()
                .filter(|p| !p.skipped())
                .map(|p| PluginScore {
                    plugin: p.plugin,
                    raw: p.raw[position],
                    normalized: p.normalized[position],
                    weighted: p.normalized[position] * p.weight,
                })
                .collect();
        }
    }
    Explanation {
        pre_filter: pre_filter.plugins.clone(),
        nodes,
        spread: spread_explanations(state.spread.as_ref()),
        soft_spread: Vec::new(),
        affinity: affinity_explanations(snapshot, pod, state.inter_pod_affinity.as_ref()),
    }
}

/// For the incoming pod's required (anti-)affinity terms and the existing pods' anti-affinity terms
/// that match it: which pods matched, on which node and topology value.
pub fn affinity_explanations(
    snapshot: &Snapshot,
    pod: &PodInfo,
    state: Option<&crate::plugins::inter_pod_affinity::PreFilterState>,
) -> Vec<AffinityExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    let no_labels = crate::model::Labels::new();
    let mut out = Vec::new();
    let located = |id: usize, key: &str| {
        let node = &snapshot.nodes[snapshot.pod_node[id]].node;
        (
            snapshot.pod(id).pod.key(),
            node.name.clone(),
            node.labels.get(key).cloned(),
        )
    };
    let terms = state
        .required_affinity_terms
        .iter()
        .map(|t| (AffinityRule::Affinity, t))
        .chain(
            state
                .required_anti_affinity_terms
                .iter()
                .map(|t| (AffinityRule::AntiAffinity, t)),
        );
    for (rule, term) in terms {
        let mut explanation = AffinityExplanation {
            rule,
            owner: None,
            topology_key: term.topology_key.clone(),
            selector: alloc::format!("{}", term.selector),
            matches: Vec::new(),
            match_count: 0,
        };
        for node in &snapshot.nodes {
            for id in &node.pods {
                if term.matches(&snapshot.pod(*id).pod, &no_labels) {
                    explanation.match_count += 1;
                    if explanation.matches.len() < AFFINITY_MATCHES_LISTED {
                        explanation.matches.push(located(*id, &term.topology_key));
                    }
                }
            }
        }
        out.push(explanation);
    }
    if !state.existing_anti_affinity_counts.is_empty() {
        for node in &snapshot.nodes {
            for id in &node.pods_with_required_anti_affinity {
                let owner = snapshot.pod(*id);
                for term in &owner.required_anti_affinity_terms {
                    if !term.matches(&pod.pod, &state.namespace_labels) {
                        continue;
                    }
                    let (key, node_name, value) = located(*id, &term.topology_key);
                    if value.is_none() {
                        continue;
                    }
                    out.push(AffinityExplanation {
                        rule: AffinityRule::ExistingAntiAffinity,
                        owner: Some(key.clone()),
                        topology_key: term.topology_key.clone(),
                        selector: alloc::format!("{}", term.selector),
                        matches: alloc::vec![(key, node_name, value)],
                        match_count: 1,
                    });
                }
            }
        }
    }
    out
}

/// The PreScore counts of every soft spread constraint.
pub fn soft_spread_explanations(
    state: Option<&pod_topology_spread::PreScoreState>,
    snapshot: &Snapshot,
    feasible: &[usize],
) -> Vec<SoftSpreadExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    state
        .constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| {
            let domains = if constraint.topology_key == crate::model::LABEL_HOSTNAME {
                feasible
                    .iter()
                    .filter(|n| !state.ignored_nodes.contains(n))
                    .map(|&n| {
                        (
                            snapshot.nodes[n].node.name.clone(),
                            i64::from(state.node_match_counts[index][n]),
                        )
                    })
                    .collect()
            } else {
                state.topology_value_to_pod_counts[index].clone()
            };
            SoftSpreadExplanation {
                topology_key: constraint.topology_key.clone(),
                max_skew: constraint.max_skew,
                selector: alloc::format!("{}", constraint.selector),
                domains,
            }
        })
        .collect()
}

/// The spread arithmetic of every hard constraint.
pub fn spread_explanations(
    state: Option<&pod_topology_spread::PreFilterState>,
) -> Vec<SpreadExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    state
        .constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| {
            let table = &state.domains[index];
            SpreadExplanation {
                topology_key: constraint.topology_key.clone(),
                max_skew: constraint.max_skew,
                min_domains: constraint.min_domains,
                selector: alloc::format!("{}", constraint.selector),
                domains: table.match_num(),
                global_minimum: state.min_match_num(index),
                limit: state
                    .min_match_num(index)
                    .saturating_add(i64::from(constraint.max_skew)),
                min_domains_forced_zero: table.n_eligible < constraint.min_domains.max(0) as usize,
                self_match: state.self_match[index],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::framework::testing::{node, pod};
    use crate::model::Cluster;

    /// Identical empty nodes all tie; the first in node order is bound and every tied node is listed.
    /// Sequential placement then sees the bound pod (BalancedAllocation/LeastAllocated change).
    #[test]
    fn ties_are_reported_and_broken_by_node_order() {
        let cluster = Cluster {
            nodes: vec![node("a", &[]), node("b", &[]), node("c", &[])],
            ..Cluster::default()
        };
        // Best-effort pods with one container: scoring counts 100m cpu and 200Mi memory each.
        let mut pods = vec![pod("p1", &[], None), pod("p2", &[], None)];
        for p in &mut pods {
            p.containers.push(crate::model::Container {
                name: "c".into(),
                ..Default::default()
            });
        }
        let options = Options {
            detail: Detail::All,
            ..Options::default()
        };
        let simulation = simulate(&cluster, &pods, &options);
        assert_eq!(simulation.decisions[0].tied_nodes, vec!["a", "b", "c"]);
        assert_eq!(simulation.decisions[0].node.as_deref(), Some("a"));
        assert_eq!(simulation.decisions[1].tied_nodes, vec!["b", "c"]);
        // The same input gives the same decisions.
        assert_eq!(
            simulate(&cluster, &pods, &options).decisions,
            simulation.decisions
        );
    }

    /// Reusing node-local results across replicas never changes a decision: two workloads with
    /// different requests interleave, nodes fill up, and a high-priority pod preempts.
    #[test]
    fn node_local_cache_is_exact() {
        use crate::model::resources::CPU;
        let nodes = vec![
            node("a", &[("zone", "z1")]),
            node("b", &[("zone", "z2")]),
            node("c", &[("zone", "z1")]),
        ];
        // 2,500m of each node's 4,000m is taken by low-priority pods.
        let filler = |name: &str, on: &str| {
            let mut p = pod(name, &[("app", "filler")], Some(on));
            let mut c = crate::model::Container {
                name: "c".into(),
                ..Default::default()
            };
            c.requests.insert(CPU.into(), 2500);
            p.containers.push(c);
            p
        };
        let bound = vec![filler("f-a", "a"), filler("f-b", "b"), filler("f-c", "c")];
        let cluster = Cluster {
            nodes,
            pods: bound,
            ..Cluster::default()
        };
        let mut pods = vec::Vec::new();
        for i in 0..20 {
            let mut p = pod(
                &alloc::format!("w{i}"),
                &[("app", if i % 3 == 0 { "x" } else { "y" })],
                None,
            );
            let mut c = crate::model::Container {
                name: "c".into(),
                ..Default::default()
            };
            let cpu = if i == 19 {
                2000
            } else if i % 3 == 0 {
                300
            } else {
                400
            };
            c.requests.insert(CPU.into(), cpu);
            p.containers.push(c);
            p.priority = if i == 19 { 100 } else { 0 };
            pods.push(p);
        }
        let options = Options {
            detail: Detail::All,
            ..Options::default()
        };
        let cached = simulate(&cluster, &pods, &options).decisions;
        let (mut snapshot, _) = Snapshot::new(&cluster);
        let fresh: vec::Vec<PodDecision> = queue_order(&pods)
            .into_iter()
            .map(|i| {
                snapshot.clear_node_local_cache();
                schedule_and_bind(&mut snapshot, &pods[i], &options)
            })
            .collect();
        assert_eq!(cached, fresh);
        assert!(
            cached.iter().any(|d| d.node.is_none()),
            "the test must fill the nodes"
        );
        assert!(
            cached.iter().any(|d| d.preemption.is_some()),
            "the test must preempt: {:?}",
            cached
                .iter()
                .map(|d| (&d.name, &d.node, &d.message))
                .collect::<vec::Vec<_>>()
        );
    }

    /// PrioritySort: higher priority first, then input order.
    #[test]
    fn queue_order_is_priority_then_arrival() {
        let mut pods = vec![
            pod("a", &[], None),
            pod("b", &[], None),
            pod("c", &[], None),
        ];
        pods[2].priority = 5;
        assert_eq!(queue_order(&pods), vec![2, 0, 1]);
    }

    /// No nodes at all gives upstream's ErrNoNodesAvailable text.
    #[test]
    fn no_nodes() {
        let simulation = simulate(
            &Cluster::default(),
            &[pod("p", &[], None)],
            &Options::default(),
        );
        assert_eq!(
            simulation.decisions[0].message.as_deref(),
            Some(NO_NODES_AVAILABLE_MSG)
        );
    }

    fn cpu_pod(name: &str, app: &str, cpu: i64, priority: i32, on: Option<&str>) -> Pod {
        let mut p = pod(name, &[("app", app)], on);
        p.priority = priority;
        let mut c = crate::model::Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert(crate::model::resources::CPU.into(), cpu);
        p.containers.push(c);
        p
    }

    /// A preemptor whose only victim is already terminating deletes nothing, fails its retry and
    /// stays Pending, nominated (upstream `prepareCandidateAsync` skips terminating victims). The
    /// next pod must leave it room (`RunFilterPluginsWithNominatedPods`, first pass), and a pod
    /// whose required affinity only the nominated pod would satisfy does not fit either (second
    /// pass, without nominated pods).
    #[test]
    fn nominated_pods_are_counted_by_later_pods() {
        let mut old = cpu_pod("old", "old", 3000, 0, Some("a"));
        old.terminating = true;
        let cluster = Cluster {
            nodes: vec![
                node("a", &[("kubernetes.io/hostname", "a")]),
                node("b", &[("kubernetes.io/hostname", "b")]),
            ],
            pods: vec![old, cpu_pod("full", "full", 4000, 100, Some("b"))],
            ..Cluster::default()
        };
        let hi = cpu_pod("hi", "hi", 2000, 10, None);
        let lo = cpu_pod("lo", "lo", 1000, 0, None);
        let mut follower = cpu_pod("follower", "follower", 0, 0, None);
        follower.affinity.pod_affinity = Some(crate::model::PodAffinity {
            required: vec![crate::model::PodAffinityTerm {
                selector: crate::model::Selector::from_set(&crate::framework::testing::labels(&[
                    ("app", "hi"),
                ])),
                topology_key: "kubernetes.io/hostname".into(),
                namespaces: vec![],
                namespace_selector: None,
                match_label_keys: vec![],
                mismatch_label_keys: vec![],
                parse_error: None,
            }],
            preferred: vec![],
        });
        let options = Options {
            detail: Detail::All,
            ..Options::default()
        };
        let simulation = simulate(&cluster, &[hi, lo, follower], &options);
        let [hi, lo, follower] = &simulation.decisions[..] else {
            panic!("three decisions")
        };
        let preemption = hi.preemption.as_ref().expect("hi preempts");
        assert_eq!(preemption.nominated_node, "a");
        assert!(preemption.victims.is_empty(), "old is already terminating");
        assert_eq!(hi.node, None);
        assert_eq!(simulation.snapshot.nominated.len(), 1);
        // Without the nominated pod, lo would fit on a (3000m + 1000m of 4000m).
        assert_eq!(lo.node, None);
        let on_a = &lo.explanation.as_ref().unwrap().nodes[0];
        assert_eq!(on_a.filter.plugin, Some(PluginName::NodeResourcesFit));
        assert_eq!(follower.node, None);
        let on_a = &follower.explanation.as_ref().unwrap().nodes[0];
        assert_eq!(on_a.filter.plugin, Some(PluginName::InterPodAffinity));
        // The same pods without the terminating victim: hi evicts nothing, fits at once.
        let mut free = cluster.clone();
        free.pods.remove(0);
        let simulation = simulate(
            &free,
            &[
                cpu_pod("hi", "hi", 2000, 10, None),
                cpu_pod("lo", "lo", 1000, 0, None),
            ],
            &options,
        );
        assert_eq!(simulation.decisions[0].node.as_deref(), Some("a"));
        assert_eq!(simulation.decisions[1].node.as_deref(), Some("a"));
        assert!(simulation.snapshot.nominated.is_empty());
    }

    /// Seeded tie-breaks pick among the tied nodes only, the same way for the same seed, and
    /// reach every tied node over seeds; `Follow` picks the named node when it is tied.
    #[test]
    fn tie_breaks_stay_among_the_tied_nodes() {
        let cluster = Cluster {
            nodes: vec![node("a", &[]), node("b", &[]), node("c", &[])],
            ..Cluster::default()
        };
        let pods = vec![cpu_pod("p", "p", 100, 0, None)];
        let mut seen = alloc::collections::BTreeSet::new();
        for seed in 0..64 {
            let options = Options {
                tie_break: TieBreak::Seeded(seed),
                ..Options::default()
            };
            let first = simulate(&cluster, &pods, &options).decisions;
            assert_eq!(first, simulate(&cluster, &pods, &options).decisions);
            assert_eq!(first[0].tied_count, 3);
            seen.insert(first[0].node.clone().unwrap());
        }
        assert_eq!(seen.len(), 3, "64 seeds reach every tied node: {seen:?}");
        let follow = |node: &str| Options {
            tie_break: TieBreak::Follow([(String::from("default/p"), String::from(node))].into()),
            ..Options::default()
        };
        let decisions = simulate(&cluster, &pods, &follow("c")).decisions;
        assert_eq!(decisions[0].node.as_deref(), Some("c"));
        // A node that is not among the tied falls back to the first in node order.
        let decisions = simulate(&cluster, &pods, &follow("nowhere")).decisions;
        assert_eq!(decisions[0].node.as_deref(), Some("a"));
    }
}
