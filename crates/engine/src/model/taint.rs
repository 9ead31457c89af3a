//! Taints and tolerations with `k8s.io/api/core/v1/toleration.go` (v0.35) matching.

use alloc::string::String;

/// A taint effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaintEffect {
    /// `NoSchedule`.
    NoSchedule,
    /// `PreferNoSchedule`.
    PreferNoSchedule,
    /// `NoExecute`.
    NoExecute,
}

impl TaintEffect {
    /// Parses the API spelling.
    pub fn parse(text: &str) -> Option<TaintEffect> {
        Some(match text {
            "NoSchedule" => TaintEffect::NoSchedule,
            "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
            "NoExecute" => TaintEffect::NoExecute,
            _ => return None,
        })
    }

    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
        }
    }
}

/// A node taint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Taint {
    /// Key.
    pub key: String,
    /// Value (may be empty).
    pub value: String,
    /// Effect.
    pub effect: TaintEffect,
}

/// A toleration operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TolerationOperator {
    /// `Equal` (also an empty operator).
    Equal,
    /// `Exists`.
    Exists,
    /// `Lt` (alpha gate TaintTolerationComparisonOperators, off in v1.35: never matches).
    Lt,
    /// `Gt` (alpha gate, off in v1.35: never matches).
    Gt,
    /// Any other spelling: never matches.
    Unknown,
}

/// A pod toleration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toleration {
    /// Key; empty matches every key.
    pub key: String,
    /// Operator.
    pub operator: TolerationOperator,
    /// Value.
    pub value: String,
    /// Effect; `None` (empty) matches every effect.
    pub effect: Option<TaintEffect>,
}

impl Toleration {
    /// `Toleration.ToleratesTaint` with the v1.35 default feature gates.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if let Some(effect) = self.effect
            && effect != taint.effect
        {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator {
            TolerationOperator::Equal => self.value == taint.value,
            TolerationOperator::Exists => true,
            TolerationOperator::Lt | TolerationOperator::Gt | TolerationOperator::Unknown => false,
        }
    }
}

/// `TolerationsTolerateTaint`: any toleration matches.
pub fn tolerations_tolerate_taint(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| t.tolerates(taint))
}

/// `FindMatchingUntoleratedTaint` with an inclusion filter: the first taint (in node order) that
/// passes `include` and that no toleration tolerates.
pub fn find_untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    include: impl Fn(&Taint) -> bool,
) -> Option<&'a Taint> {
    taints
        .iter()
        .find(|taint| include(taint) && !tolerations_tolerate_taint(tolerations, taint))
}
