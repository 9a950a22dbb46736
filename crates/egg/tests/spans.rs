//! The places `parse_with_spans` gives are the parse's own: for every node of every document the
//! parse gives (the real corpus's egg files, and hand-made files with what YAML and JSON make
//! hard to place: anchors, aliases and merge keys, flow style, block scalars, duplicate JSON keys,
//! `\u` escapes, CRLF and lone `\r` line ends), the text at its place reads back, through the
//! same parser, as the value the parse gave, and a member's key text as its name. A node with no
//! place is one a YAML alias or merge key copied, never a node the text writes.

use eggcat_egg::{Span, Spans, SyntaxKind, parse, parse_with_spans, push_token};
use serde_json::Value;

/// What [`check_document`] saw.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    /// Nodes whose value text read back as their value.
    read_back: usize,
    /// Block scalars (`|`, `>`), whose place starts at their content: their first line is there.
    block_scalars: usize,
    /// Nodes whose text uses an alias (`*a`): placed, but they read back only with the anchor.
    aliases: usize,
    /// Nodes copied by an alias or a merge key, with no place.
    copied: usize,
}

#[test]
fn every_node_of_the_corpus_reads_back_from_its_place() {
    let Some(dir) = eggcat_testkit::corpus() else {
        return;
    };
    let files = eggcat_testkit::egg_files(&dir);
    let mut tally = Tally::default();
    for path in &files {
        let bytes = std::fs::read(path).expect("readable");
        let syntax = SyntaxKind::from_file_name(&path.to_string_lossy()).expect("chosen by name");
        if parse(&bytes, syntax).is_ok() {
            check_document(&bytes, syntax, &path.display().to_string(), &mut tally);
        }
    }
    // The shared corpus: ten repositories, 621 egg files, 60,000 nodes.
    assert!(tally.files >= 600, "{tally:?}");
    assert!(tally.read_back >= 50_000, "{tally:?}");
}

#[test]
fn hand_made_documents_read_back_from_their_places() {
    let json = [
        // Duplicate keys: the last value is kept, and placed at its own text.
        r#"{"a": {"x": 1, "y": [1, 2]}, "b": 2, "a": {"y": [3]}}"#,
        // Escapes in keys and strings, CRLF line ends, a surrogate pair.
        "{\r\n  \"k\\u00e9\\n\": \"v\\\"}\",\r\n  \"\\ud83d\\ude00\": [true, null, -1.5e3]\r\n}",
        // A key with the pointer's own escapes, an empty object and array, blanks around.
        "  [ {\"a/b~c\": {}} , [] ]  ",
        "{\"é\": \"€\", \"n\": 12345678901234567890, \"f\": 0.1}",
    ];
    let yaml = [
        // An anchor, a merge key, an alias, flow style.
        "base: &b\n  x: 1\n  y: [1, 2]\nuse:\n  <<: *b\n  z: *b\nflow: {a: [1, {b: c}], 'q': \"r\"}\n",
        // CRLF line ends, a literal and a folded block scalar.
        "a: 1\r\nb:\r\n  - x\r\n  - y: |\r\n      text\r\n      more\r\nc: >-\r\n  folded\r\n",
        // Lone `\r` line ends, which YAML breaks lines at and eggcat does not.
        "a: 1\rb:\r  c: é\r\nd: [1,\r 2]\n",
        // Quoted, multi-line and explicit (`? `) keys and scalars, an indentless sequence.
        "k: \"multi\n  line\"\nj: plain\n  continued\n? 'quoted: key'\n: ~\nlist:\n- a\n- b: 2\n",
        "- &a {x: 1}\n- *a\n- ? a\n  : b\n",
    ];
    // A key longer than YAML's 1,024 characters, as Pelican's export writes a long image name
    // (the parser reads it, so the walk over its events must too).
    let long_key = format!("docker_images:\n  {}: x\nafter: 1\n", "k".repeat(2_000));
    let mut tally = Tally::default();
    for text in json {
        check_document(text.as_bytes(), SyntaxKind::Json, text, &mut tally);
    }
    for text in yaml.into_iter().chain([long_key.as_str()]) {
        check_document(text.as_bytes(), SyntaxKind::Yaml, text, &mut tally);
    }
    assert_eq!(tally.files, json.len() + yaml.len() + 1);
    // The literal and the folded scalar; `/use`, `/use/z`, `/1` and the two roots that hold
    // them use an alias; `/use/x` and `/use/y` (two items) come from the merge key, `/use/z/...`
    // (four nodes) and `/1/x` from the aliases.
    assert_eq!(
        (tally.block_scalars, tally.aliases, tally.copied),
        (2, 5, 9),
        "{tally:?}"
    );
}

