//! Share links and saved state: the scenario text deflated and base64url-encoded.
//!
//! Format of the URL hash: `#s=` followed by base64url (no padding) of the raw-deflated UTF-8
//! text, then `&v=1.36` when the link is for a release other than the default one (base64url
//! has no `&`). Pure functions; the browser edges (location, localStorage, files) live in
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

/// `#s=...` for `text` simulated with `version`.
pub fn encode(text: &str, version: KubeVersion) -> String {
    let compressed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    let mut hash = format!("{HASH_PREFIX}{}", URL_SAFE_NO_PAD.encode(compressed));
    if version != KubeVersion::DEFAULT {
        hash.push_str(VERSION_PREFIX);
        hash.push_str(version.as_str());
    }
    hash
}

/// What a link holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    /// The scenario text.
    pub text: String,
    /// The release it was simulated with (the default release when the link names none).
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
        None => (rest, KubeVersion::DEFAULT),
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
        let hash = encode(&text, KubeVersion::DEFAULT);
        assert!(hash.starts_with(HASH_PREFIX));
        assert!(hash.len() < text.len());
        assert!(!hash[3..].contains(['+', '/', '=', '&']));
        let shared = decode(&hash).unwrap();
        assert_eq!(
            (shared.text.as_str(), shared.version),
            (text.as_str(), KubeVersion::DEFAULT)
        );
        // Another release travels with the link.
        let hash = encode(&text, KubeVersion::V1_37);
        assert!(hash.ends_with("&v=1.37"), "{hash}");
        assert_eq!(decode(&hash).unwrap().version, KubeVersion::V1_37);
    }

    #[test]
    fn damaged_links_are_errors() {
        assert_eq!(decode("#x=abc"), Err(DecodeError::NotShared));
        assert_eq!(decode("#s=***"), Err(DecodeError::Base64));
        assert_eq!(decode("#s=AAAA"), Err(DecodeError::Inflate));
        let unsupported = decode(&format!("{}&v=1.20", &encode("x", KubeVersion::DEFAULT)));
        assert_eq!(
            unsupported.unwrap_err().to_string(),
            "the link's unsupported Kubernetes version \"1.20\": supported are 1.34, 1.35, 1.36, 1.37"
        );
    }
}
