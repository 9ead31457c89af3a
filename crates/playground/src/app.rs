//! The root component and the browser edges: URL hash, localStorage, file export/import, the
//! debounced re-simulation and its timing. Components below only render and dispatch.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::{cluster::ClusterView, editor::Editor, explain::ExplainPanel};
use crate::components::{lessons::LessonsPanel, whatif::WhatIfPanel};
use crate::model::{self, Analysis};
use crate::share;
use crate::state::{Action, Panel, State};

/// localStorage key of the last text.
pub const STORAGE_KEY: &str = "spreadlab.playground.text";
/// Quiet time after the last keystroke before re-simulating (at least; see [`debounce`]).
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// The quiet time to wait: [`DEBOUNCE`], or twice the last simulation's time when that is longer
/// (large scenarios re-simulate less often while someone is still typing), at most one second.
pub fn debounce(last_sim_ms: f64) -> Duration {
    let adaptive = Duration::from_millis((last_sim_ms.max(0.0) * 2.0).min(1000.0) as u64);
    adaptive.max(DEBOUNCE)
}

/// The current analysis, compared by identity (a new simulation is a new value).
#[derive(Clone)]
pub struct Shared(pub Rc<Analysis>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The reducer handle every component dispatches through.
pub type Dispatch = UseReducerDispatcher<State>;

/// Milliseconds from the page clock (0 where there is none, e.g. native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The state to start from: a shared link, else the last session's text, else the first example.
fn initial_state() -> State {
    let mut state = State::default();
    let Some(window) = web_sys::window() else {
        return state;
    };
    let hash = window.location().hash().unwrap_or_default();
    if hash.starts_with(share::HASH_PREFIX) {
        // The link is adopted as the current text: saved at once and removed from the address
        // bar, so a reload after later edits shows the edits, not the link again.
        clear_hash();
        match share::decode(&hash) {
            Ok(text) => {
                persist(&text);
                state.text = text;
                state.example = None;
                state.notice = Some("Loaded the shared scenario.".into());
                return state;
            }
            Err(error) => state.notice = Some(error.to_string()),
        }
    }
    if let Some(text) = window
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .filter(|text| !text.trim().is_empty())
    {
        state.text = text;
        state.example = None;
    }
    state
}

fn simulate(text: &str) -> (Rc<Analysis>, f64) {
    let started = now_ms();
    let analysis = model::analyse(text);
    (Rc::new(analysis), now_ms() - started)
}

/// Saves the text to localStorage.
fn persist(text: &str) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(STORAGE_KEY, text);
    }
}

/// Removes the `#s=...` hash from the address bar (history.replaceState: no reload, no
/// hashchange event, no new history entry).
fn clear_hash() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let url = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The link that reproduces `text` (shown in the share box; the address bar is left alone, so
/// a reload keeps the saved text rather than going back to the link).
fn share_link(text: &str) -> Option<String> {
    let window = web_sys::window()?;
    let location = window.location();
    let hash = share::encode(text);
    Some(format!(
        "{}{}{}{hash}",
        location.origin().ok()?,
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    ))
}

/// Downloads `text` as `scenario.yaml`.
fn export(text: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/yaml");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(element) = document.create_element("a")
        && let Ok(anchor) = element.dyn_into::<web_sys::HtmlAnchorElement>()
    {
        anchor.set_href(&url);
        anchor.set_download("scenario.yaml");
        anchor.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Reads a dropped or chosen file into the editor.
pub fn import_file(file: web_sys::File, dispatch: Dispatch) {
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.text()).await {
            Ok(value) => {
                if let Some(text) = value.as_string() {
                    dispatch.dispatch(Action::ReplaceText(text));
                    dispatch.dispatch(Action::Notice(Some(format!("Imported {}", file.name()))));
                }
            }
            Err(_) => {
                dispatch.dispatch(Action::Notice(Some(format!("Cannot read {}", file.name()))))
            }
        }
    });
}

