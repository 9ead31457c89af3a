//! The scheduling profile: which plugins run at which extension point, their weights and args, and
//! the Kubernetes release whose semantics apply. Mirrors `pkg/scheduler/apis/config/v1/default_plugins.go`
//! and `defaults.go` of each supported release.

use alloc::vec::Vec;

use super::names::PluginName;
use crate::config::{AffinityArgs, BalancedAllocationArgs, FitArgs, NodeAffinityArgs, SpreadArgs};
use crate::version::KubeVersion;

/// A profile: the enabled plugins in order, score weights and plugin args.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// The release whose scheduler this profile mirrors: plugins read it where a release changed
    /// a formula, a message or a default.
    pub version: KubeVersion,
    /// Filter plugins (PreFilter runs for those that have one), in upstream order.
    pub filters: Vec<PluginName>,
    /// Score plugins with their weights, in upstream order.
    pub scores: Vec<(PluginName, i64)>,
    /// Whether PostFilter (DynamicResources note + DefaultPreemption) runs.
    pub post_filter: bool,
    /// NodeAffinity args.
    pub node_affinity: NodeAffinityArgs,
    /// NodeResourcesFit args.
    pub fit: FitArgs,
    /// NodeResourcesBalancedAllocation args.
    pub balanced_allocation: BalancedAllocationArgs,
    /// PodTopologySpread args.
    pub spread: SpreadArgs,
    /// InterPodAffinity args.
    pub inter_pod_affinity: AffinityArgs,
    /// `percentageOfNodesToScore`: `None` for the adaptive default. Only used to say how many nodes
    /// the real scheduler would have examined; spreadlab evaluates every node.
    pub percentage_of_nodes_to_score: Option<i32>,
}

impl Profile {
    /// The default profile of kube-scheduler v1.35 (`getDefaultPlugins`), without DynamicResources'
    /// Filter and Score (not modelled; no-ops for pods without resource claims).
    pub fn default_v1_35() -> Profile {
        Profile::default_for(KubeVersion::V1_35)
    }

    /// The default profile of a release (`getDefaultPlugins` of its
    /// `pkg/scheduler/apis/config/v1/default_plugins.go`), without DynamicResources' Filter and
    /// Score (not modelled; no-ops for pods without resource claims).
    pub fn default_for(version: KubeVersion) -> Profile {
        Profile {
            version,
            // v1.37 moved NodeName before NodeUnschedulable (apis/config/v1/default_plugins.go).
            filters: Vec::from(if version.since(37) {
                [PluginName::NodeName, PluginName::NodeUnschedulable]
            } else {
                [PluginName::NodeUnschedulable, PluginName::NodeName]
            })
            .into_iter()
            .chain([
                PluginName::TaintToleration,
                PluginName::NodeAffinity,
                PluginName::NodePorts,
                PluginName::NodeResourcesFit,
                PluginName::VolumeRestrictions,
                PluginName::NodeVolumeLimits,
                PluginName::VolumeBinding,
                PluginName::VolumeZone,
                PluginName::PodTopologySpread,
                PluginName::InterPodAffinity,
            ])
            // v1.36: the NodeDeclaredFeatures gate is beta and on; `applyFeatureGates` appends the
            // plugin to MultiPoint, after every other filter (apis/config/v1/default_plugins.go).
            .chain(
                version
                    .since(36)
                    .then_some(PluginName::NodeDeclaredFeatures),
            )
            .collect(),
            scores: [
                (PluginName::TaintToleration, 3),
                (PluginName::NodeAffinity, 2),
                (PluginName::NodeResourcesFit, 1),
            ]
            .into_iter()
            // v1.37: StorageCapacityScoring is beta and on, so VolumeBinding scores (weight 1, in
            // its MultiPoint place); up to v1.36 it has no scorer.
            .chain(version.since(37).then_some((PluginName::VolumeBinding, 1)))
            .chain([
                (PluginName::PodTopologySpread, 2),
                (PluginName::InterPodAffinity, 2),
                (PluginName::NodeResourcesBalancedAllocation, 1),
                (PluginName::ImageLocality, 1),
            ])
            .collect(),
            post_filter: true,
            node_affinity: NodeAffinityArgs::default(),
            fit: FitArgs::default(),
            balanced_allocation: BalancedAllocationArgs::default(),
            spread: SpreadArgs::default(),
            inter_pod_affinity: AffinityArgs::default(),
            percentage_of_nodes_to_score: None,
        }
    }

    /// A profile with a single plugin at every extension point it implements (weight 1), as the
    /// upstream plugin unit tests drive it.
    pub fn single(plugin: PluginName) -> Profile {
        Profile::single_for(plugin, KubeVersion::V1_35)
    }

    /// [`Profile::single`] of a release's default profile.
    pub fn single_for(plugin: PluginName, version: KubeVersion) -> Profile {
        let mut profile = Profile::default_for(version);
        profile.filters.retain(|p| *p == plugin);
        profile.scores.retain(|(p, _)| *p == plugin);
        profile
            .scores
            .iter_mut()
            .for_each(|(_, weight)| *weight = 1);
        profile.post_filter = false;
        profile
    }

    /// `numFeasibleNodesToFind`: how many feasible nodes the real scheduler stops at.
    pub fn num_feasible_nodes_to_find(&self, num_all_nodes: usize) -> usize {
        const MIN_FEASIBLE_NODES_TO_FIND: i64 = 100;
        const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;
        let n = num_all_nodes as i64;
        if n < MIN_FEASIBLE_NODES_TO_FIND {
            return num_all_nodes;
        }
        let mut percentage = self.percentage_of_nodes_to_score.unwrap_or(0) as i64;
        if percentage == 0 {
            percentage = 50 - n / 125;
            if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND {
                percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
            }
        }
        let mut k = (n * percentage / 100) as i32 as i64;
        if k < MIN_FEASIBLE_NODES_TO_FIND {
            k = MIN_FEASIBLE_NODES_TO_FIND;
        }
        k.min(n) as usize
    }
}
