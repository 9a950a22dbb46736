//! The frame every page shares: head, skip link, header with the site navigation, footer.
//!
//! Every URL in a page is relative, made by `eggcat_wire::paths::href` from the page's own path
//! ([`Here::Page`]), so the tree works under any base path on any static host. The one
//! exception is the 404 page, answered at any depth: its URLs start from the absolute path of
//! the tree's root (from `base_url`, `"/"` by default; [`Here::Anywhere`]).

use eggcat_wire::paths;

use crate::html::Html;

/// The hashed names of the two assets, from the tree's root.
#[derive(Debug, Clone)]
pub(crate) struct Assets {
    pub(crate) css: String,
    pub(crate) js: String,
}

/// Where a page is answered, which decides how its links are written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Here<'a> {
    /// The page published at this path (`eggs/x/index.html`): links relative to it.
    Page(&'a str),
    /// A page answered at any path (`404.html`): links from the tree's root path, which ends
    /// in `/` (`/`, `/cat/`).
    Anywhere(&'a str),
}

impl Here<'_> {
    /// The URL of the published file or page `to` (a path from the tree's root) as this page
    /// links it.
    pub(crate) fn link(self, to: &str) -> String {
        match self {
            Here::Page(page) => paths::href(page, to),
            Here::Anywhere(root) => format!("{root}{}", paths::page_url(to)),
        }
    }
}

/// Which navigation entry is the current page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nav {
    Catalog,
    Egg,
    Status,
}

/// Which JSON document holds a page's data, named in its footer.
pub(crate) struct Data<'a> {
    /// The file name shown (`_summary.json`, `_status.json`, `{slug}.json`).
    pub(crate) label: &'a str,
    /// Its path from the tree's root.
    pub(crate) path: &'a str,
}

/// Writes the page up to the opening of `<main>`. `description` becomes the page's
/// `<meta name="description">` (what a search engine shows under the title).
pub(crate) fn start(
    h: &mut Html,
    title: &str,
    description: &str,
    here: Here<'_>,
    assets: &Assets,
    nav: Nav,
) {
    let css = here.link(&assets.css);
    let js = here.link(&assets.js);
    let feed = here.link(paths::FEED);
    // The site navigation goes through the root (`../status/` even on the status page), so
    // that it reads the same on every page.
    let root = match here.link(paths::CATALOG_PAGE) {
        top if top == "./" => String::new(),
        other => other,
    };
    h.lit("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .lit("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .lit("<meta name=\"color-scheme\" content=\"light dark\">")
        .lit("<meta name=\"referrer\" content=\"no-referrer\">")
        // No favicon: without this line browsers ask for /favicon.ico, a 404 on every host.
        .lit("<link rel=\"icon\" href=\"data:,\">")
        .el("title", &[], title)
        .open(
            "meta",
            &[
                ("name", Some("description")),
                ("content", Some(description)),
            ],
        )
        .open("link", &[("rel", Some("stylesheet")), ("href", Some(&css))])
        .open(
            "link",
            &[
                ("rel", Some("alternate")),
                ("type", Some("application/atom+xml")),
                ("title", Some("Recently added and updated eggs")),
                ("href", Some(&feed)),
            ],
        )
        .open("script", &[("src", Some(&js)), ("defer", Some(""))])
        .close("script")
        .lit("</head><body><a class=\"skip\" href=\"#main\">Skip to content</a>")
        .lit("<header class=\"site\"><a class=\"brand\" href=\"")
        .text(&here.link(paths::CATALOG_PAGE))
        .lit("\">eggcat</a><nav aria-label=\"Site\"><ul>");
    let items: [(&str, &str, Nav); 2] = [
        ("", "Catalog", Nav::Catalog),
        (
            paths::page_url(paths::STATUS_PAGE),
            "Build status",
            Nav::Status,
        ),
    ];
    for (href, label, which) in items {
        let href = match format!("{root}{href}") {
            top if top.is_empty() => "./".to_owned(),
            other => other,
        };
        let current = (which == nav).then_some("page");
        h.lit("<li>")
            .el(
                "a",
                &[("href", Some(&href)), ("aria-current", current)],
                label,
            )
            .lit("</li>");
    }
    h.lit("<li>")
        .el("a", &[("href", Some(&feed))], "Feed")
        .lit("</li></ul></nav></header><main id=\"main\" tabindex=\"-1\">");
}

/// Closes `<main>` and the page; the footer names the JSON document of the page's data.
pub(crate) fn end(h: &mut Html, here: Here<'_>, built: Option<&str>, data: Option<Data<'_>>) {
    h.lit("</main><footer class=\"site\"><p>Built ");
    // Egg pages leave the build time out: a page changes only when its egg does, so a rebuild
    // does not rewrite (or re-upload) every page.
    if let Some(built) = built {
        h.text(built).lit(" ");
    }
    h.lit("by eggcat from the upstream repositories.");
    if let Some(data) = data {
        let href = here.link(data.path);
        h.lit(" The same data as JSON: ")
            .el("a", &[("href", Some(&href))], data.label)
            .lit(".");
    }
    h.lit("</p></footer></body></html>\n");
}
