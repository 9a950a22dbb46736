//! PHP's regular expressions as Laravel's `regex:` rule passes them to `preg_match`: a pattern
//! between delimiters (`/…/`, `#…#`, or a bracket pair such as `(…)`) followed by modifiers,
//! split the way `pcre_get_compiled_regex_cache` in PHP's `ext/pcre/php_pcre.c` splits it. The
//! pattern is PCRE; it is checked with regex-syntax (the parser of Rust's `regex` crate) after
//! `pcre.rs` has translated what it can. PCRE features regex-syntax cannot read are reported
//! as "not checked", never as an error: the panel would accept them.

use regex_syntax::ParserBuilder;

use crate::pcre::{self, Verdict};

/// A `regex:` argument split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhpRegex {
    /// The pattern between the delimiters, as written.
    pub pattern: String,
    /// The modifiers after the closing delimiter.
    pub flags: String,
}

/// Why a `regex:` argument cannot be used or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhpRegexError {
    /// No delimiter, or no closing one: `preg_match` fails at run time.
    #[error("{0}")]
    Delimiter(String),
    /// An unknown modifier after the closing delimiter.
    #[error("unknown regex modifier `{0}`")]
    Flag(char),
    /// An unknown modifier that comes from the delimiter appearing, unescaped, inside the
    /// pattern: PHP ends the pattern there (`/https?://x/` reads as `https?:` and modifiers
    /// `/x/`).
    #[error(
        "unknown regex modifier `{modifier}`: PHP ends the pattern at the first unescaped `{delimiter}`"
    )]
    DelimiterInPattern {
        /// The closing delimiter.
        delimiter: char,
        /// The first character PHP refuses as a modifier.
        modifier: char,
    },
    /// The pattern does not compile, in PCRE as in regex-syntax.
    #[error("the pattern does not compile: {0}")]
    Syntax(String),
    /// The pattern uses a PCRE feature regex-syntax cannot read; PCRE may well accept it.
    #[error("uses {0}, which eggcat cannot check")]
    Unchecked(String),
}

impl From<Verdict> for PhpRegexError {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Broken(why) => PhpRegexError::Syntax(why),
            Verdict::Unchecked(what) => PhpRegexError::Unchecked(what),
        }
    }
}

/// Modifiers PHP accepts after the closing delimiter (`n` since PHP 8.2); it skips spaces and
/// line breaks there.
const MODIFIERS: &str = "imsxnADSUXJu \n\r";

/// Splits `/pattern/flags` the way PHP does: leading whitespace is skipped; the first character
/// is the delimiter (not alphanumeric, not a backslash, not NUL); for `(`, `[`, `{` and `<` the
/// closing delimiter is the matching bracket, counting nested pairs; otherwise it is the first
/// unescaped occurrence of the delimiter. Everything after it must be modifiers.
pub fn parse_php_regex(arg: &str) -> Result<PhpRegex, PhpRegexError> {
    // C's isspace: space, \t, \n, \v, \f, \r.
    let text = arg.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let Some(open) = text.chars().next() else {
        return Err(PhpRegexError::Delimiter("the pattern is empty".into()));
    };
    if open.is_ascii_alphanumeric() || open == '\\' || open == '\0' {
        return Err(PhpRegexError::Delimiter(format!(
            "the pattern must start with a delimiter such as `/`, not `{open}`"
        )));
    }
    // PHP reads the delimiter as one byte: the closing one is the lead byte of a character
    // whose next byte then fails as a modifier.
    if !open.is_ascii() {
        return Err(PhpRegexError::Delimiter(format!(
            "the delimiter `{open}` is not an ASCII character, which PHP cannot use"
        )));
    }
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    };
    let rest = &text[1..];
    let Some(end) = closing_delimiter(rest, open, close) else {
        return Err(PhpRegexError::Delimiter(format!(
            "no ending delimiter `{close}`"
        )));
    };
    let pattern = &rest[..end];
    let flags = &rest[end + 1..];
    if let Some(bad) = flags.chars().find(|c| !MODIFIERS.contains(*c)) {
        return Err(if flags.contains(close) {
            PhpRegexError::DelimiterInPattern {
                delimiter: close,
                modifier: bad,
            }
        } else {
            PhpRegexError::Flag(bad)
        });
    }
    Ok(PhpRegex {
        pattern: pattern.to_owned(),
        flags: flags.trim().to_owned(),
    })
}

/// The byte offset in `rest` of the delimiter that closes the pattern: a backslash skips the
/// next character; with a bracket pair, each `open` must be matched by a `close` first.
fn closing_delimiter(rest: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 1usize;
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == close {
            depth -= 1;
            if open == close || depth == 0 {
                return Some(i);
            }
        } else if c == open {
            depth += 1;
        }
    }
    None
}

