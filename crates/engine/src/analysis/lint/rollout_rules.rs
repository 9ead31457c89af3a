//! Rollout rules: pod-template-hash in matchLabelKeys, and whether a surge needs GPUs the cluster
//! lacks or a rollout violates a PodDisruptionBudget (`analysis::rollout`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::rollout::{self, Assumptions, LABEL_POD_TEMPLATE_HASH, RolloutSpec, Strategy};
use crate::model::{Pod, WhenUnsatisfiable};
use crate::scheduler::Options;

use super::*;

impl Checker<'_> {
    pub(super) fn rollout_rules(&mut self, deployment: Option<&RolloutSpec>, options: &Options) {
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
        // The rest rolls the workload out (the analysis behind both rules).
        if !self.wants(&["surge-needs-missing-gpu", "pdb-violated"]) {
            return;
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
            if !crate::analysis::disruption::selects(pdb, &pod) {
                continue;
            }
            let budget = crate::analysis::disruption::budget(
                &self.settled.cluster,
                &pending,
                pdb,
                self.owners,
            );
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
