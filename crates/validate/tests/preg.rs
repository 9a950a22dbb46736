//! Differential test of eggcat's `preg_match` (a `regex:` argument split as PHP splits it,
//! compiled and matched by PCRE2 through the `pcre2` crate) against PHP's own `preg_match`,
//! run by `tests/php/preg_match.php` on the same cases: hostile patterns, every modifier and
//! the delimiters' corners, and every `regex:` and `not_regex:` rule of the real corpus with
//! every default value of the corpus and a few probes. On every case both must agree: a pattern
//! PHP warns about is one eggcat refuses (a compile error in PCRE2's words, at the same
//! offset), 1 and 0 are the same, and a match that fails fails with the same error. What eggcat
//! says it cannot judge (E033, or a value it leaves unjudged) must be something PHP accepts;
//! those cases are counted, not compared.
//!
//! PHP is needed as for the panels' differential test: without php-cli the tests are skipped
//! with one line, and fail instead under `EGGCAT_PHP=require` (which `.ci/test` sets). The
//! corpus half needs `../shared/upstream` as the other corpus tests do (`EGGCAT_CORPUS`).
//! PHP's PCRE2 may be older than the crate's (Debian 12's PHP 8.2 has 10.42, the crate bundles
//! 10.46): the cases avoid the few patterns whose meaning changed between them.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use eggcat_validate::{
    Compiled, PhpRegexError, PregMatch, parse_php_regex, parse_rule, split_rules,
};
use serde_json::Value;

/// What PHP's `preg_match` did with one case.
#[derive(Debug, serde::Deserialize)]
struct Php {
    result: Value,
    warning: Option<String>,
    error: Option<String>,
}