impl PhpRegex {
    /// The pattern in the syntax of Rust's `regex` crate, with the flags it can express
    /// turned into inline flags; an error when it does not compile or cannot be checked.
    pub fn to_rust(&self) -> Result<String, PhpRegexError> {
        let pattern = pcre::translate(&self.pattern)?;
        // `S` and `X` do nothing in PCRE2 and `n` only stops groups capturing, which changes
        // no verdict; `A`, `U` and `J` change what matches or what compiles.
        if let Some(flag) = self.flags.chars().find(|c| "AUJ".contains(*c)) {
            return Err(PhpRegexError::Unchecked(
                match flag {
                    'A' => "the anchored modifier `A`",
                    'U' => "the ungreedy modifier `U`",
                    _ => "the duplicate-names modifier `J`",
                }
                .to_owned(),
            ));
        }
        let inline: String = self.flags.chars().filter(|c| "imsx".contains(*c)).collect();
        // PCRE's `$` also matches before a final newline unless `D` is set; Rust's matches
        // only at the end. A default value never ends in a newline, so the difference does
        // not change a verdict.
        let rust = if inline.is_empty() {
            pattern
        } else {
            format!("(?{inline}){pattern}")
        };
        ParserBuilder::new()
            .build()
            .parse(&rust)
            .map_err(|e| PhpRegexError::from(pcre::classify(&e, &rust)))?;
        Ok(rust)
    }
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
            ("/(a)\\1/", "a backreference (`\\1`)"),
            ("/a++/", "a possessive quantifier"),
            ("/(?>a)/", "an atomic group"),
            ("/(?R)/", "recursion"),
            ("/\\Qa.b\\E/", "a `\\Q…\\E` literal"),
            ("/(?(1)a|b)/", "a conditional"),
        ] {
            assert_eq!(
                rust(arg),
                Err(PhpRegexError::Unchecked(what.to_owned())),
                "{arg}"
            );
        }
        // Inside a class these are plain characters.
        assert!(rust("/[+?=]+/").is_ok());
        // `(?-i)` turns a flag off; only `(?-1)` is recursion.
        assert!(rust("/(?i)a(?-i)b/").is_ok());
    }

    // PHP accepts all of these; regex-syntax refuses them, so they are notes, not errors.
    #[test]
    fn pcre_escapes_counts_and_verbs_are_not_checked() {
        for arg in [
            "/\\0/",
            "/\\e/",
            "/a{/",
            "/{x}/",
            "/a{,3}/",
            "/(*UTF8)^a$/",
            "/(?P<n>a)(?P=n)/",
            "/(?J)a/",
            "/a/J",
            "/a/U",
        ] {
            assert!(
                matches!(rust(arg), Err(PhpRegexError::Unchecked(_))),
                "{arg}: {:?}",
                rust(arg)
            );
        }
        // Modifiers that change no verdict are checked.
        assert_eq!(rust("/a/XSn").unwrap(), "a");
    }

    // Regression: the end of the pattern was found with `rfind`, so a `/` inside a `/…/`
    // pattern passed; PHP stops at the first unescaped delimiter ("Unknown modifier '/'").
    #[test]
    fn the_first_unescaped_delimiter_ends_the_pattern() {
        assert_eq!(
            parse_php_regex("/^https?://x$/"),
            Err(PhpRegexError::DelimiterInPattern {
                delimiter: '/',
                modifier: '/'
            })
        );
        assert_eq!(
            parse_php_regex("/a/b/"),
            Err(PhpRegexError::DelimiterInPattern {
                delimiter: '/',
                modifier: 'b'
            })
        );
        assert_eq!(
            parse_php_regex("/^https?:\\/\\/x$/").unwrap().pattern,
            "^https?:\\/\\/x$"
        );
        assert_eq!(
            parse_php_regex("#^https?://x$#").unwrap().pattern,
            "^https?://x$"
        );
        // Bracket delimiters nest: the pattern is `a(b)c`, then the modifier `i`.
        assert_eq!(
            parse_php_regex("(a(b)c)i").unwrap(),
            PhpRegex {
                pattern: "a(b)c".into(),
                flags: "i".into()
            }
        );
        assert_eq!(parse_php_regex("{a\\}b}").unwrap().pattern, "a\\}b");
        assert!(matches!(
            parse_php_regex("(a(b)c"),
            Err(PhpRegexError::Delimiter(_))
        ));
        assert!(matches!(
            parse_php_regex("éaé"),
            Err(PhpRegexError::Delimiter(_))
        ));
        assert_eq!(parse_php_regex(" \t/a/ ").unwrap().pattern, "a");
    }

    #[test]
    fn broken_patterns_are_errors() {
        assert!(matches!(rust("/a(b/"), Err(PhpRegexError::Syntax(_))));
        assert!(matches!(rust("/[z-a]/"), Err(PhpRegexError::Syntax(_))));
        assert!(matches!(rust("/*a/"), Err(PhpRegexError::Syntax(_))));
        assert!(matches!(rust("/\\i/"), Err(PhpRegexError::Syntax(_))));
        assert_eq!(parse_php_regex("/a/e"), Err(PhpRegexError::Flag('e')));
        assert!(rust("/^([\\w\\d._-]+)(\\.jar)$/").is_ok());
        assert!(rust("/^[\\w.-]*$/").is_ok());
    }
}
