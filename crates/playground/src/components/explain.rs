//! Explain: the selected pod's outcome (the exact kube-scheduler message), why each node was
//! rejected, the selected node's verdict and scores, the spread arithmetic drawn as bars, and the
//! controls that rewrite the selected constraint in the text.

use spreadlab_engine::model::{BindingMode, VolumeSummary};
use spreadlab_engine::scheduler::{
    AffinityRule, Explanation, NodeVerdict, PodDecision, SpreadExplanation,
};
use spreadlab_engine::{Code, PluginName};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::edit::{self, Field};
use crate::handles::Dispatch;
use crate::handles::Shared;
use crate::model::{self, Analysis, CHART_DOMAINS, FilterStep};
use crate::state::Action;

/// Props of [`ExplainPanel`].
#[derive(Properties, PartialEq)]
pub struct ExplainProps {
    /// The analysis.
    pub analysis: Shared,
    /// The text (controls read the current values from it).
    pub text: String,
    /// Selected pod.
    pub selected_pod: Option<String>,
    /// Selected node.
    pub selected_node: Option<String>,
    /// Selected constraint index.
    pub constraint: usize,
    /// Dispatch.
    pub dispatch: Dispatch,
}

fn verdict_text(verdict: &NodeVerdict) -> String {
    if verdict.filter.is_success() {
        return "fits".into();
    }
    let plugin = verdict
        .filter
        .plugin
        .map(|p| format!("{p}: "))
        .unwrap_or_default();
    format!("{plugin}{}", verdict.filter.message())
}

fn node_table(decision: &PodDecision) -> Html {
    let Some(explanation) = &decision.explanation else {
        return html! {};
    };
    html! {
        <table class="verdicts" id="node-reasons">
            <caption>{ "Per node" }</caption>
            <thead><tr><th scope="col">{ "node" }</th><th scope="col">{ "filter verdict" }</th><th scope="col">{ "score" }</th></tr></thead>
            <tbody>
            { for explanation.nodes.iter().map(|v| html! {
                <tr class={classes!((!v.filter.is_success()).then_some("rejected"), (decision.node.as_deref() == Some(v.node.as_str())).then_some("chosen"))}>
                    <td>{ v.node.clone() }</td>
                    <td>{ verdict_text(v) }</td>
                    <td>{ v.total.map(|t| t.to_string()).unwrap_or_default() }</td>
                </tr>
            }) }
            </tbody>
        </table>
    }
}

fn node_detail(analysis: &Analysis, decision: &PodDecision, node: &str) -> Html {
    let Some(verdict) = decision
        .explanation
        .as_ref()
        .and_then(|e| e.nodes.iter().find(|v| v.node == node))
    else {
        return html! {};
    };
    html! {
        <div class="node-detail" id="node-detail">
            <h3>{ format!("{} for this pod", node) }</h3>
            <p>{ format!("Filter: {} — {}", verdict.filter.code.as_str(), verdict_text(verdict)) }</p>
            if let Some(steps) = decision.explanation.as_ref()
                .and_then(|e| model::filter_steps(&analysis.options().profile.filters, e, node)) {
                <table class="verdicts" id="filter-steps">
                    <caption>{ "Filter plugins in profile order (the scheduler stops at the first failure)" }</caption>
                    <thead><tr><th scope="col">{ "plugin" }</th><th scope="col">{ "verdict" }</th></tr></thead>
                    <tbody>
                    { for steps.iter().map(|(plugin, step)| html! {
                        <tr class={classes!(matches!(step, FilterStep::Failed(_)).then_some("rejected"))} data-plugin={plugin.to_string()}>
                            <td>{ plugin.to_string() }</td>
                            <td>{ match step {
                                FilterStep::Passed => "passed".to_string(),
                                FilterStep::Failed(reason) => format!("failed — {reason}"),
                                FilterStep::NotRun => "not run".to_string(),
                            } }</td>
                        </tr>
                    }) }
                    </tbody>
                </table>
            }
            if !verdict.scores.is_empty() {
                <table class="verdicts">
                    <thead><tr><th scope="col">{ "plugin" }</th><th scope="col">{ "raw" }</th><th scope="col">{ "normalized" }</th><th scope="col">{ "weighted" }</th></tr></thead>
                    <tbody>
                    { for verdict.scores.iter().map(|s| html! {
                        <tr><td>{ s.plugin.to_string() }</td><td>{ s.raw }</td><td>{ s.normalized }</td><td>{ s.weighted }</td></tr>
                    }) }
                    <tr class="total"><td>{ "total" }</td><td></td><td></td><td>{ verdict.total.unwrap_or_default() }</td></tr>
                    </tbody>
                </table>
            }
        </div>
    }
}

