//! Pelican's update check on a file that names itself as its update URL (`meta.update_url`,
//! as the pelican-eggs repositories do): the panel exports the egg it imported, fetches the URL,
//! and compares `md5(json_encode(...))` of both, key order and list order included
//! (`CheckEggUpdatesCommand::check`). Where the import rewrites the file, the check can never say
//! "Up-to-date": every admin sees "Found update" every day, and updating changes nothing.
//!
//! The comparison is the panel's own, through eggcat's model of its import and export
//! (`eggcat_panels::own_export`, held against the panel's PHP by the differential test). Each
//! rewrite the panel is known to make gets its own code (`E080`-`E085`), on the key it
//! rewrites; any other difference is `E089`, at the first place the two differ.

use eggcat_egg::SyntaxKind;
use serde_json::{Map, Value};

use crate::span::child;
use crate::vocab::{Code, Finding};

/// The findings on `doc`, read from a file of `syntax`.
pub(super) fn check_update_check(
    doc: &Map<String, Value>,
    syntax: SyntaxKind,
    out: &mut Vec<Finding>,
) {
    let Some(Value::String(url)) = doc.get("meta").and_then(|m| m.get("update_url")) else {
        return;
    };
    if url.trim().is_empty() {
        return;
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    let file_name = path.rsplit('/').next().unwrap_or("");
    let extension = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    let yaml = matches!(extension.as_deref(), Some("yaml" | "yml"));
    let as_file = Value::Object(doc.clone());
    let Some(export) = eggcat_panels::own_export(&as_file, yaml) else {
        // Pelican refuses the file: the errors say why, and there is nothing to check.
        return;
    };
    let file = eggcat_panels::update_check_shape(&as_file);
    if same(&export, &file) {
        return;
    }
    let help = "write the file as Pelican's own export of the egg writes it (import it into a \
                panel and export it), or leave `update_url` empty";
    let before = out.len();
    if extension.is_none() {
        out.push(
            Finding::new(
                Code::UpdateUrlFormat,
                "/meta/update_url",
                "the update URL has no file extension: Pelican's update check fails on it (\"Unsupported file format\")",
            )
            .help("point `update_url` at the raw `.json` or `.yaml` file"),
        );
    } else if yaml != (syntax == SyntaxKind::Yaml) {
        out.push(
            Finding::new(
                Code::UpdateUrlFormat,
                "/meta/update_url",
                format!(
                    "the update URL names a .{} file but this file is {}: Pelican's update check reads it as the URL's format and never finds it up to date",
                    extension.as_deref().unwrap_or(""),
                    if syntax == SyntaxKind::Yaml { "YAML" } else { "JSON" }
                ),
            )
            .help("point `update_url` at this file itself"),
        );
    } else {
        // The shape first: a file in another format, or with other top-level keys, is not the
        // panel's export whatever its variables say.
        if let Some(finding) = top_level(doc, &export, &file) {
            out.push(finding.help(help));
        }
        renamed_variables(doc, &export, out);
        legacy_placeholders(doc, out);
        default_values(doc, &export, out);
        empty_denylist(doc, out);
        icon(doc, &export, out);
        variable_order(doc, &export, out);
    }
    if out.len() == before {
        let (at, what) = first_difference(&export, &file, String::new());
        let message = match (at.as_str(), doc.get("meta").and_then(|m| m.get("version"))) {
            ("/meta/version", Some(Value::String(v))) => format!(
                "Pelican's update check never finds this file up to date: the panel exports the egg as {}, and this file is {v}",
                eggcat_panels::pelican::EXPORT_VERSION
            ),
            _ => format!(
                "Pelican's update check never finds this file up to date: the panel's own export of the egg differs from it at `{}` ({what})",
                if at.is_empty() { "/" } else { &at }
            ),
        };
        // A key the file lacks has no place in it: the finding goes to the nearest one it has.
        let place = if what == WHAT_MISSING {
            crate::span::parent(&at).unwrap_or_default().to_owned()
        } else {
            at
        };
        out.push(Finding::new(Code::NotPelicanExport, place, message).help(help));
    }
}

/// What [`first_difference`] says of a key the export has and the file has not.
const WHAT_MISSING: &str = "the export has this key, the file has not";

/// `E089` for a file whose format or top-level keys (names and order, `exported_at` aside) are
/// not the export's: a PTDL file (`startup` where the export has `startup_commands`), a key the
/// export always writes (`icon`, `tags`) missing, a key it never writes (`image`).
fn top_level(doc: &Map<String, Value>, export: &Value, file: &Value) -> Option<Finding> {
    let version = doc.get("meta").and_then(|m| m.get("version"));
    let want = eggcat_panels::pelican::EXPORT_VERSION;
    if let Some(Value::String(v)) = version
        && v != want
    {
        return Some(Finding::new(
            Code::NotPelicanExport,
            "/meta/version",
            format!(
                "Pelican's update check never finds this file up to date: the panel exports the egg as {want}, and this file is {v}"
            ),
        ));
    }
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map_or_else(Vec::new, |m| m.keys().cloned().collect())
    };
    let (theirs, mine) = (keys(export), keys(file));
    if theirs == mine {
        return None;
    }
    let missing: Vec<&str> = theirs
        .iter()
        .filter(|k| !mine.contains(k))
        .map(String::as_str)
        .collect();
    let extra: Vec<&str> = mine
        .iter()
        .filter(|k| !theirs.contains(k))
        .map(String::as_str)
        .collect();
    let what = match (missing.is_empty(), extra.is_empty()) {
        (false, _) => format!(
            "it has no `{}`, which the export always writes",
            missing.join("`, `")
        ),
        (true, false) => format!("the export has no `{}`", extra.join("`, `")),
        (true, true) => "its keys are not in the export's order".to_owned(),
    };
    Some(Finding::new(
        Code::NotPelicanExport,
        "",
        format!("Pelican's update check never finds this file up to date: {what}"),
    ))
}

