//! A scheduling cycle that fails with an error rather than a FitError (`schedulingCycle`,
//! schedule_one.go): a plugin's `Error` status at PreFilter, Filter or PreScore, wrapped as
//! `RunPreFilterPlugins`, `RunFilterPlugins` and `RunPreScorePlugins` wrap it
//! (framework/runtime/framework.go).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::PodDecision;
use crate::framework::{Code, PluginName, Snapshot, Status};

/// The cycle ends with `error` (`schedulingCycle` returns `fwk.AsStatus(err)` with
/// `clearNominatedNode`): the pod stays Pending with reason SchedulerError and the error as its
/// message, its nomination cleared, and PostFilter (preemption) does not run.
pub(super) fn fail(mut decision: PodDecision, error: String) -> PodDecision {
    decision.scheduler_error = true;
    decision.nomination_cleared = decision.nominated_node.is_some();
    decision.message = Some(error);
    decision.node = None;
    decision
}

/// A PreFilter `Error`: `running PreFilter plugin "<name>": <error>`; `findNodesThatFitPod`
/// returns it before any Filter runs.
pub(super) fn pre_filter(status: &Status) -> String {
    let plugin = status.plugin.map_or("", |p| p.as_str());
    format!("running PreFilter plugin {plugin:?}: {}", status.message())
}

/// A PreScore `Error`: `running PreScore plugin "<name>": <error>`.
pub(super) fn pre_score(plugin: PluginName, error: &str) -> String {
    format!("running PreScore plugin {:?}: {error}", plugin.as_str())
}

/// The Filter `Error` that stops the pass (`findNodesThatPassFilters`: `SendErrorWithCancel`).
/// `nextStartNodeIndex` then moves on by the nodes the pass recorded before it, "regardless of
/// whether an error has occurred" (`processedNodes`: feasible nodes and statuses, a failed
/// nominated node's included). The pass walks the node tree from
/// `nextStartNodeIndex` over the nodes `in_result` keeps and stops after `limit` feasible nodes,
/// so an error on a node beyond that is never met. Which error wins when several nodes fail
/// depends on upstream's parallel workers: spreadlab takes the first in walk order, as a single
/// worker would. `statuses` holds every such node's Filter status (`None`: it passed).
pub(super) fn filter(
    snapshot: &mut Snapshot,
    statuses: &[Option<Status>],
    in_result: &dyn Fn(usize) -> bool,
    limit: usize,
    nominated_failed: Option<usize>,
) -> Option<String> {
    let is_error = |s: &Option<Status>| s.as_ref().is_some_and(|s| s.code == Code::Error);
    if !statuses
        .iter()
        .enumerate()
        .any(|(node, s)| in_result(node) && is_error(s))
    {
        return None;
    }
    let order: Vec<usize> = snapshot
        .node_tree()
        .iter()
        .copied()
        .filter(|&n| in_result(n))
        .collect();
    let mut found = 0;
    let mut walked = Vec::new();
    for step in 0..order.len() {
        let node = order[(snapshot.next_start_node_index + step) % order.len()];
        match &statuses[node] {
            Some(status) if status.code == Code::Error => {
                let nominated_extra = nominated_failed.is_some_and(|n| !walked.contains(&n));
                let plugin = status.plugin.map_or("", |p| p.as_str());
                let processed = walked.len() + usize::from(nominated_extra);
                snapshot.next_start_node_index =
                    (snapshot.next_start_node_index + processed) % snapshot.num_nodes();
                return Some(format!(
                    "running {plugin:?} filter plugin: {}",
                    status.message()
                ));
            }
            Some(_) => {}
            None if found == limit => return None,
            None => found += 1,
        }
        walked.push(node);
    }
    None
}
