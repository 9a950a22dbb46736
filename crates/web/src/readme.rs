//! README Markdown to safe HTML: pulldown-cmark, then ammonia with an explicit allow-list.
//!
//! The rules, in order:
//! 1. Markdown is parsed with tables and strikethrough (no task-list checkboxes: no form
//!    controls). Headings move one level down, so the egg's name stays the page's only `h1`.
//! 2. Relative URLs point at the upstream repository, resolved against the README's folder
//!    (`/x` from the repository root): links to the file's page (`blob` on GitHub, the raw file
//!    elsewhere), images to the raw file.
//! 3. Images become links to the image. The pages' Content-Security-Policy allows images from
//!    the page's own origin only (no third-party requests, no tracking pixels), so an `<img>` of
//!    another host would only be a broken image and a console error.
//! 4. ammonia keeps only the listed tags and attributes, only `http`, `https` and `mailto` URLs,
//!    drops the content of `script` and `style`, and adds `rel="noopener noreferrer nofollow"`.
//! 5. A README whose HTML has more than [`MAX_TAGS`] tags is shown as its Markdown text instead,
//!    escaped: the sanitizer's time grows with the square of the nesting.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::html::Sanitized;
use crate::model::Meta;

/// The most tags (each `<` of the HTML made from the Markdown: pulldown-cmark writes the text's
/// own `<` as `&lt;`) a README is rendered with as HTML. ammonia parses the HTML with html5ever,
/// whose time grows with the square of the nesting, and a README is upstream's text: 100,000
/// `>` (block quotes nested that deep) took 30 s, 100,000 `<div>` 17.5 s, in one build. At 5,000
/// the worst nesting measured costs 45 ms (nested `<div>`, release build); the largest README
/// of the ten shared repositories makes 573.
pub(crate) const MAX_TAGS: usize = 5_000;

/// Where relative URLs of a README resolve to.
#[derive(Debug, Clone)]
pub(crate) struct Upstream {
    /// Folder of the README inside the repository ("" at the root).
    dir: String,
    /// Prefix of raw file URLs, ending in `/`.
    raw: String,
    /// Prefix of browsable file URLs, ending in `/`.
    blob: String,
}

impl Upstream {
    /// From an egg's meta: the raw prefix is `rawUrl` without the egg's path; the browsable
    /// prefix is GitHub's `blob/{branch}/` when the raw URL is GitHub's, else the raw prefix.
    pub(crate) fn from_meta(meta: &Meta) -> Upstream {
        let dir = meta
            .path
            .rsplit_once('/')
            .map(|(d, _)| d)
            .unwrap_or("")
            .to_owned();
        let raw = meta
            .raw_url
            .strip_suffix(meta.path.as_str())
            .filter(|p| p.ends_with('/'))
            .unwrap_or("")
            .to_owned();
        let blob = if raw.starts_with("https://raw.githubusercontent.com/") {
            format!(
                "https://github.com/{}/{}/blob/{}/",
                meta.owner, meta.repo, meta.branch
            )
        } else {
            raw.clone()
        };
        Upstream { dir, raw, blob }
    }

    /// The absolute URL for a relative `url` (None when there is no known upstream prefix).
    fn resolve(&self, url: &str, image: bool) -> Option<String> {
        if url.starts_with('#') {
            return Some(url.to_owned());
        }
        let prefix = if image { &self.raw } else { &self.blob };
        if prefix.is_empty() {
            return None;
        }
        let (path, rest) = match url.find(['?', '#']) {
            Some(i) => url.split_at(i),
            None => (url, ""),
        };
        let mut parts: Vec<&str> = if path.starts_with('/') {
            Vec::new()
        } else {
            self.dir.split('/').filter(|s| !s.is_empty()).collect()
        };
        for seg in path.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                s => parts.push(s),
            }
        }
        Some(format!("{prefix}{}{rest}", parts.join("/")))
    }
}

/// A README rendered and sanitized as an egg page shows it, for callers outside the pages (the
/// fuzz target `readme`, which checks the output with an HTML parser): `dir` is the README's
/// folder in the repository, `raw` and `blob` the prefixes of raw and browsable file URLs (each
/// ending in `/`, or empty when unknown).
pub fn render_readme(markdown: &str, dir: &str, raw: &str, blob: &str) -> String {
    let upstream = Upstream {
        dir: dir.to_owned(),
        raw: raw.to_owned(),
        blob: blob.to_owned(),
    };
    Renderer::new().render(markdown, &upstream).0
}

/// Whether `url` has a scheme (or is protocol-relative): not ours to rewrite.
fn is_absolute(url: &str) -> bool {
    if url.starts_with("//") {
        return true;
    }
    match url.find(':') {
        Some(i) => {
            let scheme = &url[..i];
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !url[..i].contains('/')
        }
        None => false,
    }
}

/// The sanitizer, built once per render.
#[derive(Debug)]
pub(crate) struct Renderer {
    builder: ammonia::Builder<'static>,
}

