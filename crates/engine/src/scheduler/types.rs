//! The scheduler's options and decision types: what one scheduling cycle reports per pod and
//! per node (`pkg/scheduler/framework/types.go` `Diagnosis`, `NodeToStatus`, scores), plus the
//! messages `schedule_one.go` uses.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::TieBreak;
use crate::framework::{PluginName, Profile, Snapshot, Status};
use crate::version::KubeVersion;

/// The message of a pod whose `schedulingGates` keep it out of the queue (condition reason SchedulingGated).
pub const SCHEDULING_GATED_MSG: &str = "Scheduling is blocked due to non-empty scheduling gates";
/// `ErrNoNodesAvailable`.
pub const NO_NODES_AVAILABLE_MSG: &str = "no nodes available to schedule pods";
/// The DynamicResources PostFilter error after a PreFilter rejection (its cycle state was never written).
pub const DYNAMIC_RESOURCES_STATE_NOT_FOUND: &str = "not found";
/// The DynamicResources PostFilter reason for pods without resource claims.
pub const NO_NEW_CLAIMS_TO_DEALLOCATE: &str = "no new claims to deallocate";

/// The PostFilter text when preemption fails: DynamicResources' PostFilter runs first and, for a
/// pod without claims, said `no new claims to deallocate` up to v1.36 (`RunPostFilterPlugins`
/// joins the reasons with ", "); v1.37's returns Unschedulable with no reason
/// (plugins/dynamicresources/dynamicresources.go `PostFilter`).
pub(super) fn with_dynamic_resources_note(version: KubeVersion, preemption: String) -> String {
    if version.since(37) {
        preemption
    } else {
        alloc::format!("{NO_NEW_CLAIMS_TO_DEALLOCATE}, {preemption}")
    }
}

/// How much detail to keep per pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Per-node verdicts and scores for every pod (memory grows with pods × nodes).
    All,
    /// Per-node detail only for pods left Pending; placed pods keep the summary (the first
    /// [`TIED_NODES_KEPT_WITHOUT_DETAIL`] tied nodes among it).
    PendingOnly,
    /// Summaries only.
    None,
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
    /// [`Options::for_version`] of [`KubeVersion::DEFAULT`].
    fn default() -> Self {
        Options::for_version(KubeVersion::DEFAULT)
    }
}

impl Options {
    /// The default profile of `version`, the Pending pods' details kept, ties to the first in
    /// node order.
    pub fn for_version(version: KubeVersion) -> Options {
        Options {
            profile: Profile::default_for(version),
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
    /// Whether the retry placed the pod on the nominated node; `false`: it stays Pending,
    /// nominated (its victims were already terminating), and later pods of no higher priority
    /// leave it room there.
    pub placed: bool,
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
    /// The pod was already waiting in the snapshot ([`crate::model::Pod::waiting`]), not
    /// created by the simulation.
    pub waiting: bool,
    /// The node the pod was nominated to when its cycle began (`status.nominatedNodeName`, in
    /// the scheduler's nominator): tried first, and the pod is bound there without scoring
    /// when it fits (`evaluateNominatedNode`, schedule_one.go).
    pub nominated_node: Option<String>,
    /// Preemption found no node to make room on, so the scheduler cleared the pod's
    /// nomination (`Preempt` returns a result with an empty nominated node).
    pub nomination_cleared: bool,
    /// The nodes with the top score, in node order (the real scheduler may pick any of them); all
    /// of them with [`Detail::All`], else only the first [`TIED_NODES_KEPT_WITHOUT_DETAIL`]
    /// ([`PodDecision::tied_count`] counts them all).
    pub tied_nodes: Vec<String>,
    /// How many nodes share the top score.
    pub tied_count: usize,
    /// The FitError message of the pod's first scheduling cycle when it did not place the pod:
    /// the pod is Pending, or it was placed after preempting (the FailedScheduling event's text).
    /// When [`PodDecision::scheduler_error`] is set, the cycle's error instead.
    pub message: Option<String>,
    /// The cycle failed with an error, not a FitError (`schedulingCycle`, schedule_one.go): a
    /// plugin returned an `Error` status (`running "NodeVolumeLimits" filter plugin: ...`); the
    /// pod stays Pending with condition reason `SchedulerError` and `message` as its text,
    /// PostFilter (preemption) does not run, the pod's nomination is cleared
    /// (`clearNominatedNode`), and the real scheduler retries it after a backoff (with the same
    /// error while the cluster is unchanged).
    pub scheduler_error: bool,
    /// Feasible nodes found (and kept: at most `numFeasibleNodesToFind`).
    pub feasible_nodes: usize,
    /// Nodes the Filter pass processed (`EvaluatedNodes`: the feasible ones kept and the
    /// infeasible ones examined before it stopped; 1 when the nominated node fit).
    pub evaluated_nodes: usize,
    /// The Filter pass stopped at `numFeasibleNodesToFind` before examining every node (node
    /// sampling): the pod was scored among the feasible nodes found first, not among all.
    pub sampled: bool,
    /// When the cluster has 100+ nodes: `numFeasibleNodesToFind`, the feasible nodes the
    /// scheduler stops at (`percentageOfNodesToScore`); only those are scored.
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
