//! PHP's regular expressions as Laravel's `regex:` and `not_regex:` rules hand them to
//! `preg_match`, compiled and matched by PCRE2 itself, PHP's own engine (the `pcre2` crate).
//!
//! The argument is split the way `pcre_get_compiled_regex_cache_ex` in PHP's
//! `ext/pcre/php_pcre.c` splits it: leading whitespace skipped, the delimiter, the pattern up to
//! the closing delimiter, then modifiers. The pattern is compiled with the options PHP gives
//! each modifier and matched under PHP's default limits (`pcre.backtrack_limit` 1,000,000,
//! `pcre.recursion_limit` 100,000, the JIT with PHP's 192 KiB stack), so a pattern is refused
//! exactly when `preg_match` refuses it and a value matches exactly when it matches in the
//! panel. The `pcre2` crate sets `i`, `m`, `s`, `x` and `u` as PHP does; the others are
//! written into the compiled text: `n`, `U` and `J` as the inline options `(?n)`, `(?U)`,
//! `(?J)` (the same options, set before the first character of the pattern), the limits as
//! `(*LIMIT_MATCH=…)` and `(*LIMIT_DEPTH=…)` after the pattern's own start items (`(*UTF)`...;
//! `(*NOTEMPTY)` is dropped, as PHP's direct call of the JIT ignores it), and `A` and `D` are
//! applied to the match itself
//! ([`Compiled::preg_match`]). Two corners stay unjudged, each named: `\K` inside a lookaround
//! (PHP turns on `PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK`, which the crate cannot) and `A` with `\K`.

use pcre2::bytes::{Regex, RegexBuilder};

/// A `regex:` argument split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhpRegex {
    /// The pattern between the delimiters, as written.
    pub pattern: String,
    /// The modifiers after the closing delimiter, without the spaces and line breaks PHP
    /// skips among them.
    pub flags: String,
}

/// Why a `regex:` argument cannot be used or judged.
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
    /// PCRE2 refuses the pattern: its message, and the byte offset in the pattern, as PHP's
    /// warning "Compilation failed: … at offset N" gives them.
    #[error("the pattern does not compile: {0}")]
    Syntax(String),
    /// The pattern compiles in PHP, but eggcat cannot judge values against it: why.
    #[error("uses {0}, which eggcat cannot judge")]
    Unchecked(String),
}

/// What `preg_match` returns for a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PregMatch {
    /// `1`: the pattern matches.
    Match,
    /// `0`: it does not.
    NoMatch,
    /// `false`: matching failed (a limit was reached); `preg_last_error_msg()`'s words.
    Failed(String),
    /// eggcat cannot tell for this value: why.
    Unjudged(&'static str),
}

/// Modifiers PHP accepts after the closing delimiter (`n` since PHP 8.2); it skips spaces and
/// line breaks there.
const MODIFIERS: &str = "imsxnADSUXJu \n\r";

/// PHP's defaults for `pcre.backtrack_limit` and `pcre.recursion_limit`, which it sets on its
/// match context. A pattern's own `(*LIMIT_MATCH=…)` can only lower them there; here they are
/// start items written after the pattern's own (the last one counts), holding the lower value.
const MATCH_LIMIT: u32 = 1_000_000;
const DEPTH_LIMIT: u32 = 100_000;

/// PCRE2's start-of-pattern items (`pso_list` in `pcre2_compile.c`), each a name after `(*`:
/// PCRE2 reads them only before anything else, so what eggcat adds goes after them.
const START_ITEMS: &[&str] = &[
    "UTF8)",
    "UTF)",
    "UCP)",
    "NOTEMPTY)",
    "NOTEMPTY_ATSTART)",
    "NO_AUTO_POSSESS)",
    "NO_DOTSTAR_ANCHOR)",
    "NO_JIT)",
    "NO_START_OPT)",
    "CASELESS_RESTRICT)",
    "TURKISH_CASING)",
    "LIMIT_HEAP=",
    "LIMIT_MATCH=",
    "LIMIT_DEPTH=",
    "LIMIT_RECURSION=",
    "CR)",
    "LF)",
    "CRLF)",
    "ANY)",
    "NUL)",
    "ANYCRLF)",
    "BSR_ANYCRLF)",
    "BSR_UNICODE)",
];

