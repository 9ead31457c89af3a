//! The playground's browser edges, in one place: localStorage, the address bar's hash and
//! history, file export and import (gloo-file), the hashchange listener (gloo-events), the page
//! clock, focus and form values. Everything else in the crate is plain Rust; these are
//! the only functions that touch the page.

use gloo_events::EventListener;
use gloo_file::{Blob, ObjectUrl};
use wasm_bindgen::JsCast;
use web_sys::{HtmlAnchorElement, HtmlElement, HtmlTextAreaElement};
use yew::prelude::*;

/// localStorage key of the last text.
pub const STORAGE_KEY: &str = "spreadlab.playground.text";

/// Milliseconds from the page clock (0 where there is none, e.g. native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The page's localStorage, `None` where it is disabled (private modes, blocked cookies).
/// gloo-storage is not used: it stores JSON-encoded values (the saved text is a plain string)
/// and throws where storage is disabled.
fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The text saved by the last session, if any.
pub fn stored_text() -> Option<String> {
    local_storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .filter(|text| !text.trim().is_empty())
}

/// Texts longer than this are not saved for the next visit (storage quotas are about 5 MB;
/// writing a bigger text fails after encoding it all).
pub const MAX_PERSISTED_BYTES: usize = 4 << 20;

/// Saves the text to localStorage (nothing where storage is disabled).
pub fn persist(text: &str) {
    // Past the browser's storage quota (about 5 MB): not kept (the import says so).
    if text.len() > MAX_PERSISTED_BYTES {
        return;
    }
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(STORAGE_KEY, text);
    }
}

/// Where the lesson path's progress is kept (`LessonProgress::encode`).
pub const PROGRESS_KEY: &str = "spreadlab.playground.lessons";

/// The lesson progress saved by the last session, if any.
pub fn stored_progress() -> Option<String> {
    local_storage().and_then(|s| s.get_item(PROGRESS_KEY).ok().flatten())
}

/// Saves the lesson progress (nothing where storage is disabled).
pub fn persist_progress(progress: &str) {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(PROGRESS_KEY, progress);
    }
}

/// Set once the welcome was closed (a first visit shows it).
pub const WELCOMED_KEY: &str = "spreadlab.playground.welcomed";

/// Whether the welcome was seen before (true where there is no storage: it is not forced on
/// every visit then).
pub fn welcomed() -> bool {
    local_storage().is_none_or(|s| s.get_item(WELCOMED_KEY).ok().flatten().is_some())
}

/// Remembers that the welcome was seen.
pub fn set_welcomed() {
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(WELCOMED_KEY, "1");
    }
}

/// The address bar's hash (`#...`), empty where there is no page.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Removes the `#s=...` hash from the address bar (history.replaceState: no reload, no
/// hashchange event, no new history entry). gloo-history keeps its own state object in the
/// entry, so the plain History API is used here.
pub fn clear_hash() {
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

/// This page's address with `hash` in place of its own.
pub fn link_with_hash(hash: &str) -> Option<String> {
    let location = web_sys::window()?.location();
    Some(format!(
        "{}{}{}{hash}",
        location.origin().ok()?,
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    ))
}

/// Calls `on_change` whenever the address bar's hash changes (a link pasted into this tab); the
/// listener lives as long as the returned guard.
pub fn on_hash_change(on_change: impl Fn(String) + 'static) -> Option<EventListener> {
    let window = web_sys::window()?;
    Some(EventListener::new(&window, "hashchange", move |_| {
        on_change(location_hash())
    }))
}

/// Downloads `text` as `name` (a Blob behind an object URL, revoked when dropped).
pub fn download(text: &str, name: &str, mime: &str) {
    let url = ObjectUrl::from(Blob::new_with_options(text, Some(mime)));
    if let Some(anchor) = gloo_utils::document()
        .create_element("a")
        .ok()
        .and_then(|e| e.dyn_into::<HtmlAnchorElement>().ok())
    {
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
    }
}

/// Reads a dropped or chosen file as text, then calls `done` with its name and the text (or
/// `None` when it cannot be read).
pub fn read_file(file: web_sys::File, done: impl FnOnce(String, Option<String>) + 'static) {
    let file = gloo_file::File::from(file);
    wasm_bindgen_futures::spawn_local(async move {
        let text = gloo_file::futures::read_as_text(&file).await.ok();
        done(file.name(), text);
    });
}

/// Moves the keyboard focus to the element `id`.
pub fn focus(id: &str) {
    if let Some(element) = gloo_utils::document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// Reads the text of a textarea event.
pub fn textarea_value(event: &InputEvent) -> String {
    let area: HtmlTextAreaElement = event.target_unchecked_into();
    area.value()
}
