//! How values are shown inside a change's one-line text (`Change::text`): texts in backticks,
//! rules and lists joined by `|`, data as compact JSON, cut to [`SHORT`] characters.
//!
//! A changed value is shown as a pair ([`pair`]), so that its two sides always read differently:
//! a long value is cut around the first character where the two differ, with [`CONTEXT`]
//! characters before it and the lengths of both, instead of from its start (a long startup
//! command changed near its end read "changed from `java -Xms128M…` to `java -Xms128M…`");
//! a text that reads as a number is quoted only when the other side is not a text, so that
//! `"true"` and `true` differ but `1.6` and `1.6.2` are not shown as two types; and should the
//! two still read the same (they differ in a character the line shows alike, a line break and a
//! `⏎`), both are written as JSON strings, escapes and all.

use serde_json::Value;

/// Characters of a value shown inside a one-line text; longer values are cut with `…`.
pub const SHORT: usize = 60;

/// Characters kept before the first difference when a long value is cut around it.
const CONTEXT: usize = 20;

/// A value alone (an addition, a removal), as the line shows it.
pub(crate) fn one(v: &Option<Value>) -> String {
    match words(v) {
        Some(w) => w.to_owned(),
        None => code(&cut(&flat(v, true), SHORT)),
    }
}

/// Both sides of a changed value, as the line shows them: never the same text when the values
/// differ.
pub(crate) fn pair(old: &Option<Value>, new: &Option<Value>) -> (String, String) {
    if let (Some(a), Some(b)) = (words(old), words(new)) {
        return (a.to_owned(), b.to_owned());
    }
    // A text is quoted when it reads as another type and the other side is not a text.
    let typed = |other: &Option<Value>| !matches!(other, Some(Value::String(_)));
    let (a, b) = around(old, new, &flat(old, typed(new)), &flat(new, typed(old)));
    if a != b {
        return (a, b);
    }
    // The difference is in what the line shows alike (a line break is `⏎`): both sides as JSON
    // strings, where every character has its own spelling.
    let json = |v: &Option<Value>| match v {
        Some(Value::String(s)) => serde_json::to_string(s).unwrap_or_else(|_| s.clone()),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    around(old, new, &json(old), &json(new))
}

/// `a` and `b` (the two sides written out) as the line shows them: whole when both are short,
/// else cut around their first difference and followed by their lengths. Absent or empty
/// values are words.
fn around(old: &Option<Value>, new: &Option<Value>, a: &str, b: &str) -> (String, String) {
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let long = ca.len() > SHORT || cb.len() > SHORT;
    let first = ca.iter().zip(&cb).take_while(|(x, y)| x == y).count();
    // From the start when the difference shows there anyway, else from a little before it, at
    // the start of a word when one begins up to 10 characters earlier.
    let start = if !long || first + CONTEXT < SHORT {
        0
    } else {
        let at = first - CONTEXT;
        let chars = if ca.len() >= cb.len() { &ca } else { &cb };
        (at.saturating_sub(10)..at)
            .rev()
            .find(|&i| chars.get(i) == Some(&' '))
            .map_or(at, |i| i + 1)
    };
    let side = |v: &Option<Value>, chars: &[char]| match words(v) {
        Some(w) => w.to_owned(),
        None if long => format!("{} ({} characters)", window(chars, start), chars.len()),
        None => window(chars, start),
    };
    (side(old, &ca), side(new, &cb))
}

/// The words that stand for a value with nothing to put in backticks.
fn words(v: &Option<Value>) -> Option<&'static str> {
    match v {
        None => Some("nothing"),
        Some(Value::String(s)) if s.is_empty() => Some("an empty text"),
        Some(Value::Array(items)) if items.is_empty() => Some("an empty list"),
        _ => None,
    }
}

/// The value as one line of text: line breaks as `⏎`; a list of texts joined by `|`, unless
/// that would leave nothing to see (`[""]`), then as JSON; a text that reads as a number,
/// boolean or null quoted when `typed`.
fn flat(v: &Option<Value>, typed: bool) -> String {
    let s = match v {
        None => String::new(),
        Some(Value::String(s))
            if typed && serde_json::from_str::<Value>(s).is_ok_and(|v| !v.is_string()) =>
        {
            format!("\"{s}\"")
        }
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items))
            if items.iter().all(Value::is_string)
                && items
                    .iter()
                    .any(|i| i.as_str().is_some_and(|s| !s.is_empty())) =>
        {
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|")
        }
        Some(other) => other.to_string(),
    };
    s.replace('\n', "⏎")
}

/// [`SHORT`] characters of `chars` from `start`, in backticks, with `…` where cut.
fn window(chars: &[char], start: usize) -> String {
    let start = start.min(chars.len());
    let end = (start + SHORT).min(chars.len());
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.extend(&chars[start..end]);
    if end < chars.len() {
        s.push('…');
    }
    code(&s)
}

/// `s` cut after `max` characters, with `…`.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// In backticks, or as words when there is nothing inside.
fn code(s: &str) -> String {
    format!("`{s}`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(a: Value, b: Value) -> (String, String) {
        pair(&Some(a), &Some(b))
    }

    #[test]
    fn short_values_are_shown_whole() {
        assert_eq!(
            p(json!("stop"), json!("^C")),
            ("`stop`".into(), "`^C`".into())
        );
        assert_eq!(
            p(json!("1.6"), json!("1.6.2")),
            ("`1.6`".into(), "`1.6.2`".into())
        );
        assert_eq!(
            p(json!("true"), json!(true)),
            ("`\"true\"`".into(), "`true`".into())
        );
        assert_eq!(
            pair(&Some(json!([])), &None),
            ("an empty list".into(), "nothing".into())
        );
        assert_eq!(one(&Some(json!([""]))), "`[\"\"]`");
    }

    #[test]
    fn long_values_are_cut_around_the_first_difference_with_their_lengths() {
        let head = "java -Xms128M -XX:+UseG1GC ".repeat(4);
        let old = format!("{head}-jar server.jar nogui");
        let new = format!("{head}-jar paper.jar nogui");
        let (a, b) = p(json!(old), json!(new));
        assert_ne!(a, b);
        assert!(a.starts_with("`…") && a.contains("server.jar"), "{a}");
        assert!(b.contains("paper.jar"), "{b}");
        assert!(
            a.ends_with(&format!("({} characters)", old.chars().count())),
            "{a}"
        );
    }

    #[test]
    fn sides_differing_only_in_what_the_line_shows_alike_are_written_as_json() {
        let (a, b) = p(json!("a\nb"), json!("a⏎b"));
        assert_ne!(a, b);
        assert_eq!(a, "`\"a\\nb\"`");
    }
}
