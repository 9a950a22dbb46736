//! Laravel's `email` rule as both panels use it for an egg's `author`: egulias/email-validator's
//! `RFCValidation` (no DNS lookup), followed where eggs meet it. The differential test
//! (`crates/panels/tests/differential.rs`) runs Laravel's real validator on every case of the
//! tests below and on every author of the corpus, and compares.
//!
//! What egulias accepts that looks odd: a domain without a dot (`me@localhost`, `a@b`), a label
//! of digits (`a@123`), a hyphen at the start of a label after the first (`a@x.-y.com`), a local
//! part of any length, non-ASCII letters on both sides, a quoted local part (`"a b"@x.com`), a
//! comment around the local part (`(c)a@x.com`), a domain literal (`a@[127.0.0.1]`). What it
//! refuses: `_` in the domain, a domain or label starting or ending with `-` (`a@-x.com`,
//! `a@x-.com`), a label over 63 bytes, a domain over 253, empty labels, white space outside
//! quotes, and in an unquoted local part the specials `( ) < > [ ] : ; @ \ , "` and dots at the
//! ends or doubled.

/// Whether Laravel's `email` rule (RFC validation, as the panels configure it) accepts `s`.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = split_at_sign(s) else {
        return false;
    };
    local_part_ok(strip_comments(local)) && domain_ok(domain)
}

/// The local part and the domain: the `@` that is not inside a quoted local part.
fn split_at_sign(s: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '@' if !quoted => return Some((&s[..i], &s[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The local part without a comment at its start or end (`(c)a`, `a(c)`).
fn strip_comments(local: &str) -> &str {
    let mut l = local;
    if l.starts_with('(')
        && let Some(end) = l.find(')')
    {
        l = &l[end + 1..];
    }
    if l.ends_with(')')
        && let Some(start) = l.rfind('(')
    {
        l = &l[..start];
    }
    l
}

fn local_part_ok(local: &str) -> bool {
    if let Some(inner) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        return quoted_ok(inner);
    }
    let atext =
        |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii();
    !local.is_empty()
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.chars().all(atext))
}

/// The inside of a quoted local part: anything printable but a bare `"` or `\`.
fn quoted_ok(inner: &str) -> bool {
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return false,
            c if c.is_control() => return false,
            _ => {}
        }
    }
    !escaped
}

fn domain_ok(domain: &str) -> bool {
    // A domain literal: egulias reads up to the first `]` and refuses only `\` or `[` in it
    // (`a@[foo]`, `a@[300.0.0.1]`, even `a@[x]y` pass).
    if let Some(rest) = domain.strip_prefix('[') {
        return rest
            .find(']')
            .is_some_and(|end| !rest[..end].contains(['\\', '[']));
    }
    // A comment inside the domain is skipped; one at its end refuses it.
    if domain.ends_with(')') {
        return false;
    }
    let mut plain = String::with_capacity(domain.len());
    let mut depth = 0usize;
    for c in domain.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let domain = plain.as_str();
    let label_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || !c.is_ascii();
    !domain.is_empty()
        && domain.len() <= 253
        && !domain.starts_with('-')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.ends_with('-')
                && label.chars().all(|c| label_char(c) && !c.is_whitespace())
        })
}

/// Addresses and Laravel's verdict on each, as Debian's Laravel 8.83 with egulias 3.2 gives it
/// (the differential test asks the real validator again).
pub const CASES: &[(&str, bool)] = &[
    ("parker@pterodactyl.io", true),
    ("a.b+c@example.org", true),
    ("me@localhost", true),
    ("a@b", true),
    ("a@b_c.com", false),
    ("a@-x.com", false),
    ("a@x-.com", false),
    ("a@x.-y.com", true),
    ("a@x.y-.com", false),
    ("a@x..com", false),
    ("a@.x.com", false),
    ("a@x.com.", false),
    (".a@x.com", false),
    ("a.@x.com", false),
    ("a..b@x.com", false),
    ("a b@x.com", false),
    ("\"a b\"@x.com", true),
    ("\"a\\\"b\"@x.com", true),
    ("a@[127.0.0.1]", true),
    ("a@[IPv6:::1]", true),
    ("a@[300.0.0.1]", true),
    ("a@[foo]", true),
    ("a@[IPv6:zz]", true),
    ("a@[x]y", true),
    ("a@[\\x]", false),
    ("a@[[x]]", false),
    ("a@x(c).com", true),
    ("a@(c)x.com", true),
    ("a@x.com(c)", false),
    ("(c)a@x.com", true),
    ("a(c)@x.com", true),
    ("müller@x.de", true),
    ("a@müller.de", true),
    ("a@123", true),
    ("a_b@x.com", true),
    ("a!#$%&'*+/=?^_`{|}~@x.com", true),
    ("a@x_y", false),
    ("a@x/y", false),
    ("a\\b@x.com", false),
    ("a@@x.com", false),
    ("@x.com", false),
    ("a@", false),
    ("Pterodactyl", false),
    ("a@x.com ", false),
    ("  a@x.com", false),
    ("a@x.com\n", false),
    ("a@x,y.com", false),
    ("a,b@x.com", false),
    ("a:b@x.com", false),
    ("a<b@x.com", false),
    ("-a@x.com", true),
    ("a@x.ком", true),
    ("a@_x.com", false),
    ("a@x._y.com", false),
    ("a@-", false),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_as_laravel_answers_it() {
        for (address, laravel) in CASES {
            assert_eq!(is_email(address), *laravel, "{address}");
        }
        let label = "x".repeat(63);
        assert!(is_email(&format!("a@{label}.com")));
        assert!(!is_email(&format!("a@{label}x.com")));
        assert!(is_email(&format!("{}@x.com", "a".repeat(65))));
    }
}
