//! Typed labels and label selectors with apimachinery semantics (`k8s.io/apimachinery/pkg/labels`).
//!
//! A `metav1.LabelSelector` is parsed once into a [`Selector`]. The distinction between a nil selector
//! ([`Selector::Nothing`], matches no label set) and an empty one (no requirements, matches every label
//! set) is kept, because the scheduler plugins treat them differently.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A set of labels: key to value, ordered by key.
pub type Labels = BTreeMap<String, String>;

/// The operator of one selector requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operator {
    /// The key exists and its value is one of the values.
    In,
    /// The key does not exist, or its value is none of the values.
    NotIn,
    /// The key exists.
    Exists,
    /// The key does not exist.
    DoesNotExist,
    /// The key exists and its value, an integer, is greater than the single value (node affinity only).
    Gt,
    /// The key exists and its value, an integer, is less than the single value (node affinity only).
    Lt,
}

impl Operator {
    /// Parses the API spelling (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`).
    pub fn parse(text: &str) -> Option<Operator> {
        Some(match text {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            "Gt" => Operator::Gt,
            "Lt" => Operator::Lt,
            _ => return None,
        })
    }

    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::In => "In",
            Operator::NotIn => "NotIn",
            Operator::Exists => "Exists",
            Operator::DoesNotExist => "DoesNotExist",
            Operator::Gt => "Gt",
            Operator::Lt => "Lt",
        }
    }
}

/// One requirement of a selector: `key <operator> values`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// The operator.
    pub operator: Operator,
    /// The values, sorted and deduplicated as apimachinery stores them.
    pub values: Vec<String>,
}

/// Why a requirement or selector could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectorError {
    /// An operator the selector kind does not support.
    UnsupportedOperator(String),
    /// `In`/`NotIn` without values.
    ValuesRequired(String),
    /// `Exists`/`DoesNotExist` with values.
    ValuesForbidden(String),
    /// `Gt`/`Lt` without exactly one integer value.
    IntegerValueRequired(String),
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectorError::UnsupportedOperator(op) => {
                write!(f, "{op:?} is not a valid label selector operator")
            }
            SelectorError::ValuesRequired(key) => {
                write!(
                    f,
                    "for 'In', 'NotIn' operators, values set can't be empty (key {key:?})"
                )
            }
            SelectorError::ValuesForbidden(key) => write!(
                f,
                "values set must be empty for exists and does not exist (key {key:?})"
            ),
            SelectorError::IntegerValueRequired(key) => write!(
                f,
                "for 'Gt', 'Lt' operators, exactly one value is required and it must be an integer (key {key:?})"
            ),
        }
    }
}

impl core::error::Error for SelectorError {}

impl Requirement {
    /// Builds a requirement, checking the value count the operator needs.
    pub fn new(
        key: impl Into<String>,
        operator: Operator,
        values: Vec<String>,
    ) -> Result<Requirement, SelectorError> {
        let key = key.into();
        match operator {
            Operator::In | Operator::NotIn if values.is_empty() => {
                return Err(SelectorError::ValuesRequired(key));
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
                return Err(SelectorError::ValuesForbidden(key));
            }
            Operator::Gt | Operator::Lt
                if values.len() != 1 || values[0].parse::<i64>().is_err() =>
            {
                return Err(SelectorError::IntegerValueRequired(key));
            }
            _ => {}
        }
        let mut values = values;
        values.sort();
        values.dedup();
        Ok(Requirement {
            key,
            operator,
            values,
        })
    }

    /// `key = value`, as a `matchLabels` entry becomes.
    pub fn equals(key: impl Into<String>, value: impl Into<String>) -> Requirement {
        Requirement {
            key: key.into(),
            operator: Operator::In,
            values: alloc::vec![value.into()],
        }
    }

    /// Whether the label set satisfies this requirement.
    pub fn matches(&self, labels: &Labels) -> bool {
        match self.operator {
            Operator::In => labels
                .get(&self.key)
                .is_some_and(|value| self.values.iter().any(|v| v == value)),
            Operator::NotIn => labels
                .get(&self.key)
                .is_none_or(|value| !self.values.iter().any(|v| v == value)),
            Operator::Exists => labels.contains_key(&self.key),
            Operator::DoesNotExist => !labels.contains_key(&self.key),
            Operator::Gt | Operator::Lt => {
                let Some(value) = labels.get(&self.key) else {
                    return false;
                };
                let (Ok(have), Ok(bound)) = (value.parse::<i64>(), self.values[0].parse::<i64>())
                else {
                    return false;
                };
                if self.operator == Operator::Gt {
                    have > bound
                } else {
                    have < bound
                }
            }
        }
    }
}

