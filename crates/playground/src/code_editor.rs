//! The bundled code editor (`www/editor`: CodeMirror 6, loaded as `editor.js`) behind
//! `window.spreadlabEditor`: highlighting, folding, search, and the loader's issues underlined at
//! their line and column. The editor component uses it when the page has it and keeps its plain
//! textarea otherwise (a build without npm, the wasm-bindgen-test page). The text stays the
//! app's state: the editor reports user edits and applies the app's own.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::model::Issue;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = spreadlabEditor, js_name = mount)]
    fn js_mount(
        parent: &web_sys::HtmlElement,
        text: &str,
        label: &str,
        on_change: &js_sys::Function,
        on_file: &js_sys::Function,
    );
    #[wasm_bindgen(js_namespace = spreadlabEditor, js_name = destroy)]
    fn js_destroy();
    #[wasm_bindgen(js_namespace = spreadlabEditor, js_name = setText)]
    fn js_set_text(text: &str);
    #[wasm_bindgen(js_namespace = spreadlabEditor, js_name = setDiagnostics)]
    fn js_set_diagnostics(issues: &js_sys::Array);
    #[wasm_bindgen(js_namespace = spreadlabEditor, js_name = jump)]
    fn js_jump(line: u32, column: u32);
}

/// Whether the page loaded the code editor (`editor.js` defines `window.spreadlabEditor`).
pub fn available() -> bool {
    web_sys::window().is_some_and(|w| {
        js_sys::Reflect::get(&w, &JsValue::from_str("spreadlabEditor")).is_ok_and(|e| e.is_object())
    })
}

/// The callbacks the editor calls: user edits (the whole text) and a dropped file. Kept alive as
/// long as the editor is mounted.
pub struct Mounted {
    _on_change: Closure<dyn FnMut(String)>,
    _on_file: Closure<dyn FnMut(web_sys::File)>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        js_destroy();
    }
}

/// Creates the editor in `parent` holding `text`, labelled `label` for screen readers.
pub fn mount(
    parent: &web_sys::HtmlElement,
    text: &str,
    label: &str,
    on_change: impl FnMut(String) + 'static,
    on_file: impl FnMut(web_sys::File) + 'static,
) -> Mounted {
    let on_change = Closure::<dyn FnMut(String)>::new(on_change);
    let on_file = Closure::<dyn FnMut(web_sys::File)>::new(on_file);
    js_mount(
        parent,
        text,
        label,
        on_change.as_ref().unchecked_ref(),
        on_file.as_ref().unchecked_ref(),
    );
    Mounted {
        _on_change: on_change,
        _on_file: on_file,
    }
}

/// Replaces the editor's text with the app's (a control, an example, an import).
pub fn set_text(text: &str) {
    js_set_text(text);
}

/// Underlines `errors` and `warnings` (those with a line) at their line and column.
pub fn set_diagnostics(errors: &[Issue], warnings: &[Issue]) {
    let list = js_sys::Array::new();
    for (severity, issues) in [("error", errors), ("warning", warnings)] {
        for issue in issues {
            let Some(line) = issue.line else { continue };
            let entry = js_sys::Object::new();
            let set = |key: &str, value: JsValue| {
                let _ = js_sys::Reflect::set(&entry, &JsValue::from_str(key), &value);
            };
            set("line", JsValue::from(line as f64));
            set(
                "column",
                issue
                    .column
                    .map_or(JsValue::NULL, |c| JsValue::from(c as f64)),
            );
            set("severity", JsValue::from_str(severity));
            set("message", JsValue::from_str(&issue.message));
            list.push(&entry);
        }
    }
    js_set_diagnostics(&list);
}

/// Moves the cursor to 1-based `line` and `column` (the line's start without one) and focuses.
pub fn jump(line: usize, column: Option<usize>) {
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    js_jump(clamp(line), clamp(column.unwrap_or(1)));
}
