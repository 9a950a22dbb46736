//! Just enough of POSIX shell to read an install script's downloads: logical lines (backslash
//! continuations joined, here-document bodies and comments left out), shell words (quotes,
//! `$(…)`, `${…}` and backticks kept together) and a word's text as pieces of literal text and
//! variable references. Not an interpreter: nothing here runs or expands anything.

/// One logical line: its text (comment removed) and its 1-based first line in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) text: String,
    pub(crate) number: usize,
}

/// The script's logical lines, without here-document bodies and comments.
pub(crate) fn lines(script: &str) -> Vec<Line> {
    let script = script.replace("\r\n", "\n").replace('\r', "\n");
    let mut out: Vec<Line> = Vec::new();
    let mut heredoc: Option<String> = None;
    let mut pending: Option<Line> = None;
    for (i, raw) in script.split('\n').enumerate() {
        if let Some(end) = &heredoc {
            if raw.trim() == end {
                heredoc = None;
            }
            continue;
        }
        let (text, continued) = match raw.strip_suffix('\\') {
            Some(t) if !in_single_quote(t) => (t, true),
            _ => (raw, false),
        };
        let line = match pending.take() {
            Some(mut p) => {
                p.text.push(' ');
                p.text.push_str(text);
                p
            }
            None => Line {
                text: text.to_owned(),
                number: i + 1,
            },
        };
        if continued {
            pending = Some(line);
            continue;
        }
        let text = strip_comment(&line.text);
        heredoc = heredoc_end(&text);
        out.push(Line {
            text,
            number: line.number,
        });
    }
    if let Some(p) = pending {
        out.push(Line {
            text: strip_comment(&p.text),
            number: p.number,
        });
    }
    out
}

/// Whether `text` ends inside a single-quoted string.
fn in_single_quote(text: &str) -> bool {
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    quote == Some('\'')
}

/// The line without its comment: a `#` that starts a word outside quotes.
fn strip_comment(line: &str) -> String {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            prev = c;
            continue;
        }
        match (quote, c) {
            (_, '\\') if quote != Some('\'') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() || prev == ';' => return line[..i].to_owned(),
            _ => {}
        }
        prev = c;
    }
    line.to_owned()
}

/// The end word of a here-document the line opens (`<<EOF`, `<< 'EOF'`, `<<-EOF`), if any; a
/// here-string (`<<<`) opens none.
fn heredoc_end(line: &str) -> Option<String> {
    let at = line.find("<<")?;
    let rest = &line[at + 2..];
    if rest.starts_with('<') {
        return None;
    }
    let rest = rest.trim_start_matches('-').trim_start();
    let word: String = rest
        .chars()
        .filter(|c| *c != '\'' && *c != '"')
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// A shell word read from a line: its raw text and where the next one starts.
pub(crate) fn word_at(text: &str, start: usize) -> (String, usize) {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut quote: Option<u8> = None;
    let mut depth = 0usize;
    while i < bytes.len() {
        let c = bytes[i];
        match (quote, c) {
            (Some(b'\''), b'\'') => quote = None,
            (Some(b'\''), _) => {}
            (_, b'\\') => i += 1,
            (Some(b'"'), b'"') if depth == 0 => quote = None,
            (None, b'\'' | b'"') if depth == 0 => quote = Some(c),
            (_, b'$') if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => {
                depth += 1;
                i += 1;
            }
            (None | Some(b'"'), b'`') => {
                i += text[i + 1..].find('`').map_or(text.len() - i, |p| p + 1);
            }
            (_, b'(' | b'{') if depth > 0 => depth += 1,
            (_, b')' | b'}') if depth > 0 => depth -= 1,
            (None, b' ' | b'\t' | b';' | b'|' | b'&' | b'<' | b'>' | b')') if depth == 0 => {
                break;
            }
            _ => {}
        }
        i += 1;
    }
    let end = i.min(text.len());
    (text[start..end].to_owned(), end)
}

/// A piece of a word's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Literal text.
    Text(String),
    /// A variable's value: `$NAME`, `${NAME}`, `${NAME:-…}` and the like.
    Var(String),
    /// What a command prints (`$(…)`, backticks) or any other expansion.
    Output,
}

/// A word's text as pieces, its quotes removed.
pub(crate) fn pieces(word: &str) -> Vec<Piece> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut quote: Option<char> = None;
    let mut i = 0;
    let flush = |text: &mut String, out: &mut Vec<Piece>| {
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(text)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => text.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (_, '\\') => {
                if let Some(n) = chars.get(i + 1) {
                    text.push(*n);
                }
                i += 1;
            }
            (_, '$') if chars.get(i + 1) == Some(&'{') => {
                let end = closing(&chars, i + 1, '{', '}');
                let inner: String = chars[i + 2..end.min(chars.len())].iter().collect();
                let name: String = inner
                    .chars()
                    .skip_while(|c| *c == '!' || *c == '#')
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                flush(&mut text, &mut out);
                out.push(if name.is_empty() {
                    Piece::Output
                } else {
                    Piece::Var(name)
                });
                i = end;
            }
            (_, '$') if chars.get(i + 1) == Some(&'(') => {
                flush(&mut text, &mut out);
                out.push(Piece::Output);
                i = closing(&chars, i + 1, '(', ')');
            }
            (_, '$')
                if chars
                    .get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == '_') =>
            {
                let name: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .collect();
                i += name.len();
                flush(&mut text, &mut out);
                out.push(Piece::Var(name));
            }
            (_, '`') => {
                flush(&mut text, &mut out);
                out.push(Piece::Output);
                i = chars[i + 1..]
                    .iter()
                    .position(|c| *c == '`')
                    .map_or(chars.len(), |p| i + 1 + p);
            }
            (_, c) => text.push(c),
        }
        i += 1;
    }
    flush(&mut text, &mut out);
    out
}

/// The index of the bracket that closes the one at `open`, or the end.
fn closing(chars: &[char], open: usize, left: char, right: char) -> usize {
    let mut depth = 0;
    for (i, c) in chars.iter().enumerate().skip(open) {
        if *c == left {
            depth += 1;
        } else if *c == right {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_continuations_and_here_documents_are_not_lines_of_commands() {
        let script = "a=1 # one\n# wget https://x.example/a\ncurl \\\n  https://x.example/b\ncat <<'EOF' > f\nwget https://x.example/c\nEOF\necho '#not a comment' ${X##*/}\n";
        let got: Vec<(usize, String)> = lines(script)
            .into_iter()
            .map(|l| (l.number, l.text.trim().to_owned()))
            .filter(|(_, t)| !t.is_empty())
            .collect();
        assert_eq!(
            got,
            [
                (1, "a=1".to_owned()),
                (3, "curl    https://x.example/b".to_owned()),
                (5, "cat <<'EOF' > f".to_owned()),
                (8, "echo '#not a comment' ${X##*/}".to_owned()),
            ]
        );
    }

    #[test]
    fn words_keep_quotes_and_substitutions_together() {
        let text = r#"x "a b"$(c d) ${e f}|g"#;
        let (w, end) = word_at(text, 2);
        assert_eq!(w, r#""a b"$(c d)"#);
        assert_eq!(word_at(text, end + 1).0, "${e f}");
        assert_eq!(
            pieces(r#""https://h/$A"/'$B'${C:-d}`e`"#),
            [
                Piece::Text("https://h/".into()),
                Piece::Var("A".into()),
                Piece::Text("/$B".into()),
                Piece::Var("C".into()),
                Piece::Output,
            ]
        );
    }
}
