//! The Kubewarden host as a [`ClusterSource`]: `kubewarden/kubernetes/list_resources_all` waPC
//! host calls, made directly (the SDK's typed wrappers need its `cluster-context` feature, which
//! pulls a second k8s-openapi). Only meaningful inside the wasm module; natively the SDK stubs
//! the host call out.

use serde::Serialize;
use serde_json::Value;

use crate::slim::SlimPod;
use crate::snapshot::{self, ClusterSource, Resource, SourceError, field_masks};

/// The waPC binding, namespace and operation of the call.
pub const HOST_CALL: (&str, &str, &str) = ("kubewarden", "kubernetes", "list_resources_all");

/// The host capabilities the module uses (`metadata.yml`'s `hostCapabilities`; a test checks it).
pub const HOST_CAPABILITIES: &[&str] = &["kubernetes/list_resources_all"];

/// `ListAllResourcesRequest` of the Kubewarden host-capabilities spec.
#[derive(Serialize)]
struct ListAllResourcesRequest<'a> {
    api_version: &'a str,
    kind: &'a str,
    label_selector: Option<&'a str>,
    field_selector: Option<&'a str>,
    field_masks: Option<&'a [&'a str]>,
}

/// The cluster as the Kubewarden host's watch caches see it.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostCluster;

impl ClusterSource for HostCluster {
    fn list(&self, resource: Resource) -> Result<Vec<Value>, SourceError> {
        snapshot::read_list(resource, &list_call(resource)?)
    }

    fn list_pods(&self) -> Result<Vec<SlimPod>, SourceError> {
        snapshot::read_pod_list(&list_call(snapshot::POD)?)
    }
}

/// The host's answer to a list call for `resource` (the field masks of [`field_masks`]).
fn list_call(resource: Resource) -> Result<Vec<u8>, SourceError> {
    let error = |message: String| SourceError { resource, message };
    let request = serde_json::to_vec(&ListAllResourcesRequest {
        api_version: resource.api_version,
        kind: resource.kind,
        label_selector: None,
        field_selector: None,
        field_masks: field_masks(resource),
    })
    .map_err(|e| error(e.to_string()))?;
    let (binding, namespace, operation) = HOST_CALL;
    kubewarden_policy_sdk::wapc_guest::host_call(binding, namespace, operation, &request)
        .map_err(|e| error(format!("host call failed: {e}")))
}
