//! Lint: static and cluster-aware checks of the workloads' placement rules, each with a stable
//! kebab-case rule ID, an explanation and a fix ([`RULES`]). Cluster-aware rules re-run the
//! scheduler and the other analyses; none re-implements a scheduling rule.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Settled, Workload};
use crate::framework::Snapshot;
use crate::model::{Cluster, Pod, Selector};
use crate::scheduler::Options;

mod cluster;
mod conflicts;
mod rollout_rules;
mod selectors;
mod volumes;
mod zone_loss;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The API server rejects it, or replicas stay Pending.
    Error,
    /// Likely not what was meant; placement or availability suffers.
    Warning,
    /// Worth knowing.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note` (SARIF levels).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A lint rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case ID.
    pub id: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// One line.
    pub title: &'static str,
    /// One paragraph: why it matters.
    pub explanation: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

/// Every rule, in report order.
pub const RULES: &[Rule] = &[
    Rule {
        id: "input-unreadable",
        severity: Severity::Error,
        title: "The input cannot be read",
        explanation: "The file is not YAML or JSON as written (a syntax error, a wrong encoding, a document that is not an object), so nothing in that document is checked.",
        fix: "Fix the text at the line and column given.",
    },
    Rule {
        id: "kubernetes-validation",
        severity: Severity::Error,
        title: "The API server rejects this object",
        explanation: "The object breaks one of the API server's validation rules for these fields; `kubectl apply` fails with this message and nothing is scheduled.",
        fix: "Change the field as the message says.",
    },
    Rule {
        id: "min-domains-with-schedule-anyway",
        severity: Severity::Error,
        title: "minDomains is only valid with whenUnsatisfiable: DoNotSchedule",
        explanation: "The API server rejects a topology spread constraint that sets minDomains with whenUnsatisfiable: ScheduleAnyway (`can only use minDomains if whenUnsatisfiable=DoNotSchedule`): minDomains only changes how a hard constraint computes its global minimum.",
        fix: "Remove minDomains, or make the constraint whenUnsatisfiable: DoNotSchedule.",
    },
    Rule {
        id: "spread-without-selector",
        severity: Severity::Warning,
        title: "Topology spread constraint without labelSelector",
        explanation: "Without a labelSelector the constraint counts no pods at all (a nil selector matches nothing), so every domain has 0 and the constraint never spreads anything.",
        fix: "Set labelSelector to the workload's own pod labels (e.g. matchLabels: {app: <name>}).",
    },
    Rule {
        id: "selector-misses-own-pods",
        severity: Severity::Warning,
        title: "Spread or anti-affinity selector does not select the workload's own pods",
        explanation: "The scheduler counts only the pods the selector matches. A selector that does not match the workload's own pod labels does not spread its replicas: they may all land in one node or zone.",
        fix: "Make the selector match the pod template's labels (or use matchLabelKeys).",
    },
    Rule {
        id: "selector-too-generic",
        severity: Severity::Warning,
        title: "Selector also selects other workloads' pods",
        explanation: "Pods of other workloads in the namespace match the selector and are counted as if they were replicas: they can skew the spread, block replicas (anti-affinity) or make the constraint look satisfied when it is not.",
        fix: "Add a label unique to the workload (e.g. app.kubernetes.io/instance) to the selector, or use matchLabelKeys.",
    },
    Rule {
        id: "min-domains-exceeds-domains",
        severity: Severity::Warning,
        title: "minDomains is larger than the eligible domains in the cluster",
        explanation: "With fewer eligible domains than minDomains the global minimum is taken as 0, so each domain can hold at most maxSkew matching pods: further replicas stay Pending until more domains exist.",
        fix: "Lower minDomains to the number of domains you have, or add nodes in more domains.",
    },
    Rule {
        id: "topology-key-missing",
        severity: Severity::Warning,
        title: "Some eligible nodes lack the topology key",
        explanation: "Nodes without the constraint's topologyKey are filtered out by a hard constraint (`missing required label`), so the workload cannot use them even though they match its node affinity.",
        fix: "Label those nodes, or exclude them with node affinity.",
    },
    Rule {
        id: "tainted-nodes-counted",
        severity: Severity::Warning,
        title: "Tainted or cordoned nodes count as empty domains",
        explanation: "Under the default nodeTaintsPolicy: Ignore, a domain whose eligible nodes (those matching the pod's nodeSelector and required node affinity, under the default nodeAffinityPolicy: Honor) all carry a taint the pod does not tolerate, or are cordoned, is still a domain with 0 matching pods: the global minimum stays 0 and can hold back replicas everywhere else. nodeTaintsPolicy: Honor checks taints only, so a cordoned node without the node.kubernetes.io/unschedulable taint counts even then.",
        fix: "Set nodeTaintsPolicy: Honor on the constraint (or tolerate the taint); for cordoned nodes make sure they carry node.kubernetes.io/unschedulable:NoSchedule (the node lifecycle controller adds it), or uncordon or remove them.",
    },
    Rule {
        id: "anti-affinity-too-few-nodes",
        severity: Severity::Error,
        title: "Required anti-affinity needs more topology domains than exist",
        explanation: "Required anti-affinity against the workload's own pods allows one replica per domain of the topology key; with more replicas than eligible domains the rest stay Pending.",
        fix: "Add nodes, lower replicas, or use preferred anti-affinity / a topology spread constraint.",
    },
    Rule {
        id: "spread-and-anti-affinity-conflict",
        severity: Severity::Error,
        title: "Hard spread and required anti-affinity cannot both be satisfied",
        explanation: "Replicas stay Pending because nodes are rejected by the topology spread constraint and the others by the required anti-affinity: together they leave no node, while each rule alone would place every replica (verified by placing them again with one rule dropped).",
        fix: "Relax one of them (ScheduleAnyway, preferred anti-affinity, a larger maxSkew) or add capacity in the domains the spread asks for.",
    },
    Rule {
        id: "surge-needs-missing-gpu",
        severity: Severity::Error,
        title: "The rolling update's surge needs a GPU that does not exist",
        explanation: "The Deployment creates surge pods before deleting old ones; when every GPU is busy the surge pod stays Pending, and with maxUnavailable 0 no old pod may go: the rollout stalls.",
        fix: "Use maxSurge: 0 with maxUnavailable: 1 (or Recreate), or add a GPU node for the rollout.",
    },
    Rule {
        id: "missing-pod-template-hash-key",
        severity: Severity::Warning,
        title: "Hard constraints without matchLabelKeys: [pod-template-hash]",
        explanation: "During a rollout, old pods match the selector too and count toward the new revision's spread and anti-affinity: the new pods can be skewed or blocked by pods that are about to go.",
        fix: "Add matchLabelKeys: [pod-template-hash] to the topology spread constraint (or anti-affinity term).",
    },
    Rule {
        id: "zone-loss-not-survived",
        severity: Severity::Warning,
        title: "Replicas do not survive the loss of a zone",
        explanation: "When a zone holding replicas fails (its nodes removed, or still present but unreachable), the replacements cannot all be placed in the other zones (capacity, spread or affinity): the workload runs below its desired replicas until the zone returns. Under the default nodeTaintsPolicy Ignore an unreachable zone still counts as a spread domain with no replicas, which can hold every replacement back. A replica whose volume is pinned to the lost zone (a zonal disk) cannot be replaced anywhere else.",
        fix: "Keep spare capacity in every zone, spread with maxSkew 1 over more zones, set nodeTaintsPolicy: Honor so that tainted (unreachable) nodes are not counted as domains, relax the rules that block replacements, or keep data that must survive a zone on replicated storage.",
    },
    Rule {
        id: "immediate-binding-with-zone-spread",
        severity: Severity::Warning,
        title: "A claim's class binds at once while the pods spread over zones",
        explanation: "With volumeBindingMode Immediate the provisioner creates the volume, and picks its zone, as soon as the claim exists, before the scheduler places the pod; VolumeBinding then keeps the pod Pending (\"pod has unbound immediate PersistentVolumeClaims\") until the volume is bound, and the pod can only run where the volume is. The zone spread constraint no longer decides the zone: replicas can stack in one zone or stay Pending where the volume's zone is full.",
        fix: "Use a StorageClass with volumeBindingMode: WaitForFirstConsumer, so the volume is provisioned in the zone the scheduler picks for the pod.",
    },
    Rule {
        id: "volumes-in-one-zone",
        severity: Severity::Warning,
        title: "The replicas' volumes are all in one zone",
        explanation: "Each replica's bound volume is pinned to one zone (its PersistentVolume's node affinity or zone label): a replica can only run in its volume's zone (VolumeBinding: \"node(s) didn't match PersistentVolume's node affinity\"). With every volume in the same zone the zone spread constraint cannot spread these replicas, and the loss of that zone stops them all until it returns.",
        fix: "Move (or recreate) the volumes of some replicas in other zones, for example by deleting the claim of a replica while the zone spread is in force so that a WaitForFirstConsumer class provisions it where the scheduler places the new pod; use replicated storage for data that must survive a zone.",
    },
    Rule {
        id: "pdb-violated",
        severity: Severity::Warning,
        title: "A single zone failure or the rollout violates a PodDisruptionBudget",
        explanation: "The budget is computed as the disruption controller does (desiredHealthy from minAvailable or maxUnavailable and the controller's scale). A sudden zone loss leaves fewer healthy pods than desiredHealthy (an outage does not ask the budget), a drain of a zone blocks because the eviction API refuses evictions while replacements stay Pending, or the rollout takes more replicas down than the budget allows (rollouts do not consult budgets).",
        fix: "Spread the replicas so that no zone holds more than the budget allows, keep room for replacements outside each zone, or lower the rollout's maxUnavailable.",
    },
    Rule {
        id: "mixed-gpu-models",
        severity: Severity::Warning,
        title: "Eligible GPU nodes have different GPU models",
        explanation: "The pod requests GPUs but selects no GPU model, and the nodes it may land on carry different `nvidia.com/gpu.product` values: replicas end up on different hardware with different speed and memory.",
        fix: "Add a nodeSelector (or node affinity) on nvidia.com/gpu.product.",
    },
];

