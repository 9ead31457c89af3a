//! The `simulate` report: the settled decisions grouped per workload and pod (the engine's
//! preemption reports and explanations serialise themselves), in the documented JSON schema
//! (`docs/json-schema.md`) and rendered as tables. No scheduling logic lives here.

use std::collections::BTreeMap;

use serde::Serialize;
use spreadlab_engine::framework::Snapshot;
use spreadlab_engine::model::LABEL_ZONE;
use spreadlab_engine::scheduler::{Explanation, PodDecision, PreemptionReport};

/// Schema version of the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole report.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report<'a> {
    /// Schema version.
    pub schema_version: u32,
    /// The kube-scheduler release mirrored (`--kubernetes-version`), e.g. `v1.36`.
    pub kubernetes_version: String,
    /// Number of nodes in the cluster.
    pub nodes: usize,
    /// When the cluster has 100+ nodes: how many feasible nodes the scheduler (and spreadlab)
    /// stops at per pod (`numFeasibleNodesToFind`).
    pub real_scheduler_samples: Option<usize>,
    /// Totals.
    pub summary: Summary,
    /// Per workload.
    pub workloads: Vec<WorkloadReport>,
    /// Per pod, in scheduling order.
    pub pods: Vec<PodReport<'a>>,
    /// Input warnings.
    pub warnings: Vec<String>,
}

/// Totals.
#[derive(Serialize)]
pub struct Summary {
    /// Pods scheduled (built, plus counted and not built).
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
    /// Pods created by the simulation (built and counted).
    pub created: usize,
    /// Of those, placed.
    pub placed: usize,
    /// Of those, Pending.
    pub pending: usize,
    /// Of the Pending, counted and not built: more replicas than could ever fit these nodes,
    /// each Pending as `pendingLike` is (its decision is in `pods`).
    pub not_built: usize,
    /// The last built Pending replica, which the ones not built are like (null when none).
    pub pending_like: Option<String>,
    /// Of the running replicas, those without a controller reference, adopted by the
    /// workload's selector as its controller adopts orphans (`ClaimPods`).
    pub adopted: usize,
    /// Which live revision the template is (Deployments and StatefulSets; null otherwise).
    pub revision: Option<RevisionReport>,
    /// Running + placed replicas per zone (`topology.kubernetes.io/zone`, `<none>` without).
    pub per_zone: BTreeMap<String, usize>,
    /// Running + placed replicas per node.
    pub per_node: BTreeMap<String, usize>,
}

/// One pod: the scheduler's decision with the workload it belongs to.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodReport<'a> {
    /// Namespace.
    pub namespace: &'a str,
    /// Name.
    pub name: &'a str,
    /// `Kind/namespace/name` of the workload, null for a bare pod.
    pub workload: Option<String>,
    /// Chosen node, null when Pending.
    pub node: Option<&'a str>,
    /// The top-scored nodes (the real scheduler may pick any): all of them with `--detail all`,
    /// else the first 32 for a placed pod.
    pub tied_nodes: &'a [String],
    /// How many nodes share the top score (all of them, whatever the detail).
    pub tied_count: usize,
    /// The FitError message when Pending (the cycle's error when `schedulerError`).
    pub message: Option<&'a str>,
    /// The cycle failed with a plugin's error, not a FitError (condition reason
    /// `SchedulerError`): no preemption was tried, and the real scheduler retries after a backoff.
    pub scheduler_error: bool,
    /// Feasible nodes kept (at most `numFeasibleNodesToFind`).
    pub feasible_nodes: usize,
    /// Nodes the Filter pass processed before it stopped.
    pub evaluated_nodes: usize,
    /// The pass stopped at `numFeasibleNodesToFind` (node sampling chose among the nodes found).
    pub sampled: bool,
    /// The pod was already waiting (Pending) in the input, not created by the simulation.
    pub waiting: bool,
    /// The node the pod was nominated to when its cycle began (tried first).
    pub nominated_node: Option<&'a str>,
    /// Preemption found no node to make room on and cleared the pod's nomination.
    pub nomination_cleared: bool,
    /// Preemption made for the pod (it placed the pod, or left it nominated).
    pub preemption: Option<&'a PreemptionReport>,
    /// Per-node detail (Pending pods by default; all with `--detail all`).
    pub explanation: Option<&'a Explanation>,
}

