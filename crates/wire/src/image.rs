//! Docker image references: the grammar of distribution/reference (what `docker pull`
//! parses): `[domain[:port]/]path[:tag][@digest]`, path components lowercase `[a-z0-9]` joined
//! by `.`, `_`, `__` or dashes, a tag of at most 128 word characters, dots and dashes not
//! starting with a dot or dash, a digest `algorithm:hex`. The domain is the first component
//! when it has a dot or a port or is `localhost`. A reference's normalized text
//! ([`ImageReference`]) is published (`meta.images[].reference`) and keys what the registries
//! said of it ([`ImageFindings`], the build's input from `eggcat-images`); `eggcat-validate`'s
//! E061 is this grammar's verdict.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ImageStatus;

/// Why an image is not a reference Docker can pull; the message completes "`x` is not a valid
/// image reference: ...".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReferenceError {
    Empty,
    Spaces,
    TooLong,
    DigestWithoutAlgorithm,
    Digest(String),
    Tag(String),
    NameTooLong,
    Port(String),
    Host(String),
    Uppercase(String),
    Component(String),
}

impl std::fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReferenceError::Empty => f.write_str("it is empty"),
            ReferenceError::Spaces => f.write_str("it has spaces around it"),
            ReferenceError::TooLong => f.write_str("it is too long"),
            ReferenceError::DigestWithoutAlgorithm => f.write_str("the digest has no `algorithm:`"),
            ReferenceError::Digest(x) => write!(f, "`{x}` is not a digest"),
            ReferenceError::Tag(x) => write!(f, "`{x}` is not a valid tag"),
            ReferenceError::NameTooLong => f.write_str("the name is longer than 255 characters"),
            ReferenceError::Port(x) => write!(f, "`{x}` has an invalid port"),
            ReferenceError::Host(x) => write!(f, "`{x}` is not a valid registry host"),
            ReferenceError::Uppercase(x) => write!(
                f,
                "`{x}` has uppercase letters; repository names are lowercase"
            ),
            ReferenceError::Component(x) => write!(f, "`{x}` is not a valid name component"),
        }
    }
}

impl std::error::Error for ReferenceError {}

/// What a registry said of one normalized reference, as the build is given it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageFinding {
    /// Present, missing or unknown.
    pub status: ImageStatus,
    /// The manifest's digest, when present.
    pub digest: Option<String>,
    /// The platforms the image offers (`os/architecture[/variant]`), sorted.
    pub platforms: Vec<String>,
    /// When the registry first gave this answer (Unix ms); `None` when it was never asked.
    pub since_ms: Option<u64>,
    /// Why it is missing or unknown, one line.
    pub detail: Option<String>,
}

/// What the registries said, by normalized reference ([`ImageReference`]'s text).
pub type ImageFindings = BTreeMap<String, ImageFinding>;

/// Why `image` is not a reference Docker can pull.
pub fn reference_error(image: &str) -> Result<(), ReferenceError> {
    if image.is_empty() {
        return Err(ReferenceError::Empty);
    }
    if image.trim() != image {
        return Err(ReferenceError::Spaces);
    }
    if image.len() > 255 + 128 + 80 {
        return Err(ReferenceError::TooLong);
    }
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let (alg, hex) = d
            .split_once(':')
            .ok_or(ReferenceError::DigestWithoutAlgorithm)?;
        if alg.is_empty() || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ReferenceError::Digest(d.to_owned()));
        }
    }
    // The tag follows the last colon after the last slash.
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (&rest[..last_slash + i], Some(&rest[last_slash + i + 1..])),
        None => (rest, None),
    };
    if let Some(t) = tag {
        let ok = !t.is_empty()
            && t.len() <= 128
            && t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        if !ok {
            return Err(ReferenceError::Tag(t.to_owned()));
        }
    }
    if name.len() > 255 {
        return Err(ReferenceError::NameTooLong);
    }
    let mut components: Vec<&str> = name.split('/').collect();
    if components.len() > 1 {
        let first = components[0];
        if first.contains(['.', ':']) || first == "localhost" {
            check_domain(first)?;
            components.remove(0);
        }
    }
    for c in components {
        if !is_path_component(c) {
            return Err(if c.chars().any(|ch| ch.is_ascii_uppercase()) {
                ReferenceError::Uppercase(c.to_owned())
            } else {
                ReferenceError::Component(c.to_owned())
            });
        }
    }
    Ok(())
}

/// An image reference as Docker reads it, normalized: `alpine` is
/// `docker.io/library/alpine:latest`, `user/img` is `docker.io/user/img:latest`,
/// `index.docker.io` is `docker.io`; another registry is the first component when it has a dot
/// or a port or is `localhost` (distribution/reference's `ParseNormalizedNamed`). Its
/// [`Display`](std::fmt::Display) is the normalized text, one spelling per image, by which the
/// catalog keys what registries say.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ImageReference {
    /// The registry's host (and port): `docker.io`, `ghcr.io`, `127.0.0.1:5000`.
    pub registry: String,
    /// The repository inside it: `library/alpine`, `parkervcp/yolks`.
    pub repository: String,
    /// The tag, when written, or `latest` when neither a tag nor a digest is.
    pub tag: Option<String>,
    /// The digest (`sha256:…`), when written; Docker pulls by it then, whatever the tag.
    pub digest: Option<String>,
}

