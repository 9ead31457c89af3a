//! `whatif`, `capacity` and `risk`: thin adapters from the engine's analyses
//! (`spreadlab_engine::analysis`) to JSON views (documented in docs/json-schema.md) and tables.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use spreadlab_engine::analysis::capacity::CapacityReport;
use spreadlab_engine::analysis::failure::{Domain, FailureReport, Sweep};
use spreadlab_engine::analysis::tie_break::RiskReport;

use crate::table::list as zones;

/// The `whatif` JSON document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfView {
    /// Version of this document's shape.
    pub schema_version: u32,
    /// One entry per failure asked for (`--fail`), in order.
    pub failures: Vec<FailureView>,
    /// One entry per sweep asked for (`--fail-each`).
    pub sweeps: Vec<SweepView>,
}

/// One failure.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureView {
    /// `zone=<value>` or `node=<name>`.
    pub domain: String,
    /// `removed` or `unreachable`.
    pub mode: &'static str,
    /// The failed nodes.
    pub failed_nodes: Vec<String>,
    /// Pods that were on them (every owner).
    pub pods_gone: usize,
    /// Per workload.
    pub workloads: Vec<ImpactView>,
    /// PodDisruptionBudgets matching pods that are gone.
    pub pdbs: Vec<PdbView>,
    /// What the numbers assume (for unreachable nodes: when pods are evicted, StatefulSet pods
    /// not replaced).
    pub notes: Vec<String>,
}

/// One workload in one failure.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpactView {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Running before (missing replicas placed first).
    pub running_before: usize,
    /// Per zone before.
    pub zones_before: BTreeMap<String, usize>,
    /// Replicas lost.
    pub lost: Vec<String>,
    /// Still running right after the failure.
    pub surviving: usize,
    /// `surviving / desired` in percent.
    pub surviving_percent: usize,
    /// Replacements, in scheduling order.
    pub replacements: Vec<ReplacementView>,
    /// Running after the replacements are scheduled.
    pub running_after: usize,
    /// `runningAfter / desired` in percent.
    pub running_after_percent: usize,
    /// Per zone after.
    pub zones_after: BTreeMap<String, usize>,
    /// After the domain comes back: replicas running, per zone, and replacements placed then.
    pub after_recovery: RecoveryView,
}

/// One replacement.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplacementView {
    /// The replica it replaces.
    pub replaces: String,
    /// Whether that replica was already Pending before the failure.
    pub was_pending: bool,
    /// Where it lands (null: Pending).
    pub node: Option<String>,
    /// The node's zone.
    pub zone: Option<String>,
    /// The scheduler's message when Pending.
    pub message: Option<String>,
}

/// The workload after recovery.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryView {
    /// Replicas running.
    pub running: usize,
    /// Per zone (the scheduler does not rebalance running pods).
    pub zones: BTreeMap<String, usize>,
    /// Replacements placed only once the domain was back: `[replaces, node]`.
    pub placed: Vec<(String, String)>,
}

/// A PodDisruptionBudget in one failure, its status computed as the disruption controller does
/// on the settled cluster.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbView {
    /// `namespace/name`.
    pub pdb: String,
    /// `disruptionsAllowed` before the failure.
    pub disruptions_allowed: i32,
    /// `expectedPods`.
    pub expected_pods: i32,
    /// `desiredHealthy`.
    pub desired_healthy: i32,
    /// `currentHealthy` before the failure.
    pub current_healthy: i32,
    /// Matching pods that are gone.
    pub evicted: usize,
    /// Healthy matching pods right after a sudden loss.
    pub healthy_after_failure: i32,
    /// Healthy matching pods once the replacements are scheduled.
    pub healthy_after_replacements: i32,
    /// `desiredHealthy - healthyAfterFailure` when positive.
    pub shortfall: i32,
    /// The same once the replacements are scheduled.
    pub shortfall_after_replacements: i32,
    /// Whether the sudden loss leaves fewer healthy pods than `desiredHealthy`.
    pub violated: bool,
    /// Draining the domain instead.
    pub drain: DrainView,
}

