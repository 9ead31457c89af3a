//! The Kubewarden adapter (feature `kubewarden`): registers the waPC functions `validate`,
//! `validate_settings` and `protocol_version`, and turns a [`Decision`] into Kubewarden's
//! `ValidationResponse`. Nothing else in the crate needs the Kubewarden SDK.

use crate::{Decision, Settings, decide_payload, host};

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
    #[cfg(feature = "fault-injection")]
    fault_injection(payload);
    let decision = decide_payload(payload, &host::HostCluster);
    Ok(serde_json::to_vec(&response(decision))?)
}

/// The request uid that makes a `fault-injection` build panic.
#[cfg(feature = "fault-injection")]
pub const PANIC_UID: &str = "spreadlab-fault-injection-panic";

/// Panics on [`PANIC_UID`] (feature `fault-injection`, never in a released module): the
/// module is built with `panic = "abort"`, so the host sees a trap.
#[cfg(feature = "fault-injection")]
fn fault_injection(payload: &[u8]) {
    let uid = serde_json::from_slice::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| v["request"]["uid"].as_str().map(String::from));
    if uid.as_deref() == Some(PANIC_UID) {
        panic!("fault injection: {PANIC_UID}");
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Decision;
    use serde_json::json;

    #[test]
    fn responses_have_kubewardens_shape() {
        let reject = serde_json::to_value(response(Decision::Reject {
            message: "no".into(),
        }))
        .unwrap();
        assert_eq!(reject["accepted"], false);
        assert_eq!(reject["code"], 400);
        assert_eq!(reject["message"], "no");
        let accept = serde_json::to_value(response(Decision::Accept { warnings: vec![] })).unwrap();
        assert_eq!(accept["accepted"], true);
        assert!(accept["warnings"].is_null());
        let mutate = serde_json::to_value(response(Decision::Mutate {
            object: json!({"kind": "Deployment"}),
            warnings: vec!["w".into()],
        }))
        .unwrap();
        assert_eq!(mutate["mutated_object"]["kind"], "Deployment");
        assert_eq!(mutate["warnings"], json!(["w"]));
    }

    #[test]
    fn settings_answers() {
        assert!(settings_response(b"{}").valid);
        assert!(settings_response(b"null").valid);
        let bad = settings_response(b"{\"maxSkew\": 0}");
        assert!(!bad.valid);
        assert_eq!(
            bad.message.as_deref(),
            Some("maxSkew: must be at least 1, got 0")
        );
        assert!(!settings_response(b"{oops").valid);
    }
}
