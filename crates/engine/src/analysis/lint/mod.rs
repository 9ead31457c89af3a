//! Lint: static and cluster-aware checks of the workloads' placement rules, each with a stable
//! kebab-case rule ID, an explanation and a fix ([`RULES`]). Cluster-aware rules re-run the
//! scheduler and the other analyses; none re-implements a scheduling rule.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::failure::{self, FailureMode};
use super::rollout::{self, Assumptions, LABEL_POD_TEMPLATE_HASH, RolloutSpec, Strategy};
use super::settle::place;
use super::{Settled, Workload};
use crate::framework::{PluginName, PodInfo, Profile, Snapshot, run_filter, run_pre_filter};
use crate::model::taint::find_untolerated_taint;
use crate::model::{
    Cluster, LABEL_HOSTNAME, Pod, PodAffinityTerm, Selector, TaintEffect, WhenUnsatisfiable,
};
use crate::scheduler::Options;

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
        explanation: "When a zone holding replicas fails (its nodes removed, or still present but unreachable), the replacements cannot all be placed in the other zones (capacity, spread or affinity): the workload runs below its desired replicas until the zone returns. Under the default nodeTaintsPolicy Ignore an unreachable zone still counts as a spread domain with no replicas, which can hold every replacement back.",
        fix: "Keep spare capacity in every zone, spread with maxSkew 1 over more zones, set nodeTaintsPolicy: Honor so that tainted (unreachable) nodes are not counted as domains, or relax the rules that block replacements.",
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
    let workloads = settled.workloads();
    let cluster = &settled.scenario.cluster;
    let (snapshot, _) = Snapshot::new(&settled.cluster);
    let owners = super::disruption::Ownership::of(settled.placement());
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
            findings: Vec::new(),
        };
        out.static_rules(workloads);
        out.cluster_rules(options);
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
    owners: &'a super::disruption::Ownership,
    workloads: &'a [Workload],
    findings: Vec<Finding>,
}