/// A drain of the domain (cordon, evictions through the eviction API).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DrainView {
    /// Whether the drain blocks on this budget (evictions refused for good).
    pub blocks: bool,
    /// Matching pods evicted.
    pub evictions: usize,
    /// Matching pods whose eviction stays refused.
    pub blocked: usize,
    /// Replacements of evicted pods that stay Pending.
    pub pending_replacements: Vec<String>,
    /// The scheduler's message for the first of them.
    pub message: Option<String>,
    /// Healthy matching pods when the drain ends or blocks.
    pub healthy_at_end: i32,
}

/// Every single failure of one kind.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepView {
    /// `zone` or `node`.
    pub kind: &'static str,
    /// `removed` or `unreachable`.
    pub mode: &'static str,
    /// Per workload: the N+1 verdict.
    pub survival: Vec<SurvivalView>,
    /// One entry per failed domain.
    pub failures: Vec<FailureView>,
}

/// A workload's N+1 verdict.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurvivalView {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// The failure leaving the fewest replicas running after rescheduling.
    pub worst: Option<String>,
    /// Replicas running after rescheduling in the worst failure.
    pub min_running_after: usize,
    /// The same in percent of desired: the workload survives the loss of any one domain with at
    /// least this share of replicas running.
    pub min_running_after_percent: usize,
    /// Fewest replicas still running right after any single failure, before replacements.
    pub min_surviving: usize,
}

fn percent(part: usize, whole: usize) -> usize {
    (part * 100).checked_div(whole).unwrap_or(100)
}

/// The view of one failure report.
pub fn failure_view(report: &FailureReport) -> FailureView {
    FailureView {
        domain: report.domain.describe(),
        mode: report.mode.as_str(),
        failed_nodes: report.failed_nodes.clone(),
        pods_gone: report.pods_gone,
        workloads: report
            .workloads
            .iter()
            .enumerate()
            .map(|(index, w)| ImpactView {
                workload: w.workload.clone(),
                desired: w.desired,
                running_before: w.running_before,
                zones_before: w.zones_before.clone(),
                lost: w.lost.clone(),
                surviving: w.surviving,
                surviving_percent: percent(w.surviving, w.desired),
                replacements: w
                    .replacements
                    .iter()
                    .map(|r| ReplacementView {
                        replaces: r.replaces.clone(),
                        was_pending: r.was_pending,
                        node: r.node.clone(),
                        zone: r.zone.clone(),
                        message: r.message.clone(),
                    })
                    .collect(),
                running_after: w.running_after,
                running_after_percent: percent(w.running_after, w.desired),
                zones_after: w.zones_after.clone(),
                after_recovery: RecoveryView {
                    running: report.recovery.running[index],
                    zones: report.recovery.zones[index].clone(),
                    placed: report.recovery.placed[index].clone(),
                },
            })
            .collect(),
        pdbs: report
            .pdbs
            .iter()
            .map(|p| PdbView {
                pdb: p.pdb.clone(),
                disruptions_allowed: p.disruptions_allowed,
                expected_pods: p.budget.expected_pods,
                desired_healthy: p.budget.desired_healthy,
                current_healthy: p.budget.current_healthy,
                evicted: p.evicted,
                healthy_after_failure: p.healthy_after_failure,
                healthy_after_replacements: p.healthy_after_replacements,
                shortfall: p.shortfall,
                shortfall_after_replacements: p.shortfall_after_replacements,
                violated: p.violated,
                drain: DrainView {
                    blocks: p.drain.blocks(),
                    evictions: p.drain.evictions,
                    blocked: p.drain.blocked,
                    pending_replacements: p.drain.pending_replacements.clone(),
                    message: p.drain.message.clone(),
                    healthy_at_end: p.drain.healthy_at_end,
                },
            })
            .collect(),
        notes: report.notes.clone(),
    }
}

