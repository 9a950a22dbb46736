//! PHP's regular expressions as Laravel's `regex:` rule passes them to `preg_match`: a pattern
//! between delimiters (`/…/`, `#…#`, or a bracket pair such as `(…)`) followed by flags. The
//! pattern is PCRE; it is checked with regex-syntax (the parser of Rust's `regex` crate), which
//! reads most of PCRE's everyday syntax. PCRE features it does not have are recognised and
//! reported as "not checked", never as an error: the panel would accept them.

use regex_syntax::ParserBuilder;

/// A `regex:` argument split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhpRegex {
    /// The pattern between the delimiters, as written.
    pub pattern: String,
    /// The flags after the closing delimiter.
    pub flags: String,
}

/// Why a `regex:` argument cannot be used or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhpRegexError {
    /// No delimiter, or no closing one: `preg_match` fails at run time.
    #[error("{0}")]
    Delimiter(String),
    /// An unknown flag after the closing delimiter.
    #[error("unknown regex modifier `{0}`")]
    Flag(char),
    /// The pattern does not compile.
    #[error("the pattern does not compile: {0}")]
    Syntax(String),
    /// The pattern uses a PCRE feature regex-syntax cannot read; PCRE may well accept it.
    #[error("uses {0}, which eggcat cannot check")]
    Unchecked(&'static str),
}

/// Splits `/pattern/flags` the way PHP does: the first character is the delimiter (not
/// alphanumeric, not a backslash, not whitespace); for `(`, `[`, `{` and `<` the closing
/// delimiter is the matching bracket; the pattern ends at the last closing delimiter.
pub fn parse_php_regex(arg: &str) -> Result<PhpRegex, PhpRegexError> {
    let text = arg.trim_start();
    let mut chars = text.chars();
    let Some(open) = chars.next() else {
        return Err(PhpRegexError::Delimiter("the pattern is empty".into()));
    };
    if open.is_alphanumeric() || open == '\\' {
        return Err(PhpRegexError::Delimiter(format!(
            "the pattern must start with a delimiter such as `/`, not `{open}`"
        )));
    }
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    };
    let rest = chars.as_str();
    let Some(end) = rest.rfind(close) else {
        return Err(PhpRegexError::Delimiter(format!(
            "no ending delimiter `{close}`"
        )));
    };
    let pattern = &rest[..end];
    let flags = &rest[end + close.len_utf8()..];
    if let Some(bad) = flags.chars().find(|c| !"imsxuADSUXJn\n\r ".contains(*c)) {
        return Err(PhpRegexError::Flag(bad));
    }
    Ok(PhpRegex {
        pattern: pattern.to_owned(),
        flags: flags.trim().to_owned(),
    })
}

impl PhpRegex {
    /// The pattern in the syntax of Rust's `regex` crate, with the flags it can express
    /// turned into inline flags; an error when it does not compile or cannot be checked.
    pub fn to_rust(&self) -> Result<String, PhpRegexError> {
        if let Some(feature) = unchecked_feature(&self.pattern) {
            return Err(PhpRegexError::Unchecked(feature));
        }
        if let Some(flag) = self.flags.chars().find(|c| "AUXJ".contains(*c)) {
            return Err(PhpRegexError::Unchecked(match flag {
                'A' => "the anchored modifier `A`",
                'U' => "the ungreedy modifier `U`",
                _ => "a PCRE-only modifier",
            }));
        }
        let inline: String = self.flags.chars().filter(|c| "imsx".contains(*c)).collect();
        // PCRE's `$` also matches before a final newline unless `D` is set; Rust's matches
        // only at the end. A default value never ends in a newline, so the difference does
        // not change a verdict.
        let rust = if inline.is_empty() {
            self.pattern.clone()
        } else {
            format!("(?{inline}){}", self.pattern)
        };
        ParserBuilder::new()
            .build()
            .parse(&rust)
            .map_err(|e| PhpRegexError::Syntax(first_line_of(&e.to_string())))?;
        Ok(rust)
    }
}

/// regex-syntax's messages draw the pattern with a caret; keep the sentence that says what.
fn first_line_of(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_owned())
        .unwrap_or_else(|| message.lines().next().unwrap_or(message).to_owned())
}

