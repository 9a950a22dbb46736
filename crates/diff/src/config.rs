//! The `config` section: the stop command, the "server ready" text (`config.startup.done`), the
//! other startup settings, the log settings, and the config files the panel's daemon rewrites
//! before every start (per file, then per key of its `find` map).
//!
//! Values are compared as data (`config` as JSON text and as nested YAML read the same; key
//! order does not count). A `done` text and a one-item list of it are the same, since the
//! daemon accepts both.

use serde_json::{Map, Value};

use crate::general::opt;
use crate::model::Model;
use crate::{Change, Kind, Make};

/// Every change in `config`, in this order: stop, ready text, other startup keys, logs, files.
pub(crate) fn changes(a: &Model, b: &Model, out: &mut Vec<Change>) {
    if a.stop != b.stop {
        let (old, new) = (opt(&a.stop), opt(&b.stop));
        let same = same_signal(&old, &new);
        let change = Change::new(Kind::StopChanged, &["config", "stop"], old, new);
        // The panels store the text as written, so a change of case is a change, but the signal
        // they send is the same.
        out.push(if same {
            change
        } else {
            change.breaking("the panel stops running servers with the new command; one the server does not understand leaves it to be killed")
        });
    }
    let (done_a, done_b) = (done(&a.config_startup), done(&b.config_startup));
    if done_a != done_b {
        out.push(
            Change::new(
                Kind::ReadyTextChanged,
                &["config", "startup", "done"],
                list(&done_a),
                list(&done_b),
            )
            .breaking("a server whose console never prints the new text stays marked as starting"),
        );
    }
    let mut keys: Vec<&String> = a
        .config_startup
        .keys()
        .chain(b.config_startup.keys())
        .collect();
    keys.sort();
    keys.dedup();
    for key in keys.into_iter().filter(|k| *k != "done") {
        let (x, y) = (a.config_startup.get(key), b.config_startup.get(key));
        if x != y {
            out.push(Change::new(
                Kind::StartupConfigChanged,
                &["config", "startup", key],
                x.cloned(),
                y.cloned(),
            ));
        }
    }
    if a.config_logs != b.config_logs {
        out.push(Change::new(
            Kind::LogsChanged,
            &["config", "logs"],
            some(&a.config_logs),
            some(&b.config_logs),
        ));
    }
    files(&a.config_files, &b.config_files, out);
}

/// Whether two stop commands are the same `^` signal written in another case (`^c`, `^C`): both
/// panels' `convertStopToNewFormat` (their `EggConfigurationService`) send the signal after the
/// `^` upper-cased, `^C` as a plain stop, so servers are stopped the same way.
pub(crate) fn same_signal(old: &Option<Value>, new: &Option<Value>) -> bool {
    match (old, new) {
        (Some(Value::String(a)), Some(Value::String(b))) => {
            a.starts_with('^') && b.starts_with('^') && a.eq_ignore_ascii_case(b)
        }
        _ => false,
    }
}

/// `done` as a list of texts (a single text is a list of one).
fn done(startup: &Map<String, Value>) -> Vec<String> {
    match startup.get("done") {
        Some(Value::Array(items)) => items.iter().map(crate::model::text).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![crate::model::text(v)],
    }
}

/// A ready-text list as a value: one text as itself, several as a list, none as absent.
fn list(items: &[String]) -> Option<Value> {
    match items {
        [] => None,
        [one] => opt(one),
        many => Some(Value::Array(
            many.iter().cloned().map(Value::String).collect(),
        )),
    }
}

fn some(v: &Value) -> Option<Value> {
    (!v.is_null()).then(|| v.clone())
}

/// The config files: added, removed, a file-level key (`parser`) changed, a `find` key added,
/// removed or changed. Every one can change what a server's files hold at its next start.
fn files(a: &Map<String, Value>, b: &Map<String, Value>, out: &mut Vec<Change>) {
    let mut names: Vec<&String> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        match (a.get(name), b.get(name)) {
            (Some(x), None) => out.push(Change::new(
                Kind::ConfigFileRemoved,
                &["config", "files", name],
                Some(x.clone()),
                None,
            )),
            (None, Some(y)) => out.push(Change::new(
                Kind::ConfigFileAdded,
                &["config", "files", name],
                None,
                Some(y.clone()),
            )),
            (Some(x), Some(y)) if x != y => file(name, x, y, out),
            _ => {}
        }
    }
}

/// One config file present on both sides.
fn file(name: &str, x: &Value, y: &Value, out: &mut Vec<Change>) {
    let empty = Map::new();
    let fields = |v: &Value| v.as_object().cloned().unwrap_or_default();
    let (fx, fy) = (fields(x), fields(y));
    let find = |m: &Map<String, Value>| match m.get("find") {
        Some(Value::Object(f)) => f.clone(),
        _ => empty.clone(),
    };
    let mut keys: Vec<&String> = fx.keys().chain(fy.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (vx, vy) = (fx.get(key), fy.get(key));
        // A `find` that is a map is compared key by key below.
        let maps = |v: Option<&Value>| v.is_none_or(Value::is_object);
        if vx == vy || (key == "find" && maps(vx) && maps(vy)) {
            continue;
        }
        out.push(
            Change::new(
                Kind::ConfigFileChanged,
                &["config", "files", name, key],
                vx.cloned(),
                vy.cloned(),
            )
            .breaking(
                "the daemon rewrites this file another way at the next start of every server",
            ),
        );
    }
    let (find_x, find_y) = (find(&fx), find(&fy));
    let mut keys: Vec<&String> = find_x.keys().chain(find_y.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let path = ["config", "files", name, "find", key];
        match (find_x.get(key), find_y.get(key)) {
            (Some(v), None) => out.push(Change::new(
                Kind::ConfigKeyRemoved,
                &path,
                Some(v.clone()),
                None,
            )),
            (None, Some(v)) => out.push(Change::new(
                Kind::ConfigKeyAdded,
                &path,
                None,
                Some(v.clone()),
            )),
            (Some(v), Some(w)) if v != w => out.push(
                Change::new(Kind::ConfigKeyChanged, &path, Some(v.clone()), Some(w.clone()))
                    .breaking("the daemon writes the new value into this file at the next start of every server"),
            ),
            _ => {}
        }
    }
}