/// The view of one sweep.
pub fn sweep_view(sweep: &Sweep) -> SweepView {
    SweepView {
        kind: match sweep.kind {
            spreadlab_engine::analysis::failure::DomainKind::Zone => "zone",
            spreadlab_engine::analysis::failure::DomainKind::Node => "node",
        },
        mode: sweep.mode.as_str(),
        survival: sweep
            .survival
            .iter()
            .map(|s| SurvivalView {
                workload: s.workload.clone(),
                desired: s.desired,
                worst: s.worst.as_ref().map(Domain::describe),
                min_running_after: s.min_running_after,
                min_running_after_percent: s.percent_after(),
                min_surviving: s.min_surviving,
            })
            .collect(),
        failures: sweep.reports.iter().map(failure_view).collect(),
    }
}

fn render_failure(out: &mut String, failure: &FailureView, indent: &str) {
    let _ = writeln!(
        out,
        "{indent}{} {} ({} nodes, {} pods gone)",
        failure.domain,
        failure.mode,
        failure.failed_nodes.len(),
        failure.pods_gone
    );
    for w in &failure.workloads {
        let _ = writeln!(
            out,
            "{indent}  {}: {} of {} desired lost; {} still running ({}%); after rescheduling {} ({}%)",
            w.workload,
            w.lost.len(),
            w.desired,
            w.surviving,
            w.surviving_percent,
            w.running_after,
            w.running_after_percent
        );
        let _ = writeln!(
            out,
            "{indent}    zones before: {}; after: {}; after the {} is back: {}",
            zones(&w.zones_before),
            zones(&w.zones_after),
            if failure.domain.starts_with("zone") {
                "zone"
            } else {
                "node"
            },
            zones(&w.after_recovery.zones)
        );
        for r in &w.replacements {
            match (&r.node, &r.message) {
                (Some(node), _) => {
                    let _ = writeln!(
                        out,
                        "{indent}    replacement for {} -> {node} ({})",
                        r.replaces,
                        r.zone.as_deref().unwrap_or("-")
                    );
                }
                (None, message) => {
                    let _ = writeln!(
                        out,
                        "{indent}    replacement for {}{} stays Pending: {}",
                        r.replaces,
                        if r.was_pending {
                            " (already Pending)"
                        } else {
                            ""
                        },
                        message.as_deref().unwrap_or("")
                    );
                }
            }
        }
        for (replaces, node) in &w.after_recovery.placed {
            let _ = writeln!(
                out,
                "{indent}    once the domain is back: replacement for {replaces} -> {node}"
            );
        }
    }
    for note in &failure.notes {
        let _ = writeln!(out, "{indent}  note: {note}");
    }
    for p in &failure.pdbs {
        let _ = writeln!(
            out,
            "{indent}  PodDisruptionBudget {}: {} of {} expected must stay healthy, {} healthy, {} disruption(s) allowed",
            p.pdb, p.desired_healthy, p.expected_pods, p.current_healthy, p.disruptions_allowed
        );
        let _ = writeln!(
            out,
            "{indent}    a failure of {} leaves {} healthy, the budget needs {}{}; {} once replacements are scheduled",
            failure.domain,
            p.healthy_after_failure,
            p.desired_healthy,
            if p.violated {
                format!(" ({} short)", p.shortfall)
            } else {
                String::new()
            },
            p.healthy_after_replacements
        );
        let pending = if p.drain.pending_replacements.is_empty() {
            String::from(if p.drain.blocks {
                ": the budget allows no more disruptions"
            } else {
                ""
            })
        } else {
            format!(
                ": {} replacement(s) Pending: {}",
                p.drain.pending_replacements.len(),
                p.drain.message.as_deref().unwrap_or("")
            )
        };
        let _ = writeln!(
            out,
            "{indent}    draining {} {} after {} eviction(s){pending}",
            failure.domain,
            if p.drain.blocks { "blocks" } else { "finishes" },
            p.drain.evictions
        );
    }
}

