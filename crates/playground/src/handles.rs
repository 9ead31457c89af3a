//! The handles the root component passes down: the current analysis (compared by identity) and
//! the reducer's dispatcher, and the one action that reads a file. Components import these, never
//! the root component (`app.rs`), which imports them.

use crate::model::Analysis;
use crate::state::{Action, State};

/// The current analysis, compared by identity (a new simulation is a new value).
#[derive(Clone)]
pub struct Shared(pub std::rc::Rc<Analysis>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Milliseconds from the page clock (0 where there is none, e.g. native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The reducer handle every component dispatches through.
pub type Dispatch = yew::UseReducerDispatcher<State>;

/// A file at least this long is parsed in slices between frames, with a progress bar, before it
/// replaces the text (`Action::Import`); a shorter one replaces it at once.
pub const SLICED_IMPORT_BYTES: usize = 1 << 20;

/// Reads a dropped or chosen file into the editor (`ReplaceText`, or `Import` when it is big),
/// with a notice either way.
pub fn import_file(file: web_sys::File, dispatch: Dispatch) {
    crate::browser::read_file(file, move |name, text| match text {
        Some(text) if text.len() >= SLICED_IMPORT_BYTES => dispatch.dispatch(Action::Import {
            name,
            text: std::rc::Rc::new(text),
        }),
        Some(text) => {
            dispatch.dispatch(Action::ReplaceText(text));
            dispatch.dispatch(Action::Notice(Some(format!("Imported {name}"))));
        }
        None => dispatch.dispatch(Action::Notice(Some(format!("Cannot read {name}")))),
    });
}
