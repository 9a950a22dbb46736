//! The checks on a parsed egg, and what they share: the [`Finding`] a check produces (a code, a
//! sentence and a JSON pointer; positions come later, from the source), the egg's family, and
//! the top-level fields (author, uuid, docker images). Variables, startup and config, and the
//! install script have their own files.
//!
//! Which panel judges: a PTDL egg is imported by Pterodactyl and by Pelican, so it must satisfy
//! both (the stricter rule wins); a PLCN egg is imported by Pelican only.

use eggcat_egg::panel::{PELICAN_MAX, PTERODACTYL_MAX, is_email, is_uuid};
use serde_json::{Map, Value};

use crate::span::child;

/// One finding before it has a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) code: &'static str,
    pub(crate) message: String,
    pub(crate) pointer: String,
    /// Underline the member's key rather than its value (a bad name, a missing child).
    pub(crate) on_key: bool,
    pub(crate) help: Option<String>,
    /// A position known without the span mapper (parse errors): 1-based line and column.
    pub(crate) at: Option<(u32, u32)>,
    /// Text inside the value to underline instead of the whole value (a placeholder inside a
    /// command, one rule of a rules string), when it appears there as written.
    pub(crate) needle: Option<String>,
}

impl Finding {
    pub(crate) fn new(
        code: &'static str,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            code,
            message: message.into(),
            pointer: pointer.into(),
            on_key: false,
            help: None,
            at: None,
            needle: None,
        }
    }

    pub(crate) fn needle(mut self, needle: impl Into<String>) -> Finding {
        self.needle = Some(needle.into());
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn on_key(mut self) -> Finding {
        self.on_key = true;
        self
    }
}

/// Which panels import the egg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `PTDL_v1`, `PTDL_v2`: Pterodactyl and Pelican.
    Ptdl,
    /// `PLCN_v1` to `PLCN_v3`: Pelican only.
    Plcn,
}

/// The formats the panels import (Pelican `EggImporterService::parse`, Pterodactyl
/// `EggParserService`).
pub(crate) fn family(format: &str) -> Option<Family> {
    match format {
        "PTDL_v1" | "PTDL_v2" => Some(Family::Ptdl),
        "PLCN_v1" | "PLCN_v2" | "PLCN_v3" => Some(Family::Plcn),
        _ => None,
    }
}

/// The checks of every field of `doc`, an object of the given family.
pub(crate) fn check_egg(doc: &Map<String, Value>, format: &str, fam: Family) -> Vec<Finding> {
    let mut out = Vec::new();
    check_name(doc, fam, &mut out);
    check_author(doc, &mut out);
    check_uuid(doc, &mut out);
    if let Some(d) = doc.get("description")
        && !matches!(d, Value::String(_) | Value::Null)
    {
        out.push(wrong_type("/description", "a string", d));
    }
    check_lists(doc, &mut out);
    crate::images::check_images(doc, format, fam, &mut out);
    crate::variables::check_variables(doc, fam, &mut out);
    crate::placeholders::check_startup_and_config(doc, fam, &mut out);
    crate::install::check_install(doc, &mut out);
    out
}

/// The fields both panels validate as `array|nullable` (`features`, `file_denylist`, whose
/// items are `string`) and `nullable|string` (`meta.update_url`): Pelican's and Pterodactyl's
/// `Egg::$validationRules`. A JSON object is a PHP array too.
fn check_lists(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    for key in ["features", "file_denylist"] {
        match doc.get(key) {
            None | Some(Value::Null | Value::Array(_) | Value::Object(_)) => {}
            Some(v) => out.push(wrong_type(&format!("/{key}"), "a list", v)),
        }
    }
    if let Some(Value::Array(items)) = doc.get("file_denylist") {
        for (i, item) in items.iter().enumerate() {
            if !item.is_string() {
                out.push(Finding::new(
                    "E014",
                    format!("/file_denylist/{i}"),
                    format!(
                        "item {i} of `file_denylist` is {}, not a string (a file pattern)",
                        kind(item)
                    ),
                ));
            }
        }
    }
    if let Some(url) = doc.get("meta").and_then(|m| m.get("update_url"))
        && !matches!(url, Value::String(_) | Value::Null)
    {
        out.push(wrong_type("/meta/update_url", "a string", url));
    }
}

