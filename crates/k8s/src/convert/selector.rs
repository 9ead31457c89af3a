//! Label selectors and node selector terms, validated as the API server validates them
//! (`pkg/apis/core/validation`, `apimachinery/pkg/apis/meta/v1/validation`).

use k8s_openapi::api::core::v1 as api;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use spreadlab_engine::model::pod::OBJECT_NAME_FIELD;
use spreadlab_engine::model::validation;
use spreadlab_engine::model::{NodeSelectorTerm, Operator, Requirement, Selector};

use super::unsupported;
use crate::error::ConvertError;

/// `metav1.LabelSelectorAsSelector`: nil is [`Selector::Nothing`], otherwise `matchLabels` and
/// `matchExpressions` (only `In`, `NotIn`, `Exists`, `DoesNotExist`) ANDed.
pub(crate) fn label_selector(
    selector: Option<&LabelSelector>,
    path: super::FieldPath<'_>,
) -> Result<Selector, ConvertError> {
    let Some(selector) = selector else {
        return Ok(Selector::Nothing);
    };
    let mut expressions = Vec::new();
    for (index, expression) in selector.match_expressions.iter().flatten().enumerate() {
        let operator = match Operator::parse(&expression.operator) {
            Some(
                operator @ (Operator::In
                | Operator::NotIn
                | Operator::Exists
                | Operator::DoesNotExist),
            ) => operator,
            _ => {
                return Err(ConvertError::new(
                    format!("{path}.matchExpressions[{index}].operator"),
                    unsupported(
                        &expression.operator,
                        &["In", "NotIn", "Exists", "DoesNotExist"],
                    ),
                ));
            }
        };
        let values = expression.values.clone().unwrap_or_default();
        let requirement =
            Requirement::new(expression.key.clone(), operator, values).map_err(|error| {
                ConvertError::new(
                    format!("{path}.matchExpressions[{index}].values"),
                    error.to_string(),
                )
            })?;
        expressions.push(requirement);
    }
    let match_labels = selector.match_labels.clone().unwrap_or_default();
    Selector::from_parts(&match_labels, expressions)
        .map_err(|error| ConvertError::new(path.to_string(), error.to_string()))
}

/// The error `metav1.LabelSelectorAsSelector` returns for invalid label keys or values (the first
/// failing requirement: `matchLabels` in key order, then `matchExpressions`), or `None`.
pub(crate) fn label_selector_error(selector: Option<&LabelSelector>) -> Option<String> {
    let selector = selector?;
    for (key, value) in selector.match_labels.iter().flatten() {
        if let Some(error) = validation::requirement_error("", key, std::slice::from_ref(value)) {
            return Some(error);
        }
    }
    selector
        .match_expressions
        .iter()
        .flatten()
        .find_map(|expression| {
            validation::requirement_error(
                "",
                &expression.key,
                expression.values.as_deref().unwrap_or_default(),
            )
        })
}

/// The parse errors component-helpers' `nodeSelectorRequirementsAsSelector` reports for a term's
/// `matchExpressions` (paths relative to the term), aggregated, or `None`.
fn node_term_error(term: &api::NodeSelectorTerm) -> Option<String> {
    let errors: Vec<String> = term
        .match_expressions
        .iter()
        .flatten()
        .enumerate()
        .filter_map(|(index, expression)| {
            validation::requirement_error(
                &format!("matchExpressions[{index}]"),
                &expression.key,
                expression.values.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    validation::aggregate(&errors)
}

/// One node selector term: `matchExpressions` on labels (all six operators, `Gt`/`Lt` with one
/// integer value) and `matchFields` (only `metadata.name`, `In`/`NotIn`, exactly one value).
pub(crate) fn node_selector_term(
    term: &api::NodeSelectorTerm,
    path: &str,
) -> Result<NodeSelectorTerm, ConvertError> {
    let mut converted = NodeSelectorTerm {
        parse_error: node_term_error(term),
        ..NodeSelectorTerm::default()
    };
    for (index, expression) in term.match_expressions.iter().flatten().enumerate() {
        let here = format!("{path}.matchExpressions[{index}]");
        let Some(operator) = Operator::parse(&expression.operator) else {
            return Err(ConvertError::new(
                format!("{here}.operator"),
                unsupported(
                    &expression.operator,
                    &["DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"],
                ),
            ));
        };
        let values = expression.values.clone().unwrap_or_default();
        let requirement = Requirement::new(expression.key.clone(), operator, values)
            .map_err(|error| ConvertError::new(format!("{here}.values"), error.to_string()))?;
        converted.match_expressions.push(requirement);
    }
    for (index, field) in term.match_fields.iter().flatten().enumerate() {
        let here = format!("{path}.matchFields[{index}]");
        if field.key != OBJECT_NAME_FIELD {
            return Err(ConvertError::new(
                format!("{here}.key"),
                format!(
                    "Invalid value: {:?}: not a valid field selector key",
                    field.key
                ),
            ));
        }
        let operator = match field.operator.as_str() {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            other => {
                return Err(ConvertError::new(
                    format!("{here}.operator"),
                    format!("Invalid value: {other:?}: not a valid selector operator"),
                ));
            }
        };
        let values = field.values.clone().unwrap_or_default();
        if values.len() != 1 {
            return Err(ConvertError::new(
                format!("{here}.values"),
                "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            ));
        }
        let requirement = Requirement::new(field.key.clone(), operator, values)
            .map_err(|error| ConvertError::new(format!("{here}.values"), error.to_string()))?;
        converted.match_fields.push(requirement);
    }
    Ok(converted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn expression(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: Some(values.iter().map(|v| v.to_string()).collect()),
        }
    }

    #[test]
    fn nil_is_nothing_and_empty_is_everything() {
        assert_eq!(label_selector(None, &"s").unwrap(), Selector::Nothing);
        assert_eq!(
            label_selector(Some(&LabelSelector::default()), &"s").unwrap(),
            Selector::everything()
        );
    }

    #[test]
    fn label_selectors_reject_gt_and_bad_counts() {
        let selector = LabelSelector {
            match_expressions: Some(vec![expression("a", "Gt", &["1"])]),
            ..Default::default()
        };
        let error = label_selector(Some(&selector), &"spec.selector").unwrap_err();
        assert_eq!(error.path, "spec.selector.matchExpressions[0].operator");
        let selector = LabelSelector {
            match_expressions: Some(vec![expression("a", "In", &[])]),
            ..Default::default()
        };
        let error = label_selector(Some(&selector), &"spec.selector").unwrap_err();
        assert_eq!(error.path, "spec.selector.matchExpressions[0].values");
    }

    #[test]
    fn match_fields_only_name_with_one_value() {
        let field = |key: &str, operator: &str, values: &[&str]| api::NodeSelectorTerm {
            match_fields: Some(vec![api::NodeSelectorRequirement {
                key: key.into(),
                operator: operator.into(),
                values: Some(values.iter().map(|v| v.to_string()).collect()),
            }]),
            ..Default::default()
        };
        assert!(node_selector_term(&field("metadata.name", "In", &["n1"]), "t").is_ok());
        assert_eq!(
            node_selector_term(&field("metadata.uid", "In", &["n1"]), "t")
                .unwrap_err()
                .path,
            "t.matchFields[0].key"
        );
        assert_eq!(
            node_selector_term(&field("metadata.name", "In", &["a", "b"]), "t")
                .unwrap_err()
                .path,
            "t.matchFields[0].values"
        );
        assert_eq!(
            node_selector_term(&field("metadata.name", "Exists", &[]), "t")
                .unwrap_err()
                .path,
            "t.matchFields[0].operator"
        );
    }
}
