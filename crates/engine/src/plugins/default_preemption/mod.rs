//! DefaultPreemption: when no node fits, find a node where evicting lower-priority pods makes room.
//! Mirrors kubernetes v1.35 `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`
//! and `pkg/scheduler/framework/preemption/preemption.go` (`Preempt`, `SelectVictimsOnNode`,
//! `filterPodsWithPDBViolation`, `pickOneNodeForPreemption`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::{
    Code, CycleState, Diagnosis, PodId, PodInfo, Profile, Snapshot, Status, add_pod,
    fit_error_message, remove_pod, run_filter_with_nominated_pods,
};
use crate::model::{PodDisruptionBudget, PreemptionPolicy};
use crate::version::KubeVersion;

mod go_sort;

/// Reason for nodes where preemption cannot help.
pub const PREEMPTION_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// Reason for nodes without lower-priority pods.
pub const NO_VICTIMS_FOUND: &str = "No preemption victims found for incoming pod";

/// A node where preemption makes the pod fit, with its victims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Snapshot node index.
    pub node: usize,
    /// Victims, most important first.
    pub victims: Vec<PodId>,
    /// How many victims' eviction violates a PodDisruptionBudget.
    pub num_pdb_violations: usize,
}

/// The candidates preemption found, ranked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidates {
    /// Every candidate, in node order.
    pub candidates: Vec<Candidate>,
    /// Indexes into `candidates` of those ranked best by `pickOneNodeForPreemption` (upstream
    /// picks among them at random: it walks a map).
    pub tied: Vec<usize>,
    /// Whether upstream's dry run, walking the nodes from a random offset, may have kept only
    /// some of these: it stops once it holds `max(10% of the potential nodes, 100)` candidates,
    /// one of them without PDB violations, and its list of violating candidates holds no more
    /// than that many (`candidateList.add` drops the rest; framework/preemption/preemption.go).
    pub sampled: bool,
}

/// The PostFilter outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreemptionOutcome {
    /// Preemption helps; one of the candidates is nominated and its victims evicted.
    Nominated(Candidates),
    /// Preemption did not help; the message is the PostFilter text (already prefixed `preemption: `).
    Failed(String),
    /// No node would make room: the PostFilter text, and the result clears the pod's nomination
    /// (`NewPostFilterResultWithNominatedNode("")`, framework/preemption/preemption.go `Preempt`).
    NoCandidates(String),
    /// No candidate, and the dry run met a plugin `Error` on some node: `Preempt` returns the
    /// errors (`DryRunPreemption`'s aggregate) as an Error status with no result, so the pod's
    /// nomination stays, and `RunPostFilterPlugins` returns that status at once, without the
    /// reasons of the plugins before it. The text is `preemption: ` and the errors.
    Error(String),
}

/// The `less` of Go's `sort.Slice` over the potential victims: the higher priority first, then
/// the earlier `status.startTime`; a pod without one counts as started at `time.Now()`, so after
/// every pod with a start time (snapshot start times lie in the past). Between two pods without
/// one:
/// - up to v1.36 (`built` is `None`), `util.MoreImportantPod` (pkg/scheduler/util/utils.go) reads
///   "now" anew at each comparison, the first argument's first: `less` is true both ways. This is
///   not an order, so the result is Go's algorithm's (see `go_sort`), as upstream's is;
/// - from v1.37, `preemption.MoreImportantVictim` (framework/preemption/util.go) compares the
///   "now" each victim got once, when it was built (`NewVictim`, in the node's pod order
///   `built`): the one built first. A strict weak order; equal start times are equal.
fn more_important(snapshot: &Snapshot, built: Option<&[PodId]>, a: PodId, b: PodId) -> bool {
    let (pa, pb) = (&snapshot.pod(a).pod, &snapshot.pod(b).pod);
    if pa.priority != pb.priority {
        return pa.priority > pb.priority;
    }
    match (pa.start_time, pb.start_time) {
        (Some(x), Some(y)) => x < y,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (None, None) => built.is_none_or(|built| {
            let position = |id| built.iter().position(|p| *p == id);
            position(a) < position(b)
        }),
    }
}

