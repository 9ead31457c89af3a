//! Share links and saved state: the scenario text deflated and base64url-encoded.
//!
//! Format of the URL hash: `#s=` followed by base64url (no padding) of the raw-deflated UTF-8
//! text. Pure functions; the browser edges (location, localStorage, files) live in `app.rs`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The hash prefix of a shared scenario.
pub const HASH_PREFIX: &str = "#s=";
/// Largest text a link may expand to (guards against deflate bombs).
pub const MAX_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// `#s=...` for `text`.
pub fn encode(text: &str) -> String {
    let compressed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    format!("{HASH_PREFIX}{}", URL_SAFE_NO_PAD.encode(compressed))
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
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            DecodeError::NotShared => "the link holds no scenario",
            DecodeError::Base64 => "the link is damaged (not base64url)",
            DecodeError::Inflate => "the link is damaged (not deflate data, or too large)",
            DecodeError::Utf8 => "the link is damaged (not UTF-8 text)",
        })
    }
}

/// The text of a `#s=...` hash.
pub fn decode(hash: &str) -> Result<String, DecodeError> {
    let data = hash
        .strip_prefix(HASH_PREFIX)
        .ok_or(DecodeError::NotShared)?;
    let compressed = URL_SAFE_NO_PAD
        .decode(data.trim())
        .map_err(|_| DecodeError::Base64)?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&compressed, MAX_TEXT_BYTES)
        .map_err(|_| DecodeError::Inflate)?;
    String::from_utf8(bytes).map_err(|_| DecodeError::Utf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n# ünïcode\n".repeat(20);
        let hash = encode(&text);
        assert!(hash.starts_with(HASH_PREFIX));
        assert!(hash.len() < text.len());
        assert!(!hash[3..].contains(['+', '/', '=']));
        assert_eq!(decode(&hash).unwrap(), text);
    }

    #[test]
    fn damaged_links_are_errors() {
        assert_eq!(decode("#x=abc"), Err(DecodeError::NotShared));
        assert_eq!(decode("#s=***"), Err(DecodeError::Base64));
        assert_eq!(decode("#s=AAAA"), Err(DecodeError::Inflate));
    }
}
