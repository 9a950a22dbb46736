//! The panels' own rules for an egg they import, as sentences an admin can act on.
//! Pelican: `app/Models/Egg.php` and `app/Models/EggVariable.php` `$validationRules` (and
//! `getRules`). Pterodactyl: its `Egg.php`/`EggVariable.php` `$validationRules`,
//! `EggParserService` and `EggImportFormRequest`.

use serde_json::Value;

/// Laravel's `email` rule, as far as a text check can follow RFC 5322 without a DNS lookup:
/// one `@`, a non-empty local part and domain, no white space, no empty dot-separated label.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let atoms_ok = |part: &str| !part.is_empty() && part.split('.').all(|a| !a.is_empty());
    atoms_ok(local)
        && atoms_ok(domain)
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
        && !local.contains(['(', ')', ',', ':', ';', '<', '>', '[', ']', '\\', '"', '@'])
        && domain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '.')
}

/// Characters, as Laravel's `max` and `between` count a string (`mb_strlen`).
pub(crate) fn chars(s: &str) -> usize {
    s.chars().count()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        for ok in ["parker@pterodactyl.io", "a.b+c@example.org", "me@localhost"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "Pterodactyl",
            "a@",
            "@b.c",
            "a b@c.d",
            "a@b..c",
            "a..b@c.d",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
