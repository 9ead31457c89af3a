//! What-if: fail a zone or node (removed or unreachable), step through a rollout, capacity
//! headroom, tie-break risk and lint findings. Every figure comes from `spreadlab_engine::analysis`.

use std::cell::RefCell;
use std::rc::Rc;

use spreadlab_engine::KubeVersion;
use spreadlab_engine::analysis::capacity::CapacityReport;
use spreadlab_engine::analysis::failure::FailureReport;
use spreadlab_engine::analysis::lint::Finding;
use spreadlab_engine::analysis::rollout::RolloutReport;
use spreadlab_engine::analysis::tie_break;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::browser::now_ms;
use crate::components::pictures;
use crate::handles::{Dispatch, Shared};
use crate::model::Analysis;
use crate::state::{Action, FailMode, FailTarget, WhatIfView};
use crate::whatif;

/// Props of [`WhatIfPanel`].
#[derive(Properties, PartialEq)]
pub struct WhatIfProps {
    /// The analysis.
    pub analysis: Shared,
    /// The failure asked for.
    pub fail: Option<FailTarget>,
    /// Its mode.
    pub mode: FailMode,
    /// Rollout timeline position.
    pub rollout_step: usize,
    /// Which analysis is shown (the only one computed).
    pub view: WhatIfView,
    /// Results kept across re-renders and tab switches.
    pub cache: Cache,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// One kept result: the text (and parameters) it is for, the result, and its time in ms.
type Slot<K, T> = Option<(Rc<str>, K, Rc<T>, f64)>;

/// The What-if results, each kept for the scenario text, release and parameters it was computed
/// for, so only the analysis on screen runs, once per (text, release, parameters).
#[derive(Default)]
pub struct WhatIfCache {
    failure: Slot<(KubeVersion, FailTarget, FailMode), FailureReport>,
    rollout: Slot<KubeVersion, Vec<RolloutReport>>,
    capacity: Slot<KubeVersion, Vec<CapacityReport>>,
    lint: Slot<KubeVersion, Vec<Finding>>,
}

/// The shared cache handle (compared by identity).
#[derive(Clone, Default)]
pub struct Cache(pub Rc<RefCell<WhatIfCache>>);

impl PartialEq for Cache {
    fn eq(&self, other: &Cache) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The kept result for (`text`, `key`), or `compute`'s, timed and kept.
fn cached<K: PartialEq, T>(
    slot: &mut Slot<K, T>,
    text: &Rc<str>,
    key: K,
    compute: impl FnOnce() -> T,
) -> (Rc<T>, f64) {
    if let Some((t, k, value, ms)) = slot.as_ref()
        && (Rc::ptr_eq(t, text) || **t == **text)
        && *k == key
    {
        return (value.clone(), *ms);
    }
    let started = now_ms();
    let value = Rc::new(compute());
    let ms = now_ms() - started;
    *slot = Some((text.clone(), key, value.clone(), ms));
    (value, ms)
}

/// ` (zone: n, ...)`, or nothing when no pod is placed in any zone.
fn zones_text(zones: &std::collections::BTreeMap<String, usize>) -> String {
    if zones.is_empty() {
        return String::new();
    }
    let list = zones
        .iter()
        .map(|(z, n)| format!("{z}: {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(" ({list})")
}

fn failure_view(analysis: &Analysis, report: &FailureReport) -> Html {
    html! {
        <div class="failure" id="failure-report">
            <p>{ format!("{} ({}): {} node(s) fail, {} pod(s) gone.", report.domain.describe(), report.mode.as_str(), report.failed_nodes.len(), report.pods_gone) }</p>
            { for whatif::failure_pictures(analysis, report).iter().enumerate().map(|(i, p)| pictures::failure(p, i)) }
            { for report.workloads.iter().map(|w| html! {
                <div class="impact">
                    <h4>{ w.workload.clone() }</h4>
                    <p>{ format!("{} desired; {} running before{}; {} lost; {} running after{}.",
                        w.desired, w.running_before, zones_text(&w.zones_before), w.lost.len(), w.running_after, zones_text(&w.zones_after)) }</p>
                    <ul>
                        { for w.replacements.iter().map(|r| html! {
                            <li class={classes!(r.node.is_none().then_some("pending"))}>
                                { match (&r.node, &r.message) {
                                    (Some(node), _) => format!("replacement for {} → {} ({})", r.replaces, node, r.zone.clone().unwrap_or_default()),
                                    (None, Some(message)) => format!("replacement for {} Pending: {}", r.replaces, message),
                                    (None, None) => format!("replacement for {} Pending", r.replaces),
                                } }
                            </li>
                        }) }
                    </ul>
                </div>
            }) }
            { for report.pdbs.iter().map(|p| html! {
                <p class={classes!(p.violated.then_some("pending"))}>{ format!("PodDisruptionBudget {}: {} evicted, {} allowed{}", p.pdb, p.evicted, p.disruptions_allowed, if p.violated { " — violated" } else { "" }) }</p>
            }) }
            if !report.recovery.running.is_empty() {
                <p>{ format!("After the domain comes back: {} running ({}); the scheduler does not rebalance.",
                    report.recovery.running.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "),
                    report.recovery.zones.iter().map(zones_text).collect::<Vec<_>>().join(" | ")) }</p>
            }
        </div>
    }
}

/// An element id of the `index`-th rollout on the page: `base` for the first, `base-index` after
/// (a scenario with several Deployments shows several rollouts; ids stay unique).
fn rollout_id(base: &str, index: usize) -> String {
    if index == 0 {
        base.to_string()
    } else {
        format!("{base}-{index}")
    }
}

fn rollout_view(index: usize, report: &RolloutReport, step: usize, dispatch: &Dispatch) -> Html {
    let outcome = &report.outcome;
    let last = outcome.steps.len().saturating_sub(1);
    let step = step.min(last);
    let dispatch = dispatch.clone();
    let current = outcome.steps.get(step);
    let picture_dispatch = dispatch.clone();
    html! {
        <div class="rollout" id={rollout_id("rollout", index)}>
            <h4>{ report.workload.clone() }</h4>
            <p class={classes!(if outcome.completed { "placed" } else { "pending" })} id={rollout_id("rollout-outcome", index)}>
                { if outcome.completed { format!("Completes in {} steps; fewest available: {}.", outcome.steps.len(), outcome.min_available) }
                  else { format!("Stalls at step {}: {}", outcome.stalled_at_step.unwrap_or(step) + 1, outcome.reason.clone().unwrap_or_default()) } }
            </p>
            { pictures::rollout(&rollout_id("rollout-picture", index), &crate::pictures::rollout(report), Some(step), Some(&picture_dispatch)) }
            if !outcome.steps.is_empty() {
                <label for={rollout_id("rollout-step", index)}>{ format!("Step {} of {}", step + 1, last + 1) }
                    <input id={rollout_id("rollout-step", index)} type="range" min="0" max={last.to_string()} value={step.to_string()}
                        oninput={Callback::from(move |e: InputEvent| {
                            let input: HtmlInputElement = e.target_unchecked_into();
                            if let Ok(value) = input.value().parse() { dispatch.dispatch(Action::RolloutStep(value)); }
                        })} />
                </label>
            }
            if let Some(s) = current {
                <div class="step">
                    <p>{ format!("t = {} s · available {} · new: {} running, {} Pending{} · old: {} running, {} terminating{}",
                        s.time, s.available, s.new.running, s.new.pending, zones_text(&s.new.zones), s.old.running, s.old.terminating, zones_text(&s.old.zones)) }</p>
                    <ul>{ for s.actions.iter().map(|a| html! { <li>{ a.clone() }</li> }) }</ul>
                    { for s.pending.iter().map(|(pod, message)| html! { <p class="pending">{ format!("{pod} Pending: {message}") }</p> }) }
                </div>
            }
            { for report.alternatives.iter().zip(crate::pictures::alternatives(report)).enumerate().map(|(i, (a, picture))| html! {
                <>
                    <p class="alternative">{ format!("Alternative — {}: {}; at least {} of {} available throughout", a.change, if a.outcome.completed { "completes".to_string() } else { format!("stalls ({})", a.outcome.reason.clone().unwrap_or_default()) }, a.outcome.min_available, report.replicas) }</p>
                    { pictures::rollout(&format!("{}-{i}", rollout_id("rollout-alternative", index)), &picture, None, None) }
                </>
            }) }
        </div>
    }
}

/// The What-if panel: a row of views, and only the open one is computed.
#[function_component(WhatIfPanel)]
pub fn whatif_panel(props: &WhatIfProps) -> Html {
    let analysis = props.analysis.clone();
    let a = &analysis.0;
    let text = a.text.clone();
    let dispatch = props.dispatch.clone();
    let risk = use_state(|| None::<(Shared, Rc<Vec<tie_break::RiskReport>>, f64)>);
    let views = [
        (WhatIfView::Failure, "Failure", "wi-failure"),
        (WhatIfView::Rollout, "Rollout", "wi-rollout"),
        (WhatIfView::Capacity, "Capacity", "wi-capacity"),
        (WhatIfView::Risk, "Tie-break risk", "wi-risk"),
        (WhatIfView::Lint, "Lint", "wi-lint"),
    ];
    let nav = html! {
        <div class="subtabs" role="group" aria-label="What-if analyses">
            { for views.iter().map(|(view, label, id)| {
                let dispatch = dispatch.clone();
                let view = *view;
                let selected = props.view == view;
                html! {
                    <button id={*id} class={classes!("subtab", selected.then_some("active"))} aria-pressed={selected.to_string()}
                        onclick={Callback::from(move |_| dispatch.dispatch(Action::ShowWhatIf(view)))}>{ *label }</button>
                }
            }) }
        </div>
    };
    let timed = |ms: f64, body: Html| {
        html! { <div class="whatif-body" data-ms={format!("{ms:.1}")}>{ body }</div> }
    };
    let content = match props.view {
        WhatIfView::Failure => {
            let fail_zone = |zone: String| {
                let dispatch = dispatch.clone();
                let selected = props.fail == Some(FailTarget::Zone(zone.clone()));
                let label = format!("Fail {zone}");
                let attr = zone.clone();
                html! {
                    <button class={classes!("fail", selected.then_some("active"))} data-fail-zone={attr} aria-pressed={selected.to_string()}
                        onclick={Callback::from(move |_| dispatch.dispatch(Action::Fail(if selected { None } else { Some(FailTarget::Zone(zone.clone())) })))}>
                        { label }
                    </button>
                }
            };
            let mode_select = {
                let dispatch = dispatch.clone();
                Callback::from(move |e: Event| {
                    let select: HtmlSelectElement = e.target_unchecked_into();
                    dispatch.dispatch(Action::SetFailMode(if select.value() == "unreachable" {
                        FailMode::Unreachable
                    } else {
                        FailMode::Removed
                    }));
                })
            };
            let node_select = {
                let dispatch = dispatch.clone();
                Callback::from(move |e: Event| {
                    let select: HtmlSelectElement = e.target_unchecked_into();
                    let value = select.value();
                    dispatch.dispatch(Action::Fail(
                        (!value.is_empty()).then_some(FailTarget::Node(value)),
                    ));
                })
            };
            let failed_node = match &props.fail {
                Some(FailTarget::Node(n)) => n.clone(),
                _ => String::new(),
            };
            let (report, ms) = match &props.fail {
                Some(target) => {
                    let (report, ms) = cached(
                        &mut props.cache.0.borrow_mut().failure,
                        &text,
                        (a.version, target.clone(), props.mode),
                        || whatif::failure_report(a, target, props.mode),
                    );
                    (Some(report), ms)
                }
                None => (None, 0.0),
            };
            timed(
                ms,
                html! {
                    <section aria-labelledby="h-fail">
                        <h2 id="h-fail">{ "Fail a zone or node" }</h2>
                        <div class="row">
                            <label for="fail-mode">{ "Mode " }
                                <select id="fail-mode" onchange={mode_select}>
                                    <option value="removed" selected={props.mode == FailMode::Removed}>{ "removed from the cluster" }</option>
                                    <option value="unreachable" selected={props.mode == FailMode::Unreachable}>{ "unreachable (tainted, still counted)" }</option>
                                </select>
                            </label>
                        </div>
                        <div class="row">{ for a.zones.iter().map(|z| fail_zone(z.name.clone())) }</div>
                        <label for="fail-node">{ "or a node " }
                            <select id="fail-node" onchange={node_select}>
                                <option value="" selected={failed_node.is_empty()}>{ "—" }</option>
                                { for a.loaded.cluster.nodes.iter().map(|n| html! { <option value={n.name.clone()} selected={n.name == failed_node}>{ n.name.clone() }</option> }) }
                            </select>
                        </label>
                        { report.as_deref().map(|r| failure_view(a, r)).unwrap_or_default() }
                    </section>
                },
            )
        }
        WhatIfView::Rollout => {
            let (rollouts, ms) = cached(
                &mut props.cache.0.borrow_mut().rollout,
                &text,
                a.version,
                || whatif::rollout_reports(a),
            );
            timed(
                ms,
                html! {
                    <section aria-labelledby="h-rollout">
                        <h2 id="h-rollout">{ "Rollout" }</h2>
                        if rollouts.is_empty() { <p class="muted">{ "No Deployment or StatefulSet to roll out." }</p> }
                        { for rollouts.iter().enumerate().map(|(i, r)| rollout_view(i, r, props.rollout_step, &props.dispatch)) }
                    </section>
                },
            )
        }
        WhatIfView::Capacity => {
            let (capacities, ms) = cached(
                &mut props.cache.0.borrow_mut().capacity,
                &text,
                a.version,
                || whatif::capacity_reports(a),
            );
            timed(
                ms,
                html! {
                    <section aria-labelledby="h-capacity">
                        <h2 id="h-capacity">{ "Capacity headroom" }</h2>
                        { for whatif::capacity_pictures(a, &capacities).iter().enumerate().map(|(i, p)| pictures::capacity(p, i)) }
                        <ul id="capacity">
                        { for capacities.iter().map(|c| html! {
                            <li>{ format!("{}: {} more replica(s) fit{}{}", c.workload, c.additional,
                                if c.bounded { format!(" (stopped at {})", whatif::CAPACITY_BOUND) } else { String::new() },
                                c.limit.map(|l| format!("; then limited by {}", l.as_str())).unwrap_or_default()) }
                                if let Some(m) = &c.message { <pre class="message">{ m.clone() }</pre> }
                            </li>
                        }) }
                        </ul>
                    </section>
                },
            )
        }
        WhatIfView::Risk => {
            let current = risk
                .as_ref()
                .filter(|(r, _, _)| *r == analysis)
                .map(|(_, r, ms)| (r.clone(), *ms));
            let run_risk = {
                let risk = risk.clone();
                let analysis = analysis.clone();
                Callback::from(move |_| {
                    let started = now_ms();
                    let reports = whatif::risk_reports(&analysis.0);
                    risk.set(Some((
                        analysis.clone(),
                        Rc::new(reports),
                        now_ms() - started,
                    )));
                })
            };
            timed(
                current.as_ref().map_or(0.0, |c| c.1),
                html! {
                    <section aria-labelledby="h-risk">
                        <h2 id="h-risk">{ "Tie-break risk" }</h2>
                        <button id="run-risk" onclick={run_risk}>{ format!("Run {} seeded tie-breaks", whatif::RISK_RUNS) }</button>
                        if let Some((reports, _)) = current.clone() {
                            { for reports.iter().enumerate().map(|(i, r)| pictures::risk(&crate::pictures::risk(r), i)) }
                        }
                        if let Some((reports, _)) = current {
                            <ul id="risk">
                            { for reports.iter().map(|r| html! {
                                <li>{ format!("{}: most per node {} · most per zone {} · runs losing over half to one node {} / one zone {} · runs with Pending {} (of {})",
                                    r.workload,
                                    r.max_per_node.keys().max().copied().unwrap_or(0),
                                    r.max_per_zone.keys().max().copied().unwrap_or(0),
                                    r.node_loss_over_half, r.zone_loss_over_half, r.runs_with_pending, r.runs) }</li>
                            }) }
                            </ul>
                        }
                    </section>
                },
            )
        }
        WhatIfView::Lint => {
            let (findings, ms) = cached(
                &mut props.cache.0.borrow_mut().lint,
                &text,
                a.version,
                || whatif::lint_findings(a),
            );
            timed(
                ms,
                html! {
                    <section aria-labelledby="h-lint">
                        <h2 id="h-lint">{ "Lint" }</h2>
                        if findings.is_empty() { <p class="muted" id="lint">{ "No findings." }</p> }
                        <ul id="lint-findings">
                        { for findings.iter().map(|f| html! {
                            <li class={f.severity.as_str()}>
                                <strong>{ format!("{} ({})", f.rule, f.severity.as_str()) }</strong>{ format!(" {}: {}", f.workload, f.message) }
                                if let Some(rule) = spreadlab_engine::analysis::lint::rule(f.rule) { <p class="muted">{ format!("Fix: {}", rule.fix) }</p> }
                            </li>
                        }) }
                        </ul>
                    </section>
                },
            )
        }
    };
    html! {
        <div class="whatif" id="whatif">
            { nav }
            { content }
        </div>
    }
}
