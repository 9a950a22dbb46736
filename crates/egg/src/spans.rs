//! Positions in the source: for every node of a parsed document, the byte range of its value and,
//! for an object member, of its key, kept in a tree beside the parsed value ([`Spans`]), so that
//! a caller (validate) places what it finds by JSON pointer without reading the text again.
//!
//! The tree is made by one walk over text the faithful parser has accepted, as the parse's
//! libraries do not say where a value is (serde_json tells its visitor nothing of it, and
//! serde-saphyr's `Spanned` only where a node starts, not where a collection ends): for JSON a
//! scanner of our own, which only has to find token boundaries in valid JSON (`spans_json.rs`);
//! for YAML the event stream of granit-parser, the parser serde-saphyr itself runs, with the
//! options `faithful.rs` gives serde-saphyr (`spans_yaml.rs`). Positions come out as lines
//! counted at `\n` only and columns in characters, as every other position eggcat shows (the
//! excerpt under a finding, a script's lines), whatever line breaks the file uses.

use std::collections::{HashMap, HashSet};

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

/// A byte range of the source, end exclusive.
pub(crate) type Range = (usize, usize);

/// Where every node of a document is in its source, by byte range: made by [`spans`], or with
/// the parse by [`crate::parse_with_spans`]. A node a YAML alias or merge key copied has no
/// place of its own: its nearest placed ancestor is the alias, or the mapping with the `<<`.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// The nodes in document order, each followed by its descendants.
    nodes: Vec<Node>,
    /// Every member's name, one after the other (a node's `name` is a range of it).
    names: String,
}

#[derive(Debug, Clone)]
struct Node {
    /// The member's name (a range of `names`); `None` for the root and array items.
    name: Option<Range>,
    /// The member's key in the source.
    key: Option<Range>,
    /// The value in the source.
    value: Range,
    /// The index just past this node's last descendant.
    end: usize,
}

impl Spans {
    /// Finds every pointer (RFC 6901) of `pointers` in `text`, the source these spans were made
    /// from. A pointer with no node of its own (a missing key, or a node built by a YAML alias
    /// or merge key) is absent from the map: the caller falls back to its nearest ancestor. A
    /// pointer that several nodes answer to (a duplicate JSON key) finds the last in the text,
    /// the one whose value the parse kept.
    pub fn locate(&self, text: &str, pointers: &[&str]) -> HashMap<String, Located> {
        let wanted = Wanted::new(pointers);
        let mut found = Vec::new();
        if !self.nodes.is_empty() {
            self.walk(0, &mut String::new(), &wanted, &mut found);
        }
        let ranges: Vec<Range> = found
            .iter()
            .flat_map(|(_, node)| node.key.iter().copied().chain([node.value]))
            .collect();
        let mut converted = spans_of_ranges(text, &ranges).into_iter();
        let mut out = HashMap::new();
        for (pointer, node) in found {
            let key = node.key.and_then(|_| converted.next());
            if let Some(value) = converted.next() {
                out.insert(pointer, Located { key, value });
            }
        }
        out
    }

    /// How many nodes have a place in the source.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node has a place (text with no document).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node at `at` and, when its pointer is a prefix of a wanted one, its descendants, each
    /// recorded after its descendants when wanted (so a later duplicate overrides an earlier).
    fn walk<'a>(
        &'a self,
        at: usize,
        pointer: &mut String,
        wanted: &Wanted,
        found: &mut Vec<(String, &'a Node)>,
    ) {
        let node = &self.nodes[at];
        if wanted.descend(pointer) {
            let mut child = at + 1;
            let mut index = 0usize;
            while child < node.end {
                let len = pointer.len();
                match self.nodes[child].name {
                    Some((a, b)) => push_token(pointer, &self.names[a..b]),
                    None => push_token(pointer, &index.to_string()),
                }
                self.walk(child, pointer, wanted, found);
                pointer.truncate(len);
                child = self.nodes[child].end;
                index += 1;
            }
        }
        if wanted.is_target(pointer) {
            found.push((pointer.clone(), node));
        }
    }
}

/// Makes a [`Spans`] in document order: a node is opened before its children and closed after.
#[derive(Default)]
pub(crate) struct Builder {
    spans: Spans,
}

impl Builder {
    /// Opens a node, a member named `name` with its key at `key` or an item (`None`, `None`);
    /// returns its index for [`Builder::close`].
    pub(crate) fn open(&mut self, name: Option<&str>, key: Option<Range>) -> usize {
        let name = name.map(|n| {
            let start = self.spans.names.len();
            self.spans.names.push_str(n);
            (start, self.spans.names.len())
        });
        self.spans.nodes.push(Node {
            name,
            key,
            value: (0, 0),
            end: 0,
        });
        self.spans.nodes.len() - 1
    }

    /// Closes the node `at` (opened last of those still open): its value is at `value`.
    pub(crate) fn close(&mut self, at: usize, value: Range) {
        let end = self.spans.nodes.len();
        let node = &mut self.spans.nodes[at];
        node.value = value;
        node.end = end;
    }

    pub(crate) fn finish(self) -> Spans {
        self.spans
    }
}

/// The pointers asked for, and every prefix of them: the walk descends into a node only when
/// its pointer is a prefix, and records it only when it is a target.
#[derive(Debug)]
struct Wanted {
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

    fn is_target(&self, pointer: &str) -> bool {
        self.targets.contains(pointer)
    }

    fn descend(&self, pointer: &str) -> bool {
        self.prefixes.contains(pointer)
    }
}

/// Appends one reference token to a pointer, escaped per RFC 6901 (`~` as `~0`, `/` as `~1`).
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Converts byte ranges of `text` into spans in one pass over the text, so that many
/// positions on one huge line cost one scan, not one each.
fn spans_of_ranges(text: &str, ranges: &[Range]) -> Vec<Span> {
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

/// `Span { line, column, end_line, end_column }` in one call, for the unit tests of the walks
/// (`spans_json.rs`, `spans_yaml.rs`) and of this file.
#[cfg(test)]
pub(crate) fn span(line: u32, column: u32, end_line: u32, end_column: u32) -> Span {
    Span {
        line,
        column,
        end_line,
        end_column,
    }
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
    }

    #[test]
    fn byte_ranges_become_character_columns() {
        let text = "ab\né€x\n";
        // `é` is two bytes and `€` three: `x` starts at byte 8 and is the third character of
        // line 2.
        let spans = spans_of_ranges(text, &[(8, 9), (0, 2), (3, 9)]);
        assert_eq!(
            spans,
            [span(2, 3, 2, 4), span(1, 1, 1, 3), span(2, 1, 2, 4)]
        );
    }
}
