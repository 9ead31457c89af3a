//! `serde::Serialize` for the analyses' reports (feature `serde`), in the JSON shapes documented
//! in docs/json-schema.md: camelCase names, enums as their `as_str` names, and the few values a
//! reader wants beside the raw ones (percentages, a rollout's resolved fenceposts, a drain's
//! verdict) derived here from the report's own fields, so every face serialises the same report
//! the same way.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::capacity::CapacityReport;
use super::failure::{
    DrainImpact, FailureReport, PdbImpact, Replacement, Survival, Sweep, WorkloadImpact,
};
use super::percent;
use super::rollout::{
    Alternative, RevisionCounts, RolloutOutcome, RolloutReport, SpreadCheck, Step,
};
use super::stalemate::{Blocking, Remedy, Stalemate, StalemateReport};
use super::tie_break::RiskReport;

impl Serialize for Replacement {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Replacement", 5)?;
        s.serialize_field("replaces", &self.replaces)?;
        s.serialize_field("wasPending", &self.was_pending)?;
        s.serialize_field("node", &self.node)?;
        s.serialize_field("zone", &self.zone)?;
        s.serialize_field("message", &self.message)?;
        s.end()
    }
}

/// One workload of a failure with its state after recovery (kept per workload in
/// [`FailureReport::recovery`]).
struct Impact<'a> {
    impact: &'a WorkloadImpact,
    report: &'a FailureReport,
    index: usize,
}

/// A workload's state once the domain is back.
struct AfterRecovery<'a> {
    running: usize,
    zones: Option<&'a BTreeMap<String, usize>>,
    placed: Option<&'a Vec<(String, String)>>,
}

impl Serialize for AfterRecovery<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("AfterRecovery", 3)?;
        s.serialize_field("running", &self.running)?;
        s.serialize_field("zones", &self.zones.cloned().unwrap_or_default())?;
        s.serialize_field("placed", &self.placed.cloned().unwrap_or_default())?;
        s.end()
    }
}

impl Serialize for Impact<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let w = self.impact;
        let recovery = &self.report.recovery;
        let mut s = serializer.serialize_struct("WorkloadImpact", 12)?;
        s.serialize_field("workload", &w.workload)?;
        s.serialize_field("desired", &w.desired)?;
        s.serialize_field("runningBefore", &w.running_before)?;
        s.serialize_field("zonesBefore", &w.zones_before)?;
        s.serialize_field("lost", &w.lost)?;
        s.serialize_field("surviving", &w.surviving)?;
        s.serialize_field("survivingPercent", &percent(w.surviving, w.desired))?;
        s.serialize_field("replacements", &w.replacements)?;
        s.serialize_field("runningAfter", &w.running_after)?;
        s.serialize_field("runningAfterPercent", &percent(w.running_after, w.desired))?;
        s.serialize_field("zonesAfter", &w.zones_after)?;
        s.serialize_field(
            "afterRecovery",
            &AfterRecovery {
                running: recovery.running.get(self.index).copied().unwrap_or(0),
                zones: recovery.zones.get(self.index),
                placed: recovery.placed.get(self.index),
            },
        )?;
        s.end()
    }
}

impl Serialize for DrainImpact {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("DrainImpact", 6)?;
        s.serialize_field("blocks", &self.blocks())?;
        s.serialize_field("evictions", &self.evictions)?;
        s.serialize_field("blocked", &self.blocked)?;
        s.serialize_field("pendingReplacements", &self.pending_replacements)?;
        s.serialize_field("message", &self.message)?;
        s.serialize_field("healthyAtEnd", &self.healthy_at_end)?;
        s.end()
    }
}

impl Serialize for PdbImpact {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("PdbImpact", 13)?;
        s.serialize_field("pdb", &self.pdb)?;
        s.serialize_field("disruptionsAllowed", &self.disruptions_allowed)?;
        s.serialize_field("expectedPods", &self.budget.expected_pods)?;
        s.serialize_field("desiredHealthy", &self.budget.desired_healthy)?;
        s.serialize_field("currentHealthy", &self.budget.current_healthy)?;
        s.serialize_field("evicted", &self.evicted)?;
        s.serialize_field("healthyAfterFailure", &self.healthy_after_failure)?;
        s.serialize_field("healthyAfterReplacements", &self.healthy_after_replacements)?;
        s.serialize_field("shortfall", &self.shortfall)?;
        s.serialize_field(
            "shortfallAfterReplacements",
            &self.shortfall_after_replacements,
        )?;
        s.serialize_field("violated", &self.violated)?;
        s.serialize_field("drain", &self.drain)?;
        s.end()
    }
}

