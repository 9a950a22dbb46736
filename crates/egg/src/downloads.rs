//! The downloads of an egg's install script (issue 38): the URLs it fetches with `curl`, `wget`,
//! `git clone` or `svn checkout` (directly, in `$(…)`, through `su`/`runuser -c '…'`, or through
//! a small function of the script that wraps one of them), each either fixed (checkable as
//! written) or built from variables (which ones said). One reading, shared by the catalog (which
//! shows what the hosts say of them) and `eggcat validate --downloads`.
//!
//! How a URL is read: its word's quotes are removed and the script's own variables expanded
//! where every value the script gives them is written out (`BASE=https://…`, then
//! `curl $BASE/file`; a variable given two values gives two URLs); the egg's variables (what an
//! admin sets) and variables the script fills from a command's output stay `${NAME}`. A URL
//! only the egg's variables make variable, all of which have a default the script neither
//! changes nor tests, is also given in its default form (`with_defaults`), which can be checked
//! as a fixed one. Not downloads: URLs in comments, in here-documents (files the script
//! writes), in `echo`/`printf` text, and a whole URL the script only learns from a response
//! (`curl -o f "$DOWNLOAD_URL"` after `DOWNLOAD_URL=$(curl … | jq …)`), which is not written
//! anywhere to check.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::shell::{self, Line, Piece};

/// One URL an install script fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    /// The URL as the script builds it: its own constants expanded, every other variable
    /// written `${NAME}`.
    pub url: String,
    /// Fixed, or built from variables.
    pub kind: DownloadKind,
    /// The variables it is built from, in order, each once (empty when fixed).
    pub variables: Vec<String>,
    /// The URL with the egg variables' defaults, when those alone make it fixed.
    pub with_defaults: Option<String>,
    /// The 1-based line of the script that fetches it (first, when fetched on several).
    pub line: usize,
}

/// Whether a download can be checked as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadKind {
    /// No variable in it.
    Fixed,
    /// Built from variables.
    Variable,
}

impl Download {
    /// The URL to check: the URL when fixed, its default form when the defaults make it fixed.
    pub fn checkable(&self) -> Option<&str> {
        match self.kind {
            DownloadKind::Fixed => Some(&self.url),
            DownloadKind::Variable => self.with_defaults.as_deref(),
        }
    }
}

/// The downloads of the egg's install script (`scripts.installation.script`), with its
/// variables' defaults from `variables`; none when it has no script.
pub fn downloads(egg: &Value) -> Vec<Download> {
    let Some(script) = egg
        .pointer("/scripts/installation/script")
        .and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let mut variables: Vec<(String, String)> = egg
        .get("variables")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| {
            let name = v.get("env_variable")?.as_str()?;
            let default = v.get("default_value").and_then(Value::as_str).unwrap_or("");
            Some((name.to_owned(), default.to_owned()))
        })
        .collect();
    // What Wings sets in every server's environment, install container included.
    for name in [
        "SERVER_MEMORY",
        "SERVER_IP",
        "SERVER_PORT",
        "P_SERVER_LOCATION",
        "P_SERVER_UUID",
        "P_SERVER_ALLOCATION_LIMIT",
    ] {
        variables.push((name.to_owned(), String::new()));
    }
    script_downloads(script, &variables)
}

/// The downloads of `script`, given the egg's variables (name, default).
pub fn script_downloads(script: &str, variables: &[(String, String)]) -> Vec<Download> {
    let lines = shell::lines(script);
    let egg: BTreeMap<&str, &str> = variables
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_str()))
        .collect();
    let mut reader = Reader {
        egg,
        fetchers: fetch_functions(&lines),
        assigned: BTreeMap::new(),
        first_assigned: BTreeMap::new(),
        from_environment: BTreeSet::new(),
        fetched: Vec::new(),
        line: 0,
    };
    for line in &lines {
        reader.line = line.number;
        reader.command_line(&line.text, line.number);
    }
    reader.from_environment = read_before_assigned(&lines, &reader.first_assigned);
    let tested = tested_variables(&lines);
    let mut out: Vec<Download> = Vec::new();
    let fetched = std::mem::take(&mut reader.fetched);
    for (word, number) in fetched {
        for alternative in reader.resolve(&shell::pieces(&word), 0) {
            if let Some(d) = reader.download(&alternative, number, &tested)
                && !out.iter().any(|o| o.url == d.url)
            {
                out.push(d);
            }
        }
    }
    out
}