impl Checker<'_> {
    fn push(&mut self, id: &'static str, path: Option<String>, message: String) {
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

    fn static_rules(&mut self, workloads: &[Workload]) {
        let base = spec_path(self.workload);
        let pod = self.template().clone();
        for (i, c) in pod.topology_spread_constraints.iter().enumerate() {
            let path = format!("{base}.topologySpreadConstraints[{i}]");
            if let Some(min) = c.min_domains
                && c.when_unsatisfiable == WhenUnsatisfiable::ScheduleAnyway
            {
                self.push(
                    "min-domains-with-schedule-anyway",
                    Some(format!("{path}.minDomains")),
                    format!("Invalid value: {min}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
                );
            }
            if c.selector == Selector::Nothing {
                self.push(
                    "spread-without-selector",
                    Some(format!("{path}.labelSelector")),
                    format!("the constraint on {} counts no pods", c.topology_key),
                );
            }
        }
        let own = &pod.labels;
        let members: BTreeSet<&str> = self.settled.members[self.index]
            .iter()
            .map(String::as_str)
            .collect();
        for (path, selector) in self.selectors() {
            if selector == Selector::Nothing {
                continue;
            }
            if !selector.matches(own) {
                if path.contains("topologySpreadConstraints") {
                    self.push(
                        "selector-misses-own-pods",
                        Some(path.clone()),
                        format!("`{selector}` does not match the pod template's labels"),
                    );
                } else {
                    // Anti-affinity to other workloads is a common, deliberate pattern: a note.
                    self.push(
                        "selector-misses-own-pods",
                        Some(path.clone()),
                        format!("`{selector}` does not match the pod template's labels: this term keeps the replicas away from those pods but does not spread them"),
                    );
                    if let Some(last) = self.findings.last_mut() {
                        last.severity = Severity::Note;
                    }
                }
                continue;
            }
            let others: BTreeSet<String> = workloads
                .iter()
                .filter(|w| w.key != self.workload.key && w.template.namespace == pod.namespace)
                .filter(|w| selector.matches(&w.template.labels))
                .map(|w| w.key.clone())
                .chain(
                    self.settled
                        .cluster
                        .pods
                        .iter()
                        .filter(|p| {
                            p.namespace == pod.namespace
                                && !p.terminating
                                && selector.matches(&p.labels)
                                && !members.contains(p.key().as_str())
                                && !self.workload.running.contains(&p.key())
                        })
                        .map(|p| format!("Pod/{}", p.key())),
                )
                .collect();
            if !others.is_empty() {
                let listed: Vec<&str> = others.iter().take(5).map(String::as_str).collect();
                self.push(
                    "selector-too-generic",
                    Some(path),
                    format!(
                        "`{selector}` also selects {} other pod(s) or workload(s): {}{}",
                        others.len(),
                        listed.join(", "),
                        if others.len() > 5 { ", ..." } else { "" }
                    ),
                );
            }
        }
        if requests(&pod, GPU) {
            self.mixed_gpu_models();
        }
    }

    /// Nodes where the template passes the node-local placement filters (cordons, taints, node
    /// affinity), by snapshot index.
    fn eligible_nodes(&self) -> Vec<usize> {
        let mut profile = Profile::default_v1_35();
        profile.filters.retain(|p| {
            matches!(
                p,
                PluginName::NodeUnschedulable
                    | PluginName::NodeName
                    | PluginName::TaintToleration
                    | PluginName::NodeAffinity
            )
        });
        let info = PodInfo::new(self.template().clone());
        let (state, pre) = run_pre_filter(&profile, self.snapshot, &info);
        if !pre.status.is_success() {
            return Vec::new();
        }
        (0..self.snapshot.num_nodes())
            .filter(|&n| run_filter(&profile, &state, self.snapshot, &info, n).is_success())
            .collect()
    }

    fn mixed_gpu_models(&mut self) {
        let pod = self.template();
        let selects_model = pod.node_selector.contains_key(GPU_PRODUCT)
            || pod.affinity.node_affinity.as_ref().is_some_and(|a| {
                a.required
                    .iter()
                    .flatten()
                    .chain(a.preferred.iter().map(|p| &p.preference))
                    .flat_map(|term| &term.match_expressions)
                    .any(|r| r.key == GPU_PRODUCT)
            });
        if selects_model {
            return;
        }
        let models: BTreeSet<String> = self
            .eligible_nodes()
            .into_iter()
            .map(|n| &self.snapshot.nodes[n].node)
            .filter(|node| node.allocatable.get(GPU).is_some_and(|g| *g > 0))
            .map(|node| {
                node.labels
                    .get(GPU_PRODUCT)
                    .cloned()
                    .unwrap_or_else(|| String::from("(unlabelled)"))
            })
            .collect();
        if models.len() > 1 {
            let base = spec_path(self.workload);
            self.push(
                "mixed-gpu-models",
                Some(format!("{base}.nodeSelector")),
                format!(
                    "eligible GPU nodes carry {} models: {}",
                    models.len(),
                    models.into_iter().collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }

    fn cluster_rules(&mut self, options: &Options) {
        let base = spec_path(self.workload);
        let pod = self.template().clone();
        let eligible = self.eligible_nodes();
        let info = PodInfo::new(pod.clone());
        let (state, _) = run_pre_filter(&Profile::default_v1_35(), self.snapshot, &info);
        let explanations = crate::scheduler::spread_explanations(state.spread.as_ref());
        let hard: Vec<(usize, &crate::model::TopologySpreadConstraint)> = pod
            .topology_spread_constraints
            .iter()
            .enumerate()
            .filter(|(_, c)| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
            .collect();
        for (position, (i, c)) in hard.iter().enumerate() {
            let path = format!("{base}.topologySpreadConstraints[{i}]");
            if let (Some(min), Some(e)) = (c.min_domains, explanations.get(position))
                && (e.domains.len() as i64) < i64::from(min)
            {
                self.push(
                    "min-domains-exceeds-domains",
                    Some(format!("{path}.minDomains")),
                    format!(
                        "minDomains {min} but {} eligible domain(s) of {}: the global minimum is 0, at most {} matching pod(s) per domain",
                        e.domains.len(),
                        c.topology_key,
                        c.max_skew
                    ),
                );
            }
            let missing: Vec<&str> = eligible
                .iter()
                .map(|&n| &self.snapshot.nodes[n].node)
                .filter(|node| !node.labels.contains_key(&c.topology_key))
                .map(|node| node.name.as_str())
                .collect();
            if !missing.is_empty() {
                self.push(
                    "topology-key-missing",
                    Some(format!("{path}.topologyKey")),
                    format!(
                        "{} eligible node(s) lack {}: {}",
                        missing.len(),
                        c.topology_key,
                        missing
                            .iter()
                            .take(5)
                            .copied()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            // The nodes that are domains of this constraint, as PodTopologySpread counts them
            // (podtopologyspread/common.go `matchNodeInclusionPolicies`): under nodeAffinityPolicy
            // Honor (the default) only nodes matching the pod's nodeSelector and required node
            // affinity; under nodeTaintsPolicy Honor only nodes without an untolerated
            // NoSchedule/NoExecute taint. Honor checks taints only, not `spec.unschedulable`: a
            // cordoned node without the `node.kubernetes.io/unschedulable` taint still counts.
            let honors_affinity =
                c.node_affinity_policy != Some(crate::model::NodeInclusionPolicy::Ignore);
            let honors_taints =
                c.node_taints_policy == Some(crate::model::NodeInclusionPolicy::Honor);
            // Per domain: (counted nodes, tainted, cordoned without an untolerated taint).
            let mut domains: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
            for node in &self.cluster.nodes {
                let Some(value) = node.labels.get(&c.topology_key) else {
                    continue;
                };
                if honors_affinity && !pod.matches_required_node_affinity(node) {
                    continue;
                }
                let tainted = find_untolerated_taint(&node.taints, &pod.tolerations, |t| {
                    matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute)
                })
                .is_some();
                if honors_taints && tainted {
                    continue;
                }
                let entry = domains.entry(value.as_str()).or_insert((0, 0, 0));
                entry.0 += 1;
                entry.1 += usize::from(tainted);
                entry.2 += usize::from(!tainted && node.unschedulable);
            }
            let empty: Vec<String> = domains
                .iter()
                .filter(|(_, (all, tainted, cordoned))| *all == tainted + cordoned)
                .map(|(d, (_, tainted, _))| {
                    if *tainted > 0 {
                        String::from(*d)
                    } else {
                        format!("{d} (cordoned, no unschedulable taint)")
                    }
                })
                .collect();
            if !empty.is_empty() {
                let cordoned_only = empty.iter().all(|d| d.ends_with("taint)"));
                self.push(
                    "tainted-nodes-counted",
                    Some(format!("{path}.nodeTaintsPolicy")),
                    format!(
                        "{} domain(s) of {} have only tainted or cordoned nodes and count as empty: {}{}",
                        empty.len(),
                        c.topology_key,
                        empty.join(", "),
                        if cordoned_only || honors_taints {
                            "; nodeTaintsPolicy Honor checks taints only: a cordoned node counts until it carries node.kubernetes.io/unschedulable:NoSchedule (the node lifecycle controller adds it; uncordon or remove the node)"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
        if let Some(anti) = &pod.affinity.pod_anti_affinity {
            for (i, term) in anti.required.iter().enumerate() {
                self.anti_affinity_capacity(i, term, &eligible);
            }
        }
        self.conflicts(options);
        self.zone_loss(options);
    }

    fn anti_affinity_capacity(&mut self, i: usize, term: &PodAffinityTerm, eligible: &[usize]) {
        if !term.selector.matches(&self.template().labels) {
            return;
        }
        let domains: BTreeSet<&str> = eligible
            .iter()
            .filter_map(|&n| self.snapshot.nodes[n].node.labels.get(&term.topology_key))
            .map(String::as_str)
            .collect();
        if self.workload.desired > domains.len() {
            let base = spec_path(self.workload);
            let what = if term.topology_key == LABEL_HOSTNAME {
                "eligible nodes"
            } else {
                "eligible domains"
            };
            self.push(
                "anti-affinity-too-few-nodes",
                Some(format!("{base}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[{i}].topologyKey")),
                format!(
                    "{} replicas, one per {} value, but {} {what}: {} stay Pending",
                    self.workload.desired,
                    term.topology_key,
                    domains.len(),
                    self.workload.desired - domains.len()
                ),
            );
        }
    }

    /// A replica Pending with both PodTopologySpread and InterPodAffinity among the nodes'
    /// rejections is a conflict only when each rule alone can be satisfied: placing everything
    /// again with the hard spread constraints dropped, and again with the required anti-affinity
    /// dropped, leaves none of this workload's replicas Pending, while both together do.
    fn conflicts(&mut self, options: &Options) {
        let both = self.settled.pending[self.index]
            .iter()
            .find(|(_, decision)| {
                decision.explanation.as_ref().is_some_and(|explanation| {
                    let plugins: BTreeSet<PluginName> = explanation
                        .nodes
                        .iter()
                        .filter(|v| !v.filter.is_success())
                        .filter_map(|v| v.filter.plugin)
                        .collect();
                    plugins.contains(&PluginName::PodTopologySpread)
                        && plugins.contains(&PluginName::InterPodAffinity)
                })
            });
        let Some((pod, decision)) = both else {
            return;
        };
        let places_all = |relax: fn(&mut Pod)| {
            let mut workloads = self.workloads.to_vec();
            let variant = &mut workloads[self.index];
            relax(&mut variant.template);
            for p in &mut variant.to_create {
                relax(p);
            }
            place(self.cluster, &workloads, options).pending[self.index].is_empty()
        };
        let without_spread = places_all(|p| {
            p.topology_spread_constraints
                .retain(|c| c.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule);
        });
        let without_anti = places_all(|p| {
            if let Some(anti) = &mut p.affinity.pod_anti_affinity {
                anti.required.clear();
            }
        });
        if without_spread && without_anti {
            let message = decision.message.clone().unwrap_or_default();
            self.push(
                "spread-and-anti-affinity-conflict",
                None,
                format!(
                    "{} stays Pending: {message} (each rule alone places every replica)",
                    pod.name
                ),
            );
        }
    }

    /// Every zone holding a replica, failed both ways (removed, and unreachable: under
    /// nodeTaintsPolicy Ignore an unreachable zone can hold every replacement back): the worst
    /// shortfall per mode, and per PodDisruptionBudget the first zone whose sudden loss leaves it
    /// short and the first whose drain blocks (a drain is the same in both modes: asked once).
    fn zone_loss(&mut self, options: &Options) {
        let zones = super::per_zone(&self.settled.cluster, &self.settled.members[self.index]);
        if zones.is_empty() {
            return;
        }
        // This workload alone is followed; the others stay where they are.
        let Some(single) = self.settled.placement_of(self.index) else {
            return;
        };
        let desired = self.workload.desired;
        let mut short_pdbs: BTreeSet<String> = BTreeSet::new();
        let mut blocked_pdbs: BTreeSet<String> = BTreeSet::new();
        for mode in [FailureMode::Removed, FailureMode::Unreachable] {
            // (running after, zone, held) of every zone that leaves the workload short.
            let mut short: Vec<(usize, &String, usize)> = Vec::new();
            for (zone, held) in &zones {
                let report = failure::fail_without_recovery(
                    single,
                    &failure::Domain::Zone(zone.clone()),
                    mode,
                    options,
                );
                let impact = &report.workloads[0];
                if impact.running_after < desired {
                    short.push((impact.running_after, zone, *held));
                }
                for pdb in &report.pdbs {
                    if pdb.violated && short_pdbs.insert(pdb.pdb.clone()) {
                        self.push(
                            "pdb-violated",
                            None,
                            format!(
                                "a failure of zone {zone} leaves {} healthy, PodDisruptionBudget {} needs {}",
                                pdb.healthy_after_failure, pdb.pdb, pdb.budget.desired_healthy
                            ),
                        );
                    }
                    if pdb.drain.blocks() && blocked_pdbs.insert(pdb.pdb.clone()) {
                        self.push(
                            "pdb-violated",
                            None,
                            format!(
                                "draining zone {zone} blocks after {} eviction(s): PodDisruptionBudget {} allows no more{}",
                                pdb.drain.evictions,
                                pdb.pdb,
                                if pdb.drain.pending_replacements.is_empty() {
                                    String::new()
                                } else {
                                    format!(
                                        ", {} replacement(s) Pending: {}",
                                        pdb.drain.pending_replacements.len(),
                                        pdb.drain.message.as_deref().unwrap_or("")
                                    )
                                }
                            ),
                        );
                    }
                }
            }
            // The worst first (fewest running), then zone order.
            short.sort();
            if let Some((running, zone, held)) = short.first() {
                let others: Vec<&str> = short[1..].iter().map(|(_, z, _)| z.as_str()).collect();
                self.push(
                    "zone-loss-not-survived",
                    None,
                    format!(
                        "losing zone {zone} ({held} replica(s), nodes {}) leaves {running} of {desired} running after rescheduling{}",
                        mode.as_str(),
                        if others.is_empty() {
                            String::new()
                        } else {
                            format!("; also short when losing zone {}", others.join(", "))
                        }
                    ),
                );
            }
        }
    }

    fn rollout_rules(&mut self, deployment: Option<&RolloutSpec>, options: &Options) {
        let Some(spec) = deployment else {
            return;
        };
        let pod = self.template().clone();
        let base = spec_path(self.workload);
        // `pod-template-hash` is a Deployment's label (StatefulSets use controller-revision-hash).
        let deployment = matches!(
            spec.strategy,
            Strategy::RollingUpdate { .. } | Strategy::Recreate
        );
        for (i, c) in pod.topology_spread_constraints.iter().enumerate() {
            if deployment
                && c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule
                && !c
                    .match_label_keys
                    .iter()
                    .any(|k| k == LABEL_POD_TEMPLATE_HASH)
            {
                self.push(
                    "missing-pod-template-hash-key",
                    Some(format!(
                        "{base}.topologySpreadConstraints[{i}].matchLabelKeys"
                    )),
                    format!(
                        "old pods count toward the new revision's spread on {} during a rollout",
                        c.topology_key
                    ),
                );
            }
        }
        if let Some(anti) = &pod.affinity.pod_anti_affinity {
            for (i, term) in anti.required.iter().enumerate() {
                if deployment
                    && term.selector.matches(&pod.labels)
                    && !term
                        .match_label_keys
                        .iter()
                        .any(|k| k == LABEL_POD_TEMPLATE_HASH)
                {
                    self.push(
                        "missing-pod-template-hash-key",
                        Some(format!("{base}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[{i}].matchLabelKeys")),
                        format!(
                            "old pods repel the new revision on {} during a rollout",
                            term.topology_key
                        ),
                    );
                }
            }
        }
        // The replicas in place (the snapshot's, or on a fresh manifest the ones just placed
        // from this template) are the current revision; a fresh manifest is rolled to a changed
        // template (a new pod-template-hash).
        let mut current = self.workload.clone();
        current.running = self.settled.members[self.index].clone();
        if current.running.is_empty() {
            return;
        }
        let target = if self.workload.running.is_empty() {
            rollout::next_revision(&pod)
        } else {
            pod.clone()
        };
        let outcome = rollout::simulate_rollout(
            &self.settled.cluster,
            &current,
            &target,
            spec,
            &Assumptions::default(),
            options,
        );
        let surge = matches!(spec.strategy, Strategy::RollingUpdate { .. })
            && spec.strategy.resolve(self.workload.desired as i32).0 > 0;
        if !outcome.completed
            && surge
            && requests(&pod, GPU)
            && outcome
                .reason
                .as_deref()
                .is_some_and(|r| r.contains(&format!("Insufficient {GPU}")))
        {
            self.push(
                "surge-needs-missing-gpu",
                Some(String::from("spec.strategy.rollingUpdate.maxSurge")),
                format!(
                    "the rollout stalls at step {}: {}",
                    outcome.stalled_at_step.unwrap_or(0),
                    outcome.reason.clone().unwrap_or_default()
                ),
            );
        }
        let pending: Vec<&Pod> = self
            .settled
            .pending
            .iter()
            .flatten()
            .map(|(p, _)| p)
            .collect();
        for pdb in &self.cluster.pdbs {
            if !super::disruption::selects(pdb, &pod) {
                continue;
            }
            let budget =
                super::disruption::budget(&self.settled.cluster, &pending, pdb, self.owners);
            if (outcome.min_available as i64) < i64::from(budget.desired_healthy) {
                let path = match spec.strategy {
                    Strategy::RollingUpdate { .. } => "spec.strategy.rollingUpdate.maxUnavailable",
                    Strategy::Recreate => "spec.strategy.type",
                    _ => "spec.updateStrategy",
                };
                self.push(
                    "pdb-violated",
                    Some(String::from(path)),
                    format!(
                        "the rollout goes down to {} available; PodDisruptionBudget {}/{} needs {} healthy",
                        outcome.min_available, pdb.namespace, pdb.name, budget.desired_healthy
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::analysis::rollout::IntOrPercent;
    use crate::analysis::testing::{deployment, settled};
    use crate::framework::testing::{labels, node, pod};
    use crate::model::{
        Container, NodeInclusionPolicy, PodAffinity, PodDisruptionBudget, Requirement, Taint,
        TopologySpreadConstraint,
    };

    const ZONE: &str = "topology.kubernetes.io/zone";

    fn zone_node(name: &str, zone: &str) -> crate::model::Node {
        node(name, &[(ZONE, zone), (LABEL_HOSTNAME, name)])
    }

    fn template(app: &str, cpu: i64) -> Pod {
        let mut p = pod("", &[("app", app), (LABEL_POD_TEMPLATE_HASH, "h1")], None);
        let mut c = Container {
            name: "c".into(),
            ..Default::default()
        };
        c.requests.insert("cpu".into(), cpu);
        p.containers.push(c);
        p
    }

    fn spread(selector: Selector) -> TopologySpreadConstraint {
        TopologySpreadConstraint {
            max_skew: 1,
            topology_key: ZONE.into(),
            when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
            selector,
            min_domains: None,
            node_affinity_policy: None,
            node_taints_policy: None,
            match_label_keys: vec![LABEL_POD_TEMPLATE_HASH.into()],
        }
    }

    fn app(app: &str) -> Selector {
        Selector::from_set(&labels(&[("app", app)]))
    }

    fn workload(name: &str, template: Pod, replicas: usize) -> Workload {
        deployment(name, template, replicas)
    }

    /// Lint of `workloads` on `cluster`, workload `i` rolling out with `rollouts[i]`.
    fn lint_of(
        cluster: &Cluster,
        workloads: &[Workload],
        rollouts: &[Option<RolloutSpec>],
        options: &Options,
    ) -> Vec<Finding> {
        let mut workloads = workloads.to_vec();
        for (workload, rollout) in workloads.iter_mut().zip(rollouts) {
            workload.rollout = rollout.clone();
        }
        lint(&settled(cluster, &workloads, options), options)
    }

    fn three_zones() -> Cluster {
        Cluster {
            nodes: vec![
                zone_node("a", "z1"),
                zone_node("b", "z2"),
                zone_node("c", "z3"),
            ],
            ..Cluster::default()
        }
    }

    fn rules_of(cluster: &Cluster, workloads: &[Workload]) -> Vec<&'static str> {
        lint(
            &settled(cluster, workloads, &Options::default()),
            &Options::default(),
        )
        .into_iter()
        .map(|f| f.rule)
        .collect()
    }

    #[test]
    fn every_rule_has_an_explanation_and_a_fix() {
        let mut ids = BTreeSet::new();
        for r in RULES {
            assert!(ids.insert(r.id), "duplicate {}", r.id);
            assert!(r.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'));
            assert!(!r.explanation.is_empty() && !r.fix.is_empty());
        }
    }

    /// A well-formed zone spread over three zones with room to spare, tainted nodes not counted
    /// as domains (nodeTaintsPolicy Honor, so an unreachable zone does not hold replacements
    /// back): nothing to say.
    #[test]
    fn clean_workload_has_no_findings() {
        let mut t = template("web", 100);
        let mut c = spread(app("web"));
        c.node_taints_policy = Some(NodeInclusionPolicy::Honor);
        t.topology_spread_constraints.push(c);
        assert!(rules_of(&three_zones(), &[workload("web", t, 3)]).is_empty());
    }

    #[test]
    fn selector_rules() {
        let mut t = template("web", 100);
        t.topology_spread_constraints.push(spread(app("api")));
        let mut nil = spread(Selector::Nothing);
        nil.topology_key = LABEL_HOSTNAME.into();
        t.topology_spread_constraints.push(nil);
        let mut minimal = spread(app("web"));
        minimal.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
        minimal.min_domains = Some(2);
        t.topology_spread_constraints.push(minimal);
        let found = rules_of(&three_zones(), &[workload("web", t, 3)]);
        assert!(found.contains(&"selector-misses-own-pods"), "{found:?}");
        assert!(found.contains(&"spread-without-selector"), "{found:?}");
        assert!(
            found.contains(&"min-domains-with-schedule-anyway"),
            "{found:?}"
        );

        // `tier=front` selects both web and api.
        let front = |name: &str| {
            let mut t = template(name, 100);
            t.labels.insert("tier".into(), "front".into());
            t.topology_spread_constraints
                .push(spread(Selector::from_set(&labels(&[("tier", "front")]))));
            t
        };
        let found = rules_of(
            &three_zones(),
            &[
                workload("web", front("web"), 1),
                workload("api", front("api"), 1),
            ],
        );
        assert!(found.contains(&"selector-too-generic"), "{found:?}");
    }

    /// The branches of the selector rules that the test above does not reach: a required
    /// anti-affinity term aimed at another app is only a note (a deliberate pattern); a bound pod
    /// of no workload that the selector also matches makes it too generic; a Deployment's
    /// required anti-affinity to its own pods without matchLabelKeys [pod-template-hash] is
    /// flagged at that term's path.
    #[test]
    fn selector_rule_branches() {
        let term = |app_name: &str| PodAffinityTerm {
            selector: Selector::Requirements(vec![Requirement::equals("app", app_name)]),
            topology_key: LABEL_HOSTNAME.into(),
            namespaces: vec![],
            namespace_selector: None,
            match_label_keys: vec![],
            mismatch_label_keys: vec![],
            parse_error: None,
        };
        let mut t = template("web", 100);
        t.affinity.pod_anti_affinity = Some(PodAffinity {
            required: vec![term("db")],
            preferred: vec![],
        });
        let findings = lint_of(
            &three_zones(),
            &[workload("web", t, 1)],
            &[None],
            &Options::default(),
        );
        let misses = findings
            .iter()
            .find(|f| f.rule == "selector-misses-own-pods")
            .expect("note");
        assert_eq!(misses.severity, Severity::Note);

        let mut cluster = three_zones();
        cluster
            .pods
            .push(pod("stray", &[("app", "web")], Some("a")));
        let mut t = template("web", 100);
        t.topology_spread_constraints.push(spread(app("web")));
        let findings = lint_of(
            &cluster,
            &[workload("web", t, 1)],
            &[None],
            &Options::default(),
        );
        let generic = findings
            .iter()
            .find(|f| f.rule == "selector-too-generic")
            .expect("too generic");
        assert!(
            generic
                .message
                .ends_with("also selects 1 other pod(s) or workload(s): Pod/default/stray"),
            "{}",
            generic.message
        );

        let mut t = template("web", 100);
        t.affinity.pod_anti_affinity = Some(PodAffinity {
            required: vec![term("web")],
            preferred: vec![],
        });
        let spec = RolloutSpec {
            strategy: Strategy::RollingUpdate {
                max_surge: IntOrPercent::Percent(25),
                max_unavailable: IntOrPercent::Percent(25),
            },
            min_ready_seconds: 0,
            progress_deadline_seconds: 600,
            termination_grace_seconds: 30,
        };
        let findings = lint_of(
            &three_zones(),
            &[workload("web", t, 2)],
            &[Some(spec)],
            &Options::default(),
        );
        let paths: Vec<&str> = findings
            .iter()
            .filter(|f| f.rule == "missing-pod-template-hash-key")
            .filter_map(|f| f.path.as_deref())
            .collect();
        assert_eq!(
            paths,
            vec![
                "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys"
            ]
        );
    }

    #[test]
    fn domain_rules() {
        let mut cluster = three_zones();
        // A fourth node without a zone label, and zone z3 only tainted.
        cluster
            .nodes
            .push(node("bare", &[(LABEL_HOSTNAME, "bare")]));
        cluster.nodes[2].taints.push(Taint {
            key: "dedicated".into(),
            value: "gpu".into(),
            effect: TaintEffect::NoSchedule,
        });
        let mut t = template("web", 100);
        let mut c = spread(app("web"));
        c.min_domains = Some(5);
        t.topology_spread_constraints.push(c);
        let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
        assert!(found.contains(&"min-domains-exceeds-domains"), "{found:?}");
        assert!(found.contains(&"topology-key-missing"), "{found:?}");
        assert!(found.contains(&"tainted-nodes-counted"), "{found:?}");
        t.topology_spread_constraints[0].node_taints_policy = Some(NodeInclusionPolicy::Honor);
        let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
        assert!(!found.contains(&"tainted-nodes-counted"), "{found:?}");
    }

    /// Under the default nodeAffinityPolicy Honor, nodes the pod's nodeSelector excludes are no
    /// domains (podtopologyspread/common.go `matchNodeInclusionPolicies`): a tainted zone the
    /// pod cannot go to anyway is not counted. nodeTaintsPolicy Honor checks taints only: a
    /// cordoned node without the unschedulable taint is still counted.
    #[test]
    fn tainted_nodes_counted_honors_node_affinity_and_cordons() {
        let mut cluster = three_zones();
        for n in &mut cluster.nodes[..2] {
            n.labels.insert("pool".into(), "web".into());
        }
        cluster.nodes[2].taints.push(Taint {
            key: "dedicated".into(),
            value: "gpu".into(),
            effect: TaintEffect::NoSchedule,
        });
        let mut t = template("web", 100);
        t.topology_spread_constraints.push(spread(app("web")));
        let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
        assert!(found.contains(&"tainted-nodes-counted"), "{found:?}");
        t.node_selector.insert("pool".into(), "web".into());
        let found = rules_of(&cluster, &[workload("web", t.clone(), 2)]);
        assert!(!found.contains(&"tainted-nodes-counted"), "{found:?}");

        // z2 cordoned without a taint, Honor set: still counted, and the message says why.
        cluster.nodes[1].unschedulable = true;
        t.topology_spread_constraints[0].node_taints_policy = Some(NodeInclusionPolicy::Honor);
        let findings = lint_of(
            &cluster,
            &[workload("web", t, 2)],
            &[None],
            &Options::default(),
        );
        let message = findings
            .iter()
            .find(|f| f.rule == "tainted-nodes-counted")
            .map(|f| f.message.as_str())
            .unwrap_or_default();
        assert!(
            message.starts_with(
                "1 domain(s) of topology.kubernetes.io/zone have only tainted or cordoned nodes and count as empty: z2 (cordoned, no unschedulable taint); nodeTaintsPolicy Honor checks taints only"
            ),
            "{message}"
        );
    }

    /// Four replicas with required hostname anti-affinity on three nodes: one stays Pending.
    ///
    /// Conflict: zone z1 has nodes a, a2, a3, zone z2 node b; four replicas with hostname
    /// anti-affinity and a zone spread of maxSkew 1. Anti-affinity alone fits four (four nodes);
    /// the spread alone fits two per zone; together z2 holds at most one (one node), so z1 at
    /// most two (skew 1): the fourth replica is rejected by PodTopologySpread on z1's nodes and
    /// by InterPodAffinity on b. With a fifth replica on four nodes instead, anti-affinity alone
    /// cannot place it: both plugins still reject it, but that is not a conflict.
    #[test]
    fn anti_affinity_rules() {
        let anti = |t: &mut Pod| {
            t.affinity.pod_anti_affinity = Some(PodAffinity {
                required: vec![PodAffinityTerm {
                    selector: Selector::Requirements(vec![Requirement::equals("app", "web")]),
                    topology_key: LABEL_HOSTNAME.into(),
                    namespaces: vec![],
                    namespace_selector: None,
                    match_label_keys: vec![],
                    mismatch_label_keys: vec![],
                    parse_error: None,
                }],
                preferred: vec![],
            });
        };
        let mut t = template("web", 100);
        anti(&mut t);
        let found = rules_of(&three_zones(), &[workload("web", t, 4)]);
        assert!(found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");

        let cluster = Cluster {
            nodes: vec![
                zone_node("a", "z1"),
                zone_node("a2", "z1"),
                zone_node("a3", "z1"),
                zone_node("b", "z2"),
            ],
            ..Cluster::default()
        };
        let mut t = template("web", 100);
        anti(&mut t);
        t.topology_spread_constraints.push(spread(app("web")));
        let found = rules_of(&cluster, &[workload("web", t.clone(), 4)]);
        assert!(
            found.contains(&"spread-and-anti-affinity-conflict"),
            "{found:?}"
        );
        assert!(!found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");

        let found = rules_of(&cluster, &[workload("web", t, 5)]);
        assert!(
            !found.contains(&"spread-and-anti-affinity-conflict"),
            "{found:?}"
        );
        assert!(found.contains(&"anti-affinity-too-few-nodes"), "{found:?}");
    }

    /// Two 3-cpu replicas on two 4-cpu nodes in zones z1 and z2, one each: losing either zone
    /// leaves no room for its replica on the other node (3 + 3 > 4 cpu). PDB minAvailable 2:
    /// desiredHealthy 2, so a zone loss leaves 1 healthy (short), and a drain is refused from the
    /// first eviction (2 healthy − 2 desired = 0 allowed).
    #[test]
    fn zone_loss_and_pdb() {
        let cluster = Cluster {
            nodes: vec![zone_node("a", "z1"), zone_node("b", "z2")],
            pdbs: vec![PodDisruptionBudget {
                namespace: "default".into(),
                name: "web".into(),
                selector: app("web"),
                disruptions_allowed: 0,
                min_available: Some(IntOrPercent::Int(2)),
                max_unavailable: None,
            }],
            ..Cluster::default()
        };
        let findings = lint_of(
            &cluster,
            &[workload("web", template("web", 3000), 2)],
            &[None],
            &Options::default(),
        );
        let messages: Vec<(&str, &str)> = findings
            .iter()
            .map(|f| (f.rule, f.message.as_str()))
            .collect();
        assert!(
            messages.contains(&(
                "zone-loss-not-survived",
                "losing zone z1 (1 replica(s), nodes removed) leaves 1 of 2 running after rescheduling; also short when losing zone z2"
            )),
            "{messages:?}"
        );
        assert!(
            messages.contains(&(
                "pdb-violated",
                "a failure of zone z1 leaves 1 healthy, PodDisruptionBudget default/web needs 2"
            )),
            "{messages:?}"
        );
        assert!(
            messages.contains(&(
                "pdb-violated",
                "draining zone z1 blocks after 0 eviction(s): PodDisruptionBudget default/web allows no more"
            )),
            "{messages:?}"
        );
    }

    /// Three zones of one roomy node each, three replicas with a hard zone spread (maxSkew 1):
    /// removing a zone leaves two domains and the replacement fits (skew 2 − 1 = 1); an
    /// unreachable zone stays a domain with 0 replicas under nodeTaintsPolicy Ignore, so b or c
    /// would reach skew 2 > 1 and the replacement stays Pending. Only the unreachable mode finds
    /// the shortfall, in every zone (z1 first).
    #[test]
    fn unreachable_zone_loss_is_found() {
        let cluster = Cluster {
            nodes: vec![
                zone_node("a", "z1"),
                zone_node("b", "z2"),
                zone_node("c", "z3"),
            ],
            ..Cluster::default()
        };
        let mut t = template("web", 100);
        t.topology_spread_constraints.push(spread(app("web")));
        let findings = lint_of(
            &cluster,
            &[workload("web", t, 3)],
            &[None],
            &Options::default(),
        );
        let zone: Vec<&str> = findings
            .iter()
            .filter(|f| f.rule == "zone-loss-not-survived")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(
            zone,
            vec![
                "losing zone z1 (1 replica(s), nodes unreachable) leaves 2 of 3 running after rescheduling; also short when losing zone z2, z3"
            ]
        );
    }

    #[test]
    fn gpu_rules() {
        let gpu_node = |name: &str, zone: &str, model: &str| {
            let mut n = zone_node(name, zone);
            n.allocatable.insert(GPU.into(), 1);
            n.labels.insert(GPU_PRODUCT.into(), model.into());
            n
        };
        let cluster = Cluster {
            nodes: vec![gpu_node("g1", "z1", "A100"), gpu_node("g2", "z2", "H100")],
            ..Cluster::default()
        };
        let mut t = template("infer", 100);
        t.containers[0].requests.insert(GPU.into(), 1);
        let mut t_spread = t.clone();
        let mut c = spread(app("infer"));
        c.match_label_keys.clear();
        t_spread.topology_spread_constraints.push(c);
        // The current revision runs on both GPUs.
        let mut old = t_spread.clone();
        old.labels
            .insert(LABEL_POD_TEMPLATE_HASH.into(), "h0".into());
        let mut bound = cluster.clone();
        for (i, n) in ["g1", "g2"].iter().enumerate() {
            let mut p = old.clone();
            p.name = format!("infer-old-{i}");
            p.node_name = Some((*n).into());
            bound.pods.push(p);
        }
        let mut w = workload("infer", t_spread, 2);
        w.to_create.clear();
        w.running = vec!["default/infer-old-0".into(), "default/infer-old-1".into()];
        let spec = RolloutSpec {
            strategy: Strategy::RollingUpdate {
                max_surge: IntOrPercent::Percent(25),
                max_unavailable: IntOrPercent::Percent(25),
            },
            min_ready_seconds: 0,
            progress_deadline_seconds: 600,
            termination_grace_seconds: 30,
        };
        let found: Vec<_> = lint_of(&bound, &[w], &[Some(spec)], &Options::default())
            .into_iter()
            .map(|f| f.rule)
            .collect();
        assert!(found.contains(&"mixed-gpu-models"), "{found:?}");
        assert!(found.contains(&"surge-needs-missing-gpu"), "{found:?}");
        assert!(
            found.contains(&"missing-pod-template-hash-key"),
            "{found:?}"
        );
        t.node_selector.insert(GPU_PRODUCT.into(), "A100".into());
        let found = rules_of(&cluster, &[workload("infer", t, 1)]);
        assert!(!found.contains(&"mixed-gpu-models"), "{found:?}");
    }

    /// A fresh manifest (no replica running yet): the replicas are placed first (one per 1-GPU
    /// node), then rolled to a changed template. RollingUpdate 25%/25% of 2 gives surge 1,
    /// unavailable 0 (`ResolveFenceposts`): the surge pod needs a third GPU that does not exist,
    /// so the rollout stalls on `Insufficient nvidia.com/gpu`. Recreate takes both down (0
    /// available) while PDB minAvailable 2 needs 2 healthy.
    #[test]
    fn rollout_rules_run_on_a_fresh_manifest() {
        let gpu_node = |name: &str, zone: &str| {
            let mut n = zone_node(name, zone);
            n.allocatable.insert(GPU.into(), 1);
            n
        };
        let cluster = Cluster {
            nodes: vec![gpu_node("g1", "z1"), gpu_node("g2", "z2")],
            pdbs: vec![PodDisruptionBudget {
                namespace: "default".into(),
                name: "infer".into(),
                selector: app("infer"),
                disruptions_allowed: 0,
                min_available: Some(IntOrPercent::Int(2)),
                max_unavailable: None,
            }],
            ..Cluster::default()
        };
        let mut t = template("infer", 100);
        t.containers[0].requests.insert(GPU.into(), 1);
        let spec = |strategy| RolloutSpec {
            strategy,
            min_ready_seconds: 0,
            progress_deadline_seconds: 600,
            termination_grace_seconds: 30,
        };
        let rolling = spec(Strategy::RollingUpdate {
            max_surge: IntOrPercent::Percent(25),
            max_unavailable: IntOrPercent::Percent(25),
        });
        let w = workload("infer", t, 2);
        let findings = lint_of(
            &cluster,
            core::slice::from_ref(&w),
            &[Some(rolling)],
            &Options::default(),
        );
        let surge = findings
            .iter()
            .find(|f| f.rule == "surge-needs-missing-gpu")
            .expect("surge-needs-missing-gpu");
        assert!(
            surge.message.contains("Insufficient nvidia.com/gpu"),
            "{}",
            surge.message
        );
        let findings = lint_of(
            &cluster,
            &[w],
            &[Some(spec(Strategy::Recreate))],
            &Options::default(),
        );
        let rollout_pdb: Vec<&str> = findings
            .iter()
            .filter(|f| f.rule == "pdb-violated" && f.path.as_deref() == Some("spec.strategy.type"))
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(
            rollout_pdb,
            vec![
                "the rollout goes down to 0 available; PodDisruptionBudget default/infer needs 2 healthy"
            ]
        );
    }
}
