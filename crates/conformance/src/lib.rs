//! Conformance runner: loads the ported upstream unit-test tables (`tests/upstream/`) and checks the
//! engine against the expected values they carry; and the seed scenarios (`tests/scenarios/`), whose
//! expected values the real kube-scheduler produced (the Go oracle, `tests/oracle`).
//!
//! Each case runs only the plugin under test, through the same framework runner the scheduler
//! uses, exactly as the upstream Go test drives that plugin.

/// The release of the plain recordings (`tests/scenarios/*/expected.jsonl`), of the oracle at
/// `SPREADLAB_ORACLE` (the others sit beside it as `<path>-1.NN`) and of every scenario that names
/// none: v1.35, the release spreadlab first mirrored. The faces default to the newest release
/// ([`KubeVersion::DEFAULT`]); the test set keeps its reference.
pub const REFERENCE_RELEASE: KubeVersion = KubeVersion::V1_35;

use spreadlab_engine::KubeVersion;

#[cfg(test)]
mod changes;
pub mod compare;
pub mod differential;
pub mod fuzz;
pub mod generate;
pub mod integration;
pub mod judge;
pub mod oracle;
pub mod scenarios;
pub mod shrink;
pub mod synthetic;
pub mod upstream;
mod upstream_objects;
mod upstream_preemption;
mod upstream_releases;
mod upstream_state;

/// How many generated seeds a test runs: the variable `name`, or 300.
#[cfg(test)]
pub(crate) fn seeds_from_env(name: &str) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}