/// Commands that fetch what their first argument names.
const FETCHERS: [&str; 2] = ["curl", "wget"];

/// Options of `curl`, `wget`, `git clone` and `svn checkout` that take a value (the next word,
/// or the rest of a short option's word).
const WITH_VALUE: [&str; 43] = [
    "-o",
    "--output",
    "-A",
    "--user-agent",
    "-H",
    "--header",
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "-u",
    "--user",
    "-e",
    "--referer",
    "-X",
    "--request",
    "-w",
    "--write-out",
    "-T",
    "--upload-file",
    "--connect-timeout",
    "-m",
    "--max-time",
    "--retry",
    "-r",
    "--range",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "-F",
    "--form",
    "-O",
    "--output-document",
    "-P",
    "--directory-prefix",
    "-U",
    "--branch",
    "--depth",
    "--tries",
    "-t",
    "--timeout",
    "--config",
];

/// Short options that take a value, as one letter each, by command (`-c` is curl's cookie
/// jar, but wget's "continue").
fn short_with_value(command: &str) -> &'static str {
    match command {
        "curl" => "oAHduXwTmrbcFeKxE",
        "wget" => "OPoUtTae",
        "git" => "bocj",
        _ => "",
    }
}

/// Words that leave the next word at a command's place.
const KEYWORDS: [&str; 13] = [
    "if", "then", "do", "else", "elif", "while", "until", "!", "time", "sudo", "exec", "command",
    "{",
];

struct Reader<'a> {
    /// The egg's variables and their defaults.
    egg: BTreeMap<&'a str, &'a str>,
    /// The script's functions that fetch their argument.
    fetchers: BTreeSet<String>,
    /// Each script variable's values, `None` for one the script cannot know before it runs.
    assigned: BTreeMap<String, Vec<Option<Vec<Piece>>>>,
    /// The line each script variable is first given a value on.
    first_assigned: BTreeMap<String, usize>,
    /// Variables the script reads before it gives them a value: they come from the
    /// environment, whatever the script may set them to later.
    from_environment: BTreeSet<String>,
    /// The URL words of fetch commands, with their line.
    fetched: Vec<(String, usize)>,
    /// The line being read.
    line: usize,
}

