//! Content negotiation of `Accept-Encoding` (RFC 9110 section 12.5.3).
//!
//! A snapshot's compressible files are stored in br and gzip beside their identity form
//! (`eggcat-codings`, written by the build); per request the server only picks one. The choice
//! is the acceptable coding with the highest q-value; among equal q-values the order is br,
//! gzip, then identity. `identity` is acceptable unless refused (`identity;q=0`, or `*;q=0`
//! without a mention of identity); when nothing is acceptable the server still sends identity
//! rather than a 406, as most servers do. `zstd` is not stored (see `eggcat-codings`): a client
//! that asks for it alone gets identity.

/// The codings the server can send, in order of preference at equal q-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Coding {
    /// Every coding, identity last.
    pub(crate) const ALL: [Coding; 3] = [Coding::Brotli, Coding::Gzip, Coding::Identity];

    /// The token in `Accept-Encoding` and `Content-Encoding`.
    pub(crate) fn token(self) -> &'static str {
        match self.stored() {
            Some(c) => c.token(),
            None => "identity",
        }
    }

    /// Index into per-coding arrays; the stored codings keep `eggcat_codings::Coding::index`.
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The stored form it names; `None` for identity.
    pub(crate) fn stored(self) -> Option<eggcat_codings::Coding> {
        match self {
            Coding::Brotli => Some(eggcat_codings::Coding::Brotli),
            Coding::Gzip => Some(eggcat_codings::Coding::Gzip),
            Coding::Identity => None,
        }
    }
}

/// q-values (in thousandths) of each coding, from an `Accept-Encoding` header value.
fn weights(header: &str) -> [Option<u16>; 3] {
    let mut explicit: [Option<u16>; 3] = [None; 3];
    let mut star: Option<u16> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let token = parts.next().unwrap_or_default().trim();
        let mut q = 1000;
        for param in parts {
            match param.split_once('=') {
                Some((k, v)) if k.trim().eq_ignore_ascii_case("q") => {
                    q = parse_q(v.trim()).unwrap_or(0)
                }
                _ => {}
            }
        }
        if token == "*" {
            star = Some(q);
        } else if let Some(c) = Coding::ALL
            .iter()
            .find(|c| token.eq_ignore_ascii_case(c.token()))
        {
            explicit[c.index()] = Some(q);
        } else if token.eq_ignore_ascii_case("x-gzip") {
            explicit[Coding::Gzip.index()] = Some(q);
        }
    }
    let mut out = [None; 3];
    for c in Coding::ALL {
        out[c.index()] = explicit[c.index()].or(star).or(match c {
            // identity is always acceptable unless refused.
            Coding::Identity => Some(1),
            _ => None,
        });
    }
    out
}

/// `q` values: `1`, `1.0`, `0.5`, `0.125`, at most three decimals.
fn parse_q(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u16, |acc, b| acc * 10 + u16::from(b - b'0'));
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The coding to send, given which ones the document has (`available`, indexed by
/// [`Coding::index`]; identity is always available).
pub(crate) fn choose(accept_encoding: Option<&str>, available: [bool; 3]) -> Coding {
    let Some(header) = accept_encoding else {
        return Coding::Identity;
    };
    let w = weights(header);
    let mut best = (Coding::Identity, 0u16);
    for c in Coding::ALL {
        let q = w[c.index()].unwrap_or(0);
        if (available[c.index()] || c == Coding::Identity) && q > 0 && q > best.1 {
            best = (c, q);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [bool; 3] = [true; 3];

    #[test]
    fn no_header_means_identity() {
        assert_eq!(choose(None, ALL), Coding::Identity);
        assert_eq!(choose(Some(""), ALL), Coding::Identity);
    }

    #[test]
    fn highest_q_wins_and_ties_follow_br_gzip() {
        assert_eq!(choose(Some("gzip"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("gzip, deflate, br, zstd"), ALL), Coding::Brotli);
        assert_eq!(choose(Some("gzip;q=1.0, br;q=0.5"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("zstd, gzip;q=0.9"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("*"), ALL), Coding::Brotli);
        assert_eq!(choose(Some("br;q=0, *;q=0.1"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("GZIP"), ALL), Coding::Gzip);
    }

    #[test]
    fn unavailable_or_refused_codings_fall_back_to_identity() {
        assert_eq!(choose(Some("br"), [false, true, true]), Coding::Identity);
        assert_eq!(choose(Some("gzip;q=0"), ALL), Coding::Identity);
        assert_eq!(choose(Some("deflate"), ALL), Coding::Identity);
        // zstd is not stored: asked for alone, identity.
        assert_eq!(choose(Some("zstd"), ALL), Coding::Identity);
        // Nothing acceptable at all: identity anyway, not 406.
        assert_eq!(
            choose(Some("identity;q=0"), [true, false, true]),
            Coding::Identity
        );
        assert_eq!(choose(Some("*;q=0"), ALL), Coding::Identity);
        assert_eq!(
            choose(Some("gzip;q=0.5, identity;q=1"), ALL),
            Coding::Identity
        );
    }

    #[test]
    fn malformed_q_values_count_as_zero() {
        assert_eq!(choose(Some("br;q=2, gzip"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("br;q=0.1234, gzip;q=0.5"), ALL), Coding::Gzip);
        assert_eq!(choose(Some("br;q=abc, gzip;q=0.001"), ALL), Coding::Gzip);
    }
}
