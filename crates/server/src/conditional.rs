//! Conditional GET and HEAD (RFC 9110 section 13): `If-None-Match` with weak comparison, then
//! `If-Modified-Since` only when `If-None-Match` is absent.

use std::time::SystemTime;

/// Whether the client's copy is current, so the answer is 304 Not Modified.
///
/// `etag` is the strong ETag of the representation being selected (quotes included);
/// `last_modified` is its modification time, whole seconds.
pub(crate) fn not_modified(
    if_none_match: Option<&[u8]>,
    if_modified_since: Option<&[u8]>,
    etag: &[u8],
    last_modified: SystemTime,
) -> bool {
    if let Some(inm) = if_none_match {
        return matches_any(inm, etag);
    }
    let Some(ims) = if_modified_since.and_then(|v| std::str::from_utf8(v).ok()) else {
        return false;
    };
    match httpdate::parse_http_date(ims.trim()) {
        Ok(since) => last_modified <= since,
        // An invalid date is ignored (RFC 9110 section 13.1.3).
        Err(_) => false,
    }
}

/// `*`, or a comma-separated list of entity tags, any of which weakly matches `etag`.
fn matches_any(list: &[u8], etag: &[u8]) -> bool {
    let ours = opaque(etag);
    list.split(|&b| b == b',')
        .map(trim)
        .any(|tag| tag == b"*" || (!tag.is_empty() && opaque(tag) == ours))
}

/// The tag without its weakness indicator (weak comparison ignores it).
fn opaque(tag: &[u8]) -> &[u8] {
    tag.strip_prefix(b"W/").unwrap_or(tag)
}

fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    const TAG: &[u8] = b"\"abc-gz\"";

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn if_none_match_weak_comparison_lists_and_star() {
        let lm = at(1000);
        assert!(not_modified(Some(b"\"abc-gz\""), None, TAG, lm));
        assert!(not_modified(Some(b"W/\"abc-gz\""), None, TAG, lm));
        assert!(not_modified(
            Some(b"\"x\", W/\"abc-gz\" ,\"y\""),
            None,
            TAG,
            lm
        ));
        assert!(not_modified(Some(b"*"), None, TAG, lm));
        assert!(!not_modified(Some(b"\"abc\""), None, TAG, lm));
        assert!(!not_modified(Some(b""), None, TAG, lm));
    }

    #[test]
    fn if_modified_since_only_without_if_none_match() {
        let lm = at(1_700_000_000);
        let same = httpdate::fmt_http_date(lm);
        let before = httpdate::fmt_http_date(at(1_600_000_000));
        assert!(not_modified(None, Some(same.as_bytes()), TAG, lm));
        assert!(!not_modified(None, Some(before.as_bytes()), TAG, lm));
        assert!(!not_modified(None, Some(b"yesterday"), TAG, lm));
        // If-None-Match wins even when the date would say "not modified".
        assert!(!not_modified(
            Some(b"\"other\""),
            Some(same.as_bytes()),
            TAG,
            lm
        ));
    }
}