/// Renders `whatif` as text.
pub fn render_whatif(view: &WhatIfView) -> String {
    let mut out = String::new();
    for failure in &view.failures {
        render_failure(&mut out, failure, "");
        out.push('\n');
    }
    for sweep in &view.sweeps {
        let _ = writeln!(
            out,
            "losing any one {} ({} nodes):",
            sweep.kind,
            if sweep.mode == "removed" {
                "removed"
            } else {
                "unreachable"
            }
        );
        for s in &sweep.survival {
            let _ = writeln!(
                out,
                "  {}: survives the loss of any one {} with at least {}% of {} replicas running after rescheduling (worst: {}, {} running; {} right after the failure)",
                s.workload,
                sweep.kind,
                s.min_running_after_percent,
                s.desired,
                s.worst.as_deref().unwrap_or("-"),
                s.min_running_after,
                s.min_surviving
            );
        }
        for failure in &sweep.failures {
            render_failure(&mut out, failure, "  ");
        }
        out.push('\n');
    }
    out
}

/// The `capacity` JSON entry of one workload.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CapacityView {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Running once the missing replicas are placed.
    pub running: usize,
    /// Desired replicas Pending already.
    pub pending: usize,
    /// Extra replicas that fit.
    pub additional: usize,
    /// Where they land.
    pub per_zone: BTreeMap<String, usize>,
    /// The search stopped at `--max` before a replica failed.
    pub bounded: bool,
    /// `resources`, `spread`, `affinity`, `placement`, `other`, or null.
    pub limit: Option<&'static str>,
    /// Nodes rejecting the next replica, per plugin.
    pub rejections: BTreeMap<String, usize>,
    /// The scheduler's message for the first replica that does not fit.
    pub message: Option<String>,
    /// That replica could only be placed by preempting lower-priority pods.
    pub would_preempt: bool,
    /// The HPA's maxReplicas, when one targets the workload.
    pub hpa_max_replicas: Option<usize>,
    /// Whether the workload can scale to it.
    pub reaches_hpa_max: Option<bool>,
}

/// The view of one capacity report.
pub fn capacity_view(report: &CapacityReport) -> CapacityView {
    CapacityView {
        workload: report.workload.clone(),
        desired: report.desired,
        running: report.running,
        pending: report.pending,
        additional: report.additional,
        per_zone: report.per_zone.clone(),
        bounded: report.bounded,
        limit: report.limit.map(|l| l.as_str()),
        rejections: report
            .rejections
            .iter()
            .map(|(p, n)| (p.as_str().to_owned(), *n))
            .collect(),
        message: report.message.clone(),
        would_preempt: report.would_preempt,
        hpa_max_replicas: report.hpa_max_replicas,
        reaches_hpa_max: report.reaches_hpa_max(),
    }
}

