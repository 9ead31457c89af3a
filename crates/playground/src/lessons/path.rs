//! The lesson path, in teaching order: each lesson a scenario, a question, the choices, which
//! choice the engine's result supports, the take-away, and one change for the learner to make.
//! Answers and checks read the engine's results (the simulation, or a What-if analysis of it);
//! the expected values are asserted in `tests.rs` from upstream semantics and recordings.

use super::{Lesson, Try, feasible_zones, most_on_one_node, placed_choice};
use crate::model::Analysis;
use crate::state::{FailMode, FailTarget};
use crate::whatif;

/// A seed scenario of `tests/scenarios` (placements recorded from the real kube-scheduler) as
/// one text: its cluster, then its workload.
macro_rules! recorded {
    ($name:literal) => {
        concat!(
            include_str!(concat!(
                "../../../../tests/scenarios/",
                $name,
                "/cluster.yaml"
            )),
            "---\n",
            include_str!(concat!(
                "../../../../tests/scenarios/",
                $name,
                "/workload.yaml"
            )),
        )
    };
}

/// The failure of zone-a in `mode`, for the lessons about failures.
fn zone_a(
    analysis: &Analysis,
    mode: FailMode,
) -> spreadlab_engine::analysis::failure::FailureReport {
    whatif::failure_report(analysis, &FailTarget::Zone("zone-a".into()), mode)
}

/// Whether the unreachable zone-a's replica is replaced (its replacement placed).
fn unreachable_replaced(analysis: &Analysis) -> Option<bool> {
    let report = zone_a(analysis, FailMode::Unreachable);
    let impact = report.workloads.first()?;
    let replacement = impact.replacements.first()?;
    Some(replacement.node.is_some())
}

/// Whether a drain of node-a blocks on a PodDisruptionBudget.
fn drain_blocks(analysis: &Analysis) -> Option<bool> {
    let report = whatif::failure_report(
        analysis,
        &FailTarget::Node("node-a".into()),
        FailMode::Removed,
    );
    let pdb = report.pdbs.first()?;
    Some(pdb.drain.blocks())
}

/// Whether the first rollout completes.
fn rollout_completes(analysis: &Analysis) -> Option<bool> {
    whatif::rollout_reports(analysis)
        .first()
        .map(|r| r.outcome.completed)
}

/// Where web-0 was placed (`Some(None)`: Pending; `None`: no such pod).
fn web_0_node(analysis: &Analysis) -> Option<Option<String>> {
    analysis
        .decisions()
        .iter()
        .find(|d| d.name == "web-0")
        .map(|d| d.node.clone())
}

/// Replicas placed on `node`.
fn on_node(analysis: &Analysis, node: &str) -> usize {
    analysis
        .decisions()
        .iter()
        .filter(|d| d.node.as_deref() == Some(node))
        .count()
}

/// The spread-three-zones example: three one-node zones (4 CPU), three 1-CPU replicas with a hard
/// zone spread, and a PodDisruptionBudget of minAvailable 3.
const THREE_ZONES_PDB: &str = include_str!("../../../../tests/analyses/spread-three-zones.yaml");

