//! Browser test (wasm-bindgen-test in headless Chromium): mounts the whole app, checks the first
//! example's Pending replica and, after a click, kube-scheduler's message for it (recorded from
//! the real scheduler in tests/scenarios/gpu-three-zones-one-full/expected.jsonl).
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn app_mounts_and_explains_the_pending_replica() {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<spreadlab_playground::app::App>::with_root(root).render();
    yew::platform::time::sleep(Duration::from_millis(200)).await;
    let tray = document.get_element_by_id("pending").expect("Pending tray");
    assert!(tray.text_content().unwrap().contains("Pending (1)"));
    let chip: web_sys::HtmlElement = document
        .query_selector("#pending .chip")
        .unwrap()
        .expect("a Pending chip")
        .dyn_into()
        .unwrap();
    chip.click();
    yew::platform::time::sleep(Duration::from_millis(100)).await;
    let message = document
        .get_element_by_id("pod-message-text")
        .expect("the scheduler message")
        .text_content()
        .unwrap();
    // tests/scenarios/gpu-three-zones-one-full/expected-1.37.jsonl: the playground opens on the
    // newest release.
    assert_eq!(
        message,
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    );
}