/// A variable of the file: its pointer, itself, and the exported variable of the same name.
type NamedVariable<'a> = (
    String,
    &'a Map<String, Value>,
    Option<&'a Map<String, Value>>,
);

/// Whether the check's two hashes agree: `json_encode` writes keys and items in order.
fn same(a: &Value, b: &Value) -> bool {
    serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
}

/// The file's variables, each with its pointer, and the exported variable of the same name.
fn by_name<'a>(doc: &'a Map<String, Value>, export: &'a Value) -> Vec<NamedVariable<'a>> {
    let exported: Vec<&Map<String, Value>> = export["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect();
    let Some(Value::Array(vars)) = doc.get("variables") else {
        return Vec::new();
    };
    vars.iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let v = v.as_object()?;
            let twin = exported.iter().find(|e| e.get("name") == v.get("name"));
            Some((format!("/variables/{i}"), v, twin.copied()))
        })
        .collect()
}

/// `E080`: an `env_variable` the import renames (upper-cased, or `SERVER_` before a name
/// Pelican reserves).
fn renamed_variables(doc: &Map<String, Value>, export: &Value, out: &mut Vec<Finding>) {
    for (at, v, twin) in by_name(doc, export) {
        let (Some(Value::String(env)), Some(Value::String(stored))) = (
            v.get("env_variable"),
            twin.and_then(|t| t.get("env_variable")),
        ) else {
            continue;
        };
        if env != stored {
            out.push(
                Finding::new(
                    Code::UpdateCheckRename,
                    child(&at, "env_variable"),
                    format!(
                        "Pelican stores `{env}` as `{stored}`, so its update check never finds this file up to date"
                    ),
                )
                .help(format!(
                    "name the variable `{stored}` here and in the startup command, as Pelican does"
                )),
            );
        }
    }
}

