//! Docker images: the egg must offer at least one, and each must be an image reference Docker
//! can pull. The grammar is the one of distribution/reference (what `docker pull` parses):
//! `[domain[:port]/]path[:tag][@digest]`, path components lowercase `[a-z0-9]` joined by `.`,
//! `_`, `__` or dashes, a tag of at most 128 word characters, dots and dashes not starting with
//! a dot or dash, a digest `algorithm:hex`. The domain is the first component when it has a
//! dot or a port or is `localhost`. Pterodactyl also caps an image at 191 characters.

use eggcat_egg::panel::{PTERODACTYL_MAX, chars};
use serde_json::{Map, Value};

use crate::egg::{Family, Finding, kind, wrong_type};
use crate::span::child;

pub(crate) fn check_images(
    doc: &Map<String, Value>,
    format: &str,
    fam: Family,
    out: &mut Vec<Finding>,
) {
    // PTDL_v1 wrote `image` (one) or `images` (a list); the importers convert them.
    let (pointer, images) = if format == "PTDL_v1" && !doc.contains_key("docker_images") {
        if let Some(v) = doc.get("images") {
            ("/images", Some(v))
        } else {
            ("/image", doc.get("image"))
        }
    } else {
        ("/docker_images", doc.get("docker_images"))
    };
    let entries: Vec<(String, &Value)> = match images {
        None | Some(Value::Null) => Vec::new(),
        Some(v @ Value::String(_)) => vec![(pointer.to_owned(), v)],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (child(pointer, &i.to_string()), v))
            .collect(),
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (child(pointer, k), v)).collect(),
        Some(v) => {
            out.push(wrong_type(pointer, "an object of images", v));
            return;
        }
    };
    if entries.is_empty() {
        out.push(
            Finding::new(
                "E060",
                pointer,
                "the egg offers no docker image; both panels require at least one",
            )
            .help("add `\"docker_images\": {\"Java 21\": \"ghcr.io/pterodactyl/yolks:java_21\"}`"),
        );
        return;
    }
    for (p, v) in entries {
        let Value::String(image) = v else {
            out.push(Finding::new(
                "E014",
                p,
                format!("a docker image is {}, not a string", kind(v)),
            ));
            continue;
        };
        check_reference(&p, image, fam, "E061", out);
    }
}

/// Reports `image` under `code` when it is not a valid reference.
pub(crate) fn check_reference(
    pointer: &str,
    image: &str,
    fam: Family,
    code: &'static str,
    out: &mut Vec<Finding>,
) {
    if let Err(why) = reference_error(image) {
        out.push(
            Finding::new(
                code,
                pointer,
                format!("`{image}` is not a valid image reference: {why}"),
            )
            .help("write it as `registry/name:tag`, e.g. `ghcr.io/pterodactyl/yolks:java_21`"),
        );
    } else if fam == Family::Ptdl && chars(image) > PTERODACTYL_MAX {
        out.push(Finding::new(
            code,
            pointer,
            format!(
                "image reference is {} characters long, over Pterodactyl's limit of {PTERODACTYL_MAX}",
                image.chars().count()
            ),
        ));
    }
}

/// Why `image` is not a reference Docker can pull.
pub(crate) fn reference_error(image: &str) -> Result<(), String> {
    if image.is_empty() {
        return Err("it is empty".into());
    }
    if image.trim() != image {
        return Err("it has spaces around it".into());
    }
    if image.len() > 255 + 128 + 80 {
        return Err("it is too long".into());
    }
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let (alg, hex) = d.split_once(':').ok_or("the digest has no `algorithm:`")?;
        if alg.is_empty() || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("`{d}` is not a digest"));
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
            return Err(format!("`{t}` is not a valid tag"));
        }
    }
    if name.len() > 255 {
        return Err("the name is longer than 255 characters".into());
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
                format!("`{c}` has uppercase letters; repository names are lowercase")
            } else {
                format!("`{c}` is not a valid name component")
            });
        }
    }
    Ok(())
}

fn check_domain(domain: &str) -> Result<(), String> {
    let (host, port) = match domain.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || domain.starts_with('[') => (h, Some(p)),
        _ => (domain, None),
    };
    if let Some(p) = port
        && (p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!("`{domain}` has an invalid port"));
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
        Err(format!("`{domain}` is not a valid registry host"))
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
    }
}
