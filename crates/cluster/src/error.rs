//! Why a cluster could not be read, in words naming the server, the context, the kind and the
//! verb (what an RBAC rule must grant).

use std::fmt;

use crate::kinds::{KINDS, Kind};
use crate::read::Cluster;

/// A read that failed.
#[derive(Debug)]
pub enum ReadError {
    /// The kubeconfig, the context or the in-cluster configuration cannot be used.
    Config(String),
    /// `401`: the server refused the credentials.
    Unauthorized {
        /// The server's URL.
        server: String,
        /// The context used.
        context: String,
        /// The server's message.
        message: String,
    },
    /// `403`: the credentials may not list this kind.
    Forbidden {
        /// The server's URL.
        server: String,
        /// The context used.
        context: String,
        /// The kind refused.
        kind: &'static Kind,
        /// The server's message.
        message: String,
    },
    /// The server could not be reached (connection, TLS, timeout).
    Unreachable {
        /// The server's URL.
        server: String,
        /// The context used.
        context: String,
        /// What failed, with its causes.
        message: String,
    },
    /// Any other error answer of the server.
    Api {
        /// The server's URL.
        server: String,
        /// The kind being listed.
        kind: &'static Kind,
        /// HTTP status.
        code: u16,
        /// The server's message.
        message: String,
    },
    /// An answer that is not a list.
    Invalid {
        /// The server, path and page.
        what: String,
        /// What is wrong with it.
        message: String,
    },
}

impl ReadError {
    /// The error of listing `kind` on `cluster`.
    pub(crate) fn from_kube(kind: &'static Kind, cluster: &Cluster, error: kube::Error) -> Self {
        let server = cluster.server.clone();
        let context = cluster.context.clone();
        match error {
            kube::Error::Api(status) if status.code == 401 => ReadError::Unauthorized {
                server,
                context,
                message: status.message,
            },
            kube::Error::Api(status) if status.code == 403 => ReadError::Forbidden {
                server,
                context,
                kind,
                message: status.message,
            },
            kube::Error::Api(status) => ReadError::Api {
                server,
                kind,
                code: status.code,
                message: status.message,
            },
            other => ReadError::Unreachable {
                server,
                context,
                message: chain(&other),
            },
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Config(message) => f.write_str(message),
            ReadError::Unauthorized {
                server,
                context,
                message,
            } => write!(
                f,
                "{server} (context \"{context}\"): 401 Unauthorized: the API server refused the \
                 credentials: {message}"
            ),
            ReadError::Forbidden {
                server,
                context,
                kind,
                message,
            } => write!(
                f,
                "{server} (context \"{context}\"): cannot list {plural} (verb `list` on resource \
                 `{plural}` in API group {group}): 403 Forbidden: {message}. spreadlab lists {n} \
                 kinds, every one read-only: policies/rbac/spreadlab-reader.yaml is the \
                 ClusterRole granting exactly those",
                plural = kind.plural,
                group = kind.group_display(),
                n = KINDS.len(),
            ),
            ReadError::Unreachable {
                server,
                context,
                message,
            } => write!(
                f,
                "{server} (context \"{context}\"): cannot reach the API server: {message}"
            ),
            ReadError::Api {
                server,
                kind,
                code,
                message,
            } => write!(
                f,
                "{server}: listing {} (`{}`) failed with status {code}: {message}",
                kind.plural,
                kind.path()
            ),
            ReadError::Invalid { what, message } => write!(f, "{what}: {message}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// `error` and its causes, `: `-separated, each cause once (wrappers often repeat their source's
/// text).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}