/// Whether the engine rejected a node of `domain` (under `key`) with PodTopologySpread.
fn spread_rejected(analysis: &Analysis, decision: &PodDecision, key: &str, domain: &str) -> bool {
    let Some(explanation) = &decision.explanation else {
        return false;
    };
    analysis
        .loaded
        .cluster
        .nodes
        .iter()
        .filter(|n| n.labels.get(key).map(String::as_str) == Some(domain))
        .any(|n| {
            explanation
                .nodes
                .iter()
                .any(|v| v.node == n.name && v.filter.plugin == Some(PluginName::PodTopologySpread))
        })
}

/// The spread arithmetic of one constraint as an SVG bar chart: the engine's matching-pod count
/// per eligible domain, the global minimum, the limit (global minimum + maxSkew) and the
/// candidate's +1 (self-match). Domains the engine rejected for spread are red. The lessons
/// draw their evidence with it too.
pub(crate) fn spread_chart(
    analysis: &Analysis,
    decision: &PodDecision,
    spread: &SpreadExplanation,
    index: usize,
    selected_node: Option<&str>,
) -> Html {
    let self_match = i64::from(spread.self_match);
    let limit = spread.limit;
    let candidate = decision
        .node
        .as_deref()
        .or(selected_node)
        .and_then(|n| model::node_domain(analysis, n, &spread.topology_key));
    let chart = model::chart_domains(spread, candidate.as_deref(), CHART_DOMAINS);
    let top = chart
        .shown
        .iter()
        .map(|(_, c)| c + self_match)
        .chain([limit, 1])
        .max()
        .unwrap_or(1)
        + 1;
    let domains: Vec<(&String, &i64)> = chart.shown.iter().map(|(d, c)| (d, c)).collect();
    // Bars on the left, line labels in a margin on the right.
    let width = 344.0;
    let plot = 236.0;
    let height = 150.0;
    let base = height - 28.0;
    let scale = (base - 10.0) / top as f64;
    let slot = plot / domains.len().max(1) as f64;
    let y = |value: i64| base - value as f64 * scale;
    let title = format!(
        "{}: maxSkew {}, minDomains {}{}, global minimum {}",
        spread.topology_key,
        spread.max_skew,
        spread.min_domains,
        if spread.min_domains_forced_zero {
            " (fewer eligible domains: minimum forced to 0)"
        } else {
            ""
        },
        spread.global_minimum
    );
    html! {
        <figure class="spread" data-constraint={index.to_string()}>
            <figcaption>{ title.clone() }</figcaption>
            <svg viewBox={format!("0 0 {width} {height}")} role="img" aria-label={title}>
                { for domains.iter().enumerate().map(|(i, (name, count))| {
                    let x = i as f64 * slot + slot * 0.2;
                    let w = slot * 0.6;
                    let rejected = spread_rejected(analysis, decision, &spread.topology_key, name);
                    html! {
                        <g class={classes!("domain", rejected.then_some("rejected"))} data-domain={(*name).clone()}>
                            <rect class="count" x={x.to_string()} y={y(**count).to_string()} width={w.to_string()}
                                height={(**count as f64 * scale).to_string()} />
                            if spread.self_match {
                                <rect class="plus-one" x={x.to_string()} y={y(**count + 1).to_string()} width={w.to_string()}
                                    height={scale.to_string()} />
                            }
                            <text x={(x + w / 2.0).to_string()} y={(y(**count + self_match) - 3.0).to_string()} class="value">{ **count }</text>
                            <text x={(x + w / 2.0).to_string()} y={(height - 12.0).to_string()} class="domain-name">
                                { if name.len() > 14 { format!("…{}", &name[name.len() - 12..]) } else { (*name).clone() } }
                            </text>
                        </g>
                    }
                }) }
                <line class="minimum" x1="0" x2={plot.to_string()} y1={y(spread.global_minimum).to_string()} y2={y(spread.global_minimum).to_string()} />
                <text class="line-label" x={(plot + 4.0).to_string()} y={(y(spread.global_minimum) + 10.0).to_string()}>{ format!("global min {}", spread.global_minimum) }</text>
                <line class="limit" x1="0" x2={plot.to_string()} y1={y(limit).to_string()} y2={y(limit).to_string()} />
                <text class="line-label limit-label" x={(plot + 4.0).to_string()} y={(y(limit) - 2.0).to_string()} data-limit={limit.to_string()}>{ format!("limit {limit}") }</text>
                <text class="line-label" x={(plot + 4.0).to_string()} y={(y(limit) + 8.0).to_string()}>{ "= min + maxSkew" }</text>
            </svg>
            if chart.hidden > 0 {
                <p class="muted more-domains">{ format!("{} more domain(s) not drawn (shown: {}{}the fewest and the fullest).",
                    chart.hidden, CHART_DOMAINS, candidate.as_ref().map(|c| format!(" incl. the candidate {c}, ")).unwrap_or_else(|| ", ".into())) }</p>
            }
            <p class="formula">{ format!("A domain is allowed when its count{} − {} ≤ {}.",
                if spread.self_match { " + 1 (the pod matches its own selector)" } else { "" },
                spread.global_minimum, spread.max_skew) }</p>
        </figure>
    }
}

