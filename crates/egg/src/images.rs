//! The container images an egg names: the runtime images an admin chooses from
//! (`docker_images`, PTDL_v1's `image`/`images`) and the install script's `container`, each with
//! where it is in the document. One reading, shared by `eggcat validate` (which checks and
//! places them) and the catalog (which shows what their registries say of them).

use serde_json::Value;

/// One image reference an egg names, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageUse {
    /// RFC 6901 pointer to the value (`/docker_images/Java 21`, `/scripts/installation/container`).
    pub pointer: String,
    /// What it is for: a runtime image (with the label an admin picks it by) or the install
    /// container.
    pub role: ImageRole,
    /// The reference as the egg writes it.
    pub image: String,
}

/// What an egg uses an image for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageRole {
    /// A runtime image: the server runs in it. The label is its `docker_images` key (for a list,
    /// the image itself).
    Runtime(String),
    /// The install script's container.
    Install,
}

/// The runtime images of the egg's `docker_images`, the one reading of that field: a map of
/// `{label: image}` (PTDL_v2, PLCN) or a list of images (each its own label), in document order;
/// values that are not strings, and a field of any other shape, give none (the checks report
/// them).
pub fn docker_images(doc: &Value) -> Vec<ImageUse> {
    let mut out = Vec::new();
    match doc.get("docker_images") {
        Some(v @ Value::Array(_)) | Some(v @ Value::Object(_)) => {
            runtime_images(&mut out, "/docker_images", v)
        }
        _ => {}
    }
    out
}

/// Every image the egg names, runtime images first in document order, then the install
/// container. Values that are not strings are left out (the checks report them).
pub fn images(doc: &Value) -> Vec<ImageUse> {
    let mut out = Vec::new();
    let format = doc
        .get("meta")
        .and_then(|m| m.get("version"))
        .and_then(Value::as_str);
    match doc.get("docker_images") {
        // PTDL_v1 wrote `image` (one) or `images` (a list); the importers convert them.
        None if format == Some("PTDL_v1") => match doc.get("images") {
            Some(v) => runtime_images(&mut out, "/images", v),
            None => {
                if let Some(v) = doc.get("image") {
                    runtime_images(&mut out, "/image", v)
                }
            }
        },
        // One image where a list or map belongs: still the image the server runs in.
        Some(v @ Value::String(_)) => runtime_images(&mut out, "/docker_images", v),
        _ => out.extend(docker_images(doc)),
    }
    if let Some(Value::String(image)) = doc
        .get("scripts")
        .and_then(|s| s.get("installation"))
        .and_then(|i| i.get("container"))
    {
        out.push(ImageUse {
            pointer: "/scripts/installation/container".to_owned(),
            role: ImageRole::Install,
            image: image.clone(),
        });
    }
    out
}

/// The runtime images of `v`, the value at `pointer`: one image, a list, or a map by label.
fn runtime_images(out: &mut Vec<ImageUse>, pointer: &str, v: &Value) {
    let mut runtime_image = |pointer: String, label: &str, v: &Value| {
        if let Value::String(image) = v {
            out.push(ImageUse {
                pointer,
                role: ImageRole::Runtime(label.to_owned()),
                image: image.clone(),
            });
        }
    };
    match v {
        Value::String(image) => runtime_image(pointer.to_owned(), image, v),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let label = v.as_str().unwrap_or_default();
                runtime_image(format!("{pointer}/{i}"), label, v);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                runtime_image(format!("{pointer}/{}", escape(k)), k, v);
            }
        }
        _ => {}
    }
}

/// A key as one RFC 6901 pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runtime_images_in_document_order_then_the_install_container() {
        let egg = json!({
            "meta": {"version": "PTDL_v2"},
            "docker_images": {"Java 21": "ghcr.io/p/yolks:java_21", "a/b": "alpine", "n": 3},
            "scripts": {"installation": {"container": "debian:bookworm-slim"}},
        });
        let got: Vec<(String, ImageRole, String)> = images(&egg)
            .into_iter()
            .map(|u| (u.pointer, u.role, u.image))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "/docker_images/Java 21".into(),
                    ImageRole::Runtime("Java 21".into()),
                    "ghcr.io/p/yolks:java_21".into()
                ),
                (
                    "/docker_images/a~1b".into(),
                    ImageRole::Runtime("a/b".into()),
                    "alpine".into()
                ),
                (
                    "/scripts/installation/container".into(),
                    ImageRole::Install,
                    "debian:bookworm-slim".into()
                ),
            ]
        );
    }

    #[test]
    fn lists_and_ptdl_v1_fields() {
        let list = json!({"meta": {"version": "PTDL_v2"}, "docker_images": ["a:1", "b:2"]});
        let got: Vec<String> = images(&list).into_iter().map(|u| u.pointer).collect();
        assert_eq!(got, ["/docker_images/0", "/docker_images/1"]);
        let v1 = json!({"meta": {"version": "PTDL_v1"}, "image": "quay.io/x/y:1"});
        let got = images(&v1);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].pointer, "/image");
        assert_eq!(got[0].role, ImageRole::Runtime("quay.io/x/y:1".into()));
        assert!(images(&json!({"meta": {"version": "PLCN_v3"}})).is_empty());
    }
}
