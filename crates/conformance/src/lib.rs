//! Conformance runner: loads the ported upstream unit-test tables (`tests/upstream/`) and checks the
//! engine against the expected values they carry.
//!
//! Each case runs only the plugin under test, through the same framework runner the scheduler
//! uses, exactly as the upstream Go test drives that plugin.

pub mod upstream;
