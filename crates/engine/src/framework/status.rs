//! Plugin verdicts: the closed set of status codes of `k8s.io/kube-scheduler/framework/interface.go`.
//!
//! A verdict is data, not an error: `Unschedulable` is an expected outcome. Plugins do not return
//! `Error` for expected failures.

use alloc::borrow::Cow;
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

/// The reasons of a status. A single reason, the common case on the per-node hot path, is stored
/// inline, and upstream's constant reason strings are borrowed, so rejecting a node allocates nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Reasons {
    /// No reason.
    #[default]
    None,
    /// One reason.
    One(Cow<'static, str>),
    /// Several reasons, in the order the plugin gave them.
    Many(Vec<Cow<'static, str>>),
}

impl Reasons {
    /// The reasons as a slice.
    pub fn as_slice(&self) -> &[Cow<'static, str>] {
        match self {
            Reasons::None => &[],
            Reasons::One(reason) => core::slice::from_ref(reason),
            Reasons::Many(reasons) => reasons,
        }
    }
}

/// A plugin verdict: a code, the reasons (exact upstream strings) and the plugin that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// Reasons, in the order the plugin gave them.
    pub reasons: Reasons,
    /// The plugin that returned it (set by the runtime).
    pub plugin: Option<PluginName>,
}

impl Status {
    /// `Success` with no reasons.
    pub const fn success() -> Status {
        Status {
            code: Code::Success,
            reasons: Reasons::None,
            plugin: None,
        }
    }

    /// `Skip`.
    pub const fn skip() -> Status {
        Status {
            code: Code::Skip,
            reasons: Reasons::None,
            plugin: None,
        }
    }

    /// A status with one reason (upstream's constant strings are borrowed, not copied).
    pub fn new(code: Code, reason: impl Into<Cow<'static, str>>) -> Status {
        Status {
            code,
            reasons: Reasons::One(reason.into()),
            plugin: None,
        }
    }

    /// A status with several reasons.
    pub fn with_reasons(code: Code, reasons: Vec<String>) -> Status {
        let mut reasons: Vec<Cow<'static, str>> = reasons.into_iter().map(Cow::Owned).collect();
        let reasons = match reasons.len() {
            0 => Reasons::None,
            1 => Reasons::One(reasons.remove(0)),
            _ => Reasons::Many(reasons),
        };
        Status {
            code,
            reasons,
            plugin: None,
        }
    }

    /// The reasons, in order.
    pub fn reasons(&self) -> &[Cow<'static, str>] {
        self.reasons.as_slice()
    }

    /// The reasons as owned strings.
    pub fn reason_strings(&self) -> Vec<String> {
        self.reasons()
            .iter()
            .map(|r| String::from(r.as_ref()))
            .collect()
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
        self.reason_strings().join(", ")
    }
}
