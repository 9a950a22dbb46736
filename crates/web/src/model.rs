//! The catalog documents as the pages read them: the types of `eggcat_catalog::wire`, the one
//! source of every published document's shape, and the upstream egg parsed once per page set.
//!
//! The pages read the snapshot the same build just assembled, so its documents decode as wire
//! types. An egg document that does not decode is left out of the pages (the JSON API still
//! serves it). The previous snapshot's report, read only to decide whether an egg page still
//! holds, may come from an older eggcat: when it does not decode, the pages are rendered anew.

use eggcat_catalog::wire;
use serde_json::Value;

pub(crate) use eggcat_catalog::wire::{
    Meta, PanelImport, Removed, Report as Status, SourceProblem,
};

/// `api/v1/eggs/{slug}.json`: [`wire::EggDocument`] with its egg parsed (document key order
/// kept), which every page reads field by field.
#[derive(Debug)]
pub(crate) struct EggDoc {
    /// The upstream egg.
    pub(crate) egg: Value,
    /// [`wire::EggDocument::meta`].
    pub(crate) meta: Meta,
    /// [`wire::EggDocument::readme`].
    pub(crate) readme: Option<String>,
}

impl EggDoc {
    /// The document in `bytes`, or `None` when it is not a [`wire::EggDocument`].
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let doc: wire::EggDocument = serde_json::from_slice(bytes).ok()?;
        let egg = serde_json::from_str(doc.egg.get()).ok()?;
        Some(Self {
            egg,
            meta: doc.meta,
            readme: doc.readme,
        })
    }
}

/// A string field of the egg, or "".
pub(crate) fn egg_str<'a>(egg: &'a Value, key: &str) -> &'a str {
    egg.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A list-or-map field as strings: the values of a map (`docker_images` is `{label: image}` in
/// PTDL_v2, a plain list in older formats), the elements of a list; non-strings are skipped.
pub(crate) fn egg_strings(egg: &Value, key: &str) -> Vec<String> {
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

/// The docker images as (label, image), in document order.
pub(crate) fn docker_images(egg: &Value) -> Vec<(String, String)> {
    match egg.get("docker_images") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str())
            .map(|s| (s.to_owned(), s.to_owned()))
            .collect(),
        Some(Value::Object(o)) => o
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
            .collect(),
        _ => Vec::new(),
    }
}

/// The startup commands as (label, command): PLCN_v3's `startup_commands` map, else `startup`.
pub(crate) fn startup_commands(egg: &Value) -> Vec<(String, String)> {
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
pub(crate) fn clip(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", s[..i].trim_end()).into(),
        None => s.into(),
    }
}

/// The first line of a description, clipped: what a list shows.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let first = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    clip(first, max).into_owned()
}
