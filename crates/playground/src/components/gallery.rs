//! The gallery: a searchable list of every example and public scenario (with its source); opening
//! one puts it in the editor.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::gallery::{self, Kind};
use crate::handles::Dispatch;
use crate::state::Action;

/// Props of [`Gallery`].
#[derive(Properties, PartialEq)]
pub struct GalleryProps {
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// The gallery toggle and, when open, the search box and the entries.
#[function_component(Gallery)]
pub fn gallery(props: &GalleryProps) -> Html {
    let open = use_state(|| false);
    let query = use_state(String::new);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    let button = html! {
        <button id="gallery-open" aria-expanded={open.to_string()} aria-controls="gallery" onclick={toggle}>
            { if *open { "Close the gallery" } else { "Gallery…" } }
        </button>
    };
    if !*open {
        return button;
    }
    let on_search = {
        let query = query.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            query.set(input.value());
        })
    };
    let found = gallery::search(&query);
    html! {
        <>
            { button }
            <section id="gallery" class="gallery" aria-label="Gallery of scenarios">
                <label for="gallery-search">{ "Search examples and public scenarios" }</label>
                <input id="gallery-search" type="search" value={(*query).clone()} oninput={on_search}
                    placeholder="e.g. zone, GPU, rollout, docs" />
                <p class="muted" id="gallery-count" aria-live="polite">{ format!("{} of {} scenarios", found.len(), gallery::entries().len()) }</p>
                <ul class="gallery-list">
                    { for found.into_iter().map(|entry| {
                        let dispatch = props.dispatch.clone();
                        let open = open.clone();
                        let onclick = Callback::from(move |_| {
                            match entry.kind {
                                Kind::Example(example) => dispatch.dispatch(Action::LoadExample(example.id.to_string())),
                                Kind::Public(_) => {
                                    dispatch.dispatch(Action::ReplaceText(entry.text()));
                                    dispatch.dispatch(Action::Notice(Some(format!("Opened “{}”. Source: {}", entry.title, entry.source))));
                                }
                            }
                            open.set(false);
                        });
                        html! {
                            <li class="gallery-entry" data-entry={entry.id}>
                                <button class="link gallery-title" {onclick}>{ entry.title }</button>
                                <p>{ entry.summary }</p>
                                <p class="muted source">{ entry.source }</p>
                            </li>
                        }
                    }) }
                </ul>
            </section>
        </>
    }
}
