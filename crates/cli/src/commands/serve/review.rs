//! `AdmissionReview` v1 on `/validate`, read and answered with kube-core's admission types: the
//! request as the API server sends it (every required field, `serde`'s message naming the one
//! missing), the answer with the request's uid, a denial's message (the API server makes it a
//! 403 `admission webhook "…" denied the request: …`), the warnings, and for a mutation the JSON
//! Patch from the admitted object to the mutated one (`json_patch::diff`: only what changed).

use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use serde_json::{Value, json};
use spreadlab_policy::decide::Decision;

use super::service::Answer;

/// The answer to the AdmissionReview `body`, whose `request` `decide` judges.
pub(super) fn answer(body: Value, decide: impl FnOnce(&Value) -> Decision) -> Answer {
    let request = body.get("request").cloned().unwrap_or(Value::Null);
    let review: AdmissionReview<DynamicObject> = match serde_json::from_value(body) {
        Ok(review) => review,
        Err(error) => return refused(&error.to_string()),
    };
    let typed: AdmissionRequest<DynamicObject> = match review.try_into() {
        Ok(typed) => typed,
        Err(error) => return refused(&error.to_string()),
    };
    let decision = decide(&request);
    let mut response = AdmissionResponse::from(&typed);
    let warnings = match decision {
        Decision::Accept { warnings } => warnings,
        Decision::Reject { message } => {
            response = response.deny(message);
            Vec::new()
        }
        Decision::Mutate { object, warnings } => {
            let patch = json_patch::diff(request.get("object").unwrap_or(&Value::Null), &object);
            match response.with_patch(patch) {
                Ok(patched) => response = patched,
                Err(error) => return (500, json!({"error": format!("the patch: {error}")})),
            }
            warnings
        }
    };
    if !warnings.is_empty() {
        response.warnings = Some(warnings);
    }
    match serde_json::to_value(response.into_review()) {
        Ok(mut review) => {
            base64_patch(&mut review);
            (200, review)
        }
        Err(error) => (
            500,
            json!({"error": format!("the AdmissionReview: {error}")}),
        ),
    }
}

/// A body that is not an AdmissionReview v1 as the API server sends one.
fn refused(error: &str) -> Answer {
    (
        400,
        json!({"error": format!("body: not an admission.k8s.io/v1 AdmissionReview: {error}")}),
    )
}

/// Writes the patch's bytes as the base64 string Go's `[]byte` is in JSON (the API's own
/// encoding of `AdmissionResponse.patch`): kube-core 5 writes them as an array of numbers, which
/// the API server reads too, but other readers of the review may not.
fn base64_patch(review: &mut Value) {
    use base64::Engine as _;
    let Some(patch) = review.pointer_mut("/response/patch") else {
        return;
    };
    if let Some(bytes) = patch.as_array() {
        let bytes: Vec<u8> = bytes
            .iter()
            .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
            .collect();
        *patch = Value::from(base64::engine::general_purpose::STANDARD.encode(bytes));
    }
}