/// PreFilter plugins that rejected the pod (then no node is filtered at all).
fn pre_filter_view(explanation: &Explanation) -> Html {
    let rejected: Vec<_> = explanation
        .pre_filter
        .iter()
        .filter(|(_, s)| !s.is_success() && s.code != Code::Skip)
        .collect();
    if rejected.is_empty() {
        return html! {};
    }
    html! {
        <div class="pre-filter" id="pre-filter">
            <h3>{ "Rejected in PreFilter (before any node was checked)" }</h3>
            <ul>{ for rejected.iter().map(|(plugin, status)| html! {
                <li>{ format!("{plugin}: {} — {}", status.code.as_str(), status.message()) }</li>
            }) }</ul>
        </div>
    }
}

/// Soft (ScheduleAnyway) spread constraints: the counts scoring used (they never reject).
fn soft_spread_view(explanation: &Explanation) -> Html {
    if explanation.soft_spread.is_empty() {
        return html! {};
    }
    html! {
        <div class="soft-spread" id="soft-spread">
            <h3>{ "ScheduleAnyway spread (scores only, never rejects)" }</h3>
            { for explanation.soft_spread.iter().map(|s| {
                let (shown, hidden) = model::bounded(s.domains.len(), CHART_DOMAINS);
                html! {
                    <p>{ format!("{} (maxSkew {}, {}): matching pods per domain {}{} — fewer scores higher.",
                        s.topology_key, s.max_skew, s.selector,
                        s.domains.iter().take(shown).map(|(d, c)| format!("{d}: {c}")).collect::<Vec<_>>().join(", "),
                        if hidden > 0 { format!(" (+{hidden} more)") } else { String::new() }) }</p>
                }
            }) }
        </div>
    }
}

/// The required pod (anti-)affinity terms and the existing pods that matched them.
fn affinity_view(explanation: &Explanation) -> Html {
    if explanation.affinity.is_empty() {
        return html! {};
    }
    html! {
        <div class="affinity" id="affinity">
            <h3>{ "Required pod (anti-)affinity" }</h3>
            { for explanation.affinity.iter().map(|a| html! {
                <div class="term">
                    <p>{ format!("{} on {} ({}): {} matching pod(s)",
                        match a.rule {
                            AffinityRule::Affinity => "Affinity term".to_string(),
                            AffinityRule::AntiAffinity => "Anti-affinity term".to_string(),
                            AffinityRule::ExistingAntiAffinity => format!("Anti-affinity of {}", a.owner.clone().unwrap_or_default()),
                        },
                        a.topology_key, a.selector, a.match_count) }</p>
                    <ul>{ for a.matches.iter().map(|(pod, node, value)| html! {
                        <li>{ format!("{pod} on {node}{}", value.as_ref().map(|v| format!(" ({}={v})", a.topology_key)).unwrap_or_default()) }</li>
                    }) }
                    if a.match_count > a.matches.len() { <li class="muted">{ format!("… {} more", a.match_count - a.matches.len()) }</li> }
                    </ul>
                </div>
            }) }
        </div>
    }
}

/// Constraints listed in the controls' menu, and `replicas:` lines given a control, at most (a
/// snapshot of thousands of pods has a constraint per pod: a longer menu is of no use).
const MAX_LISTED_SITES: usize = 200;

