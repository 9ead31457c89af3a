//! The root component: the state, the debounced re-simulation and its timing, the panels. The
//! page itself (storage, address bar, files, clock) is reached through `browser`; components
//! below only render and dispatch.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::browser::{self, now_ms};

use crate::components::{cluster::ClusterView, editor::Editor, explain::ExplainPanel};
use crate::components::{compare::ComparePanel, lessons::LessonsPanel, whatif::WhatIfPanel};
use crate::handles::{Shared, import_file};
use crate::model::{self, Analysis};
use crate::share;
use crate::state::{Action, LessonProgress, Panel, State};
use spreadlab_engine::KubeVersion;
use spreadlab_k8s::DocumentCache;

/// Quiet time after the last keystroke before re-simulating when a simulation takes longer than
/// a frame (at least; see [`debounce`]).
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// How long after a re-simulation the analysis it replaced is freed (the new one is drawn first).
const FREE_AFTER: Duration = Duration::from_millis(50);

/// A frame at 60 Hz: a re-simulation this fast runs after every keystroke.
pub const FRAME_MS: f64 = 16.0;

/// How long one slice of a big import's parse runs before the page gets the thread back (a
/// slice ends after the piece that passes it).
const IMPORT_SLICE_MS: f64 = 12.0;

/// Text parsed between two looks at the clock in an import's slice.
const IMPORT_STEP_BYTES: usize = 64 << 10;

/// The quiet time to wait after a keystroke: none when the last simulation fit in a frame (the
/// result follows each keystroke; keystrokes handled in one task still make one simulation);
/// else [`DEBOUNCE`], or twice the last simulation's time when that is longer (large scenarios
/// re-simulate less often while someone is still typing), at most one second.
pub fn debounce(last_sim_ms: f64) -> Duration {
    if last_sim_ms <= FRAME_MS {
        return Duration::ZERO;
    }
    let adaptive = Duration::from_millis((last_sim_ms * 2.0).min(1000.0) as u64);
    adaptive.max(DEBOUNCE)
}

/// The state to start from: a shared link, else the last session's text, else the first example.
fn initial_state() -> State {
    let mut state = State::default();
    if let Some(progress) = browser::stored_progress().and_then(|p| LessonProgress::decode(&p)) {
        state.lesson = progress;
    }
    let hash = browser::location_hash();
    if hash.starts_with(share::HASH_PREFIX) {
        // The link is adopted as the current text: saved at once and removed from the address
        // bar, so a reload after later edits shows the edits, not the link again.
        browser::clear_hash();
        match share::decode(&hash) {
            Ok(share::Shared { text, version }) => {
                browser::persist(&text);
                state.text = text;
                state.version = version;
                state.example = None;
                // The shared text is not the open lesson's scenario.
                state.lesson.loaded = false;
                state.lesson.prediction = None;
                state.notice = Some("Loaded the shared scenario.".into());
                return state;
            }
            Err(error) => state.notice = Some(error.to_string()),
        }
    }
    if let Some(text) = browser::stored_text() {
        state.text = text;
        state.example = None;
    }
    state
}

/// Analyses `text` after an edit (documents and placement `previous` and `cache` already hold
/// are reused: `model::analyse_after`), timed.
fn simulate(
    text: &str,
    version: KubeVersion,
    previous: Option<&Analysis>,
    cache: &RefCell<DocumentCache>,
) -> (Rc<Analysis>, f64) {
    let started = now_ms();
    let analysis = model::analyse_after(text, version, previous, &mut cache.borrow_mut());
    (Rc::new(analysis), now_ms() - started)
}

