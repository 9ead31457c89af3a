//! The one-screen welcome for a first-time visitor (and the header's "About"): what spreadlab
//! is, what to try first, and that everything runs in the browser.

use yew::prelude::*;

use crate::handles::Dispatch;
use crate::lessons::LESSONS;
use crate::state::{Action, Panel};

/// Props of [`Welcome`].
#[derive(Properties, PartialEq)]
pub struct WelcomeProps {
    /// Closes the welcome (and remembers it was seen).
    pub on_close: Callback<()>,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// The welcome dialog.
#[function_component(Welcome)]
pub fn welcome(props: &WelcomeProps) -> Html {
    let close_with = |action: Option<Action>| {
        let dispatch = props.dispatch.clone();
        let on_close = props.on_close.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(action) = action.clone() {
                dispatch.dispatch(action);
            }
            on_close.emit(());
        })
    };
    let on_key = {
        let on_close = props.on_close.clone();
        Callback::from(move |event: KeyboardEvent| {
            if event.key() == "Escape" {
                on_close.emit(());
            }
        })
    };
    let first = use_node_ref();
    {
        let first = first.clone();
        use_effect_with((), move |_| {
            if let Some(button) = first.cast::<web_sys::HtmlElement>() {
                let _ = button.focus();
            }
        });
    }
    html! {
        <div class="welcome-backdrop" onkeydown={on_key}>
            <div class="welcome" id="welcome" role="dialog" aria-modal="true" aria-labelledby="welcome-title">
                <h2 id="welcome-title">{ "Where will my replicas land, and why is one Pending?" }</h2>
                <p>{ "spreadlab answers with kube-scheduler's own rules (releases 1.34 to 1.37): paste manifests and a " }
                    <code>{ "kubectl get nodes,pods -o yaml" }</code>
                    { " snapshot, and see every zone, node and GPU slot, where each replica goes and the scheduler's exact message for each Pending pod." }</p>
                <ul>
                    <li>{ "Explain: the filters each node passed or failed and the spread arithmetic (maxSkew, minDomains, the global minimum), drawn." }</li>
                    <li>{ "What-if: fail a zone or a node, step through a rollout, capacity per zone, tie-break risk, lint." }</li>
                    <li>{ format!("Lessons: {} short lessons on the misconceptions of topology spread, then a quiz.", LESSONS.len()) }</li>
                </ul>
                <p class="muted">{ "Everything runs in this page (the engine is WebAssembly): nothing you paste leaves your browser." }</p>
                <div class="welcome-actions">
                    <button id="welcome-lessons" ref={first} onclick={close_with(Some(Action::OpenLesson(0)))}>{ "Start the lessons" }</button>
                    <button id="welcome-example" onclick={close_with(Some(Action::ShowPanel(Panel::Explain)))}>{ "Explore the example" }</button>
                    <button id="welcome-close" onclick={close_with(None)}>{ "Paste my own manifests" }</button>
                </div>
            </div>
        </div>
    }
}