impl ImageReference {
    /// Reads `image`; the error completes "`x` is not a valid image reference: ...".
    pub fn parse(image: &str) -> Result<ImageReference, String> {
        reference_error(image).map_err(|e| e.to_string())?;
        let (rest, digest) = match image.split_once('@') {
            Some((r, d)) => (r, Some(d.to_owned())),
            None => (image, None),
        };
        let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match rest[last_slash..].rfind(':') {
            Some(i) => (
                &rest[..last_slash + i],
                Some(rest[last_slash + i + 1..].to_owned()),
            ),
            None => (rest, None),
        };
        let (registry, path) = match name.split_once('/') {
            Some((first, path)) if first.contains(['.', ':']) || first == "localhost" => {
                (first, path.to_owned())
            }
            _ => ("docker.io", name.to_owned()),
        };
        let registry = if registry == "index.docker.io" {
            "docker.io"
        } else {
            registry
        };
        let repository = if registry == "docker.io" && !path.contains('/') {
            format!("library/{path}")
        } else {
            path
        };
        let tag = match (tag, &digest) {
            (None, None) => Some("latest".to_owned()),
            (tag, _) => tag,
        };
        Ok(ImageReference {
            registry: registry.to_owned(),
            repository,
            tag,
            digest,
        })
    }

    /// What a registry's manifest endpoint is asked for: the digest when there is one, else
    /// the tag.
    pub fn manifest_reference(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .expect("a parsed reference has a tag or a digest")
    }
}

impl std::fmt::Display for ImageReference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

fn check_domain(domain: &str) -> Result<(), ReferenceError> {
    let (host, port) = match domain.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || domain.starts_with('[') => (h, Some(p)),
        _ => (domain, None),
    };
    if let Some(p) = port
        && (p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(ReferenceError::Port(domain.to_owned()));
    }
    let ok = host.split('.').all(|label| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    }) || (host.starts_with('[') && host.ends_with(']'));
    if ok {
        Ok(())
    } else {
        Err(ReferenceError::Host(domain.to_owned()))
    }
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`
fn is_path_component(c: &str) -> bool {
    let b = c.as_bytes();
    if b.is_empty() || !is_alnum(b[0]) || !is_alnum(b[b.len() - 1]) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if is_alnum(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && !is_alnum(b[i]) {
            i += 1;
        }
        let sep = &c[start..i];
        if !(sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|x| x == b'-')) {
            return false;
        }
    }
    true
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        for ok in [
            "ghcr.io/pterodactyl/yolks:java_21",
            "alpine",
            "alpine:3.19",
            "localhost:5000/a/b:latest",
            "quay.io/x/y@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "docker.io/library/debian:bookworm-slim",
            "a__b/c-d--e:1.0",
        ] {
            assert_eq!(reference_error(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            " alpine",
            "ghcr.io/Parkervcp/yolks:java",
            "ghcr.io/x/y:",
            "ghcr.io/x/y:-tag",
            "a//b",
            "a_-b",
            "ghcr.io/x/y:tag with space",
            "x@sha256:zz",
        ] {
            assert!(reference_error(bad).is_err(), "{bad}");
        }
        // The messages complete "`x` is not a valid image reference: ...".
        assert_eq!(
            reference_error("ghcr.io/Parkervcp/yolks:java").map_err(|e| e.to_string()),
            Err("`Parkervcp` has uppercase letters; repository names are lowercase".to_owned())
        );
        assert_eq!(
            reference_error("x:1@sha256:zz"),
            Err(ReferenceError::Digest("sha256:zz".to_owned()))
        );
    }

    #[test]
    fn references_are_normalized_as_docker_reads_them() {
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        for (written, normalized) in [
            ("alpine", "docker.io/library/alpine:latest".to_owned()),
            ("alpine:3.19", "docker.io/library/alpine:3.19".to_owned()),
            ("user/img", "docker.io/user/img:latest".to_owned()),
            (
                "index.docker.io/user/img:1",
                "docker.io/user/img:1".to_owned(),
            ),
            (
                "docker.io/library/debian:bookworm",
                "docker.io/library/debian:bookworm".to_owned(),
            ),
            (
                "ghcr.io/parkervcp/yolks:debian",
                "ghcr.io/parkervcp/yolks:debian".to_owned(),
            ),
            ("quay.io/x/y", "quay.io/x/y:latest".to_owned()),
            (
                "registry.gitlab.com/a/b/c:v1",
                "registry.gitlab.com/a/b/c:v1".to_owned(),
            ),
            ("localhost:5000/a:t", "localhost:5000/a:t".to_owned()),
            ("localhost/a", "localhost/a:latest".to_owned()),
            (
                &*format!("quay.io/x/y@{digest}"),
                format!("quay.io/x/y@{digest}"),
            ),
            (
                &*format!("alpine:3@{digest}"),
                format!("docker.io/library/alpine:3@{digest}"),
            ),
        ] {
            let r = ImageReference::parse(written).unwrap();
            assert_eq!(r.to_string(), normalized, "{written}");
        }
        let r = ImageReference::parse(&format!("alpine:3@{digest}")).unwrap();
        assert_eq!(
            r.manifest_reference(),
            digest,
            "the digest wins over the tag"
        );
        assert_eq!(
            ImageReference::parse("ghcr.io/x/y:1")
                .unwrap()
                .manifest_reference(),
            "1"
        );
        assert!(ImageReference::parse("Alpine").is_err());
    }
}
