//! The policy's settings: typed, with their defaults, and validated in one place
//! ([`Settings::from_json`] parses and validates; [`Settings::validate`] is the only check).
//! Documented for users in `crates/policy/README.md`.

use serde::Deserialize;
use spreadlab_engine::KubeVersion;
use spreadlab_engine::analysis::failure::FailureMode;
use spreadlab_engine::analysis::lint;
use spreadlab_engine::model::{Labels, Operator, Requirement, Selector, WhenUnsatisfiable};

/// The zone label, the default topology key of the mutation's spread.
pub const ZONE_KEY: &str = "topology.kubernetes.io/zone";

/// What a violation does to the request.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Reject the request with the violations as its message.
    #[default]
    Reject,
    /// Accept it, returning the violations as warnings (`kubectl` prints them).
    Warn,
}

/// What happens to a request the policy cannot read (not an admission request, an object the
/// loader cannot convert, a cluster read that fails). Never a silent accept.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OnUnparseable {
    /// Reject it, naming what could not be read.
    #[default]
    Reject,
    /// Accept it with a warning naming what could not be read.
    Warn,
}

/// A `metav1.LabelSelector` as written in the settings.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelSelectorSetting {
    /// `matchLabels`.
    #[serde(default)]
    pub match_labels: Labels,
    /// `matchExpressions`.
    #[serde(default)]
    pub match_expressions: Vec<ExpressionSetting>,
}

/// One `matchExpressions` entry.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpressionSetting {
    /// `key`.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// `values`.
    #[serde(default)]
    pub values: Vec<String>,
}

impl LabelSelectorSetting {
    /// The engine's selector, or what is wrong with it (`field` names it in the message).
    pub fn to_selector(&self, field: &str) -> Result<Selector, String> {
        let mut expressions = Vec::new();
        for (index, expression) in self.match_expressions.iter().enumerate() {
            let at = format!("{field}.matchExpressions[{index}]");
            let operator = Operator::parse(&expression.operator)
                .filter(|op| !matches!(op, Operator::Gt | Operator::Lt))
                .ok_or_else(|| {
                    format!(
                        "{at}.operator: {:?} is not one of In, NotIn, Exists, DoesNotExist",
                        expression.operator
                    )
                })?;
            let requirement =
                Requirement::new(expression.key.clone(), operator, expression.values.clone())
                    .map_err(|error| format!("{at}: {error}"))?;
            expressions.push(requirement);
        }
        Selector::from_parts(&self.match_labels, expressions)
            .map_err(|error| format!("{field}: {error}"))
    }
}

/// Which requests the policy looks at; the others are accepted untouched.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Scope {
    /// Only these namespaces (empty: every namespace).
    pub namespaces: Vec<String>,
    /// Never these namespaces.
    pub excluded_namespaces: Vec<String>,
    /// Only objects whose `metadata.labels` match (absent: every object).
    pub label_selector: Option<LabelSelectorSetting>,
    /// Only workloads whose pod template requests (or limits) one of `gpuResources`.
    pub gpu_only: bool,
    /// The resource names that count as GPUs for `gpuOnly`.
    pub gpu_resources: Vec<String>,
    /// Also check what built-in controllers make from checked objects: the ReplicaSets a
    /// Deployment creates and the Pods of ReplicaSets, StatefulSets, Jobs, ReplicationControllers
    /// and DaemonSets. Off by default: the owner was checked when it was admitted, and rejecting
    /// its children only stalls it. Workloads with any other controller (an operator's custom
    /// resource) are always checked.
    pub check_controlled_objects: bool,
}

impl Default for Scope {
    fn default() -> Scope {
        Scope {
            namespaces: Vec::new(),
            excluded_namespaces: vec![String::from("kube-system")],
            label_selector: None,
            gpu_only: false,
            gpu_resources: vec![String::from("nvidia.com/gpu")],
            check_controlled_objects: false,
        }
    }
}

/// A topology key every workload must spread over.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequiredTopologyKey {
    /// The key a `topologySpreadConstraints` entry must use.
    pub topology_key: String,
    /// The placed replicas must occupy at least `min(minDomains, replicas)` distinct values of
    /// the key on the current cluster (absent: only the constraint is required).
    #[serde(default)]
    pub min_domains: Option<u32>,
}

