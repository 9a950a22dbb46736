//! A variable's `default_value` judged by its own rules, the way Laravel judges a value a user
//! submits: the default is what a new server gets, so a default its rules refuse makes the
//! admin's first save fail. Only rules that need nothing but the value are judged; the others
//! (dates, files, other fields, the database) pass.
//!
//! Laravel's order of things, followed here: an empty value (after trimming) is checked only by
//! the implicit rules (`required`, `filled`, `accepted`...), every other rule is skipped; `min`,
//! `max`, `size` and `between` measure the number when the rules include `numeric`, `integer`
//! or `decimal` ([`measures_numbers`]) and the value is numeric, and the length in characters
//! otherwise.

use std::net::IpAddr;

use crate::php_regex::{PregMatch, parse_php_regex};
use crate::rules::{Rule, is_number, measures_numbers};

/// The rules of `rules` that refuse `value`: (index of the rule, why).
pub(crate) fn check_value(value: &str, rules: &[Rule]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    if value.trim().is_empty() {
        for (i, r) in rules.iter().enumerate() {
            if matches!(r.name, "required" | "filled") {
                out.push((i, format!("is empty but the variable is `{}`", r.name)));
            }
        }
        return out;
    }
    let numeric = measures_numbers(rules) && is_number(value);
    let size = if numeric {
        value.trim().parse::<f64>().unwrap_or(0.0)
    } else {
        value.chars().count() as f64
    };
    let unit = if numeric { "" } else { " characters" };
    for (i, r) in rules.iter().enumerate() {
        let num = |k: usize| r.args.get(k).and_then(|a| a.trim().parse::<f64>().ok());
        let fail = match r.name {
            "numeric" if !is_number(value) => Some("is not a number".to_owned()),
            "integer" if !is_php_int(value) => Some("is not an integer".to_owned()),
            "boolean" if !matches!(value, "0" | "1") => {
                Some("is not one of the values Laravel's `boolean` accepts (`0`, `1`)".to_owned())
            }
            "alpha" if !value.chars().all(char::is_alphabetic) => {
                Some("has characters other than letters".to_owned())
            }
            "alpha_num" if !value.chars().all(char::is_alphanumeric) => {
                Some("has characters other than letters and digits".to_owned())
            }
            "alpha_dash" if !eggcat_egg::panel::is_alpha_dash(value) => {
                Some("has characters other than letters, digits, `-` and `_`".to_owned())
            }
            "min" if num(0).is_some_and(|m| size < m) => Some(format!(
                "is {}{unit}, under the minimum {}",
                fmt(size),
                r.args[0]
            )),
            "max" if num(0).is_some_and(|m| size > m) => Some(format!(
                "is {}{unit}, over the maximum {}",
                fmt(size),
                r.args[0]
            )),
            "size" if num(0).is_some_and(|m| size != m) => {
                Some(format!("is {}{unit}, not {}", fmt(size), r.args[0]))
            }
            "between"
                if num(0)
                    .zip(num(1))
                    .is_some_and(|(a, b)| size < a || size > b) =>
            {
                Some(format!(
                    "is {}{unit}, not between {} and {}",
                    fmt(size),
                    r.args[0],
                    r.args[1]
                ))
            }
            "digits" => digits(value, num(0), num(0)),
            "digits_between" => digits(value, num(0), num(1)),
            "in" if !r.args.iter().any(|a| a == value) => {
                Some(format!("is not one of `in:{}`", r.args.join(",")))
            }
            "not_in" if r.args.iter().any(|a| a == value) => {
                Some(format!("is one of `not_in:{}`", r.args.join(",")))
            }
            // `preg_match(...) > 0` and `preg_match(...) < 1`: a match that fails (a limit
            // reached) returns `false`, which refuses the value for `regex` and passes it for
            // `not_regex`.
            "regex" => match preg_match(&r.args[0], value) {
                Some(PregMatch::NoMatch) => Some(format!("does not match `{}`", r.args[0])),
                Some(PregMatch::Failed(why)) => Some(format!(
                    "cannot be matched against `{}`: PHP gives up ({why})",
                    r.args[0]
                )),
                _ => None,
            },
            "not_regex" if preg_match(&r.args[0], value) == Some(PregMatch::Match) => {
                Some(format!("matches `{}`, which it must not", r.args[0]))
            }
            "ip" if value.parse::<IpAddr>().is_err() => Some("is not an IP address".to_owned()),
            "ipv4" if !value.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv4()) => {
                Some("is not an IPv4 address".to_owned())
            }
            "ipv6" if !value.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6()) => {
                Some("is not an IPv6 address".to_owned())
            }
            "json" if serde_json::from_str::<serde_json::Value>(value).is_err() => {
                Some("is not JSON".to_owned())
            }
            "url" if !looks_like_url(value) => Some("is not a URL".to_owned()),
            "email" if !eggcat_egg::panel::is_email(value) => {
                Some("is not an email address".to_owned())
            }
            "lowercase" if value.to_lowercase() != value => Some("is not lowercase".to_owned()),
            "uppercase" if value.to_uppercase() != value => Some("is not uppercase".to_owned()),
            "starts_with" if !r.args.iter().any(|a| value.starts_with(a.as_str())) => {
                Some(format!("does not start with {}", r.args.join(" or ")))
            }
            "ends_with" if !r.args.iter().any(|a| value.ends_with(a.as_str())) => {
                Some(format!("does not end with {}", r.args.join(" or ")))
            }
            _ => None,
        };
        if let Some(why) = fail {
            out.push((i, why));
        }
    }
    out
}

