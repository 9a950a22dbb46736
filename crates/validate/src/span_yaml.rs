//! The YAML half of the span mapper: the event stream of granit-parser (the parser serde-saphyr
//! is built on, so it reads the text the same way) with the markers of each scalar, sequence and
//! mapping. Walks only down the wanted pointers; skips every other node by counting depth.

use std::collections::HashMap;

use granit_parser::{Event, Marker, Parser, Span as YamlSpan};

use crate::span::{Located, Span, Wanted, push_token};

pub(crate) fn locate(text: &str, wanted: &Wanted) -> HashMap<String, Located> {
    let mut walker = Walker {
        // Keys as long as the egg parser reads them.
        parser: Parser::new_from_str_with_options(
            text,
            granit_parser::options! { simple_key_max_lookahead: eggcat_egg::MAX_YAML_KEY_CHARS },
        ),
        found: HashMap::new(),
        lines: LfLines::for_yaml(text),
    };
    // StreamStart, DocumentStart, then the root node.
    while let Some((event, span)) = walker.next() {
        if event.is_node() || matches!(event, Event::Alias(_)) {
            let mut pointer = String::new();
            walker.node(event, span, &mut pointer, None, wanted);
            break;
        }
    }
    walker.found
}

struct Walker<'a> {
    parser: Parser<'a, granit_parser::StrInput<'a>>,
    found: HashMap<String, Located>,
    lines: Option<LfLines>,
}

impl<'a> Walker<'a> {
    fn next(&mut self) -> Option<(Event<'a>, YamlSpan)> {
        self.parser.next_event().and_then(Result::ok)
    }

    /// One node whose first event is `event`; consumes it whole.
    fn node(
        &mut self,
        event: Event<'a>,
        span: YamlSpan,
        pointer: &mut String,
        key: Option<Span>,
        wanted: &Wanted,
    ) {
        let start = span.start;
        let end = match event {
            Event::MappingStart(..) if wanted.descend(pointer) => self.mapping(pointer, wanted),
            Event::SequenceStart(..) if wanted.descend(pointer) => self.sequence(pointer, wanted),
            Event::MappingStart(..) | Event::SequenceStart(..) => self.skip(),
            _ => span.end,
        };
        if wanted.is_target(pointer) {
            self.found.insert(
                pointer.clone(),
                Located {
                    key,
                    value: self.to_span(start, end),
                },
            );
        }
    }