impl Renderer {
    /// The allow-list.
    pub(crate) fn new() -> Renderer {
        let mut b = ammonia::Builder::empty();
        b.tags(HashSet::from([
            "a",
            "abbr",
            "b",
            "blockquote",
            "br",
            "code",
            "dd",
            "del",
            "details",
            "div",
            "dl",
            "dt",
            "em",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "hr",
            "i",
            "kbd",
            "li",
            "ol",
            "p",
            "pre",
            "s",
            "strong",
            "sub",
            "summary",
            "sup",
            "table",
            "tbody",
            "td",
            "th",
            "thead",
            "tr",
            "ul",
        ]))
        .clean_content_tags(HashSet::from(["script", "style"]))
        .tag_attributes(HashMap::from([
            ("a", HashSet::from(["href", "title"])),
            ("ol", HashSet::from(["start"])),
            ("abbr", HashSet::from(["title"])),
            ("td", HashSet::from(["align"])),
            ("th", HashSet::from(["align"])),
        ]))
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer nofollow"))
        .strip_comments(true);
        Renderer { builder: b }
    }

    /// The README as sanitized HTML.
    pub(crate) fn render(&mut self, markdown: &str, upstream: &Upstream) -> Sanitized {
        let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
        let events = Parser::new_ext(markdown, options).map(|e| rewrite(e, upstream));
        let mut unsafe_html = String::with_capacity(markdown.len() * 3 / 2);
        pulldown_cmark::html::push_html(&mut unsafe_html, events);
        let unsafe_html = images_to_links(&unsafe_html, upstream);
        let tags = unsafe_html.matches('<').count();
        if tags > MAX_TAGS {
            return as_text(markdown, tags);
        }
        self.builder
            .url_relative(ammonia::UrlRelative::Custom(Box::new(Links(
                upstream.clone(),
            ))));
        Sanitized(self.builder.clean(&unsafe_html).to_string())
    }
}

/// A README with too many tags to sanitize ([`MAX_TAGS`]): a line saying why, then its Markdown
/// as preformatted text, every character escaped.
fn as_text(markdown: &str, tags: usize) -> Sanitized {
    let mut out = format!(
        "<p>This README is shown as its Markdown text: it has {tags} tags, more than the \
         {MAX_TAGS} the catalog renders.</p><pre>"
    );
    crate::html::escape_into(&mut out, markdown);
    out.push_str("</pre>");
    Sanitized(out)
}

/// Resolves the relative links of raw HTML in the README (ammonia calls it).
struct Links(Upstream);

impl<'a> ammonia::UrlRelativeEvaluate<'a> for Links {
    fn evaluate<'url>(&self, url: &'url str) -> Option<Cow<'url, str>> {
        self.0.resolve(url, false).map(Cow::Owned)
    }
}

/// One Markdown event with URLs resolved, images turned into links, headings moved down.
fn rewrite<'a>(event: Event<'a>, up: &Upstream) -> Event<'a> {
    let fix = |url: CowStr<'a>, image: bool| -> CowStr<'a> {
        if is_absolute(&url) {
            url
        } else {
            up.resolve(&url, image).map(CowStr::from).unwrap_or(url)
        }
    };
    match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: fix(dest_url, false),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: fix(dest_url, true),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        Event::Start(Tag::Heading { level, .. }) => Event::Start(Tag::Heading {
            level: down(level),
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(down(level))),
        e => e,
    }
}

fn down(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        _ => HeadingLevel::H5,
    }
}

/// Raw-HTML `<img ...>` tags become `<a href="src">alt</a>` (see rule 3). Whatever this
/// produces still goes through the sanitizer, so it only has to be useful, not safe.
fn images_to_links(html: &str, up: &Upstream) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find("<img").map(|i| i + from) {
        let Some(end) = lower[i..].find('>').map(|e| e + i + 1) else {
            break;
        };
        let tag = &html[i..end];
        let src = attr(tag, "src").unwrap_or_default();
        let alt = attr(tag, "alt")
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(|| "image".to_owned());
        let href = if is_absolute(&src) {
            src
        } else {
            up.resolve(&src, true).unwrap_or_default()
        };
        out.push_str(&html[last..i]);
        out.push_str("<a href=\"");
        crate::html::escape_into(&mut out, &href);
        out.push_str("\">");
        crate::html::escape_into(&mut out, &alt);
        out.push_str("</a>");
        last = end;
        from = end;
    }
    out.push_str(&html[last..]);
    out
}

/// The value of attribute `name` in one tag's source (quoted or not), entity-escaped as written.
fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name).map(|i| i + from) {
        from = i + name.len();
        let before_ok = i > 0 && lower.as_bytes()[i - 1].is_ascii_whitespace();
        let rest = lower[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let start = tag.len() - rest.len() + 1;
        let value = tag[start..].trim_start();
        let v = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        };
        return Some(v.replace("&amp;", "&"));
    }
    None
}