#[test]
fn duplicate_json_keys_are_placed_at_the_value_the_parse_kept() {
    let text = "{\"a\": 1,\n \"a\": {\"b\": 2}}";
    let (parsed, spans) = parse_with_spans(text.as_bytes(), SyntaxKind::Json).expect("parses");
    assert_eq!(parsed.value["a"]["b"], 2);
    let found = spans.locate(text, &["/a", "/a/b"]);
    assert_eq!(found["/a"].key, Some(span(2, 2, 2, 5)));
    assert_eq!(found["/a"].value, span(2, 7, 2, 15));
    assert_eq!(found["/a/b"].value, span(2, 13, 2, 14));
}

#[test]
fn yaml_positions_count_lines_at_newlines_only() {
    // YAML breaks a line at the lone `\r`; eggcat's excerpts and line numbers do not.
    let text = "a: 1\rb: x\nc: [1, 2]\r\nd: 4\n";
    let (_, spans) = parse_with_spans(text.as_bytes(), SyntaxKind::Yaml).expect("parses");
    let found = spans.locate(text, &["/b", "/c/1", "/d"]);
    assert_eq!(found["/b"].value, span(1, 9, 1, 10));
    assert_eq!(found["/c/1"].value, span(2, 8, 2, 9));
    assert_eq!(found["/d"].key, Some(span(3, 1, 3, 2)));
}

fn span(line: u32, column: u32, end_line: u32, end_column: u32) -> Span {
    Span {
        line,
        column,
        end_line,
        end_column,
    }
}

/// Checks every node of one document `what` the parser accepts.
fn check_document(bytes: &[u8], syntax: SyntaxKind, what: &str, tally: &mut Tally) {
    let (parsed, spans) = parse_with_spans(bytes, syntax)
        .unwrap_or_else(|e| panic!("{what}: the test document does not parse: {e}"));
    let text = std::str::from_utf8(bytes).expect("parsed, so UTF-8");
    let mut nodes = Vec::new();
    nodes_of(&parsed.value, &mut String::new(), None, &mut nodes);
    let pointers: Vec<&str> = nodes.iter().map(|(p, _, _)| p.as_str()).collect();
    let found = spans.locate(text, &pointers);
    for (pointer, name, value) in &nodes {
        let Some(at) = found.get(pointer) else {
            assert_copied(text, &spans, pointer, what);
            tally.copied += 1;
            continue;
        };
        if let (Some(name), Some(key)) = (name, at.key) {
            let written = slice(text, key);
            assert_eq!(
                &read_key(written, syntax),
                name,
                "{what}: the key of `{pointer}` is written `{written}`"
            );
        }
        let written = slice(text, at.value);
        if syntax == SyntaxKind::Yaml && uses_alias(written) {
            tally.aliases += 1;
            continue;
        }
        if syntax == SyntaxKind::Yaml && after_block_indicator(text, at.value) {
            // A block scalar's place starts at its content, after its `|` or `>` line: its
            // first line is there, as written.
            let first = value.as_str().and_then(|s| s.lines().next());
            assert!(
                first.is_some_and(|f| written.starts_with(f)),
                "{what}: `{pointer}` is written `{written}`"
            );
            tally.block_scalars += 1;
            continue;
        }
        let mut from = at.value;
        if syntax == SyntaxKind::Yaml
            && value.is_array()
            && text[..offset(text, from.line, from.column)].ends_with("- ")
        {
            // granit starts a sequence whose `-` are not indented under its key (`list:\n- a`)
            // at its first item's content, after the `- `, as it always has.
            from.column -= 2;
        }
        let written = slice(text, from);
        let read = read_value(written, from.column, syntax);
        assert_eq!(
            read.as_ref(),
            Some(*value),
            "{what}: `{pointer}` is written `{written}`"
        );
        tally.read_back += 1;
    }
    tally.files += 1;
}

