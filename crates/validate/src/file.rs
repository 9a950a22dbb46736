//! One file from bytes to sorted diagnostics: parse with the catalog's own parser (so a file is
//! refused here exactly when the catalog refuses it), read the format, run the egg checks, then
//! place every finding in the source where that parse found its node.

use eggcat_egg::{ParseError, Parsed, Spans, SyntaxKind, parse_with_spans};
use serde_json::Value;

use crate::checks::check_egg;
use crate::span::{LineIndex, Span, parent};
use crate::vocab::diagnostic::sort;
use crate::vocab::{Code, Diagnostic, Family, Finding, family, kind};

/// At most this many diagnostics per file; past it, one `E009` note says how many were left
/// out. Keeps the catalog's documents and a terminal bounded on hostile files.
pub const MAX_DIAGNOSTICS: usize = 200;

/// Every diagnostic of the file at `path` (its name picks JSON or YAML; any other name is
/// read as JSON when it starts with `{` or `[`, else as YAML), sorted by position.
pub fn check_file(path: &str, bytes: &[u8]) -> Vec<Diagnostic> {
    let syntax = SyntaxKind::from_file_name(path).unwrap_or_else(|| {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => SyntaxKind::Json,
            _ => SyntaxKind::Yaml,
        }
    });
    check_text(bytes, syntax)
}

/// [`check_file`] with the syntax given.
pub fn check_text(bytes: &[u8], syntax: SyntaxKind) -> Vec<Diagnostic> {
    match parse_with_spans(bytes, syntax) {
        Ok((parsed, spans)) => check_parsed(bytes, syntax, &parsed, &spans),
        Err(e) => {
            let f = parse_finding(bytes, &e);
            let byte_columns = matches!(e, ParseError::Json(_));
            let span = f.at.map(|(l, c)| point_in(bytes, l, c, byte_columns));
            vec![place(f, span)]
        }
    }
}

/// [`check_text`] of `bytes` that the caller has parsed already, with
/// [`eggcat_egg::parse_with_spans`] (the catalog, which publishes that parse): the same
/// diagnostics, without a second parse.
pub fn check_parsed(
    bytes: &[u8],
    syntax: SyntaxKind,
    parsed: &Parsed,
    spans: &Spans,
) -> Vec<Diagnostic> {
    let text = std::str::from_utf8(bytes).expect("the parser accepted it as UTF-8");
    let mut findings: Vec<Finding> = parsed
        .warnings
        .iter()
        .map(|w| duplicate_json_key(w))
        .collect();
    findings.extend(check_document(&parsed.value, bytes.len(), syntax));
    // Past the cap, keep the most severe findings (in the order the checks found them) and
    // place only those: a hostile egg with 100 000 bad variables then costs one parse and one
    // skim of the text, not 100 000 lookups.
    let mut left_out = 0;
    if findings.len() > MAX_DIAGNOSTICS {
        findings.sort_by_key(|f| f.code.severity());
        left_out = findings.len() - MAX_DIAGNOSTICS;
        findings.truncate(MAX_DIAGNOSTICS);
    }
    let mut diags = place_all(text, spans, findings);
    if left_out > 0 {
        diags.push(place(
            Finding::new(
                Code::TooManyDiagnostics,
                "",
                format!("{left_out} more diagnostics left out; fix these first"),
            ),
            None,
        ));
    }
    diags
}

