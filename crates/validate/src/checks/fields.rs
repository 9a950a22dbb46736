//! The egg's top-level fields: `name`, `author`, `uuid`, `description`, and the lists and
//! texts both panels validate (`features`, `file_denylist`, `meta.update_url`).

use eggcat_egg::panel::{PELICAN_MAX, PTERODACTYL_MAX, is_email, is_uuid};
use serde_json::{Map, Value};

use crate::vocab::{Code, Family, Finding, kind, wrong_type};

/// The checks of the top-level fields of `doc`, an object of the given family.
pub(crate) fn check_fields(doc: &Map<String, Value>, fam: Family, out: &mut Vec<Finding>) {
    check_name(doc, fam, out);
    check_author(doc, out);
    check_uuid(doc, out);
    if let Some(d) = doc.get("description")
        && !matches!(d, Value::String(_) | Value::Null)
    {
        out.push(wrong_type("/description", "a string", d));
    }
    check_lists(doc, out);
}

/// The fields both panels validate as `array|nullable` (`features`, `file_denylist`, whose
/// items are `string`) and `nullable|string` (`meta.update_url`): Pelican's and Pterodactyl's
/// `Egg::$validationRules`. A JSON object is a PHP array too.
fn check_lists(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    for key in ["features", "file_denylist"] {
        match doc.get(key) {
            None | Some(Value::Null | Value::Array(_) | Value::Object(_)) => {}
            // Both importers read the denylist through `Collection::make`, which makes a text a
            // list of one (`EggImporterService::fillFromParsed`, Pterodactyl's
            // `EggParserService`), so the egg imports and the pattern holds.
            Some(Value::String(text)) if key == "file_denylist" => out.push(
                Finding::new(
                    Code::DenylistText,
                    "/file_denylist",
                    "`file_denylist` is a text, not a list: both panels import it as a list of one pattern",
                )
                .help(format!("write it as a list: `[{}]`", Value::String(text.clone()))),
            ),
            Some(v) => out.push(wrong_type(&format!("/{key}"), "a list", v)),
        }
    }
    if let Some(Value::Array(items)) = doc.get("file_denylist") {
        for (i, item) in items.iter().enumerate() {
            if !item.is_string() {
                out.push(Finding::new(
                    Code::WrongType,
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
            out.push(Finding::new(Code::BadName, "/name", "name is blank"));
        }
        Some(Value::String(n)) if n.chars().count() > max => out.push(Finding::new(
            Code::BadName,
            "/name",
            format!(
                "name is {} characters long, over the panel's limit of {max}",
                n.chars().count()
            ),
        )),
        Some(Value::String(_)) => {}
        Some(v) => out.push(Finding::new(
            Code::BadName,
            "/name",
            format!("name is {}, not a string", kind(v)),
        )),
        None => out.push(
            Finding::new(Code::BadName, "/name", "the egg has no `name`")
                .help("add a `name`, as the panel and the catalog show it"),
        ),
    }
}

fn check_author(doc: &Map<String, Value>, out: &mut Vec<Finding>) {
    match doc.get("author") {
        None | Some(Value::Null) => out.push(
            Finding::new(
                Code::MissingField,
                "/author",
                "the egg has no `author`; both panels require one",
            )
            .help("add `\"author\": \"you@example.com\"`"),
        ),
        Some(Value::String(a)) if a.trim().is_empty() => out.push(Finding::new(
            Code::MissingField,
            "/author",
            "`author` is empty; both panels require one",
        )),
        Some(Value::String(a)) if !is_email(a) => out.push(
            Finding::new(
                Code::AuthorNotEmail,
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
            Finding::new(
                Code::MalformedUuid,
                "/uuid",
                format!("uuid `{u}` is not a UUID"),
            )
            .help("Pelican finds the egg to update by its uuid: use a random UUID (`uuidgen`)"),
        ),
        Some(Value::String(_)) | None | Some(Value::Null) => {}
        Some(v) => out.push(wrong_type("/uuid", "a string", v)),
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
