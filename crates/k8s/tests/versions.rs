//! The release check of the loader: nodes whose kubelet runs another minor release than the
//! chosen one get one warning per minor (at the first such node, on its field); nodes of the
//! chosen minor, nodes without a kubelet version and loads without a chosen release get none.

use spreadlab_engine::KubeVersion;
use spreadlab_k8s::{LoadOptions, Source};

fn node(name: &str, kubelet: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nstatus:\n  allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}\n  nodeInfo:\n    kubeletVersion: {kubelet}\n    architecture: amd64\n    bootID: ''\n    containerRuntimeVersion: ''\n    kernelVersion: ''\n    kubeProxyVersion: ''\n    machineID: ''\n    operatingSystem: linux\n    osImage: ''\n    systemUUID: ''\n"
    )
}

fn warnings(version: Option<KubeVersion>) -> Vec<(Option<String>, Option<usize>, String)> {
    let text = [
        node("a", "v1.36.4"),
        node("b", "v1.37.1-gke.200"),
        node("c", "v1.36.2"),
        node("d", "''"),
    ]
    .join("---\n");
    let loaded = spreadlab_k8s::load(
        &[Source {
            name: "nodes.yaml".into(),
            text,
        }],
        &LoadOptions {
            kubernetes_version: version,
            ..LoadOptions::default()
        },
    );
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded
        .warnings
        .iter()
        .map(|w| (w.path.clone(), w.line, w.message.clone()))
        .collect()
}

#[test]
fn kubelet_versions_of_another_minor_are_warned_once() {
    let on_137 = warnings(Some(KubeVersion::V1_37));
    assert_eq!(on_137.len(), 1, "{on_137:?}");
    let (path, line, message) = &on_137[0];
    assert_eq!(path.as_deref(), Some("status.nodeInfo.kubeletVersion"));
    assert!(line.is_some());
    assert!(
        message.contains("node \"a\" runs kubelet v1.36.4")
            && message.contains("kube-scheduler 1.37"),
        "{message}"
    );
    // Chosen 1.36: node b (1.37) is the other minor.
    let on_136 = warnings(Some(KubeVersion::V1_36));
    assert_eq!(on_136.len(), 1, "{on_136:?}");
    assert!(
        on_136[0]
            .2
            .contains("node \"b\" runs kubelet v1.37.1-gke.200")
    );
    // 1.35: both other minors, once each.
    assert_eq!(warnings(Some(KubeVersion::V1_35)).len(), 2);
    assert!(warnings(None).is_empty());
}