/// Renders `capacity` as text.
pub fn render_capacity(views: &[CapacityView]) -> String {
    let mut out = String::new();
    for v in views {
        let _ = writeln!(
            out,
            "{}: {} desired, {} running{}; {}{} more fit ({})",
            v.workload,
            v.desired,
            v.running,
            if v.pending > 0 {
                format!(", {} Pending", v.pending)
            } else {
                String::new()
            },
            if v.bounded { "at least " } else { "" },
            v.additional,
            zones(&v.per_zone)
        );
        if let Some(limit) = v.limit {
            let _ = writeln!(
                out,
                "  limited by {limit} ({})",
                v.rejections
                    .iter()
                    .map(|(p, n)| format!("{p} rejects {n} nodes"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(message) = &v.message {
            let _ = writeln!(out, "  next replica: {message}");
        }
        if v.would_preempt {
            let _ = writeln!(
                out,
                "  (the real scheduler would place it by preempting lower-priority pods)"
            );
        }
        if let (Some(max), Some(reaches)) = (v.hpa_max_replicas, v.reaches_hpa_max) {
            let _ = writeln!(
                out,
                "  HorizontalPodAutoscaler maxReplicas {max}: {}",
                if reaches {
                    "reachable".to_owned()
                } else {
                    format!(
                        "NOT reachable (at most {} replicas)",
                        v.running + v.additional
                    )
                }
            );
        }
    }
    out
}

/// The `risk` JSON entry of one workload.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RiskView {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub desired: usize,
    /// Seeded tie-break runs.
    pub runs: usize,
    /// Runs per replicas on the busiest node.
    pub max_per_node: BTreeMap<usize, usize>,
    /// Runs per replicas in the busiest zone.
    pub max_per_zone: BTreeMap<usize, usize>,
    /// Share of runs (percent) where losing one node takes out more than half of the replicas.
    pub node_loss_over_half_percent: f64,
    /// The same for one zone.
    pub zone_loss_over_half_percent: f64,
    /// Runs where a replica stayed Pending.
    pub runs_with_pending: usize,
}

/// The view of one risk report.
pub fn risk_view(report: &RiskReport) -> RiskView {
    let share = |n: usize| {
        if report.runs == 0 {
            0.0
        } else {
            (n as f64) * 100.0 / report.runs as f64
        }
    };
    RiskView {
        workload: report.workload.clone(),
        desired: report.desired,
        runs: report.runs,
        max_per_node: report.max_per_node.clone(),
        max_per_zone: report.max_per_zone.clone(),
        node_loss_over_half_percent: share(report.node_loss_over_half),
        zone_loss_over_half_percent: share(report.zone_loss_over_half),
        runs_with_pending: report.runs_with_pending,
    }
}

/// Renders `risk` as text.
pub fn render_risk(views: &[RiskView]) -> String {
    let mut out = String::new();
    let dist = |m: &BTreeMap<usize, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} in {v} runs"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for v in views {
        let _ = writeln!(
            out,
            "{}: {} replicas, {} seeded tie-break runs",
            v.workload, v.desired, v.runs
        );
        let _ = writeln!(out, "  busiest node holds: {}", dist(&v.max_per_node));
        let _ = writeln!(out, "  busiest zone holds: {}", dist(&v.max_per_zone));
        let _ = writeln!(
            out,
            "  losing one node takes out more than half the replicas in {:.1}% of runs; one zone in {:.1}%",
            v.node_loss_over_half_percent, v.zone_loss_over_half_percent
        );
        if v.runs_with_pending > 0 {
            let _ = writeln!(
                out,
                "  some replica stays Pending in {} runs",
                v.runs_with_pending
            );
        }
    }
    out.push_str(
        "note: the real scheduler also scores only a sample of the feasible nodes when the cluster has 100 nodes or more; that adds variation not counted here\n",
    );
    out
}

/// The `rollout` JSON entry of one Deployment.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutView {
    /// `Deployment/namespace/name`.
    pub workload: String,
    /// Desired replicas.
    pub replicas: usize,
    /// Pods of the current revision found in the snapshot.
    pub old_pods: usize,
    /// The rollout as specified.
    #[serde(flatten)]
    pub outcome: OutcomeView,
    /// The same rollout with the opposite `matchLabelKeys: [pod-template-hash]` choice.
    pub match_label_keys: Option<MatchLabelKeysView>,
    /// When it stalls: alternatives, each simulated.
    pub alternatives: Vec<AlternativeView>,
}

/// One simulated rollout.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeView {
    /// The strategy.
    pub strategy: String,
    /// maxSurge resolved.
    pub max_surge: i32,
    /// maxUnavailable resolved.
    pub max_unavailable: i32,
    /// Whether it completes.
    pub completed: bool,
    /// The step after which nothing more happens (null when completed).
    pub stalled_at_step: Option<usize>,
    /// Why it stalls (the scheduler's message), or null.
    pub reason: Option<String>,
    /// Fewest available replicas at any step.
    pub min_available: usize,
    /// Seconds after which `ProgressDeadlineExceeded` is set (it stops nothing), or null.
    pub progress_deadline_exceeded_at: Option<u64>,
    /// The end state against each hard spread constraint.
    pub spread: Vec<SpreadCheckView>,
    /// Whether every hard spread constraint holds at the end.
    pub end_satisfies_spread: bool,
    /// Every step.
    pub steps: Vec<StepView>,
}

/// One step.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    /// Step number.
    pub step: usize,
    /// Seconds since the start.
    pub time: u64,
    /// What happened.
    pub actions: Vec<String>,
    /// The new revision.
    pub new: RevisionView,
    /// The old revision(s).
    pub old: RevisionView,
    /// Available replicas of both revisions.
    pub available: usize,
    /// Pending pods: `[name, message]`.
    pub pending: Vec<(String, String)>,
}

