//! View model: manifest text → engine load and simulation → what the views draw.
//!
//! Nothing here decides placement. Every verdict, message, count and usage figure is read from
//! `spreadlab_k8s::load` (input errors), `spreadlab_engine::scheduler::simulate` (decisions,
//! explanations, the snapshot after binding) and the snapshot's own resource totals; this module
//! only groups them by zone and node for display, as the CLI's report does.

use std::collections::BTreeMap;

use spreadlab_engine::analysis::Settled;
use spreadlab_engine::scheduler::{Explanation, PodDecision, SpreadExplanation};
use spreadlab_engine::{Code, KubeVersion, PluginName};

mod build;

pub use crate::release::analyse;
pub use build::{analyse_after, analyse_for, warm_up};
use spreadlab_k8s::Loaded;

pub use crate::format::{format_bytes, format_cpu};

/// The name the editor's text has in load messages.
pub const SOURCE_NAME: &str = "scenario.yaml";
/// Column title for nodes without a `topology.kubernetes.io/zone` label.
pub const NO_ZONE: &str = "(no zone)";
/// Above this many nodes, each zone shows groups of alike nodes instead of one card per node.
pub const AGGREGATE_ABOVE_NODES: usize = 300;

/// One load problem, located in the editor's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// 1-based line, when the loader knows it (the field's own line for conversion errors).
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// The loader's whole message (file, document, object, field path, text).
    pub message: String,
}

/// Requested against allocatable for one resource of one node (engine snapshot figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Sum of the requests of the pods bound to the node.
    pub requested: i64,
    /// The node's allocatable amount.
    pub allocatable: i64,
}

impl Usage {
    /// Filled share in percent (0 when nothing is allocatable), for bar widths.
    pub fn percent(self) -> u32 {
        if self.allocatable <= 0 {
            return 0;
        }
        let share = self.requested.saturating_mul(100) / self.allocatable;
        u32::try_from(share.clamp(0, 100)).unwrap_or(100)
    }
}

/// A pod as drawn: a chip on a node card or in the Pending tray.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodChip {
    /// `namespace/name`.
    pub key: String,
    /// Index into [`Analysis::workloads`] (colour); `None` for pods of no loaded workload.
    pub workload: Option<usize>,
    /// The `pod-template-hash` (or `controller-revision-hash`) label: the revision.
    pub revision: Option<String>,
    /// Created by this simulation (not already running in the snapshot).
    pub new: bool,
    /// Index into [`Analysis::decisions`] for created pods.
    pub decision: Option<usize>,
}

/// One node card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    /// Node name.
    pub name: String,
    /// CPU in millicores.
    pub cpu: Usage,
    /// Memory in bytes.
    pub memory: Usage,
    /// GPU slots (any `*/gpu` extended resource), when the node has some.
    pub gpu: Option<(String, Usage)>,
    /// Taints as `key=value:Effect`.
    pub taints: Vec<String>,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// Pods bound to it after the simulation, in binding order.
    pub pods: Vec<PodChip>,
}

/// Alike nodes of one zone shown as one card (large clusters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeGroup {
    /// What the nodes share, e.g. `16 CPU · 64 GiB · 1 GPU`.
    pub shape: String,
    /// How many nodes.
    pub count: usize,
    /// Summed CPU usage.
    pub cpu: Usage,
    /// Summed memory usage.
    pub memory: Usage,
    /// Summed GPU slots, when the nodes have some.
    pub gpu: Option<Usage>,
    /// The nodes' names, in snapshot order.
    pub nodes: Vec<String>,
    /// Pods per workload index (`None`: other pods).
    pub pods_per_workload: BTreeMap<Option<usize>, usize>,
}

/// Most Pending chips drawn before "+N more" (the rest open on request).
pub const PENDING_SHOWN: usize = 60;
/// Most pod chips drawn on one node card.
pub const CHIPS_PER_NODE: usize = 24;
/// Most workloads listed in the legend.
pub const LEGEND_SHOWN: usize = 12;
/// Most node names listed when a node group is expanded.
pub const GROUP_NODES_SHOWN: usize = 50;

