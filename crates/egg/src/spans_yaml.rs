//! The YAML half of [`crate::spans`]: the event stream of granit-parser, the parser serde-saphyr
//! reads the text with (the very crate: serde-saphyr's re-export), with the options
//! the faithful parse runs it with ([`crate::syntax::yaml_parser_options`]), recording every node with
//! the markers of its events. A node made by an alias (`*a`) is the alias token, and a merge key
//! (`<<`) is a member like any other: what they copy has no place of its own.
//!
//! Also here: YAML's own line counting, which breaks a line at a lone `\r` where the rest of
//! eggcat does not ([`lf_position`], for the positions in the parser's messages).

use serde_saphyr::granit_parser::{Event, Marker, Parser, Span as YamlSpan, StrInput};

use crate::spans::{Builder, Range, Spans};

/// Deepest nesting the walk descends into; deeper collections are kept whole, as one node
/// (text the parser accepts is never that deep: [`crate::syntax::MAX_YAML_DEPTH`]).
const MAX_DEPTH: usize = 4 * crate::syntax::MAX_YAML_DEPTH;

/// The name given to a member whose key is not a scalar (a collection or an alias), which no
/// JSON member can have.
const NOT_A_NAME: &str = "\u{0}";

pub(crate) fn spans(text: &str) -> Spans {
    let mut walker = Walker {
        parser: Parser::new_from_str_with_options(text, crate::syntax::yaml_parser_options()),
        out: Builder::default(),
    };
    // StreamStart, DocumentStart, then the root node.
    while let Some((event, span)) = walker.next() {
        if event.is_node() || matches!(event, Event::Alias(_)) {
            walker.node(&event, span, None, None, 0);
            break;
        }
    }
    walker.out.finish()
}

struct Walker<'a> {
    parser: Parser<'a, StrInput<'a>>,
    out: Builder,
}

impl<'a> Walker<'a> {
    fn next(&mut self) -> Option<(Event<'a>, YamlSpan)> {
        self.parser.next_event().and_then(Result::ok)
    }

    /// One node whose first event is `event`, the member `name` (its key at `key`) or an item;
    /// consumes it whole.
    fn node(
        &mut self,
        event: &Event<'a>,
        span: YamlSpan,
        name: Option<&str>,
        key: Option<Range>,
        depth: usize,
    ) {
        let at = self.out.open(name, key);
        let end = match event {
            Event::MappingStart(..) if depth < MAX_DEPTH => self.mapping(depth + 1),
            Event::SequenceStart(..) if depth < MAX_DEPTH => self.sequence(depth + 1),
            Event::MappingStart(..) | Event::SequenceStart(..) => self.skip(),
            _ => span.end,
        };
        self.out.close(at, range(span.start, end));
    }

    /// The members of a mapping, up to and including its end; returns the end's marker.
    fn mapping(&mut self, depth: usize) -> Marker {
        loop {
            let Some((event, span)) = self.next() else {
                return Marker::default();
            };
            let name = match event {
                Event::MappingEnd => return span.end,
                Event::Scalar(ref value, ..) => value.to_string(),
                // A complex key cannot name a JSON member; skip it and its value.
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    self.skip();
                    NOT_A_NAME.to_owned()
                }
                _ => NOT_A_NAME.to_owned(),
            };
            let Some((value, value_span)) = self.next() else {
                return Marker::default();
            };
            let key = range(span.start, span.end);
            self.node(&value, value_span, Some(&name), Some(key), depth);
        }
    }

    fn sequence(&mut self, depth: usize) -> Marker {
        loop {
            let Some((event, span)) = self.next() else {
                return Marker::default();
            };
            if matches!(event, Event::SequenceEnd) {
                return span.end;
            }
            self.node(&event, span, None, None, depth);
        }
    }

    /// Skips the rest of a collection whose start event was just read; returns its end.
    fn skip(&mut self) -> Marker {
        let mut depth = 1usize;
        while let Some((event, span)) = self.next() {
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => depth += 1,
                Event::MappingEnd | Event::SequenceEnd => {
                    depth -= 1;
                    if depth == 0 {
                        return span.end;
                    }
                }
                _ => {}
            }
        }
        Marker::default()
    }
}

/// The byte range between two markers; an end the stream never gave (it stopped short) is the
/// start.
fn range(start: Marker, end: Marker) -> Range {
    let start = start.byte_offset().unwrap_or_default();
    let end = match end.byte_offset() {
        Some(end) if end >= start => end,
        _ => start,
    };
    (start, end)
}

/// A position YAML names (line 1-based, counting `\r\n`, a lone `\r` and `\n` each as one break;
/// column 1-based in characters) as the rest of eggcat counts it, lines at `\n` only, or `None`
/// when the text has no lone `\r` and the two countings agree. After a lone `\r`, every position
/// YAML gives would be a line late.
pub fn lf_position(text: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let lines = LfLines::for_yaml(text)?;
    let index = LfLines::yaml_index(text, line, column.saturating_sub(1));
    let (line, column) = lines.position(index);
    Some((line, column + 1))
}