/// Pods of one revision.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionView {
    /// ReplicaSet `spec.replicas`.
    pub replicas: usize,
    /// Bound, not terminating.
    pub running: usize,
    /// Available.
    pub available: usize,
    /// Pending.
    pub pending: usize,
    /// Terminating (holding resources).
    pub terminating: usize,
    /// Running pods per zone.
    pub zones: BTreeMap<String, usize>,
}

/// One hard spread constraint at the end.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpreadCheckView {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew.
    pub max_skew: i32,
    /// Matching pods per eligible domain.
    pub domains: BTreeMap<String, i64>,
    /// Largest count minus the global minimum.
    pub skew: i64,
    /// `skew <= maxSkew`.
    pub satisfied: bool,
}

/// The matchLabelKeys comparison.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchLabelKeysView {
    /// Whether the comparison run has `pod-template-hash` in matchLabelKeys (the manifest does not).
    pub with_pod_template_hash: bool,
    /// Whether it completes.
    pub completed: bool,
    /// Where it stalls.
    pub stalled_at_step: Option<usize>,
    /// Fewest available replicas.
    pub min_available: usize,
    /// Why it stalls.
    pub reason: Option<String>,
    /// New pods per zone at the end.
    pub final_zones: BTreeMap<String, usize>,
}

/// An alternative.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlternativeView {
    /// What changes.
    pub change: String,
    /// Whether it completes.
    pub completed: bool,
    /// Where it stalls.
    pub stalled_at_step: Option<usize>,
    /// Fewest available replicas (the cost).
    pub min_available: usize,
    /// Why it stalls.
    pub reason: Option<String>,
}

fn revision(counts: &spreadlab_engine::analysis::rollout::RevisionCounts) -> RevisionView {
    RevisionView {
        replicas: counts.replicas,
        running: counts.running,
        available: counts.available,
        pending: counts.pending,
        terminating: counts.terminating,
        zones: counts.zones.clone(),
    }
}

fn outcome_view(outcome: &spreadlab_engine::analysis::rollout::RolloutOutcome) -> OutcomeView {
    OutcomeView {
        strategy: outcome.strategy.describe(),
        max_surge: outcome.resolved.0,
        max_unavailable: outcome.resolved.1,
        completed: outcome.completed,
        stalled_at_step: outcome.stalled_at_step,
        reason: outcome.reason.clone(),
        min_available: outcome.min_available,
        progress_deadline_exceeded_at: outcome.progress_deadline_exceeded_at,
        spread: outcome
            .spread
            .iter()
            .map(|s| SpreadCheckView {
                topology_key: s.topology_key.clone(),
                max_skew: s.max_skew,
                domains: s.domains.clone(),
                skew: s.skew,
                satisfied: s.satisfied,
            })
            .collect(),
        end_satisfies_spread: outcome.spread.iter().all(|s| s.satisfied),
        steps: outcome
            .steps
            .iter()
            .map(|s| StepView {
                step: s.step,
                time: s.time,
                actions: s.actions.clone(),
                new: revision(&s.new),
                old: revision(&s.old),
                available: s.available,
                pending: s.pending.clone(),
            })
            .collect(),
    }
}

/// The view of one rollout report.
pub fn rollout_view(report: &spreadlab_engine::analysis::rollout::RolloutReport) -> RolloutView {
    RolloutView {
        workload: report.workload.clone(),
        replicas: report.replicas,
        old_pods: report.old_pods,
        outcome: outcome_view(&report.outcome),
        match_label_keys: report
            .match_label_keys
            .as_ref()
            .map(|(with, o)| MatchLabelKeysView {
                with_pod_template_hash: *with,
                completed: o.completed,
                stalled_at_step: o.stalled_at_step,
                min_available: o.min_available,
                reason: o.reason.clone(),
                final_zones: o
                    .steps
                    .last()
                    .map(|s| s.new.zones.clone())
                    .unwrap_or_default(),
            }),
        alternatives: report
            .alternatives
            .iter()
            .map(|a| AlternativeView {
                change: a.change.clone(),
                completed: a.outcome.completed,
                stalled_at_step: a.outcome.stalled_at_step,
                min_available: a.outcome.min_available,
                reason: a.outcome.reason.clone(),
            })
            .collect(),
    }
}