/// How many of `total` items a bounded list draws, and how many it leaves for "+N more".
pub fn bounded(total: usize, max: usize) -> (usize, usize) {
    let shown = total.min(max);
    (shown, total - shown)
}

/// One zone column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneView {
    /// The zone label value, or [`NO_ZONE`].
    pub name: String,
    /// Node cards (empty when aggregated).
    pub nodes: Vec<NodeView>,
    /// Node groups (only above [`AGGREGATE_ABOVE_NODES`] nodes).
    pub groups: Vec<NodeGroup>,
    /// Node count in the zone.
    pub node_count: usize,
}

/// One loaded workload's summary (counts from the engine's decisions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadView {
    /// `Kind/namespace/name`.
    pub key: String,
    /// Desired replicas.
    pub desired: i32,
    /// Already running in the snapshot.
    pub running: usize,
    /// Created and placed by the simulation.
    pub placed: usize,
    /// Created and left Pending (built, plus `not_built`).
    pub pending: usize,
    /// Of those, counted and not built: more replicas than could ever fit the nodes, each
    /// Pending as the last built one (`analysis::bound`).
    pub not_built: usize,
}

/// Everything the views draw for one text.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Documents and objects the loader rejected.
    pub errors: Vec<Issue>,
    /// The loader's warnings.
    pub warnings: Vec<Issue>,
    /// Workloads in reading order (colour = index).
    pub workloads: Vec<WorkloadView>,
    /// Zone columns, sorted by name (no-zone last).
    pub zones: Vec<ZoneView>,
    /// Pending pods, in scheduling order.
    pub pending: Vec<PodChip>,
    /// Total nodes.
    pub node_count: usize,
    /// Placed pods' decisions with their per-node detail, computed when first asked for
    /// ([`Analysis::explained`]): a keystroke's re-simulation keeps it for Pending pods only.
    explained: std::cell::RefCell<BTreeMap<usize, std::rc::Rc<PodDecision>>>,
    /// The load (the workloads as read).
    pub loaded: Loaded,
    /// The settled scenario: the engine's decisions (in scheduling order) and the start of every
    /// What-if analysis (shared with the analysis of the next edit when that leaves the scenario
    /// as it is).
    pub settled: std::rc::Rc<Settled>,
    /// The Kubernetes release whose scheduler was mirrored (the header's selector).
    pub version: KubeVersion,
    /// The text analysed (the key of the What-if results kept for it).
    pub text: std::rc::Rc<str>,
}

impl Analysis {
    /// The engine's decisions, in scheduling order.
    pub fn decisions(&self) -> &[PodDecision] {
        &self.settled.simulation.decisions
    }

    /// The decision for `namespace/name`.
    pub fn decision(&self, key: &str) -> Option<&PodDecision> {
        self.decision_index(key)
            .map(|index| &self.decisions()[index])
    }

    fn decision_index(&self, key: &str) -> Option<usize> {
        self.decisions()
            .iter()
            .position(|d| d.namespace.len() + 1 + d.name.len() == key.len() && pod_key(d) == key)
    }

    /// The `index`-th decision with its per-node detail (verdicts, scores, spread arithmetic),
    /// computed by the engine on first use (`Settled::explained`) and kept with the analysis.
    pub fn explained(&self, index: usize) -> Option<std::rc::Rc<PodDecision>> {
        if let Some(decision) = self.explained.borrow().get(&index) {
            return Some(decision.clone());
        }
        let decision = std::rc::Rc::new(self.settled.explained(index, &self.options())?);
        self.explained.borrow_mut().insert(index, decision.clone());
        Some(decision)
    }

    /// [`Analysis::explained`] for `namespace/name`.
    pub fn explained_pod(&self, key: &str) -> Option<std::rc::Rc<PodDecision>> {
        self.explained(self.decision_index(key)?)
    }

