//! A variable's Laravel validation rules (`required|string|max:32`) in plain words.
//!
//! The panels validate a variable's value with these rules; an admin choosing an egg wants to
//! know what they will have to type. Rules this module does not know are shown as written.

use crate::words::count;

/// `rules` (a `|`-separated string, or a list in PLCN_v3) as phrases, in the order written,
/// except that required/optional comes first.
pub(crate) fn describe(rules: &[String]) -> Vec<String> {
    let kind = if has(rules, &["integer", "numeric"]) {
        Kind::Number
    } else if has(rules, &["array"]) {
        Kind::List
    } else {
        Kind::Text
    };
    let (mut min, mut max) = (None, None);
    let mut out = Vec::new();
    // Without `required` a value may be left empty, whether or not `nullable` says so.
    let first = match (has(rules, &["required"]), has(rules, &["nullable"])) {
        (true, true) => "required (may be empty)",
        (true, false) => "required",
        (false, _) => "optional",
    };
    out.push(first.to_owned());
    for rule in rules {
        let (name, arg) = rule.split_once(':').unwrap_or((rule.as_str(), ""));
        let phrase = match name.trim() {
            "required" | "nullable" | "sometimes" | "bail" => continue,
            "string" => "text".to_owned(),
            "integer" => "a whole number".to_owned(),
            "numeric" => "a number".to_owned(),
            "boolean" | "bool" => "true or false (1 or 0)".to_owned(),
            "array" => "a list".to_owned(),
            "alpha" => "letters only".to_owned(),
            "alpha_num" => "letters and digits only".to_owned(),
            "alpha_dash" => "letters, digits, dashes and underscores only".to_owned(),
            "url" => "a URL".to_owned(),
            "email" => "an email address".to_owned(),
            "ip" | "ipv4" | "ipv6" => "an IP address".to_owned(),
            "json" => "JSON".to_owned(),
            "uuid" => "a UUID".to_owned(),
            "min" => {
                min = Some(arg.to_owned());
                continue;
            }
            "max" => {
                max = Some(arg.to_owned());
                continue;
            }
            "between" => match arg.split_once(',') {
                Some((a, b)) => {
                    min = Some(a.to_owned());
                    max = Some(b.to_owned());
                    continue;
                }
                None => rule.clone(),
            },
            "size" => match kind {
                Kind::Number => format!("exactly {arg}"),
                Kind::Text => format!("exactly {}", amount(arg, "character", "characters")),
                Kind::List => format!("exactly {}", amount(arg, "item", "items")),
            },
            "in" => format!("one of: {}", arg.split(',').collect::<Vec<_>>().join(", ")),
            "not_in" => format!(
                "not one of: {}",
                arg.split(',').collect::<Vec<_>>().join(", ")
            ),
            "regex" => format!("matches {arg}"),
            "not_regex" => format!("does not match {arg}"),
            "digits" => format!("exactly {}", amount(arg, "digit", "digits")),
            "digits_between" => format!("{} digits", arg.replacen(',', " to ", 1)),
            _ => rule.clone(),
        };
        out.push(phrase);
    }
    // A number has no unit; text counts characters and a list items, in the number the
    // (last) figure asks for: "at most 1 character", "1 to 32 characters".
    let units = |n: &str| match kind {
        Kind::Number => n.to_owned(),
        Kind::Text => amount(n, "character", "characters"),
        Kind::List => amount(n, "item", "items"),
    };
    match (min, max) {
        (Some(a), Some(b)) => out.push(format!("{a} to {}", units(&b))),
        (Some(a), None) => out.push(format!("at least {}", units(&a))),
        (None, Some(b)) => out.push(format!("at most {}", units(&b))),
        (None, None) => {}
    }
    out
}

/// A rule's figure with its noun, through [`count`] when it is a whole number; anything else
/// (a rule written wrong) is shown as written, with the plural.
fn amount(arg: &str, one: &str, many: &str) -> String {
    match arg.trim().parse::<usize>() {
        Ok(n) => count(n, one, many),
        Err(_) => format!("{arg} {many}"),
    }
}

/// The rules of a variable as written: a string split on `|` (except inside a `regex:`, which
/// runs to the end, as the panels' own splitting would break it anyway), or a list.
pub(crate) fn split(rules: &serde_json::Value) -> Vec<String> {
    match rules {
        serde_json::Value::String(s) => {
            let mut out = Vec::new();
            let mut rest = s.as_str();
            while !rest.is_empty() {
                if rest.starts_with("regex:") || rest.starts_with("not_regex:") {
                    out.push(rest.to_owned());
                    break;
                }
                let (head, tail) = rest.split_once('|').unwrap_or((rest, ""));
                if !head.trim().is_empty() {
                    out.push(head.trim().to_owned());
                }
                rest = tail;
            }
            out
        }
        serde_json::Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Text,
    Number,
    List,
}

fn has(rules: &[String], names: &[&str]) -> bool {
    rules
        .iter()
        .any(|r| names.contains(&r.split(':').next().unwrap_or("").trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(rules: &str) -> String {
        describe(&split(&serde_json::Value::String(rules.into()))).join(", ")
    }

    #[test]
    fn plain_words() {
        assert_eq!(
            words("required|string|min:1|max:32"),
            "required, text, 1 to 32 characters"
        );
        assert_eq!(
            words("required|in:release,snapshot"),
            "required, one of: release, snapshot"
        );
        assert_eq!(
            words("nullable|regex:/^[a-z|]+$/"),
            "optional, matches /^[a-z|]+$/"
        );
        assert_eq!(
            words("required|integer|between:1,65535"),
            "required, a whole number, 1 to 65535"
        );
        assert_eq!(
            words("required|numeric|min:0"),
            "required, a number, at least 0"
        );
        assert_eq!(words("sometimes|weird_rule:3"), "optional, weird_rule:3");
        assert_eq!(words("array|max:1"), "optional, a list, at most 1 item");
        assert_eq!(words("array|size:3"), "optional, a list, exactly 3 items");
        assert_eq!(
            words("string|min:1"),
            "optional, text, at least 1 character"
        );
        assert_eq!(words("digits:x"), "optional, exactly x digits");
        assert_eq!(
            words("string|max:0"),
            "optional, text, at most 0 characters"
        );
    }
}
