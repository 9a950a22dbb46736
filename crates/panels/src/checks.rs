//! The panels' own rules for an egg they import, as sentences an admin can act on.
//! Pelican: `app/Models/Egg.php` and `app/Models/EggVariable.php` `$validationRules` (and
//! `getRules`). Pterodactyl: its `Egg.php`/`EggVariable.php` `$validationRules`,
//! `EggParserService` and `EggImportFormRequest`.

use eggcat_egg::panel::{chars, is_email};
use serde_json::Value;

/// Problems with a text field: required, a string, at most `max` characters.
pub(crate) fn text(problems: &mut Vec<String>, what: &str, v: &Value, max: usize) {
    match v {
        Value::String(s) if s.is_empty() => problems.push(format!("{what} is empty")),
        Value::String(s) if chars(s) > max => problems.push(format!(
            "{what} has {} characters, over the panel's limit of {max}",
            chars(s)
        )),
        Value::String(_) => {}
        Value::Null => problems.push(format!("{what} is missing")),
        _ => problems.push(format!("{what} is not text")),
    }
}

/// The author: required, an email address.
pub(crate) fn author(problems: &mut Vec<String>, v: &Value) {
    match v.as_str() {
        Some(a) if is_email(a) => {}
        Some(a) => problems.push(format!("the author `{a}` is not an email address")),
        None => problems.push("the egg has no author".to_owned()),
    }
}

/// The values of a list or map field, or `None` when it is neither.
pub(crate) fn values(v: &Value) -> Option<Vec<&Value>> {
    match v {
        Value::Array(a) => Some(a.iter().collect()),
        Value::Object(m) => Some(m.values().collect()),
        _ => None,
    }
}
