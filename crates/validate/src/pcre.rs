//! Where PCRE (PHP's engine, PCRE2 since PHP 7.3) and regex-syntax (the parser of Rust's
//! `regex` crate) read a pattern differently. A `regex:` pattern is either turned into one that
//! regex-syntax reads with PCRE's meaning, refused for a reason PCRE refuses it for too, or
//! reported as "not checked": a PCRE feature eggcat cannot read is never called an error.
//!
//! Two steps. [`translate`] walks the pattern once, names the PCRE-only constructs regex-syntax
//! would refuse or misread, and rewrites the few it can (a literal `[`, `&` or `~` in a class,
//! `\<` and `\>`, which are plain characters in PCRE). [`classify`] sorts what regex-syntax then
//! still refuses into errors PCRE raises too (unbalanced parentheses or brackets, nothing to
//! repeat, a class range out of order) and features regex-syntax lacks.

use regex_syntax::ast::ErrorKind as Ast;

/// What to make of a pattern regex-syntax cannot take as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// PCRE refuses it too, so `preg_match` fails: why.
    Broken(String),
    /// A PCRE feature regex-syntax lacks, by name: PCRE may well accept the pattern.
    Unchecked(String),
}

/// Letters PCRE2 accepts after a backslash; any other letter is its error "unrecognized
/// character follows \" (`\u`, `\U`, `\l`, `\L` and `\F` are refused too, by their own error).
const PCRE_LETTER_ESCAPES: &str = "aAbBcCdDeEfgGhHkKnNopPQrRsStvVwWxXzZ";