/// Renders `rollout` as text.
pub fn render_rollout(views: &[RolloutView]) -> String {
    let mut out = String::new();
    for v in views {
        let o = &v.outcome;
        let _ = writeln!(
            out,
            "{}: {} replicas, {} pods of the current revision; {} (maxSurge {}, maxUnavailable {})",
            v.workload, v.replicas, v.old_pods, o.strategy, o.max_surge, o.max_unavailable
        );
        for s in &o.steps {
            let _ = writeln!(
                out,
                "  step {:>3}  t={:>5}s  new {}/{} available ({} Pending, zones {})  old {} running ({} terminating)  available {}",
                s.step,
                s.time,
                s.new.available,
                s.new.replicas,
                s.new.pending,
                zones(&s.new.zones),
                s.old.running,
                s.old.terminating,
                s.available
            );
            for action in &s.actions {
                let _ = writeln!(out, "              {action}");
            }
        }
        if o.completed {
            let _ = writeln!(
                out,
                "  completes; at least {} of {} replicas available throughout",
                o.min_available, v.replicas
            );
        } else {
            let _ = writeln!(
                out,
                "  STALLS at step {}: {}",
                o.stalled_at_step.unwrap_or(0),
                o.reason.as_deref().unwrap_or("")
            );
            if let Some(at) = o.progress_deadline_exceeded_at {
                let _ = writeln!(
                    out,
                    "  the Deployment reports ProgressDeadlineExceeded after {at}s (nothing stops)"
                );
            }
        }
        for s in &o.spread {
            let _ = writeln!(
                out,
                "  end state, spread on {}: {} (skew {} vs maxSkew {}: {})",
                s.topology_key,
                s.domains
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.skew,
                s.max_skew,
                if s.satisfied { "ok" } else { "VIOLATED" }
            );
        }
        if let Some(m) = &v.match_label_keys {
            let _ = writeln!(
                out,
                "  {} matchLabelKeys [pod-template-hash]: {}, at least {} available, new pods per zone {}",
                if m.with_pod_template_hash {
                    "with"
                } else {
                    "without"
                },
                if m.completed {
                    "completes".to_owned()
                } else {
                    format!("stalls at step {}", m.stalled_at_step.unwrap_or(0))
                },
                m.min_available,
                zones(&m.final_zones)
            );
        }
        for a in &v.alternatives {
            let _ = writeln!(
                out,
                "  alternative: {}: {}; at least {} available",
                a.change,
                if a.completed {
                    "completes".to_owned()
                } else {
                    format!("stalls at step {}", a.stalled_at_step.unwrap_or(0))
                },
                a.min_available
            );
        }
    }
    out
}

/// One `lint` finding in JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingView {
    /// Rule ID.
    pub rule: String,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    /// `Kind/namespace/name`, or the object the API server would reject.
    pub workload: Option<String>,
    /// The file it was read from.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Field path.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: &'static str,
}

/// Renders `lint` as text.
pub fn render_lint(findings: &[FindingView]) -> String {
    let mut out = String::new();
    for f in findings {
        let location = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!("{file}:{line}: "),
            (Some(file), None) => format!("{file}: "),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{location}{} [{}] {}{}: {}",
            f.severity,
            f.rule,
            f.workload.as_deref().unwrap_or("-"),
            f.path
                .as_deref()
                .map(|p| format!(" {p}"))
                .unwrap_or_default(),
            f.message
        );
        let _ = writeln!(out, "    fix: {}", f.fix);
    }
    let errors = findings.iter().filter(|f| f.severity == "error").count();
    let _ = writeln!(
        out,
        "{} finding(s): {errors} error(s), {} warning(s)",
        findings.len(),
        findings.iter().filter(|f| f.severity == "warning").count()
    );
    out
}

