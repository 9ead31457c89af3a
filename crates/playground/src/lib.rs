//! spreadlab playground: see, explore and learn kube-scheduler placement in the browser.
//!
//! A Yew app that runs the engine as wasm. Layers: [`model`] (text → engine → what the views
//! draw), [`edit`] (controls that rewrite the text), [`share`] (links), [`state`] (reducer with a
//! closed action enum), [`examples`], [`gallery`] and [`lessons`] (embedded scenarios), [`pictures`] (what the What-if charts draw), `app` and
//! `components` (rendering and the browser edges). The views never compute scheduling logic:
//! every verdict and number comes from the engine's report or analyses.

pub mod app;
pub mod browser;
pub mod code_editor;
pub mod compare;
pub mod components;
pub mod edit;
pub mod examples;
pub mod format;
pub mod gallery;
pub mod handles;
pub mod lessons;
pub mod model;
pub mod pictures;
pub mod release;
pub mod share;
pub mod state;
pub mod whatif;

/// Mounts the app on `<div id="app">` when the wasm module starts (pages without one, such as
/// the wasm-bindgen-test harness, mount it themselves).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"))
    {
        yew::Renderer::<app::App>::with_root(root).render();
    }
}
