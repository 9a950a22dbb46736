//! `config`: the four parts both panels require (`files`, `startup`, `logs`, `stop`), the JSON
//! text they hold, the file parsers Wings knows, the placeholders in the files, and the `done`
//! text that tells Wings the server is up.
//!
//! In `config.files`, Wings reads `{{server.…}}` from the server's configuration, `{{env.X}}`
//! (and the older `{{server.build.env.X}}`, Pelican's `{{server.environment.X}}`) from its
//! environment, and `{{config.…}}` from its own configuration.

use serde_json::{Map, Value};

use crate::placeholder::{Known, placeholders};
use crate::span::child;
use crate::vocab::{Code, Family, Finding, kind, missing, wrong_type};

/// `yml` is an alias of `yaml` there; `toml` exists only in Pelican's Wings.
const PARSERS: &[&str] = &[
    "file",
    "yaml",
    "yml",
    "properties",
    "ini",
    "json",
    "xml",
    "toml",
];

/// Checks `config` (below) and the files it edits ([`check_files`]); returns `config.files`
/// as JSON text, which the unused-variable check searches, when `config` is an object.
pub(crate) fn check_config(
    doc: &Map<String, Value>,
    fam: Family,
    known: &Known,
    out: &mut Vec<Finding>,
) -> Option<String> {
    let config = check_parts(doc, fam, out)?;
    check_files(&config, known, out);
    Some(config.files_text)
}

/// The `config` object, each part parsed.
struct Config {
    files: Option<(String, Value)>,
    /// `config.files` as JSON text, searched for variable names.
    files_text: String,
}

/// Checks `config.files`, `config.startup`, `config.logs` and `config.stop`: present (the
/// panels' `required_without:config_from`), JSON text that parses, or an object where the
/// panel converts one (Pelican only: Pterodactyl validates the field with `json`, which a
/// nested object fails).
fn check_parts(doc: &Map<String, Value>, fam: Family, out: &mut Vec<Finding>) -> Option<Config> {
    let config = match doc.get("config") {
        Some(Value::Object(c)) => c,
        None | Some(Value::Null) => {
            out.push(missing(
                "",
                "config",
                "the panels require `config` with `files`, `startup`, `logs` and `stop`",
            ));
            return None;
        }
        Some(v) => {
            out.push(wrong_type("/config", "an object", v));
            return None;
        }
    };
    let mut parsed = Config {
        files: None,
        files_text: String::new(),
    };
    for part in ["files", "startup", "logs"] {
        let p = child("/config", part);
        let value = match config.get(part) {
            None | Some(Value::Null) => {
                out.push(missing(
                    "/config",
                    part,
                    "the panels require it (`{}` when there is nothing to say)",
                ));
                continue;
            }
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(v) => v,
                Err(e) => {
                    out.push(Finding::new(Code::ConfigNotJson, &p, format!("`config.{part}` is not valid JSON text: {e}")).help("the panels store this field as JSON text; fix the JSON inside the string"));
                    continue;
                }
            },
            Some(v @ (Value::Object(_) | Value::Array(_))) if fam == Family::Plcn => v.clone(),
            Some(v) => {
                out.push(wrong_type(&p, "JSON text (a string)", v));
                continue;
            }
        };
        if part == "files" {
            parsed.files_text = value.to_string();
            parsed.files = Some((p, value));
        } else if part == "startup" {
            check_done(&p, &value, out);
        }
    }
    match config.get("stop") {
        Some(Value::String(s)) if s.trim().is_empty() => out.push(
            Finding::new(
                Code::MissingField,
                "/config/stop",
                "`config.stop` is empty; the panels require a stop command",
            )
            .help("use the server's console command (`stop`, `quit`) or a signal such as `^C`"),
        ),
        Some(Value::String(_)) => {}
        None | Some(Value::Null) => out.push(missing(
            "/config",
            "stop",
            "the panels require a stop command",
        )),
        Some(v) => out.push(wrong_type("/config/stop", "a string", v)),
    }
    Some(parsed)
}

fn check_done(pointer: &str, startup: &Value, out: &mut Vec<Finding>) {
    let done = startup.get("done");
    let message = match done {
        Some(Value::String(s)) if !s.is_empty() => return,
        Some(Value::Array(items))
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.as_str().is_some_and(|s| !s.is_empty())) =>
        {
            return;
        }
        None | Some(Value::Null) => {
            "`config.startup` has no `done` text; Wings cannot tell when the server is running"
        }
        Some(_) => "`config.startup.done` is empty; Wings cannot tell when the server is running",
    };
    out.push(
        Finding::new(Code::StartupWithoutDone, pointer, message)
            .help("set `done` to a line the server prints once it is ready (`\"done\": \")! For help, type \"`)"),
    );
}

/// Checks each file of `config.files`: a parser Wings knows, placeholders that name something.
fn check_files(config: &Config, known: &Known, out: &mut Vec<Finding>) {
    let Some((p, files)) = &config.files else {
        return;
    };
    let Some(files) = files.as_object() else {
        if !files.as_array().is_some_and(Vec::is_empty) {
            out.push(Finding::new(
                Code::WrongType,
                p,
                format!("`config.files` is {}, not an object of files", kind(files)),
            ));
        }
        return;
    };
    for (name, file) in files {
        let parser = file.get("parser").and_then(Value::as_str);
        match parser {
            Some(parser) if PARSERS.contains(&parser) => {}
            Some(parser) => out.push(
                Finding::new(Code::UnknownConfigParser, p, format!("`config.files` entry `{name}` uses parser `{parser}`, which Wings does not know"))
                    .help("use one of file, yaml, properties, ini, json, xml (Pelican's Wings also: toml)")
                    .needle(name.as_str()),
            ),
            None => out.push(Finding::new(Code::UnknownConfigParser, p, format!("`config.files` entry `{name}` has no `parser`")).needle(name.as_str())),
        }
        let mut strings = Vec::new();
        collect_strings(file.get("find").unwrap_or(&Value::Null), &mut strings);
        for s in strings {
            for (ph, written) in placeholders(s) {
                if let Some(why) = bad_config_placeholder(ph, known) {
                    out.push(
                        Finding::new(
                            Code::UnknownConfigPlaceholder,
                            p,
                            format!(
                                "`config.files` entry `{name}`: placeholder `{{{{{ph}}}}}` {why}"
                            ),
                        )
                        .needle(written),
                    );
                }
            }
        }
    }
}

/// Why a config placeholder names nothing, if it does not.
fn bad_config_placeholder(ph: &str, known: &Known) -> Option<String> {
    for prefix in [
        "env.",
        "server.build.env.",
        "server.environment.",
        "server.build.environment.",
    ] {
        if let Some(name) = ph.strip_prefix(prefix) {
            return (!known.contains(name))
                .then(|| format!("names `{name}`, which is no variable of the egg"));
        }
    }
    if ph.starts_with("server.") || ph.starts_with("config.") {
        return None;
    }
    Some("is not a `server.`, `env.` or `config.` value Wings can fill in".to_owned())
}

fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| collect_strings(i, out)),
        _ => {}
    }
}