/// PHP's JIT stack: 32 KiB growing to 192 KiB (`PCRE_JIT_STACK_MAX_SIZE`); the crate starts
/// at 32 KiB too.
const JIT_STACK: usize = 192 * 1024;

/// PCRE2's error 199, "\K is not allowed in lookarounds", which PHP turns off.
const LOOKAROUND_BSK: i32 = 199;

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
        flags: flags.chars().filter(|c| !c.is_whitespace()).collect(),
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

/// A pattern compiled as PHP compiles it, ready to judge values.
#[derive(Debug)]
pub struct Compiled {
    regex: Regex,
    /// `A`: a match must start at the first character.
    anchored: bool,
    /// `D` without `m`: `$` matches at the very end only.
    dollar_end_only: bool,
}

impl PhpRegex {
    /// Compiles the pattern with PCRE2 as `preg_match` does; the error PHP would warn of, or
    /// the reason values cannot be judged against it.
    pub fn compile(&self) -> Result<Compiled, PhpRegexError> {
        let has = |flag: char| self.flags.contains(flag);
        let (text, prefix, written) = self.compiled_text();
        let regex = RegexBuilder::new()
            .caseless(has('i'))
            .multi_line(has('m'))
            .dotall(has('s'))
            .extended(has('x'))
            // PCRE2_UTF and PCRE2_UCP, as PHP sets for `u`.
            .ucp(has('u'))
            .jit_if_available(true)
            .max_jit_stack_size(Some(JIT_STACK))
            .build(&text)
            .map_err(|e| self.compile_error(&e, prefix, written))?;
        if has('A') && self.pattern.contains("\\K") {
            return Err(PhpRegexError::Unchecked(
                "the anchored modifier `A` with `\\K`".to_owned(),
            ));
        }
        Ok(Compiled {
            regex,
            anchored: has('A'),
            dollar_end_only: has('D') && !has('m'),
        })
    }

    /// The text PCRE2 compiles: the pattern's own start items, PHP's limits, the inline options
    /// of `n`, `U` and `J`, then the rest of the pattern; with the length of what stands
    /// before the rest, there and in the pattern as written, to map an error offset back.
    fn compiled_text(&self) -> (String, usize, usize) {
        let head = start_items(&self.pattern);
        let match_limit = head.match_limit.unwrap_or(u32::MAX).min(MATCH_LIMIT);
        let depth_limit = head.depth_limit.unwrap_or(u32::MAX).min(DEPTH_LIMIT);
        let prefix = format!(
            "{}(*LIMIT_MATCH={match_limit})(*LIMIT_DEPTH={depth_limit}){}",
            head.kept,
            self.inline_options()
        );
        let text = format!("{prefix}{}", &self.pattern[head.len..]);
        (text, prefix.len(), head.len)
    }

    /// `(?nUJ)` for the modifiers the `pcre2` crate has no option for, or nothing.
    fn inline_options(&self) -> String {
        let letters: String = self.flags.chars().filter(|c| "nUJ".contains(*c)).collect();
        if letters.is_empty() {
            String::new()
        } else {
            format!("(?{letters})")
        }
    }

    /// PCRE2's compile error as PHP words it, its offset counted in the pattern as written
    /// (`prefix` bytes of the compiled text stand for `written` bytes of the pattern).
    fn compile_error(&self, error: &pcre2::Error, prefix: usize, written: usize) -> PhpRegexError {
        if error.code() == LOOKAROUND_BSK {
            return PhpRegexError::Unchecked(
                "`\\K` inside a lookaround (PHP allows it, PCRE2 does not by default)".to_owned(),
            );
        }
        let shown = error.to_string();
        // "PCRE2: error compiling pattern at offset N: message"
        let message = shown.split_once(": ").map_or(shown.as_str(), |(_, m)| m);
        let message = message.split_once(": ").map_or(message, |(_, m)| m);
        match error.offset() {
            Some(offset) => {
                let offset = match offset.checked_sub(prefix) {
                    Some(in_rest) => written + in_rest,
                    None => offset.min(written),
                };
                PhpRegexError::Syntax(format!("{message} at offset {offset}"))
            }
            None => PhpRegexError::Syntax(message.to_owned()),
        }
    }
}

