//! Rules against the settled cluster: topology domains, minDomains, tainted nodes counted, GPU
//! models, and whether required anti-affinity leaves room for every replica.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::framework::{PluginName, PodInfo, Profile, run_filter, run_pre_filter};
use crate::model::taint::find_untolerated_taint;
use crate::model::{LABEL_HOSTNAME, PodAffinityTerm, TaintEffect, WhenUnsatisfiable};
use crate::scheduler::Options;

use super::*;

impl Checker<'_> {
    /// Nodes where the template passes the node-local placement filters (cordons, taints, node
    /// affinity), by snapshot index.
    pub(super) fn eligible_nodes(&self) -> Vec<usize> {
        let mut profile = Profile::default_for(self.snapshot.version);
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

    pub(super) fn cluster_rules(&mut self, options: &Options) {
        let base = spec_path(self.workload);
        let pod = self.template().clone();
        let eligible = self.eligible_nodes();
        let info = PodInfo::new(pod.clone());
        let (state, _) = run_pre_filter(
            &Profile::default_for(self.snapshot.version),
            self.snapshot,
            &info,
        );
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
        if self.wants(&["spread-and-anti-affinity-conflict"]) {
            self.conflicts(options);
        }
        if self.wants(&["zone-loss-not-survived", "pdb-violated"]) {
            self.zone_loss(options);
        }
    }

    pub(super) fn mixed_gpu_models(&mut self) {
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

    pub(super) fn anti_affinity_capacity(
        &mut self,
        i: usize,
        term: &PodAffinityTerm,
        eligible: &[usize],
    ) {
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
}