/// The controls' sites in the text: read once per text, not per render (a pasted snapshot can
/// be tens of megabytes).
#[hook]
fn use_sites(text: &str) -> std::rc::Rc<Sites> {
    use_memo(text.to_string(), |text| {
        let replicas = edit::replicas(text);
        Sites {
            constraints: edit::constraints(text),
            strategies: edit::strategies(text, &replicas),
            replicas,
        }
    })
}

/// Every constraint, `replicas:` line and written rollout strategy of a text.
struct Sites {
    constraints: Vec<edit::ConstraintSite>,
    replicas: Vec<edit::ReplicasSite>,
    strategies: Vec<Option<String>>,
}

fn controls(props: &ExplainProps, all: &Sites) -> Html {
    let sites = &all.constraints;
    let replicas = &all.replicas;
    let dispatch = props.dispatch.clone();
    let select = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(index) = select.value().parse() {
                dispatch.dispatch(Action::SelectConstraint(index));
            }
        })
    };
    let site = sites.get(props.constraint);
    let number = |field: Field, min: i64| {
        let dispatch = dispatch.clone();
        let value = site.and_then(|s| s.get(field)).unwrap_or("").to_string();
        let id = format!("ctl-{}", field.key());
        html! {
            <label for={id.clone()}>{ field.key() }
                <input id={id} type="number" min={min.to_string()} value={value} placeholder="unset"
                    onchange={Callback::from(move |e: Event| {
                        let input: HtmlInputElement = e.target_unchecked_into();
                        let value = input.value();
                        dispatch.dispatch(Action::SetField(field, (!value.trim().is_empty()).then_some(value)));
                    })} />
            </label>
        }
    };
    let choice = |field: Field, options: &[&'static str], default: &'static str| {
        let dispatch = dispatch.clone();
        let value = site.and_then(|s| s.get(field)).unwrap_or("").to_string();
        let id = format!("ctl-{}", field.key());
        html! {
            <label for={id.clone()}>{ field.key() }
                <select id={id} onchange={Callback::from(move |e: Event| {
                    let select: HtmlSelectElement = e.target_unchecked_into();
                    let value = select.value();
                    dispatch.dispatch(Action::SetField(field, (!value.is_empty()).then_some(value)));
                })}>
                    <option value="" selected={value.is_empty()}>{ format!("unset ({default})") }</option>
                    { for options.iter().map(|o| html! { <option value={*o} selected={value == *o}>{ *o }</option> }) }
                </select>
            </label>
        }
    };
    let keys = {
        let dispatch = dispatch.clone();
        let present = site.and_then(|s| s.get(Field::MatchLabelKeys)).is_some();
        html! {
            <label for="ctl-matchLabelKeys" class="check">
                <input id="ctl-matchLabelKeys" type="checkbox" checked={present}
                    onchange={Callback::from(move |e: Event| {
                        let input: HtmlInputElement = e.target_unchecked_into();
                        let value = input.checked().then(|| "[pod-template-hash]".to_string());
                        dispatch.dispatch(Action::SetField(Field::MatchLabelKeys, value));
                    })} />
                { "matchLabelKeys: [pod-template-hash]" }
            </label>
        }
    };
    html! {
        <div class="controls" id="controls">
            <h2>{ "Change the rules" }</h2>
            <p class="muted">{ "Each control rewrites the text; the engine re-reads it." }</p>
            if sites.is_empty() {
                <p class="muted">{ "No topologySpreadConstraints in the text." }</p>
            } else {
                <label for="ctl-constraint">{ "Constraint" }
                    <select id="ctl-constraint" onchange={select}>
                        { for sites.iter().enumerate()
                            .filter(|(i, _)| *i < MAX_LISTED_SITES || *i == props.constraint)
                            .map(|(i, s)| html! {
                                <option value={i.to_string()} selected={i == props.constraint}>{ s.label() }</option>
                            }) }
                    </select>
                </label>
                if sites.len() > MAX_LISTED_SITES {
                    <p class="muted" id="constraints-listed">{ format!(
                        "{} constraints in the text (a snapshot's pods included): the first {MAX_LISTED_SITES} are listed.",
                        sites.len()) }</p>
                }
                <div class="control-grid">
                    { number(Field::MaxSkew, 1) }
                    { number(Field::MinDomains, 1) }
                    { choice(Field::WhenUnsatisfiable, &["DoNotSchedule", "ScheduleAnyway"], "required") }
                    { choice(Field::NodeAffinityPolicy, &["Honor", "Ignore"], "Honor") }
                    { choice(Field::NodeTaintsPolicy, &["Honor", "Ignore"], "Ignore") }
                    { keys }
                </div>
            }
            if replicas.len() > MAX_LISTED_SITES {
                <p class="muted" id="replicas-listed">{ format!(
                    "{} replicas fields in the text: the first {MAX_LISTED_SITES} have controls.",
                    replicas.len()) }</p>
            }
            { for replicas.iter().take(MAX_LISTED_SITES).enumerate().map(|(i, r)| {
                let dispatch = dispatch.clone();
                let strategy_dispatch = dispatch.clone();
                let id = format!("ctl-replicas-{i}");
                let strategy_id = format!("ctl-strategy-{i}");
                let written = all.strategies.get(i).cloned().flatten();
                let is_deployment = r.owner.starts_with("Deployment/");
                html! {
                    <div class="control-grid">
                    <label for={id.clone()}>{ format!("replicas of {}", r.owner) }
                        <input id={id} type="number" min="0" value={r.value.to_string()}
                            onchange={Callback::from(move |e: Event| {
                                let input: HtmlInputElement = e.target_unchecked_into();
                                if let Ok(value) = input.value().parse() {
                                    dispatch.dispatch(Action::SetReplicas(i, value));
                                }
                            })} />
                    </label>
                    if is_deployment {
                        <label for={strategy_id.clone()}>{ "strategy" }
                            <select id={strategy_id} onchange={Callback::from(move |e: Event| {
                                let select: HtmlSelectElement = e.target_unchecked_into();
                                let value = select.value();
                                strategy_dispatch.dispatch(Action::SetStrategy(i, (!value.is_empty()).then_some(value)));
                            })}>
                                <option value="" selected={written.is_none()}>{ "unset (RollingUpdate 25%/25%)" }</option>
                                if let Some(other) = written.clone().filter(|w| !edit::STRATEGIES.iter().any(|(_, v)| v == w)) {
                                    <option value={other.clone()} selected=true>{ other }</option>
                                }
                                { for edit::STRATEGIES.iter().map(|(label, value)| html! {
                                    <option value={*value} selected={written.as_deref() == Some(*value)}>{ *label }</option>
                                }) }
                            </select>
                        </label>
                    }
                    </div>
                }
            }) }
        </div>
    }
}