    /// Pods placed, over all workloads.
    pub fn placed(&self) -> usize {
        self.decisions().iter().filter(|d| d.node.is_some()).count()
    }
}

/// `namespace/name` of a decision.
pub fn pod_key(decision: &PodDecision) -> String {
    format!("{}/{}", decision.namespace, decision.name)
}

/// Groups alike nodes (same allocatable CPU, memory, GPU; same taints) of one zone.
fn group_nodes(nodes: &[NodeView]) -> Vec<NodeGroup> {
    let mut groups: BTreeMap<String, NodeGroup> = BTreeMap::new();
    for node in nodes {
        let mut shape = format!(
            "{} CPU · {}",
            format_cpu(node.cpu.allocatable),
            format_bytes(node.memory.allocatable)
        );
        if let Some((_, gpu)) = &node.gpu {
            shape.push_str(&format!(" · {} GPU", gpu.allocatable));
        }
        if !node.taints.is_empty() {
            shape.push_str(" · tainted");
        }
        let group = groups.entry(shape.clone()).or_insert_with(|| NodeGroup {
            shape,
            count: 0,
            cpu: Usage::default(),
            memory: Usage::default(),
            gpu: None,
            nodes: Vec::new(),
            pods_per_workload: BTreeMap::new(),
        });
        group.count += 1;
        group.nodes.push(node.name.clone());
        if let Some((_, gpu)) = &node.gpu {
            let sum = group.gpu.get_or_insert_with(Usage::default);
            sum.requested += gpu.requested;
            sum.allocatable += gpu.allocatable;
        }
        group.cpu.requested += node.cpu.requested;
        group.cpu.allocatable += node.cpu.allocatable;
        group.memory.requested += node.memory.requested;
        group.memory.allocatable += node.memory.allocatable;
        for pod in &node.pods {
            *group.pods_per_workload.entry(pod.workload).or_insert(0) += 1;
        }
    }
    groups.into_values().collect()
}

/// Most domains a spread chart draws (the rest are counted as "n more").
pub const CHART_DOMAINS: usize = 24;

/// The domains a spread chart draws, in name order, and how many it leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartDomains {
    /// `(domain, matching pods)` from the engine's explanation.
    pub shown: Vec<(String, i64)>,
    /// Domains not drawn.
    pub hidden: usize,
}

/// Picks at most `max` of the engine's domains for a chart: always the candidate's domain (where
/// the pod went, or the selected node's) and a domain holding the fewest matching pods, then the
/// fullest ones; drawn in name order.
pub fn chart_domains(
    spread: &SpreadExplanation,
    candidate: Option<&str>,
    max: usize,
) -> ChartDomains {
    let total = spread.domains.len();
    if total <= max {
        return ChartDomains {
            shown: spread
                .domains
                .iter()
                .map(|(d, c)| (d.clone(), *c))
                .collect(),
            hidden: 0,
        };
    }
    let mut picked: Vec<&String> = Vec::with_capacity(max);
    if let Some(candidate) = candidate.and_then(|c| spread.domains.get_key_value(c)) {
        picked.push(candidate.0);
    }
    if let Some((fewest, _)) = spread.domains.iter().min_by_key(|(_, c)| **c)
        && !picked.contains(&fewest)
    {
        picked.push(fewest);
    }
    let mut fullest: Vec<(&String, &i64)> = spread.domains.iter().collect();
    fullest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (domain, _) in fullest {
        if picked.len() >= max {
            break;
        }
        if !picked.contains(&domain) {
            picked.push(domain);
        }
    }
    picked.truncate(max.max(1));
    picked.sort();
    ChartDomains {
        hidden: total - picked.len(),
        shown: picked
            .into_iter()
            .map(|d| (d.clone(), spread.domains[d]))
            .collect(),
    }
}

