//! The kinds spreadlab reads from an API server: exactly those its loader reads
//! (`spreadlab_k8s` `load/mod.rs` `add_object`), each with the path that lists it.

/// One kind listed from the API server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// API group (`""` for the core group).
    pub group: &'static str,
    /// Version listed (the one the loader's types read).
    pub version: &'static str,
    /// Resource name in the URL (`pods`), as RBAC rules name it.
    pub plural: &'static str,
    /// The object kind (`Pod`).
    pub kind: &'static str,
    /// Objects live in namespaces (listed across all of them).
    pub namespaced: bool,
    /// Without it no answer is right (Nodes, Pods): a server not serving it is an error. Every
    /// other kind a server does not serve (its API group turned off) is skipped with a warning.
    pub required: bool,
}

impl Kind {
    /// The path listing every object of the kind, in every namespace.
    pub fn path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}/{}", self.version, self.plural)
        } else {
            format!("/apis/{}/{}/{}", self.group, self.version, self.plural)
        }
    }

    /// `apiVersion` of the kind's objects (`apps/v1`, `v1`).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The API group as RBAC rules and the API server's messages write it (`""` for core).
    pub fn group_display(&self) -> String {
        format!("\"{}\"", self.group)
    }
}

const fn kind(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> Kind {
    Kind {
        group,
        version,
        plural,
        kind,
        namespaced,
        required: false,
    }
}

/// Every kind read, in the order read: what other objects refer to first (namespaces, classes,
/// storage), then nodes, then workloads and their pods.
pub const KINDS: &[Kind] = &[
    kind("", "v1", "namespaces", "Namespace", false),
    kind(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "PriorityClass",
        false,
    ),
    kind("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false),
    kind("", "v1", "limitranges", "LimitRange", true),
    kind(
        "storage.k8s.io",
        "v1",
        "storageclasses",
        "StorageClass",
        false,
    ),
    kind("storage.k8s.io", "v1", "csidrivers", "CSIDriver", false),
    kind("storage.k8s.io", "v1", "csinodes", "CSINode", false),
    kind(
        "storage.k8s.io",
        "v1",
        "csistoragecapacities",
        "CSIStorageCapacity",
        true,
    ),
    kind(
        "storage.k8s.io",
        "v1",
        "volumeattachments",
        "VolumeAttachment",
        false,
    ),
    kind("", "v1", "persistentvolumes", "PersistentVolume", false),
    kind(
        "",
        "v1",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        true,
    ),
    Kind {
        required: true,
        ..kind("", "v1", "nodes", "Node", false)
    },
    kind("", "v1", "services", "Service", true),
    kind(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        true,
    ),
    kind(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        true,
    ),
    kind("apps", "v1", "deployments", "Deployment", true),
    kind("apps", "v1", "replicasets", "ReplicaSet", true),
    kind("apps", "v1", "statefulsets", "StatefulSet", true),
    kind(
        "apps",
        "v1",
        "controllerrevisions",
        "ControllerRevision",
        true,
    ),
    kind(
        "",
        "v1",
        "replicationcontrollers",
        "ReplicationController",
        true,
    ),
    kind("batch", "v1", "jobs", "Job", true),
    Kind {
        required: true,
        ..kind("", "v1", "pods", "Pod", true)
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_api_versions() {
        let pods = KINDS.iter().find(|k| k.kind == "Pod").unwrap();
        assert_eq!(pods.path(), "/api/v1/pods");
        assert_eq!(pods.api_version(), "v1");
        let deployments = KINDS.iter().find(|k| k.kind == "Deployment").unwrap();
        assert_eq!(deployments.path(), "/apis/apps/v1/deployments");
        assert_eq!(deployments.api_version(), "apps/v1");
    }

    /// Every kind listed is one the loader reads: an object of each loads without the loader's
    /// "is not read by spreadlab" warning (errors for the missing fields do not matter here).
    #[test]
    fn every_kind_listed_is_read_by_the_loader() {
        for kind in KINDS {
            let text = format!(
                "{{\"apiVersion\":\"{}\",\"kind\":\"{}List\",\"items\":[{{\"metadata\":{{\"name\":\"x\"}}}}]}}",
                kind.api_version(),
                kind.kind
            );
            let source = spreadlab_k8s::Source {
                name: "list.json".into(),
                text,
            };
            let loaded = spreadlab_k8s::load(&[source], &spreadlab_k8s::LoadOptions::default());
            let unread = |m: &String| m.contains("is not read by spreadlab");
            let messages: Vec<String> = loaded.warnings.iter().map(|w| w.to_string()).collect();
            assert!(!messages.iter().any(unread), "{}: {messages:?}", kind.kind);
        }
        // The check itself sees a kind the loader does not read.
        let other = spreadlab_k8s::Source {
            name: "list.json".into(),
            text: "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMapList\",\"items\":[{\"metadata\":{\"name\":\"x\"}}]}".into(),
        };
        let loaded = spreadlab_k8s::load(&[other], &spreadlab_k8s::LoadOptions::default());
        assert!(
            loaded
                .warnings
                .iter()
                .any(|w| w.to_string().contains("is not read by spreadlab"))
        );
    }

    /// `policies/rbac/spreadlab-reader.yaml` grants `list` and `watch` on exactly the kinds read:
    /// none missing (a read would be refused), none more (read-only and least privilege).
    #[test]
    fn the_reader_role_grants_every_kind() {
        let text = include_str!("../../../policies/rbac/spreadlab-reader.yaml");
        let role: serde_json::Value = serde_saphyr::from_str(text).unwrap();
        let mut granted: Vec<(String, String)> = Vec::new();
        for rule in role["rules"].as_array().unwrap() {
            let verbs: Vec<&str> = rule["verbs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(verbs, ["list", "watch"], "{rule}");
            for group in rule["apiGroups"].as_array().unwrap() {
                for resource in rule["resources"].as_array().unwrap() {
                    granted.push((
                        group.as_str().unwrap().into(),
                        resource.as_str().unwrap().into(),
                    ));
                }
            }
        }
        granted.sort();
        let mut read: Vec<(String, String)> = KINDS
            .iter()
            .map(|k| (k.group.to_owned(), k.plural.to_owned()))
            .collect();
        read.sort();
        assert_eq!(granted, read);
    }
}
