//! What can go wrong on the way in: input errors and warnings (located in a file) and conversion
//! errors (located in an object).

use core::fmt;

/// A document or object that was rejected and skipped; loading went on without it.
///
/// Every field that is known is filled: the file (or `-`), the 0-based document index, the object
/// (`Kind/namespace/name`, or `Kind/name` for cluster-scoped kinds), the field path inside the
/// object and the 1-based line and column (the parser's for syntax errors; for errors found
/// while converting YAML, the field's own position when its path can be followed in the text,
/// else the document's start line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputError {
    /// The source's name: a file path, `-` for stdin, or the origin given to `load_values`.
    pub file: String,
    /// The 0-based index of the document in the source.
    pub document: Option<usize>,
    /// `Kind/namespace/name` (`Kind/name` when cluster-scoped) when known.
    pub object: Option<String>,
    /// The field path, e.g. `spec.template.spec.containers[0].resources.requests.cpu`.
    pub path: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Something loaded, but maybe not as the author meant (an unknown kind skipped, a field dropped).
///
/// Same fields and display as [`InputError`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputWarning {
    /// The source's name: a file path, `-` for stdin, or the origin given to `load_values`.
    pub file: String,
    /// The 0-based index of the document in the source.
    pub document: Option<usize>,
    /// `Kind/namespace/name` (`Kind/name` when cluster-scoped) when known.
    pub object: Option<String>,
    /// The field path.
    pub path: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What happened.
    pub message: String,
}

/// An object the API server's validation would reject, or a value that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError {
    /// The field path inside the object, e.g. `spec.affinity.nodeAffinity...matchFields[0].values`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ConvertError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ConvertError {
        ConvertError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The same error seen from an enclosing object: `prefix.path`.
    pub(crate) fn under(mut self, prefix: &str) -> ConvertError {
        self.path = join_path(prefix, &self.path);
        self
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConvertError {}

/// `prefix` + `path` with a `.` between them unless `path` is empty or starts with an index.
pub(crate) fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

/// The shared `file:line:col: document N (Kind ns/name): path: message` layout.
#[allow(clippy::too_many_arguments)]
fn write_located(
    f: &mut fmt::Formatter<'_>,
    file: &str,
    line: Option<usize>,
    column: Option<usize>,
    document: Option<usize>,
    object: Option<&str>,
    path: Option<&str>,
    message: &str,
) -> fmt::Result {
    f.write_str(file)?;
    if let Some(line) = line {
        write!(f, ":{line}")?;
        if let Some(column) = column {
            write!(f, ":{column}")?;
        }
    }
    f.write_str(":")?;
    if let Some(document) = document {
        write!(f, " document {document}")?;
    }
    if let Some(object) = object {
        // `Kind/ns/name` is shown as `Kind ns/name`, as kubectl names objects.
        match object.split_once('/') {
            Some((kind, rest)) => write!(f, " ({kind} {rest})")?,
            None => write!(f, " ({object})")?,
        }
    }
    if document.is_some() || object.is_some() {
        f.write_str(":")?;
    }
    if let Some(path) = path.filter(|p| !p.is_empty()) {
        write!(f, " {path}:")?;
    }
    write!(f, " {message}")
}

impl fmt::Display for InputError {
    /// `file:line:col: document 3 (Deployment default/web): spec.replicas: message`, leaving out
    /// the parts that are unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_located(
            f,
            &self.file,
            self.line,
            self.column,
            self.document,
            self.object.as_deref(),
            self.path.as_deref(),
            &self.message,
        )
    }
}

impl std::error::Error for InputError {}

impl fmt::Display for InputWarning {
    /// Same layout as [`InputError`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_located(
            f,
            &self.file,
            self.line,
            self.column,
            self.document,
            self.object.as_deref(),
            self.path.as_deref(),
            &self.message,
        )
    }
}

impl From<InputError> for InputWarning {
    fn from(error: InputError) -> InputWarning {
        let InputError {
            file,
            document,
            object,
            path,
            line,
            column,
            message,
        } = error;
        InputWarning {
            file,
            document,
            object,
            path,
            line,
            column,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_every_known_part() {
        let error = InputError {
            file: "app.yaml".into(),
            document: Some(3),
            object: Some("Deployment/default/web".into()),
            path: Some("spec.replicas".into()),
            line: Some(12),
            column: Some(5),
            message: "invalid type: string \"x\", expected i32".into(),
        };
        assert_eq!(
            error.to_string(),
            "app.yaml:12:5: document 3 (Deployment default/web): spec.replicas: invalid type: string \"x\", expected i32"
        );
    }

    #[test]
    fn display_leaves_out_unknown_parts() {
        let error = InputError {
            file: "-".into(),
            message: "too big".into(),
            ..InputError::default()
        };
        assert_eq!(error.to_string(), "-: too big");
        let error = InputError {
            file: "a.yaml".into(),
            line: Some(2),
            document: Some(0),
            message: "m".into(),
            ..InputError::default()
        };
        assert_eq!(error.to_string(), "a.yaml:2: document 0: m");
        let warning = InputWarning {
            file: "n.yaml".into(),
            object: Some("Node/n1".into()),
            message: "m".into(),
            ..InputWarning::default()
        };
        assert_eq!(warning.to_string(), "n.yaml: (Node n1): m");
    }

    #[test]
    fn join_path_handles_indexes_and_empties() {
        assert_eq!(
            join_path("spec.template", "spec.containers"),
            "spec.template.spec.containers"
        );
        assert_eq!(join_path("items", "[2].spec"), "items[2].spec");
        assert_eq!(join_path("", "spec"), "spec");
        assert_eq!(join_path("spec", ""), "spec");
    }
}