/// Runs PHP on `cases`, or `None` (the test skipped, with one line) without php-cli.
fn php(cases: &[(String, String)]) -> Option<(String, Vec<Php>)> {
    let available = std::process::Command::new("php")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        assert!(
            std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
            "EGGCAT_PHP=require but php-cli is missing (bash .ci/install installs it)"
        );
        eggcat_testkit::skip_test("needs php-cli (bash .ci/install installs it)");
        return None;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let input = dir.path().join("cases.json");
    std::fs::write(&input, serde_json::to_vec(cases).expect("JSON")).expect("writable");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/php/preg_match.php");
    let out = std::process::Command::new("php")
        .arg(&script)
        .arg(&input)
        .output()
        .expect("php runs");
    assert!(
        out.status.success(),
        "php failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    #[derive(serde::Deserialize)]
    struct Answer {
        pcre: String,
        results: Vec<Php>,
    }
    let answer: Answer = serde_json::from_slice(&out.stdout).expect("the script prints JSON");
    assert_eq!(answer.results.len(), cases.len());
    Some((answer.pcre, answer.results))
}

/// The PCRE2 the `pcre2` crate bundles, whose messages eggcat's E032 quotes.
const BUNDLED_PCRE2: &str = "10.46";

/// The tally of a comparison.
#[derive(Debug, Default)]
struct Tally {
    agreed: usize,
    not_judged: usize,
    /// Refused by both, in words (or at an offset) that differ because PHP's PCRE2 is another
    /// version: a mismatch only when PHP runs the bundled version.
    worded_otherwise: Vec<String>,
    mismatches: Vec<String>,
}

impl Tally {
    /// Fails with every case where eggcat and PHP disagree.
    fn assert_agreed(&self, cases: usize, php_pcre2: &str) {
        let mut differ = self.mismatches.clone();
        if php_pcre2.starts_with(BUNDLED_PCRE2) {
            differ.extend(self.worded_otherwise.iter().cloned());
        }
        assert!(
            differ.is_empty(),
            "{} of {cases} cases differ from PHP's preg_match (PCRE2 {php_pcre2}):\n{}",
            differ.len(),
            differ.join("\n")
        );
    }
}

/// Compares eggcat with PHP on every case.
fn compare(cases: &[(String, String)], php: &[Php]) -> Tally {
    let mut compiled: HashMap<&str, Result<Compiled, PhpRegexError>> = HashMap::new();
    let mut tally = Tally::default();
    for ((pattern, subject), php) in cases.iter().zip(php) {
        let ours = compiled
            .entry(pattern)
            .or_insert_with(|| parse_php_regex(pattern).and_then(|r| r.compile()));
        let ours = &*ours;
        let case = format!("preg_match({pattern:?}, {subject:?})");
        let agreed = match (ours, php.warning.as_deref(), &php.result) {
            (Err(PhpRegexError::Unchecked(_)), None, Value::Number(_)) => {
                tally.not_judged += 1;
                continue;
            }
            (Err(PhpRegexError::Unchecked(why)), warning, _) => {
                tally.mismatches.push(format!(
                    "{case}: eggcat cannot judge it ({why}), PHP refuses it ({warning:?})"
                ));
                continue;
            }
            // A compile error: PCRE2's words and offset, as PHP's warning gives them.
            (Err(PhpRegexError::Syntax(why)), Some(warning), Value::Bool(false)) => {
                if warning != format!("preg_match(): Compilation failed: {why}") {
                    tally
                        .worded_otherwise
                        .push(format!("{case}: eggcat says {why:?}, PHP {warning:?}"));
                }
                true
            }
            // The delimiter or a modifier: PHP warns before compiling.
            (Err(_), Some(warning), Value::Bool(false)) => !warning.contains("Compilation failed"),
            (Ok(regex), None, result) => match (regex.preg_match(subject), result) {
                (PregMatch::Unjudged(_), _) => {
                    tally.not_judged += 1;
                    continue;
                }
                (PregMatch::Match, Value::Number(n)) => n.as_i64() == Some(1),
                (PregMatch::NoMatch, Value::Number(n)) => n.as_i64() == Some(0),
                (PregMatch::Failed(why), Value::Bool(false)) => {
                    php.error.as_deref() == Some(why.as_str())
                }
                _ => false,
            },
            _ => false,
        };
        if agreed {
            tally.agreed += 1;
        } else {
            let ours = match ours {
                Ok(regex) => format!("{:?}", regex.preg_match(subject)),
                Err(e) => format!("{e:?}"),
            };
            tally
                .mismatches
                .push(format!("{case}: eggcat {ours}, PHP {php:?}"));
        }
    }
    tally
}

fn cases(patterns: &[&str], subjects: &[&str]) -> Vec<(String, String)> {
    patterns
        .iter()
        .flat_map(|p| subjects.iter().map(|s| ((*p).to_owned(), (*s).to_owned())))
        .collect()
}

/// Patterns on a set of subjects each: the delimiters, the modifiers, PCRE features the old
/// translation to Rust's regex left unchecked, errors, and patterns that exhaust the limits.
fn hostile() -> Vec<(String, String)> {
    let subjects = [
        "",
        "a",
        "ab",
        "ba",
        "aa",
        "abc",
        "ABC",
        "a\n",
        "a\nb",
        "ab\n",
        "é",
        "café",
        "É",
        "a b",
        "a.b",
        "axb",
        "(())",
        "server.jar",
        "0",
        "-1.5",
        "a1",
        "a\0b",
        "_x-y.z",
    ];
    let patterns = [
        // Delimiters and modifiers, as php_pcre.c splits them.
        "/a/",
        "#a#",
        "~a~",
        "%a%",
        "!a!",
        "+a+",
        "(a)",
        "{a}",
        "[a]",
        "<a>",
        "(a(b)?)",
        "(a(b)c",
        "{a\\}b}",
        " /a/",
        "\t\n/a/",
        "a",
        "\\a\\",
        "",
        "   ",
        "/a",
        "/a\\/",
        "/a\\/b/",
        "/a/b/",
        "/^https?://x$/",
        "#^https?://x$#",
        "éaé",
        "/a/ i",
        "/a/\ni",
        "/a/\ti",
        "/a/e",
        "/a/r",
        "/a/q",
        "/a/imsxnADSUXJu",
        "/a/\0",
        // What each modifier means.
        "/^\\w+$/",
        "/^\\w+$/u",
        "/^.$/",
        "/^.$/u",
        "/^abc$/i",
        "/^É$/i",
        "/^É$/iu",
        "/^b$/m",
        "/^a.b$/s",
        "/^a b$/x",
        "/^a # comment\n$/x",
        "/^a$/",
        "/^a$/D",
        "/^a$/Dm",
        "/b/A",
        "/a|b/A",
        "/(?<=a)b/A",
        "/^a+?$/U",
        "/^(a+)(a*)$/U",
        "/(?<n>a)|(?<n>b)/J",
        "/(?<n>a)|(?<n>b)/",
        "/(a)\\1/n",
        "/(a)(?:b)/n",
        "/a/SX",
        "/(*UTF)^é$/",
        "/(*UCP)^\\w$/u",
        "/(*UTF)(*UCP)^\\w+$/U",
        "/(*LIMIT_MATCH=10)^a/",
        "/(*FAIL)|a/",
        "/(*ACCEPT)a/U",
        "/(*CRLF)(*NO_JIT)^a$/",
        "/(*LIMIT_MATCH=x)a/",
        "/(*NOTEMPTY_ATSTART)a?/n",
        "/(*UTF)(*NOTEMPTY)a?/",
        // PCRE features regex-syntax could not read.
        "/^(?!admin).+$/",
        "/^(?=a)/",
        "/(?<!a)b/",
        "/^(a)\\1$/",
        "/^a++$/",
        "/^(?>a+)b/",
        "/^(\\((?1)*\\))$/",
        "/^\\Qa.b\\E$/",
        "/^(a)?(?(1)b|c)$/",
        "/^(?|(a)|(b))\\1$/",
        "/(?#comment)a/",
        "/(?'n'a)\\k'n'/",
        "/\\Kb/",
        "/a\\Kb/",
        "/a(?=b\\K)/",
        "/a\\Kb/A",
        "/\\h/",
        "/\\R/",
        "/\\X/",
        "/\\p{Xan}+/",
        "/^[[:alpha:]]+$/",
        "/^[[:^digit:]]+$/",
        "/(*SKIP)(*F)|a/",
        "/\\x{e9}/u",
        "/\\x{e9}/",
        "/\\e\\cA\\o{12}\\0/",
        "/^[\\w\\d._-]+$/",
        "/^é$/",
        "/^[é]$/",
        "/^[é]$/u",
        "/a\0b/",
        "/[]a]/",
        "/[^]a]/",
        "/[[]/",
        "/[a&&b]/",
        "/\\<a\\>/",
        "/a{/",
        "/{x}/",
        "/a{2}/",
        "/\\b{x}/",
        // Refused by PCRE2.
        "/a(b/",
        "/a)b/",
        "/[abc/",
        "/[z-a]/",
        "/[\\d-z]/",
        "/*a/",
        "/a|+/",
        "/a{3,1}/",
        "/\\i/",
        "/\\u0041/",
        "/\\q/",
        "/(?<n>a)(?<n>b)/",
        "/(?P<1>a)/",
        "/(*FOO)a/",
        "/(?i/",
        "/a\\/",
        "/(?<=a+)b/",
        "/\\c/",
        "/(*UTF8)a/",
        "/^a(*UTF)$/",
        // Limits: PHP's backtrack limit, its recursion limit, the JIT stack.
        "/^(a+)+$/",
        "/^(\\w+\\s?)*$/",
        "/(a|aa)*c/",
        "/^(?:a|b)*$/",
    ];
    let mut out = cases(&patterns, &subjects);
    let long_a = format!("{}b", "a".repeat(40));
    let words = format!("{}!", "word ".repeat(30));
    // A pattern's own limit counts only below PHP's.
    for pattern in [
        "/^(a+)+$/",
        "/^(\\w+\\s?)*$/",
        "/(a|aa)*c/",
        "/^(?:a|b)*$/",
        "/(a)*$/",
        "/(*LIMIT_MATCH=5000000)^(a+)+$/",
        "/(*LIMIT_DEPTH=900000)(*LIMIT_MATCH=3000)(a)*$/",
    ] {
        for subject in [&long_a, &words, &"ab".repeat(20_000)] {
            out.push((pattern.to_owned(), subject.clone()));
        }
    }
    out
}

#[test]
fn preg_match_agrees_with_php_on_hostile_patterns() {
    let cases = hostile();
    let Some((version, php)) = php(&cases) else {
        return;
    };
    let tally = compare(&cases, &php);
    tally.assert_agreed(cases.len(), &version);
    // The corners eggcat names as not judgeable are few, and PHP accepts each: two patterns
    // (`\K` in a lookaround, `A` with `\K`) on every subject, `D` on two values that end in
    // a line break.
    assert_eq!(tally.not_judged, 2 * 23 + 2);
    assert_eq!(tally.agreed, cases.len() - tally.not_judged);
}

/// Every `regex:` and `not_regex:` argument of the corpus, and every default value of the
/// corpus with a few probes, each argument on each value.
fn corpus_cases(dir: &Path) -> (BTreeSet<String>, Vec<(String, String)>) {
    // Every egg file the catalog's parser reads; files it refuses are left out.
    let docs: Vec<Value> = eggcat_testkit::egg_files(dir)
        .iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy();
            let kind = eggcat_egg::SyntaxKind::from_file_name(&name)?;
            let bytes = std::fs::read(path).expect("readable");
            eggcat_egg::parse(&bytes, kind)
                .ok()
                .map(|parsed| parsed.value)
        })
        .collect();
    let mut patterns = BTreeSet::new();
    let mut values: BTreeSet<String> = ["", "server.jar", "a b", "é", "abc\n", "0", "x1"]
        .map(str::to_owned)
        .into();
    for doc in &docs {
        for var in doc["variables"].as_array().into_iter().flatten() {
            if let Some(default) = var["default_value"].as_str() {
                values.insert(default.to_owned());
            }
            let pieces: Vec<String> = match &var["rules"] {
                Value::String(s) => split_rules(s).into_iter().map(str::to_owned).collect(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            for piece in pieces {
                if let Ok(Some(rule)) = parse_rule(&piece)
                    && matches!(rule.name, "regex" | "not_regex")
                {
                    patterns.insert(rule.args[0].clone());
                }
            }
        }
    }
    let cases = patterns
        .iter()
        .flat_map(|p| values.iter().map(|v| (p.clone(), v.clone())))
        .collect();
    (patterns, cases)
}

#[test]
fn preg_match_agrees_with_php_on_every_regex_rule_of_the_corpus() {
    let Some(dir) = eggcat_testkit::pelican_eggs() else {
        return;
    };
    let (patterns, cases) = corpus_cases(&dir);
    assert!(
        patterns.len() >= 10,
        "the corpus's regex rules were not found: {patterns:?}"
    );
    // Every pattern of the corpus compiles in PCRE2 and is judged: none is "not checked".
    for pattern in &patterns {
        let compiled = parse_php_regex(pattern).and_then(|r| r.compile());
        assert!(compiled.is_ok(), "{pattern}: {compiled:?}");
    }
    let Some((version, php)) = php(&cases) else {
        return;
    };
    let tally = compare(&cases, &php);
    tally.assert_agreed(cases.len(), &version);
    assert_eq!(tally.not_judged, 0, "{tally:?}");
    assert_eq!(tally.agreed, cases.len());
}
