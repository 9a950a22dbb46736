//! `index.html`: every egg, with the search form the script brings to life.
//!
//! The HTML holds the whole list, sorted by name, so the page works without JavaScript (every
//! egg is a link). The script (assets/eggcat.js) loads `_summary.json`, then filters and sorts
//! these same list items; the form is `hidden` until the script shows it, so a reader without
//! JavaScript never sees controls that do nothing.

use std::collections::BTreeMap;

use crate::html::Html;
use crate::layout::{self, Assets, Nav};
use crate::model::Status;
use crate::summary::SummaryItem;

/// The page.
pub(crate) fn render(items: &[SummaryItem], status: &Status, assets: &Assets) -> String {
    let mut h = Html::with_capacity(items.len() * 400 + 4096);
    layout::start(&mut h, "eggcat: the egg catalog", "", assets, Nav::Catalog);
    let sources = {
        let mut s: Vec<_> = status.sources.iter().filter(|s| s.eggs > 0).collect();
        s.dedup_by(|a, b| a.repo == b.repo && a.owner == b.owner);
        s.len()
    };
    h.lit("<h1>Eggs</h1><p class=\"lede\">")
        .num(items.len())
        .lit(" game-server eggs for Pelican and Pterodactyl from ")
        .num(sources)
        .lit(" repositories. ")
        .el(
            "a",
            &[("href", Some("feed.atom"))],
            "Atom feed of recent changes",
        )
        .lit(".</p>");

    h.lit(
        "<form id=\"search\" class=\"search\" role=\"search\" method=\"get\" action=\"./\" hidden>",
    )
    .lit("<div class=\"field q\"><label for=\"q\">Search</label>")
    .lit("<input id=\"q\" name=\"q\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" ")
    .lit("placeholder=\"name, tag, image…\" aria-describedby=\"count\"></div>");
    select(&mut h, "source", "Source", "All sources", items, |i| {
        vec![i.source.clone()]
    });
    select(
        &mut h,
        "category",
        "Category",
        "All categories",
        items,
        |i| vec![i.category.clone()],
    );
    select(&mut h, "format", "Format", "All formats", items, |i| {
        vec![i.format.clone()]
    });
    if items
        .iter()
        .any(|i| i.importable.pelican || i.importable.pterodactyl)
    {
        select(
            &mut h,
            "importable",
            "Importable into",
            "Any panel",
            items,
            |i| {
                let mut v = Vec::new();
                if i.importable.pelican {
                    v.push("pelican".to_owned());
                }
                if i.importable.pterodactyl {
                    v.push("pterodactyl".to_owned());
                }
                v
            },
        );
    }
    h.lit("<div class=\"field\"><label for=\"sort\">Sort by</label><select id=\"sort\" name=\"sort\">")
        .lit("<option value=\"name\">Name</option><option value=\"updated\">Recently updated</option>")
        .lit("</select></div></form>");

    let mut sorted: Vec<&SummaryItem> = items.iter().collect();
    sorted.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.slug.cmp(&b.slug))
    });
    h.lit("<p id=\"count\" class=\"count\" role=\"status\">")
        .num(items.len())
        .lit(" eggs</p><ul id=\"eggs\" class=\"eggs\">");
    for i in sorted {
        item(&mut h, i);
    }
    h.lit("</ul>");
    layout::end(&mut h, "", None);
    h.finish()
}

/// One list item.
fn item(h: &mut Html, i: &SummaryItem) {
    let id = format!("e-{}", i.slug);
    let href = format!("eggs/{}/", i.slug);
    h.open("li", &[("id", Some(&id))]);
    match &i.icon {
        Some(src) => h.open(
            "img",
            &[
                ("class", Some("icon")),
                ("src", Some(src)),
                ("alt", Some("")),
                ("loading", Some("lazy")),
                ("width", Some("48")),
                ("height", Some("48")),
            ],
        ),
        None => h.lit("<span class=\"icon none\" aria-hidden=\"true\"></span>"),
    };
    h.lit("<div><h2>")
        .el("a", &[("href", Some(&href))], &i.name)
        .lit("</h2>");
    if !i.description.is_empty() {
        h.el("p", &[("class", Some("desc"))], &i.description);
    }
    h.lit("<p class=\"tags\">")
        .el("span", &[], &i.category)
        .el("span", &[], &i.source)
        .el("span", &[], &i.format)
        .lit("</p></div></li>");
}

/// A filter with the count of eggs per value, sorted by value.
fn select(
    h: &mut Html,
    name: &'static str,
    label: &str,
    all: &str,
    items: &[SummaryItem],
    values: impl Fn(&SummaryItem) -> Vec<String>,
) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in items {
        for v in values(i) {
            *counts.entry(v).or_default() += 1;
        }
    }
    let id = format!("f-{name}");
    h.lit("<div class=\"field\">")
        .el("label", &[("for", Some(&id))], label)
        .open(
            "select",
            &[
                ("id", Some(&id)),
                ("name", Some(name)),
                ("data-filter", Some(name)),
            ],
        )
        .open("option", &[("value", Some(""))])
        .text(all)
        .lit(" (")
        .num(items.len())
        .lit(")</option>");
    for (v, n) in &counts {
        h.open("option", &[("value", Some(v))])
            .text(v)
            .lit(" (")
            .num(n)
            .lit(")</option>");
    }
    h.lit("</select></div>");
}