/// The zone failure the survival check simulates.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ZoneLossMode {
    /// The zone's nodes are gone with their pods.
    #[default]
    Removed,
    /// The zone's nodes stay, NotReady and tainted unreachable; under the default
    /// `nodeTaintsPolicy: Ignore` they still count as (empty) spread domains.
    Unreachable,
}

impl ZoneLossMode {
    /// The engine's failure mode.
    pub fn failure_mode(self) -> FailureMode {
        match self {
            ZoneLossMode::Removed => FailureMode::Removed,
            ZoneLossMode::Unreachable => FailureMode::Unreachable,
        }
    }
}

/// `DoNotSchedule` or `ScheduleAnyway`, as written.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum WhenUnsatisfiableSetting {
    /// Hard.
    DoNotSchedule,
    /// Soft.
    ScheduleAnyway,
}

impl WhenUnsatisfiableSetting {
    /// As written in a manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            WhenUnsatisfiableSetting::DoNotSchedule => "DoNotSchedule",
            WhenUnsatisfiableSetting::ScheduleAnyway => "ScheduleAnyway",
        }
    }
}

/// The spread the mutation adds to a workload that has none on `topologyKey`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct DefaultSpread {
    /// Topology key.
    pub topology_key: String,
    /// maxSkew (at least 1).
    pub max_skew: i32,
    /// Absent: `DoNotSchedule` (as `policies/kyverno/mutate.yaml` adds it; the `rejectPending`
    /// check then runs on the mutated object, so a spread the cluster cannot satisfy is refused
    /// at admission rather than left Pending).
    pub when_unsatisfiable: Option<WhenUnsatisfiableSetting>,
}

impl Default for DefaultSpread {
    fn default() -> DefaultSpread {
        DefaultSpread {
            topology_key: String::from(ZONE_KEY),
            max_skew: 1,
            when_unsatisfiable: None,
        }
    }
}

/// Every setting. Unknown fields are errors, so a misspelt setting is never silently ignored.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Settings {
    /// Reject, or accept with warnings.
    pub mode: Mode,
    /// What happens with a request the policy cannot read.
    pub on_unparseable: OnUnparseable,
    /// Mutating variant: add `matchLabelKeys: [pod-template-hash]` (Deployments) and
    /// `defaultSpread` when absent; the checks then run on the mutated object.
    pub mutate: bool,
    /// The spread the mutation adds.
    pub default_spread: DefaultSpread,
    /// Which requests are checked.
    pub scope: Scope,
    /// Topology keys every workload must spread over (and how widely).
    pub required_topology_keys: Vec<RequiredTopologyKey>,
    /// Largest `maxSkew` allowed on the spread constraints on the required keys (on every
    /// constraint when none is required).
    pub max_skew: Option<i32>,
    /// Spread constraints on the required keys (on every key when none is required) must be
    /// `whenUnsatisfiable: DoNotSchedule`.
    pub require_do_not_schedule: bool,
    /// Reject when any replica would stay Pending on the current cluster.
    pub reject_pending: bool,
    /// Fraction (0 to 1) of the desired replicas that must run, after rescheduling, when any one
    /// zone is lost.
    pub min_zone_loss_survival: Option<f64>,
    /// How the zone is lost for `minZoneLossSurvival`.
    pub zone_loss_mode: ZoneLossMode,
    /// On an UPDATE that changes the pod template of a Deployment or StatefulSet: reject when
    /// the rollout would stall.
    pub reject_rollout_stall: bool,
    /// Lint rule IDs (`spreadlab lint --rules`) whose findings are violations.
    pub lint_rules: Vec<String>,
    /// The Kubernetes release whose kube-scheduler the checks mirror (`"1.36"`, `"v1.36.3"`):
    /// the cluster's control-plane release. Unset: spreadlab's default release.
    pub kubernetes_version: Option<String>,
}

