//! The release check of the loader: a node whose kubelet runs another minor release than the one
//! the answers are for (`LoadOptions::kubernetes_version`).

use k8s_openapi::api::core::v1 as core_api;

use super::{Loader, Place};

impl Loader<'_> {
    /// A node whose `status.nodeInfo.kubeletVersion` is of another minor release than the one
    /// chosen (`LoadOptions::kubernetes_version`): one warning per such minor, at its first node.
    /// The control plane may run another release than the kubelets, so it is a hint, not an error.
    pub(super) fn check_kubelet_version(
        &mut self,
        place: &Place,
        name: &str,
        node: &core_api::Node,
    ) {
        let Some(chosen) = self.options.kubernetes_version else {
            return;
        };
        let Some(kubelet) = node
            .status
            .as_ref()
            .and_then(|s| s.node_info.as_ref())
            .map(|info| info.kubelet_version.as_str())
            .filter(|v| !v.is_empty())
        else {
            return;
        };
        let minor: String = kubelet
            .trim_start_matches('v')
            .split('.')
            .take(2)
            .collect::<Vec<_>>()
            .join(".");
        if minor == chosen.as_str() || !self.kubelet_minors_warned.insert(minor) {
            return;
        }
        let message = format!(
            "node {name:?} runs kubelet {kubelet}, but the answers are for kube-scheduler {chosen} \
             (the chosen release): if the cluster's control plane runs another release, choose it"
        );
        self.loaded
            .warnings
            .push(place.warning(Some("status.nodeInfo.kubeletVersion"), message));
    }
}