/// The first PCRE-only construct in `pattern`, by name, skipping escaped characters and the
/// insides of character classes.
fn unchecked_feature(pattern: &str) -> Option<&'static str> {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                let next = bytes.get(i + 1).copied().unwrap_or(b' ');
                let found = match next {
                    b'1'..=b'9' if !in_class => Some("a backreference"),
                    b'k' | b'g' => Some("a backreference"),
                    b'Q' | b'E' => Some("a `\\Q…\\E` literal"),
                    b'G' | b'K' | b'R' | b'X' | b'C' | b'Z' => Some("a PCRE-only escape"),
                    b'h' | b'H' | b'v' | b'V' => Some("a PCRE-only escape"),
                    _ => None,
                };
                if found.is_some() {
                    return found;
                }
                i += 2;
                continue;
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class && bytes.get(i + 1) == Some(&b'?') => {
                let after = &pattern[i + 2..];
                if after.starts_with('=')
                    || after.starts_with('!')
                    || after.starts_with("<=")
                    || after.starts_with("<!")
                {
                    return Some("lookaround");
                }
                if after.starts_with('>') {
                    return Some("an atomic group");
                }
                if after.starts_with('(') {
                    return Some("a conditional");
                }
                if after.starts_with('R')
                    || after.starts_with('&')
                    || after.starts_with("P>")
                    || after.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-')
                {
                    return Some("recursion");
                }
                if after.starts_with('|') {
                    return Some("a branch-reset group");
                }
                if after.starts_with('#') {
                    return Some("a comment group");
                }
                if after.starts_with('\'') {
                    return Some("a quoted group name");
                }
            }
            b'+' | b'*' | b'?' | b'}' if !in_class && bytes.get(i + 1) == Some(&b'+') => {
                return Some("a possessive quantifier");
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rust(arg: &str) -> Result<String, PhpRegexError> {
        parse_php_regex(arg)?.to_rust()
    }

    #[test]
    fn delimiters_and_flags() {
        assert_eq!(
            parse_php_regex("/^a\\/b$/i").unwrap(),
            PhpRegex {
                pattern: "^a\\/b$".into(),
                flags: "i".into()
            }
        );
        assert_eq!(
            parse_php_regex("([a-z-0-9]+$)").unwrap().pattern,
            "[a-z-0-9]+$"
        );
        assert_eq!(parse_php_regex("#x#").unwrap().pattern, "x");
        assert!(matches!(
            parse_php_regex("^abc$"),
            Err(PhpRegexError::Delimiter(_))
        ));
        assert!(matches!(
            parse_php_regex("/^(true"),
            Err(PhpRegexError::Delimiter(_))
        ));
        assert_eq!(parse_php_regex("/a/q"), Err(PhpRegexError::Flag('q')));
        assert_eq!(rust("/a/i").unwrap(), "(?i)a");
    }

    #[test]
    fn pcre_only_features_are_not_checked() {
        for (arg, what) in [
            ("/^(?=a)/", "lookaround"),
            ("/(?<!a)b/", "lookaround"),
            ("/(a)\\1/", "a backreference"),
            ("/a++/", "a possessive quantifier"),
            ("/(?>a)/", "an atomic group"),
            ("/(?R)/", "recursion"),
            ("/\\Qa.b\\E/", "a `\\Q…\\E` literal"),
            ("/(?(1)a|b)/", "a conditional"),
        ] {
            assert_eq!(rust(arg), Err(PhpRegexError::Unchecked(what)), "{arg}");
        }
        // Inside a class these are plain characters.
        assert!(rust("/[+?=]+/").is_ok());
    }

    #[test]
    fn broken_patterns_are_errors() {
        assert!(matches!(rust("/a(b/"), Err(PhpRegexError::Syntax(_))));
        assert!(matches!(rust("/[z-a]/"), Err(PhpRegexError::Syntax(_))));
        assert!(rust("/^([\\w\\d._-]+)(\\.jar)$/").is_ok());
        assert!(rust("/^[\\w.-]*$/").is_ok());
    }
}
