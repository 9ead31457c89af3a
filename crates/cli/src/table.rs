//! Human-readable rendering of the `simulate` report.

use std::collections::BTreeMap;
use std::fmt::Write;

use spreadlab_engine::scheduler::AffinityRule;

use crate::report::{PodReport, Report};

/// How many node names to list per reason group before summarizing.
const MAX_NODES_LISTED: usize = 6;

/// `key count, key count`, or `-` when empty.
pub(crate) fn list(map: &BTreeMap<String, usize>) -> String {
    if map.is_empty() {
        return "-".to_string();
    }
    map.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn names(nodes: &[String]) -> String {
    if nodes.len() <= MAX_NODES_LISTED {
        nodes.join(", ")
    } else {
        format!(
            "{}, ... ({} more)",
            nodes[..MAX_NODES_LISTED].join(", "),
            nodes.len() - MAX_NODES_LISTED
        )
    }
}

/// Renders the report as text.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "spreadlab simulate: kube-scheduler {} semantics, {} nodes, {} pods: {} placed, {} Pending",
        report.kubernetes_version,
        report.nodes,
        report.summary.pods,
        report.summary.placed,
        report.summary.pending
    );
    if let Some(samples) = report.real_scheduler_samples {
        let _ = writeln!(
            out,
            "note: with {} nodes the scheduler stops after {} feasible nodes (percentageOfNodesToScore) and scores only those, starting where the previous pod's search stopped; spreadlab checks nodes one at a time in the scheduler's node order (kube-scheduler checks 16 at once, so near the stopping point it may find others)",
            report.nodes, samples
        );
    }
    for workload in &report.workloads {
        let _ = writeln!(
            out,
            "\n{}: {} desired, {} running, {} created: {} placed, {} Pending",
            workload.workload,
            workload.desired,
            workload.running,
            workload.created,
            workload.placed,
            workload.pending
        );
        if let Some(like) = &workload.pending_like {
            let _ = writeln!(
                out,
                "  {} of the Pending replicas counted, not simulated: more than could ever fit these nodes, each stays Pending as {like} does",
                workload.not_built
            );
        }
        if workload.adopted > 0 {
            let _ = writeln!(
                out,
                "  {} of the running replicas have no ownerReferences: adopted by the selector, as the controller adopts orphans",
                workload.adopted
            );
        }
        if let Some(revision) = &workload.revision {
            let _ = writeln!(out, "  template revision: {}", revision.describe());
        }
        let zones: BTreeMap<String, usize> = workload
            .per_zone
            .iter()
            .map(|(zone, count)| (crate::output::zone_label(zone).to_owned(), *count))
            .collect();
        let _ = writeln!(out, "  per zone: {}", list(&zones));
        let _ = writeln!(out, "  per node: {}", list(&workload.per_node));
    }
    if !report.pods.is_empty() {
        let width = report
            .pods
            .iter()
            .map(|p| p.namespace.len() + p.name.len() + 1)
            .max()
            .unwrap_or(3)
            .max(3);
        let _ = writeln!(out, "\n{:width$}  {:24}  TIED (top score)", "POD", "NODE");
        for pod in &report.pods {
            let key = format!("{}/{}", pod.namespace, pod.name);
            let node = pod.node.unwrap_or("<Pending>");
            let tied = if pod.tied_nodes.len() > 1 {
                names(pod.tied_nodes)
            } else {
                String::new()
            };
            let _ = writeln!(out, "{key:width$}  {node:24}  {tied}");
            if pod.sampled {
                let _ = writeln!(
                    out,
                    "{:width$}  sampled: scored among the first {} feasible nodes found ({} examined), not all",
                    "", pod.feasible_nodes, pod.evaluated_nodes
                );
            }
            if pod.waiting || pod.nominated_node.is_some() {
                let _ = writeln!(out, "{:width$}  {}", "", queue_note(pod));
            }
            if let Some(preemption) = &pod.preemption {
                let victims = if preemption.victims.is_empty() {
                    String::from("nothing (its victims were already terminating)")
                } else {
                    preemption.victims.join(", ")
                };
                let outcome = if preemption.placed {
                    "preempted"
                } else {
                    "stays Pending, nominated; preempted"
                };
                let _ = writeln!(
                    out,
                    "{:width$}  {outcome} {victims} on {} ({} PDB violations)",
                    "", preemption.nominated_node, preemption.pdb_violations
                );
                if preemption.tied_candidates.len() > 1 {
                    let _ = writeln!(
                        out,
                        "{:width$}  the real scheduler picks at random among equally ranked candidates: {}",
                        "",
                        names(&preemption.tied_candidates)
                    );
                }
                if preemption.candidates_sampled {
                    let _ = writeln!(
                        out,
                        "{:width$}  the real scheduler examines only part of the {} candidates (from a random offset) and may nominate another",
                        "", preemption.candidates
                    );
                }
            }
        }
    }
    for pod in report.pods.iter().filter(|p| p.node.is_none()) {
        render_pending(&mut out, pod);
    }
    // The input's warnings are on standard error already (`input::load_files`); the JSON
    // report carries them, the table does not repeat them.
    out
}