impl Settings {
    /// The release chosen by `kubernetesVersion` (validated), else the default release.
    pub fn version(&self) -> KubeVersion {
        self.kubernetes_version
            .as_deref()
            .and_then(|text| KubeVersion::parse(text).ok())
            .unwrap_or_default()
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            mode: Mode::Reject,
            on_unparseable: OnUnparseable::Reject,
            mutate: false,
            default_spread: DefaultSpread::default(),
            scope: Scope::default(),
            required_topology_keys: Vec::new(),
            max_skew: None,
            require_do_not_schedule: false,
            reject_pending: true,
            min_zone_loss_survival: None,
            zone_loss_mode: ZoneLossMode::Removed,
            reject_rollout_stall: false,
            lint_rules: Vec::new(),
            kubernetes_version: None,
        }
    }
}

impl Settings {
    /// Parses and validates settings JSON (`null` or an empty object gives the defaults). The
    /// error names the field.
    pub fn from_json(json: &serde_json::Value) -> Result<Settings, String> {
        let settings: Settings = if json.is_null() {
            Settings::default()
        } else if !json.is_object() {
            return Err(String::from("settings: must be a JSON object"));
        } else {
            serde_path_to_error::deserialize(json).map_err(|error| {
                let path = error.path().to_string();
                if path == "." {
                    format!("settings: {}", error.inner())
                } else {
                    format!("{path}: {}", error.inner())
                }
            })?
        };
        settings.validate()?;
        Ok(settings)
    }

    /// The one place settings are checked; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(text) = &self.kubernetes_version {
            KubeVersion::parse(text).map_err(|e| format!("kubernetesVersion: {e}"))?;
        }
        if let Some(selector) = &self.scope.label_selector {
            selector.to_selector("scope.labelSelector")?;
        }
        if self.scope.gpu_only && self.scope.gpu_resources.is_empty() {
            return Err(String::from(
                "scope.gpuResources: must name at least one resource when scope.gpuOnly is set",
            ));
        }
        for (index, required) in self.required_topology_keys.iter().enumerate() {
            if required.topology_key.is_empty() {
                return Err(format!(
                    "requiredTopologyKeys[{index}].topologyKey: must not be empty"
                ));
            }
            if required.min_domains == Some(0) {
                return Err(format!(
                    "requiredTopologyKeys[{index}].minDomains: must be at least 1"
                ));
            }
        }
        if let Some(max_skew) = self.max_skew
            && max_skew < 1
        {
            return Err(format!("maxSkew: must be at least 1, got {max_skew}"));
        }
        if let Some(fraction) = self.min_zone_loss_survival
            && !(0.0..=1.0).contains(&fraction)
        {
            return Err(format!(
                "minZoneLossSurvival: must be a fraction between 0 and 1, got {fraction}"
            ));
        }
        for (index, id) in self.lint_rules.iter().enumerate() {
            if lint::rule(id).is_none() {
                let known: Vec<&str> = lint::RULES.iter().map(|r| r.id).collect();
                return Err(format!(
                    "lintRules[{index}]: unknown rule {id:?}; known rules: {}",
                    known.join(", ")
                ));
            }
        }
        if self.default_spread.topology_key.is_empty() {
            return Err(String::from("defaultSpread.topologyKey: must not be empty"));
        }
        if self.default_spread.max_skew < 1 {
            return Err(format!(
                "defaultSpread.maxSkew: must be at least 1, got {}",
                self.default_spread.max_skew
            ));
        }
        Ok(())
    }

    /// The scope's label selector (validated).
    pub fn scope_selector(&self) -> Option<Selector> {
        self.scope
            .label_selector
            .as_ref()
            .and_then(|s| s.to_selector("scope.labelSelector").ok())
    }

    /// `whenUnsatisfiable` of the spread the mutation adds.
    pub fn default_spread_when(&self) -> WhenUnsatisfiable {
        match self.default_spread.when_unsatisfiable {
            Some(WhenUnsatisfiableSetting::DoNotSchedule) => WhenUnsatisfiable::DoNotSchedule,
            Some(WhenUnsatisfiableSetting::ScheduleAnyway) => WhenUnsatisfiable::ScheduleAnyway,
            None => WhenUnsatisfiable::DoNotSchedule,
        }
    }

    /// Whether any check needs the cluster (Nodes and Pods read through the host).
    pub fn needs_cluster(&self) -> bool {
        self.reject_pending
            || self.min_zone_loss_survival.is_some()
            || self.reject_rollout_stall
            || !self.lint_rules.is_empty()
            || self.counts_domains()
    }

    /// Whether a required key asks for `minDomains`: the domains the replicas run in are counted.
    pub fn counts_domains(&self) -> bool {
        self.required_topology_keys
            .iter()
            .any(|r| r.min_domains.is_some())
    }
}

