//! Docker image references: the grammar of distribution/reference (what `docker pull`
//! parses): `[domain[:port]/]path[:tag][@digest]`, path components lowercase `[a-z0-9]` joined
//! by `.`, `_`, `__` or dashes, a tag of at most 128 word characters, dots and dashes not
//! starting with a dot or dash, a digest `algorithm:hex`. The domain is the first component
//! when it has a dot or a port or is `localhost`. Pterodactyl also caps an image at 191
//! characters. Shared by the docker images check and the install check (its `container`).

use eggcat_egg::panel::{PTERODACTYL_MAX, chars};

use crate::vocab::{Code, Family, Finding};

/// Why an image is not a reference Docker can pull; the message completes "`x` is not a valid
/// image reference: ...".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ReferenceError {
    #[error("it is empty")]
    Empty,
    #[error("it has spaces around it")]
    Spaces,
    #[error("it is too long")]
    TooLong,
    #[error("the digest has no `algorithm:`")]
    DigestWithoutAlgorithm,
    #[error("`{0}` is not a digest")]
    Digest(String),
    #[error("`{0}` is not a valid tag")]
    Tag(String),
    #[error("the name is longer than 255 characters")]
    NameTooLong,
    #[error("`{0}` has an invalid port")]
    Port(String),
    #[error("`{0}` is not a valid registry host")]
    Host(String),
    #[error("`{0}` has uppercase letters; repository names are lowercase")]
    Uppercase(String),
    #[error("`{0}` is not a valid name component")]
    Component(String),
}

/// The [`Code::BadImageReference`] finding on `image` at `pointer`, when it is not a valid
/// reference or (in a PTDL egg) is longer than Pterodactyl allows.
pub(crate) fn check_reference(pointer: &str, image: &str, fam: Family) -> Option<Finding> {
    let code = Code::BadImageReference;
    if let Err(why) = reference_error(image) {
        Some(
            Finding::new(
                code,
                pointer,
                format!("`{image}` is not a valid image reference: {why}"),
            )
            .help("write it as `registry/name:tag`, e.g. `ghcr.io/pterodactyl/yolks:java_21`"),
        )
    } else if fam == Family::Ptdl && chars(image) > PTERODACTYL_MAX {
        Some(Finding::new(
            code,
            pointer,
            format!(
                "image reference is {} characters long, over Pterodactyl's limit of {PTERODACTYL_MAX}",
                image.chars().count()
            ),
        ))
    } else {
        None
    }
}

/// Why `image` is not a reference Docker can pull.
pub(crate) fn reference_error(image: &str) -> Result<(), ReferenceError> {
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
}
