//! Placeholder; replaced by the host harness.
