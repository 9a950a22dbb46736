//! Docker images: the egg must offer at least one, and each must be an image reference Docker
//! can pull (the grammar is in `reference.rs`).

use serde_json::{Map, Value};

use crate::reference::check_reference;
use crate::span::child;
use crate::vocab::{Code, Family, Finding, kind, wrong_type};

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
                Code::NoDockerImage,
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
                Code::WrongType,
                p,
                format!("a docker image is {}, not a string", kind(v)),
            ));
            continue;
        };
        out.extend(check_reference(&p, image, fam));
    }
}