/// `E081`: a legacy `server.build.*` placeholder in `config.files`, which the import upgrades.
fn legacy_placeholders(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    let Some(files) = doc.get("config").and_then(|c| c.get("files")) else {
        return;
    };
    let text = match files {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let Some((old, new)) = eggcat_panels::pelican::UPGRADE_VARIABLES
        .iter()
        .find(|(old, _)| text.contains(old))
    {
        out.push(
            Finding::new(
                Code::UpdateCheckPlaceholder,
                "/config/files",
                format!(
                    "Pelican rewrites the placeholder `{old}` to `{new}` on import, so its update check never finds this file up to date"
                ),
            )
            .help(format!("write `{new}` (and the other `server.allocations.*`/`server.environment.*` names)")),
        );
    }
}

/// `E082`: a `default_value` the panel exports in another form (a JSON boolean or number it
/// stores as text; a YAML text its YAML export writes as a number or boolean).
fn default_values(doc: &Map<String, Value>, export: &Value, out: &mut Vec<Finding>) {
    for (at, v, twin) in by_name(doc, export) {
        let (Some(mine), Some(theirs)) = (
            v.get("default_value"),
            twin.and_then(|t| t.get("default_value")),
        ) else {
            continue;
        };
        if mine == theirs {
            continue;
        }
        // `yamlExport` writes a text that is valid JSON as its value, and Pelican's import
        // refuses a number as a default value: no YAML file can be up to date then.
        let help = if theirs.is_number() && mine.is_string() {
            "Pelican's own import refuses that number, so no YAML file of this egg can be up to date: point `update_url` at a JSON file".to_owned()
        } else {
            format!("write the default value as `{theirs}`")
        };
        out.push(
            Finding::new(
                Code::UpdateCheckDefault,
                child(&at, "default_value"),
                format!(
                    "Pelican exports this default value as `{theirs}`, so its update check never finds this file up to date"
                ),
            )
            .help(help),
        );
    }
}

/// `E083`: empty `file_denylist` entries, which the import drops.
fn empty_denylist(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    let Some(Value::Array(list)) = doc.get("file_denylist") else {
        return;
    };
    for (i, item) in list.iter().enumerate() {
        if eggcat_panels::php::is_empty(item) {
            out.push(
                Finding::new(
                    Code::UpdateCheckDenylist,
                    format!("/file_denylist/{i}"),
                    "Pelican drops this empty `file_denylist` entry on import, so its update check never finds this file up to date",
                )
                .help("remove the empty entry"),
            );
        }
    }
}

/// `E084`: an icon the import drops or moves (only png, jpg and webp data URIs are kept; an
/// `image` data URI becomes `icon`).
fn icon(doc: &Map<String, Value>, export: &Value, out: &mut Vec<Finding>) {
    for key in ["icon", "image"] {
        let Some(mine) = doc.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        if key == "icon" && Some(mine) == export.get("icon") {
            continue;
        }
        out.push(
            Finding::new(
                Code::UpdateCheckIcon,
                format!("/{key}"),
                format!(
                    "Pelican {} this `{key}` on import, so its update check never finds this file up to date",
                    if key == "image" { "moves or drops" } else { "drops or rewrites" }
                ),
            )
            .help("give the icon as `icon`, a png, jpg or webp `data:` URI, or leave it out"),
        );
    }
}

/// `E085`: variables, or a variable's keys, not in the order the panel's export writes them
/// on SQLite, its default database (by name, byte by byte; each variable's keys in the
/// table's column order).
fn variable_order(doc: &Map<String, Value>, export: &Value, out: &mut Vec<Finding>) {
    let names = |list: Option<&Value>| -> Vec<Value> {
        list.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| v.get("name").cloned().unwrap_or(Value::Null))
            .collect()
    };
    let (mine, theirs) = (names(doc.get("variables")), names(export.get("variables")));
    let mut sorted_mine = mine.clone();
    sorted_mine.sort_by_key(Value::to_string);
    let mut sorted_theirs = theirs.clone();
    sorted_theirs.sort_by_key(Value::to_string);
    // Only a reordering of the same variables is an order problem; renames are E080's.
    if mine != theirs && sorted_mine == sorted_theirs {
        out.push(
            Finding::new(
                Code::UpdateCheckOrder,
                "/variables",
                "the variables are not in the order Pelican's export lists them (by name, byte by byte, on SQLite), so its update check never finds this file up to date",
            )
            .help("order the variables by name, as Pelican's export does"),
        );
        return;
    }
    for (at, v, twin) in by_name(doc, export) {
        let Some(twin) = twin else { continue };
        let mine: Vec<&String> = v.keys().collect();
        let theirs: Vec<&String> = twin.keys().collect();
        if mine != theirs && v.len() == twin.len() && v.keys().all(|k| twin.contains_key(k)) {
            let order: Vec<&str> = theirs.iter().map(|k| k.as_str()).collect();
            out.push(
                Finding::new(
                    Code::UpdateCheckOrder,
                    at,
                    format!(
                        "the variable's keys are not in the order Pelican's export writes them ({}), so its update check never finds this file up to date",
                        order.join(", ")
                    ),
                )
                .help("write the keys in that order"),
            );
        }
    }
}

/// The pointer of the first place the export `a` and the file `b` differ (a key's value, a key
/// order, a list item), and what differs there.
fn first_difference(a: &Value, b: &Value, at: String) -> (String, &'static str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if !same(v, w) => return first_difference(v, w, child(&at, k)),
                    None => return (child(&at, k), WHAT_MISSING),
                    _ => {}
                }
            }
            if let Some(k) = y.keys().find(|k| !x.contains_key(*k)) {
                return (child(&at, k), "the file has this key, the export has not");
            }
            (at, "the keys are in another order")
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    return first_difference(v, w, child(&at, &i.to_string()));
                }
            }
            (at, "the lists have different lengths")
        }
        _ => (at, "the values differ"),
    }
}