/// `filterPodsWithPDBViolation` (defaultpreemption/default_preemption.go): splits pods (in order)
/// into those whose eviction violates a PDB and the rest, decrementing each matching budget as it
/// goes, except for pods in the budget's `status.disruptedPods`.
///
/// v1.37's `FilterVictimsWithPDBViolation` (framework/preemption/util.go) stops at a pod's first
/// budget that goes negative: later matching budgets are not decremented for it.
fn split_by_pdb_violation(
    snapshot: &Snapshot,
    pods: &[PodId],
    pdbs: &[PodDisruptionBudget],
    version: KubeVersion,
) -> (Vec<PodId>, Vec<PodId>) {
    let mut allowed: Vec<i32> = pdbs.iter().map(|p| p.disruptions_allowed).collect();
    let (mut violating, mut non_violating) = (Vec::new(), Vec::new());
    for &id in pods {
        let pod = &snapshot.pod(id).pod;
        let mut violated = false;
        if !pod.labels.is_empty() {
            for (index, pdb) in pdbs.iter().enumerate() {
                if pdb.namespace != pod.namespace
                    || pdb.selector.is_empty()
                    || !pdb.selector.matches(&pod.labels)
                {
                    continue;
                }
                // An eviction the API server already processed is not a violation, and does not
                // use the budget again.
                if pdb.disrupted_pods.contains(&pod.name) {
                    continue;
                }
                allowed[index] -= 1;
                if allowed[index] < 0 {
                    violated = true;
                    if version.since(37) {
                        break;
                    }
                }
            }
        }
        if violated {
            violating.push(id)
        } else {
            non_violating.push(id)
        }
    }
    (violating, non_violating)
}

/// `SelectVictimsOnNode`: removes every lower-priority pod, checks the pod fits, then reprieves as
/// many as possible (PDB-violating ones first). Leaves the snapshot as it found it.
fn select_victims_on_node(
    profile: &Profile,
    snapshot: &mut Snapshot,
    state: &CycleState,
    preemptor: &PodInfo,
    node_index: usize,
) -> Result<Candidate, Status> {
    let mut state = state.clone();
    // Upstream works on a copy of the node (`nodeInfo.Snapshot()`); this runs on the snapshot and
    // puts the pods back, so the node's pod order is kept aside and restored on every return.
    let order = snapshot.nodes[node_index].pod_order();
    let result = select_victims_in_place(profile, snapshot, &mut state, preemptor, node_index);
    snapshot.nodes[node_index].set_pod_order(order);
    result
}

/// [`select_victims_on_node`]'s work, which leaves the node's pods in another order.
fn select_victims_in_place(
    profile: &Profile,
    snapshot: &mut Snapshot,
    state: &mut CycleState,
    preemptor: &PodInfo,
    node_index: usize,
) -> Result<Candidate, Status> {
    let mut potential: Vec<PodId> = snapshot.nodes[node_index]
        .pods
        .iter()
        .copied()
        .filter(|id| snapshot.pod(*id).pod.priority < preemptor.pod.priority)
        .collect();
    if potential.is_empty() {
        return Err(Status::new(
            Code::UnschedulableAndUnresolvable,
            NO_VICTIMS_FOUND,
        ));
    }
    let mut removed: Vec<(PodId, PodInfo)> = Vec::with_capacity(potential.len());
    for &id in &potential {
        let info = remove_pod(snapshot, state, preemptor, id);
        removed.push((id, info));
    }
    let fits = run_filter_with_nominated_pods(profile, state, snapshot, preemptor, node_index);
    if !fits.is_success() {
        for (id, info) in removed {
            add_pod(snapshot, state, preemptor, id, info);
        }
        return Err(fits);
    }
    // Put every pod back (state included) to sort them and reprieve them one by one from a
    // consistent start: restoring the snapshot alone would leave the plugin states decremented
    // twice (found by differential testing, tests/regressions/victims-922.yaml).
    for (id, info) in removed.drain(..) {
        add_pod(snapshot, state, preemptor, id, info);
    }
    // The victims in the node's pod order, as v1.37 builds them (`GetVictimsOnNode`).
    let built = potential.clone();
    let version = profile.version;
    let built = version.since(37).then_some(built.as_slice());
    let importance =
        |snapshot: &Snapshot, a: PodId, b: PodId| more_important(snapshot, built, a, b);
    go_sort::sort_slice(&mut potential, |a, b| importance(snapshot, *a, *b));
    let (violating, non_violating) =
        split_by_pdb_violation(snapshot, &potential, &snapshot.pdbs.clone(), version);
    let mut pending: Vec<(PodId, PodInfo)> = Vec::new();
    for &id in &potential {
        let info = remove_pod(snapshot, state, preemptor, id);
        pending.push((id, info));
    }
    let mut victims = Vec::new();
    let mut num_pdb_violations = 0;
    // Upstream re-sorts the victims only when both groups had pods (default_preemption.go).
    let resort = !violating.is_empty() && !non_violating.is_empty();
    for (group, is_violating) in [(violating, true), (non_violating, false)] {
        for id in group {
            let position = pending
                .iter()
                .position(|(p, _)| *p == id)
                .expect("pending holds every potential victim");
            let (_, info) = pending.swap_remove(position);
            add_pod(snapshot, state, preemptor, id, info);
            if !run_filter_with_nominated_pods(profile, state, snapshot, preemptor, node_index)
                .is_success()
            {
                let info = remove_pod(snapshot, state, preemptor, id);
                pending.push((id, info));
                victims.push(id);
                if is_violating {
                    num_pdb_violations += 1;
                }
            }
        }
    }
    for (id, info) in pending {
        snapshot.restore(id, info);
    }
    if resort {
        go_sort::sort_slice(&mut victims, |a, b| importance(snapshot, *a, *b));
    }
    Ok(Candidate {
        node: node_index,
        victims,
        num_pdb_violations,
    })
}