/// A node with no place is under a YAML alias (`*a`) or a merge key's (`<<`) copy: its nearest
/// placed ancestor's text writes one.
fn assert_copied(text: &str, spans: &Spans, pointer: &str, what: &str) {
    let mut up = pointer;
    while let Some(i) = up.rfind('/') {
        up = &up[..i];
        if let Some(at) = spans.locate(text, &[up]).get(up) {
            let written = slice(text, at.value);
            assert!(
                written.contains('*') || written.contains("<<"),
                "{what}: `{pointer}` has no place, and `{up}` (`{written}`) copies nothing"
            );
            return;
        }
    }
    panic!("{what}: `{pointer}` and all its ancestors have no place");
}

/// Every node of `value` with its pointer, its member name (`None` for items and the root).
fn nodes_of<'a>(
    value: &'a Value,
    pointer: &mut String,
    name: Option<&'a str>,
    out: &mut Vec<(String, Option<&'a str>, &'a Value)>,
) {
    out.push((pointer.clone(), name, value));
    let len = pointer.len();
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                push_token(pointer, k);
                nodes_of(v, pointer, Some(k), out);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                push_token(pointer, &i.to_string());
                nodes_of(v, pointer, None, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Whether the line before a span's ends with a block scalar's indicator (`|`, `>-`, `|2+`...).
fn after_block_indicator(text: &str, at: Span) -> bool {
    let before = &text[..offset(text, at.line, 1)];
    let line = before.trim_end_matches(['\r', '\n']);
    let line = line.rsplit(['\n', '\r']).next().unwrap_or(line);
    let line = line.split(" #").next().unwrap_or(line).trim_end();
    line.rsplit(' ').next().is_some_and(|t| {
        t.starts_with(['|', '>']) && t.chars().all(|c| "|>+-0123456789".contains(c))
    })
}

/// Whether YAML text has an alias (`*a`) outside quotes, a rough test enough for the test's
/// documents (no `*` in their plain scalars).
fn uses_alias(written: &str) -> bool {
    written.starts_with('*') || written.contains(" *") || written.contains("[*")
}

/// A key as written, read as a name: a JSON string, or a YAML scalar (plain or quoted).
fn read_key(written: &str, syntax: SyntaxKind) -> String {
    let value = match syntax {
        SyntaxKind::Json => serde_json::from_str(written).ok(),
        SyntaxKind::Yaml => parse(format!("- {written}\n").as_bytes(), syntax)
            .ok()
            .map(|p| p.value[0].clone()),
    };
    match value {
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
        None => panic!("the key `{written}` does not read back"),
    }
}

/// A value as written, read back by the same parser: in YAML, a collection with its first line
/// indented as it is in the file (its other lines keep their own), a scalar as a member's value.
fn read_value(written: &str, column: u32, syntax: SyntaxKind) -> Option<Value> {
    let text = match syntax {
        SyntaxKind::Json => written.to_owned(),
        SyntaxKind::Yaml => " ".repeat(column as usize - 1) + written,
    };
    let read = parse(text.as_bytes(), syntax).ok().map(|p| p.value);
    if syntax == SyntaxKind::Yaml && !read.as_ref().is_some_and(|v| v.is_object() || v.is_array()) {
        // A scalar, multi-line ones included, reads back as a member's value.
        let member = parse(format!("k: {written}").as_bytes(), syntax).ok();
        return member.map(|p| p.value["k"].clone());
    }
    read
}

/// The text of a span.
fn slice(text: &str, span: Span) -> &str {
    &text[offset(text, span.line, span.column)..offset(text, span.end_line, span.end_column)]
}

/// The byte offset of a position (lines at `\n`, columns in characters, both from 1).
fn offset(text: &str, line: u32, column: u32) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize - 1)
        .map(str::len)
        .sum();
    let rest = &text[start..];
    start
        + rest
            .char_indices()
            .nth(column as usize - 1)
            .map_or(rest.len(), |(i, _)| i)
}