/// The playground.
#[function_component(App)]
pub fn app() -> Html {
    // Read before `initial_state` adopts (and clears) a share link: a link opens its scenario,
    // not the welcome.
    let from_link = *use_memo((), |_| {
        browser::location_hash().starts_with(share::HASH_PREFIX)
    });
    let state = use_reducer(initial_state);
    // The documents of the last text read, so that an edit parses only what it changed.
    let documents = use_mut_ref(DocumentCache::new);
    let first = use_memo((), |_| {
        simulate(&state.text, state.version, None, &documents)
    });
    let analysis = use_state(|| Shared(first.0.clone()));
    let sim_ms = use_state(|| first.1);
    let busy = use_state(|| false);
    // The text revision the shown result is of (tests wait for it to follow a keystroke).
    let analysed = use_state(|| state.revision);
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
        let analysed = analysed.clone();
        let latest = latest.clone();
        let text = state.text.clone();
        let version = state.version;
        let wait = debounce(*sim_ms);
        let dispatch = state.dispatcher();
        let documents = documents.clone();
        use_effect_with(state.revision, move |revision| {
            let revision = *revision;
            if latest.borrow().get() != revision {
                latest.borrow().set(revision);
                busy.set(true);
                yew::platform::spawn_local(async move {
                    // A simulation that fits in a frame runs in the keystroke's own task, so its
                    // result is drawn in the keystroke's frame.
                    if !wait.is_zero() {
                        yew::platform::time::sleep(wait).await;
                        if latest.borrow().get() != revision {
                            return;
                        }
                    }
                    let previous = analysis.0.clone();
                    let (result, elapsed) = simulate(&text, version, Some(&previous), &documents);
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
                    analysed.set(revision);
                    busy.set(false);
                    browser::persist(&text);
                    // The previous analysis is freed after the new one is on screen, not before
                    // (freeing a large one takes a fair share of a simulation's time).
                    yew::platform::time::sleep(FREE_AFTER).await;
                    drop(previous);
                });
            }
        });
    }

    // A big import: its documents (a `kubectl get -o yaml` List item by item) are parsed into
    // the document cache a slice at a time, the page drawing the progress bar between slices;
    // then the text replaces the scenario and the re-simulation finds every part parsed.
    let import_progress = use_state(|| None::<(String, f64)>);
    {
        let import = state.import.clone();
        let dispatch = state.dispatcher();
        let documents = documents.clone();
        let progress = import_progress.clone();
        let version = state.version;
        use_effect_with(state.import.as_ref().map(|i| i.id), move |_| {
            let running = Rc::new(Cell::new(true));
            let alive = running.clone();
            // A newer import (or none) stops this one's slices.
            let stop = move || running.set(false);
            let Some(import) = import else {
                progress.set(None);
                return stop;
            };
            yew::platform::spawn_local(async move {
                let text: &str = &import.text;
                let mut warmup = model::warm_up(text, version, &mut documents.borrow_mut());
                loop {
                    let started = now_ms();
                    let done = loop {
                        let done =
                            documents
                                .borrow_mut()
                                .warm(&mut warmup, text, IMPORT_STEP_BYTES);
                        if done.finished() || now_ms() - started >= IMPORT_SLICE_MS {
                            break done;
                        }
                    };
                    let fraction = done.done as f64 / done.total.max(1) as f64;
                    progress.set(Some((import.name.clone(), fraction)));
                    if done.finished() {
                        break;
                    }
                    // Gives the page the thread (a timer task: input and a frame come first).
                    yew::platform::time::sleep(Duration::ZERO).await;
                    if !alive.get() {
                        return;
                    }
                }
                dispatch.dispatch(Action::ReplaceText((*import.text).clone()));
                let kept = if text.len() > browser::MAX_PERSISTED_BYTES {
                    " (too big to be kept for your next visit)"
                } else {
                    ""
                };
                dispatch.dispatch(Action::Notice(Some(format!(
                    "Imported {}{kept}",
                    import.name
                ))));
                dispatch.dispatch(Action::ImportEnded(import.id));
            });
            stop
        });
    }

    // The lesson path's progress is saved whenever it changes (it survives a reload), with the
    // text at that moment: opening a lesson replaces the text, and a reload must not find the
    // new progress beside the old text (the text is otherwise saved after each simulation).
    {
        let text = state.text.clone();
        use_effect_with(state.lesson.clone(), move |progress| {
            browser::persist_progress(&progress.encode());
            browser::persist(&text);
        });
    }

    {
        // A share link pasted into this tab's address bar (only the hash changes: no reload).
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = browser::on_hash_change(move |hash| {
                if hash.starts_with(share::HASH_PREFIX) {
                    browser::clear_hash();
                    match share::decode(&hash) {
                        Ok(share::Shared { text, version }) => {
                            dispatch.dispatch(Action::SetVersion(version));
                            dispatch.dispatch(Action::ReplaceText(text));
                        }
                        Err(error) => dispatch.dispatch(Action::Notice(Some(error.to_string()))),
                    }
                }
            });
            move || drop(listener)
        });
    }

    let dispatch = state.dispatcher();
    let on_share = {
        let text = state.text.clone();
        let version = state.version;
        let revision = state.revision;
        let share_url = share_url.clone();
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = browser::link_with_hash(&share::encode(&text, version)) {
                share_url.set(Some((revision, link)));
                dispatch.dispatch(Action::Notice(Some(
                    "The link below reproduces this scenario.".into(),
                )));
            }
        })
    };
    let on_version = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(version) = KubeVersion::parse(&select.value()) {
                dispatch.dispatch(Action::SetVersion(version));
            }
        })
    };
    let on_export = {
        let text = state.text.clone();
        Callback::from(move |_: MouseEvent| {
            browser::download(&text, "scenario.yaml", "application/yaml")
        })
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
            browser::focus(tab_id(next));
        })
    };
    let current = analysis.0.clone();
    let summary = format!(
        "{} nodes · {} pods placed · {} Pending",
        current.node_count,
        current.placed(),
        current.pending.len(),
    );
    // Kept out of the live region's announcements: it changes on every re-simulation, which
    // follows every keystroke in a small scenario.
    let timing = format!(" · simulated in {:.0} ms", *sim_ms);
    // Compare mode's baseline, simulated once per pin (not per render or tab switch).
    let baseline = use_memo(state.baseline.clone(), |baseline| {
        baseline
            .as_ref()
            .map(|(text, version)| Shared(Rc::new(model::analyse_for(text, *version))))
    });
    // The welcome: shown on a first visit (nothing stored yet) and from the header's About.
    let welcome = use_state(|| !from_link && !browser::welcomed());
    let close_welcome = {
        let welcome = welcome.clone();
        Callback::from(move |_| {
            browser::set_welcomed();
            welcome.set(false);
        })
    };
    {
        // Once the welcome has closed (and the page is no longer inert), focus goes back to the
        // control that opens it.
        let was_open = use_mut_ref(|| false);
        use_effect_with(*welcome, move |open| {
            if *open {
                *was_open.borrow_mut() = true;
            } else if std::mem::take(&mut *was_open.borrow_mut()) {
                browser::focus("about");
            }
        });
    }
    let open_welcome = {
        let welcome = welcome.clone();
        Callback::from(move |_| welcome.set(true))
    };
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
            // While the welcome is open the page behind it is inert (aria-modal holds).
            <header class="top" inert={*welcome}>
                <h1>{ "spreadlab playground" }</h1>
                // The summary always shows the last result (announced when its counts change, not
                // per keystroke); the busy mark beside it keeps its space while hidden.
                <span class="summary" id="summary" data-sim-ms={format!("{:.1}", *sim_ms)}
                    data-revision={analysed.to_string()}
                    data-busy={busy.to_string()} aria-live="polite" aria-busy={busy.to_string()}>
                    { summary }<span aria-hidden="true">{ timing }</span>
                </span>
                <span class={classes!("busy", busy.then_some("on"))} id="busy" aria-hidden="true">{ "simulating…" }</span>
                <div class="actions">
                    <label for="kubernetes-version">{ "kube-scheduler " }</label>
                    <select id="kubernetes-version" onchange={on_version}
                        title="The Kubernetes release whose scheduler is mirrored: placements, scores and messages differ between releases">
                        { for KubeVersion::ALL.iter().map(|v| html! {
                            <option value={v.as_str()} selected={*v == state.version}>{ v.as_str() }</option>
                        }) }
                    </select>
                    <button id="about" onclick={open_welcome}>{ "About" }</button>
                    <button id="share" onclick={on_share}>{ "Share link" }</button>
                    <button id="export" onclick={on_export}>{ "Export" }</button>
                    <label class="button" for="import">{ "Import" }</label>
                    <input id="import" type="file" accept=".yaml,.yml,.json,text/*" class="visually-hidden"
                        onchange={on_import} />
                </div>
            </header>
            { notice.unwrap_or_default() }
            if let Some((name, fraction)) = import_progress.as_ref() {
                <p class="importing" role="status" id="import-status">
                    <label for="import-progress">{ format!("Reading {name}: ") }</label>
                    <progress id="import-progress" max="100" value={format!("{:.0}", fraction * 100.0)}>
                        { format!("{:.0} %", fraction * 100.0) }
                    </progress>
                </p>
            }
            if *welcome {
                <crate::components::welcome::Welcome on_close={close_welcome} dispatch={dispatch.clone()} />
            }
            if let Some((_, link)) = share_url.as_ref().filter(|(revision, _)| *revision == state.revision) {
                <p class="share"><label for="share-url">{ "Share: " }</label>
                    <input id="share-url" readonly=true value={link.clone()}
                        onfocus={Callback::from(|e: FocusEvent| {
                            let input: HtmlInputElement = e.target_unchecked_into();
                            input.select();
                        })} />
                </p>
            }
            <main class="layout" inert={*welcome}>
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
                        { tab(Panel::Compare, "Compare", tab_id(Panel::Compare)) }
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
                                <LessonsPanel analysis={analysis.clone_inner()} text={state.text.clone()} progress={state.lesson.clone()} version={state.version}
                                    busy={*busy} dispatch={dispatch.clone()} />
                            },
                            Panel::Compare => html! {
                                <ComparePanel analysis={analysis.clone_inner()} baseline={(*baseline).clone()}
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
        Panel::Compare => "tab-compare",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debounce_grows_with_slow_simulations() {
        assert_eq!(debounce(10.0), Duration::ZERO);
        assert_eq!(debounce(16.0), Duration::ZERO);
        assert_eq!(debounce(17.0), DEBOUNCE);
        assert_eq!(debounce(300.0), Duration::from_millis(600));
        assert_eq!(debounce(5000.0), Duration::from_millis(1000));
    }
}