/// Every lesson, in teaching order.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        title: "maxSkew 1 is not one pod per zone",
        text: concat!(
            "# Three zones with room; six replicas, maxSkew 1 over zones.\n",
            include_str!("nodes-abc.yaml"),
            include_str!("web-six.yaml"),
        ),
        question: "6 replicas, a hard zone spread with maxSkew 1, three zones with room. How many run?",
        choices: &[
            "3: one per zone, the other three Pending",
            "6: two per zone",
            "4: maxSkew 1 lets one zone get one more",
        ],
        answer: |analysis| placed_choice(analysis, &[3, 6, 4]),
        lesson: "maxSkew bounds the difference between zones, not the pods in a zone. Each replica goes where count + 1 − the global minimum ≤ maxSkew: the zones fill in turns, 1-1-1, then 2-2-2. No zone ever gets two ahead of the emptiest.",
        try_it: Try {
            task: "Raise the replicas to 7 with the control.",
            done: |analysis| analysis.placed() == 7,
            shows: "All 7 run: one zone holds 3, the others 2 (3 − 2 = 1 ≤ maxSkew).",
        },
    },
    Lesson {
        title: "maxSkew is measured against the global minimum",
        text: concat!(
            "# zone-a runs 3 web pods, zone-b 1, zone-c none: already 3 apart.\n",
            "# A new web pod arrives with maxSkew 2 over zones.\n",
            include_str!("nodes-abc.yaml"),
            include_str!("skew-existing.yaml"),
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-new, namespace: default, labels: {app: web}}\n",
            "spec:\n  containers: [{name: web, image: 'web:1', resources: {requests: {cpu: 100m}}}]\n",
            "  topologySpreadConstraints:\n",
            "    - maxSkew: 2\n",
            "      topologyKey: topology.kubernetes.io/zone\n",
            "      whenUnsatisfiable: DoNotSchedule\n",
            "      labelSelector: {matchLabels: {app: web}}\n",
        ),
        question: "zone-a has 3 web pods, zone-b 1, zone-c 0, and maxSkew is 2. Which zones may take the new pod?",
        choices: &[
            "None: zone-a and zone-c already differ by 3, more than maxSkew",
            "Only zone-c, the emptiest",
            "zone-b or zone-c",
        ],
        answer: |analysis| {
            let zones = feasible_zones(analysis);
            let names: Vec<&str> = zones.iter().map(String::as_str).collect();
            match names.as_slice() {
                [] => Some(0),
                ["zone-c"] => Some(1),
                ["zone-b", "zone-c"] => Some(2),
                _ => None,
            }
        },
        lesson: "maxSkew is not the largest difference between any two zones. For each candidate zone the scheduler checks: pods already there + 1 (if the pod matches its own selector) − the global minimum over eligible zones ≤ maxSkew. zone-b: 1 + 1 − 0 = 2 ≤ 2, allowed, even though zone-a and zone-c stay 3 apart. Existing imbalance never blocks a pod by itself.",
        try_it: Try {
            task: "Set maxSkew to 1 with the control.",
            done: |analysis| {
                let zones = feasible_zones(analysis);
                zones.len() == 1 && zones.contains("zone-c")
            },
            shows: "Only zone-c passes now: zone-b would be 1 + 1 − 0 = 2 > 1.",
        },
    },
    Lesson {
        title: "A node without the zone label is not a domain",
        text: recorded!("nodes-without-zone"),
        question: "node-x lost its zone label. 4 replicas with a hard zone spread (maxSkew 1) over node-a (zone-a), node-b (zone-b) and node-x. How many land on node-x?",
        choices: &[
            "0: it is filtered out",
            "2: it is the emptiest node",
            "1: its own domain, kept even with the zones",
        ],
        answer: |analysis| match on_node(analysis, "node-x") {
            0 => Some(0),
            2 => Some(1),
            1 => Some(2),
            _ => None,
        },
        lesson: "Under whenUnsatisfiable: DoNotSchedule a node without the constraint's topologyKey is rejected outright: \"node(s) didn't match pod topology spread constraints (missing required label)\", UnschedulableAndUnresolvable. It is neither a domain nor a place to run. The replicas alternate between zone-a and zone-b.",
        try_it: Try {
            task: "In the editor, give node-x a zone: add `topology.kubernetes.io/zone: zone-x` to its labels.",
            done: |analysis| on_node(analysis, "node-x") >= 1,
            shows: "node-x is a domain now, and with three zones each takes at least one of the four replicas.",
        },
    },
    Lesson {
        title: "minDomains forces the global minimum to zero",
        text: concat!(
            "# Two zones with plenty of room; the Deployment asks for at least 3 zones.\n",
            include_str!("nodes-ab.yaml"),
            include_str!("web-min-domains.yaml"),
        ),
        question: "4 replicas, maxSkew 1, minDomains 3, only two zones (both with room). How many replicas run?",
        choices: &[
            "0",
            "2: one per zone, the others Pending",
            "4: two per zone",
        ],
        answer: |analysis| placed_choice(analysis, &[0, 2, 4]),
        lesson: "With fewer eligible zones than minDomains, the global minimum is taken as 0. Each zone may then hold at most maxSkew (here 1) matching pods, so only two replicas fit.",
        try_it: Try {
            task: "Set minDomains to 2 (or clear it) with the control.",
            done: |analysis| analysis.placed() == 4,
            shows: "All four schedule: with two eligible zones the minimum is the real one again.",
        },
    },
    Lesson {
        title: "whenUnsatisfiable: ScheduleAnyway only scores",
        text: concat!(
            "# zone-b's node is full (an 8-CPU batch pod); zone-a has room.\n",
            include_str!("nodes-ab.yaml"),
            include_str!("batch-fills-b.yaml"),
            include_str!("web-anyway.yaml"),
        ),
        question: "zone-b is full. 4 replicas with a zone spread, maxSkew 1, whenUnsatisfiable ScheduleAnyway. How many run?",
        choices: &["1: the spread allows one ahead", "2", "4: all in zone-a"],
        answer: |analysis| placed_choice(analysis, &[1, 2, 4]),
        lesson: "ScheduleAnyway turns the constraint into a score: nodes that keep the skew small are preferred, but no node is rejected for it.",
        try_it: Try {
            task: "Set whenUnsatisfiable to DoNotSchedule with the control.",
            done: |analysis| analysis.placed() == 1,
            shows: "Only 1 runs: a second in zone-a would be 1 + 1 − 0 = 2 > maxSkew, and zone-b has no room.",
        },
    },
    Lesson {
        title: "The default scheduler can stack replicas",
        text: recorded!("default-stacking"),
        question: "3 replicas, no topologySpreadConstraints. node-a is empty; node-b and node-c are mostly busy but have room. Where do the replicas go?",
        choices: &[
            "All three on node-a",
            "One per node: Kubernetes spreads replicas by default",
            "Two on node-a, one on node-b or node-c",
        ],
        answer: |analysis| match most_on_one_node(analysis) {
            3 => Some(0),
            1 => Some(1),
            2 => Some(2),
            _ => None,
        },
        lesson: "Without constraints only PodTopologySpread's system defaults apply (hostname maxSkew 3, zone maxSkew 5), and they are ScheduleAnyway: a score, weighed against the others. The emptiest node wins twice on free resources, so losing node-a loses two of three replicas. The third replica ties between node-b and node-c and the real scheduler picks at random (the What-if tab's tie-break risk shows every outcome).",
        try_it: Try {
            task: "In the editor, add a hard hostname spread under the template's spec: `topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: api}}}]`.",
            done: |analysis| analysis.placed() == 3 && most_on_one_node(analysis) == 1,
            shows: "One replica per node: a filter, not a preference.",
        },
    },
    Lesson {
        title: "Node inclusion policies: a tainted zone still counts",
        text: recorded!("control-plane-only-zone"),
        question: "zone-c holds only a tainted control-plane node. 3 replicas, zone maxSkew 1, default policies. How many run?",
        choices: &["1", "2: the third is Pending", "3: one per zone"],
        answer: |analysis| placed_choice(analysis, &[1, 2, 3]),
        lesson: "Which nodes count as spread domains is set by two policies. nodeTaintsPolicy defaults to Ignore: the control-plane node's zone is an eligible domain with 0 pods even though the pod does not tolerate its taint, so the global minimum stays 0 and zones a and b may hold only one replica each. nodeAffinityPolicy is the other way round: it defaults to Honor, so nodes the pod's nodeSelector or required node affinity exclude never count as domains.",
        try_it: Try {
            task: "Set nodeTaintsPolicy to Honor with the control.",
            done: |analysis| analysis.placed() == 3,
            shows: "zone-c stops counting: the minimum is 1 and the third replica schedules.",
        },
    },
    Lesson {
        title: "An unreachable zone still counts as an empty domain",
        text: THREE_ZONES_PDB,
        question: "One replica per zone (hard zone spread, maxSkew 1). zone-a becomes unreachable: its node stays in the cluster, NotReady and tainted, and its pod is evicted. Where does the replacement go?",
        choices: &[
            "Nowhere: it stays Pending",
            "zone-b or zone-c",
            "Back to zone-a once the taint's toleration expires",
        ],
        answer: |analysis| unreachable_replaced(analysis).map(|placed| if placed { 1 } else { 0 }),
        lesson: "An unreachable node is still a node: under the default nodeTaintsPolicy Ignore its zone is an eligible domain holding 0 pods, so the minimum is 0 and zones b and c (1 each) may not take another (1 + 1 − 0 > 1). Removed nodes are different: they are no domain at all (What-if → Failure, mode \"removed\").",
        try_it: Try {
            task: "Set nodeTaintsPolicy to Honor with the control (What-if → Failure, zone-a, unreachable shows the result).",
            done: |analysis| unreachable_replaced(analysis) == Some(true),
            shows: "The unreachable node's taint is not tolerated, so zone-a stops counting and the replacement lands in zone-b or zone-c.",
        },
    },
    Lesson {
        title: "matchLabelKeys during a rollout",
        text: concat!(
            "# A Deployment rolling out web:2. Two pods of its previous revision run in zone-a;\n",
            "# zone-b's node is full.\n",
            include_str!("nodes-ab.yaml"),
            include_str!("batch-fills-b.yaml"),
            include_str!("old-revision.yaml"),
            include_str!("web-rollout.yaml"),
        ),
        question: "A Deployment rolls out a new revision: 2 pods of the old revision still run in zone-a, zone-b is full, and its spread is maxSkew 1 over zones with matchLabelKeys [pod-template-hash]. Is the new revision's pod placed?",
        choices: &[
            "No: zone-a already has 2 more web pods than zone-b",
            "Yes, in zone-a: only pods of its own revision are counted",
        ],
        answer: |analysis| placed_choice(analysis, &[0, 1]),
        lesson: "matchLabelKeys adds the pod's own values of those labels to the selector; every revision of a Deployment gets its own pod-template-hash, so a new revision is spread on its own and the old pods on their way out do not block it.",
        try_it: Try {
            task: "Untick matchLabelKeys: [pod-template-hash] in the controls.",
            done: |analysis| analysis.placed() == 0 && !analysis.pending.is_empty(),
            shows: "The old pods count again: zone-a is 2 + 1 − 0 = 3 > 1 ahead, and the pod stays Pending.",
        },
    },
    Lesson {
        title: "A rollout when every GPU is busy",
        text: include_str!("../../../../tests/analyses/rollout-gpu-busy.yaml"),
        question: "3 replicas, each holding the only GPU of its node. The Deployment rolls out with the default strategy (maxSurge 25%, maxUnavailable 25%). Does the rollout finish?",
        choices: &[
            "Yes: 25% of 3 rounds down to 0 surge pods, so it replaces one pod at a time",
            "Yes, with one replica unavailable at a time",
            "No: maxSurge rounds up to 1 pod that finds no GPU, and maxUnavailable rounds down to 0, so no old pod is removed",
        ],
        answer: |analysis| rollout_completes(analysis).map(|done| if done { 0 } else { 2 }),
        lesson: "The Deployment controller rounds maxSurge up and maxUnavailable down: 25% of 3 is 1 extra pod and 0 unavailable. The extra pod needs a GPU, every GPU is taken, and no old pod may go first: the rollout stalls (What-if → Rollout draws it).",
        try_it: Try {
            task: "Choose the strategy \"maxSurge 0, maxUnavailable 1\" with the control.",
            done: |analysis| rollout_completes(analysis) == Some(true),
            shows: "An old pod goes first and frees its GPU: the rollout completes, one replica short at a time.",
        },
    },
    Lesson {
        title: "Required anti-affinity needs a node per replica",
        text: recorded!("anti-affinity-too-few-nodes"),
        question: "4 replicas with required pod anti-affinity on kubernetes.io/hostname, 3 nodes. How many run?",
        choices: &[
            "3: the fourth is Pending",
            "4: two share a node once the others are full",
            "0",
        ],
        answer: |analysis| placed_choice(analysis, &[3, 4, 0]),
        lesson: "Required anti-affinity is a filter, not a preference: every node already holding a matching pod is rejected, so replicas beyond the node count stay Pending (\"didn't match pod anti-affinity rules\"). preferredDuringScheduling… or a topology spread with ScheduleAnyway would let them share.",
        try_it: Try {
            task: "Lower the replicas to 3 with the control.",
            done: |analysis| analysis.placed() == 3 && analysis.pending.is_empty(),
            shows: "One per node, nothing Pending.",
        },
    },
    Lesson {
        title: "A drain can block on a PodDisruptionBudget",
        text: THREE_ZONES_PDB,
        question: "One replica per zone and a PodDisruptionBudget with minAvailable 3. You run kubectl drain node-a. Does the drain finish?",
        choices: &[
            "No: every eviction is refused while the budget allows 0 disruptions",
            "Yes: the replica is evicted and recreated in another zone",
            "Yes, but the budget is violated for a while",
        ],
        answer: |analysis| drain_blocks(analysis).map(|blocks| if blocks { 0 } else { 1 }),
        lesson: "kubectl drain evicts through the API, and the API refuses an eviction while the budget's disruptionsAllowed is below 1: 3 healthy − minAvailable 3 = 0. The drain retries forever. A node failure is different: nothing asks the budget (What-if → Failure shows both).",
        try_it: Try {
            task: "In the editor, set the PodDisruptionBudget's minAvailable to 2.",
            done: |analysis| drain_blocks(analysis) == Some(false),
            shows: "One disruption is allowed: the drain finishes. Its replacement stays Pending, though: the cordoned node-a still counts as an empty zone.",
        },
    },
    Lesson {
        title: "A volume pins a replica to its zone",
        text: recorded!("statefulset-zonal-volumes"),
        question: "web-0's disk is a zonal volume in zone-a, and both zone-a nodes are full (a batch job each). Zones b and c have room. Where does web-0 run?",
        choices: &[
            "In zone-b or zone-c, where there is room",
            "On a zone-a node, evicting a batch job",
            "Nowhere: it stays Pending",
        ],
        answer: |analysis| match web_0_node(analysis) {
            Some(Some(node)) if node.starts_with("node-a") => Some(1),
            Some(Some(_)) => Some(0),
            Some(None) => Some(2),
            None => None,
        },
        lesson: "A bound PersistentVolume carries node affinity (here topology.kubernetes.io/zone In [zone-a]); VolumeBinding rejects every node outside it (\"didn't match PersistentVolume's node affinity\"), and NodeResourcesFit rejects the full ones: \"0/6 nodes are available: 2 Insufficient cpu, 4 node(s) didn't match PersistentVolume's node affinity\". A StatefulSet replica cannot leave its disk's zone, and preemption needs lower-priority victims (the batch pods have the same priority).",
        try_it: Try {
            task: "In the editor, lower batch-1's cpu request from \"4\" to \"2\".",
            done: |analysis| matches!(web_0_node(analysis), Some(Some(node)) if node == "node-a1"),
            shows: "node-a1 has room again, inside the disk's zone: web-0 runs there.",
        },
    },
    Lesson {
        title: "An answer that changes between Kubernetes releases",
        text: recorded!("version-namespace-selector-notin"),
        question: "A team-b pod has required anti-affinity to app: x pods in namespaces with team NotIn [a]; node-1 runs an app: x pod of team-a. With the kube-scheduler selected in the header (1.37 unless you changed it), is the pod placed on node-1?",
        choices: &[
            "Yes: team-a is not one of the namespaces the selector picks",
            "No: the team-a pod counts against it",
        ],
        answer: |analysis| placed_choice(analysis, &[1, 0]),
        lesson: "Up to 1.36, InterPodAffinity merged the incoming pod's namespaceSelector wrongly: a selector matching an empty label set (only NotIn or DoesNotExist) matched pods of every namespace. 1.37 fixed it. spreadlab mirrors each release, so the answer follows the selector in the header.",
        try_it: Try {
            task: "Switch the kube-scheduler selector in the header to 1.36 (or an older release).",
            done: |analysis| {
                analysis.version < spreadlab_engine::KubeVersion::V1_37 && analysis.placed() == 0
            },
            shows: "Under 1.36 the team-a pod counts: the pod stays Pending with \"didn't match pod anti-affinity rules\".",
        },
    },
];