/// The playground.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);
    let first = use_memo((), |_| simulate(&state.text));
    let analysis = use_state(|| Shared(first.0.clone()));
    let sim_ms = use_state(|| first.1);
    let busy = use_state(|| false);
    let latest = use_mut_ref(|| Cell::new(state.revision));
    // The share link and the text revision it was made for (an edit makes it stale: hidden).
    let share_url = use_state(|| None::<(u64, String)>);
    // What-if results, kept per (text, parameters) across tab switches.
    let whatif_cache = use_memo((), |_| crate::components::whatif::Cache::default());

    {
        // Debounced re-simulation: only the last revision after a quiet DEBOUNCE runs.
        let analysis = analysis.clone();
        let sim_ms = sim_ms.clone();
        let busy = busy.clone();
        let latest = latest.clone();
        let text = state.text.clone();
        let wait = debounce(*sim_ms);
        let dispatch = state.dispatcher();
        use_effect_with(state.revision, move |revision| {
            let revision = *revision;
            if latest.borrow().get() != revision {
                latest.borrow().set(revision);
                busy.set(true);
                yew::platform::spawn_local(async move {
                    yew::platform::time::sleep(wait).await;
                    if latest.borrow().get() != revision {
                        return;
                    }
                    let (result, elapsed) = simulate(&text);
                    dispatch.dispatch(Action::Simulated {
                        zones: result.zones.iter().map(|z| z.name.clone()).collect(),
                        nodes: result
                            .loaded
                            .cluster
                            .nodes
                            .iter()
                            .map(|n| n.name.clone())
                            .collect(),
                    });
                    analysis.set(Shared(result));
                    sim_ms.set(elapsed);
                    busy.set(false);
                    persist(&text);
                });
            }
        });
    }

    {
        // A share link pasted into this tab's address bar (only the hash changes: no reload).
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|window| {
                let closure = Closure::<dyn Fn()>::new(move || {
                    let hash = web_sys::window()
                        .and_then(|w| w.location().hash().ok())
                        .unwrap_or_default();
                    if hash.starts_with(share::HASH_PREFIX) {
                        clear_hash();
                        match share::decode(&hash) {
                            Ok(text) => dispatch.dispatch(Action::ReplaceText(text)),
                            Err(error) => {
                                dispatch.dispatch(Action::Notice(Some(error.to_string())))
                            }
                        }
                    }
                });
                let _ = window.add_event_listener_with_callback(
                    "hashchange",
                    closure.as_ref().unchecked_ref(),
                );
                (window, closure)
            });
            move || {
                if let Some((window, closure)) = listener {
                    let _ = window.remove_event_listener_with_callback(
                        "hashchange",
                        closure.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    let dispatch = state.dispatcher();
    let on_share = {
        let text = state.text.clone();
        let revision = state.revision;
        let share_url = share_url.clone();
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = share_link(&text) {
                share_url.set(Some((revision, link)));
                dispatch.dispatch(Action::Notice(Some(
                    "The link below reproduces this scenario.".into(),
                )));
            }
        })
    };
    let on_export = {
        let text = state.text.clone();
        Callback::from(move |_: MouseEvent| export(&text))
    };
    let on_import = {
        let dispatch = dispatch.clone();
        Callback::from(move |event: Event| {
            let input: HtmlInputElement = event.target_unchecked_into();
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                import_file(file, dispatch.clone());
            }
            input.set_value("");
        })
    };
    let tab = |panel: Panel, label: &str, id: &str| {
        let dispatch = dispatch.clone();
        let selected = state.panel == panel;
        html! {
            <button id={id.to_string()} role="tab" aria-selected={selected.to_string()}
                aria-controls="panel" tabindex={if selected { "0" } else { "-1" }}
                class={classes!("tab", selected.then_some("active"))}
                onclick={Callback::from(move |_| dispatch.dispatch(Action::ShowPanel(panel)))}>
                { label.to_string() }
            </button>
        }
    };
    // Arrow keys (and Home/End) move between the tabs (WAI-ARIA tabs pattern, automatic activation).
    let on_tab_key = {
        let dispatch = dispatch.clone();
        let panel = state.panel;
        Callback::from(move |event: KeyboardEvent| {
            let next = match event.key().as_str() {
                "ArrowRight" => panel.step(true),
                "ArrowLeft" => panel.step(false),
                "Home" => Panel::ALL[0],
                "End" => Panel::ALL[Panel::ALL.len() - 1],
                _ => return,
            };
            event.prevent_default();
            dispatch.dispatch(Action::ShowPanel(next));
            if let Some(tab) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(tab_id(next)))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = tab.focus();
            }
        })
    };
    let current = analysis.0.clone();
    let summary = format!(
        "{} nodes · {} pods placed · {} Pending · simulated in {:.0} ms",
        current.node_count,
        current.placed(),
        current.pending.len(),
        *sim_ms
    );
    let notice = state.notice.clone().map(|text| {
        let dispatch = dispatch.clone();
        html! {
            <p class="notice" role="status" id="notice">{ text }
                <button class="link" aria-label="Dismiss"
                    onclick={Callback::from(move |_| dispatch.dispatch(Action::Notice(None)))}>{ "×" }</button>
            </p>
        }
    });
    html! {
        <div class="app">
            <header class="top">
                <h1>{ "spreadlab playground" }</h1>
                // The summary always shows the last result (announced once per simulation, not
                // per keystroke); the busy mark beside it keeps its space while hidden.
                <span class="summary" id="summary" data-sim-ms={format!("{:.1}", *sim_ms)}
                    data-busy={busy.to_string()} aria-live="polite" aria-busy={busy.to_string()}>
                    { summary }
                </span>
                <span class={classes!("busy", busy.then_some("on"))} id="busy" aria-hidden="true">{ "simulating…" }</span>
                <div class="actions">
                    <button id="share" onclick={on_share}>{ "Share link" }</button>
                    <button id="export" onclick={on_export}>{ "Export" }</button>
                    <label class="button" for="import">{ "Import" }</label>
                    <input id="import" type="file" accept=".yaml,.yml,.json,text/*" class="visually-hidden"
                        onchange={on_import} />
                </div>
            </header>
            { notice.unwrap_or_default() }
            if let Some((_, link)) = share_url.as_ref().filter(|(revision, _)| *revision == state.revision) {
                <p class="share"><label for="share-url">{ "Share: " }</label>
                    <input id="share-url" readonly=true value={link.clone()}
                        onfocus={Callback::from(|e: FocusEvent| {
                            let input: HtmlInputElement = e.target_unchecked_into();
                            input.select();
                        })} />
                </p>
            }
            <main class="layout">
                <section class="left" aria-label="Scenario">
                    <Editor text={state.text.clone()} example={state.example}
                        analysis={analysis.clone_inner()} dispatch={dispatch.clone()} />
                </section>
                <section class="middle" aria-label="Cluster">
                    <ClusterView analysis={analysis.clone_inner()} selected_pod={state.selected_pod.clone()}
                        selected_node={state.selected_node.clone()} fail={state.fail.clone()}
                        dispatch={dispatch.clone()} />
                </section>
                <section class="right" aria-label="Details">
                    <div class="tabs" role="tablist" aria-label="Details" onkeydown={on_tab_key}>
                        { tab(Panel::Explain, "Explain", tab_id(Panel::Explain)) }
                        { tab(Panel::WhatIf, "What-if", tab_id(Panel::WhatIf)) }
                        { tab(Panel::Lessons, "Lessons", tab_id(Panel::Lessons)) }
                    </div>
                    <div role="tabpanel" id="panel" aria-labelledby={tab_id(state.panel)} tabindex="0">
                    {
                        match state.panel {
                            Panel::Explain => html! {
                                <ExplainPanel analysis={analysis.clone_inner()} text={state.text.clone()}
                                    selected_pod={state.selected_pod.clone()} selected_node={state.selected_node.clone()}
                                    constraint={state.constraint} dispatch={dispatch.clone()} />
                            },
                            Panel::WhatIf => html! {
                                <WhatIfPanel analysis={analysis.clone_inner()} fail={state.fail.clone()}
                                    mode={state.fail_mode} rollout_step={state.rollout_step}
                                    view={state.whatif_view} cache={(*whatif_cache).clone()}
                                    dispatch={dispatch.clone()} />
                            },
                            Panel::Lessons => html! {
                                <LessonsPanel analysis={analysis.clone_inner()} text={state.text.clone()} progress={state.lesson.clone()}
                                    busy={*busy} dispatch={dispatch.clone()} />
                            },
                        }
                    }
                    </div>
                </section>
            </main>
        </div>
    }
}

/// The id of a panel's tab.
fn tab_id(panel: Panel) -> &'static str {
    match panel {
        Panel::Explain => "tab-explain",
        Panel::WhatIf => "tab-whatif",
        Panel::Lessons => "tab-lessons",
    }
}

/// Clones the shared analysis out of a state handle.
trait CloneInner {
    fn clone_inner(&self) -> Shared;
}

impl CloneInner for UseStateHandle<Shared> {
    fn clone_inner(&self) -> Shared {
        (**self).clone()
    }
}

/// Reads the text of a textarea event.
pub fn textarea_value(event: &InputEvent) -> String {
    let area: HtmlTextAreaElement = event.target_unchecked_into();
    area.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_grows_with_slow_simulations() {
        assert_eq!(debounce(10.0), DEBOUNCE);
        assert_eq!(debounce(300.0), Duration::from_millis(600));
        assert_eq!(debounce(5000.0), Duration::from_millis(1000));
    }
}
