//! Label key and value validation with apimachinery's exact messages
//! (`k8s.io/apimachinery/pkg/util/validation/validation.go`, `pkg/labels/selector.go`
//! `NewRequirement`, `pkg/util/validation/field/errors.go`).
//!
//! The API server rejects objects whose selectors fail these checks, but the scheduler re-parses
//! selectors and reports the same errors (InterPodAffinity's `parsing pod: ...`), so the engine keeps
//! the text to reproduce those verdicts.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const QUALIFIED_NAME_MAX_LENGTH: usize = 63;
const LABEL_VALUE_MAX_LENGTH: usize = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// `validation.RegexError`.
fn regex_error(message: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{message} (regex used for validation is '{fmt}')");
    }
    let mut text = format!("{message} (e.g. ");
    for (index, example) in examples.iter().enumerate() {
        if index > 0 {
            text.push_str(" or ");
        }
        text.push_str(&format!("'{example}', "));
    }
    text.push_str(&format!("regex used for validation is '{fmt}')"));
    text
}

fn is_alphanumeric(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` over the whole string.
fn matches_qualified_name_part(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && is_alphanumeric(bytes[0])
        && is_alphanumeric(bytes[bytes.len() - 1])
        && bytes
            .iter()
            .all(|c| is_alphanumeric(*c) || matches!(c, b'-' | b'_' | b'.'))
}

fn matches_dns1123_subdomain(text: &str) -> bool {
    text.split('.').all(|label| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
            && (bytes[bytes.len() - 1].is_ascii_lowercase()
                || bytes[bytes.len() - 1].is_ascii_digit())
            && bytes
                .iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
    })
}

/// `validation.IsQualifiedName`: the error strings (empty when valid).
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push(String::from("prefix part must be non-empty"));
            } else {
                if prefix.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
                    errors.push(format!(
                        "prefix part must be no more than {DNS1123_SUBDOMAIN_MAX_LENGTH} characters"
                    ));
                }
                if !matches_dns1123_subdomain(prefix) {
                    errors.push(format!(
                        "prefix part {}",
                        regex_error(
                            DNS1123_SUBDOMAIN_ERR_MSG,
                            DNS1123_SUBDOMAIN_FMT,
                            &["example.com"]
                        )
                    ));
                }
            }
            name
        }
        _ => {
            errors.push(format!(
                "a qualified name {}",
                regex_error(
                    QUALIFIED_NAME_ERR_MSG,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return errors;
        }
    };
    if name.is_empty() {
        errors.push(String::from("name part must be non-empty"));
    } else if name.len() > QUALIFIED_NAME_MAX_LENGTH {
        errors.push(format!(
            "name part must be no more than {QUALIFIED_NAME_MAX_LENGTH} characters"
        ));
    }
    if !matches_qualified_name_part(name) {
        errors.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errors
}

/// `validation.IsValidLabelValue`: the error strings (empty when valid).
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errors.push(format!(
            "must be no more than {LABEL_VALUE_MAX_LENGTH} characters"
        ));
    }
    if !value.is_empty() && !matches_qualified_name_part(value) {
        errors.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errors
}

/// `field.Invalid(path, value, detail).Error()` for a string value.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    let quoted = format!("{value:?}");
    if path.is_empty() {
        format!("Invalid value: {quoted}: {detail}")
    } else {
        format!("{path}: Invalid value: {quoted}: {detail}")
    }
}

/// `utilerrors.NewAggregate(errors).Error()`: one error as is, several (deduplicated) in brackets.
pub fn aggregate(errors: &[String]) -> Option<String> {
    let mut seen: Vec<&String> = Vec::new();
    for error in errors {
        if !seen.contains(&error) {
            seen.push(error);
        }
    }
    match seen.len() {
        0 => None,
        1 => Some(seen[0].clone()),
        _ => Some(format!(
            "[{}]",
            seen.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The error of `labels.NewRequirement(key, op, values)` for the key and value checks, with the
/// field path prefix `path` (empty for label selectors). `None` when the requirement is valid.
pub fn requirement_error(path: &str, key: &str, values: &[String]) -> Option<String> {
    let join = |p: &str, child: &str| {
        if p.is_empty() {
            String::from(child)
        } else {
            format!("{p}.{child}")
        }
    };
    let mut errors = Vec::new();
    let key_errors = is_qualified_name(key);
    if !key_errors.is_empty() {
        errors.push(invalid(&join(path, "key"), key, &key_errors.join("; ")));
    }
    for (index, value) in values.iter().enumerate() {
        let value_errors = is_valid_label_value(value);
        if !value_errors.is_empty() {
            let value_path = format!("{}[{index}][{key}]", join(path, "values"));
            errors.push(invalid(&value_path, value, &value_errors.join("; ")));
        }
    }
    aggregate(&errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_value_message_matches_apimachinery() {
        assert_eq!(
            requirement_error("", "service", &[String::from("{{.bad-value.}}")]).unwrap(),
            "values[0][service]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        );
    }

    #[test]
    fn key_message_matches_apimachinery() {
        assert_eq!(
            requirement_error(
                "[0].matchExpressions[0]",
                "invalid key",
                &[String::from("bar")]
            )
            .unwrap(),
            "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
    }

    #[test]
    fn valid_names_pass() {
        assert!(is_qualified_name("topology.kubernetes.io/zone").is_empty());
        assert!(is_valid_label_value("").is_empty());
        assert!(is_valid_label_value("zone-a_1.b").is_empty());
        assert!(!is_qualified_name("a/b/c").is_empty());
    }
}
