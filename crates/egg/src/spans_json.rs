//! The JSON half of [`crate::spans`]: a scanner over text that serde_json has accepted, recording
//! every value with its key. It works on bytes (every JSON token boundary is ASCII); the byte
//! ranges become lines and columns only for the nodes a caller asks for.

use crate::spans::{Builder, Range, Spans};

/// Deepest nesting the scanner descends into; deeper containers are kept whole, as one node
/// (text the parser accepts is never that deep: [`crate::syntax::MAX_JSON_DEPTH`]).
const MAX_DEPTH: usize = 2 * crate::syntax::MAX_JSON_DEPTH;

pub(crate) fn spans(text: &str) -> Spans {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        out: Builder::default(),
    };
    scanner.skip_ws();
    scanner.value(None, None, 0);
    scanner.out.finish()
}

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    out: Builder,
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

    /// One value at `pos`, the member `name` (its key at `key`) or an item; leaves `pos` just
    /// after the value.
    fn value(&mut self, name: Option<&str>, key: Option<Range>, depth: usize) {
        let start = self.pos;
        let at = self.out.open(name, key);
        match self.peek() {
            Some(b'{') if depth < MAX_DEPTH => self.object(depth + 1),
            Some(b'[') if depth < MAX_DEPTH => self.array(depth + 1),
            Some(b'{' | b'[') => self.skip_container(),
            Some(b'"') => self.skip_string(),
            _ => self.skip_scalar(),
        }
        self.out.close(at, (start, self.pos.min(self.bytes.len())));
    }

    fn object(&mut self, depth: usize) {
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
            let key_end = self.pos.min(self.bytes.len());
            let raw = &self.text[key_start..key_end];
            let name = if raw.contains('\\') {
                serde_json::from_str::<String>(raw).unwrap_or_default()
            } else {
                raw.get(1..raw.len().saturating_sub(1))
                    .unwrap_or_default()
                    .to_owned()
            };
            self.skip_ws();
            self.pos += 1; // the colon
            self.skip_ws();
            self.value(Some(&name), Some((key_start, key_end)), depth);
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.pos += 1;
            }
        }
    }

    fn array(&mut self, depth: usize) {
        self.pos += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') | None => {
                    self.pos += 1;
                    return;
                }
                // A `}` here (only in text the parser refused) would be an item that never
                // ends: skip it like a stray comma.
                Some(b',' | b'}') => {
                    self.pos += 1;
                    continue;
                }
                Some(_) => {}
            }
            self.value(None, None, depth);
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

    /// Skips a whole object or array without recursion.
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
                    depth = depth.saturating_sub(1);
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
    use crate::SyntaxKind;
    use crate::faithful::spans;
    use crate::spans::span;

    #[test]
    fn finds_keys_values_and_array_items() {
        let text = "{\n  \"a\": {\"b\": [1, \"x\"]},\n  \"c~/\": true, \"é\": \"z\"\n}\n";
        let found =
            spans(text, SyntaxKind::Json).locate(text, &["/a/b/1", "/c~0~1", "/é", "", "/zz"]);
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
        let found = spans(text, SyntaxKind::Json).locate(text, &["/kA/0/x", "/t"]);
        assert_eq!(found["/kA/0/x"].value, span(1, 34, 1, 37));
        assert_eq!(found["/t"].value, span(1, 46, 1, 47));
    }

    // Regression: `[}` made an item that never ended, one node each turn, until memory ran out
    // (`spans` is public; validate only gives it text the parser accepted).
    #[test]
    fn refused_text_gives_what_it_can_and_ends() {
        let deep = "[".repeat(100_000);
        for text in [
            "[}",
            "[1, }, 2]",
            "{\"a\": }",
            "{\"",
            "\"\\",
            "{\"a\\",
            deep.as_str(),
        ] {
            let found = spans(text, SyntaxKind::Json).locate(text, &["", "/0", "/a"]);
            assert!(found.contains_key(""), "{text:.20}");
        }
    }

    #[test]
    fn duplicate_keys_point_at_the_last_occurrence() {
        let text = r#"{"a": 1, "a": 2}"#;
        let found = spans(text, SyntaxKind::Json).locate(text, &["/a"]);
        assert_eq!(found["/a"].value, span(1, 15, 1, 16));
    }
}
