//! Positions: where each finding goes in the source. The places of the egg's nodes come from
//! `eggcat_egg`, which finds them with its parse (`eggcat_egg::parse_with_spans`); this module
//! adds the pointer helpers the checks build pointers with, and the search for a needle (one
//! rule of a rules string, a placeholder) inside a value's span.

use std::collections::HashMap;

use eggcat_egg::SyntaxKind;
pub(crate) use eggcat_egg::push_token;
pub use eggcat_egg::{Located, Span};

/// Finds every pointer of `pointers` that exists in `text`, a document written in `syntax`.
/// A pointer absent from the text (a missing key, or a node built by a YAML alias or merge
/// key) is absent from the map: the caller falls back to its nearest ancestor. For a caller
/// that has only the text; a file being checked is placed with the spans its parse gave.
pub fn locate(text: &str, syntax: SyntaxKind, pointers: &[&str]) -> HashMap<String, Located> {
    eggcat_egg::spans(text, syntax).locate(text, pointers)
}

/// The pointer of a child: `parent` plus one token.
pub(crate) fn child(parent: &str, token: &str) -> String {
    let mut p = parent.to_owned();
    push_token(&mut p, token);
    p
}

/// The parent of a pointer (`None` for the root).
pub(crate) fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

/// Longest line searched for a finding's needle, in bytes.
const MAX_SEARCHED_LINE: usize = 64 * 1024;

/// Line starts of a text, to turn positions back into byte offsets.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// Byte offset of a 1-based (line, column in characters).
    fn offset(&self, text: &str, line: u32, column: u32) -> Option<usize> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        let start = *self.starts.get(index)?;
        let end = self.starts.get(index + 1).copied().unwrap_or(text.len());
        // Counting characters along a huge line for every finding would be quadratic.
        if end - start > MAX_SEARCHED_LINE {
            return None;
        }
        let rest = &text[start..end];
        let skip = usize::try_from(column).ok()?.checked_sub(1)?;
        Some(start + rest.char_indices().nth(skip).map_or(rest.len(), |(i, _)| i))
    }

    /// The span of the first `needle` inside `span`, if it appears there as written and not
    /// as part of a longer word (the rule `in` is not the `in` of `string`). Lines longer than
    /// [`MAX_SEARCHED_LINE`] are not searched: the whole value is underlined.
    pub(crate) fn find_in(&self, text: &str, span: Span, needle: &str) -> Option<Span> {
        if needle.is_empty() {
            return None;
        }
        let from = self.offset(text, span.line, span.column)?;
        let to = self.offset(text, span.end_line, span.end_column)?;

        let within = text.get(from..to)?;
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let starts_word = word(needle.chars().next());
        let ends_word = word(needle.chars().next_back());
        let glued = |i: usize| {
            let before = starts_word && word(within[..i].chars().next_back());
            let after = ends_word && word(within[i + needle.len()..].chars().next());
            before || after
        };
        let at = from
            + within
                .match_indices(needle)
                .map(|(i, _)| i)
                .find(|&i| !glued(i))?;
        let line_index = self.starts.partition_point(|&s| s <= at);
        let line_start = self.starts[line_index - 1];
        let column = text[line_start..at].chars().count() + 1;
        let width = needle.chars().count();
        let line = clamp(line_index);
        Some(Span {
            line,
            column: clamp(column),
            end_line: line,
            end_column: clamp(column + width),
        })
    }
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_tokens_are_escaped() {
        let mut p = String::new();
        push_token(&mut p, "config");
        push_token(&mut p, "a/b~c");
        assert_eq!(p, "/config/a~1b~0c");
        assert_eq!(parent(&p), Some("/config"));
        assert_eq!(parent("/config"), Some(""));
        assert_eq!(parent(""), None);
    }

    // Regression: the bare rule `in` was underlined inside `string`.
    #[test]
    fn needles_are_whole_words() {
        let text = "x: string|in\n";
        let lines = LineIndex::new(text);
        let value = Span {
            line: 1,
            column: 4,
            end_line: 1,
            end_column: 13,
        };
        let found = lines.find_in(text, value, "in").expect("found");
        assert_eq!((found.column, found.end_column), (11, 13));
        assert!(lines.find_in(text, value, "str").is_none());
        let found = lines.find_in(text, value, "|in").expect("found");
        assert_eq!(found.column, 10);
    }
}
