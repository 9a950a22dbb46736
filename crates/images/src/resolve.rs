//! Where a check's requests may go: host names resolved (through the configured overrides
//! first, as curl's `--resolve`, else the system's resolver) and every address checked.
//!
//! An upstream egg decides which hosts a check asks (its image references and its install
//! script's URLs), so a check must not become a way into the catalog's own network: unless the
//! configuration allows it, an address that is loopback, link-local (`169.254.0.0/16`, the
//! cloud metadata address among them), private (RFC 1918), unique-local (`fc00::/7`),
//! unspecified, or an IPv4-mapped form of one of these is refused, whether a name resolves to
//! it or a URL (or a redirect) names it. The resolver checks what names resolve to, since it
//! is what every connection (a redirect's included) goes through; [`refused_literal`] checks
//! addresses written in a URL, which connect without a lookup.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

/// What a host name resolves to for a check (`[checks] resolve`, docs/operations.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// This address, without asking a DNS server.
    Address(IpAddr),
    /// A lookup that never answers, as a resolver that holds lookups does: for tests and for
    /// measuring what such a resolver costs a build.
    Hang,
}

/// The resolver a check's HTTP client uses.
#[derive(Debug, Clone)]
pub(crate) struct Resolver {
    pub(crate) overrides: BTreeMap<String, Resolution>,
    pub(crate) allow_internal: bool,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let fixed = self.overrides.get(&host).cloned();
        let allow_internal = self.allow_internal;
        Box::pin(async move {
            let addresses: Vec<SocketAddr> = match fixed {
                Some(Resolution::Address(ip)) => vec![SocketAddr::new(ip, 0)],
                Some(Resolution::Hang) => std::future::pending().await,
                None => tokio::net::lookup_host((host.as_str(), 0)).await?.collect(),
            };
            let allowed: Vec<SocketAddr> = addresses
                .iter()
                .copied()
                .filter(|a| allow_internal || !is_internal(a.ip()))
                .collect();
            if allowed.is_empty()
                && let Some(a) = addresses.first()
            {
                return Err(Box::new(Internal(format!(
                    "`{host}` resolves to an internal address ({}): not asked",
                    a.ip()
                )))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The error of a name that resolves only to internal addresses.
#[derive(Debug)]
pub(crate) struct Internal(pub(crate) String);

impl std::fmt::Display for Internal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Internal {}

/// Why a URL whose host is an internal address written out is refused, when it is.
pub(crate) fn refused_literal(url: &reqwest::Url, allow_internal: bool) -> Option<String> {
    if allow_internal {
        return None;
    }
    let host = url.host_str()?;
    if host.eq_ignore_ascii_case("localhost") {
        return Some("`localhost` is an internal address: not asked".to_owned());
    }
    let ip: IpAddr = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()?;
    is_internal(ip).then(|| format!("{ip} is an internal address: not asked"))
}

/// Whether `ip` is an address of the catalog's own network rather than the internet's.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                // 100.64.0.0/10, carrier-grade NAT: a provider's internal network.
                || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_the_networks_a_catalog_host_sits_in() {
        for internal in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(is_internal(internal.parse().unwrap()), "{internal}");
        }
        for public in [
            "93.184.216.34",
            "140.82.112.3",
            "2606:4700::1",
            "100.128.0.1",
        ] {
            assert!(!is_internal(public.parse().unwrap()), "{public}");
        }
        let url = |u: &str| reqwest::Url::parse(u).unwrap();
        assert!(refused_literal(&url("http://169.254.169.254/latest/meta-data"), false).is_some());
        assert!(refused_literal(&url("http://[::1]:8080/"), false).is_some());
        assert!(refused_literal(&url("http://localhost/"), false).is_some());
        assert!(refused_literal(&url("http://127.0.0.1/"), true).is_none());
        assert!(refused_literal(&url("https://github.com/"), false).is_none());
    }
}