impl Serialize for FailureReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let workloads: Vec<Impact<'_>> = self
            .workloads
            .iter()
            .enumerate()
            .map(|(index, impact)| Impact {
                impact,
                report: self,
                index,
            })
            .collect();
        let mut s = serializer.serialize_struct("FailureReport", 7)?;
        s.serialize_field("domain", &self.domain.describe())?;
        s.serialize_field("mode", self.mode.as_str())?;
        s.serialize_field("failedNodes", &self.failed_nodes)?;
        s.serialize_field("podsGone", &self.pods_gone)?;
        s.serialize_field("workloads", &workloads)?;
        s.serialize_field("pdbs", &self.pdbs)?;
        s.serialize_field("notes", &self.notes)?;
        s.end()
    }
}

impl Serialize for Survival {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Survival", 6)?;
        s.serialize_field("workload", &self.workload)?;
        s.serialize_field("desired", &self.desired)?;
        s.serialize_field("worst", &self.worst.as_ref().map(|d| d.describe()))?;
        s.serialize_field("minRunningAfter", &self.min_running_after)?;
        s.serialize_field("minRunningAfterPercent", &self.percent_after())?;
        s.serialize_field("minSurviving", &self.min_surviving)?;
        s.end()
    }
}

impl Serialize for Sweep {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Sweep", 4)?;
        s.serialize_field("kind", self.kind.as_str())?;
        s.serialize_field("mode", self.mode.as_str())?;
        s.serialize_field("survival", &self.survival)?;
        s.serialize_field("failures", &self.reports)?;
        s.end()
    }
}

impl Serialize for CapacityReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("CapacityReport", 15)?;
        s.serialize_field("workload", &self.workload)?;
        s.serialize_field("desired", &self.desired)?;
        s.serialize_field("running", &self.running)?;
        s.serialize_field("pending", &self.pending)?;
        s.serialize_field("additional", &self.additional)?;
        s.serialize_field("perZone", &self.per_zone)?;
        s.serialize_field("bounded", &self.bounded)?;
        s.serialize_field("searchLimit", &self.search_limit)?;
        s.serialize_field("limit", &self.limit.map(|l| l.as_str()))?;
        s.serialize_field("rejections", &self.rejections_by_name())?;
        s.serialize_field("message", &self.message)?;
        s.serialize_field("wouldPreempt", &self.would_preempt)?;
        s.serialize_field("hpaMaxReplicas", &self.hpa_max_replicas)?;
        s.serialize_field("reachesHpaMax", &self.reaches_hpa_max())?;
        s.end()
    }
}

impl Serialize for RiskReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("RiskReport", 8)?;
        s.serialize_field("workload", &self.workload)?;
        s.serialize_field("desired", &self.desired)?;
        s.serialize_field("runs", &self.runs)?;
        s.serialize_field("maxPerNode", &self.max_per_node)?;
        s.serialize_field("maxPerZone", &self.max_per_zone)?;
        s.serialize_field(
            "nodeLossOverHalfPercent",
            &self.share_of_runs(self.node_loss_over_half),
        )?;
        s.serialize_field(
            "zoneLossOverHalfPercent",
            &self.share_of_runs(self.zone_loss_over_half),
        )?;
        s.serialize_field("runsWithPending", &self.runs_with_pending)?;
        s.end()
    }
}

impl Serialize for RevisionCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("RevisionCounts", 6)?;
        s.serialize_field("replicas", &self.replicas)?;
        s.serialize_field("running", &self.running)?;
        s.serialize_field("available", &self.available)?;
        s.serialize_field("pending", &self.pending)?;
        s.serialize_field("terminating", &self.terminating)?;
        s.serialize_field("zones", &self.zones)?;
        s.end()
    }
}

impl Serialize for Step {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Step", 7)?;
        s.serialize_field("step", &self.step)?;
        s.serialize_field("time", &self.time)?;
        s.serialize_field("actions", &self.actions)?;
        s.serialize_field("new", &self.new)?;
        s.serialize_field("old", &self.old)?;
        s.serialize_field("available", &self.available)?;
        s.serialize_field("pending", &self.pending)?;
        s.end()
    }
}

impl Serialize for SpreadCheck {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("SpreadCheck", 5)?;
        s.serialize_field("topologyKey", &self.topology_key)?;
        s.serialize_field("maxSkew", &self.max_skew)?;
        s.serialize_field("domains", &self.domains)?;
        s.serialize_field("skew", &self.skew)?;
        s.serialize_field("satisfied", &self.satisfied)?;
        s.end()
    }
}

