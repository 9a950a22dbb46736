//! A tiny HTML writer whose text API always escapes.
//!
//! Why not a template engine: the pages are a few hundred lines of markup, and a hand-written
//! writer adds no crates and no compile time. Safety comes from the types instead: markup can
//! only be written from `&'static str` literals (so it is part of this crate's source, never of
//! the data), every runtime string goes through [`Html::text`] or an attribute value and is
//! escaped, and the only way to insert runtime markup is [`Html::sanitized`], which takes the
//! [`Sanitized`] type that only the README sanitizer constructs.

use std::fmt::Write;

/// HTML produced by the sanitizer (ammonia with an explicit allow-list), safe to insert as is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sanitized(pub(crate) String);

/// A page being written.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Html {
    out: String,
}

impl Html {
    /// An empty page with room for `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Html {
        Html {
            out: String::with_capacity(capacity),
        }
    }

    /// Markup from this crate's source (a literal, never data).
    pub(crate) fn lit(&mut self, markup: &'static str) -> &mut Html {
        self.out.push_str(markup);
        self
    }

    /// Text content, escaped.
    pub(crate) fn text(&mut self, text: &str) -> &mut Html {
        escape_into(&mut self.out, text);
        self
    }

    /// Text in which each `` `span` `` between backticks is code, as the build report and the
    /// checks write names and values: the spans become `<code>` elements, the rest escaped text.
    /// An unpaired backtick stays a literal backtick.
    pub(crate) fn text_code(&mut self, text: &str) -> &mut Html {
        let mut rest = text;
        while let Some(start) = rest.find('`') {
            let Some(len) = rest[start + 1..].find('`') else {
                break;
            };
            self.text(&rest[..start]);
            self.code(&rest[start + 1..start + 1 + len]);
            rest = &rest[start + 2 + len..];
        }
        self.text(rest)
    }

    /// Code (a path, URL, identifier, value) as text that a line may break only at its spaces
    /// and after its `/` (where a `<wbr>` is put): every run between those that holds anything
    /// but letters, digits and `_` is kept on one line (`<span class="nw">`, no wrapping),
    /// since browsers also break after `-`, `?`, `}`, ... and `egg-/request.yml` or
    /// `SERVER_PASS-/WORD` must never happen.
    pub(crate) fn path(&mut self, text: &str) -> &mut Html {
        let mut run = String::new();
        let flush = |h: &mut Html, run: &mut String| {
            if run.is_empty() {
                return;
            }
            // A run ends with its `/`: nothing breaks before a slash.
            let word = run.strip_suffix('/').unwrap_or(run);
            if word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                h.text(run);
            } else {
                h.out.push_str("<span class=\"nw\">");
                h.text(run);
                h.out.push_str("</span>");
            }
            run.clear();
        };
        for ch in text.chars() {
            match ch {
                '/' => {
                    run.push('/');
                    flush(self, &mut run);
                    self.out.push_str("<wbr>");
                }
                c if c.is_whitespace() => {
                    flush(self, &mut run);
                    let mut buf = [0; 4];
                    self.text(c.encode_utf8(&mut buf));
                }
                c => run.push(c),
            }
        }
        flush(self, &mut run);
        self
    }

    /// `<code>` holding `text` as [`Html::path`] writes it.
    pub(crate) fn code(&mut self, text: &str) -> &mut Html {
        self.lit("<code>").path(text).lit("</code>")
    }

    /// A number as text.
    pub(crate) fn num(&mut self, n: impl std::fmt::Display) -> &mut Html {
        let _ = write!(self.out, "{n}");
        self
    }

    /// An opening tag with attributes; every value is escaped. A `None` value writes nothing,
    /// an empty value writes the bare attribute name (`hidden`, `open`).
    pub(crate) fn open(
        &mut self,
        tag: &'static str,
        attrs: &[(&'static str, Option<&str>)],
    ) -> &mut Html {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attrs {
            let Some(value) = value else { continue };
            self.out.push(' ');
            self.out.push_str(name);
            if !value.is_empty() {
                self.out.push_str("=\"");
                escape_into(&mut self.out, value);
                self.out.push('"');
            }
        }
        self.out.push('>');
        self
    }

    /// A closing tag.
    pub(crate) fn close(&mut self, tag: &'static str) -> &mut Html {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// `<tag attrs>text</tag>`.
    pub(crate) fn el(
        &mut self,
        tag: &'static str,
        attrs: &[(&'static str, Option<&str>)],
        text: &str,
    ) -> &mut Html {
        self.open(tag, attrs).text(text).close(tag)
    }

    /// Markup written by another [`Html`] (a part rendered apart, to be compared first): it
    /// was made by the same escaping API, so it is as safe as this page's own.
    pub(crate) fn append(&mut self, part: &Html) -> &mut Html {
        self.out.push_str(&part.out);
        self
    }

    /// Sanitized markup (the rendered README).
    pub(crate) fn sanitized(&mut self, html: &Sanitized) -> &mut Html {
        self.out.push_str(&html.0);
        self
    }

    /// The finished page.
    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'`: safe in text and in quoted attribute values.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    let mut last = 0;
    for (i, b) in text.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&text[last..]);
}

/// `text` escaped, as a new string (for the Atom feed).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped() {
        let mut h = Html::default();
        h.open(
            "a",
            &[
                ("href", Some("x\"><script>")),
                ("hidden", Some("")),
                ("title", None),
            ],
        )
        .text("<b>&'")
        .close("a");
        assert_eq!(
            h.finish(),
            "<a href=\"x&quot;&gt;&lt;script&gt;\" hidden>&lt;b&gt;&amp;&#39;</a>"
        );
    }

    #[test]
    fn code_breaks_only_at_spaces_and_after_slashes() {
        let mut h = Html::default();
        h.path("a/egg-x.json b_C <");
        assert_eq!(
            h.finish(),
            "a/<wbr><span class=\"nw\">egg-x.json</span> b_C <span class=\"nw\">&lt;</span>"
        );
    }

    #[test]
    fn backtick_spans_become_code_and_stay_escaped() {
        let mut h = Html::default();
        h.text_code("name `a<b>` and `c` then ` alone");
        assert_eq!(
            h.finish(),
            "name <code><span class=\"nw\">a&lt;b&gt;</span></code> and <code>c</code> then ` alone"
        );
    }
}
