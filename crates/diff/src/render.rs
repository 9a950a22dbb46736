//! Changes in plain words: [`describe`] writes the one line a [`Change`] carries (`text`), and
//! [`render_human`] prints a whole list for a terminal, breaking changes marked with `!` and
//! followed by why, long values in full below their line, the script diff indented.

use std::fmt::Write;

use serde_json::Value;

use crate::shown::{self, SHORT, cut};
use crate::{Change, Kind};

/// Characters of a value printed in full by [`render_human`]; beyond, it is cut with a note.
const LONG: usize = 2000;

/// The counts of a change list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Changes.
    pub changes: usize,
    /// Changes that can break existing servers.
    pub breaking: usize,
}

impl Summary {
    /// The counts of `changes`.
    pub fn of(changes: &[Change]) -> Summary {
        Summary {
            changes: changes.len(),
            breaking: changes.iter().filter(|c| c.breaking).count(),
        }
    }

    /// One line: `no changes`, or `3 changes, 1 can break existing servers`.
    pub fn line(&self) -> String {
        match (self.changes, self.breaking) {
            (0, _) => "no changes (the eggs may still differ in format)".to_owned(),
            (n, 0) => format!("{n} change{}, none can break existing servers", plural(n)),
            (n, b) => format!("{n} change{}, {b} can break existing servers", plural(n)),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The whole list for a terminal, ending with the [`Summary`] line.
pub fn render_human(changes: &[Change]) -> String {
    let mut out = String::new();
    for c in changes {
        let mark = if c.breaking { '!' } else { ' ' };
        let _ = writeln!(out, "{mark} {}", c.text);
        let long = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).is_some_and(clipped);
        if c.script.is_none() && (long(&c.old) || long(&c.new)) {
            for (sign, v) in [('-', &c.old), ('+', &c.new)] {
                if let Some(s) = v.as_ref().and_then(Value::as_str) {
                    for line in full(s).lines() {
                        let _ = writeln!(out, "    {sign} {line}");
                    }
                }
            }
        }
        if let Some(d) = &c.script {
            for line in d.unified.lines() {
                let _ = writeln!(out, "    {line}");
            }
            if let Some(note) = &d.note {
                let _ = writeln!(out, "    ({note})");
            }
        }
        if let Some(why) = &c.why {
            let _ = writeln!(out, "    can break servers: {why}");
        }
    }
    if !changes.is_empty() {
        out.push('\n');
    }
    out.push_str(&Summary::of(changes).line());
    out.push('\n');
    out
}

/// The one-line text of `c`.
pub(crate) fn describe(c: &Change) -> String {
    let key = |i: usize| c.path.get(i).map_or("", String::as_str);
    let (old, new) = match (&c.old, &c.new) {
        (Some(_), Some(_)) => shown::pair(&c.old, &c.new),
        _ => (shown::one(&c.old), shown::one(&c.new)),
    };
    let from_to = || match (&c.old, &c.new) {
        (None, _) => format!("set to {new}"),
        (_, None) => format!("removed (was {old})"),
        _ => format!("changed from {old} to {new}"),
    };
    match c.kind {
        Kind::NameChanged => format!("name {}", from_to()),
        Kind::DescriptionChanged => format!("description {}", from_to()),
        Kind::AuthorChanged => format!("author {}", from_to()),
        Kind::UuidChanged => format!("uuid {}", from_to()),
        Kind::UpdateUrlChanged => format!("update URL {}", from_to()),
        Kind::IconChanged => match (&c.old, &c.new) {
            (None, _) => "icon added".to_owned(),
            (_, None) => "icon removed".to_owned(),
            _ => "icon changed".to_owned(),
        },
        Kind::TagAdded => format!("tag `{}` added", key(1)),
        Kind::TagRemoved => format!("tag `{}` removed", key(1)),
        Kind::ImageAdded if new == format!("`{}`", key(1)) => format!("docker image {new} added"),
        Kind::ImageAdded => format!("docker image `{}` added: {new}", key(1)),
        // A PTDL_v1 image is its own label: "removed (was `X`)" would repeat it.
        Kind::ImageRemoved if old == format!("`{}`", key(1)) => {
            format!("docker image {old} removed")
        }
        Kind::ImageRemoved => format!("docker image `{}` removed (was {old})", key(1)),
        Kind::ImageChanged => format!("docker image `{}` changed from {old} to {new}", key(1)),
        Kind::ImageRenamed => format!("docker image label {old} renamed to {new}"),
        Kind::StartupAdded => format!("startup command `{}` added: {new}", key(1)),
        Kind::StartupRemoved => format!("startup command `{}` removed (was {old})", key(1)),
        Kind::StartupChanged => format!("startup command `{}` changed from {old} to {new}", key(1)),
        Kind::StartupRenamed => format!("startup command {old} renamed to {new}"),
        Kind::StopChanged if crate::config::same_signal(&c.old, &c.new) => format!(
            "stop command {} (the same signal: both panels send it in capitals)",
            from_to()
        ),
        Kind::StopChanged => format!("stop command {}", from_to()),
        Kind::ReadyTextChanged => format!("\"server ready\" text {}", from_to()),
        Kind::StartupConfigChanged => format!("startup setting `{}` {}", key(2), from_to()),
        Kind::LogsChanged => format!("log settings {}", from_to()),
        Kind::ConfigFileAdded => format!("config file `{}` added", key(2)),
        Kind::ConfigFileRemoved => format!("config file `{}` removed", key(2)),
        Kind::ConfigFileChanged => format!("config file `{}`: `{}` {}", key(2), key(3), from_to()),
        Kind::ConfigKeyAdded => {
            format!("config file `{}`: `{}` added, set to {new}", key(2), key(4))
        }
        Kind::ConfigKeyRemoved => {
            format!("config file `{}`: `{}` removed (was {old})", key(2), key(4))
        }
        Kind::ConfigKeyChanged => format!(
            "config file `{}`: `{}` changed from {old} to {new}",
            key(2),
            key(4)
        ),
        Kind::InstallContainerChanged => format!("install container {}", from_to()),
        Kind::InstallEntrypointChanged => format!("install entrypoint {}", from_to()),
        Kind::InstallScriptChanged => "install script changed".to_owned(),
        Kind::FeatureAdded => format!("feature `{}` added", key(1)),
        Kind::FeatureRemoved => format!("feature `{}` removed", key(1)),
        Kind::DenylistAdded => format!("`{}` added to the file denylist", key(1)),
        Kind::DenylistRemoved => format!("`{}` removed from the file denylist", key(1)),
        Kind::VariableAdded => format!("variable `{}` added{}", key(1), variable_line(&c.new)),
        Kind::VariableRemoved => format!("variable `{}` removed{}", key(1), variable_line(&c.old)),
        Kind::VariableRenamed => format!("variable {old} renamed to {new}"),
        Kind::VariableChanged => variable_field(key(1), key(2), c),
    }
}

/// ` ("Server Jar File", default `server.jar`)` for an added or removed variable.
fn variable_line(v: &Option<Value>) -> String {
    let Some(v) = v else { return String::new() };
    let name = v["name"].as_str().unwrap_or("");
    match v["default_value"].as_str().unwrap_or("") {
        "" => format!(" (\"{}\", no default)", cut(name, SHORT)),
        d => format!(" (\"{}\", default `{}`)", cut(name, SHORT), cut(d, SHORT)),
    }
}

fn variable_field(env: &str, field: &str, c: &Change) -> String {
    let flag = |v: &Option<Value>| v.as_ref().and_then(Value::as_bool).unwrap_or(false);
    let (old, new) = shown::pair(&c.old, &c.new);
    match (field, flag(&c.new)) {
        ("user_viewable", true) => format!("variable `{env}` is now shown to users"),
        ("user_viewable", false) => format!("variable `{env}` is now hidden from users"),
        ("user_editable", true) => format!("variable `{env}` can now be edited by users"),
        ("user_editable", false) => format!("variable `{env}` can no longer be edited by users"),
        ("default_value", _) => format!("variable `{env}`: default changed from {old} to {new}"),
        _ => format!("variable `{env}`: {field} changed from {old} to {new}"),
    }
}

fn clipped(s: &str) -> bool {
    s.contains('\n') || s.chars().count() > SHORT
}

/// A value printed whole, up to [`LONG`] characters.
fn full(s: &str) -> String {
    match s.char_indices().nth(LONG) {
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &s[..at],
            s.chars().count() - LONG
        ),
        None => s.to_owned(),
    }
}
