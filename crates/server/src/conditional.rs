//! Conditional GET and HEAD (RFC 9110 section 13), evaluated in the order of section 13.2.2:
//!
//! 1. `If-Match` (strong comparison): no match is `412 Precondition Failed`;
//! 2. without `If-Match`, `If-Unmodified-Since`: modified after the date is `412`;
//! 3. `If-None-Match` (weak comparison): a match is `304 Not Modified`;
//! 4. without `If-None-Match`, `If-Modified-Since`: not modified since the date is `304`.
//!
//! A header sent on several lines is one comma-separated list (RFC 9110 section 5.3). A date
//! that does not parse, or a date header sent more than once, is ignored (sections 13.1.3 and
//! 13.1.4). The preconditions are only evaluated for a document the server would answer with
//! `200` (section 13.2.1).

use std::borrow::Cow;
use std::time::SystemTime;

use http::HeaderMap;
use http::header::{self, HeaderName};

/// What the preconditions decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Send the document.
    Send,
    /// `304 Not Modified`: the client's copy is current.
    NotModified,
    /// `412 Precondition Failed`: `If-Match` or `If-Unmodified-Since` does not hold.
    Failed,
}

/// The precondition headers of a request.
#[derive(Debug)]
pub(crate) struct Conditions<'a> {
    if_match: Option<Cow<'a, [u8]>>,
    if_unmodified_since: Option<&'a [u8]>,
    if_none_match: Option<Cow<'a, [u8]>>,
    if_modified_since: Option<&'a [u8]>,
}

impl<'a> Conditions<'a> {
    pub(crate) fn from_headers(headers: &'a HeaderMap) -> Conditions<'a> {
        Conditions {
            if_match: list(headers, &header::IF_MATCH),
            if_unmodified_since: single(headers, &header::IF_UNMODIFIED_SINCE),
            if_none_match: list(headers, &header::IF_NONE_MATCH),
            if_modified_since: single(headers, &header::IF_MODIFIED_SINCE),
        }
    }

    /// Decides for the representation with strong ETag `etag` (quotes included), last modified
    /// at `last_modified` (whole seconds).
    pub(crate) fn evaluate(&self, etag: &[u8], last_modified: SystemTime) -> Outcome {
        let holds = match (&self.if_match, self.if_unmodified_since.and_then(date)) {
            (Some(tags), _) => matches_any(tags, etag, Comparison::Strong),
            (None, Some(since)) => last_modified <= since,
            (None, None) => true,
        };
        if !holds {
            return Outcome::Failed;
        }
        if let Some(tags) = &self.if_none_match {
            return if matches_any(tags, etag, Comparison::Weak) {
                Outcome::NotModified
            } else {
                Outcome::Send
            };
        }
        match self.if_modified_since.and_then(date) {
            Some(since) if last_modified <= since => Outcome::NotModified,
            _ => Outcome::Send,
        }
    }
}

/// Every line of a list header (these, and `Accept-Encoding`), joined with `, ` when there are
/// several.
pub(crate) fn list<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<Cow<'a, [u8]>> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    let Some(second) = values.next() else {
        return Some(Cow::Borrowed(first.as_bytes()));
    };
    let mut joined = first.as_bytes().to_vec();
    for value in std::iter::once(second).chain(values) {
        joined.extend_from_slice(b", ");
        joined.extend_from_slice(value.as_bytes());
    }
    Some(Cow::Owned(joined))
}

/// A header that must appear once; sent twice it is ignored, as a list of dates would be.
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a [u8]> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    values.next().is_none().then(|| first.as_bytes())
}

/// An HTTP-date in any of its three formats; anything else is `None`.
fn date(value: &[u8]) -> Option<SystemTime> {
    let text = std::str::from_utf8(value).ok()?;
    httpdate::parse_http_date(text.trim()).ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    /// Both tags strong and their opaque parts equal (`If-Match`).
    Strong,
    /// The opaque parts equal, weakness ignored (`If-None-Match`).
    Weak,
}

/// `*`, or a comma-separated list of entity tags, any of which matches `etag`.
fn matches_any(list: &[u8], etag: &[u8], comparison: Comparison) -> bool {
    let ours = opaque(etag);
    list.split(|&b| b == b',')
        .map(<[u8]>::trim_ascii)
        .any(|tag| {
            tag == b"*"
                || (!tag.is_empty()
                    && opaque(tag) == ours
                    && (comparison == Comparison::Weak || !tag.starts_with(b"W/")))
        })
}

