//! The policy's checks against the cluster: the workload's replicas settled (Pending, domains,
//! zone loss), its rollout, and the enforced lint rules, each state settled at most once.

use std::collections::{BTreeMap, BTreeSet};

use spreadlab_engine::analysis::failure::{self, DomainKind};
use spreadlab_engine::analysis::rollout::{self, Assumptions};
use spreadlab_engine::analysis::{self, lint, percent};
use spreadlab_engine::model::{Cluster, Scenario};
use spreadlab_k8s::{Workload, WorkloadKind};

use crate::settings::Settings;

/// Checks against the cluster. `template_changed`: an UPDATE that changes the pod template of
/// the object as admitted (after the mutation).
pub(crate) fn cluster_violations(
    workload: &Workload,
    template_changed: bool,
    cluster: &Cluster,
    settings: &Settings,
) -> Vec<String> {
    let options = crate::decide::options(settings);
    let mut violations = Vec::new();
    let rollout_update = rolls_out(workload) && template_changed;
    // The workload as the analyses follow it, on a cluster.
    let scenario_of = |cluster: Cluster| Scenario {
        workloads: vec![analysed(workload, &cluster, rollout_update)],
        cluster,
    };
    let current = scenario_of(cluster.clone());
    // The state after this change has rolled out: the running replicas (the old revision) are
    // replaced by new ones. Without a rollout it is the current state.
    let end = rollout_update.then(|| {
        let old: BTreeSet<String> = workload
            .running_pods(cluster)
            .iter()
            .map(|pod| pod.key())
            .collect();
        let mut end = cluster.clone();
        end.pods.retain(|pod| !old.contains(&pod.key()));
        scenario_of(end)
    });
    let desired = current.workloads[0].desired;
    let needs_settle = settings.reject_pending
        || settings.min_zone_loss_survival.is_some()
        || settings.counts_domains();
    let needs_lint = !settings.lint_rules.is_empty();
    // The rollout starts from the current state (its running replicas are the old revision).
    let rolled = if settings.reject_rollout_stall && rollout_update {
        rollout::rollout(&current, 0, &Assumptions::default(), &options)
    } else {
        None
    };
    // Each state is settled at most once, and shared by the checks and lint.
    let settled_current = (needs_lint || (needs_settle && end.is_none()))
        .then(|| analysis::settle(current, &options));
    let settled_end = end.and_then(|end| needs_settle.then(|| analysis::settle(end, &options)));
    let checked = settled_end
        .as_ref()
        .or_else(|| settled_current.as_ref().filter(|_| needs_settle));
    if let Some(settled) = checked {
        if settings.reject_pending && !settled.pending[0].is_empty() {
            violations.push(pending_violation(
                settled.pending_count(0),
                desired,
                settled.pending[0][0].1.message.as_deref(),
            ));
        }
        violations.extend(domains_violations(settings, desired, |key| {
            domains_of(&settled.cluster, &settled.members[0], key)
        }));
        if let Some(fraction) = settings.min_zone_loss_survival
            && desired > 0
        {
            let sweep = failure::fail_each(
                settled,
                DomainKind::Zone,
                settings.zone_loss_mode.failure_mode(),
                &options,
            );
            let survival = &sweep.survival[0];
            if (survival.min_running_after as f64) < fraction * desired as f64 - 1e-9 {
                let worst = survival
                    .worst
                    .as_ref()
                    .map_or_else(|| String::from("a zone"), |d| d.describe());
                let why = sweep
                    .reports
                    .iter()
                    .find(|r| Some(&r.domain) == survival.worst.as_ref())
                    .and_then(|r| {
                        r.workloads[0]
                            .replacements
                            .iter()
                            .find_map(|x| x.message.clone())
                    })
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                violations.push(format!(
                    "losing {worst} ({}) leaves {} of {desired} replicas running ({}%), policy requires {}%{why}",
                    settings.zone_loss_mode.failure_mode().as_str(),
                    survival.min_running_after,
                    percent(survival.min_running_after, desired),
                    (fraction * 100.0).ceil() as u64
                ));
            }
        }
    }
    if let Some(report) = &rolled {
        let outcome = &report.outcome;
        if !outcome.completed {
            let at = outcome
                .stalled_at_step
                .map(|s| format!(" at step {s}"))
                .unwrap_or_default();
            let reason = outcome.reason.as_deref().unwrap_or("no progress");
            let fix = report
                .alternatives
                .iter()
                .find(|a| a.outcome.completed)
                .map(|a| format!(" (completes with: {})", a.change))
                .unwrap_or_default();
            violations.push(format!(
                "rollout ({}) would stall{at}: {reason}{fix}",
                outcome.strategy.describe()
            ));
        }
    }
    if let Some(settled) = settled_current.as_ref().filter(|_| needs_lint) {
        // Only the enforced rules are checked (the analyses behind the others are not run).
        let enforced: BTreeSet<&str> = settings.lint_rules.iter().map(String::as_str).collect();
        let findings = lint::lint_rules(settled, &options, &|rule| enforced.contains(rule));
        for finding in &findings {
            violations.push(format!("[{}] {}", finding.rule, finding.message));
        }
    }
    violations
}

