//! Positions: from RFC 6901 JSON pointers into the parsed egg to line and column spans in the
//! source text. The parsed value keeps no positions, so the text is walked a second time, only
//! down the paths a diagnostic asked for, by a JSON scanner of our own (`span_json.rs`) or by the
//! YAML parser's event stream with its markers (`span_yaml.rs`). Both run only on text the
//! faithful parser has already accepted, so they never meet a syntax error they must report.

use std::collections::{HashMap, HashSet};

use eggcat_egg::SyntaxKind;

/// A range of the source, 1-based, columns in characters, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Line of the first character.
    pub line: u32,
    /// Column of the first character.
    pub column: u32,
    /// Line of the position just after the last character.
    pub end_line: u32,
    /// Column of the position just after the last character.
    pub end_column: u32,
}

/// Where a pointer's node is: its key (for an object member) and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    /// The member's key, quotes included in JSON; `None` for the root and array items.
    pub key: Option<Span>,
    /// The value, the whole of it for an object or array.
    pub value: Span,
}

/// Finds every pointer of `pointers` that exists in `text`. A pointer absent from the text
/// (a missing key, or a node built by a YAML alias or merge key) is absent from the map: the
/// caller falls back to its nearest ancestor.
pub fn locate(text: &str, syntax: SyntaxKind, pointers: &[&str]) -> HashMap<String, Located> {
    let wanted = Wanted::new(pointers);
    match syntax {
        SyntaxKind::Json => crate::span_json::locate(text, &wanted),
        SyntaxKind::Yaml => crate::span_yaml::locate(text, &wanted),
    }
}

/// The pointers asked for, and every prefix of them: a walker descends into a node only when
/// its pointer is a prefix, and records it only when it is a target.
#[derive(Debug)]
pub(crate) struct Wanted {
    targets: HashSet<String>,
    prefixes: HashSet<String>,
}

impl Wanted {
    fn new(pointers: &[&str]) -> Wanted {
        let mut prefixes = HashSet::new();
        for p in pointers {
            let mut end = 0;
            prefixes.insert(String::new());
            while !p.is_empty()
                && let Some(i) = p[end + 1..].find('/').map(|i| i + end + 1)
            {
                prefixes.insert(p[..i].to_owned());
                end = i;
            }
            prefixes.insert((*p).to_owned());
        }
        Wanted {
            targets: pointers.iter().map(|p| (*p).to_owned()).collect(),
            prefixes,
        }
    }

    pub(crate) fn is_target(&self, pointer: &str) -> bool {
        self.targets.contains(pointer)
    }

    pub(crate) fn descend(&self, pointer: &str) -> bool {
        self.prefixes.contains(pointer)
    }
}

/// Appends one reference token to a pointer, escaped per RFC 6901 (`~` as `~0`, `/` as `~1`).
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
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

/// Converts byte ranges of `text` into spans in one pass over the text, so that many
/// diagnostics on one huge line cost one scan, not one each.
pub(crate) fn spans_of_ranges(text: &str, ranges: &[(usize, usize)]) -> Vec<Span> {
    let mut offsets: Vec<usize> = ranges.iter().flat_map(|&(a, b)| [a, b]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut positions: HashMap<usize, (u32, u32)> = HashMap::with_capacity(offsets.len());
    let (mut line, mut column) = (1u32, 1u32);
    let mut next = offsets.iter().peekable();
    for (i, c) in text.char_indices() {
        while next.peek().is_some_and(|&&o| o <= i) {
            if let Some(&o) = next.next() {
                positions.insert(o, (line, column));
            }
        }
        if next.peek().is_none() {
            break;
        }
        if c == '\n' {
            line = line.saturating_add(1);
            column = 1;
        } else {
            column = column.saturating_add(1);
        }
    }
    for &o in next {
        positions.insert(o, (line, column));
    }
    ranges
        .iter()
        .map(|(a, b)| {
            let (line, column) = positions[a];
            let (end_line, end_column) = positions[b];
            Span {
                line,
                column,
                end_line,
                end_column,
            }
        })
        .collect()
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

    #[test]
    fn byte_ranges_become_character_columns() {
        let text = "ab\né€x\n";
        // `é` is two bytes and `€` three: `x` starts at byte 8 and is the third character of
        // line 2.
        let spans = spans_of_ranges(text, &[(8, 9), (0, 2), (3, 9)]);
        assert_eq!(
            spans[0],
            Span {
                line: 2,
                column: 3,
                end_line: 2,
                end_column: 4
            }
        );
        assert_eq!(
            spans[1],
            Span {
                line: 1,
                column: 1,
                end_line: 1,
                end_column: 3
            }
        );
        assert_eq!(
            spans[2],
            Span {
                line: 2,
                column: 1,
                end_line: 2,
                end_column: 4
            }
        );
    }
}