/// Every finding placed in `text` (the JSON or YAML source it was found in, whose nodes are at
/// `spans`), sorted by position.
pub(crate) fn place_all(text: &str, spans: &Spans, findings: Vec<Finding>) -> Vec<Diagnostic> {
    let pointers: Vec<&str> = findings
        .iter()
        .filter(|f| f.at.is_none())
        .flat_map(|f| ancestors(&f.pointer))
        .collect();
    let found = spans.locate(text, &pointers);
    let lines = findings
        .iter()
        .any(|f| f.needle.is_some())
        .then(|| LineIndex::new(text));
    let mut diags: Vec<Diagnostic> = findings
        .into_iter()
        .map(|f| {
            let exact = found
                .get(f.pointer.as_str())
                .filter(|_| !f.on_key)
                .map(|l| l.value);
            if let (Some(needle), Some(span), Some(lines)) = (&f.needle, exact, &lines)
                && let Some(narrow) = lines.find_in(text, span, needle)
            {
                return place(f, Some(narrow));
            }
            let span = f.at.map(|(l, c)| point(l, c)).or_else(|| {
                ancestors(&f.pointer).into_iter().find_map(|p| {
                    let at = found.get(p)?;
                    Some(if p == f.pointer && !f.on_key {
                        at.value
                    } else if p == f.pointer || at.key.is_some() {
                        at.key.unwrap_or(at.value)
                    } else {
                        point(at.value.line, at.value.column)
                    })
                })
            });
            place(f, span)
        })
        .collect();
    sort(&mut diags);
    diags
}

/// The checks on a parsed document: what `eggcat_egg::inspect` refuses, then the egg checks.
fn check_document(doc: &Value, size: usize, syntax: SyntaxKind) -> Vec<Finding> {
    let Some(object) = doc.as_object() else {
        return vec![Finding::new(
            Code::NotAnObject,
            "",
            format!("the document is {}, not an object", kind(doc)),
        )];
    };
    let format = match object.get("meta").and_then(|m| m.get("version")) {
        Some(Value::String(f)) => f,
        _ => {
            return vec![
                Finding::new(
                    Code::NoFormatVersion,
                    "/meta/version",
                    "the egg has no format version: `meta.version` is missing or not a string",
                )
                .help("a panel export starts with `\"meta\": {\"version\": \"PTDL_v2\"}`"),
            ];
        }
    };
    let Some(fam) = family(format) else {
        return vec![
            Finding::new(
                Code::UnknownFormatVersion,
                "/meta/version",
                format!("format version `{format}` is not one the panels import"),
            )
            .help("Pterodactyl imports PTDL_v1 and PTDL_v2; Pelican also PLCN_v1 to PLCN_v3"),
        ];
    };
    let mut out = check_egg(object, format, fam, syntax);
    if fam == Family::Ptdl && size > eggcat_egg::panel::PTERODACTYL_MAX_FILE_BYTES {
        out.push(Finding::new(
            Code::OverPterodactylSize,
            "",
            format!(
                "the file is {} KB, over the 1000 KB Pterodactyl accepts for an import",
                size / 1024
            ),
        ));
    }
    out
}

/// The parser's refusal as a finding with the position its message gives.
fn parse_finding(bytes: &[u8], e: &ParseError) -> Finding {
    let mut message = e.to_string();
    let (code, at) = match e {
        ParseError::ByteOrderMark => (Code::ByteOrderMark, Some((1, 1))),
        ParseError::InvalidUtf8 { offset } => {
            let valid = &bytes[..*offset];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&valid[start..]).chars().count() + 1;
            (Code::InvalidUtf8, Some((clamp(line), clamp(column))))
        }
        ParseError::Json(m) | ParseError::Yaml(m) => {
            let code = if m.starts_with("duplicate key") {
                Code::DuplicateYamlKey
            } else if m.starts_with("nesting deeper")
                || m.starts_with("document too large")
                || m.starts_with("recursion limit exceeded")
            {
                Code::TooDeepOrLarge
            } else {
                Code::Syntax
            };
            (code, position_in(m))
        }
    };
    let at = match (e, at) {
        (ParseError::Yaml(_), Some(yaml_at)) => match by_newlines(bytes, yaml_at) {
            Some(at) => {
                for comma in ["", ","] {
                    let said = |(l, c): (u32, u32)| format!("line {l}{comma} column {c}");
                    message = message.replace(&said(yaml_at), &said(at));
                }
                Some(at)
            }
            None => Some(yaml_at),
        },
        _ => at,
    };
    let mut f = Finding::new(code, "", message);
    f.at = at;
    if code == Code::ByteOrderMark {
        f = f.help("save the file as UTF-8 without a byte-order mark");
    }
    f
}

