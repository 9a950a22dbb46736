//! Faithful parsing of JSON and YAML (1.2 core schema) into a `serde_json::Value` whose object
//! keys keep their document order.
//!
//! Both formats go through one serde visitor, [`Faithful`], so they share one definition of
//! "faithful": non-finite floats are refused (JSON cannot carry them), every map key must be a
//! string, and duplicate keys are handled the way the panel that imports the egg handles them.
//! The panel reads JSON with PHP's `json_decode`, which keeps the last value at the first key's
//! place: eggcat does the same and reports a warning naming the key. The panel reads YAML with
//! Symfony YAML, which refuses duplicate keys: eggcat refuses them too.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::spans::Spans;
use crate::syntax::{
    MAX_JSON_DEPTH, MAX_YAML_DEPTH, MAX_YAML_KEY_CHARS, MAX_YAML_NODES, SyntaxKind,
};

/// Why a file could not be parsed. The messages are meant for an egg maintainer reading the
/// build report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The file starts with a UTF-8 byte-order mark, which JSON forbids (RFC 8259 section 8.1).
    #[error("file starts with a byte-order mark (U+FEFF); save it as UTF-8 without BOM")]
    ByteOrderMark,
    /// The bytes are not UTF-8.
    #[error("file is not valid UTF-8 (first bad byte at offset {offset})")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The JSON text is malformed, too deep, or has a duplicate key.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// The YAML text is malformed, too deep, an alias bomb, or has a duplicate key.
    #[error("invalid YAML: {0}")]
    Yaml(String),
}

/// A parsed document and what a maintainer should know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The document, object keys in document order.
    pub value: Value,
    /// Problems that did not stop the parse (duplicate JSON keys).
    pub warnings: Vec<String>,
}

/// Parses `bytes` as `syntax` into a JSON value with document key order.
pub fn parse(bytes: &[u8], syntax: SyntaxKind) -> Result<Parsed, ParseError> {
    if bytes.starts_with("\u{feff}".as_bytes()) {
        return Err(ParseError::ByteOrderMark);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    match syntax {
        SyntaxKind::Json => parse_json(text),
        SyntaxKind::Yaml => parse_yaml(text),
    }
}

/// [`parse`], and where each node of the document is in the text ([`Spans`]): what validate
/// places its findings with.
pub fn parse_with_spans(bytes: &[u8], syntax: SyntaxKind) -> Result<(Parsed, Spans), ParseError> {
    let parsed = parse(bytes, syntax)?;
    let text = std::str::from_utf8(bytes).expect("the parser accepted it as UTF-8");
    Ok((parsed, spans(text, syntax)))
}

fn parse_json(text: &str) -> Result<Parsed, ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let duplicates = RefCell::new(Vec::new());
    let seed = Faithful {
        at: &Location::Root,
        duplicates: Some(&duplicates),
    };
    let value = seed
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            let message = e.to_string();
            ParseError::Json(if message.starts_with("recursion limit exceeded") {
                format!(
                    "nesting deeper than {MAX_JSON_DEPTH} levels (line {}, column {})",
                    e.line(),
                    e.column()
                )
            } else {
                message
            })
        })?;
    let warnings = duplicates
        .into_inner()
        .into_iter()
        .map(|key| {
            format!("duplicate key `{key}`: the last value is kept, as the panel does on import")
        })
        .collect();
    Ok(Parsed { value, warnings })
}

fn parse_yaml(text: &str) -> Result<Parsed, ParseError> {
    let options = serde_saphyr::options! {
        // The key lookahead is also `yaml_parser_options`': `spans_yaml.rs` reads the events of
        // the text serde-saphyr accepted with the same limit.
        budget: serde_saphyr::budget! {
            max_depth: MAX_YAML_DEPTH,
            max_nodes: MAX_YAML_NODES,
            max_events: 4 * MAX_YAML_NODES,
            simple_key_max_lookahead: MAX_YAML_KEY_CHARS,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 4 * MAX_YAML_NODES,
        },
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        strict_booleans: true,
        with_snippet: false,
    };
    let value: FaithfulValue = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| ParseError::Yaml(yaml_message(&one_line(&e.to_string()))))?;
    Ok(Parsed {
        value: value.0,
        warnings: Vec::new(),
    })
}

/// The YAML library's message, reworded for an egg maintainer where it speaks to a programmer.
fn yaml_message(message: &str) -> String {
    // The first position only: an alias's message adds `(defined at …) (used at …)`.
    let (what, at) = match message.split_once(" at line ") {
        Some((what, at)) => {
            let first = at.split(" (").next().unwrap_or(at);
            (what, format!(" at line {}", first.trim_end_matches(')')))
        }
        None => (message, String::new()),
    };
    if let Some(key) = what.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        format!("duplicate key `{key}`{at} (the panel refuses duplicate YAML keys)")
    } else if what.starts_with("multiple YAML documents detected") {
        format!("more than one YAML document in the file (the second starts{at})")
    } else if what.starts_with("budget breached: Depth")
        || what.starts_with("recursion limit exceeded")
    {
        format!("nesting deeper than {MAX_YAML_DEPTH} levels{at}")
    } else if let Some(limit) = what.strip_prefix("budget breached: ") {
        let kind = limit
            .split([' ', '{', '('])
            .next()
            .unwrap_or(limit)
            .to_lowercase();
        format!("document too large: over the parser's limit on {kind}{at} (an alias bomb?)")
    } else {
        message.to_owned()
    }
}