/// The value of label `key` on node `node` (its spread domain), from the loaded cluster.
pub fn node_domain(analysis: &Analysis, node: &str, key: &str) -> Option<String> {
    analysis
        .loaded
        .cluster
        .nodes
        .iter()
        .find(|n| n.name == node)
        .and_then(|n| n.labels.get(key).cloned())
}

/// What one Filter plugin did on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterStep {
    /// Ran and passed.
    Passed,
    /// Ran and rejected the node (the engine's code and message).
    Failed(String),
    /// Did not run: an earlier plugin failed (upstream `runFilterPlugins` stops at the first
    /// failure per node), or PreFilter rejected the pod or removed the node.
    NotRun,
}

/// Every Filter plugin of the profile, in profile order, with what it did on `node` for the pod
/// of `explanation` (from the engine's verdict: the first failing plugin, or success).
pub fn filter_steps(
    filters: &[PluginName],
    explanation: &Explanation,
    node: &str,
) -> Option<Vec<(PluginName, FilterStep)>> {
    let verdict = explanation.nodes.iter().find(|v| v.node == node)?;
    let rejected_in_pre_filter = explanation.pre_filter.iter().any(|(_, status)| {
        matches!(
            status.code,
            Code::Error | Code::Unschedulable | Code::UnschedulableAndUnresolvable
        )
    });
    let failed_at = if verdict.filter.is_success() {
        None
    } else {
        // A plugin outside the Filter list (or none) removed the node before filtering.
        Some(
            verdict
                .filter
                .plugin
                .filter(|_| !rejected_in_pre_filter)
                .and_then(|p| filters.iter().position(|f| *f == p))
                .unwrap_or(0),
        )
    };
    let not_filtered = !verdict.filter.is_success()
        && (rejected_in_pre_filter || verdict.filter.plugin.is_none_or(|p| !filters.contains(&p)));
    Some(
        filters
            .iter()
            .enumerate()
            .map(|(i, plugin)| {
                let step = match failed_at {
                    _ if not_filtered => FilterStep::NotRun,
                    None => FilterStep::Passed,
                    Some(at) if i < at => FilterStep::Passed,
                    Some(at) if i == at => FilterStep::Failed(format!(
                        "{}: {}",
                        verdict.filter.code.as_str(),
                        verdict.filter.message()
                    )),
                    Some(_) => FilterStep::NotRun,
                };
                (*plugin, step)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::EXAMPLES;

    fn example(id: &str) -> String {
        EXAMPLES
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.text())
            .expect("example exists")
    }

    // Expected outcomes below are the real kube-scheduler's of the default (newest) release,
    // recorded in tests/scenarios/<name>/expected-1.37.jsonl.

    #[test]
    fn gpu_example_leaves_third_replica_pending_with_upstream_message() {
        let analysis = analyse(&example("gpu-three-zones-one-full"));
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        assert_eq!(analysis.pending.len(), 1);
        let decision = analysis.decision(&analysis.pending[0].key).unwrap();
        assert_eq!(
            decision.message.as_deref(),
            Some(
                "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
            )
        );
        let names: Vec<_> = analysis.zones.iter().map(|z| z.name.as_str()).collect();
        assert_eq!(names, ["zone-a", "zone-b", "zone-c"]);
        let gpu_a = &analysis.zones[0].nodes[0];
        assert_eq!(gpu_a.gpu.as_ref().map(|g| g.1.requested), Some(1));
    }

    #[test]
    fn control_plane_zone_blocks_third_replica_through_spread() {
        let analysis = analyse(&example("control-plane-only-zone"));
        assert_eq!(analysis.pending.len(), 1);
        let decision = analysis.decision(&analysis.pending[0].key).unwrap();
        assert!(
            decision
                .message
                .as_deref()
                .unwrap()
                .starts_with("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match pod topology spread constraints.")
        );
        let explanation = decision.explanation.as_ref().unwrap();
        assert_eq!(explanation.nodes.len(), 3);
        assert_eq!(explanation.spread.len(), 1);
    }

    #[test]
    fn bad_yaml_is_an_issue_with_a_line() {
        let analysis = analyse("apiVersion: v1\nkind: Node\nmetadata: {name: a\n");
        assert_eq!(analysis.errors.len(), 1);
        assert!(analysis.errors[0].line.is_some());
    }

    #[test]
    fn a_conversion_error_is_at_its_field_line() {
        // Line 7 column 5 is the `cpu` key of `    cpu: lots` in this text (counted by hand).
        let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\nstatus:\n  allocatable:\n    cpu: lots\n";
        let analysis = analyse(text);
        assert_eq!(analysis.errors.len(), 1, "{:?}", analysis.errors);
        assert_eq!(
            (analysis.errors[0].line, analysis.errors[0].column),
            (Some(7), Some(5))
        );
    }

    #[test]
    fn large_clusters_are_aggregated_into_groups() {
        let mut text = String::new();
        for i in 0..(AGGREGATE_ABOVE_NODES + 10) {
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{topology.kubernetes.io/zone: z{}}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n",
                i % 2
            ));
        }
        let analysis = analyse(&text);
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        assert_eq!(analysis.zones.len(), 2);
        assert!(analysis.zones.iter().all(|z| z.nodes.is_empty()));
        assert_eq!(analysis.zones[0].groups.len(), 1);
        assert_eq!(analysis.zones[0].groups[0].count, 155);
        assert_eq!(analysis.zones[0].groups[0].nodes.len(), 155);
        assert_eq!(analysis.zones[0].groups[0].gpu, None);
    }

    #[test]
    fn node_groups_keep_gpu_usage() {
        // 310 nodes, every 10th with 4 GPUs; 3 pods asking 2 GPUs each (6 requested in all).
        let mut text = String::new();
        for i in 0..310 {
            let gpu = if i % 10 == 0 {
                ", nvidia.com/gpu: '4'"
            } else {
                ""
            };
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{topology.kubernetes.io/zone: z}}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'{gpu}}}}}\n"
            ));
        }
        text.push_str("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: g, namespace: default}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: g}}\n  template:\n    metadata: {labels: {app: g}}\n    spec:\n      containers: [{name: g, image: g, resources: {limits: {nvidia.com/gpu: '2'}}}]\n");
        let analysis = analyse(&text);
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        let gpu_group = analysis.zones[0]
            .groups
            .iter()
            .find(|g| g.gpu.is_some())
            .unwrap();
        assert_eq!(gpu_group.count, 31);
        assert_eq!(
            gpu_group.gpu,
            Some(Usage {
                requested: 6,
                allocatable: 124
            })
        );
        assert_eq!(bounded(100, 60), (60, 40));
        assert_eq!(bounded(3, 60), (3, 0));
    }

    #[test]
    fn formats() {
        assert_eq!(format_cpu(16000), "16");
        assert_eq!(format_cpu(1500), "1.5");
        assert_eq!(format_bytes(64 << 30), "64 GiB");
        assert_eq!(format_bytes(512 << 20), "512 MiB");
        assert_eq!(
            Usage {
                requested: 1,
                allocatable: 2
            }
            .percent(),
            50
        );
        assert_eq!(
            Usage {
                requested: 5,
                allocatable: 0
            }
            .percent(),
            0
        );
    }

    fn spread(domains: &[(&str, i64)]) -> SpreadExplanation {
        SpreadExplanation {
            topology_key: "k".into(),
            max_skew: 1,
            min_domains: 1,
            selector: String::new(),
            domains: domains.iter().map(|(d, c)| (d.to_string(), *c)).collect(),
            global_minimum: 0,
            limit: 1,
            min_domains_forced_zero: false,
            self_match: true,
        }
    }

    #[test]
    fn charts_keep_the_candidate_and_the_fewest_beyond_the_limit() {
        let many: Vec<(String, i64)> = (0..30).map(|i| (format!("d{i:02}"), 5 + i % 7)).collect();
        let mut many: Vec<(&str, i64)> = many.iter().map(|(d, c)| (d.as_str(), *c)).collect();
        many.push(("z-empty", 0));
        let wide = spread(&many);
        let chart = chart_domains(&wide, Some("d00"), 5);
        assert_eq!(chart.hidden, 26);
        let names: Vec<&str> = chart.shown.iter().map(|(d, _)| d.as_str()).collect();
        // d00 (candidate, count 5), z-empty (fewest), then the fullest (count 11: d06, d13, d20).
        assert_eq!(names, ["d00", "d06", "d13", "d20", "z-empty"]);
        let small = chart_domains(&spread(&[("a", 1), ("b", 2)]), None, 5);
        assert_eq!((small.shown.len(), small.hidden), (2, 0));
    }

    #[test]
    fn the_spread_limit_is_the_engine_s() {
        // Lesson 2: zone counts 3/1/0 and maxSkew 2, so the limit is 0 + 2 (hand-derived).
        let analysis = analyse(crate::lessons::LESSONS[1].text);
        let decision = analysis.explained(0).unwrap();
        let spread = &decision.explanation.as_ref().unwrap().spread[0];
        assert_eq!((spread.global_minimum, spread.limit), (0, 2));
    }

    #[test]
    fn soft_spread_counts_come_from_the_engine() {
        // Two zones with room; two `app: web` pods already on node-a (zone-a); a Deployment
        // selecting `app: web` with a ScheduleAnyway zone spread. For its first replica both
        // nodes are feasible, and PreScore counts the matching pods per zone (upstream
        // scoring.go): zone-a 2, zone-b 0. No hard constraint is explained.
        let text = concat!(
            include_str!("lessons/nodes-ab.yaml"),
            include_str!("lessons/old-revision.yaml"),
            include_str!("lessons/web-anyway.yaml"),
        );
        let analysis = analyse(text);
        assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
        let decision = analysis.explained(0).unwrap();
        let explanation = decision.explanation.as_ref().unwrap();
        assert_eq!(
            explanation.soft_spread[0].domains,
            BTreeMap::from([("zone-a".to_string(), 2), ("zone-b".to_string(), 0)])
        );
        assert!(explanation.spread.is_empty());
    }

    #[test]
    fn filter_steps_stop_at_the_first_failure() {
        // gpu-three-zones-one-full: every node fails NodeResourcesFit (Insufficient nvidia.com/gpu,
        // tests/scenarios/gpu-three-zones-one-full/expected-1.37.jsonl); the default (v1.37)
        // filter order puts five plugins before it and, of those spreadlab runs, seven after
        // (NodeDeclaredFeatures last from v1.36; upstream's DynamicResources Filter is a no-op for
        // these pods).
        let analysis = analyse(&crate::examples::EXAMPLES[0].text());
        let pending = analysis
            .decisions()
            .iter()
            .find(|d| d.node.is_none())
            .unwrap();
        let filters = spreadlab_engine::scheduler::Options::default()
            .profile
            .filters;
        let steps = filter_steps(&filters, pending.explanation.as_ref().unwrap(), "gpu-a").unwrap();
        let names: Vec<(PluginName, &FilterStep)> = steps.iter().map(|(p, s)| (*p, s)).collect();
        assert_eq!(names.len(), 13);
        assert!(names[..5].iter().all(|(_, s)| **s == FilterStep::Passed));
        assert_eq!(names[5].0, PluginName::NodeResourcesFit);
        assert!(
            matches!(names[5].1, FilterStep::Failed(m) if m.contains("Insufficient nvidia.com/gpu"))
        );
        assert!(names[6..].iter().all(|(_, s)| **s == FilterStep::NotRun));
        assert_eq!(
            filter_steps(&filters, pending.explanation.as_ref().unwrap(), "nope"),
            None
        );
    }
}