    /// The members of a mapping, up to and including its end; returns the end's marker.
    fn mapping(&mut self, pointer: &mut String, wanted: &Wanted) -> Marker {
        loop {
            let Some((event, span)) = self.next() else {
                return Marker::default();
            };
            let key = match event {
                Event::MappingEnd => return span.end,
                Event::Scalar(ref value, ..) => value.to_string(),
                // A complex key cannot name a JSON member; skip it and its value.
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    self.skip();
                    String::from("\u{0}")
                }
                _ => String::from("\u{0}"),
            };
            let Some((value, value_span)) = self.next() else {
                return Marker::default();
            };
            let len = pointer.len();
            push_token(pointer, &key);
            self.node(
                value,
                value_span,
                pointer,
                Some(self.to_span(span.start, span.end)),
                wanted,
            );
            pointer.truncate(len);
        }
    }

    fn sequence(&mut self, pointer: &mut String, wanted: &Wanted) -> Marker {
        let mut index = 0usize;
        loop {
            let Some((event, span)) = self.next() else {
                return Marker::default();
            };
            if matches!(event, Event::SequenceEnd) {
                return span.end;
            }
            let len = pointer.len();
            push_token(pointer, &index.to_string());
            self.node(event, span, pointer, None, wanted);
            pointer.truncate(len);
            index += 1;
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

impl Walker<'_> {
    /// granit's markers (line 1-based, column 0-based in characters) as a span, its lines
    /// counted at `\n` (see [`LfLines`]).
    fn to_span(&self, start: Marker, end: Marker) -> Span {
        let at = |m: Marker| match &self.lines {
            Some(lines) => lines.position(m.index()),
            None => (m.line(), m.col()),
        };
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let (line, col) = at(start);
        let (end_line, end_col) = if end.line() == 0 {
            (line, col)
        } else {
            at(end)
        };
        Span {
            line: clamp(line),
            column: clamp(col).saturating_add(1),
            end_line: clamp(end_line),
            end_column: clamp(end_col).saturating_add(1),
        }
    }
}

/// Lines as the rest of eggcat counts them, at `\n` only (the excerpt under a finding, the line
/// an annotation names, an egg's script), where YAML also breaks a line at a lone `\r`: after
/// one, every position YAML gives would be a line late. Made only for a text with a lone `\r`;
/// in any other (`\n` or `\r\n` line ends) YAML's lines are these.
pub(crate) struct LfLines {
    /// The character index where each line starts.
    starts: Vec<usize>,
}

impl LfLines {
    pub(crate) fn for_yaml(text: &str) -> Option<LfLines> {
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
    pub(crate) fn position(&self, index: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= index).max(1);
        (line, index - self.starts[line - 1])
    }

    /// The character index of a position YAML names: line 1-based, counting `\r\n`, a lone
    /// `\r` and `\n` each as one break; column 0-based in characters.
    pub(crate) fn yaml_index(text: &str, line: usize, column: usize) -> usize {
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
    use crate::span::{Span, locate};
    use eggcat_egg::SyntaxKind;

    use super::LfLines;

    fn span(l: u32, c: u32, el: u32, ec: u32) -> Span {
        Span {
            line: l,
            column: c,
            end_line: el,
            end_column: ec,
        }
    }

    #[test]
    fn finds_keys_values_and_items() {
        let text = "a:\n  b: [1, 'x']\n  é: zz\nlist:\n  - one\n  - two\n";
        let found = locate(
            text,
            SyntaxKind::Yaml,
            &["/a/b/1", "/a/é", "/list/1", "/nope"],
        );
        assert_eq!(found["/a/b/1"].value, span(2, 10, 2, 13));
        assert_eq!(found["/a/é"].key, Some(span(3, 3, 3, 4)));
        assert_eq!(found["/a/é"].value, span(3, 6, 3, 8));
        assert_eq!(found["/list/1"].value, span(6, 5, 6, 8));
        assert!(!found.contains_key("/nope"));
    }

    #[test]
    fn block_scalars_start_at_their_content() {
        let text = "scripts:\n  script: |-\n    #!/bin/bash\n    echo\nafter: 1\n";
        let found = locate(text, SyntaxKind::Yaml, &["/scripts/script", "/after"]);
        assert_eq!(found["/scripts/script"].key, Some(span(2, 3, 2, 9)));
        assert_eq!(found["/scripts/script"].value.line, 3);
        assert_eq!(found["/after"].value, span(5, 8, 5, 9));
    }

    #[test]
    fn lines_break_at_newlines_only() {
        assert!(LfLines::for_yaml("a: 1\r\nb: 2\n").is_none());
        let text = "a: 1\rb: 2\r\nc: 3\nd: é\re: 5";
        let lines = LfLines::for_yaml(text).expect("a lone \\r");
        // YAML's line 2 is `b: 2`, its line 4 `d: é`, its line 5 `e: 5`.
        assert_eq!(lines.position(LfLines::yaml_index(text, 2, 0)), (1, 5));
        assert_eq!(lines.position(LfLines::yaml_index(text, 3, 1)), (2, 1));
        assert_eq!(lines.position(LfLines::yaml_index(text, 5, 0)), (3, 5));
        // Past the end: the end.
        assert_eq!(LfLines::yaml_index(text, 9, 0), text.chars().count());
        let found = locate(text, SyntaxKind::Yaml, &["/c", "/d", "/e"]);
        assert_eq!(found["/c"].key, Some(span(2, 1, 2, 2)));
        assert_eq!(found["/d"].value, span(3, 4, 3, 5));
        assert_eq!(found["/e"].key, Some(span(3, 6, 3, 7)));
    }
}
