//! The catalog documents as the pages read them: lenient views over the published JSON.
//!
//! One source for the shape: `eggcat_catalog::wire` defines every published document; these
//! views mirror it field by field (names, renames, types as the pages use them) and the test at
//! the end of this file checks, on every document of the demo catalog, that each view reads the
//! same values as the wire type decodes. They stay separate, and lenient (every field has a
//! default; `import` and its panels optional; severity and source status as text), because the
//! pages are rendered from trees the wire types would refuse: the previous snapshot's status,
//! written by an older eggcat before a member existed (`meta.import`, `meta.diagnostics`,
//! `_removed.json`), and the web crate's own tests, which build partial documents by hand. A
//! member missing there is simply not shown. An egg document that does not parse at all is left
//! out of the pages (the JSON API still serves it).

use serde::Deserialize;
use serde_json::Value;

/// `api/v1/eggs/{slug}.json`.
#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
pub(crate) struct EggDoc {
    /// The upstream egg, parsed (document key order kept).
    #[serde(default)]
    pub(crate) egg: Value,
    pub(crate) meta: Meta,
    #[serde(default)]
    pub(crate) readme: Option<String>,
}

/// `meta` of an egg document.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Meta {
    pub(crate) slug: String,
    pub(crate) name: String,
    pub(crate) category: String,
    pub(crate) source: String,
    pub(crate) owner: String,
    pub(crate) repo: String,
    pub(crate) branch: String,
    pub(crate) path: String,
    pub(crate) raw_url: String,
    pub(crate) indexed_at: u64,
    pub(crate) format: String,
    pub(crate) sha256: String,
    pub(crate) commit: String,
    pub(crate) uuid: String,
    pub(crate) import: Option<Imports>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// `meta.import`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default)]
pub(crate) struct Imports {
    pub(crate) pelican: Option<PanelImport>,
    pub(crate) pterodactyl: Option<PanelImport>,
}

/// One panel's import files.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default)]
pub(crate) struct PanelImport {
    pub(crate) yaml: Option<String>,
    pub(crate) json: Option<String>,
    pub(crate) importable: bool,
    pub(crate) problems: Vec<String>,
    pub(crate) losses: Vec<String>,
}

/// One finding of `eggcat validate`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default)]
pub(crate) struct Diagnostic {
    pub(crate) code: String,
    pub(crate) severity: String,
    pub(crate) message: String,
    pub(crate) pointer: String,
    pub(crate) line: Option<u64>,
    pub(crate) column: Option<u64>,
    pub(crate) help: Option<String>,
}

/// `api/v1/_status.json`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Status {
    pub(crate) build_id: String,
    pub(crate) started_at: String,
    pub(crate) finished_at: String,
    pub(crate) eggs: usize,
    pub(crate) sources: Vec<SourceReport>,
    pub(crate) skipped: Vec<SourceProblem>,
    pub(crate) warnings: Vec<SourceProblem>,
    pub(crate) diagnostics: DiagnosticCounts,
}

/// `diagnostics` of the report: what the checks found, counted.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct DiagnosticCounts {
    pub(crate) errors: usize,
    pub(crate) warnings: usize,
    pub(crate) notes: usize,
    pub(crate) by_code: std::collections::BTreeMap<String, usize>,
    pub(crate) by_source:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, usize>>,
}

/// One source of the report.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct SourceReport {
    pub(crate) url: String,
    pub(crate) label: String,
    pub(crate) owner: String,
    pub(crate) repo: String,
    pub(crate) branch: Option<String>,
    pub(crate) commit: Option<String>,
    pub(crate) status: String,
    pub(crate) changed: bool,
    pub(crate) eggs: usize,
    pub(crate) error: Option<String>,
    pub(crate) kept_previous: bool,
}

/// A file of a source and what is wrong with it.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default)]
pub(crate) struct SourceProblem {
    pub(crate) source: String,
    pub(crate) path: String,
    pub(crate) message: String,
}

/// One element of `_removed.json`.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Removed {
    pub(crate) slug: String,
    pub(crate) removed_at: String,
    pub(crate) source: String,
    pub(crate) path: String,
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

#[cfg(test)]
mod tests {
    //! The views agree with `eggcat_catalog::wire` on every document of the demo catalog (its
    //! golden files, which `cargo test -p eggcat --test it golden` keeps equal to a build).

    use std::path::{Path, PathBuf};

    use eggcat_catalog::wire;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::*;

    fn demo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data/demo")
    }

    /// Whether every member `view` read is the document's member (a null or empty value the
    /// document lacks is a default the view filled in).
    fn read_as_published(view: &Value, doc: &Value, at: &str) -> Result<(), String> {
        match (view, doc) {
            (Value::Object(v), Value::Object(d)) => {
                v.iter().try_for_each(|(k, x)| match d.get(k) {
                    Some(y) => read_as_published(x, y, &format!("{at}/{k}")),
                    None if x.is_null() => Ok(()),
                    None => Err(format!("{at}/{k}: the view has {x}, the document nothing")),
                })
            }
            (Value::Array(v), Value::Array(d)) if v.len() == d.len() => v
                .iter()
                .zip(d)
                .enumerate()
                .try_for_each(|(i, (x, y))| read_as_published(x, y, &format!("{at}/{i}"))),
            _ if view == doc => Ok(()),
            _ => Err(format!(
                "{at}: the view reads {view}, the document has {doc}"
            )),
        }
    }

    /// `bytes` decoded by the wire type gives the document back, and the view reads the same
    /// values.
    fn agree<W: Serialize + DeserializeOwned, V: Serialize + DeserializeOwned>(
        name: &str,
        bytes: &[u8],
    ) {
        let doc: Value = serde_json::from_slice(bytes).unwrap();
        let wire: W = serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            serde_json::to_value(&wire).unwrap(),
            doc,
            "{name}: wire round trip"
        );
        let view: V = serde_json::from_slice(bytes).unwrap();
        let view = serde_json::to_value(&view).unwrap();
        read_as_published(&view, &doc, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    #[test]
    fn the_views_read_every_demo_document_as_the_wire_types_do() {
        let eggs = demo().join("api/v1/eggs");
        let read = |p: &Path| std::fs::read(p).unwrap();
        agree::<wire::Report, Status>("_status.json", &read(&demo().join("api/v1/_status.json")));
        agree::<Vec<wire::Removed>, Vec<Removed>>(
            "_removed.json",
            &read(&eggs.join("_removed.json")),
        );
        let mut docs = 0;
        for e in std::fs::read_dir(&eggs).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if name.ends_with(".json") && !name.starts_with('_') {
                agree::<wire::EggDocument, EggDoc>(&name, &read(&path));
                docs += 1;
            }
        }
        let index: Vec<Value> = serde_json::from_slice(&read(&eggs.join("_index.json"))).unwrap();
        assert_eq!(docs, index.len(), "one document per egg of the index");
        assert!(docs > 0);
    }

    /// The check is live: a view that reads a member differently is caught.
    #[test]
    fn a_view_that_reads_a_member_differently_is_caught() {
        let doc = serde_json::json!({"meta": {"slug": "a", "diagnostics": [{"line": 3}]}});
        let view = serde_json::json!({"meta": {"slug": "a", "diagnostics": [{"line": 4}]}});
        assert!(read_as_published(&view, &doc, "").is_err());
        let view = serde_json::json!({"meta": {"slug": "a", "extra": 1}});
        assert!(read_as_published(&view, &doc, "").is_err());
    }
}