impl Reader<'_> {
    /// Reads the commands of one line (or of a `$(…)` inside one).
    fn command_line(&mut self, text: &str, number: usize) {
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut at_command = true;
        let mut words: Vec<String> = Vec::new();
        let mut skip_next = false;
        loop {
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            if i >= bytes.len() {
                break;
            }
            match bytes[i] {
                b';' | b'|' | b'&' | b'(' | b')' => {
                    self.command(&words, number);
                    words.clear();
                    at_command = true;
                    i += 1;
                    continue;
                }
                b'<' | b'>' => {
                    while i < bytes.len() && matches!(bytes[i], b'<' | b'>' | b'&') {
                        i += 1;
                    }
                    skip_next = true;
                    continue;
                }
                _ => {}
            }
            let (word, end) = shell::word_at(text, i);
            i = end.max(i + 1);
            for inner in substitutions(&word) {
                self.command_line(&inner, number);
            }
            if std::mem::take(&mut skip_next) {
                continue;
            }
            if at_command && KEYWORDS.contains(&word.as_str()) {
                continue;
            }
            if at_command
                && words.is_empty()
                && let Some((name, value)) = assignment(&word)
            {
                self.assign(name, value);
                continue;
            }
            at_command = false;
            words.push(word);
        }
        self.command(&words, number);
    }

    /// One simple command's words.
    fn command(&mut self, words: &[String], number: usize) {
        let Some(first) = words.first() else { return };
        let args = &words[1..];
        match first.as_str() {
            "export" | "local" | "readonly" | "declare" | "typeset" => {
                for w in args.iter().filter(|w| !w.starts_with('-')) {
                    if let Some((name, value)) = assignment(w) {
                        self.assign(name, value);
                    }
                }
            }
            "su" | "runuser" | "sh" | "bash" => {
                if let Some(i) = args.iter().position(|a| a == "-c")
                    && let Some(inner) = args.get(i + 1)
                {
                    self.command_line(&unquoted(inner), number);
                }
            }
            "git" if args.first().is_some_and(|a| a == "clone") => {
                self.fetch("git", &args[1..], number, true);
            }
            "svn"
                if args
                    .first()
                    .is_some_and(|a| ["co", "checkout", "export"].contains(&a.as_str())) =>
            {
                self.fetch("svn", &args[1..], number, true);
            }
            f if FETCHERS.contains(&f) => self.fetch(f, args, number, false),
            f if self.fetchers.contains(f) => self.fetch(f, args, number, true),
            _ => {}
        }
    }

    /// The URL arguments of a fetch command: every word that is no option or option value (the
    /// first only when `first_only`: `git clone URL DIR`).
    fn fetch(&mut self, command: &str, args: &[String], number: usize, first_only: bool) {
        let short = short_with_value(command);
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            i += 1;
            if a.starts_with("--") {
                if !a.contains('=') && WITH_VALUE.contains(&a.as_str()) {
                    i += 1;
                }
                continue;
            }
            if a.starts_with('-') && a.len() > 1 {
                let letters = &a[1..];
                if let Some(p) = letters.find(|c| short.contains(c))
                    && p + 1 == letters.len()
                {
                    i += 1;
                }
                continue;
            }
            if alternate_value(a) {
                continue;
            }
            self.fetched.push((a.clone(), number));
            if first_only {
                return;
            }
        }
    }

    fn assign(&mut self, name: &str, value: &str) {
        let pieces = shell::pieces(value);
        let known = !pieces.contains(&Piece::Output);
        self.first_assigned
            .entry(name.to_owned())
            .or_insert(self.line);
        self.assigned
            .entry(name.to_owned())
            .or_default()
            .push(known.then_some(pieces));
    }

    /// The ways `pieces` can read once the script's own constants are expanded (at most 16). A
    /// script variable is expanded where every value the script gives it is written out of
    /// text and the egg's variables; one that starts the word (a URL, or a base URL, in a
    /// variable) is expanded into the values the script writes, the others being URLs only a
    /// response tells.
    fn resolve(&self, pieces: &[Piece], depth: usize) -> Vec<Vec<Piece>> {
        let mut out: Vec<Vec<Piece>> = vec![Vec::new()];
        for (i, piece) in pieces.iter().enumerate() {
            let choices: Vec<Vec<Piece>> = match piece {
                Piece::Var(name) => self
                    .expand(name, depth, i == 0)
                    .unwrap_or_else(|| vec![vec![piece.clone()]]),
                _ => vec![vec![piece.clone()]],
            };
            out = out
                .iter()
                .flat_map(|head| {
                    choices.iter().map(move |tail| {
                        let mut joined = head.clone();
                        joined.extend(tail.iter().cloned());
                        joined
                    })
                })
                .take(16)
                .collect();
        }
        out.into_iter().map(|p| merge_text(&p)).collect()
    }

    /// The written values of the script variable `name`, when it is one to expand.
    fn expand(&self, name: &str, depth: usize, leading: bool) -> Option<Vec<Vec<Piece>>> {
        if depth >= 4 || self.egg.contains_key(name) || self.from_environment.contains(name) {
            return None;
        }
        let values = self.assigned.get(name)?;
        let known: Vec<Vec<Piece>> = values
            .iter()
            .flatten()
            .flat_map(|v| self.resolve(v, depth + 1))
            .collect();
        if leading {
            return (!known.is_empty()).then_some(known);
        }
        let written = values.iter().all(Option::is_some)
            && known.iter().flatten().all(|p| match p {
                Piece::Text(_) => true,
                Piece::Var(n) => self.egg.contains_key(n.as_str()),
                Piece::Output => false,
            });
        written.then_some(known)
    }

    /// The download `pieces` name, if it is one: a written URL, or an egg variable alone.
    fn download(
        &self,
        pieces: &[Piece],
        line: usize,
        tested: &BTreeSet<String>,
    ) -> Option<Download> {
        let written = match pieces.first()? {
            Piece::Text(t) => is_url(t),
            // An egg variable alone is a URL the admin gives, unless its default says it is
            // something else (a file name an option took).
            Piece::Var(name) => {
                pieces.len() == 1
                    && self
                        .egg
                        .get(name.as_str())
                        .is_some_and(|d| d.is_empty() || is_url(d))
            }
            Piece::Output => false,
        };
        if !written {
            return None;
        }
        let mut url = String::new();
        let mut variables: Vec<String> = Vec::new();
        let mut defaults = Some(String::new());
        for p in pieces {
            match p {
                Piece::Text(t) => {
                    url.push_str(t);
                    if let Some(d) = &mut defaults {
                        d.push_str(t);
                    }
                }
                Piece::Var(name) => {
                    url.push_str(&format!("${{{name}}}"));
                    if !variables.contains(name) {
                        variables.push(name.clone());
                    }
                    let default = self
                        .egg
                        .get(name.as_str())
                        .filter(|d| !d.is_empty() && !d.contains('$') && !d.contains("{{"))
                        .filter(|_| !self.assigned.contains_key(name) && !tested.contains(name));
                    match (default, &mut defaults) {
                        (Some(v), Some(d)) => d.push_str(v),
                        _ => defaults = None,
                    }
                }
                Piece::Output => {
                    url.push_str("$(…)");
                    defaults = None;
                }
            }
        }
        let fixed = variables.is_empty() && !url.contains("$(…)");
        Some(Download {
            kind: if fixed {
                DownloadKind::Fixed
            } else {
                DownloadKind::Variable
            },
            with_defaults: defaults.filter(|d| !fixed && is_url(d)),
            url,
            variables,
            line,
        })
    }
}