/// PHP's `filter_var(FILTER_VALIDATE_INT)`: surrounding whitespace, a sign, no leading zero.
fn is_php_int(value: &str) -> bool {
    let t = value.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && digits.len() <= 19
}

fn digits(value: &str, min: Option<f64>, max: Option<f64>) -> Option<String> {
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        return Some("is not made of digits only".to_owned());
    }
    let n = value.len() as f64;
    match (min, max) {
        (Some(a), Some(b)) if n < a || n > b => Some(format!("has {} digits", value.len())),
        _ => None,
    }
}

/// What `preg_match` returns for `value` and a `regex:` argument; `None` when the argument does
/// not compile (E032 reports it) or eggcat cannot judge it (E033).
fn preg_match(arg: &str, value: &str) -> Option<PregMatch> {
    let compiled = parse_php_regex(arg).ok()?.compile().ok()?;
    match compiled.preg_match(value) {
        PregMatch::Unjudged(_) => None,
        judged => Some(judged),
    }
}

/// A scheme, `://` and something after it: Laravel's `url` rule is stricter, but a value this
/// check refuses is refused by Laravel too.
fn looks_like_url(value: &str) -> bool {
    value.split_once("://").is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.is_empty()
    })
}

fn fmt(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::parse_rule;

    fn check(value: &str, rules: &str) -> Vec<String> {
        let rules: Vec<Rule> = rules
            .split('|')
            .filter_map(|r| parse_rule(r).ok().flatten())
            .collect();
        check_value(value, &rules)
            .into_iter()
            .map(|(_, m)| m)
            .collect()
    }

    #[test]
    fn empty_defaults_only_fail_required() {
        assert_eq!(
            check("", "required|string"),
            ["is empty but the variable is `required`"]
        );
        assert!(check(" ", "nullable|numeric|max:3").is_empty());
    }

    #[test]
    fn sizes_are_numbers_or_lengths() {
        assert_eq!(check("abc", "required|numeric"), ["is not a number"]);
        assert_eq!(
            check("100", "numeric|max:64"),
            ["is 100, over the maximum 64"]
        );
        assert!(check("100", "string|max:3").is_empty());
        assert_eq!(
            check("abcd", "string|max:3"),
            ["is 4 characters, over the maximum 3"]
        );
        assert_eq!(
            check("7", "integer|between:1,5"),
            ["is 7, not between 1 and 5"]
        );
    }

    #[test]
    fn lists_regexes_and_kinds() {
        assert_eq!(check("c", "in:a,b"), ["is not one of `in:a,b`"]);
        assert_eq!(
            check("server", "regex:/^([\\w\\d._-]+)(\\.jar)$/"),
            ["does not match `/^([\\w\\d._-]+)(\\.jar)$/`"]
        );
        assert!(check("server.jar", "regex:/^([\\w\\d._-]+)(\\.jar)$/").is_empty());
        // Lookaround, which the translation to Rust's regex left unchecked, is PCRE2's own.
        assert_eq!(check("x", "regex:/^(?=y)/"), ["does not match `/^(?=y)/`"]);
        // A pattern eggcat cannot judge never fails the value.
        assert!(check("x", "regex:/a(?=b\\K)/").is_empty());
        assert_eq!(check("true", "boolean").len(), 1);
        assert!(check("1", "boolean").is_empty());
        assert_eq!(check("012", "integer"), ["is not an integer"]);
        assert_eq!(check("12345", "digits:4"), ["has 5 digits"]);
    }
}
