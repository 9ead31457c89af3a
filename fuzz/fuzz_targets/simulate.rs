//! Fuzz target: bytes that load, through every analysis (`spreadlab_conformance::fuzz::simulate_bytes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spreadlab_conformance::fuzz::simulate_bytes(data);
});
