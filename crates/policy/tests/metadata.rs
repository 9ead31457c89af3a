//! `metadata.yml` and the Kubewarden manifests agree with the code: the kinds the policy reads
//! (`CONTEXT_AWARE_RESOURCES`), the host capabilities it calls, the kinds it validates, and the
//! PolicyServer RBAC that lets it read them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use spreadlab_policy::host::HOST_CAPABILITIES;
use spreadlab_policy::snapshot::{ALWAYS_READ, CONTEXT_AWARE_RESOURCES};

fn repo() -> PathBuf {
    Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("run by cargo")).join("../..")
}

fn yaml(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join(path)).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

fn resources(list: &Value) -> BTreeSet<(String, String)> {
    list.as_array()
        .expect("contextAwareResources is a list")
        .iter()
        .map(|r| {
            (
                r["apiVersion"].as_str().unwrap().to_owned(),
                r["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn code_resources() -> BTreeSet<(String, String)> {
    CONTEXT_AWARE_RESOURCES
        .iter()
        .map(|r| (r.api_version.to_owned(), r.kind.to_owned()))
        .collect()
}

#[test]
fn metadata_matches_the_code() {
    let metadata = yaml("crates/policy/metadata.yml").remove(0);
    assert_eq!(
        resources(&metadata["contextAwareResources"]),
        code_resources()
    );
    let capabilities: BTreeSet<&str> = metadata["hostCapabilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(capabilities, HOST_CAPABILITIES.iter().copied().collect());
    assert_eq!(metadata["executionMode"], "kubewarden-wapc");
    assert_eq!(
        metadata["mutating"], true,
        "the module can mutate (setting `mutate`)"
    );
    let validated: BTreeSet<String> = metadata["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|rule| {
            rule["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    for resource in ["deployments", "statefulsets", "replicasets", "pods"] {
        assert!(validated.contains(resource), "rules miss {resource}");
    }
    for key in [
        "io.kubewarden.policy.title",
        "io.kubewarden.policy.description",
        "io.kubewarden.policy.license",
        "io.kubewarden.policy.source",
    ] {
        assert!(metadata["annotations"][key].is_string(), "annotation {key}");
    }
}

#[test]
fn manifests_grant_what_the_policy_reads() {
    let policies = yaml("policies/kubewarden/cluster-admission-policy.yaml");
    let validating = &policies[0];
    assert_eq!(validating["kind"], "ClusterAdmissionPolicy");
    assert_eq!(
        resources(&validating["spec"]["contextAwareResources"]),
        code_resources()
    );
    for policy in &policies {
        let granted = resources(&policy["spec"]["contextAwareResources"]);
        assert!(granted.is_subset(&code_resources()));
        for always in ALWAYS_READ {
            assert!(
                granted.contains(&(always.api_version.to_owned(), always.kind.to_owned())),
                "{} must grant {} (read on every evaluation)",
                policy["metadata"]["name"],
                always.kind
            );
        }
        // Every settings block is valid.
        let response =
            spreadlab_policy::settings_response(policy["spec"]["settings"].to_string().as_bytes());
        assert!(response.valid, "{:?}", response.message);
    }

    let rbac = yaml("policies/kubewarden/policy-server-rbac.yaml");
    let role = rbac
        .iter()
        .find(|o| o["kind"] == "ClusterRole")
        .expect("a ClusterRole");
    let granted: BTreeSet<(String, String)> = role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|rule| {
            let verbs: Vec<&str> = rule["verbs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            verbs.contains(&"list") && verbs.contains(&"watch")
        })
        .flat_map(|rule| {
            let groups: Vec<String> = rule["apiGroups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g.as_str().unwrap().to_owned())
                .collect();
            let resources: Vec<String> = rule["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect();
            groups
                .into_iter()
                .flat_map(move |g| resources.clone().into_iter().map(move |r| (g.clone(), r)))
        })
        .collect();
    for resource in CONTEXT_AWARE_RESOURCES {
        let group = resource
            .api_version
            .split_once('/')
            .map_or("", |(group, _)| group);
        let plural = match resource.kind {
            "Node" => "nodes",
            "Pod" => "pods",
            "Namespace" => "namespaces",
            "PriorityClass" => "priorityclasses",
            "PodDisruptionBudget" => "poddisruptionbudgets",
            "Service" => "services",
            "PersistentVolumeClaim" => "persistentvolumeclaims",
            "PersistentVolume" => "persistentvolumes",
            "StorageClass" => "storageclasses",
            "CSINode" => "csinodes",
            "CSIDriver" => "csidrivers",
            "CSIStorageCapacity" => "csistoragecapacities",
            "VolumeAttachment" => "volumeattachments",
            other => panic!("no plural known for {other}"),
        };
        assert!(
            granted.contains(&(group.to_owned(), plural.to_owned())),
            "the ClusterRole does not let the policy server list and watch {plural}"
        );
    }
    let server = rbac
        .iter()
        .find(|o| o["kind"] == "PolicyServer")
        .expect("a PolicyServer");
    assert_eq!(
        server["spec"]["serviceAccountName"],
        rbac.iter().find(|o| o["kind"] == "ServiceAccount").unwrap()["metadata"]["name"]
    );
    assert_eq!(
        server["metadata"]["name"], policies[0]["spec"]["policyServer"],
        "the policy runs on the PolicyServer that has the RBAC"
    );
}
