//! Plugin args: the scheduler configuration types the profile carries and the plugins read
//! (upstream `pkg/scheduler/apis/config/types_pluginargs.go`, defaults from
//! `pkg/scheduler/apis/config/v1/defaults.go`). Both the framework's profile and the plugins
//! import them from here, so the framework needs no plugin for its configuration.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::model::resources::{CPU, MEMORY};
use crate::model::{NodeAffinity, TopologySpreadConstraint};

/// Plugin args (`InterPodAffinityArgs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffinityArgs {
    /// `hardPodAffinityWeight` (default 1, 0..100).
    pub hard_pod_affinity_weight: i32,
    /// `ignorePreferredTermsOfExistingPods` (default false).
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for AffinityArgs {
    fn default() -> Self {
        AffinityArgs {
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

/// Plugin args (`NodeAffinityArgs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeAffinityArgs {
    /// `addedAffinity`: node affinity the profile enforces on every pod.
    pub added_affinity: Option<NodeAffinity>,
}

/// `config.ScoringStrategy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScoringStrategy {
    /// `LeastAllocated` (the default).
    LeastAllocated,
    /// `MostAllocated`.
    MostAllocated,
    /// `RequestedToCapacityRatio` with its shape (scores scaled to 0..100).
    RequestedToCapacityRatio(Vec<UtilizationShapePoint>),
}

/// Plugin args (`NodeResourcesFitArgs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitArgs {
    /// `ignoredResources`.
    pub ignored_resources: BTreeSet<String>,
    /// `ignoredResourceGroups`.
    pub ignored_resource_groups: BTreeSet<String>,
    /// `scoringStrategy.type` (+ shape).
    pub strategy: ScoringStrategy,
    /// `scoringStrategy.resources`.
    pub resources: Vec<ResourceSpec>,
}

impl Default for FitArgs {
    fn default() -> Self {
        FitArgs {
            ignored_resources: BTreeSet::new(),
            ignored_resource_groups: BTreeSet::new(),
            strategy: ScoringStrategy::LeastAllocated,
            resources: ResourceSpec::defaults(),
        }
    }
}

/// Plugin args (`NodeResourcesBalancedAllocationArgs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BalancedAllocationArgs {
    /// Resources to balance (default cpu and memory, weight 1).
    pub resources: Vec<ResourceSpec>,
}

impl Default for BalancedAllocationArgs {
    fn default() -> Self {
        BalancedAllocationArgs {
            resources: ResourceSpec::defaults(),
        }
    }
}

/// A resource and its weight (`config.ResourceSpec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceSpec {
    /// Resource name.
    pub name: String,
    /// Weight (a configured 0 becomes 1 in defaulting).
    pub weight: i64,
}

impl ResourceSpec {
    /// The default `[cpu: 1, memory: 1]`.
    pub fn defaults() -> Vec<ResourceSpec> {
        alloc::vec![
            ResourceSpec {
                name: String::from(CPU),
                weight: 1
            },
            ResourceSpec {
                name: String::from(MEMORY),
                weight: 1
            }
        ]
    }
}

/// One point of the utilization shape, with the score already scaled to 0..100 (config 0..10 × 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtilizationShapePoint {
    /// Utilization 0..100.
    pub utilization: i64,
    /// Score 0..100.
    pub score: i64,
}

/// `PodTopologySpreadArgs.defaultingType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultingType {
    /// Built-in defaults: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
    System,
    /// The configured `defaultConstraints`.
    List,
}

/// Plugin args (`PodTopologySpreadArgs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadArgs {
    /// `defaultingType` (v1 default `System`).
    pub defaulting_type: DefaultingType,
    /// `defaultConstraints` (must be empty with `System`).
    pub default_constraints: Vec<TopologySpreadConstraint>,
}

impl Default for SpreadArgs {
    fn default() -> Self {
        SpreadArgs {
            defaulting_type: DefaultingType::System,
            default_constraints: Vec::new(),
        }
    }
}
