//! The `simulate` report: view types built from the engine's decisions, serialized as the documented
//! JSON schema (`docs/json-schema.md`) and rendered as tables. No scheduling logic lives here.

use std::collections::BTreeMap;

use serde::Serialize;
use spreadlab_engine::framework::{Code, Snapshot};
use spreadlab_engine::model::LABEL_ZONE;
use spreadlab_engine::scheduler::{AffinityRule, Explanation, PodDecision};

/// Schema version of the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole report.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Schema version.
    pub schema_version: u32,
    /// The kube-scheduler release mirrored.
    pub kubernetes_version: &'static str,
    /// Number of nodes in the cluster.
    pub nodes: usize,
    /// When the cluster has 100+ nodes: how many feasible nodes the real scheduler stops at per pod.
    pub real_scheduler_samples: Option<usize>,
    /// Totals.
    pub summary: Summary,
    /// Per workload.
    pub workloads: Vec<WorkloadReport>,
    /// Per pod, in scheduling order.
    pub pods: Vec<PodReport>,
    /// Input warnings.
    pub warnings: Vec<String>,
}

/// Totals.
#[derive(Serialize)]
pub struct Summary {
    /// Pods scheduled.
    pub pods: usize,
    /// Placed.
    pub placed: usize,
    /// Pending.
    pub pending: usize,
}

/// One workload.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadReport {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: i32,
    /// Replicas already running in the snapshot.
    pub running: usize,
    /// Pods created by the simulation.
    pub created: usize,
    /// Of those, placed.
    pub placed: usize,
    /// Of those, Pending.
    pub pending: usize,
    /// Running + placed replicas per zone (`topology.kubernetes.io/zone`, `<none>` without).
    pub per_zone: BTreeMap<String, usize>,
    /// Running + placed replicas per node.
    pub per_node: BTreeMap<String, usize>,
}

/// One pod.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodReport {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `Kind/namespace/name` of the workload, null for a bare pod.
    pub workload: Option<String>,
    /// Chosen node, null when Pending.
    pub node: Option<String>,
    /// Every top-scored node (the real scheduler may pick any).
    pub tied_nodes: Vec<String>,
    /// The FitError message when Pending.
    pub message: Option<String>,
    /// Feasible nodes.
    pub feasible_nodes: usize,
    /// Preemption made for the pod (it placed the pod, or left it nominated).
    pub preemption: Option<PreemptionView>,
    /// Per-node detail (Pending pods by default; all with `--detail all`).
    pub explanation: Option<ExplanationView>,
}

/// Preemption.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionView {
    /// Nominated node.
    pub nominated_node: String,
    /// Victims.
    pub victims: Vec<String>,
    /// Victims whose eviction violates a PDB.
    pub pdb_violations: usize,
    /// The message of the attempt that triggered preemption.
    pub first_attempt_message: String,
    /// Every node ranked as high as the nominated one (the real scheduler picks any of them).
    pub tied_candidates: Vec<String>,
    /// How many nodes preemption would make room on.
    pub candidates: usize,
    /// Whether the real scheduler would examine only a random subset of the candidates.
    pub candidates_sampled: bool,
    /// Whether the pod was placed on the nominated node; `false`: it stays Pending, nominated
    /// (its victims were already terminating), and later pods leave it room there.
    pub placed: bool,
}

/// Per-node detail.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplanationView {
    /// PreFilter statuses.
    pub pre_filter: Vec<StatusView>,
    /// Per node.
    pub nodes: Vec<NodeView>,
    /// Hard spread constraints.
    pub spread: Vec<SpreadView>,
    /// Required pod (anti-)affinity terms and the pods that matched them.
    pub affinity: Vec<AffinityView>,
}

/// One required (anti-)affinity term and the pods that matched it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AffinityView {
    /// `affinity`, `antiAffinity` (the pod's own terms) or `existingAntiAffinity` (another pod's term).
    pub rule: &'static str,
    /// The pod owning an `existingAntiAffinity` term.
    pub owner: Option<String>,
    /// Topology key.
    pub topology_key: String,
    /// Label selector.
    pub selector: String,
    /// Matching pods (at most 20): pod, node and topology value.
    pub matches: Vec<AffinityMatchView>,
    /// How many pods matched.
    pub match_count: usize,
}

/// A pod that matched a term.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AffinityMatchView {
    /// `namespace/name`.
    pub pod: String,
    /// Node.
    pub node: String,
    /// The node's value of the topology key.
    pub topology_value: Option<String>,
}

/// A plugin status.
#[derive(Serialize)]
pub struct StatusView {
    /// Plugin.
    pub plugin: Option<String>,
    /// Code.
    pub code: String,
    /// Reasons.
    pub reasons: Vec<String>,
}