/// A parsed label selector.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Selector {
    /// A nil `labelSelector`: matches nothing (`labels.Nothing()`).
    Nothing,
    /// The AND of the requirements; no requirements matches everything (`labels.Everything()`).
    Requirements(Vec<Requirement>),
}

impl Selector {
    /// The selector that matches every label set.
    pub fn everything() -> Selector {
        Selector::Requirements(Vec::new())
    }

    /// Builds a selector from `matchLabels` and `matchExpressions`, as
    /// `metav1.LabelSelectorAsSelector` does: only `In`, `NotIn`, `Exists` and `DoesNotExist` are
    /// allowed, requirements are sorted by key.
    pub fn from_parts(
        match_labels: &Labels,
        expressions: Vec<Requirement>,
    ) -> Result<Selector, SelectorError> {
        let mut requirements: Vec<Requirement> =
            Vec::with_capacity(match_labels.len() + expressions.len());
        for (key, value) in match_labels {
            requirements.push(Requirement::equals(key.clone(), value.clone()));
        }
        for requirement in expressions {
            if matches!(requirement.operator, Operator::Gt | Operator::Lt) {
                return Err(SelectorError::UnsupportedOperator(String::from(
                    requirement.operator.as_str(),
                )));
            }
            requirements.push(requirement);
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Selector::Requirements(requirements))
    }

    /// `labels.SelectorFromSet`: `key = value` for every entry (an empty set matches everything).
    pub fn from_set(set: &Labels) -> Selector {
        Selector::Requirements(
            set.iter()
                .map(|(k, v)| Requirement::equals(k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Whether the label set matches.
    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::Requirements(requirements) => requirements.iter().all(|r| r.matches(labels)),
        }
    }

    /// `Selector.Empty()`: true only for the match-everything selector.
    pub fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }

    /// Adds requirements (AND), keeping [`Selector::Nothing`] as it is.
    pub fn and(&self, extra: impl IntoIterator<Item = Requirement>) -> Selector {
        match self {
            Selector::Nothing => Selector::Nothing,
            Selector::Requirements(existing) => {
                let mut requirements = existing.clone();
                requirements.extend(extra);
                requirements.sort_by(|a, b| a.key.cmp(&b.key));
                Selector::Requirements(requirements)
            }
        }
    }
}

impl fmt::Display for Selector {
    /// The apimachinery string form (`a=b,c in (d,e),!f`); `<none>` for the nil selector.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Nothing => f.write_str("<none>"),
            Selector::Requirements(requirements) => {
                for (index, r) in requirements.iter().enumerate() {
                    if index > 0 {
                        f.write_str(",")?;
                    }
                    match r.operator {
                        Operator::In if r.values.len() == 1 => {
                            write!(f, "{}={}", r.key, r.values[0])?
                        }
                        Operator::In => write!(f, "{} in ({})", r.key, r.values.join(","))?,
                        Operator::NotIn => write!(f, "{} notin ({})", r.key, r.values.join(","))?,
                        Operator::Exists => write!(f, "{}", r.key)?,
                        Operator::DoesNotExist => write!(f, "!{}", r.key)?,
                        Operator::Gt => write!(f, "{}>{}", r.key, r.values[0])?,
                        Operator::Lt => write!(f, "{}<{}", r.key, r.values[0])?,
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (String::from(*k), String::from(*v)))
            .collect()
    }

    #[test]
    fn nil_matches_nothing_and_empty_matches_everything() {
        assert!(!Selector::Nothing.matches(&labels(&[])));
        assert!(Selector::everything().matches(&labels(&[])));
        assert!(Selector::everything().is_empty());
        assert!(!Selector::Nothing.is_empty());
    }

    #[test]
    fn not_in_matches_absent_key() {
        let r = Requirement::new("zone", Operator::NotIn, vec!["a".into()]).unwrap();
        assert!(r.matches(&labels(&[])));
        assert!(!r.matches(&labels(&[("zone", "a")])));
        assert!(r.matches(&labels(&[("zone", "b")])));
    }

    #[test]
    fn gt_lt_need_integers() {
        let r = Requirement::new("n", Operator::Gt, vec!["3".into()]).unwrap();
        assert!(r.matches(&labels(&[("n", "4")])));
        assert!(!r.matches(&labels(&[("n", "3")])));
        assert!(!r.matches(&labels(&[("n", "x")])));
        assert!(!r.matches(&labels(&[])));
        assert!(Requirement::new("n", Operator::Gt, vec!["x".into()]).is_err());
    }

    #[test]
    fn and_keeps_nothing() {
        assert_eq!(
            Selector::Nothing.and([Requirement::equals("a", "b")]),
            Selector::Nothing
        );
        let s = Selector::everything().and([Requirement::equals("a", "b")]);
        assert!(s.matches(&labels(&[("a", "b")])));
        assert!(!s.is_empty());
    }
}