/// Error messages go into a one-line report entry.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A `Value` deserialized through [`Faithful`], for APIs that want a `Deserialize` type.
struct FaithfulValue(Value);

impl<'de> serde::Deserialize<'de> for FaithfulValue {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The YAML parser refuses duplicate keys itself; a duplicate reaching the visitor is an
        // error too.
        Faithful {
            at: &Location::Root,
            duplicates: None,
        }
        .deserialize(d)
        .map(FaithfulValue)
    }
}

/// Where a value sits in the document, as a chain of parents (no allocation unless a duplicate
/// key has to be named).
enum Location<'a> {
    Root,
    Key(&'a Location<'a>, &'a str),
    Index(&'a Location<'a>, usize),
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Root => Ok(()),
            Location::Key(Location::Root, key) => f.write_str(key),
            Location::Key(parent, key) => write!(f, "{parent}.{key}"),
            Location::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The seed and visitor that build a [`Value`] faithfully. With `duplicates`, a duplicate key
/// keeps its last value and its location is recorded; without, it is an error.
#[derive(Clone, Copy)]
struct Faithful<'a> {
    at: &'a Location<'a>,
    duplicates: Option<&'a RefCell<Vec<String>>>,
}

impl<'de> DeserializeSeed<'de> for Faithful<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Faithful<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON-compatible value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("number {v} cannot be represented in JSON")))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        loop {
            let at = Location::Index(self.at, items.len());
            let Some(item) = seq.next_element_seed(Faithful { at: &at, ..self })? else {
                break;
            };
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = Location::Key(self.at, &key);
            if object.contains_key(&key) {
                match self.duplicates {
                    Some(found) => found.borrow_mut().push(at.to_string()),
                    None => return Err(de::Error::custom(format_args!("duplicate key `{at}`"))),
                }
            }
            let value = map.next_value_seed(Faithful { at: &at, ..self })?;
            // On a duplicate, `insert` keeps the first key's place and takes the last value.
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Where every node of `text`, a document written in `syntax`, is. Meant for text the faithful
/// parser accepts; on any other it finds what it can, without panicking.
pub fn spans(text: &str, syntax: SyntaxKind) -> Spans {
    match syntax {
        SyntaxKind::Json => crate::spans_json::spans(text),
        SyntaxKind::Yaml => crate::spans_yaml::spans(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<Value, ParseError> {
        parse(text.as_bytes(), SyntaxKind::Json).map(|p| p.value)
    }

    fn yaml(text: &str) -> Result<Value, ParseError> {
        parse(text.as_bytes(), SyntaxKind::Yaml).map(|p| p.value)
    }

    #[test]
    fn keys_keep_document_order() {
        let v = json(r#"{"b":1,"a":{"z":true,"y":null},"c":[1.5,"x"]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":1,"a":{"z":true,"y":null},"c":[1.5,"x"]}"#
        );
        let v = yaml("b: 1\na:\n  z: true\n  y: ~\nc: [1.5, 'x']\n").unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":1,"a":{"z":true,"y":null},"c":[1.5,"x"]}"#
        );
    }

    #[test]
    fn duplicate_json_keys_keep_the_last_value_in_the_first_place_with_a_warning() {
        let parsed = parse(
            br#"{"a":1,"v":[{"x":1,"y":2,"x":null}],"b":2,"a":3}"#,
            SyntaxKind::Json,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&parsed.value).unwrap(),
            r#"{"a":3,"v":[{"x":null,"y":2}],"b":2}"#
        );
        assert_eq!(
            parsed.warnings,
            [
                "duplicate key `v[0].x`: the last value is kept, as the panel does on import",
                "duplicate key `a`: the last value is kept, as the panel does on import",
            ]
        );
    }

    #[test]
    fn duplicate_yaml_keys_are_refused() {
        let e = yaml("a: 1\nb:\n  c: 1\n  c: 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid YAML: duplicate key `c` at line 4, column 3 (the panel refuses duplicate YAML keys)"
        );
    }

    #[test]
    fn yaml_messages_speak_to_maintainers() {
        let e = yaml("a: 1\n---\nb: 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid YAML: more than one YAML document in the file (the second starts at line 3, column 1)"
        );
        let e = yaml(&"- 1\n".repeat(300_000)).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "invalid YAML: document too large: over the parser's limit on nodes at line"
            ),
            "{e}"
        );
    }

    #[test]
    fn yaml_uses_the_core_schema() {
        // YAML 1.1 read `no` as false; in the 1.2 core schema it is a string.
        let v = yaml("a: no\nb: yes\nc: true\nd: 0o17\n").unwrap();
        assert_eq!(v["a"], "no");
        assert_eq!(v["b"], "yes");
        assert_eq!(v["c"], true);
    }

    #[test]
    fn yaml_empty_flow_mapping_is_an_empty_object() {
        // The Pelican panel writes an empty list as `{  }`.
        let v = yaml("tags: {  }\n").unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"tags":{}}"#);
    }

    #[test]
    fn bom_and_invalid_utf8_are_refused() {
        assert_eq!(
            parse(b"\xef\xbb\xbf{}", SyntaxKind::Json),
            Err(ParseError::ByteOrderMark)
        );
        assert_eq!(
            parse(b"{\"a\":\"\xff\"}", SyntaxKind::Json),
            Err(ParseError::InvalidUtf8 { offset: 6 })
        );
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused() {
        let nest = |n: usize| "[".repeat(n) + &"]".repeat(n);
        assert!(json(&nest(MAX_JSON_DEPTH)).is_ok());
        let e = json(&nest(MAX_JSON_DEPTH + 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid JSON: nesting deeper than 127 levels (line 1, column 128)"
        );
        assert!(yaml(&nest(MAX_YAML_DEPTH)).is_ok());
        let e = yaml(&nest(MAX_YAML_DEPTH + 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid YAML: nesting deeper than 64 levels at line 1, column 65"
        );
        // Far past the limit, the refusal comes before the stack runs out, in the same words
        // (a flow sequence under a key reached the deserializer's own recursion limit first).
        assert!(json(&nest(100_000)).is_err());
        for text in [nest(100_000), format!("k: {}", nest(70_000))] {
            let e = yaml(&text).unwrap_err().to_string();
            assert!(
                e.starts_with("invalid YAML: nesting deeper than 64 levels at line "),
                "{e}"
            );
        }
    }

    #[test]
    fn yaml_alias_bomb_is_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let e = yaml(&bomb).unwrap_err();
        assert!(matches!(e, ParseError::Yaml(_)), "{e}");
        // One position, then the hint: the alias's `(defined at …) (used at …)` left out.
        let e = e.to_string();
        let at = e
            .strip_prefix("invalid YAML: document too large: over the parser's limit on ")
            .and_then(|rest| rest.split_once(" at line "))
            .map(|(_, at)| at)
            .unwrap_or_else(|| panic!("{e}"));
        let position = at
            .strip_suffix(" (an alias bomb?)")
            .unwrap_or_else(|| panic!("{e}"));
        let (line, column) = position
            .split_once(", column ")
            .unwrap_or_else(|| panic!("{e}"));
        assert!(
            line.parse::<u32>().is_ok() && column.parse::<u32>().is_ok(),
            "{e}"
        );
    }

    #[test]
    fn a_long_json_number_is_read_back_as_printed() {
        // serde_json's default float parsing is best-effort: without `float_roundtrip` this
        // read 5.555555555555557e59 back from the printed 5.555555555555556e59 (fuzzing).
        let v = json(&"5".repeat(60)).unwrap();
        let printed = serde_json::to_string(&v).unwrap();
        assert_eq!(json(&printed).unwrap(), v);
    }

    #[test]
    fn yaml_over_the_node_budget_is_refused() {
        let items = |n: usize| format!("[{}]", vec!["1"; n].join(","));
        assert!(yaml(&items(MAX_YAML_NODES / 2)).is_ok());
        let e = yaml(&items(MAX_YAML_NODES + 1)).unwrap_err();
        assert!(e.to_string().contains("limit on nodes"), "{e}");
    }

    #[test]
    fn yaml_keys_are_read_up_to_64_kib_as_symfony_reads_them() {
        let key = |n: usize| format!("{}: 1\n", "k".repeat(n));
        let value = yaml(&key(20_000)).unwrap();
        assert_eq!(value["k".repeat(20_000)], 1);
        assert!(yaml(&key(MAX_YAML_KEY_CHARS)).is_ok());
        assert!(yaml(&key(MAX_YAML_KEY_CHARS + 2)).is_err());
    }

    #[test]
    fn trailing_garbage_after_json_is_refused() {
        assert!(json("{} {}").is_err());
    }

    #[test]
    fn syntax_from_extension_ignores_case() {
        assert_eq!(
            SyntaxKind::from_file_name("egg-a.JSON"),
            Some(SyntaxKind::Json)
        );
        assert_eq!(
            SyntaxKind::from_file_name("egg-a.Yml"),
            Some(SyntaxKind::Yaml)
        );
        assert_eq!(
            SyntaxKind::from_file_name("egg-a.yaml"),
            Some(SyntaxKind::Yaml)
        );
        assert_eq!(SyntaxKind::from_file_name("egg-a.txt"), None);
        assert_eq!(SyntaxKind::from_file_name("json"), None);
    }
}