/// Lines counted at `\n` only, for a text with a lone `\r`.
struct LfLines {
    /// The character index where each line starts.
    starts: Vec<usize>,
}

impl LfLines {
    fn for_yaml(text: &str) -> Option<LfLines> {
        let bytes = text.as_bytes();
        let lone_cr = |(i, &b): (usize, &u8)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n');
        if !bytes.iter().enumerate().any(lone_cr) {
            return None;
        }
        let mut starts = vec![0];
        starts.extend(
            text.chars()
                .enumerate()
                .filter(|&(_, c)| c == '\n')
                .map(|(i, _)| i + 1),
        );
        Some(LfLines { starts })
    }

    /// Line (1-based) and column (0-based, in characters) of a character index.
    fn position(&self, index: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= index).max(1);
        (line, index - self.starts[line - 1])
    }

    /// The character index of a position YAML names: line 1-based, counting `\r\n`, a lone
    /// `\r` and `\n` each as one break; column 0-based in characters.
    fn yaml_index(text: &str, line: usize, column: usize) -> usize {
        let mut chars = text.chars().enumerate().peekable();
        let mut at_line = 1;
        while at_line < line {
            let Some((_, c)) = chars.next() else {
                return text.chars().count();
            };
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                continue;
            }
            if c == '\r' || c == '\n' {
                at_line += 1;
            }
        }
        chars
            .peek()
            .map_or_else(|| text.chars().count(), |&(i, _)| i)
            + column
    }
}

#[cfg(test)]
mod tests {
    use crate::SyntaxKind;
    use crate::faithful::spans;
    use crate::spans::span;

    use super::{LfLines, lf_position};

    #[test]
    fn finds_keys_values_and_items() {
        let text = "a:\n  b: [1, 'x']\n  é: zz\nlist:\n  - one\n  - two\n";
        let found =
            spans(text, SyntaxKind::Yaml).locate(text, &["/a/b/1", "/a/é", "/list/1", "/nope"]);
        assert_eq!(found["/a/b/1"].value, span(2, 10, 2, 13));
        assert_eq!(found["/a/é"].key, Some(span(3, 3, 3, 4)));
        assert_eq!(found["/a/é"].value, span(3, 6, 3, 8));
        assert_eq!(found["/list/1"].value, span(6, 5, 6, 8));
        assert!(!found.contains_key("/nope"));
    }

    #[test]
    fn refused_text_gives_what_it_can_and_ends() {
        let deep = "[".repeat(100_000);
        let items = "- ".repeat(10_000);
        for text in [
            "a: [1, 2",
            "a: b: c",
            "- a\nb: c",
            deep.as_str(),
            items.as_str(),
        ] {
            let _ = spans(text, SyntaxKind::Yaml).locate(text, &["", "/0", "/a"]);
        }
        let text = "a: 1\nb: [2, \n";
        let found = spans(text, SyntaxKind::Yaml).locate(text, &["/a", "/b"]);
        assert_eq!(found["/a"].value, span(1, 4, 1, 5));
    }

    #[test]
    fn block_scalars_start_at_their_content() {
        let text = "scripts:\n  script: |-\n    #!/bin/bash\n    echo\nafter: 1\n";
        let found = spans(text, SyntaxKind::Yaml).locate(text, &["/scripts/script", "/after"]);
        assert_eq!(found["/scripts/script"].key, Some(span(2, 3, 2, 9)));
        assert_eq!(found["/scripts/script"].value.line, 3);
        assert_eq!(found["/after"].value, span(5, 8, 5, 9));
    }

    #[test]
    fn lines_break_at_newlines_only() {
        assert!(LfLines::for_yaml("a: 1\r\nb: 2\n").is_none());
        assert_eq!(lf_position("a: 1\r\nb: 2\n", 2, 1), None);
        let text = "a: 1\rb: 2\r\nc: 3\nd: é\re: 5";
        let lines = LfLines::for_yaml(text).expect("a lone \\r");
        // YAML's line 2 is `b: 2`, its line 4 `d: é`, its line 5 `e: 5`.
        assert_eq!(lines.position(LfLines::yaml_index(text, 2, 0)), (1, 5));
        assert_eq!(lines.position(LfLines::yaml_index(text, 3, 1)), (2, 1));
        assert_eq!(lines.position(LfLines::yaml_index(text, 5, 0)), (3, 5));
        assert_eq!(lf_position(text, 5, 1), Some((3, 6)));
        // Past the end: the end.
        assert_eq!(LfLines::yaml_index(text, 9, 0), text.chars().count());
        let found = spans(text, SyntaxKind::Yaml).locate(text, &["/c", "/d", "/e"]);
        assert_eq!(found["/c"].key, Some(span(2, 1, 2, 2)));
        assert_eq!(found["/d"].value, span(3, 4, 3, 5));
        assert_eq!(found["/e"].key, Some(span(3, 6, 3, 7)));
    }
}