/// A YAML parser's position (line and column 1-based) with lines counted at `\n` only, when the
/// file has a lone `\r` that YAML counts as a line break (see [`eggcat_egg::lf_position`]).
fn by_newlines(bytes: &[u8], (line, column): (u32, u32)) -> Option<(u32, u32)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (line, column) = eggcat_egg::lf_position(text, line as usize, column as usize)?;
    Some((clamp(line), clamp(column)))
}

/// `line L column C` or `line L, column C` in a parser message.
fn position_in(message: &str) -> Option<(u32, u32)> {
    let i = message.rfind("line ")?;
    let rest = &message[i + 5..];
    let digits = |s: &str| {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
    };
    let line: u32 = digits(rest).parse().ok()?;
    let j = rest.find("column ")?;
    let column: u32 = digits(&rest[j + 7..]).parse().ok()?;
    Some((line.max(1), column.max(1)))
}

/// The parser's duplicate-key warning ("duplicate key `a.b[0].c`: ...") as a finding on the key.
fn duplicate_json_key(warning: &str) -> Finding {
    let path = warning.split('`').nth(1).unwrap_or("");
    let mut pointer = String::new();
    for part in path.split('.') {
        let (key, indices) = part
            .split_once('[')
            .map_or((part, ""), |(k, rest)| (k, rest));
        crate::span::push_token(&mut pointer, key);
        for index in indices.split('[').filter(|s| !s.is_empty()) {
            crate::span::push_token(&mut pointer, index.trim_end_matches(']'));
        }
    }
    Finding::new(Code::DuplicateJsonKey, pointer, warning.to_owned()).on_key()
}

/// `pointer`, then its parent, ..., then "".
fn ancestors(pointer: &str) -> Vec<&str> {
    let mut out = vec![pointer];
    let mut p = pointer;
    while let Some(up) = parent(p) {
        out.push(up);
        p = up;
    }
    out
}

fn point(line: u32, column: u32) -> Span {
    Span {
        line,
        column,
        end_line: line,
        end_column: column.saturating_add(1),
    }
}

/// [`point`] at a parser's position, kept inside the file (fuzzing found both): serde_json
/// counts columns in bytes, where diagnostics count characters, and a parser points one past
/// the end of a line or of the file (an empty file, an unexpected end), where the span is made
/// empty instead of covering a character that is not there. A line past the last is the last.
fn point_in(bytes: &[u8], line: u32, column: u32, byte_columns: bool) -> Span {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let index = (line.max(1) as usize - 1).min(lines.len() - 1);
    let text = lines[index];
    let chars = |b: &[u8]| String::from_utf8_lossy(b).chars().count();
    let len = chars(text);
    let column = if byte_columns {
        chars(&text[..(column.max(1) as usize - 1).min(text.len())]) + 1
    } else {
        (column.max(1) as usize).min(len + 1)
    };
    let line = clamp(index + 1);
    Span {
        line,
        column: clamp(column),
        end_line: line,
        end_column: clamp((column + 1).min(len + 1)),
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn place(f: Finding, span: Option<Span>) -> Diagnostic {
    Diagnostic {
        code: f.code.as_str().to_owned(),
        severity: f.code.severity(),
        message: f.message,
        pointer: f.pointer,
        line: span.map(|s| s.line),
        column: span.map(|s| s.column),
        end_line: span.map(|s| s.end_line),
        end_column: span.map(|s| s.end_column),
        help: f.help,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parser_positions_are_read_from_messages() {
        assert_eq!(
            position_in("invalid JSON: expected value at line 3 column 7"),
            Some((3, 7))
        );
        assert_eq!(
            position_in("invalid YAML: duplicate key `c` at line 4, column 3 (the panel)"),
            Some((4, 3))
        );
        assert_eq!(position_in("no position"), None);
    }

    #[test]
    fn duplicate_key_paths_become_pointers() {
        assert_eq!(
            duplicate_json_key("duplicate key `v[0].x`: kept").pointer,
            "/v/0/x"
        );
        assert_eq!(duplicate_json_key("duplicate key `a`: kept").pointer, "/a");
    }
}
