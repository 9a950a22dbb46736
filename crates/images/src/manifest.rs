//! What a manifest says of its platforms: an image index (OCI `image.index.v1`, Docker
//! `manifest.list.v2`) lists one manifest per platform (`os/architecture[/variant]`); a single
//! image manifest names its config blob, whose `os`, `architecture` and `variant` are its one
//! platform; Docker's old schema 1 manifest has `architecture` itself (its `os` is Linux).
//! Pure: the client fetches, this reads.

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
    if let Some(config) = doc
        .get("config")
        .and_then(|c| c.get("digest"))
        .and_then(Value::as_str)
    {
        return Some(Manifest::Image {
            config: config.to_owned(),
        });
    }
    let arch = doc.get("architecture").and_then(Value::as_str)?;
    Some(Manifest::Platform(format!("linux/{arch}")))
}

/// The platform of an image config blob (`{"os": "linux", "architecture": "arm64", ...}`).
pub(crate) fn config_platform(body: &[u8]) -> Option<String> {
    let doc: Value = serde_json::from_slice(body).ok()?;
    platform(&doc)
}

/// `os/architecture[/variant]` of a platform object; `None` for the `unknown/unknown` entries
/// build tools add to an index for attestations, which are not images anyone runs.
fn platform(p: &Value) -> Option<String> {
    let os = p.get("os").and_then(Value::as_str)?;
    let arch = p.get("architecture").and_then(Value::as_str)?;
    if os == "unknown" || arch == "unknown" || os.is_empty() || arch.is_empty() {
        return None;
    }
    Some(match p.get("variant").and_then(Value::as_str) {
        Some(v) if !v.is_empty() => format!("{os}/{arch}/{v}"),
        _ => format!("{os}/{arch}"),
    })
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
}