/// One node's verdict.
#[derive(Serialize)]
pub struct NodeView {
    /// Node.
    pub node: String,
    /// Filter verdict.
    pub filter: StatusView,
    /// Scores when scored.
    pub scores: Vec<ScoreView>,
    /// Weighted total when scored.
    pub total: Option<i64>,
}

/// One plugin's score.
#[derive(Serialize)]
pub struct ScoreView {
    /// Plugin.
    pub plugin: String,
    /// Raw.
    pub raw: i64,
    /// Normalized.
    pub normalized: i64,
    /// Weighted.
    pub weighted: i64,
}

/// Spread arithmetic.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpreadView {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// minDomains.
    pub min_domains: i32,
    /// Selector after the matchLabelKeys merge.
    pub selector: String,
    /// Matching pods per eligible domain.
    pub domains: BTreeMap<String, i64>,
    /// Global minimum.
    pub global_minimum: i64,
    /// minDomains forced the minimum to 0.
    pub min_domains_forced_zero: bool,
    /// The pod matches its own selector.
    pub self_match: bool,
}

fn status_view(status: &spreadlab_engine::Status) -> StatusView {
    StatusView {
        plugin: status.plugin.map(|p| p.as_str().to_string()),
        code: status.code.as_str().to_string(),
        reasons: status.reason_strings(),
    }
}

/// Builds the explanation view.
pub fn explanation_view(explanation: &Explanation) -> ExplanationView {
    ExplanationView {
        pre_filter: explanation
            .pre_filter
            .iter()
            .map(|(_, s)| status_view(s))
            .collect(),
        nodes: explanation
            .nodes
            .iter()
            .map(|n| NodeView {
                node: n.node.clone(),
                filter: status_view(&n.filter),
                scores: n
                    .scores
                    .iter()
                    .map(|s| ScoreView {
                        plugin: s.plugin.as_str().to_string(),
                        raw: s.raw,
                        normalized: s.normalized,
                        weighted: s.weighted,
                    })
                    .collect(),
                total: n.total,
            })
            .collect(),
        spread: explanation
            .spread
            .iter()
            .map(|s| SpreadView {
                topology_key: s.topology_key.clone(),
                max_skew: s.max_skew,
                min_domains: s.min_domains,
                selector: s.selector.clone(),
                domains: s.domains.clone(),
                global_minimum: s.global_minimum,
                min_domains_forced_zero: s.min_domains_forced_zero,
                self_match: s.self_match,
            })
            .collect(),
        affinity: explanation
            .affinity
            .iter()
            .map(|a| AffinityView {
                rule: match a.rule {
                    AffinityRule::Affinity => "affinity",
                    AffinityRule::AntiAffinity => "antiAffinity",
                    AffinityRule::ExistingAntiAffinity => "existingAntiAffinity",
                },
                owner: a.owner.clone(),
                topology_key: a.topology_key.clone(),
                selector: a.selector.clone(),
                matches: a
                    .matches
                    .iter()
                    .map(|(pod, node, value)| AffinityMatchView {
                        pod: pod.clone(),
                        node: node.clone(),
                        topology_value: value.clone(),
                    })
                    .collect(),
                match_count: a.match_count,
            })
            .collect(),
    }
}

/// Builds the pod view.
pub fn pod_view(decision: &PodDecision, workload: Option<String>) -> PodReport {
    PodReport {
        namespace: decision.namespace.clone(),
        name: decision.name.clone(),
        workload,
        node: decision.node.clone(),
        tied_nodes: decision.tied_nodes.clone(),
        message: decision.message.clone(),
        feasible_nodes: decision.feasible_nodes,
        preemption: decision.preemption.as_ref().map(|p| PreemptionView {
            nominated_node: p.nominated_node.clone(),
            victims: p.victims.clone(),
            pdb_violations: p.pdb_violations,
            first_attempt_message: p.first_attempt_message.clone(),
            tied_candidates: p.tied_candidates.clone(),
            candidates: p.candidates,
            candidates_sampled: p.candidates_sampled,
            placed: decision.node.is_some(),
        }),
        explanation: decision.explanation.as_ref().map(explanation_view),
    }
}

/// The zone of a node as `simulate`'s JSON keys it ([`crate::output::JSON_NO_ZONE`] without the
/// label; tables show [`crate::output::zone_label`]).
pub fn zone_of(snapshot: &Snapshot, node: &str) -> String {
    snapshot
        .node_index
        .get(node)
        .and_then(|i| snapshot.nodes[*i].node.labels.get(LABEL_ZONE))
        .cloned()
        .unwrap_or_else(|| crate::output::JSON_NO_ZONE.to_string())
}

/// Whether a status is a rejection (for tables).
pub fn is_rejection(code: &str) -> bool {
    Code::parse(code).is_some_and(Code::is_rejected)
}
