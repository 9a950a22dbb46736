//! A small YAML writer for `pelican.yaml`, shaped like Symfony's `Yaml::dump($data, 10, 2,
//! DUMP_MULTI_LINE_LITERAL_BLOCK | DUMP_OBJECT_AS_MAP)`: block maps and sequences indented by two,
//! multi-line text as literal blocks, everything else quoted where a plain scalar could be read
//! as something else. What matters is that Symfony's `Yaml::parse` reads it back to exactly the
//! value written (the tests check that with the real Symfony parser); byte-identity with
//! Symfony's own output is not needed, as Pelican's update check compares parsed values.

use serde_json::Value;

/// `value` as a YAML document (ending in a newline).
pub fn dump(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        scalar => {
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, level: usize) {
    for (k, v) in m {
        indent(out, level);
        out.push_str(&key(k));
        out.push(':');
        write_value(out, v, level);
    }
}

fn write_seq(out: &mut String, items: &[Value], level: usize) {
    for v in items {
        indent(out, level);
        out.push('-');
        write_value(out, v, level);
    }
}

/// After `key:` or `-`: a nested block on the next lines, or a scalar on this line.
fn write_value(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, level + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, level + 2);
        }
        Value::String(s) if literal_ok(s) => {
            out.push_str(if s.ends_with('\n') { " |\n" } else { " |-\n" });
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                if !line.is_empty() {
                    indent(out, level + 2);
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
}

/// Whether `s` can be a literal block that reads back exactly: several lines, no CR or other
/// control characters, no line of only spaces (it would lose them), no leading space on the
/// first line (it would need an indentation indicator), at most one final line break.
fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.ends_with("\n\n")
        && !s.starts_with([' ', '\n'])
        && !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
        && !s.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}'])
        && s.strip_suffix('\n')
            .unwrap_or(s)
            .split('\n')
            .all(|l| l.is_empty() || !l.trim_matches([' ', '\t']).is_empty())
}

fn key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if plain && !is_keyword(k) {
        k.to_owned()
    } else {
        quoted(k)
    }
}

fn inline(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or_default();
            // `{:?}` keeps a `.0` on whole numbers, so Symfony reads a float back.
            let text = format!("{f:?}");
            if text.contains(['.', 'e']) {
                text
            } else {
                format!("{text}.0")
            }
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_string(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{  }".to_owned(),
    }
}

/// A string plain when nothing could read it as another type or as YAML syntax, else quoted.
fn scalar_string(s: &str) -> String {
    let plain = !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !s.ends_with(' ')
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')')
        })
        && !is_keyword(s);
    if plain { s.to_owned() } else { quoted(s) }
}

/// Words some YAML reader takes for null, a boolean or a number.
fn is_keyword(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "nan" | "inf"
    )
}

/// A double-quoted scalar with YAML escapes.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{85}' => out.push_str("\\N"),
            '\u{a0}' => out.push_str("\\_"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if c.is_control() || c == '\u{feff}' => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{n:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes() {
        let v = json!({
            "name": "Paper",
            "n": 25565,
            "f": 1.0,
            "t": "true",
            "e": {},
            "l": [],
            "script": "#!/bin/bash\necho hi\n",
            "vars": [{"a": null, "b": false}],
        });
        assert_eq!(
            dump(&v),
            "name: Paper\n\"n\": 25565\nf: 1.0\nt: \"true\"\ne: {  }\nl: []\nscript: |\n  #!/bin/bash\n  echo hi\nvars:\n  -\n    a: null\n    b: false\n"
        );
    }
}
