//! The editor: built-in examples, the manifest text (the source of truth) in the bundled code
//! editor (`code_editor`: highlighting, folding, search, the loader's errors and warnings
//! underlined at their line and column with the message on hover), drop-to-import, and the same
//! issues listed below with their line and column (each a button that jumps there).
//!
//! Without the bundled editor (a build without npm, the wasm-bindgen-test page) the text is a
//! plain textarea with a line-number gutter marking the issues' lines (each mark a button: its
//! message as label and tooltip, Enter jumps to the line).

use web_sys::{DragEvent, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::browser::textarea_value;
use crate::code_editor;
use crate::examples::EXAMPLES;
use crate::handles::Shared;
use crate::handles::{Dispatch, import_file};
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

/// The textarea's line height in pixels (`#input` in style.css: no wrapping, so line N of the
/// text is at (N - 1) × this below the top padding).
const LINE_HEIGHT: f64 = 18.0;

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
    // Scroll the line into view (the textarea has a fixed line height and does not wrap).
    area.set_scroll_top(((line.saturating_sub(3)) as f64 * LINE_HEIGHT) as i32);
}

/// What the text area is, for screen readers.
const LABEL: &str = "Manifests and cluster snapshot (YAML or JSON)";

/// The editor column.
#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let area = use_node_ref();
    let dispatch = props.dispatch.clone();
    // The bundled code editor, when the page has it: mounted once into `host`; `held` is the text
    // it holds (its own edits arrive through `SetText`, so only other changes are pushed to it).
    let code = *use_memo((), |_| code_editor::available());
    let host = use_node_ref();
    let held = use_mut_ref(String::new);
    {
        let (host, held, dispatch, text) = (
            host.clone(),
            held.clone(),
            dispatch.clone(),
            props.text.clone(),
        );
        use_effect_with((), move |_| {
            let mounted = host.cast::<web_sys::HtmlElement>().map(|parent| {
                held.replace(text.clone());
                let on_file = dispatch.clone();
                code_editor::mount(
                    &parent,
                    &text,
                    LABEL,
                    move |text: String| {
                        held.replace(text.clone());
                        dispatch.dispatch(Action::SetText(text));
                    },
                    move |file| import_file(file, on_file.clone()),
                )
            });
            move || drop(mounted)
        });
    }
    {
        let held = held.clone();
        use_effect_with(props.text.clone(), move |text| {
            if code && *held.borrow() != *text {
                held.replace(text.clone());
                code_editor::set_text(text);
            }
        });
    }
    {
        // Underlines for the text they were found in (a newer analysis follows a newer edit).
        let held = held.clone();
        use_effect_with(props.analysis.clone(), move |analysis| {
            let a = &analysis.0;
            if code && *held.borrow() == *a.text {
                code_editor::set_diagnostics(&a.errors, &a.warnings);
            }
        });
    }
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
    let gutter = use_node_ref();
    let on_scroll = {
        let area = area.clone();
        let gutter = gutter.clone();
        Callback::from(move |_: Event| {
            if let (Some(area), Some(gutter)) = (
                area.cast::<HtmlTextAreaElement>(),
                gutter.cast::<web_sys::HtmlElement>(),
            ) {
                gutter.set_scroll_top(area.scroll_top());
            }
        })
    };
    let line_count = props.text.bytes().filter(|b| *b == b'\n').count() + 1;
    let numbers = use_memo(line_count, |count| {
        let mut numbers = String::with_capacity(count * 5);
        for n in 1..=*count {
            numbers.push_str(&n.to_string());
            numbers.push('\n');
        }
        numbers
    });
    let analysis = &props.analysis.0;
    let issue = |issue: &Issue, kind: &'static str| {
        let line = issue.line;
        let area = area.clone();
        let text = props.text.clone();
        let column = issue.column;
        let onclick = Callback::from(move |_| match line {
            Some(line) if code => code_editor::jump(line, column),
            Some(line) => jump_to_line(&area, &text, line),
            None => {}
        });
        html! {
            <li class={kind}>
                <button class="link issue-line" {onclick} disabled={line.is_none()}>
                    { match (line, issue.column) {
                        (Some(l), Some(c)) => format!("line {l}:{c}"),
                        (Some(l), None) => format!("line {l}"),
                        _ => "—".to_string(),
                    } }
                </button>
                <span class="issue-message">{ issue.message.clone() }</span>
            </li>
        }
    };
    // One mark per line with issues (errors win over warnings), in the gutter at that line.
    let mut marks: std::collections::BTreeMap<usize, (&'static str, Vec<String>)> =
        std::collections::BTreeMap::new();
    for (kind, issues) in [("warning", &analysis.warnings), ("error", &analysis.errors)] {
        for i in issues.iter() {
            if let Some(line) = i.line.filter(|l| *l <= line_count) {
                let mark = marks.entry(line).or_insert((kind, Vec::new()));
                mark.0 = if kind == "error" { kind } else { mark.0 };
                mark.1.push(i.message.clone());
            }
        }
    }
    let mark = |line: usize, kind: &'static str, messages: &[String]| {
        let area = area.clone();
        let text = props.text.clone();
        let label = format!(
            "{} on line {line}: {}",
            if kind == "error" { "Error" } else { "Warning" },
            messages.join(" · ")
        );
        html! {
            <button class={classes!("mark", kind)} data-line={line.to_string()} title={label.clone()} aria-label={label}
                style={format!("top:{}px", (line - 1) as f64 * LINE_HEIGHT)}
                onclick={Callback::from(move |_| jump_to_line(&area, &text, line))}>
                { line }
            </button>
        }
    };
    let hint = props
        .example
        .and_then(|id| EXAMPLES.iter().find(|e| e.id == id))
        .map(|e| e.hint);
    html! {
        <div class="editor">
            <div class="example-row">
                <label for="example">{ "Example" }</label>
                <crate::components::gallery::Gallery dispatch={dispatch.clone()} />
            </div>
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
            if code {
                <div class="editor-box">
                    <div id="code-editor" class="code-editor" ref={host}></div>
                </div>
            } else {
            <label for="input" class="visually-hidden">{ LABEL }</label>
            <div class="editor-box">
                <div class="gutter" ref={gutter}>
                    <pre class="numbers" aria-hidden="true">{ (*numbers).clone() }</pre>
                    <div class="marks" role="group" aria-label="Lines with load errors or warnings">
                        { for marks.iter().map(|(line, (kind, messages))| mark(*line, kind, messages)) }
                    </div>
                </div>
                <textarea id="input" ref={area.clone()} spellcheck="false" wrap="off" value={props.text.clone()}
                    oninput={on_input} ondrop={on_drop} ondragover={on_dragover} onscroll={on_scroll}
                    aria-describedby="issues" />
            </div>
            }
            <ul id="issues" class="issues" aria-live="polite">
                { for analysis.errors.iter().map(|i| issue(i, "error")) }
                { for analysis.warnings.iter().map(|i| issue(i, "warning")) }
            </ul>
        </div>
    }
}
