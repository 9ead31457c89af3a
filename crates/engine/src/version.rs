//! The Kubernetes release whose kube-scheduler the engine mirrors: a value every face chooses.
//!
//! The engine is one engine for every supported release. Where a release changed placement (a
//! profile, a formula, a message, a feature gate's default), the code reads
//! [`Profile::version`](crate::framework::Profile::version) at that place and cites the upstream
//! file of the release that introduced the change. docs/kubernetes-versions.md lists every such
//! place, and docs/adding-a-version.md is the checklist for the next release.

use core::fmt;

/// A supported kube-scheduler release (minor version; the patch release the oracle checks
/// against is [`KubeVersion::oracle_release`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum KubeVersion {
    /// Kubernetes 1.34 (checked against k8s.io/kubernetes v1.34.4).
    #[cfg_attr(feature = "serde", serde(rename = "1.34"))]
    V1_34,
    /// Kubernetes 1.35 (checked against k8s.io/kubernetes v1.35.4).
    #[cfg_attr(feature = "serde", serde(rename = "1.35"))]
    V1_35,
    /// Kubernetes 1.36 (checked against k8s.io/kubernetes v1.36.3).
    #[cfg_attr(feature = "serde", serde(rename = "1.36"))]
    V1_36,
    /// Kubernetes 1.37 (checked against k8s.io/kubernetes v1.37.2).
    #[cfg_attr(feature = "serde", serde(rename = "1.37"))]
    V1_37,
}

/// A version string that names no supported release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedVersion(pub alloc::string::String);

impl fmt::Display for UnsupportedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported Kubernetes version {:?}: supported are ",
            self.0
        )?;
        for (i, v) in KubeVersion::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(v.as_str())?;
        }
        Ok(())
    }
}

impl KubeVersion {
    /// Every supported release, oldest first.
    pub const ALL: [KubeVersion; 4] = [
        KubeVersion::V1_34,
        KubeVersion::V1_35,
        KubeVersion::V1_36,
        KubeVersion::V1_37,
    ];

    /// The release every face uses when none is chosen: the newest supported one (clusters
    /// upgrade; a user on an older control plane chooses it, and a kubelet of another minor
    /// release in the input is warned about).
    pub const DEFAULT: KubeVersion = KubeVersion::V1_37;

    /// `"1.35"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            KubeVersion::V1_34 => "1.34",
            KubeVersion::V1_35 => "1.35",
            KubeVersion::V1_36 => "1.36",
            KubeVersion::V1_37 => "1.37",
        }
    }

    /// The minor version number (`35` for 1.35).
    pub const fn minor(self) -> u32 {
        match self {
            KubeVersion::V1_34 => 34,
            KubeVersion::V1_35 => 35,
            KubeVersion::V1_36 => 36,
            KubeVersion::V1_37 => 37,
        }
    }

    /// The k8s.io/kubernetes module release the oracle runs for this version.
    pub const fn oracle_release(self) -> &'static str {
        match self {
            KubeVersion::V1_34 => "v1.34.4",
            KubeVersion::V1_35 => "v1.35.4",
            KubeVersion::V1_36 => "v1.36.3",
            KubeVersion::V1_37 => "v1.37.2",
        }
    }

    /// Whether this release is `minor` or newer (`v.since(36)`: 1.36 and later).
    pub const fn since(self, minor: u32) -> bool {
        self.minor() >= minor
    }

    /// Parses `1.36`, `v1.36`, `1.36.3` or `v1.36.3` (any patch release of a supported minor).
    pub fn parse(text: &str) -> Result<KubeVersion, UnsupportedVersion> {
        let unsupported = || UnsupportedVersion(alloc::string::String::from(text));
        let trimmed = text.trim();
        let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
        // A pre-release or build suffix (`-gke.100`, `+k3s1`) follows the patch release.
        let core = bare.split(['-', '+']).next().unwrap_or("");
        let mut parts = core.split('.');
        let (Some("1"), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(unsupported());
        };
        match (parts.next(), parts.next()) {
            (None, None) if core.len() == bare.len() => {}
            (Some(patch), None)
                if !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()) => {}
            _ => return Err(unsupported()),
        }
        KubeVersion::ALL
            .into_iter()
            .find(|v| v.as_str()[2..] == *minor)
            .ok_or_else(unsupported)
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::DEFAULT
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minor_and_patch_forms() {
        for text in [
            "1.36",
            "v1.36",
            "1.36.3",
            "v1.36.0",
            " 1.36 ",
            "v1.36.3-gke.100",
        ] {
            assert_eq!(KubeVersion::parse(text), Ok(KubeVersion::V1_36), "{text}");
        }
        for text in [
            "1.33", "1.38", "2.36", "1", "", "1.36.x", "1.3", "1.36.1.2", "v",
        ] {
            assert!(KubeVersion::parse(text).is_err(), "{text}");
        }
        let err = KubeVersion::parse("1.30").unwrap_err();
        assert_eq!(
            alloc::format!("{err}"),
            "unsupported Kubernetes version \"1.30\": supported are 1.34, 1.35, 1.36, 1.37"
        );
    }

    #[test]
    fn orders_by_release() {
        assert!(KubeVersion::V1_36.since(36) && !KubeVersion::V1_35.since(36));
        assert!(KubeVersion::V1_34 < KubeVersion::V1_37);
        for v in KubeVersion::ALL {
            assert_eq!(KubeVersion::parse(v.oracle_release()), Ok(v));
        }
    }
}
