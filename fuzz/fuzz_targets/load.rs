//! Fuzz target: any bytes as a manifest file, through the loader (`spreadlab_conformance::fuzz::load_bytes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spreadlab_conformance::fuzz::load_bytes(data);
});