/// `pickOneNodeForPreemption`: fewest PDB violations, then the lowest highest-victim priority, the
/// lowest priority sum, the fewest victims, the latest start among the highest-priority victims.
/// Returns the indexes of every candidate ranked best (upstream picks one of them at random).
fn rank_best(snapshot: &Snapshot, candidates: &[Candidate]) -> Vec<usize> {
    let key = |c: &Candidate| {
        let highest = c
            .victims
            .first()
            .map_or(i32::MIN, |v| snapshot.pod(*v).pod.priority);
        let sum: i64 = c
            .victims
            .iter()
            .map(|v| snapshot.pod(*v).pod.priority as i64 + i32::MAX as i64 + 1)
            .sum();
        let earliest_start_of_highest = c
            .victims
            .iter()
            .filter(|v| snapshot.pod(**v).pod.priority == highest)
            .filter_map(|v| snapshot.pod(*v).pod.start_time)
            .min()
            // `GetEarliestPodStartTime` reads `time.Now()` for a pod without a start time: when
            // no highest-priority victim has one, the candidate's time is "now", the latest.
            .unwrap_or(i64::MAX);
        (
            c.num_pdb_violations,
            highest,
            sum,
            c.victims.len(),
            core::cmp::Reverse(earliest_start_of_highest),
        )
    };
    let keys: Vec<_> = candidates.iter().map(key).collect();
    let Some(best) = keys.iter().min() else {
        return Vec::new();
    };
    (0..candidates.len())
        .filter(|&i| keys[i] == *best)
        .collect()
}

/// `calculateNumCandidates`: how many candidates upstream's dry run looks for before it stops.
fn num_candidates(potential_nodes: usize) -> usize {
    let n = (potential_nodes * 10 / 100).max(100);
    n.min(potential_nodes)
}

/// `PodEligibleToPreemptOthers` (defaultpreemption/default_preemption.go): never with
/// `preemptionPolicy: Never`; a pod nominated to a node is not eligible again while a pod of
/// lower priority that the scheduler preempted is still terminating there, unless its cycle
/// found the node UnschedulableAndUnresolvable. `nominated`: the node the pod was nominated to
/// when its cycle began and that node's Filter status (a node missing from the cluster counts
/// as UnschedulableAndUnresolvable, as `NodeToStatus.Get` answers for it).
fn eligibility_message(
    snapshot: &Snapshot,
    preemptor: &PodInfo,
    nominated: Option<(usize, Code)>,
) -> Option<String> {
    if preemptor.pod.preemption_policy == PreemptionPolicy::Never {
        return Some(String::from("not eligible due to preemptionPolicy=Never."));
    }
    let (node, code) = nominated?;
    if code == Code::UnschedulableAndUnresolvable {
        return None;
    }
    snapshot
        .pods_on(node)
        .any(|p| p.pod.priority < preemptor.pod.priority && p.pod.terminating_by_preemption)
        .then(|| String::from("not eligible due to a terminating pod on the nominated node."))
}

/// The message of a successful PostFilter: v1.37's `Evaluator.Preempt`
/// (framework/preemption/preemption.go) returns `found a potential placement for pod on node X,
/// preempting N victims` (N every victim of the candidate), which `DefaultPreemption.PostFilter`
/// prefixes with `preemption: ` and the FitError appends; up to v1.36 the success had none.
pub fn success_message(
    version: crate::version::KubeVersion,
    node: &str,
    victims: usize,
) -> Option<alloc::string::String> {
    version.since(37).then(|| {
        format!("preemption: found a potential placement for pod on node {node}, preempting {victims} victims")
    })
}