/// The report entry of one decision.
pub fn pod_view(decision: &PodDecision, workload: Option<String>) -> PodReport<'_> {
    PodReport {
        namespace: &decision.namespace,
        name: &decision.name,
        workload,
        node: decision.node.as_deref(),
        tied_nodes: &decision.tied_nodes,
        tied_count: decision.tied_count,
        message: decision.message.as_deref(),
        scheduler_error: decision.scheduler_error,
        feasible_nodes: decision.feasible_nodes,
        evaluated_nodes: decision.evaluated_nodes,
        sampled: decision.sampled,
        waiting: decision.waiting,
        nominated_node: decision.nominated_node.as_deref(),
        nomination_cleared: decision.nomination_cleared,
        preemption: decision.preemption.as_ref(),
        explanation: decision.explanation.as_ref(),
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

/// How the loader found a workload's live revision ([`spreadlab_k8s::revision::Revision`]).
#[derive(Serialize)]
#[serde(tag = "found", rename_all = "camelCase")]
pub enum RevisionReport {
    /// No live revision in the input: a new one (stand-in hash).
    #[serde(rename_all = "camelCase")]
    New,
    /// The template equals this ReplicaSet's: new replicas join it.
    #[serde(rename_all = "camelCase")]
    ReplicaSet {
        /// The ReplicaSet.
        name: String,
        /// Its `pod-template-hash`.
        hash: String,
    },
    /// A StatefulSet's template equals this ControllerRevision's: new replicas carry it.
    #[serde(rename_all = "camelCase")]
    ControllerRevision {
        /// The ControllerRevision (`<set>-<hash>`).
        name: String,
    },
    /// The template equals none of these ReplicaSets' or ControllerRevisions': a new revision.
    #[serde(rename_all = "camelCase")]
    Changed {
        /// The live revisions, oldest first.
        revisions: Vec<String>,
    },
    /// No ReplicaSet in the input: the running revision whose pods show the template is
    /// assumed (a warning says so).
    #[serde(rename_all = "camelCase")]
    FromRunningPods {
        /// The revision's hash.
        hash: String,
    },
    /// No ReplicaSet in the input; no running revision's pods show the template: a new one.
    #[serde(rename_all = "camelCase")]
    DiffersFromRunningPods {
        /// The running revisions.
        hashes: Vec<String>,
    },
    /// No ReplicaSet in the input; several running revisions could be the template's: a new
    /// one is assumed (a warning says so).
    #[serde(rename_all = "camelCase")]
    Unknown {
        /// The running revisions.
        hashes: Vec<String>,
    },
}

impl RevisionReport {
    /// The report of `workload`'s revision; `None` for kinds without revisions.
    pub fn of(workload: &spreadlab_k8s::Workload) -> Option<RevisionReport> {
        use spreadlab_k8s::WorkloadKind;
        use spreadlab_k8s::revision::Revision;
        if !matches!(
            workload.kind,
            WorkloadKind::Deployment | WorkloadKind::StatefulSet
        ) {
            return None;
        }
        Some(match workload.revision.clone() {
            Revision::None => RevisionReport::New,
            Revision::ReplicaSet { name, hash } => RevisionReport::ReplicaSet { name, hash },
            Revision::ControllerRevision { name } => RevisionReport::ControllerRevision { name },
            Revision::Changed { revisions } => RevisionReport::Changed { revisions },
            Revision::FromRunningPods { hash } => RevisionReport::FromRunningPods { hash },
            Revision::DiffersFromRunningPods { hashes } => {
                RevisionReport::DiffersFromRunningPods { hashes }
            }
            Revision::Unknown { hashes } => RevisionReport::Unknown { hashes },
        })
    }

    /// One line for the table.
    pub fn describe(&self) -> String {
        match self {
            RevisionReport::New => String::from("new (nothing running to compare with)"),
            RevisionReport::ReplicaSet { name, .. } => {
                format!("the live ReplicaSet {name}'s (new replicas join it)")
            }
            RevisionReport::ControllerRevision { name } => {
                format!("the live ControllerRevision {name}'s (new replicas carry it)")
            }
            RevisionReport::Changed { revisions } => format!(
                "new: the template differs from every live revision's ({})",
                revisions.join(", ")
            ),
            RevisionReport::FromRunningPods { hash } => {
                format!("assumed to be the running one ({hash}): no ReplicaSet to compare with")
            }
            RevisionReport::DiffersFromRunningPods { hashes } => format!(
                "new: the running pods ({}) show other images or labels",
                hashes.join(", ")
            ),
            RevisionReport::Unknown { hashes } => format!(
                "new, assumed: several running revisions ({}) could be it",
                hashes.join(", ")
            ),
        }
    }
}
