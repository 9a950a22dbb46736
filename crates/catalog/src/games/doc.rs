//! An egg document as the pages read it: [`EggDocument`] with its egg parsed (document key
//! order kept), handed on by the build that wrote it ([`Documents`]) or, for a tree made
//! elsewhere, decoded from its bytes ([`Doc::decode`]).

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::Loaded;
use crate::reuse::Key;
use crate::wire::{EggDocument, Meta};

/// The egg and history documents a build wrote, by slug, typed as it wrote them: what its pages
/// are made from (`Siblings`), so that nothing it wrote is decoded again. Only eggs that read as
/// a value (those in a game) are held.
#[derive(Debug, Default)]
pub struct Documents(BTreeMap<String, Written>);

/// One egg document as written.
#[derive(Debug)]
struct Written {
    egg: Box<RawValue>,
    meta: Meta,
    readme: Option<String>,
    /// The key of the document's bytes (`document_key`, in siblings.rs).
    key: Key,
    /// The egg's history document as written, with the key of its bytes
    /// ([`super::history_key`]).
    history: (Loaded, Key),
}

impl Documents {
    /// Holds the document of `slug`, written as `egg`, `meta` and `readme`, whose bytes have
    /// the key `key`, and its history document `history` with the key of its bytes.
    pub(crate) fn insert(
        &mut self,
        slug: String,
        (egg, meta, readme): (Box<RawValue>, Meta, Option<String>),
        key: Key,
        history: (Loaded, Key),
    ) {
        let written = Written {
            egg,
            meta,
            readme,
            key,
            history,
        };
        self.0.insert(slug, written);
    }

    /// The document of `slug` with the key of its bytes; its egg is parsed from the upstream
    /// egg's text, as the build's derive stage reads it. `None` for an egg without one.
    pub fn get(&self, slug: &str) -> Option<(Doc, Key)> {
        let w = self.0.get(slug)?;
        let doc = Doc {
            egg: serde_json::from_str(w.egg.get()).ok()?,
            meta: w.meta.clone(),
            readme: w.readme.clone(),
        };
        Some((doc, w.key.clone()))
    }

    /// The history document of `slug` with the key of its bytes; for an egg without a document
    /// held, none ([`Loaded::Missing`], keyed as no bytes), as a tree without the file reads.
    pub fn history(&self, slug: &str) -> (Loaded, Key) {
        match self.0.get(slug) {
            Some(w) => w.history.clone(),
            None => (Loaded::Missing, super::history_key(None)),
        }
    }
}

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
