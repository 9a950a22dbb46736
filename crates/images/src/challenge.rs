//! The two response headers the client acts on. `WWW-Authenticate: Bearer realm="…",
//! service="…",scope="…"` (RFC 6750 section 3, as the distribution registry's token
//! authentication specifies it) names where to fetch an anonymous token; `Retry-After` (RFC 9110
//! section 10.2.3: seconds, or an HTTP date) says how long a registry that answered `429` or
//! `503` wants clients to wait. Pure: both are parsed from header text.

/// A bearer challenge: where to ask for a token, for which service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The token endpoint (absolute URL).
    pub(crate) realm: String,
    /// The `service` parameter to send, when the registry named one.
    pub(crate) service: Option<String>,
}

/// The bearer challenge of a `WWW-Authenticate` value, when it is one with a realm. A value
/// may hold several challenges (`Basic realm="x", Bearer realm="y"`): the Bearer one is taken.
pub(crate) fn bearer(header: &str) -> Option<Challenge> {
    let at = header
        .char_indices()
        .find(|(i, _)| {
            header[*i..]
                .get(..7)
                .is_some_and(|w| w.eq_ignore_ascii_case("bearer "))
                && (*i == 0 || header[..*i].ends_with([' ', ',']))
        })
        .map(|(i, _)| i)?;
    let params = params(&header[at + 7..]);
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let realm = get("realm").filter(|r| !r.is_empty())?;
    Some(Challenge {
        realm,
        service: get("service"),
    })
}

/// `k=v` and `k="v"` pairs separated by commas, up to the next scheme (a word without `=`).
fn params(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().trim_start_matches(',').trim();
        if key.is_empty() || key.contains(' ') {
            break;
        }
        rest = &rest[eq + 1..];
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end..];
            value
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let value = rest[..end].trim().to_owned();
            rest = &rest[end..];
            value
        };
        out.push((key.to_owned(), value));
        rest = rest.trim_start().trim_start_matches(',').trim_start();
    }
    out
}

/// How long `Retry-After` asks to wait from `now_ms`, in milliseconds: delta-seconds, or an
/// HTTP date (0 when it is past); `None` when the value is neither.
pub(crate) fn retry_after_ms(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let at_ms = at
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX);
    Some(at_ms.saturating_sub(now_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_challenges_as_registries_send_them() {
        assert_eq!(
            bearer(
                r#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:p/y:pull""#
            ),
            Some(Challenge {
                realm: "https://ghcr.io/token".into(),
                service: Some("ghcr.io".into()),
            })
        );
        assert_eq!(
            bearer(
                r#"Basic realm="x", Bearer realm="https://auth.docker.io/token", service=registry.docker.io"#
            ),
            Some(Challenge {
                realm: "https://auth.docker.io/token".into(),
                service: Some("registry.docker.io".into()),
            })
        );
        assert_eq!(
            bearer(r#"bearer realm="http://127.0.0.1:9/t\"x""#).map(|c| c.realm),
            Some("http://127.0.0.1:9/t\"x".into())
        );
        assert_eq!(bearer(r#"Basic realm="registry""#), None);
        assert_eq!(bearer("Bearer service=x"), None, "no realm");
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(retry_after_ms("120", 0), Some(120_000));
        let now = 1_767_225_600_000; // 2026-01-01T00:00:00Z
        assert_eq!(
            retry_after_ms("Thu, 01 Jan 2026 00:01:00 GMT", now),
            Some(60_000)
        );
        assert_eq!(
            retry_after_ms("Wed, 31 Dec 2025 00:00:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_ms("soon", now), None);
    }
}