/// `pattern` rewritten for regex-syntax, or the first PCRE-only construct in it.
pub(crate) fn translate(pattern: &str) -> Result<String, Verdict> {
    let unchecked = |what: &str| Err(Verdict::Unchecked(what.to_owned()));
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\\' => {
                let Some(e) = next else {
                    // A lone `\` at the end: regex-syntax reports it, as PCRE does.
                    out.push('\\');
                    break;
                };
                match e {
                    '1'..='9' if !in_class => return unchecked("a backreference (`\\1`)"),
                    'k' | 'g' => {
                        return unchecked("a backreference or subroutine call (`\\k<n>`, `\\g1`)");
                    }
                    'Q' | 'E' => return unchecked("a `\\Q…\\E` literal"),
                    'G' | 'K' | 'R' | 'X' | 'C' | 'Z' | 'h' | 'H' | 'v' | 'V' => {
                        return Err(Verdict::Unchecked(format!("the PCRE-only escape `\\{e}`")));
                    }
                    'u' | 'U' | 'l' | 'L' | 'F' => {
                        return Err(Verdict::Broken(format!(
                            "PCRE does not support the escape `\\{e}`"
                        )));
                    }
                    // Plain `<` and `>` in PCRE; word boundaries in regex-syntax.
                    '<' | '>' => out.push(e),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
                i += 2;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` first in a class is a literal in PCRE.
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            '[' => match posix_class(&chars[i..]) {
                Some(len) => {
                    out.extend(&chars[i..i + len]);
                    i += len;
                    continue;
                }
                // A literal in PCRE; a nested class in regex-syntax.
                None => out.push_str("\\["),
            },
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            // Literals in PCRE; `&&`, `~~` and `--` are set operations in regex-syntax.
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '-' if in_class && i > 0 && chars[i - 1] == '-' => out.push_str("\\-"),
            '(' if !in_class && next == Some('?') => {
                let after: String = chars[i + 2..].iter().take(2).collect();
                if let Some(what) = group_feature(&after) {
                    return unchecked(what);
                }
                out.push('(');
            }
            '(' if !in_class
                && next == Some('*')
                && chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_ascii_uppercase() || *c == ':') =>
            {
                return unchecked("a PCRE verb such as `(*UTF8)` or `(*SKIP)`");
            }
            '+' | '*' | '?' | '}' if !in_class && next == Some('+') => {
                return unchecked("a possessive quantifier");
            }
            c => out.push(c),
        }
        i += 1;
    }
    Ok(out)
}

/// The PCRE-only group that `(?` followed by `after` opens, by name.
fn group_feature(after: &str) -> Option<&'static str> {
    let starts = |p: &str| after.starts_with(p);
    if starts("=") || starts("!") || starts("<=") || starts("<!") {
        Some("lookaround")
    } else if starts(">") {
        Some("an atomic group")
    } else if starts("(") {
        Some("a conditional")
    } else if starts("R") || starts("&") || starts("P>") {
        Some("recursion")
    } else if starts("P=") {
        Some("a named backreference (`(?P=n)`)")
    } else if after.starts_with(|c: char| c.is_ascii_digit())
        || ((starts("+") || starts("-")) && after[1..].starts_with(|c: char| c.is_ascii_digit()))
    {
        Some("recursion")
    } else if starts("|") {
        Some("a branch-reset group")
    } else if starts("#") {
        Some("a comment group")
    } else if starts("'") {
        Some("a quoted group name")
    } else if starts("C") {
        Some("a callout")
    } else {
        None
    }
}

/// The length of a POSIX class such as `[:alpha:]` or `[:^digit:]` at the start of `chars`.
fn posix_class(chars: &[char]) -> Option<usize> {
    if chars.get(1) != Some(&':') {
        return None;
    }
    let start = if chars.get(2) == Some(&'^') { 3 } else { 2 };
    let name = chars[start..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let end = start + name;
    (name > 0 && chars.get(end) == Some(&':') && chars.get(end + 1) == Some(&']'))
        .then_some(end + 2)
}

/// Sorts an error regex-syntax raises on `pattern` (the text it parsed).
pub(crate) fn classify(error: &regex_syntax::Error, pattern: &str) -> Verdict {
    let unchecked = |what: &str| Verdict::Unchecked(what.to_owned());
    let e = match error {
        regex_syntax::Error::Parse(e) => e,
        regex_syntax::Error::Translate(e) => {
            return match e.kind() {
                regex_syntax::hir::ErrorKind::UnicodePropertyNotFound
                | regex_syntax::hir::ErrorKind::UnicodePropertyValueNotFound => {
                    unchecked("a Unicode property Rust does not know (`\\p{Xan}`)")
                }
                _ => unchecked("a construct regex-syntax cannot translate"),
            };
        }
        _ => return unchecked("a construct regex-syntax refuses"),
    };
    let at = pattern.get(e.span().start.offset..).unwrap_or("");
    let first = at.chars().next().unwrap_or(' ');
    let escaped = at.strip_prefix('\\').and_then(|s| s.chars().next());
    let broken = || Verdict::Broken(e.kind().to_string());
    match e.kind() {
        Ast::GroupUnclosed
        | Ast::GroupUnopened
        | Ast::ClassUnclosed
        | Ast::ClassRangeInvalid
        | Ast::ClassRangeLiteral
        | Ast::RepetitionCountInvalid
        | Ast::GroupNameDuplicate { .. }
        | Ast::GroupNameEmpty
        | Ast::GroupNameInvalid
        | Ast::GroupNameUnexpectedEof
        | Ast::FlagUnexpectedEof
        | Ast::CaptureLimitExceeded => broken(),
        // `*`, `+` or `?` after nothing; a `{` may be literal text in PCRE.
        Ast::RepetitionMissing if first != '{' => {
            Verdict::Broken(format!("nothing before `{first}` to repeat"))
        }
        Ast::EscapeUnexpectedEof if at == "\\" => {
            Verdict::Broken("the pattern ends with a lone `\\`".to_owned())
        }
        Ast::EscapeUnrecognized => match escaped {
            Some(c) if c.is_ascii_alphabetic() && !PCRE_LETTER_ESCAPES.contains(c) => {
                Verdict::Broken(format!("PCRE does not recognise the escape `\\{c}`"))
            }
            Some(c) => Verdict::Unchecked(format!("the escape `\\{c}`")),
            None => unchecked("an escape sequence"),
        },
        Ast::UnsupportedBackreference => match escaped {
            Some('0') => unchecked("an octal escape (`\\0`)"),
            Some(c) => Verdict::Unchecked(format!("a backreference or octal escape (`\\{c}`)")),
            None => unchecked("a backreference"),
        },
        Ast::UnsupportedLookAround => unchecked("lookaround"),
        Ast::EscapeHexEmpty | Ast::EscapeHexInvalid | Ast::EscapeHexInvalidDigit => {
            unchecked("a `\\x` escape without two hex digits")
        }
        Ast::EscapeUnexpectedEof => unchecked("an escape cut short by the end of the pattern"),
        Ast::RepetitionMissing
        | Ast::RepetitionCountUnclosed
        | Ast::RepetitionCountDecimalEmpty
        | Ast::DecimalEmpty
        | Ast::DecimalInvalid
        | Ast::SpecialWordOrRepetitionUnexpectedEof
        | Ast::SpecialWordBoundaryUnclosed
        | Ast::SpecialWordBoundaryUnrecognized => unchecked(
            "a `{` that is not a repetition count regex-syntax reads (`a{`, `{x}`, `a{,3}`)",
        ),
        Ast::FlagUnrecognized
        | Ast::FlagDuplicate { .. }
        | Ast::FlagRepeatedNegation { .. }
        | Ast::FlagDanglingNegation => Verdict::Unchecked(format!("the inline flag `{first}`")),
        Ast::ClassEscapeInvalid => {
            let escape: String = at.chars().take(2).collect();
            Verdict::Unchecked(format!("the escape `{escape}` in a character class"))
        }
        Ast::UnicodeClassInvalid => unchecked("a Unicode property (`\\p…`)"),
        Ast::NestLimitExceeded(_) => unchecked("groups nested deeper than regex-syntax allows"),
        _ => unchecked("a construct regex-syntax refuses"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(pattern: &str) -> Result<String, Verdict> {
        let rust = translate(pattern)?;
        regex_syntax::ParserBuilder::new()
            .build()
            .parse(&rust)
            .map_err(|e| classify(&e, &rust))?;
        Ok(rust)
    }

    #[test]
    fn pcre_literals_are_translated() {
        assert_eq!(verdict("[[]").unwrap(), "[\\[]");
        assert_eq!(verdict("[]a]").unwrap(), "[\\]a]");
        assert_eq!(verdict("[^]a]").unwrap(), "[^\\]a]");
        assert_eq!(verdict("[a&&b]").unwrap(), "[a\\&\\&b]");
        assert_eq!(verdict("[%--]").unwrap(), "[%-\\-]");
        assert_eq!(verdict("[[:alpha:]_]").unwrap(), "[[:alpha:]_]");
        assert_eq!(verdict("\\<a\\>").unwrap(), "<a>");
    }

    #[test]
    fn features_regex_syntax_lacks_are_not_checked() {
        for pattern in [
            "\\0",
            "[\\0-\\x1f]",
            "\\e",
            "\\cA",
            "\\o{12}",
            "\\N",
            "\\xZ",
            "a{",
            "{x}",
            "{3}",
            "a{,3}",
            "a{x}",
            "\\b{x}",
            "(*UTF8)a",
            "(*SKIP)(*F)",
            "(?P<n>a)(?P=n)",
            "(?J)a",
            "(?n)a",
            "(?ii)a",
            "(?Ca)",
            "\\p{Xan}",
            "\\8",
            "\\12",
            "\\ga",
            "\\x",
            "[\\b]",
            "(*:m)a",
            "(?^)a",
            "(a)(?-1)",
            "a++",
        ] {
            assert!(
                matches!(verdict(pattern), Err(Verdict::Unchecked(_))),
                "{pattern}: {:?}",
                verdict(pattern)
            );
        }
    }

    #[test]
    fn errors_pcre_raises_too_are_broken() {
        for pattern in [
            "a(b",
            "a)b",
            "[abc",
            "[z-a]",
            "[\\d-z]",
            "*a",
            "a|+",
            "a{3,1}",
            "a\\",
            "(?i",
            "(?P<1>a)",
            "(?<n>a)(?<n>b)",
            "\\i",
            "\\u0041",
            "\\q",
        ] {
            assert!(
                matches!(verdict(pattern), Err(Verdict::Broken(_))),
                "{pattern}: {:?}",
                verdict(pattern)
            );
        }
    }
}