#[cfg(feature = "kubewarden")]
impl kubewarden_policy_sdk::settings::Validatable for Settings {
    fn validate(&self) -> Result<(), String> {
        Settings::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_and_null_give_the_defaults() {
        assert_eq!(
            Settings::from_json(&json!({})).unwrap(),
            Settings::default()
        );
        assert_eq!(
            Settings::from_json(&serde_json::Value::Null).unwrap(),
            Settings::default()
        );
        let defaults = Settings::default();
        assert!(defaults.reject_pending);
        assert_eq!(defaults.on_unparseable, OnUnparseable::Reject);
        assert_eq!(defaults.mode, Mode::Reject);
    }

    #[test]
    fn every_field_parses() {
        let settings = Settings::from_json(&json!({
            "mode": "warn",
            "onUnparseable": "warn",
            "mutate": true,
            "defaultSpread": {"topologyKey": "kubernetes.io/hostname", "maxSkew": 2, "whenUnsatisfiable": "DoNotSchedule"},
            "scope": {
                "namespaces": ["ml"], "excludedNamespaces": [],
                "labelSelector": {"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["gpu"]}]},
                "gpuOnly": true, "gpuResources": ["nvidia.com/gpu", "amd.com/gpu"], "checkControlledObjects": true
            },
            "requiredTopologyKeys": [{"topologyKey": "topology.kubernetes.io/zone", "minDomains": 3}],
            "maxSkew": 1,
            "requireDoNotSchedule": true,
            "rejectPending": false,
            "minZoneLossSurvival": 0.66,
            "zoneLossMode": "unreachable",
            "rejectRolloutStall": true,
            "lintRules": ["spread-without-selector", "missing-pod-template-hash-key"]
        }))
        .unwrap();
        assert_eq!(settings.mode, Mode::Warn);
        assert_eq!(settings.required_topology_keys[0].min_domains, Some(3));
        assert_eq!(settings.zone_loss_mode, ZoneLossMode::Unreachable);
        assert!(settings.scope_selector().is_some());
        assert_eq!(
            settings.default_spread_when(),
            WhenUnsatisfiable::DoNotSchedule
        );
    }

    #[test]
    fn bad_settings_name_the_field() {
        let cases = [
            (json!({"mdoe": "warn"}), "unknown field `mdoe`"),
            (json!({"mode": "silent"}), "unknown variant `silent`"),
            (
                json!({"onUnparseable": "accept"}),
                "unknown variant `accept`",
            ),
            (json!({"maxSkew": 0}), "maxSkew: must be at least 1"),
            (json!({"maxSkew": "one"}), "maxSkew: invalid type"),
            (json!({"minZoneLossSurvival": 66}), "minZoneLossSurvival"),
            (
                json!({"lintRules": ["no-such-rule"]}),
                "lintRules[0]: unknown rule",
            ),
            (
                json!({"requiredTopologyKeys": [{"topologyKey": ""}]}),
                "requiredTopologyKeys[0].topologyKey",
            ),
            (
                json!({"requiredTopologyKeys": [{"topologyKey": "z", "minDomains": 0}]}),
                "requiredTopologyKeys[0].minDomains",
            ),
            (
                json!({"scope": {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}}}),
                "scope.labelSelector.matchExpressions[0].operator",
            ),
            (
                json!({"scope": {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}}),
                "scope.labelSelector.matchExpressions[0]",
            ),
            (
                json!({"scope": {"gpuOnly": true, "gpuResources": []}}),
                "scope.gpuResources",
            ),
            (
                json!({"defaultSpread": {"maxSkew": 0}}),
                "defaultSpread.maxSkew",
            ),
            (json!([1, 2]), "settings: must be a JSON object"),
        ];
        for (json, expected) in cases {
            let error = Settings::from_json(&json).unwrap_err();
            assert!(error.contains(expected), "{json}: {error}");
        }
    }
}
