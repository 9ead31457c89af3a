//! The Kubernetes release the playground mirrors: the engine options an analysis runs with.

use spreadlab_engine::KubeVersion;
use spreadlab_engine::scheduler::{Detail, Options};
use spreadlab_k8s::LoadOptions;

use crate::model::{Analysis, analyse_for};

/// The engine's options for `version`: per-node detail for Pending pods (placed pods' on demand).
pub(crate) fn options_for(version: KubeVersion) -> Options {
    Options {
        detail: Detail::PendingOnly,
        ..Options::for_version(version)
    }
}

impl Analysis {
    /// The engine's options this analysis ran with (its release; what-ifs start from them).
    pub fn options(&self) -> Options {
        options_for(self.version)
    }
}

/// The loader's options for `version`: nodes whose kubelet runs another minor release get a
/// warning each (`status.nodeInfo.kubeletVersion`).
pub(crate) fn load_options_for(version: KubeVersion) -> LoadOptions {
    LoadOptions {
        kubernetes_version: Some(version),
        ..LoadOptions::default()
    }
}

/// [`analyse_for`] with the default release.
pub fn analyse(text: &str) -> Analysis {
    analyse_for(text, KubeVersion::DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples;
    use crate::model::analyse_after;

    /// The three examples whose answer changes with the release: for each release, the pods the
    /// playground places and leaves Pending are those of that release's real scheduler
    /// (`tests/scenarios/<id>/expected*.jsonl`).
    #[test]
    fn version_examples_follow_each_release_recording() {
        let recordings: [(&str, [&str; 4]); 3] = [
            (
                "version-node-declared-features",
                [
                    include_str!(
                        "../../../tests/scenarios/version-node-declared-features/expected-1.34.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-node-declared-features/expected.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-node-declared-features/expected-1.36.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-node-declared-features/expected-1.37.jsonl"
                    ),
                ],
            ),
            (
                "version-namespace-selector-notin",
                [
                    include_str!(
                        "../../../tests/scenarios/version-namespace-selector-notin/expected-1.34.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-namespace-selector-notin/expected.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-namespace-selector-notin/expected-1.36.jsonl"
                    ),
                    include_str!(
                        "../../../tests/scenarios/version-namespace-selector-notin/expected-1.37.jsonl"
                    ),
                ],
            ),
            (
                "version-resize",
                [
                    include_str!("../../../tests/scenarios/version-resize/expected-1.34.jsonl"),
                    include_str!("../../../tests/scenarios/version-resize/expected.jsonl"),
                    include_str!("../../../tests/scenarios/version-resize/expected-1.36.jsonl"),
                    include_str!("../../../tests/scenarios/version-resize/expected-1.37.jsonl"),
                ],
            ),
        ];
        for (id, per_release) in recordings {
            let text = examples::by_id(id).expect("example").text();
            for (version, recording) in KubeVersion::ALL.into_iter().zip(per_release) {
                let analysis = analyse_for(&text, version);
                let placed: Vec<Option<String>> = analysis
                    .decisions()
                    .iter()
                    .map(|d| d.node.clone())
                    .collect();
                let recorded: Vec<Option<String>> = recording
                    .lines()
                    .map(|line| {
                        // The oracle's line: `"node":"<name>"` or `"node":null`.
                        let value = &line[line.find("\"node\":").expect("a node field") + 7..];
                        value
                            .strip_prefix('"')
                            .map(|rest| rest[..rest.find('"').expect("a string")].to_string())
                    })
                    .collect();
                assert_eq!(placed, recorded, "{id} on Kubernetes {version}");
            }
        }
    }

    /// What the views draw, and every decision, from an analysis.
    fn drawn(analysis: &Analysis) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}\n{:?}",
            analysis.errors,
            analysis.warnings,
            analysis.workloads,
            analysis.zones,
            analysis.pending,
            analysis.node_count,
            analysis.decisions()
        )
    }

    /// An analysis after an edit (documents kept from the last read, the placement kept when the
    /// scenario is unchanged) draws what a fresh analysis of the edited text draws, on every
    /// example and release: a comment typed above everything (every line moves), a replica count
    /// changed, a document broken, the release changed, and one example replaced by the next.
    #[test]
    fn an_analysis_after_an_edit_is_a_fresh_analysis() {
        let mut cache = spreadlab_k8s::DocumentCache::new();
        let mut previous: Option<Analysis> = None;
        let mut reused = 0;
        // Releases inside: the same text follows itself under another release.
        for example in examples::EXAMPLES {
            for version in KubeVersion::ALL {
                let text = example.text();
                let edits = [
                    text.clone(),
                    format!("# a comment\n{text}"),
                    text.replacen("replicas: ", "replicas: 1", 1),
                    text.replacen("kind: ", "kind: [", 1),
                    text.clone(),
                ];
                for edited in edits {
                    let after = analyse_after(&edited, version, previous.as_ref(), &mut cache);
                    assert_eq!(
                        drawn(&after),
                        drawn(&analyse_for(&edited, version)),
                        "{} on {version}",
                        example.id
                    );
                    if previous
                        .as_ref()
                        .is_some_and(|p| std::rc::Rc::ptr_eq(&p.settled, &after.settled))
                    {
                        reused += 1;
                    }
                    previous = Some(after);
                }
            }
        }
        // The comment and the return to the text keep the placement.
        assert!(
            reused >= 2 * examples::EXAMPLES.len(),
            "{reused} placements kept"
        );
    }

    /// A node whose kubelet runs another minor release than the chosen one is a warning the
    /// editor shows (at the node's `kubeletVersion`); the chosen release itself is none.
    #[test]
    fn kubelet_of_another_release_is_a_warning() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n  nodeInfo: {kubeletVersion: v1.36.2, architecture: amd64, bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '', machineID: '', operatingSystem: linux, osImage: '', systemUUID: ''}\n";
        let warned = |version| {
            analyse_for(text, version)
                .warnings
                .iter()
                .any(|w| w.message.contains("runs kubelet v1.36.2") && w.line.is_some())
        };
        assert!(warned(KubeVersion::V1_37));
        assert!(!warned(KubeVersion::V1_36));
    }
}
