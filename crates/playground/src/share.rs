//! Share links and saved state: the scenario text deflated and base64url-encoded.
//!
//! Format of the URL hash: `#s=` followed by base64url (no padding) of the raw-deflated UTF-8
//! text, then `&v=1.37`, the release it was simulated with (base64url has no `&`). A link
//! without one predates the release selector and means v1.35, the only release then. Pure functions; the browser edges (location, localStorage, files) live in
//! `app.rs`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use spreadlab_engine::KubeVersion;

/// The hash prefix of a shared scenario.
pub const HASH_PREFIX: &str = "#s=";
/// Largest text a link may expand to (guards against deflate bombs).
pub const MAX_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// The version part of a link.
const VERSION_PREFIX: &str = "&v=";

/// The release of a link that names none: links made before the selector existed were
/// simulated with v1.35, the only release spreadlab mirrored then.
pub const UNNAMED_LINK_VERSION: KubeVersion = KubeVersion::V1_35;

/// `#s=...` for `text` simulated with `version`.
pub fn encode(text: &str, version: KubeVersion) -> String {
    let compressed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    format!(
        "{HASH_PREFIX}{}{VERSION_PREFIX}{}",
        URL_SAFE_NO_PAD.encode(compressed),
        version.as_str()
    )
}

/// What a link holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    /// The scenario text.
    pub text: String,
    /// The release it was simulated with ([`UNNAMED_LINK_VERSION`] when the link names none).
    pub version: KubeVersion,
}

/// Why a hash could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a `#s=` hash.
    NotShared,
    /// Not base64url.
    Base64,
    /// Not deflate data, or larger than [`MAX_TEXT_BYTES`].
    Inflate,
    /// Not UTF-8.
    Utf8,
    /// A release spreadlab does not support.
    Version(String),
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            DecodeError::NotShared => "the link holds no scenario",
            DecodeError::Base64 => "the link is damaged (not base64url)",
            DecodeError::Inflate => "the link is damaged (not deflate data, or too large)",
            DecodeError::Utf8 => "the link is damaged (not UTF-8 text)",
            DecodeError::Version(message) => return write!(f, "the link's {message}"),
        })
    }
}

/// The text and release of a `#s=...` hash.
pub fn decode(hash: &str) -> Result<Shared, DecodeError> {
    let rest = hash
        .strip_prefix(HASH_PREFIX)
        .ok_or(DecodeError::NotShared)?;
    let (data, version) = match rest.split_once(VERSION_PREFIX) {
        None => (rest, UNNAMED_LINK_VERSION),
        Some((data, version)) => (
            data,
            KubeVersion::parse(version).map_err(|e| DecodeError::Version(e.to_string()))?,
        ),
    };
    let compressed = URL_SAFE_NO_PAD
        .decode(data.trim())
        .map_err(|_| DecodeError::Base64)?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&compressed, MAX_TEXT_BYTES)
        .map_err(|_| DecodeError::Inflate)?;
    let text = String::from_utf8(bytes).map_err(|_| DecodeError::Utf8)?;
    Ok(Shared { text, version })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n# ünïcode\n".repeat(20);
        for version in KubeVersion::ALL {
            let hash = encode(&text, version);
            assert!(hash.starts_with(HASH_PREFIX));
            assert!(hash.len() < text.len());
            let (data, named) = hash[3..].split_once('&').expect("a release");
            assert!(!data.contains(['+', '/', '=']));
            assert_eq!(named, format!("v={version}"));
            let shared = decode(&hash).unwrap();
            assert_eq!(
                (shared.text.as_str(), shared.version),
                (text.as_str(), version)
            );
        }
        // A link from before the selector names no release: it was made with v1.35.
        let old = encode(&text, KubeVersion::V1_37);
        let old = old.split_once('&').unwrap().0;
        assert_eq!(decode(old).unwrap().version, KubeVersion::V1_35);
    }

    #[test]
    fn damaged_links_are_errors() {
        assert_eq!(decode("#x=abc"), Err(DecodeError::NotShared));
        assert_eq!(decode("#s=***"), Err(DecodeError::Base64));
        assert_eq!(decode("#s=AAAA"), Err(DecodeError::Inflate));
        let link = encode("x", KubeVersion::DEFAULT);
        let unsupported = decode(&format!("{}&v=1.20", link.split_once('&').unwrap().0));
        assert_eq!(
            unsupported.unwrap_err().to_string(),
            "the link's unsupported Kubernetes version \"1.20\": supported are 1.34, 1.35, 1.36, 1.37"
        );
    }
}
