//! spreadlab as a Kubewarden admission policy: a waPC guest (`wasm32-wasip1`) that rejects, or
//! warns about, Deployments, StatefulSets, ReplicaSets and Pods whose replicas would not spread,
//! fit or survive a zone loss on the current cluster, with the scheduler's own explanation.
//!
//! This file is the thin adapter: it registers the waPC functions and turns a [`Decision`] into
//! Kubewarden's `ValidationResponse`. The decision itself is [`decide::decide`], a pure function
//! of (admission request, [`Settings`], [`ClusterSource`]); the cluster comes from the host's
//! Kubernetes capability ([`host::HostCluster`]) in the module and from fixtures in tests.

pub mod decide;
pub mod host;
pub mod mutate;
pub mod request;
pub mod settings;
pub mod snapshot;

pub use decide::{Decision, decide, decide_payload};
pub use settings::Settings;
pub use snapshot::{ClusterSource, FixtureCluster};

use kubewarden_policy_sdk::response::ValidationResponse;
use kubewarden_policy_sdk::settings::SettingsValidationResponse;
use kubewarden_policy_sdk::wapc_guest::{self, CallResult};

/// The waPC entry point: registers `validate`, `validate_settings` and `protocol_version`.
#[allow(unsafe_code)] // `no_mangle` is an unsafe attribute; this export is what the host calls.
#[unsafe(no_mangle)]
pub extern "C" fn wapc_init() {
    wapc_guest::register_function("validate", validate);
    wapc_guest::register_function("validate_settings", validate_settings);
    wapc_guest::register_function(
        "protocol_version",
        kubewarden_policy_sdk::protocol_version_guest,
    );
}

/// `validate`: `{"request": AdmissionRequest, "settings": {...}}` to a `ValidationResponse`.
pub fn validate(payload: &[u8]) -> CallResult {
    let decision = decide_payload(payload, &host::HostCluster);
    Ok(serde_json::to_vec(&response(decision))?)
}

/// Kubewarden's response for a decision.
pub fn response(decision: Decision) -> ValidationResponse {
    let warnings = |w: Vec<String>| (!w.is_empty()).then_some(w);
    match decision {
        Decision::Accept { warnings: w } => ValidationResponse {
            accepted: true,
            message: None,
            code: None,
            mutated_object: None,
            audit_annotations: None,
            warnings: warnings(w),
        },
        Decision::Mutate {
            object,
            warnings: w,
        } => ValidationResponse {
            accepted: true,
            message: None,
            code: None,
            mutated_object: Some(object),
            audit_annotations: None,
            warnings: warnings(w),
        },
        Decision::Reject { message } => ValidationResponse {
            accepted: false,
            message: Some(message),
            code: Some(400),
            mutated_object: None,
            audit_annotations: None,
            warnings: None,
        },
    }
}

/// `validate_settings`: `{"valid": bool, "message": ...}`. Settings that do not parse are
/// invalid with the parser's message (naming the field), not a guest error.
pub fn validate_settings(payload: &[u8]) -> CallResult {
    Ok(serde_json::to_vec(&settings_response(payload))?)
}

/// The answer of `validate_settings` for a payload.
pub fn settings_response(payload: &[u8]) -> SettingsValidationResponse {
    let parsed = serde_json::from_slice::<serde_json::Value>(payload)
        .map_err(|error| format!("settings: not JSON: {error}"))
        .and_then(|json| Settings::from_json(&json));
    match parsed {
        Ok(_) => SettingsValidationResponse {
            valid: true,
            message: None,
        },
        Err(message) => SettingsValidationResponse {
            valid: false,
            message: Some(message),
        },
    }
}