/// The start-of-pattern items at the head of a pattern: their length, the limits they set (the
/// last setting of each counts, as in PCRE2), and the items eggcat keeps. It drops `(*NOTEMPTY)`
/// and `(*NOTEMPTY_ATSTART)`: `pcre2_match` turns them into match options before it runs the
/// JIT, but PHP calls `pcre2_jit_match` directly, so with the JIT (PHP's default) they do
/// nothing in `preg_match`.
#[derive(Debug, Default)]
struct Head {
    len: usize,
    kept: String,
    match_limit: Option<u32>,
    depth_limit: Option<u32>,
}

/// Reads the start-of-pattern items at the head of `pattern` as PCRE2 does (each name tried in
/// `pso_list`'s order, a limit's digits up to `)`), stopping at anything else.
fn start_items(pattern: &str) -> Head {
    let mut head = Head::default();
    'items: while pattern[head.len..].starts_with("(*") {
        let rest = &pattern[head.len + 2..];
        for name in START_ITEMS {
            let Some(after) = rest.strip_prefix(name) else {
                continue;
            };
            let mut len = 2 + name.len();
            if name.ends_with('=') {
                let digits = after.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0 || after.as_bytes().get(digits) != Some(&b')') {
                    break 'items;
                }
                let value = after[..digits].parse().ok();
                match *name {
                    "LIMIT_MATCH=" => head.match_limit = value,
                    "LIMIT_DEPTH=" | "LIMIT_RECURSION=" => head.depth_limit = value,
                    _ => {}
                }
                len += digits + 1;
            }
            if !name.starts_with("NOTEMPTY") {
                head.kept.push_str(&pattern[head.len..head.len + len]);
            }
            head.len += len;
            continue 'items;
        }
        break;
    }
    head
}

impl Compiled {
    /// What `preg_match($pattern, $value)` returns.
    pub fn preg_match(&self, value: &str) -> PregMatch {
        // Without `D`, `$` also matches before a line break that ends the value; with it,
        // only at the very end. The option cannot be passed, so a value that ends in a line
        // break is not judged (any other value reads the same either way).
        if self.dollar_end_only
            && value.ends_with([
                '\n', '\r', '\x0b', '\x0c', '\u{85}', '\u{2028}', '\u{2029}', '\0',
            ])
        {
            return PregMatch::Unjudged("the `D` modifier on a value that ends in a line break");
        }
        let found = if self.anchored {
            // An anchored match exists exactly when the leftmost match starts at the first
            // character: the search tries that position first (`\K`, which moves the start
            // it reports, is refused with `A` at compile time).
            self.regex
                .find(value.as_bytes())
                .map(|m| m.is_some_and(|m| m.start() == 0))
        } else {
            self.regex.is_match(value.as_bytes())
        };
        match found {
            Ok(true) => PregMatch::Match,
            Ok(false) => PregMatch::NoMatch,
            Err(e) => PregMatch::Failed(match_error(&e)),
        }
    }
}

