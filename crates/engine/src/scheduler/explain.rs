//! Explanations: the per-node verdicts and scores, the spread arithmetic (domain counts, global
//! minimum, minDomains, the candidate's +1, maxSkew) and the (anti-)affinity matches behind a
//! decision, built from the plugins' own PreFilter state.

use alloc::vec::Vec;

use super::*;
use crate::framework::{PodInfo, PreFilterOutcome, Snapshot, Status};
use crate::plugins::pod_topology_spread;

/// Builds the per-node explanation from the filter statuses and, when scoring ran, the scores.
pub(super) fn explanation(
    snapshot: &Snapshot,
    pod: &PodInfo,
    pre_filter: &PreFilterOutcome,
    state: &crate::framework::CycleState,
    statuses: &[Option<Status>],
    scores: Option<&crate::framework::ScoreOutcome>,
) -> Explanation {
    let mut nodes: Vec<NodeVerdict> = statuses
        .iter()
        .enumerate()
        .map(|(index, status)| NodeVerdict {
            node: snapshot.nodes[index].node.name.clone(),
            filter: status.clone().unwrap_or_else(Status::success),
            scores: Vec::new(),
            total: None,
        })
        .collect();
    if let Some(scores) = scores {
        for (position, &node_index) in scores.nodes.iter().enumerate() {
            let verdict = &mut nodes[node_index];
            verdict.total = Some(scores.totals[position]);
            verdict.scores = scores
                .plugins
                .iter()
                .filter(|p| !p.skipped())
                .map(|p| PluginScore {
                    plugin: p.plugin,
                    raw: p.raw[position],
                    normalized: p.normalized[position],
                    weighted: p.normalized[position] * p.weight,
                })
                .collect();
        }
    }
    Explanation {
        pre_filter: pre_filter.plugins.clone(),
        nodes,
        spread: spread_explanations(state.spread.as_ref()),
        soft_spread: Vec::new(),
        affinity: affinity_explanations(snapshot, pod, state.inter_pod_affinity.as_ref()),
    }
}

/// For the incoming pod's required (anti-)affinity terms and the existing pods' anti-affinity terms
/// that match it: which pods matched, on which node and topology value.
pub fn affinity_explanations(
    snapshot: &Snapshot,
    pod: &PodInfo,
    state: Option<&crate::plugins::inter_pod_affinity::PreFilterState>,
) -> Vec<AffinityExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    let no_labels = crate::model::Labels::new();
    let mut out = Vec::new();
    let located = |id: usize, key: &str| {
        let node = &snapshot.nodes[snapshot.pod_node[id]].node;
        (
            snapshot.pod(id).pod.key(),
            node.name.clone(),
            node.labels.get(key).cloned(),
        )
    };
    let terms = state
        .required_affinity_terms
        .iter()
        .map(|t| (AffinityRule::Affinity, t))
        .chain(
            state
                .required_anti_affinity_terms
                .iter()
                .map(|t| (AffinityRule::AntiAffinity, t)),
        );
    for (rule, term) in terms {
        let mut explanation = AffinityExplanation {
            rule,
            owner: None,
            topology_key: term.topology_key.clone(),
            selector: alloc::format!("{}", term.selector),
            matches: Vec::new(),
            match_count: 0,
        };
        for node in &snapshot.nodes {
            for id in &node.pods {
                if term.matches(&snapshot.pod(*id).pod, &no_labels) {
                    explanation.match_count += 1;
                    if explanation.matches.len() < AFFINITY_MATCHES_LISTED {
                        explanation.matches.push(located(*id, &term.topology_key));
                    }
                }
            }
        }
        out.push(explanation);
    }
    if !state.existing_anti_affinity_counts.is_empty() {
        for node in &snapshot.nodes {
            for id in &node.pods_with_required_anti_affinity {
                let owner = snapshot.pod(*id);
                for term in &owner.required_anti_affinity_terms {
                    if !term.matches(&pod.pod, &state.namespace_labels) {
                        continue;
                    }
                    let (key, node_name, value) = located(*id, &term.topology_key);
                    if value.is_none() {
                        continue;
                    }
                    out.push(AffinityExplanation {
                        rule: AffinityRule::ExistingAntiAffinity,
                        owner: Some(key.clone()),
                        topology_key: term.topology_key.clone(),
                        selector: alloc::format!("{}", term.selector),
                        matches: alloc::vec![(key, node_name, value)],
                        match_count: 1,
                    });
                }
            }
        }
    }
    out
}

/// The PreScore counts of every soft spread constraint.
pub fn soft_spread_explanations(
    state: Option<&pod_topology_spread::PreScoreState>,
    snapshot: &Snapshot,
    feasible: &[usize],
) -> Vec<SoftSpreadExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    state
        .constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| {
            let domains = if constraint.topology_key == crate::model::LABEL_HOSTNAME {
                feasible
                    .iter()
                    .filter(|n| !state.ignored_nodes.contains(n))
                    .map(|&n| {
                        (
                            snapshot.nodes[n].node.name.clone(),
                            i64::from(state.node_match_counts[index][n]),
                        )
                    })
                    .collect()
            } else {
                state.topology_value_to_pod_counts[index].clone()
            };
            SoftSpreadExplanation {
                topology_key: constraint.topology_key.clone(),
                max_skew: constraint.max_skew,
                selector: alloc::format!("{}", constraint.selector),
                domains,
            }
        })
        .collect()
}

/// The spread arithmetic of every hard constraint.
pub fn spread_explanations(
    state: Option<&pod_topology_spread::PreFilterState>,
) -> Vec<SpreadExplanation> {
    let Some(state) = state else {
        return Vec::new();
    };
    state
        .constraints
        .iter()
        .enumerate()
        .map(|(index, constraint)| {
            let table = &state.domains[index];
            SpreadExplanation {
                topology_key: constraint.topology_key.clone(),
                max_skew: constraint.max_skew,
                min_domains: constraint.min_domains,
                selector: alloc::format!("{}", constraint.selector),
                domains: table.match_num(),
                global_minimum: state.min_match_num(index),
                limit: state
                    .min_match_num(index)
                    .saturating_add(i64::from(constraint.max_skew)),
                min_domains_forced_zero: table.n_eligible < constraint.min_domains.max(0) as usize,
                self_match: state.self_match[index],
            }
        })
        .collect()
}
