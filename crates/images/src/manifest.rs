//! What a manifest says of its platforms: an image index (OCI `image.index.v1`, Docker
//! `manifest.list.v2`) lists one manifest per platform (`os/architecture[/variant]`); a single
//! image manifest names its config blob, whose `os`, `architecture` and `variant` are its one
//! platform; Docker's old schema 1 manifest has `architecture` itself (its `os` is Linux).
//! Pure: the client fetches, this reads.
//!
//! What a registry sends is not trusted to fit the catalog's contract: a platform reaches the
//! documents only as the OpenAPI document's `ImageInfo.platforms` allows it
//! (`^[a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?$`), a digest only as `ImageInfo.digest` does
//! (`^sha256:[0-9a-f]{64}$`); anything else is dropped here, so that an odd registry cannot
//! publish a document its readers' validators refuse.

use serde_json::Value;

/// The media types a manifest request accepts, indexes first: one request learns the
/// platforms of a multi-platform image.
pub(crate) const ACCEPT: &str = "application/vnd.oci.image.index.v1+json, \
application/vnd.docker.distribution.manifest.list.v2+json, \
application/vnd.oci.image.manifest.v1+json, \
application/vnd.docker.distribution.manifest.v2+json, \
application/vnd.docker.distribution.manifest.v1+prettyjws;q=0.5";

/// What a manifest document is, for its platforms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Manifest {
    /// An index: the platforms of its manifests, sorted, each once.
    Index(Vec<String>),
    /// One image: its platform is in the config blob with this digest.
    Image {
        /// The config blob's digest.
        config: String,
    },
    /// A schema 1 manifest: its one platform.
    Platform(String),
}

/// Reads a manifest document (the body of `GET /v2/<name>/manifests/<ref>`); `None` when it is
/// none of the known kinds.
pub(crate) fn read(body: &[u8]) -> Option<Manifest> {
    let doc: Value = serde_json::from_slice(body).ok()?;
    if let Some(list) = doc.get("manifests").and_then(Value::as_array) {
        let mut platforms: Vec<String> = list
            .iter()
            .filter_map(|m| platform(m.get("platform")?))
            .collect();
        platforms.sort();
        platforms.dedup();
        return Some(Manifest::Index(platforms));
    }
    // The config digest goes into the next request's path: only a digest by the OCI grammar
    // is asked for (`../` and the like would bend the URL to another path of the registry).
    if let Some(config) = doc
        .get("config")
        .and_then(|c| c.get("digest"))
        .and_then(Value::as_str)
        .filter(|d| is_digest(d))
    {
        return Some(Manifest::Image {
            config: config.to_owned(),
        });
    }
    let arch = doc.get("architecture").and_then(Value::as_str)?;
    Some(Manifest::Platform(
        Some(format!("linux/{arch}")).filter(|p| is_platform(p))?,
    ))
}

/// Whether `digest` may be published as an image's digest: `sha256:` and 64 lowercase hex
/// digits, the pattern of `ImageInfo.digest`.
pub(crate) fn is_sha256(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Whether `platform` may be published: `os/architecture[/variant]` with the characters the
/// pattern of `ImageInfo.platforms` allows (lowercase letters and digits; `_` in the
/// architecture, as in `x86_64`).
pub(crate) fn is_platform(platform: &str) -> bool {
    let word = |s: &str, extra: &[u8]| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || extra.contains(&b))
    };
    let mut parts = platform.split('/');
    let (os, arch, variant) = (parts.next(), parts.next(), parts.next());
    parts.next().is_none()
        && os.is_some_and(|os| word(os, b""))
        && arch.is_some_and(|arch| word(arch, b"_"))
        && variant.is_none_or(|v| word(v, b""))
}

/// Whether `digest` is one by the OCI grammar (`algorithm:encoded`), so that it can stand in a
/// request's path as it is.
fn is_digest(digest: &str) -> bool {
    let Some((algorithm, encoded)) = digest.split_once(':') else {
        return false;
    };
    let algorithm_ok = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+._-".contains(&b);
    let encoded_ok = |b: u8| b.is_ascii_alphanumeric() || b"=_-".contains(&b);
    !algorithm.is_empty()
        && !encoded.is_empty()
        && algorithm.bytes().all(algorithm_ok)
        && encoded.bytes().all(encoded_ok)
}

/// The platform of an image config blob (`{"os": "linux", "architecture": "arm64", ...}`).
pub(crate) fn config_platform(body: &[u8]) -> Option<String> {
    let doc: Value = serde_json::from_slice(body).ok()?;
    platform(&doc)
}

