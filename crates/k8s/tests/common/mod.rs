//! Helpers shared by the loader's integration tests.

// Each test file includes this module and uses only some of the helpers.
#![allow(dead_code)]

use spreadlab_k8s::{LoadOptions, Loaded, Source, load};

pub mod files;

pub fn load_text(name: &str, text: &str) -> Loaded {
    load(
        &[Source {
            name: name.into(),
            text: text.into(),
        }],
        &LoadOptions::default(),
    )
}

pub fn labels(pairs: &[(&str, &str)]) -> spreadlab_engine::model::Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

pub fn assert_clean(loaded: &Loaded) {
    assert!(loaded.errors.is_empty(), "errors: {:#?}", loaded.errors);
    assert!(
        loaded.warnings.is_empty(),
        "warnings: {:#?}",
        loaded.warnings
    );
}