/// `NAME` and the value word of `NAME=value` (also `NAME+=value`).
fn assignment(word: &str) -> Option<(&str, &str)> {
    let eq = word.find('=')?;
    let name = word[..eq].trim_end_matches('+');
    let ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| (name, &word[eq + 1..]))
}

/// Whether `text` starts a URL (a scheme eggs fetch with).
fn is_url(text: &str) -> bool {
    ["http://", "https://", "git://", "ftp://", "svn://"]
        .iter()
        .any(|s| text.len() > s.len() && text[..s.len()].eq_ignore_ascii_case(s))
}

/// Neighbouring text pieces joined.
fn merge_text(pieces: &[Piece]) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for p in pieces {
        match (out.last_mut(), p) {
            (Some(Piece::Text(a)), Piece::Text(b)) => a.push_str(b),
            _ => out.push(p.clone()),
        }
    }
    out
}

/// A word's text without its outer quotes (for `-c '…'`).
fn unquoted(word: &str) -> String {
    let w = word.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = w.strip_prefix(q).and_then(|w| w.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    w.to_owned()
}

/// The command texts of the `$(…)` and backtick substitutions in a word.
fn substitutions(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut single = false;
    while i < chars.len() {
        match chars[i] {
            '\'' => single = !single,
            '$' if !single && chars.get(i + 1) == Some(&'(') => {
                let mut depth = 0;
                let mut end = chars.len();
                for (j, c) in chars.iter().enumerate().skip(i + 1) {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                end = j;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                out.push(chars[i + 2..end].iter().collect());
                i = end;
            }
            '`' if !single => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|c| *c == '`')
                    .map_or(chars.len(), |p| i + 1 + p);
                out.push(chars[i + 1..end].iter().collect());
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The script's functions whose body runs `curl` or `wget` on their first argument
/// (`gh_api() { curl -sL "$1"; }`).
fn fetch_functions(lines: &[Line]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut current: Option<String> = None;
    for line in lines {
        let text = line.text.trim();
        let head = text.strip_prefix("function ").unwrap_or(text);
        if let Some(at) = head.find("()") {
            let name = head[..at].trim();
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                current = Some(name.to_owned());
            }
        }
        if let Some(name) = &current {
            let fetches = FETCHERS
                .iter()
                .any(|f| text.split_whitespace().any(|w| w == *f));
            if fetches && (text.contains("$1") || text.contains("${1}") || text.contains("$@")) {
                out.insert(name.clone());
            }
            if text == "}" || text.ends_with(" }") || text.ends_with(";}") {
                current = None;
            }
        }
    }
    out
}

/// The variables a line reads before the line `first_assigned` names for them.
fn read_before_assigned(
    lines: &[Line],
    first_assigned: &BTreeMap<String, usize>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in lines {
        for piece in shell::pieces(&line.text) {
            if let Piece::Var(name) = piece
                && first_assigned
                    .get(&name)
                    .is_some_and(|at| line.number < *at)
            {
                out.insert(name);
            }
        }
    }
    out
}

/// Whether `word` is a `${NAME:+…}` (or `${NAME+…}`) expansion: its text when NAME is set,
/// else nothing. Scripts write optional options so (`${BRANCH:+--branch "$BRANCH"}`), never the
/// address itself.
fn alternate_value(word: &str) -> bool {
    let Some(inner) = word.strip_prefix("${") else {
        return false;
    };
    let rest = inner.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    rest.len() < inner.len() && (rest.starts_with(":+") || rest.starts_with('+'))
}

/// Variables the script tests (`[ "$V" == … ]`, `[[ … ]]`, `test`, `case $V in`): their value
/// decides what the script does, so a default is no safe stand-in for them.
fn tested_variables(lines: &[Line]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in lines {
        let t = &line.text;
        if !(t.contains("[ ") || t.contains("[[") || t.contains("test ") || t.contains("case ")) {
            continue;
        }
        for piece in shell::pieces(t) {
            if let Piece::Var(name) = piece {
                out.insert(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(script: &str, vars: &[(&str, &str)]) -> Vec<(String, DownloadKind, Option<String>)> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        script_downloads(script, &vars)
            .into_iter()
            .map(|d| (d.url, d.kind, d.with_defaults))
            .collect()
    }

    #[test]
    fn optional_options_in_an_alternate_value_are_no_url() {
        // `${VAR:+word}` is `word` when VAR is set, else nothing: here the options
        // `--branch "$BRANCH"`, never the repository (the demo's Node.js egg showed `${BRANCH}`
        // as a download).
        let script = r#"
if [ -n "${GIT_ADDRESS}" ]; then
    git clone --depth 1 ${BRANCH:+--branch "${BRANCH}"} "${GIT_ADDRESS}" . || exit 1
fi
"#;
        let got = urls(script, &[("BRANCH", ""), ("GIT_ADDRESS", "")]);
        assert_eq!(
            got,
            [("${GIT_ADDRESS}".to_owned(), DownloadKind::Variable, None)]
        );
    }

    #[test]
    fn fixed_urls_with_script_constants_and_not_what_is_only_said() {
        let script = r#"
BASE="https://example.org/files"
# curl -o x https://example.org/commented
echo "running curl -sL https://example.org/echoed"
curl -sSL -o a.tgz ${BASE}/a.tgz
wget -qO - "$BASE/b.tar" | tar x
runuser -l container -c 'curl https://example.org/c > f'
git clone --depth 1 https://github.com/o/r.git ./dir
X=$(curl -s https://api.example.org/v1 | jq -r .url)
curl -o y "$X"
cat <<EOF > f.xml
<a href="https://example.org/in-a-here-document"/>
EOF
"#;
        let got: Vec<String> = urls(script, &[]).into_iter().map(|u| u.0).collect();
        assert_eq!(
            got,
            [
                "https://example.org/files/a.tgz",
                "https://example.org/files/b.tar",
                "https://example.org/c",
                "https://github.com/o/r.git",
                "https://api.example.org/v1",
            ]
        );
    }

    #[test]
    fn variables_are_named_and_untouched_defaults_make_a_url_fixed() {
        let script = r#"
if [ "${VERSION}" == "latest" ]; then echo; fi
curl -o s.jar https://h.example/${PROJECT}/${VERSION}/s.jar
curl -o r.json "https://api.github.com/repos/${REPO}/releases/latest"
curl -o ${SERVER_JARFILE} ${CONFIG_URL}
curl ${SERVER_JARFILE}
"#;
        let vars = [
            ("PROJECT", "paper"),
            ("VERSION", "latest"),
            ("REPO", "o/r"),
            ("CONFIG_URL", "https://h.example/c.zip"),
            ("SERVER_JARFILE", "server.jar"),
        ];
        let got = urls(script, &vars);
        assert_eq!(got.len(), 3, "{got:?}: `${{SERVER_JARFILE}}` names a file");
        assert_eq!(got[0].1, DownloadKind::Variable);
        assert_eq!(
            got[0].2, None,
            "VERSION is tested: its default is no stand-in"
        );
        assert_eq!(
            got[1].2.as_deref(),
            Some("https://api.github.com/repos/o/r/releases/latest")
        );
        assert_eq!(got[2].0, "${CONFIG_URL}");
        assert_eq!(got[2].2.as_deref(), Some("https://h.example/c.zip"));
    }

    #[test]
    fn a_variable_given_two_written_values_gives_two_urls_and_wrappers_fetch() {
        let script = r#"
if [ "$V" == "a" ]; then CH="4"; else CH="stable"; fi
curl -sSL https://u.example/api?channel="$CH"
gh_api() {
    curl -sL "$1"
}
R="o/r"
J="$(gh_api "https://api.github.com/repos/${R}/releases" | jq '.[0]')"
"#;
        let got: Vec<String> = urls(script, &[("V", "a")])
            .into_iter()
            .map(|u| u.0)
            .collect();
        assert_eq!(
            got,
            [
                "https://u.example/api?channel=4",
                "https://u.example/api?channel=stable",
                "https://api.github.com/repos/o/r/releases",
            ]
        );
    }
}
