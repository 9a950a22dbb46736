//! A variable's Laravel validation rules (`required|string|max:32`) in plain words.
//!
//! The panels validate a variable's value with these rules; an admin choosing an egg wants to
//! know what they will have to type. The rules are read by `eggcat-validate`'s grammar, the one
//! the checks use: a rules string is split where Laravel splits it (every `|`), a name is read
//! as Laravel reads it (`int` is `integer`, `alphaDash` is `alpha_dash`), and sizes are numbers
//! when a rule makes Laravel measure numbers (`integer`, `numeric`, `decimal`). Rules this
//! module has no words for, and rules Laravel does not know, are shown as written.

use eggcat_validate::{Rule, measures_numbers, read_rule, split_rules};

use crate::words::count;

/// `rules` (a `|`-separated string, or a list in PLCN_v3) as phrases, in the order written,
/// except that required/optional comes first.
pub(crate) fn describe(written: &[String]) -> Vec<String> {
    // Each rule as written, with Laravel's reading of it when Laravel knows its name.
    let read: Vec<(&str, Option<Rule>)> = written
        .iter()
        .filter_map(|text| match read_rule(text) {
            Ok(Some(rule)) => Some((text.trim(), Some(rule))),
            Ok(None) => None,
            Err(_) => Some((text.trim(), None)),
        })
        .collect();
    let rules: Vec<Rule> = read.iter().filter_map(|(_, r)| r.clone()).collect();
    let has = |name: &str| rules.iter().any(|r| r.name == name);
    let kind = if measures_numbers(&rules) {
        Kind::Number
    } else if has("array") {
        Kind::List
    } else {
        Kind::Text
    };
    let (mut min, mut max) = (None, None);
    let mut out = Vec::new();
    // Without `required` a value may be left empty, whether or not `nullable` says so.
    let first = match (has("required"), has("nullable")) {
        (true, true) => "required (may be empty)",
        (true, false) => "required",
        (false, _) => "optional",
    };
    out.push(first.to_owned());
    for (text, rule) in &read {
        let Some(rule) = rule else {
            out.push((*text).to_owned());
            continue;
        };
        let arg = |i: usize| rule.args.get(i).map_or("", String::as_str);
        let two = rule.args.len() == 2;
        let phrase = match rule.name {
            "required" | "nullable" | "sometimes" | "bail" => continue,
            "string" => "text".to_owned(),
            "integer" => "a whole number".to_owned(),
            "numeric" => "a number".to_owned(),
            "boolean" => "true or false (1 or 0)".to_owned(),
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
                min = Some(arg(0).to_owned());
                continue;
            }
            "max" => {
                max = Some(arg(0).to_owned());
                continue;
            }
            "between" if two => {
                min = Some(arg(0).to_owned());
                max = Some(arg(1).to_owned());
                continue;
            }
            "size" => match kind {
                Kind::Number => format!("exactly {}", arg(0)),
                Kind::Text => format!("exactly {}", amount(arg(0), "character", "characters")),
                Kind::List => format!("exactly {}", amount(arg(0), "item", "items")),
            },
            "in" => format!("one of: {}", rule.args.join(", ")),
            "not_in" => format!("not one of: {}", rule.args.join(", ")),
            "regex" => format!("matches {}", arg(0)),
            "not_regex" => format!("does not match {}", arg(0)),
            "digits" => format!("exactly {}", amount(arg(0), "digit", "digits")),
            "digits_between" if two => format!("{} to {} digits", arg(0), arg(1)),
            _ => (*text).to_owned(),
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

/// The rules of a variable as written: a string split on every `|`, as both panels split it
/// (a `|` inside a `regex:` pattern splits it too: the panel then refuses the pieces, which
/// `eggcat validate` reports), or a list's strings, one rule each.
pub(crate) fn split(rules: &serde_json::Value) -> Vec<String> {
    match rules {
        serde_json::Value::String(s) => split_rules(s).into_iter().map(str::to_owned).collect(),
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
        assert_eq!(words("digits_between:4,6"), "optional, 4 to 6 digits");
    }

    // Regression: `int` was not read as `integer`, so `int|max:5` read "int, at most 5
    // characters" on the egg page; Laravel reads `int` as `integer` and measures the number.
    #[test]
    fn int_is_an_integer_and_max_measures_its_number() {
        assert_eq!(
            words("required|int|max:5"),
            "required, a whole number, at most 5"
        );
        assert_eq!(words("bool"), "optional, true or false (1 or 0)");
        assert_eq!(
            words("decimal:0,2|max:5"),
            "optional, decimal:0,2, at most 5"
        );
        assert_eq!(
            words("nullable|alphaDash|Max:8"),
            "optional, letters, digits, dashes and underscores only, at most 8 characters"
        );
    }

    // Regression: a `regex:` ran to the end of the rules string, so `regex:/^[\w.-]*$/|max:64`
    // (three eggs of the corpus) read as one pattern with `|max:64` in it; Laravel splits the
    // string on every `|`.
    #[test]
    fn the_rules_after_a_regex_are_rules() {
        assert_eq!(
            words("required|regex:/^[\\w.-]*$/|max:64"),
            "required, matches /^[\\w.-]*$/, at most 64 characters"
        );
        // A `|` inside the pattern splits it too, as in the panel (which then refuses both
        // pieces); in a list the pattern is whole.
        assert_eq!(
            words("nullable|regex:/^[a-z|]+$/"),
            "optional, matches /^[a-z, ]+$/"
        );
        let list = serde_json::json!(["nullable", "regex:/^[a-z|]+$/"]);
        assert_eq!(
            describe(&split(&list)).join(", "),
            "optional, matches /^[a-z|]+$/"
        );
    }
}
