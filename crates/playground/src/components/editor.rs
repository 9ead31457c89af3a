//! The editor: built-in examples, the manifest textarea (the source of truth), drop-to-import,
//! and the loader's errors and warnings listed with their line (click to jump there).

use web_sys::{DragEvent, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::app::{Dispatch, Shared, import_file, textarea_value};
use crate::examples::EXAMPLES;
use crate::model::Issue;
use crate::state::Action;

/// Props of [`Editor`].
#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The text.
    pub text: String,
    /// The example it came from.
    pub example: Option<&'static str>,
    /// The current analysis (for errors).
    pub analysis: Shared,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// Moves the textarea's caret to the start of 1-based `line` and focuses it.
fn jump_to_line(area: &NodeRef, text: &str, line: usize) {
    let Some(area) = area.cast::<HtmlTextAreaElement>() else {
        return;
    };
    let offset: usize = text
        .split('\n')
        .take(line.saturating_sub(1))
        .map(|l| l.encode_utf16().count() + 1)
        .sum();
    let offset = u32::try_from(offset).unwrap_or(0);
    let _ = area.focus();
    let _ = area.set_selection_range(offset, offset);
    // Roughly scroll the line into view (the textarea has a fixed line height).
    let line_height = 18.0;
    area.set_scroll_top(((line.saturating_sub(3)) as f64 * line_height) as i32);
}

/// The editor column.
#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let area = use_node_ref();
    let dispatch = props.dispatch.clone();
    let on_input = {
        let dispatch = dispatch.clone();
        Callback::from(move |event: InputEvent| {
            dispatch.dispatch(Action::SetText(textarea_value(&event)))
        })
    };
    let on_example = {
        let dispatch = dispatch.clone();
        Callback::from(move |event: Event| {
            let select: HtmlSelectElement = event.target_unchecked_into();
            let id = select.value();
            if !id.is_empty() {
                dispatch.dispatch(Action::LoadExample(id));
            }
        })
    };
    let on_drop = {
        let dispatch = dispatch.clone();
        Callback::from(move |event: DragEvent| {
            let file = event
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0));
            if let Some(file) = file {
                event.prevent_default();
                import_file(file, dispatch.clone());
            }
        })
    };
    let on_dragover = Callback::from(|event: DragEvent| event.prevent_default());
    let analysis = &props.analysis.0;
    let issue = |issue: &Issue, kind: &'static str| {
        let line = issue.line;
        let area = area.clone();
        let text = props.text.clone();
        let onclick = Callback::from(move |_| {
            if let Some(line) = line {
                jump_to_line(&area, &text, line);
            }
        });
        html! {
            <li class={kind}>
                <button class="link issue-line" {onclick} disabled={line.is_none()}>
                    { line.map_or_else(|| "—".to_string(), |l| format!("line {l}")) }
                </button>
                <span class="issue-message">{ issue.message.clone() }</span>
            </li>
        }
    };
    let hint = props
        .example
        .and_then(|id| EXAMPLES.iter().find(|e| e.id == id))
        .map(|e| e.hint);
    html! {
        <div class="editor">
            <label for="example">{ "Example" }</label>
            <select id="example" onchange={on_example}>
                <option value="" selected={props.example.is_none()}>{ "— your own text —" }</option>
                { for EXAMPLES.iter().map(|e| html! {
                    <option value={e.id} selected={props.example == Some(e.id)}>{ e.title }</option>
                }) }
            </select>
            // Always present with a fixed height: typing never moves the textarea.
            <p class="hint" id="example-hint">
                { hint.unwrap_or("Your own text: paste or drop manifests and snapshots (anything the CLI reads).") }
            </p>
            <label for="input" class="visually-hidden">{ "Manifests and cluster snapshot (YAML or JSON)" }</label>
            <textarea id="input" ref={area.clone()} spellcheck="false" value={props.text.clone()}
                oninput={on_input} ondrop={on_drop} ondragover={on_dragover}
                aria-describedby="issues" />
            <ul id="issues" class="issues" aria-live="polite">
                { for analysis.errors.iter().map(|i| issue(i, "error")) }
                { for analysis.warnings.iter().map(|i| issue(i, "warning")) }
            </ul>
        </div>
    }
}