/// The rule with that ID.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Rule ID.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Field path in the workload's manifest, when one field is at fault.
    pub path: Option<String>,
    /// What is wrong, with numbers.
    pub message: String,
}

/// The GPU resource name.
const GPU: &str = "nvidia.com/gpu";
/// The GPU model label of NVIDIA's GPU feature discovery.
const GPU_PRODUCT: &str = "nvidia.com/gpu.product";

/// Whether any container of the pod requests (or limits) `resource`.
fn requests(pod: &Pod, resource: &str) -> bool {
    pod.init_containers
        .iter()
        .chain(&pod.containers)
        .any(|c| c.requests.contains_key(resource) || c.limits.contains_key(resource))
}

/// Where a workload's pod spec sits in its manifest.
fn spec_path(workload: &Workload) -> &'static str {
    if workload.key.starts_with("Pod/") {
        "spec"
    } else {
        "spec.template.spec"
    }
}

/// Checks every workload of the settled scenario (static rules, rules against the settled
/// cluster, and the rollout rules of workloads with an update strategy). Pending replicas'
/// reasons are read from their decisions, so `settled` needs a detail of at least
/// [`crate::scheduler::Detail::PendingOnly`] for the conflict rule.
pub fn lint(settled: &Settled, options: &Options) -> Vec<Finding> {
    lint_rules(settled, options, &|_| true)
}