/// `DefaultPreemption.PostFilter`: the filter statuses of every node (`None` for nodes that passed or
/// were not evaluated, which counts as UnschedulableAndUnresolvable).
pub fn post_filter(
    profile: &Profile,
    snapshot: &mut Snapshot,
    state: &CycleState,
    preemptor: &PodInfo,
    node_statuses: &[Option<Status>],
    nominated: Option<(usize, Code)>,
) -> PreemptionOutcome {
    if let Some(message) = eligibility_message(snapshot, preemptor, nominated) {
        return PreemptionOutcome::Failed(format!("preemption: {message}"));
    }
    let mut diagnosis = Diagnosis {
        absent_nodes_status: Some(Status::new(
            Code::UnschedulableAndUnresolvable,
            PREEMPTION_NOT_HELPFUL,
        )),
        ..Diagnosis::default()
    };
    let mut candidates = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut potential_nodes = 0;
    for (node_index, status) in node_statuses.iter().enumerate() {
        let name = snapshot.nodes[node_index].node.name.clone();
        match status {
            Some(status) if status.code == Code::Unschedulable => {
                potential_nodes += 1;
                match select_victims_on_node(profile, snapshot, state, preemptor, node_index) {
                    Ok(candidate) => candidates.push(candidate),
                    Err(status) => {
                        if status.code == Code::Error {
                            // `RunFilterPlugins` wraps a plugin's error; the aggregate keeps
                            // each distinct text once, in the order met (upstream's workers
                            // start from a random offset: node order here).
                            let plugin = status.plugin.map_or("", |p| p.as_str());
                            let error =
                                format!("running {plugin:?} filter plugin: {}", status.message());
                            if !errors.contains(&error) {
                                errors.push(error);
                            }
                        }
                        diagnosis.node_statuses.push((name, status))
                    }
                }
            }
            _ => diagnosis.node_statuses.push((
                name,
                Status::new(Code::UnschedulableAndUnresolvable, PREEMPTION_NOT_HELPFUL),
            )),
        }
    }
    if candidates.is_empty() && !errors.is_empty() {
        return PreemptionOutcome::Error(format!("preemption: {}", errors.join(", ")));
    }
    if candidates.is_empty() {
        return PreemptionOutcome::NoCandidates(format!(
            "preemption: {}",
            fit_error_message(snapshot.num_nodes(), &diagnosis)
        ));
    }
    let tied = rank_best(snapshot, &candidates);
    let wanted = num_candidates(potential_nodes);
    // Upstream stops once it holds `wanted` candidates, one of them without PDB violations; it
    // drops violating candidates past `wanted` even when it never stops.
    let violating = candidates
        .iter()
        .filter(|c| c.num_pdb_violations > 0)
        .count();
    let sampled = wanted < potential_nodes
        && ((candidates.len() >= wanted && violating < candidates.len()) || violating > wanted);
    PreemptionOutcome::Nominated(Candidates {
        candidates,
        tied,
        sampled,
    })
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use crate::framework::testing::{node, pod, snapshot};
    use crate::framework::{PodInfo, Profile, Status, run_filter, run_pre_filter};
    use crate::model::{Container, Pod, PreemptionPolicy};

    fn cpu_pod(name: &str, cpu: i64, priority: i32, node_name: Option<&str>) -> Pod {
        let mut p = pod(name, &[("app", name)], node_name);
        p.priority = priority;
        let mut container = Container {
            name: "c".into(),
            ..Container::default()
        };
        container.requests.insert("cpu".into(), cpu);
        p.containers.push(container);
        p
    }

    /// Only strictly lower-priority pods are victims; the minimal set is evicted.
    #[test]
    fn evicts_the_fewest_lower_priority_pods() {
        let mut snap = snapshot(
            vec![node("a", &[])],
            vec![
                cpu_pod("low-1", 2000, 0, Some("a")),
                cpu_pod("low-2", 1000, 0, Some("a")),
                cpu_pod("same", 1000, 10, Some("a")),
            ],
        );
        let profile = Profile::default_v1_35();
        let preemptor = PodInfo::new(cpu_pod("high", 2000, 10, None));
        let (state, _) = run_pre_filter(&profile, &snap, &preemptor);
        let statuses: vec::Vec<Option<Status>> =
            vec![Some(run_filter(&profile, &state, &snap, &preemptor, 0))];
        match super::post_filter(&profile, &mut snap, &state, &preemptor, &statuses, None) {
            super::PreemptionOutcome::Nominated(found) => {
                assert_eq!(found.tied, vec![0]);
                assert!(!found.sampled);
                let victims: vec::Vec<_> = found.candidates[0]
                    .victims
                    .iter()
                    .map(|v| snap.pod(*v).pod.name.clone())
                    .collect();
                assert_eq!(victims, vec!["low-1"]);
            }
            other => panic!("expected a nomination, got {other:?}"),
        }
        let mut never = cpu_pod("never", 2000, 10, None);
        never.preemption_policy = PreemptionPolicy::Never;
        let never = PodInfo::new(never);
        match super::post_filter(&profile, &mut snap, &state, &never, &statuses, None) {
            super::PreemptionOutcome::Failed(message) => {
                assert_eq!(
                    message,
                    "preemption: not eligible due to preemptionPolicy=Never."
                )
            }
            other => panic!("expected failure, got {other:?}"),
        }
    }
}