/// The pod's claim volumes: the claim, its class and where its volume can be used (a pinned
/// volume is why a pod cannot move).
fn volumes_view(volumes: &[VolumeSummary]) -> Html {
    if volumes.is_empty() {
        return Html::default();
    }
    let row = |v: &VolumeSummary| {
        let claim = match (v.exists, v.from_template) {
            (true, _) => v.claim.clone(),
            (false, true) => format!("{} (made from the template)", v.claim),
            (false, false) => format!("{} (missing)", v.claim),
        };
        let mode = match v.binding_mode {
            Some(BindingMode::Immediate) => " (binds at once)",
            Some(BindingMode::WaitForFirstConsumer) => " (waits for the first consumer)",
            None => "",
        };
        let lives = match (&v.bound_to, &v.pinned_to) {
            (None, _) => "not bound yet".to_string(),
            (Some(volume), None) => format!("bound to {volume}, which does not exist"),
            (Some(volume), Some(terms)) if terms.is_empty() => {
                format!("{volume}: usable on any node")
            }
            (Some(volume), Some(terms)) => {
                format!("{volume}: only on nodes with {}", terms.join(", or "))
            }
        };
        html! {
            <tr>
                <td>{ v.volume.clone() }</td>
                <td>{ claim }</td>
                <td>{ format!("{}{mode}", if v.class.is_empty() { "(none)" } else { &v.class }) }</td>
                <td class="volume-where">{ lives }</td>
            </tr>
        }
    };
    html! {
        <div class="volumes" id="pod-volumes">
            <h3>{ "Volumes" }</h3>
            <table>
                <thead><tr><th>{ "volume" }</th><th>{ "claim" }</th><th>{ "class" }</th><th>{ "where it lives" }</th></tr></thead>
                <tbody>{ for volumes.iter().map(row) }</tbody>
            </table>
        </div>
    }
}

