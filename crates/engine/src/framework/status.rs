//! Plugin verdicts: the closed set of status codes of `k8s.io/kube-scheduler/framework/interface.go`.
//!
//! A verdict is data, not an error: `Unschedulable` is an expected outcome. Plugins do not return
//! `Error` for expected failures.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::names::PluginName;

/// A status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// The plugin ran and the pod may go on.
    Success,
    /// An internal error: the cycle fails, the pod is retried later.
    Error,
    /// The pod does not fit this node now; preemption may help.
    Unschedulable,
    /// The pod does not fit this node and preemption cannot help; the node is not a preemption candidate.
    UnschedulableAndUnresolvable,
    /// The plugin has nothing to do for this pod (PreFilter/PreScore only).
    Skip,
}

impl Code {
    /// The Go spelling (`Success`, `Unschedulable`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Error => "Error",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Skip => "Skip",
        }
    }

    /// Parses the Go spelling.
    pub fn parse(text: &str) -> Option<Code> {
        Some(match text {
            "Success" => Code::Success,
            "Error" => Code::Error,
            "Unschedulable" => Code::Unschedulable,
            "UnschedulableAndUnresolvable" => Code::UnschedulableAndUnresolvable,
            "Skip" => Code::Skip,
            _ => return None,
        })
    }

    /// Whether the code rejects the pod (`Unschedulable` or `UnschedulableAndUnresolvable`).
    pub fn is_rejected(self) -> bool {
        matches!(
            self,
            Code::Unschedulable | Code::UnschedulableAndUnresolvable
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A plugin verdict: a code, the reasons (exact upstream strings) and the plugin that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// Reasons, in the order the plugin gave them.
    pub reasons: Vec<String>,
    /// The plugin that returned it (set by the runtime).
    pub plugin: Option<PluginName>,
}

impl Status {
    /// `Success` with no reasons.
    pub const fn success() -> Status {
        Status {
            code: Code::Success,
            reasons: Vec::new(),
            plugin: None,
        }
    }

    /// `Skip`.
    pub const fn skip() -> Status {
        Status {
            code: Code::Skip,
            reasons: Vec::new(),
            plugin: None,
        }
    }

    /// A status with one reason.
    pub fn new(code: Code, reason: impl Into<String>) -> Status {
        Status {
            code,
            reasons: alloc::vec![reason.into()],
            plugin: None,
        }
    }

    /// A status with several reasons.
    pub fn with_reasons(code: Code, reasons: Vec<String>) -> Status {
        Status {
            code,
            reasons,
            plugin: None,
        }
    }

    /// Tags the status with the plugin that returned it.
    pub fn from_plugin(mut self, plugin: PluginName) -> Status {
        self.plugin = Some(plugin);
        self
    }

    /// Whether the code is `Success`.
    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }

    /// `Status.Message()`: the reasons joined with `", "`.
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}