/// The fields of one rollout outcome, written into the enclosing struct (a rollout report
/// carries its outcome's fields at its own level).
fn outcome_fields<S: SerializeStruct>(s: &mut S, outcome: &RolloutOutcome) -> Result<(), S::Error> {
    s.serialize_field("strategy", &outcome.strategy.describe())?;
    s.serialize_field("maxSurge", &outcome.resolved.0)?;
    s.serialize_field("maxUnavailable", &outcome.resolved.1)?;
    s.serialize_field("completed", &outcome.completed)?;
    s.serialize_field("stalledAtStep", &outcome.stalled_at_step)?;
    s.serialize_field("reason", &outcome.reason)?;
    s.serialize_field("minAvailable", &outcome.min_available)?;
    s.serialize_field(
        "progressDeadlineExceededAt",
        &outcome.progress_deadline_exceeded_at,
    )?;
    s.serialize_field("spread", &outcome.spread)?;
    s.serialize_field(
        "endSatisfiesSpread",
        &outcome.spread.iter().all(|c| c.satisfied),
    )?;
    s.serialize_field("steps", &outcome.steps)?;
    Ok(())
}

/// The matchLabelKeys comparison: the other choice's outcome, summarised.
struct MatchLabelKeys<'a> {
    with_pod_template_hash: bool,
    outcome: &'a RolloutOutcome,
}

impl Serialize for MatchLabelKeys<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let o = self.outcome;
        let mut s = serializer.serialize_struct("MatchLabelKeys", 6)?;
        s.serialize_field("withPodTemplateHash", &self.with_pod_template_hash)?;
        s.serialize_field("completed", &o.completed)?;
        s.serialize_field("stalledAtStep", &o.stalled_at_step)?;
        s.serialize_field("minAvailable", &o.min_available)?;
        s.serialize_field("reason", &o.reason)?;
        s.serialize_field("finalZones", &o.final_zones())?;
        s.end()
    }
}

impl Serialize for Alternative {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Alternative", 5)?;
        s.serialize_field("change", &self.change)?;
        s.serialize_field("completed", &self.outcome.completed)?;
        s.serialize_field("stalledAtStep", &self.outcome.stalled_at_step)?;
        s.serialize_field("minAvailable", &self.outcome.min_available)?;
        s.serialize_field("reason", &self.outcome.reason)?;
        s.end()
    }
}

impl Serialize for RolloutReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("RolloutReport", 19)?;
        s.serialize_field("workload", &self.workload)?;
        s.serialize_field("replicas", &self.replicas)?;
        s.serialize_field("oldPods", &self.old_pods)?;
        s.serialize_field("updatedPods", &self.updated_pods)?;
        s.serialize_field("upToDate", &self.up_to_date)?;
        s.serialize_field("simulatedReplicas", &self.simulated_replicas)?;
        outcome_fields(&mut s, &self.outcome)?;
        s.serialize_field(
            "matchLabelKeys",
            &self
                .match_label_keys
                .as_ref()
                .map(|(with, outcome)| MatchLabelKeys {
                    with_pod_template_hash: *with,
                    outcome,
                }),
        )?;
        s.serialize_field("alternatives", &self.alternatives)?;
        s.end()
    }
}

impl Serialize for Blocking {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let nodes: Vec<(&str, &str)> = self
            .nodes
            .iter()
            .map(|(node, plugin)| (node.as_str(), plugin.as_str()))
            .collect();
        let mut s = serializer.serialize_struct("Blocking", 3)?;
        s.serialize_field("blocked", &self.blocked)?;
        s.serialize_field("by", &self.by)?;
        s.serialize_field("nodes", &nodes)?;
        s.end()
    }
}

impl Serialize for Remedy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Remedy", 2)?;
        s.serialize_field("change", &self.change)?;
        s.serialize_field("pendingAfter", &self.pending_after)?;
        s.end()
    }
}

impl Serialize for Stalemate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Stalemate", 3)?;
        s.serialize_field("workloads", &self.workloads)?;
        s.serialize_field("pending", &self.pending)?;
        s.serialize_field("remedies", &self.remedies)?;
        s.end()
    }
}

impl Serialize for StalemateReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("StalemateReport", 2)?;
        s.serialize_field("blocking", &self.blocking)?;
        s.serialize_field("stalemates", &self.stalemates)?;
        s.end()
    }
}