/// The Explain panel.
#[function_component(ExplainPanel)]
pub fn explain_panel(props: &ExplainProps) -> Html {
    let sites = use_sites(&props.text);
    let analysis = &props.analysis.0;
    // The selected pod's decision with its per-node detail (computed on first selection).
    let explained = props
        .selected_pod
        .as_deref()
        .and_then(|key| analysis.explained_pod(key));
    let decision = explained.as_deref();
    let pod_view = match (props.selected_pod.as_deref(), decision) {
        (None, _) => html! {
            <p class="muted" id="pod-help">{
                match (&props.selected_node, analysis.pending.is_empty()) {
                    (Some(node), _) => format!("Node {node} selected: now click a pod to see every plugin's verdict and score for it on {node}."),
                    (None, true) => "Click a pod to see where and why it was placed.".to_string(),
                    (None, false) => "Click a Pending pod (top of the cluster) to see exactly why.".to_string(),
                }
            }</p>
        },
        (Some(key), None) => {
            html! { <p id="pod-message">{ format!("{key} was already running in the snapshot.") }</p> }
        }
        (Some(key), Some(decision)) => html! {
            <div class="pod">
                <h2>{ key.to_string() }</h2>
                if let Some(node) = &decision.node {
                    <p id="pod-message" class="placed">{ format!("Placed on {node}") }
                        { if decision.tied_count > 1 { format!(" ({} nodes tied at the top score; the real scheduler picks any of them)", decision.tied_count) } else { String::new() } }
                    </p>
                }
                if let Some(message) = &decision.message {
                    <p class="message-label">{ if decision.node.is_some() { "First attempt:" } else { "Pending — kube-scheduler's message:" } }</p>
                    <pre id="pod-message-text" class="message">{ message.clone() }</pre>
                }
                if decision.waiting || decision.nominated_node.is_some() {
                    <p class="muted" id="queue-note">{
                        match (&decision.nominated_node, &decision.node) {
                            (Some(nominated), Some(node)) if nominated == node => format!("Already waiting in the snapshot, nominated to {nominated}: it fits there, so the scheduler binds it there without scoring other nodes."),
                            (Some(nominated), _) => format!("Already waiting in the snapshot, nominated to {nominated}: tried there first; it no longer fits, so every node was checked."),
                            (None, _) => "Already waiting in the snapshot: it is scheduled before new pods of its priority (oldest first).".to_string(),
                        }
                    }</p>
                }
                if let Some(samples) = decision.real_scheduler_samples {
                    <p class="muted" id="samples-note">{ format!("With {} nodes the scheduler stops after finding {samples} feasible nodes (percentageOfNodesToScore) and scores only those: it examined {} nodes, from where the previous pod's search stopped, and kept {} feasible (one node at a time, as kube-scheduler with parallelism 1; with its default 16 workers it may find others near the stopping point).", analysis.node_count, decision.evaluated_nodes, decision.feasible_nodes) }</p>
                }
                if let Some(preemption) = &decision.preemption {
                    <div class="preemption" id="preemption">
                        <h3>{ "Preemption" }</h3>
                        <p>{ format!("Nominated node {}; evicts {} victim(s){}.", preemption.nominated_node, preemption.victims.len(),
                            if preemption.pdb_violations > 0 { format!(", {} of them against a PodDisruptionBudget", preemption.pdb_violations) } else { String::new() }) }</p>
                        <ul>{ for preemption.victims.iter().map(|v| html! { <li>{ v.clone() }</li> }) }</ul>
                        if preemption.tied_candidates.len() > 1 {
                            <p class="muted">{ format!("Tied candidates (the real scheduler may nominate any): {}", preemption.tied_candidates.join(", ")) }</p>
                        }
                        if preemption.candidates_sampled {
                            <p class="muted">{ format!("{} candidate nodes: the real scheduler examines only a random subset, so it may nominate another node.", preemption.candidates) }</p>
                        }
                    </div>
                }
                { volumes_view(&analysis.settled.volume_summaries(&decision.namespace, &decision.name)) }
                if let Some(node) = &props.selected_node { { node_detail(analysis, decision, node) } }
                if let Some(explanation) = &decision.explanation {
                    { pre_filter_view(explanation) }
                    { for explanation.spread.iter().enumerate().map(|(i, s)| spread_chart(analysis, decision, s, i, props.selected_node.as_deref())) }
                    { soft_spread_view(explanation) }
                    { affinity_view(explanation) }
                }
                { node_table(decision) }
            </div>
        },
    };
    html! {
        <div class="explain">
            { pod_view }
            { controls(props, &sites) }
        </div>
    }
}