fn check_name(doc: &Map<String, Value>, fam: Family, out: &mut Vec<Finding>) {
    let max = if fam == Family::Ptdl {
        PTERODACTYL_MAX
    } else {
        PELICAN_MAX
    };
    match doc.get("name") {
        Some(Value::String(n)) if n.trim().is_empty() => {
            out.push(Finding::new("E012", "/name", "name is blank"));
        }
        Some(Value::String(n)) if n.chars().count() > max => out.push(Finding::new(
            "E012",
            "/name",
            format!(
                "name is {} characters long, over the panel's limit of {max}",
                n.chars().count()
            ),
        )),
        Some(Value::String(_)) => {}
        Some(v) => out.push(Finding::new(
            "E012",
            "/name",
            format!("name is {}, not a string", kind(v)),
        )),
        None => out.push(
            Finding::new("E012", "/name", "the egg has no `name`")
                .help("add a `name`, as the panel and the catalog show it"),
        ),
    }
}

fn check_author(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    match doc.get("author") {
        None | Some(Value::Null) => out.push(
            Finding::new(
                "E013",
                "/author",
                "the egg has no `author`; both panels require one",
            )
            .help("add `\"author\": \"you@example.com\"`"),
        ),
        Some(Value::String(a)) if a.trim().is_empty() => out.push(Finding::new(
            "E013",
            "/author",
            "`author` is empty; both panels require one",
        )),
        Some(Value::String(a)) if !is_email(a) => out.push(
            Finding::new(
                "E015",
                "/author",
                format!("author `{a}` is not an email address; both panels refuse the egg"),
            )
            .help("the panels validate `author` with Laravel's `email` rule: use an address"),
        ),
        Some(Value::String(_)) => {}
        Some(v) => out.push(wrong_type("/author", "a string", v)),
    }
}

fn check_uuid(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    match doc.get("uuid") {
        Some(Value::String(u)) if !is_uuid(u) => out.push(
            Finding::new("E016", "/uuid", format!("uuid `{u}` is not a UUID"))
                .help("Pelican finds the egg to update by its uuid: use a random UUID (`uuidgen`)"),
        ),
        Some(Value::String(_)) | None | Some(Value::Null) => {}
        Some(v) => out.push(wrong_type("/uuid", "a string", v)),
    }
}

/// A field of the wrong type.
pub(crate) fn wrong_type(pointer: &str, expected: &str, found: &Value) -> Finding {
    Finding::new(
        "E014",
        pointer,
        format!(
            "`{}` is {}, not {expected}",
            last_token(pointer),
            kind(found)
        ),
    )
}

/// A required field that is missing.
pub(crate) fn missing(parent: &str, key: &str, why: &str) -> Finding {
    Finding::new(
        "E013",
        child(parent, key),
        format!("`{key}` is missing; {why}"),
    )
}

fn last_token(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or(pointer)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// "a string", "null", ... for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_and_uuids() {
        for yes in [
            "parker@parkervcp.com",
            "161775222+Jo@users.noreply.github.com",
            "a@localhost",
        ] {
            assert!(is_email(yes), "{yes}");
        }
        for no in [
            "",
            "parker",
            "Parker (parker@x.com)",
            "a b@x.com",
            "a@",
            "@x.com",
            "a@x..com",
        ] {
            assert!(!is_email(no), "{no}");
        }
        assert!(is_uuid("6dfb0986-d542-47a4-aea6-c89255926d64"));
        assert!(!is_uuid("6dfb0986-d542-47a4-aea6-c89255926d6"));
        assert!(!is_uuid("6dfb0986d54247a4aea6c89255926d64xxxx"));
    }
}
