//! Plugin names (`pkg/scheduler/framework/plugins/names/names.go`): the closed set this engine implements.

use core::fmt;

/// A scheduler plugin of the default profile that affects placement.
///
/// DynamicResources' Filter and Score are not modelled (see `ARCHITECTURE.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PluginName {
    /// `NodeUnschedulable`.
    NodeUnschedulable,
    /// `NodeName`.
    NodeName,
    /// `TaintToleration`.
    TaintToleration,
    /// `NodeAffinity`.
    NodeAffinity,
    /// `NodePorts`.
    NodePorts,
    /// `NodeResourcesFit`.
    NodeResourcesFit,
    /// `VolumeRestrictions`.
    VolumeRestrictions,
    /// `NodeVolumeLimits`.
    NodeVolumeLimits,
    /// `VolumeBinding`.
    VolumeBinding,
    /// `VolumeZone`.
    VolumeZone,
    /// `PodTopologySpread`.
    PodTopologySpread,
    /// `InterPodAffinity`.
    InterPodAffinity,
    /// `DynamicResources` (PostFilter note only).
    DynamicResources,
    /// `DefaultPreemption`.
    DefaultPreemption,
    /// `NodeResourcesBalancedAllocation`.
    NodeResourcesBalancedAllocation,
    /// `ImageLocality`.
    ImageLocality,
    /// `NodeDeclaredFeatures` (default profile from v1.36).
    NodeDeclaredFeatures,
}

impl PluginName {
    /// Every plugin, in default-profile order.
    pub const ALL: [PluginName; 17] = [
        PluginName::NodeUnschedulable,
        PluginName::NodeName,
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
        PluginName::DynamicResources,
        PluginName::DefaultPreemption,
        PluginName::NodeResourcesBalancedAllocation,
        PluginName::ImageLocality,
        PluginName::NodeDeclaredFeatures,
    ];

    /// The upstream name.
    pub fn as_str(self) -> &'static str {
        match self {
            PluginName::NodeUnschedulable => "NodeUnschedulable",
            PluginName::NodeName => "NodeName",
            PluginName::TaintToleration => "TaintToleration",
            PluginName::NodeAffinity => "NodeAffinity",
            PluginName::NodePorts => "NodePorts",
            PluginName::NodeResourcesFit => "NodeResourcesFit",
            PluginName::VolumeRestrictions => "VolumeRestrictions",
            PluginName::NodeVolumeLimits => "NodeVolumeLimits",
            PluginName::VolumeBinding => "VolumeBinding",
            PluginName::VolumeZone => "VolumeZone",
            PluginName::PodTopologySpread => "PodTopologySpread",
            PluginName::InterPodAffinity => "InterPodAffinity",
            PluginName::DynamicResources => "DynamicResources",
            PluginName::DefaultPreemption => "DefaultPreemption",
            PluginName::NodeResourcesBalancedAllocation => "NodeResourcesBalancedAllocation",
            PluginName::ImageLocality => "ImageLocality",
            PluginName::NodeDeclaredFeatures => "NodeDeclaredFeatures",
        }
    }

    /// Parses the upstream name.
    pub fn parse(text: &str) -> Option<PluginName> {
        PluginName::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

impl fmt::Display for PluginName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
