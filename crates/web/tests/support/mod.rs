//! Hand-made trees made whole: the tests write only the members they are about, and
//! [`published`] fills in the rest of each document with neutral values, then holds every
//! document to its `eggcat_wire` type (the pages read the published documents through
//! those types, so a test tree must be one a build could publish).

use std::collections::BTreeMap;

use eggcat_wire::{self as wire, paths};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Completes the report, the index and every egg document of `files` in place, and panics when
/// one of them is still not its wire type.
pub(crate) fn published(files: &mut BTreeMap<String, Vec<u8>>) {
    if let Some(bytes) = files.get(paths::STATUS) {
        let mut status: Value = serde_json::from_slice(bytes).expect("the status is JSON");
        fill(
            &mut status,
            &json!({"interfaceVersion": "1", "buildId": "", "startedAt": "", "finishedAt": "",
                    "eggs": 0, "sources": [], "skipped": [], "warnings": [],
                    "diagnostics": {"errors": 0, "warnings": 0, "notes": 0, "byCode": {}, "bySource": {}}}),
        );
        fill(
            &mut status["diagnostics"],
            &json!({"errors": 0, "warnings": 0, "notes": 0, "byCode": {}, "bySource": {}}),
        );
        for s in status["sources"].as_array_mut().into_iter().flatten() {
            fill(
                s,
                &json!({"url": "", "label": "", "owner": "", "repo": "", "status": "ok",
                        "changed": false, "eggs": 0, "keptPrevious": false}),
            );
        }
        files.insert(paths::STATUS.to_owned(), whole::<wire::Report>(&status));
    }
    let slugs: Vec<String> = files
        .get(paths::INDEX)
        .map(|b| serde_json::from_slice::<Vec<Value>>(b).expect("the index is JSON"))
        .unwrap_or_default()
        .iter()
        .filter_map(|i| i["slug"].as_str().map(str::to_owned))
        .collect();
    let mut index = Vec::new();
    for slug in &slugs {
        let Some(bytes) = files.get(&paths::egg(slug)) else {
            continue;
        };
        let mut doc: Value = serde_json::from_slice(bytes).expect("the egg document is JSON");
        for panel in ["pelican", "pterodactyl"] {
            if let Some(p) = doc.pointer_mut(&format!("/meta/import/{panel}")) {
                fill(
                    p,
                    &json!({"json": null, "importable": false, "problems": [], "losses": []}),
                );
            }
        }
        let m = &doc["meta"];
        index.push(
            json!({"slug": slug, "name": m["name"], "category": m["category"],
                          "repo": m["repo"], "source": m["source"]}),
        );
        files.insert(paths::egg(slug), whole::<wire::EggDocument>(&doc));
    }
    files.insert(
        paths::INDEX.to_owned(),
        whole::<Vec<wire::IndexItem>>(&json!(index)),
    );
}

/// The members of `defaults` that `v` lacks, added.
fn fill(v: &mut Value, defaults: &Value) {
    if let (Some(v), Some(d)) = (v.as_object_mut(), defaults.as_object()) {
        for (k, x) in d {
            v.entry(k.clone()).or_insert_with(|| x.clone());
        }
    }
}

/// `v`'s bytes, after checking that it is a `T`.
fn whole<T: DeserializeOwned>(v: &Value) -> Vec<u8> {
    let bytes = serde_json::to_vec(v).expect("a value serializes");
    if let Err(e) = serde_json::from_slice::<T>(&bytes) {
        panic!("not a {}: {e}\n{v}", std::any::type_name::<T>());
    }
    bytes
}
