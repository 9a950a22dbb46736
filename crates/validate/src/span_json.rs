//! The JSON half of the span mapper: a scanner over text that serde_json has already accepted,
//! walking only down the wanted pointers and skipping every other value. It works on bytes
//! (every JSON token boundary is ASCII) and converts the byte ranges it finds to lines and
//! columns in one pass at the end.

use std::collections::HashMap;

use crate::span::{Located, Wanted, push_token, spans_of_ranges};

pub(crate) fn locate(text: &str, wanted: &Wanted) -> HashMap<String, Located> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        found: Vec::new(),
    };
    let mut pointer = String::new();
    scanner.skip_ws();
    scanner.value(&mut pointer, None, wanted);
    let ranges: Vec<(usize, usize)> = scanner
        .found
        .iter()
        .flat_map(|(_, key, value)| key.iter().copied().chain([*value]))
        .collect();
    let mut spans = spans_of_ranges(text, &ranges).into_iter();
    let mut out = HashMap::new();
    for (pointer, key, _) in scanner.found {
        let key = key.and_then(|_| spans.next());
        if let Some(value) = spans.next() {
            // A duplicate key appears twice; the last one is the value the parse kept.
            out.insert(pointer, Located { key, value });
        }
    }
    out
}

type Range = (usize, usize);

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    found: Vec<(String, Option<Range>, Range)>,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// One value at `pos`; records it when `pointer` is a target and descends when it is a
    /// prefix of one. Leaves `pos` just after the value.
    fn value(&mut self, pointer: &mut String, key: Option<Range>, wanted: &Wanted) {
        let start = self.pos;
        let descend = wanted.descend(pointer);
        match self.peek() {
            Some(b'{') if descend => self.object(pointer, wanted),
            Some(b'[') if descend => self.array(pointer, wanted),
            Some(b'{' | b'[') => self.skip_container(),
            Some(b'"') => self.skip_string(),
            _ => self.skip_scalar(),
        }
        if wanted.is_target(pointer) {
            self.found.push((pointer.clone(), key, (start, self.pos)));
        }
    }

    fn object(&mut self, pointer: &mut String, wanted: &Wanted) {
        self.pos += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'"') => {}
                Some(b'}') | None => {
                    self.pos += 1;
                    return;
                }
                Some(_) => {
                    self.pos += 1;
                    continue;
                }
            }
            let key_start = self.pos;
            self.skip_string();
            let key_range = (key_start, self.pos);
            let raw = &self.text[key_start..self.pos];
            let key = if raw.contains('\\') {
                serde_json::from_str::<String>(raw).unwrap_or_default()
            } else {
                raw[1..raw.len() - 1].to_owned()
            };
            self.skip_ws();
            self.pos += 1; // the colon
            self.skip_ws();
            let len = pointer.len();
            push_token(pointer, &key);
            self.value(pointer, Some(key_range), wanted);
            pointer.truncate(len);
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
    }

    fn array(&mut self, pointer: &mut String, wanted: &Wanted) {
        self.pos += 1;
        let mut index = 0usize;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') | None => {
                    self.pos += 1;
                    return;
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                Some(_) => {}
            }
            let len = pointer.len();
            push_token(pointer, &index.to_string());
            self.value(pointer, None, wanted);
            pointer.truncate(len);
            index += 1;
        }
    }

    fn skip_string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos += 1,
                b'"' => return,
                _ => {}
            }
        }
    }

    fn skip_scalar(&mut self) {
        while self
            .peek()
            .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    /// Skips a whole object or array without recursion (its nesting is bounded by the parse,
    /// but a loop is as simple).
    fn skip_container(&mut self) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    self.skip_string();
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::span::{Span, locate};
    use eggcat_egg::SyntaxKind;

    fn span(l: u32, c: u32, el: u32, ec: u32) -> Span {
        Span {
            line: l,
            column: c,
            end_line: el,
            end_column: ec,
        }
    }

    #[test]
    fn finds_keys_values_and_array_items() {
        let text = "{\n  \"a\": {\"b\": [1, \"x\"]},\n  \"c~/\": true, \"é\": \"z\"\n}\n";
        let found = locate(
            text,
            SyntaxKind::Json,
            &["/a/b/1", "/c~0~1", "/é", "", "/zz"],
        );
        assert_eq!(found["/a/b/1"].key, None);
        assert_eq!(found["/a/b/1"].value, span(2, 18, 2, 21));
        assert_eq!(found["/c~0~1"].key, Some(span(3, 3, 3, 8)));
        assert_eq!(found["/c~0~1"].value, span(3, 10, 3, 14));
        assert_eq!(found["/é"].value, span(3, 21, 3, 24));
        assert_eq!(found[""].value, span(1, 1, 4, 2));
        assert!(!found.contains_key("/zz"));
    }

    #[test]
    fn escaped_keys_and_strings_with_brackets_are_skipped_correctly() {
        let text = r#"{"s": "}]\"{", "k\u0041": [{"x": "]"}], "t": 1}"#;
        let found = locate(text, SyntaxKind::Json, &["/kA/0/x", "/t"]);
        assert_eq!(found["/kA/0/x"].value, span(1, 34, 1, 37));
        assert_eq!(found["/t"].value, span(1, 46, 1, 47));
    }

    #[test]
    fn duplicate_keys_point_at_the_last_occurrence() {
        let found = locate(r#"{"a": 1, "a": 2}"#, SyntaxKind::Json, &["/a"]);
        assert_eq!(found["/a"].value, span(1, 15, 1, 16));
    }
}