/// `preg_last_error_msg()` for a matching error.
fn match_error(error: &pcre2::Error) -> String {
    // PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_JIT_STACKLIMIT, as
    // `pcre_handle_exec_error` in php_pcre.c sorts them.
    match error.code() {
        -47 => "Backtrack limit exhausted".to_owned(),
        -53 => "Recursion limit exhausted".to_owned(),
        -46 => "JIT stack limit exhausted".to_owned(),
        _ => "Internal error".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(arg: &str) -> Result<Compiled, PhpRegexError> {
        parse_php_regex(arg)?.compile()
    }

    fn matches(arg: &str, value: &str) -> PregMatch {
        compile(arg).expect("compiles").preg_match(value)
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
        // PHP skips spaces and line breaks among the modifiers, not tabs.
        assert_eq!(parse_php_regex("/a/i \nm\r").unwrap().flags, "im");
        assert_eq!(parse_php_regex("/a/i\t"), Err(PhpRegexError::Flag('\t')));
        assert_eq!(parse_php_regex("/a/e"), Err(PhpRegexError::Flag('e')));
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
    fn what_pcre2_refuses_is_an_error_with_php_s_words_and_offset() {
        assert_eq!(
            compile("/a(b/").unwrap_err(),
            PhpRegexError::Syntax("missing closing parenthesis at offset 3".into())
        );
        // The offset counts in the pattern as written, after inline options eggcat added
        // and after the pattern's own start items.
        assert_eq!(
            compile("/(*UTF)a(b/U").unwrap_err(),
            PhpRegexError::Syntax("missing closing parenthesis at offset 9".into())
        );
        for broken in ["/[z-a]/", "/*a/", "/\\i/", "/a{3,1}/", "/(?<n>a)(?<n>b)/"] {
            assert!(
                matches!(compile(broken), Err(PhpRegexError::Syntax(_))),
                "{broken}"
            );
        }
    }

    #[test]
    fn what_the_old_translation_could_not_check_is_judged() {
        assert_eq!(matches("/^(?!admin).+$/", "admin1"), PregMatch::NoMatch);
        assert_eq!(matches("/^(?!admin).+$/", "root"), PregMatch::Match);
        assert_eq!(matches("/^(a)\\1$/", "aa"), PregMatch::Match);
        assert_eq!(matches("/^a++$/", "aaa"), PregMatch::Match);
        assert_eq!(matches("/^\\Qa.b\\E$/", "a.b"), PregMatch::Match);
        assert_eq!(matches("/^\\Qa.b\\E$/", "axb"), PregMatch::NoMatch);
        assert_eq!(matches("/(*UTF)^é$/", "é"), PregMatch::Match);
        assert_eq!(matches("/^[[:alpha:]]+$/", "abc"), PregMatch::Match);
    }

    #[test]
    fn modifiers_mean_what_they_mean_in_php() {
        // Without `u`, `\w` is ASCII and the subject is bytes.
        assert_eq!(matches("/^\\w+$/", "café"), PregMatch::NoMatch);
        assert_eq!(matches("/^\\w+$/u", "café"), PregMatch::Match);
        assert_eq!(matches("/^.$/", "é"), PregMatch::NoMatch);
        assert_eq!(matches("/^.$/u", "é"), PregMatch::Match);
        assert_eq!(matches("/^abc$/i", "ABC"), PregMatch::Match);
        assert_eq!(matches("/^b$/m", "a\nb"), PregMatch::Match);
        assert_eq!(matches("/^a.b$/s", "a\nb"), PregMatch::Match);
        assert_eq!(matches("/^a b$/x", "ab"), PregMatch::Match);
        // `$` matches before a final line break, unless `D`.
        assert_eq!(matches("/^a$/", "a\n"), PregMatch::Match);
        assert_eq!(matches("/^a$/D", "ab"), PregMatch::NoMatch);
        assert!(matches!(matches("/^a$/D", "a\n"), PregMatch::Unjudged(_)));
        // `A` anchors at the first character.
        assert_eq!(matches("/b/A", "ab"), PregMatch::NoMatch);
        assert_eq!(matches("/a|b/A", "ba"), PregMatch::Match);
        assert_eq!(matches("/(?<=a)b/A", "ab"), PregMatch::NoMatch);
        // `U` inverts greediness: `a+?` is greedy again, and `^a+` then needs no more.
        assert_eq!(matches("/^(a+)b$/U", "aab"), PregMatch::Match);
        // `J` allows duplicate names, `n` stops groups capturing (so `\1` has no group).
        assert!(compile("/(?<n>a)|(?<n>b)/J").is_ok());
        assert!(matches!(
            compile("/(a)\\1/n"),
            Err(PhpRegexError::Syntax(_))
        ));
        // `S` and `X` do nothing in PHP 7.3 and later.
        assert_eq!(matches("/^a$/SX", "a"), PregMatch::Match);
    }

    #[test]
    fn what_eggcat_cannot_judge_is_named() {
        assert!(matches!(
            compile("/a(?=b\\K)/"),
            Err(PhpRegexError::Unchecked(_))
        ));
        assert!(matches!(
            compile("/a\\Kb/A"),
            Err(PhpRegexError::Unchecked(_))
        ));
        assert!(compile("/a\\Kb/").is_ok());
    }

    #[test]
    fn a_pattern_that_backtracks_forever_fails_as_in_php() {
        let value = "a".repeat(30);
        assert_eq!(
            matches("/^(a+)+$/", &format!("{value}b")),
            PregMatch::Failed("Backtrack limit exhausted".into())
        );
    }
}