/// The violation of `rejectPending`: `pending` of `desired` replicas stay Pending, the first
/// with `message`.
pub(crate) fn pending_violation(pending: usize, desired: usize, message: Option<&str>) -> String {
    let message = message.unwrap_or("no message from the scheduler");
    format!("{pending} of {desired} replicas would stay Pending: {message}")
}

/// The violations of the required keys' `minDomains`: `domains(key)` gives the values of `key`
/// on the nodes the replicas run on.
pub(crate) fn domains_violations(
    settings: &Settings,
    desired: usize,
    domains: impl Fn(&str) -> BTreeSet<String>,
) -> Vec<String> {
    let mut violations = Vec::new();
    for required in &settings.required_topology_keys {
        let Some(min_domains) = required.min_domains else {
            continue;
        };
        let need = (min_domains as usize).min(desired);
        let domains = domains(&required.topology_key);
        if domains.len() < need {
            let list: Vec<&str> = domains.iter().map(String::as_str).collect();
            violations.push(format!(
                "replicas would run in {} {} domain(s) [{}], policy requires {need}",
                domains.len(),
                required.topology_key,
                list.join(", ")
            ));
        }
    }
    violations
}

/// Whether a template change replaces the running replicas: only where a controller rolls out,
/// Deployments, and StatefulSets unless `OnDelete` (a ReplicaSet keeps its pods).
pub(crate) fn rolls_out(workload: &Workload) -> bool {
    match workload.kind {
        WorkloadKind::Deployment => true,
        WorkloadKind::StatefulSet => !matches!(
            workload.rollout.as_ref().map(|r| r.strategy),
            Some(rollout::Strategy::OnDelete)
        ),
        _ => false,
    }
}

/// The workload as the analyses follow it on `cluster`. A request saying the template changed
/// (`rollout_update`) makes a new revision, whatever revision the loader took from the running
/// pods (the cluster read has no ReplicaSets to compare).
pub(crate) fn analysed(
    workload: &Workload,
    cluster: &Cluster,
    rollout_update: bool,
) -> spreadlab_engine::model::Workload {
    analysed_beside(
        workload,
        cluster,
        &workload.running_pods(cluster),
        rollout_update,
    )
}

/// [`analysed`] with the workload's running pods found already.
pub(crate) fn analysed_beside(
    workload: &Workload,
    cluster: &Cluster,
    running: &[&spreadlab_engine::model::Pod],
    rollout_update: bool,
) -> spreadlab_engine::model::Workload {
    let mut analysed = workload.for_analysis_beside(cluster, running);
    if rollout_update {
        analysed.template = rollout::restarted(&analysed.template);
    }
    analysed
}

/// The distinct values of `key` on the nodes running `members` (pod keys).
fn domains_of(cluster: &Cluster, members: &[String], key: &str) -> BTreeSet<String> {
    let nodes: BTreeMap<&str, Option<&String>> = cluster
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.labels.get(key)))
        .collect();
    let members: BTreeSet<&str> = members.iter().map(String::as_str).collect();
    cluster
        .pods
        .iter()
        .filter(|p| members.contains(p.key().as_str()))
        .filter_map(|p| p.node_name.as_deref())
        .filter_map(|node| nodes.get(node).copied().flatten())
        .cloned()
        .collect()
}
