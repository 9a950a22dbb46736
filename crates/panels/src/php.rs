//! The few PHP behaviours the panels' import and export depend on, reproduced exactly:
//! `json_encode` (pretty, escaped slashes and `\uXXXX`), `json_decode`, PHP's array model (a map
//! whose keys are 0..n-1 is a list; `{}` and `[]` are one empty array), `empty()` and `wordwrap`.

use serde_json::{Map, Value};

/// `json_decode($text, true)`: the value, or `None` where PHP reports an error. (PHP and
/// serde_json accept the same grammar; PHP's depth limit of 512 is above any egg.)
pub fn json_decode(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// A value as PHP holds it after `json_decode(..., true)` or `Yaml::parse`: every map is an
/// array, so a map with the keys "0".."n-1" in order, and an empty map, become lists.
pub fn normalize(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            let sequential = map.keys().enumerate().all(|(i, k)| *k == i.to_string());
            if sequential {
                Value::Array(map.values().map(normalize).collect())
            } else {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
            }
        }
        other => other.clone(),
    }
}

/// PHP's `empty()`: null, false, 0, 0.0, "", "0" and the empty array.
pub fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty() || s == "0",
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// `json_encode($value, JSON_PRETTY_PRINT)` with objects kept as objects (the value comes from
/// `json_decode` without `assoc`): four-space indent, `/` escaped as `\/`, non-ASCII as
/// `\uXXXX`.
pub fn json_encode_pretty(v: &Value) -> String {
    let mut out = String::new();
    write_pretty(&mut out, v, 0);
    out
}

/// `json_encode($value)` with PHP's default flags, of a value in PHP's array model (see
/// [`normalize`]): compact, `/` escaped as `\/`, non-ASCII as `\uXXXX`, as the update check
/// hashes it. A map is written as an object, a list as a list, an empty one as `[]`.
pub fn json_encode(v: &Value) -> String {
    let mut out = String::new();
    write_compact(&mut out, v);
    out
}

fn write_compact(out: &mut String, v: &Value) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(out, item);
            }
            out.push(']');
        }
        Value::Object(map) if map.is_empty() => out.push_str("[]"),
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_compact(out, item);
            }
            out.push('}');
        }
        Value::String(s) => write_string(out, s),
        other => out.push_str(&other.to_string()),
    }
}

fn write_pretty(out: &mut String, v: &Value, depth: usize) {
    let pad = |out: &mut String, d: usize| out.extend(std::iter::repeat_n("    ", d));
    match v {
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, depth + 1);
                write_pretty(out, item, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (k, item)) in map.iter().enumerate() {
                pad(out, depth + 1);
                write_string(out, k);
                out.push_str(": ");
                write_pretty(out, item, depth + 1);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push('}');
        }
        Value::String(s) => write_string(out, s),
        other => out.push_str(&other.to_string()),
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// PHP's `wordwrap($text, $width, "\n")` (no cut): a space where the line has reached `width`
/// bytes becomes a line break; existing line breaks start a new line.
pub fn wordwrap(text: &str, width: usize) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let (mut last_start, mut last_space) = (0usize, 0usize);
    for current in 0..bytes.len() {
        if bytes[current] == b'\n' {
            last_start = current + 1;
            last_space = current + 1;
        } else if bytes[current] == b' ' {
            if current - last_start >= width {
                bytes[current] = b'\n';
                last_start = current + 1;
            }
            last_space = current;
        } else if current - last_start >= width && last_start != last_space {
            bytes[last_space] = b'\n';
            last_start = last_space + 1;
        }
    }
    // Only ASCII spaces were replaced by ASCII newlines: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// A map from pairs, in order.
pub fn map(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<Map<String, Value>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pretty_like_php() {
        let v = json_decode(r#"{"a/b": {"x": [], "y": {}}, "é": "\u0001"}"#).unwrap();
        assert_eq!(
            json_encode_pretty(&v),
            "{\n    \"a\\/b\": {\n        \"x\": [],\n        \"y\": {}\n    },\n    \"\\u00e9\": \"\\u0001\"\n}"
        );
        assert_eq!(json_encode_pretty(&json!("😀")), "\"\\ud83d\\ude00\"");
    }

    #[test]
    fn php_arrays() {
        assert_eq!(normalize(&json!({"0": "a", "1": "b"})), json!(["a", "b"]));
        assert_eq!(normalize(&json!({})), json!([]));
        assert_eq!(normalize(&json!({"1": "a"})), json!({"1": "a"}));
        assert!(is_empty(&json!("0")) && is_empty(&json!(0)) && !is_empty(&json!(" ")));
    }

    #[test]
    fn wordwrap_like_php() {
        // As PHP gives them (php -r "echo wordwrap(...)").
        assert_eq!(wordwrap("aaa bbb ccc ddd", 7), "aaa bbb\nccc ddd");
        assert_eq!(wordwrap("aaaaaaaaaa bb", 4), "aaaaaaaaaa\nbb");
        assert_eq!(wordwrap("ab\ncd ef", 3), "ab\ncd\nef");
    }
}