/// The findings as a SARIF 2.1.0 log (every rule described in the driver).
pub fn sarif(findings: &[FindingView]) -> serde_json::Value {
    use spreadlab_engine::analysis::lint::RULES;
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "shortDescription": {"text": r.title},
                "fullDescription": {"text": r.explanation},
                "help": {"text": r.fix},
                "defaultConfiguration": {"level": r.severity.as_str()},
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            let mut location = serde_json::json!({});
            if let Some(file) = &f.file {
                let mut physical = serde_json::json!({"artifactLocation": {"uri": file}});
                if let Some(line) = f.line {
                    physical["region"] = serde_json::json!({"startLine": line});
                    if let Some(column) = f.column {
                        physical["region"]["startColumn"] = serde_json::json!(column);
                    }
                }
                location["physicalLocation"] = physical;
            }
            let name = [f.workload.as_deref(), f.path.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            if !name.is_empty() {
                location["logicalLocations"] = serde_json::json!([{"fullyQualifiedName": name}]);
            }
            serde_json::json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == f.rule),
                "level": f.severity,
                "message": {"text": f.message},
                "locations": [location],
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "spreadlab",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/spreadlab",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// The `stalemate` JSON document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StalemateView {
    /// Version of this document's shape.
    pub schema_version: u32,
    /// Every workload held back by another's running replicas.
    pub blocking: Vec<BlockingView>,
    /// Workloads blocking each other.
    pub stalemates: Vec<CycleView>,
}

/// One blocking relation.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockingView {
    /// The workload with Pending replicas.
    pub blocked: String,
    /// The workload holding it back.
    pub by: String,
    /// `[node, plugin]` where that happens.
    pub nodes: Vec<(String, String)>,
}

/// One cycle.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleView {
    /// Its workloads.
    pub workloads: Vec<String>,
    /// Their Pending replicas.
    pub pending: usize,
    /// Verified remedies: `{change, pendingAfter}`, best first.
    pub remedies: Vec<RemedyView>,
}

/// One remedy.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemedyView {
    /// What changes.
    pub change: String,
    /// Pending replicas of the cycle after it.
    pub pending_after: usize,
}

/// The view of a stalemate report.
pub fn stalemate_view(
    report: &spreadlab_engine::analysis::stalemate::StalemateReport,
) -> StalemateView {
    let blocking = |b: &spreadlab_engine::analysis::stalemate::Blocking| BlockingView {
        blocked: b.blocked.clone(),
        by: b.by.clone(),
        nodes: b
            .nodes
            .iter()
            .map(|(n, p)| (n.clone(), p.as_str().to_owned()))
            .collect(),
    };
    StalemateView {
        schema_version: 1,
        blocking: report.blocking.iter().map(blocking).collect(),
        stalemates: report
            .stalemates
            .iter()
            .map(|s| CycleView {
                workloads: s.workloads.clone(),
                pending: s.pending,
                remedies: s
                    .remedies
                    .iter()
                    .map(|r| RemedyView {
                        change: r.change.clone(),
                        pending_after: r.pending_after,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Renders `stalemate` as text.
pub fn render_stalemate(view: &StalemateView) -> String {
    let mut out = String::new();
    for b in &view.blocking {
        let _ = writeln!(
            out,
            "{} is held back by {} on {}",
            b.blocked,
            b.by,
            b.nodes
                .iter()
                .map(|(n, p)| format!("{n} ({p})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if view.stalemates.is_empty() {
        let _ = writeln!(out, "no stalemate: no workloads block each other");
    }
    for s in &view.stalemates {
        let _ = writeln!(
            out,
            "STALEMATE: {} block each other ({} replicas Pending)",
            s.workloads.join(" <-> "),
            s.pending
        );
        for r in &s.remedies {
            let _ = writeln!(out, "  {}: {} Pending after", r.change, r.pending_after);
        }
        if s.remedies.is_empty() {
            let _ = writeln!(out, "  no single node or relaxed constraint breaks it");
        }
    }
    out
}
