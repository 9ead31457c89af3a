//! Compare mode: pin the scenario as a baseline, change something (a control, the text, the
//! release), and see the two side by side: placed pods per zone before and now, and every pod
//! that moved, became Pending, got placed, appeared or went, with the reason (`crate::compare`).

use yew::prelude::*;

use crate::compare::{self, Kind, Outcome};
use crate::handles::{Dispatch, Shared};
use crate::state::Action;

/// Props of [`ComparePanel`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The current analysis.
    pub analysis: Shared,
    /// The pinned baseline's analysis (simulated by the app once per pin).
    pub baseline: Option<Shared>,
    /// A re-simulation is pending.
    pub busy: bool,
    /// Dispatch.
    pub dispatch: Dispatch,
}

fn outcome_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Placed { node, zone } => format!("{node} ({zone})"),
        Outcome::Pending(_) => String::from("Pending"),
        Outcome::Absent => String::from("—"),
    }
}

fn kind_text(kind: Kind) -> &'static str {
    match kind {
        Kind::Moved => "moved",
        Kind::NowPending => "now Pending",
        Kind::NowPlaced => "now placed",
        Kind::Added => "new",
        Kind::Removed => "gone",
        Kind::OtherReason => "still Pending, another reason",
    }
}

/// The Compare panel.
#[function_component(ComparePanel)]
pub fn compare_panel(props: &CompareProps) -> Html {
    let dispatch = props.dispatch.clone();
    let action = |action: Action| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(action.clone()))
    };
    let Some(before) = &props.baseline else {
        return html! {
            <div class="compare" id="compare">
                <h2>{ "Compare two versions of a scenario" }</h2>
                <p>{ "Pin the scenario as it is now, then change something: a control, the text, the kube-scheduler release. This panel then shows both side by side: which pods move, which become Pending, which zones change, and why." }</p>
                <button id="compare-pin" onclick={action(Action::PinBaseline(true))}>{ "Pin this scenario as the baseline" }</button>
            </div>
        };
    };
    let before = &before.0;
    let version = before.version;
    let after = &props.analysis.0;
    let result = compare::compare(before, after);
    let summary = if result.changes.is_empty() {
        format!(
            "Nothing changed: {} pod(s) land where they did.",
            result.unchanged
        )
    } else {
        format!(
            "{} pod(s) changed, {} unchanged.",
            result.changes.len(),
            result.unchanged
        )
    };
    html! {
        <div class="compare" id="compare">
            <h2>{ "Baseline and now" }</h2>
            <p class="muted">{ format!("Baseline: pinned, kube-scheduler {}. Now: the editor's text, kube-scheduler {}.", version.as_str(), after.version.as_str()) }</p>
            <div class="row">
                <button id="compare-repin" onclick={action(Action::PinBaseline(true))}>{ "Pin the current one instead" }</button>
                <button id="compare-restore" onclick={action(Action::RestoreBaseline)}>{ "Back to the baseline" }</button>
                <button id="compare-clear" onclick={action(Action::PinBaseline(false))}>{ "Unpin" }</button>
            </div>
            if props.busy {
                <p class="muted">{ "The engine is simulating the change…" }</p>
            }
            <p id="compare-summary" aria-live="polite">{ summary }</p>
            <table class="numbers-table compare-zones" id="compare-zones">
                <caption>{ "Placed pods per zone" }</caption>
                <thead><tr><th scope="col">{ "Zone" }</th><th scope="col">{ "Baseline" }</th><th scope="col">{ "Now" }</th><th scope="col">{ "Change" }</th></tr></thead>
                <tbody>
                { for result.zones.iter().map(|z| {
                    let delta = z.after as i64 - z.before as i64;
                    html! {
                        <tr class={classes!((delta != 0).then_some("changed"))} data-zone={z.zone.clone()}>
                            <th scope="row">{ z.zone.clone() }</th><td>{ z.before }</td><td>{ z.after }</td>
                            <td>{ match delta { 0 => String::from("="), d if d > 0 => format!("+{d}"), d => d.to_string() } }</td>
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            <ul class="compare-changes" id="compare-changes">
                { for result.changes.iter().map(|c| html! {
                    <li class={classes!("change", matches!(c.kind, Kind::NowPending | Kind::OtherReason).then_some("pending"))}
                        data-kind={kind_text(c.kind)}>
                        <strong>{ format!("{} {}", c.pod, kind_text(c.kind)) }</strong>
                        { format!(": {} → {}", outcome_text(&c.before), outcome_text(&c.after)) }
                        if let Some(reason) = &c.reason {
                            <p class="reason">{ reason.clone() }</p>
                        }
                    </li>
                }) }
            </ul>
        </div>
    }
}