/// The tag without its weakness indicator.
fn opaque(tag: &[u8]) -> &[u8] {
    tag.strip_prefix(b"W/").unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use std::time::{Duration, UNIX_EPOCH};

    const TAG: &[u8] = b"\"abc-gz\"";

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn decide(headers: &[(&str, &str)], last_modified: SystemTime) -> Outcome {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        Conditions::from_headers(&map).evaluate(TAG, last_modified)
    }

    #[test]
    fn if_none_match_weak_comparison_lists_and_star() {
        let lm = at(1000);
        let inm = |v| decide(&[("if-none-match", v)], lm);
        assert_eq!(inm("\"abc-gz\""), Outcome::NotModified);
        assert_eq!(inm("W/\"abc-gz\""), Outcome::NotModified);
        assert_eq!(inm("\"x\", W/\"abc-gz\" ,\"y\""), Outcome::NotModified);
        assert_eq!(inm("*"), Outcome::NotModified);
        assert_eq!(inm("\"abc\""), Outcome::Send);
        assert_eq!(inm(""), Outcome::Send);
    }

    #[test]
    fn a_header_on_several_lines_is_one_list() {
        let lm = at(1000);
        let lines = [("if-none-match", "\"x\""), ("if-none-match", "\"abc-gz\"")];
        assert_eq!(decide(&lines, lm), Outcome::NotModified);
        let lines = [("if-match", "\"x\""), ("if-match", "\"abc-gz\"")];
        assert_eq!(decide(&lines, lm), Outcome::Send);
    }

    #[test]
    fn if_modified_since_only_without_if_none_match() {
        let lm = at(1_700_000_000);
        let same = httpdate::fmt_http_date(lm);
        let before = httpdate::fmt_http_date(at(1_600_000_000));
        assert_eq!(
            decide(&[("if-modified-since", &same)], lm),
            Outcome::NotModified
        );
        assert_eq!(decide(&[("if-modified-since", &before)], lm), Outcome::Send);
        assert_eq!(
            decide(&[("if-modified-since", "yesterday")], lm),
            Outcome::Send
        );
        // Sent twice, the date is ignored.
        let twice = [("if-modified-since", &*same), ("if-modified-since", &*same)];
        assert_eq!(decide(&twice, lm), Outcome::Send);
        // If-None-Match wins even when the date would say "not modified".
        let both = [
            ("if-none-match", "\"other\""),
            ("if-modified-since", &*same),
        ];
        assert_eq!(decide(&both, lm), Outcome::Send);
    }

    #[test]
    fn if_match_is_a_strong_comparison_and_fails_with_412() {
        let lm = at(1000);
        let im = |v| decide(&[("if-match", v)], lm);
        assert_eq!(im("\"abc-gz\""), Outcome::Send);
        assert_eq!(im("\"x\", \"abc-gz\""), Outcome::Send);
        assert_eq!(im("*"), Outcome::Send);
        assert_eq!(im("W/\"abc-gz\""), Outcome::Failed);
        assert_eq!(im("\"abc\""), Outcome::Failed);
        // A matching If-Match still lets If-None-Match give 304.
        let both = [("if-match", "\"abc-gz\""), ("if-none-match", "\"abc-gz\"")];
        assert_eq!(decide(&both, lm), Outcome::NotModified);
    }

    #[test]
    fn if_unmodified_since_fails_when_modified_after_and_yields_to_if_match() {
        let lm = at(1_700_000_000);
        let after = httpdate::fmt_http_date(at(1_800_000_000));
        let before = httpdate::fmt_http_date(at(1_600_000_000));
        assert_eq!(
            decide(&[("if-unmodified-since", &after)], lm),
            Outcome::Send
        );
        assert_eq!(
            decide(&[("if-unmodified-since", &before)], lm),
            Outcome::Failed
        );
        assert_eq!(
            decide(&[("if-unmodified-since", "not a date")], lm),
            Outcome::Send
        );
        let with_match = [
            ("if-match", "\"abc-gz\""),
            ("if-unmodified-since", &*before),
        ];
        assert_eq!(decide(&with_match, lm), Outcome::Send);
    }
}