/// `os/architecture[/variant]` of a platform object; `None` for the `unknown/unknown` entries
/// build tools add to an index for attestations, which are not images anyone runs, and for one
/// the published pattern does not allow (the whole platform: without its variant it would
/// claim more than the registry said).
fn platform(p: &Value) -> Option<String> {
    let os = p.get("os").and_then(Value::as_str)?;
    let arch = p.get("architecture").and_then(Value::as_str)?;
    if os == "unknown" || arch == "unknown" {
        return None;
    }
    let platform = match p.get("variant").and_then(Value::as_str) {
        Some(v) if !v.is_empty() => format!("{os}/{arch}/{v}"),
        _ => format!("{os}/{arch}"),
    };
    Some(platform).filter(|p| is_platform(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_gives_its_platforms_without_attestations() {
        let index = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[
            {"digest":"sha256:a","platform":{"os":"linux","architecture":"arm64","variant":"v8"}},
            {"digest":"sha256:b","platform":{"os":"linux","architecture":"amd64"}},
            {"digest":"sha256:c","platform":{"os":"unknown","architecture":"unknown"}},
            {"digest":"sha256:d","platform":{"os":"linux","architecture":"amd64"}}]}"#;
        assert_eq!(
            read(index),
            Some(Manifest::Index(vec![
                "linux/amd64".into(),
                "linux/arm64/v8".into()
            ]))
        );
    }

    #[test]
    fn an_image_names_its_config_whose_platform_is_read_there() {
        let manifest = br#"{"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:cfg","size":2},"layers":[]}"#;
        assert_eq!(
            read(manifest),
            Some(Manifest::Image {
                config: "sha256:cfg".into()
            })
        );
        assert_eq!(
            config_platform(br#"{"architecture":"amd64","os":"linux","rootfs":{}}"#),
            Some("linux/amd64".into())
        );
        assert_eq!(
            read(br#"{"schemaVersion":1,"architecture":"arm","fsLayers":[]}"#),
            Some(Manifest::Platform("linux/arm".into()))
        );
        assert_eq!(read(b"not json"), None);
        assert_eq!(read(b"{}"), None);
    }

    #[test]
    fn platforms_outside_the_published_pattern_are_dropped() {
        let index = br#"{"manifests":[
            {"platform":{"os":"linux","architecture":"amd64"}},
            {"platform":{"os":"linux","architecture":"x86_64"}},
            {"platform":{"os":"Linux","architecture":"amd64"}},
            {"platform":{"os":"linux","architecture":"arm/../x"}},
            {"platform":{"os":"linux","architecture":"arm64","variant":"v8 <b>"}},
            {"platform":{"os":"linux","architecture":""}},
            {"platform":{"os":"","architecture":"amd64"}},
            {"platform":{"os":"linux","architecture":"riscv-64"}},
            {"platform":{"os":"linux","architecture":"arm","variant":"v7"}}]}"#;
        assert_eq!(
            read(index),
            Some(Manifest::Index(vec![
                "linux/amd64".into(),
                "linux/arm/v7".into(),
                "linux/x86_64".into(),
            ]))
        );
        assert_eq!(
            config_platform(br#"{"architecture":"AMD64","os":"linux"}"#),
            None
        );
        assert_eq!(
            config_platform(br#"{"architecture":"arm64","os":"linux","variant":"v8/x"}"#),
            None
        );
        // Schema 1 says its architecture alone; one the pattern refuses is no platform, and
        // the manifest then none of the known kinds.
        assert_eq!(read(br#"{"schemaVersion":1,"architecture":"a b"}"#), None);
    }

    #[test]
    fn only_digests_of_the_published_pattern_are_sha256_and_only_oci_digests_are_asked_for() {
        let hex = "0123456789abcdef".repeat(4);
        assert!(is_sha256(&format!("sha256:{hex}")));
        assert!(!is_sha256(&format!("sha256:{}", hex.to_uppercase())));
        assert!(!is_sha256(&format!("sha256:{hex}0")));
        assert!(!is_sha256(&format!("sha256:{}", &hex[1..])));
        assert!(!is_sha256(&format!("sha512:{hex}{hex}")));
        assert!(!is_sha256("sha256:"));
        assert!(!is_sha256(&format!("sha256:{}\n", &hex[2..])));
        // A config digest with a path in it is not asked for: no platforms, not a request
        // elsewhere.
        let bent = br#"{"config":{"digest":"sha256:../../../v2/_catalog"}}"#;
        assert_eq!(read(bent), None);
        let sha512 = format!(r#"{{"config":{{"digest":"sha512:{hex}{hex}"}}}}"#);
        assert_eq!(
            read(sha512.as_bytes()),
            Some(Manifest::Image {
                config: format!("sha512:{hex}{hex}")
            })
        );
    }
}
