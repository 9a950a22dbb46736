//! The three ways diagnostics are printed. `human` looks like rustc's (a header with severity
//! and code, an arrow with path:line:column, the source line with the span underlined, a help
//! line); `json` prints one JSON object per line (the [`Diagnostic`] fields plus `path`);
//! `github` prints GitHub Actions workflow commands, which the runner turns into annotations
//! on the pull request.

use std::fmt::Write as _;

use crate::{Diagnostic, Severity};

/// Longest source excerpt shown: a 10 MB line is cut around the span.
const MAX_EXCERPT: usize = 120;

/// rustc-style text for the diagnostics of one file. `source` is the file's text (lossy UTF-8
/// is fine); `color` adds ANSI colours.
pub fn render_human(path: &str, source: &str, diags: &[Diagnostic], color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let mut lines_needed: Vec<u32> = diags.iter().filter_map(|d| d.line).collect();
    lines_needed.sort_unstable();
    lines_needed.dedup();
    let lines = pick_lines(source, &lines_needed);
    let mut out = String::new();
    for d in diags {
        let (word, style) = match d.severity {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
            Severity::Note => ("note", "1;36"),
        };
        let _ = writeln!(
            out,
            "{}{}",
            paint(style, &format!("{word}[{}]", d.code)),
            paint("1", &format!(": {}", d.message))
        );
        let width = d.line.map_or(1, |l| l.to_string().len());
        let pad = " ".repeat(width);
        match (d.line, d.column) {
            (Some(l), Some(c)) => {
                let _ = writeln!(out, "{pad}{} {path}:{l}:{c}", paint("1;34", "-->"));
                if let Some(text) = lines.iter().find(|(n, _)| *n == l).map(|(_, t)| *t) {
                    let end = if d.end_line == Some(l) {
                        d.end_column.unwrap_or(c + 1)
                    } else {
                        u32::MAX
                    };
                    let (excerpt, start, len) = excerpt(text, c as usize, end as usize);
                    let bar = paint("1;34", "|");
                    let _ = writeln!(out, "{pad} {bar}");
                    let _ = writeln!(out, "{} {bar} {excerpt}", paint("1;34", &l.to_string()));
                    let marks = paint(style, &"^".repeat(len.max(1)));
                    let _ = writeln!(out, "{pad} {bar} {}{marks}", " ".repeat(start));
                }
            }
            _ => {
                let _ = writeln!(out, "{pad}{} {path}", paint("1;34", "-->"));
            }
        }
        if let Some(help) = &d.help {
            let _ = writeln!(
                out,
                "{pad} {} {}: {help}",
                paint("1;34", "="),
                paint("1", "help")
            );
        }
        out.push('\n');
    }
    out
}

/// One JSON object per line: `{"path": ..., <the Diagnostic's fields>}`.
pub fn render_json(path: &str, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let mut v = serde_json::to_value(d).expect("a Diagnostic always serializes");
        if let Some(obj) = v.as_object_mut() {
            obj.shift_insert(
                0,
                "path".to_owned(),
                serde_json::Value::String(path.to_owned()),
            );
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

/// GitHub Actions workflow commands: `::error file=P,line=L,col=C,endLine=..,endColumn=..,title=E0xx::message`.
/// Notes become `::notice`. Values are escaped as the runner expects (`%`, CR, LF, and in
/// properties also `:` and `,`).
pub fn render_github(path: &str, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut props = vec![format!("file={}", escape_property(path))];
        if let (Some(l), Some(c)) = (d.line, d.column) {
            props.push(format!("line={l}"));
            props.push(format!("col={c}"));
            if let (Some(el), Some(ec)) = (d.end_line, d.end_column) {
                props.push(format!("endLine={el}"));
                // GitHub's endColumn is inclusive; ours is exclusive.
                props.push(format!("endColumn={}", ec.saturating_sub(1).max(c)));
            }
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("{} {}", d.code, kind))
        ));
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            "::{kind} {}::{}",
            props.join(","),
            escape_data(&message)
        );
    }
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The text of each wanted line (1-based), found in one pass.
fn pick_lines<'a>(source: &'a str, wanted: &[u32]) -> Vec<(u32, &'a str)> {
    let mut out = Vec::with_capacity(wanted.len());
    let mut next = wanted.iter().peekable();
    for (i, line) in source.split('\n').enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if next.peek().is_none() {
            break;
        }
        if next.peek() == Some(&&n) {
            next.next();
            out.push((n, line.trim_end_matches('\r')));
        }
    }
    out
}

/// The part of `line` to show around columns `start..end` (1-based, end exclusive), tabs as
/// spaces: (excerpt, offset of the span in the excerpt, span length), all in characters.
fn excerpt(line: &str, start: usize, end: usize) -> (String, usize, usize) {
    let chars: Vec<char> = line
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let total = chars.len();
    let s = start.saturating_sub(1).min(total);
    let e = end.saturating_sub(1).clamp(s, total);
    let mut from = 0;
    let mut to = total;
    if total > MAX_EXCERPT {
        from = s.saturating_sub(20);
        to = (from + MAX_EXCERPT).min(total);
    }
    let mut text = String::new();
    if from > 0 {
        text.push('…');
    }
    text.extend(&chars[from..to]);
    if to < total {
        text.push('…');
    }
    let offset = s - from + usize::from(from > 0);
    let len = e.min(to).saturating_sub(s).max(1);
    (text, offset, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_span() {
        let line = "x".repeat(1000) + "BAD" + &"y".repeat(1000);
        let (text, offset, len) = excerpt(&line, 1001, 1004);
        assert_eq!(text.chars().count(), MAX_EXCERPT + 2);
        assert_eq!(
            text.chars().skip(offset).take(len).collect::<String>(),
            "BAD"
        );
    }

    #[test]
    fn github_escapes() {
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(escape_data("a\nb"), "a%0Ab");
    }
}