/// [`lint`] with only the rules `wanted` accepts (rule IDs of [`RULES`]): the findings of
/// [`lint`] whose rule is wanted, in the same order, and the analyses behind the other rules
/// (a zone lost, a rollout, the conflict's variants placed again) are not run. An admission
/// policy that enforces a few rules asks for those.
pub fn lint_rules(
    settled: &Settled,
    options: &Options,
    wanted: &dyn Fn(&str) -> bool,
) -> Vec<Finding> {
    let workloads = settled.workloads();
    let cluster = &settled.scenario.cluster;
    let snapshot = settled.snapshot(options.profile.version);
    let owners = crate::analysis::disruption::Ownership::of(settled.placement());
    let mut findings = Vec::new();
    for (index, workload) in workloads.iter().enumerate() {
        let mut out = Checker {
            workload,
            index,
            cluster,
            settled,
            snapshot: &snapshot,
            owners: &owners,
            workloads,
            wanted,
            findings: Vec::new(),
        };
        out.static_rules(workloads);
        out.cluster_rules(options);
        out.volume_rules();
        out.rollout_rules(workload.rollout.as_ref(), options);
        findings.extend(out.findings);
    }
    findings.sort_by_key(|f| {
        (
            workloads.iter().position(|w| w.key == f.workload),
            RULES.iter().position(|r| r.id == f.rule),
        )
    });
    findings
}

struct Checker<'a> {
    workload: &'a Workload,
    index: usize,
    cluster: &'a Cluster,
    settled: &'a Settled,
    snapshot: &'a Snapshot,
    owners: &'a crate::analysis::disruption::Ownership,
    workloads: &'a [Workload],
    /// The rules asked for ([`lint_rules`]).
    wanted: &'a dyn Fn(&str) -> bool,
    findings: Vec<Finding>,
}
impl Checker<'_> {
    /// Whether any of these rules is asked for: the analyses behind a rule run only then.
    fn wants(&self, ids: &[&str]) -> bool {
        ids.iter().any(|id| (self.wanted)(id))
    }

    fn push(&mut self, id: &'static str, path: Option<String>, message: String) {
        if !(self.wanted)(id) {
            return;
        }
        let severity = rule(id).map_or(Severity::Warning, |r| r.severity);
        self.findings.push(Finding {
            rule: id,
            severity,
            workload: self.workload.key.clone(),
            path,
            message,
        });
    }

    fn template(&self) -> &Pod {
        &self.workload.template
    }

    /// Selectors (path, selector, namespace-wide) the workload counts its replicas with.
    fn selectors(&self) -> Vec<(String, Selector)> {
        let base = spec_path(self.workload);
        let pod = self.template();
        let mut out = Vec::new();
        for (i, c) in pod.topology_spread_constraints.iter().enumerate() {
            out.push((
                format!("{base}.topologySpreadConstraints[{i}].labelSelector"),
                c.selector.clone(),
            ));
        }
        if let Some(anti) = &pod.affinity.pod_anti_affinity {
            for (i, term) in anti.required.iter().enumerate() {
                out.push((
                    format!("{base}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector"),
                    term.selector.clone(),
                ));
            }
            for (i, weighted) in anti.preferred.iter().enumerate() {
                out.push((
                    format!("{base}.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm.labelSelector"),
                    weighted.term.selector.clone(),
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
