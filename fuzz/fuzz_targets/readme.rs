//! README rendering (`eggcat_web::render_readme`): no panic, and the sanitized HTML, read back
//! by a real HTML tokenizer (html5ever, which decodes entities in attribute values as a browser
//! does), holds no script, style, form, frame or other active element, no event handler, no
//! `style` attribute, and no URL attribute whose scheme is `javascript:`, `vbscript:` or
//! `data:`. The renderer's own allow-list is not trusted: the output is checked.
//!
//! The first byte picks the upstream (GitHub, another host, or none known), the rest is the
//! Markdown.
#![no_main]

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use libfuzzer_sys::fuzz_target;

/// Elements that run code, load other documents, take input, or change how the page resolves.
const FORBIDDEN_TAGS: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input",
    "button", "select", "textarea", "option", "base", "meta", "link", "svg", "math", "img",
    "video", "audio", "source", "track", "picture", "portal", "template", "noscript",
];

/// Attributes whose value is a URL a browser may follow or load.
const URL_ATTRS: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "background",
    "poster",
    "cite",
    "longdesc",
    "srcset",
    "data",
    "codebase",
    "manifest",
    "ping",
];

#[derive(Default)]
struct Check {
    problems: RefCell<Vec<String>>,
}

impl TokenSink for Check {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind == TagKind::EndTag {
            return TokenSinkResult::Continue;
        }
        let mut problems = self.problems.borrow_mut();
        let name = (*tag.name).to_ascii_lowercase();
        if FORBIDDEN_TAGS.contains(&name.as_str()) {
            problems.push(format!("element <{name}>"));
        }
        for attr in &tag.attrs {
            let attr_name = (*attr.name.local).to_ascii_lowercase();
            if attr_name.starts_with("on") {
                problems.push(format!("event handler {attr_name} on <{name}>"));
            }
            if attr_name == "style" || attr_name == "srcdoc" || attr_name == "formaction" {
                problems.push(format!("attribute {attr_name} on <{name}>"));
            }
            if URL_ATTRS.contains(&attr_name.as_str()) && dangerous_url(&attr.value) {
                problems.push(format!("{attr_name}={:?} on <{name}>", &*attr.value));
            }
        }
        TokenSinkResult::Continue
    }
}

/// Whether a browser would read `url`'s scheme as `javascript`, `vbscript` or `data`: it strips
/// leading and trailing C0 controls and spaces, and removes tabs and newlines anywhere, before
/// reading the scheme (URL Standard, basic URL parser).
fn dangerous_url(url: &str) -> bool {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|scheme| cleaned.starts_with(scheme))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, markdown)) = data.split_first() else {
        return;
    };
    let Ok(markdown) = std::str::from_utf8(markdown) else {
        return;
    };
    let (dir, raw, blob) = match pick % 3 {
        0 => (
            "eggs/minecraft",
            "https://raw.githubusercontent.com/o/r/main/",
            "https://github.com/o/r/blob/main/",
        ),
        1 => (
            "",
            "https://git.example.org/o/r/raw/main/",
            "https://git.example.org/o/r/raw/main/",
        ),
        _ => ("a/b", "", ""),
    };
    let html = eggcat_web::render_readme(markdown, dir, raw, blob);
    let tokenizer = Tokenizer::new(Check::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(&html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let problems = tokenizer.sink.problems.take();
    assert!(
        problems.is_empty(),
        "sanitized README has {problems:?}:\n{html}"
    );
});
