//! An egg document as the pages read it: [`EggDocument`] with its egg parsed (document key
//! order kept), read back by the catalog from the snapshot it has just written.

use serde_json::Value;

use crate::wire::{EggDocument, Meta};

/// `api/v1/eggs/{slug}.json`, decoded.
#[derive(Debug)]
pub struct Doc {
    /// The upstream egg.
    pub egg: Value,
    /// [`EggDocument::meta`].
    pub meta: Meta,
    /// [`EggDocument::readme`].
    pub readme: Option<String>,
}

impl Doc {
    /// The document in `bytes`, or `None` when it is not an [`EggDocument`] whose egg is JSON.
    pub fn decode(bytes: &[u8]) -> Option<Doc> {
        let doc: EggDocument = serde_json::from_slice(bytes).ok()?;
        let egg = serde_json::from_str(doc.egg.get()).ok()?;
        Some(Doc {
            egg,
            meta: doc.meta,
            readme: doc.readme,
        })
    }
}

/// A string field of the egg, or "".
pub fn egg_str<'a>(egg: &'a Value, key: &str) -> &'a str {
    egg.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A list-or-map field as strings (`tags`): the values of a map, the elements of a list;
/// non-strings are skipped. `docker_images` has its own reader, [`docker_images`].
pub fn egg_strings(egg: &Value, key: &str) -> Vec<String> {
    match egg.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(Value::Object(o)) => o
            .values()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// The docker images as (label, image), in document order: `eggcat_egg::docker_images`, the
/// one reading of the field.
pub fn docker_images(egg: &Value) -> Vec<(String, String)> {
    eggcat_egg::docker_images(egg)
        .into_iter()
        .filter_map(|used| match used.role {
            eggcat_egg::ImageRole::Runtime(label) => Some((label, used.image)),
            eggcat_egg::ImageRole::Install => None,
        })
        .collect()
}

/// The startup commands as (label, command): PLCN_v3's `startup_commands` map, else `startup`.
pub fn startup_commands(egg: &Value) -> Vec<(String, String)> {
    if let Some(Value::Object(o)) = egg.get("startup_commands") {
        let all: Vec<_> = o
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
            .collect();
        if !all.is_empty() {
            return all;
        }
    }
    match egg.get("startup").and_then(Value::as_str) {
        Some(s) => vec![("Default".to_owned(), s.to_owned())],
        None => Vec::new(),
    }
}

/// `s` cut to at most `max` characters (on a character boundary), with `…` when cut.
pub fn clip(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", s[..i].trim_end()).into(),
        None => s.into(),
    }
}

/// The first line of a description, clipped: what a list shows.
pub fn one_line(s: &str, max: usize) -> String {
    let first = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    clip(first, max).into_owned()
}
