//! The text forms of times, digests and names that the catalog, the store, the server and the
//! fetcher share.

use std::fmt::Write;
use std::time::{Duration, UNIX_EPOCH};

/// RFC 3339 UTC with milliseconds: `2026-11-21T10:01:57.123Z`.
pub fn rfc3339(unix_ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(unix_ms)).to_string()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Lowercase ASCII, every run of other characters than `a-z0-9` one `-`, no `-` at either end.
pub fn kebab(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    if out.ends_with('-') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(rfc3339(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(hex(&[0, 0xab, 0x1f]), "00ab1f");
    }
}