/// Where the pod stood in the queue: already waiting in the input, and the nomination it
/// came with (tried first, `evaluateNominatedNode`).
fn queue_note(pod: &PodReport) -> String {
    let mut note = String::from(if pod.waiting {
        "already waiting in the input"
    } else {
        "new"
    });
    if let Some(nominated) = pod.nominated_node {
        let outcome = match pod.node {
            Some(node) if node == nominated => "it fits there, bound without scoring",
            Some(_) => "it no longer fits there",
            None if pod.nomination_cleared => {
                "it no longer fits there; preemption found no room, nomination cleared"
            }
            None => "it no longer fits there; nomination kept",
        };
        let _ = write!(note, ", nominated to {nominated}: {outcome}");
    }
    note
}

fn render_pending(out: &mut String, pod: &PodReport) {
    let _ = writeln!(out, "\nPending {}/{}:", pod.namespace, pod.name);
    if let Some(message) = &pod.message {
        let _ = writeln!(out, "  {message}");
    }
    if pod.scheduler_error {
        let _ = writeln!(
            out,
            "  (SchedulerError: the cycle stopped at a plugin's error; no preemption was tried, and the scheduler retries the pod after a backoff)"
        );
    }
    let Some(explanation) = &pod.explanation else {
        return;
    };
    // Nodes grouped by the plugin and reasons that rejected them.
    let mut groups: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for node in &explanation.nodes {
        if !node.filter.code.is_rejected() {
            continue;
        }
        let plugin = node
            .filter
            .plugin
            .map_or_else(|| "PreFilter".to_string(), |p| p.as_str().to_string());
        groups
            .entry((plugin, node.filter.reason_strings().join("; ")))
            .or_default()
            .push(node.node.clone());
    }
    if !groups.is_empty() {
        let _ = writeln!(out, "  {:26} {:60} NODES", "PLUGIN", "REASON");
        for ((plugin, reasons), nodes) in &groups {
            let _ = writeln!(
                out,
                "  {plugin:26} {reasons:60} {} ({})",
                nodes.len(),
                names(nodes)
            );
        }
    }
    for term in &explanation.affinity {
        if term.rule == AffinityRule::ExistingAntiAffinity {
            let place = term.matches.first().map(|(_, node, value)| {
                format!(
                    " on {node} ({}={})",
                    term.topology_key,
                    value.as_deref().unwrap_or("-")
                )
            });
            let _ = writeln!(
                out,
                "  required anti-affinity of {}{} {{{}}} selects this pod",
                term.owner.as_deref().unwrap_or("?"),
                place.unwrap_or_default(),
                term.selector
            );
            continue;
        }
        let pods: Vec<String> = term
            .matches
            .iter()
            .map(|(pod, node, value)| {
                format!(
                    "{pod} on {node} ({}={})",
                    term.topology_key,
                    value.as_deref().unwrap_or("-")
                )
            })
            .collect();
        let more = term.match_count.saturating_sub(term.matches.len());
        let _ = writeln!(
            out,
            "  required {} {{{}}} by {}: {} matching pod(s){}{}{}",
            if term.rule == AffinityRule::Affinity {
                "affinity"
            } else {
                "anti-affinity"
            },
            term.selector,
            term.topology_key,
            term.match_count,
            if pods.is_empty() { "" } else { ": " },
            pods.join(", "),
            if more > 0 {
                format!(", ... ({more} more)")
            } else {
                String::new()
            }
        );
    }
    for spread in &explanation.spread {
        let domains: Vec<String> = spread
            .domains
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(
            out,
            "  spread {} maxSkew {} minDomains {} selector {{{}}}: domains [{}], global minimum {}{}, self-match {}",
            spread.topology_key,
            spread.max_skew,
            spread.min_domains,
            spread.selector,
            domains.join(", "),
            spread.global_minimum,
            if spread.min_domains_forced_zero {
                " (forced to 0: fewer domains than minDomains)"
            } else {
                ""
            },
            if spread.self_match { "+1" } else { "0" },
        );
        let _ = writeln!(
            out,
            "    a node passes when matching pods in its domain + {} - {} <= {}",
            u8::from(spread.self_match),
            spread.global_minimum,
            spread.max_skew
        );
    }
}
