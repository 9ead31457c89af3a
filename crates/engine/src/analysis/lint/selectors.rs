//! Selector rules: a workload's spread and anti-affinity selectors against its own pods and the
//! cluster's (selector-misses-own-pods, selector-too-generic, ...).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::analysis::Workload;
use crate::model::{Selector, WhenUnsatisfiable};

use super::*;

impl Checker<'_> {
    pub(super) fn static_rules(&mut self, workloads: &[Workload]) {
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
                    if let Some(last) = self
                        .findings
                        .last_mut()
                        .filter(|f| f.rule == "selector-misses-own-pods")
                    {
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
}
