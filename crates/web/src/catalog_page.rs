//! `index.html`: the first eggs by name, with the search form the script brings to life; and
//! `eggs/index.html`: every egg as a plain list of links, for readers without JavaScript.
//!
//! The catalog page holds the first [`PAGE`] eggs by name (the script shows as many before the
//! reader asks for all): the page the script starts from is the page it shows, so nothing moves
//! when it runs, and the document stays small however large the catalog grows. The script
//! (assets/eggcat.js) loads `_summary.json`, then filters and sorts, making the list items of
//! the eggs the HTML does not hold from the summary, with the same markup as [`item`]. Without
//! JavaScript, "Show all" is a link to `eggs/index.html`. The form is in the page from the
//! start, invisible (`pending`) until the script is ready, so that it takes its place at once
//! and its appearance shifts nothing.

use std::collections::BTreeMap;

use eggcat_wire::Database;
use eggcat_wire::paths;

use crate::html::Html;
use crate::layout::{self, Assets, Data, Here, Nav};
use crate::model::Status;
use crate::words::count;
use eggcat_wire::SummaryItem;

/// Where the catalog page is published, for its links.
const HERE: Here<'static> = Here::Page(paths::CATALOG_PAGE);

/// Eggs in the list before "Show all": the same number as the script's `PAGE`.
pub(crate) const PAGE: usize = 60;

/// The number of repositories the eggs come from (a repository read under two labels counts
/// once).
fn repositories(status: &Status) -> usize {
    let mut s: Vec<_> = status.sources.iter().filter(|s| s.eggs > 0).collect();
    s.dedup_by(|a, b| a.repo == b.repo && a.owner == b.owner);
    s.len()
}

/// The eggs sorted as the list shows them: by name, then slug.
fn by_name(items: &[SummaryItem]) -> Vec<&SummaryItem> {
    let mut sorted: Vec<&SummaryItem> = items.iter().collect();
    sorted.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.slug.cmp(&b.slug))
    });
    sorted
}

/// The catalog page. `base` is the site's absolute URL, without a trailing slash.
pub(crate) fn render(
    items: &[SummaryItem],
    status: &Status,
    assets: &Assets,
    base: &str,
) -> String {
    let mut h = Html::with_capacity(PAGE * 600 + 8192);
    let eggs = count(items.len(), "game-server egg", "game-server eggs");
    let repos = count(repositories(status), "repository", "repositories");
    let description = format!(
        "{eggs} for Pelican and Pterodactyl from {repos}: search them, read their variables, \
         startup and install script, and import them by URL."
    );
    layout::start(
        &mut h,
        "eggcat: the egg catalog",
        &description,
        HERE,
        assets,
        Nav::Catalog,
    );
    h.lit("<h1>Eggs</h1><p class=\"lede\">")
        .text(&format!(
            "{eggs} for Pelican and Pterodactyl from {repos}. "
        ))
        .el(
            "a",
            &[("href", Some(&HERE.link(paths::FEED)))],
            "Atom feed of recent changes",
        )
        .lit(".</p>");

    h.lit("<form id=\"search\" class=\"search pending\" role=\"search\" method=\"get\" action=\"./\">")
        .lit("<div class=\"field q\"><label for=\"q\">Search</label>")
        .lit("<input id=\"q\" name=\"q\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" ")
        .lit("placeholder=\"name, tag, image…\" aria-describedby=\"count\"></div>")
        // On a small screen the filters fold behind this one button (the stylesheet shows it
        // only there), so that the first screen shows eggs, not controls.
        .lit("<button type=\"button\" id=\"toggle\" class=\"toggle\" aria-expanded=\"false\" aria-controls=\"filters\">Filters</button>")
        .lit("<div id=\"filters\" class=\"filters\">");
    filters(&mut h, items);
    h.lit("<div class=\"field\"><label for=\"sort\">Sort by</label><select id=\"sort\" name=\"sort\">")
        .lit("<option value=\"name\">Name</option><option value=\"updated\">Recently updated</option>")
        .lit("</select></div></div></form>");

    h.lit("<p id=\"count\" class=\"count\" role=\"status\">")
        .text(&count(items.len(), "egg", "eggs"))
        .lit("</p>")
        // What an empty search says, filled in and shown by the script.
        .lit("<div id=\"empty\" class=\"empty\" hidden><p id=\"empty-text\"></p>")
        .lit("<button type=\"button\" id=\"clear\">Clear the search and filters</button></div>")
        .lit("<ul id=\"eggs\" class=\"eggs\">");
    for i in by_name(items).into_iter().take(PAGE) {
        item(&mut h, i);
    }
    h.lit("</ul>");
    if items.len() > PAGE {
        h.lit("<p class=\"all\"><a id=\"all\" class=\"more\" href=\"")
            .text(&HERE.link(paths::ALL_EGGS_PAGE))
            .lit("\">")
            .text(&format!("Show all {}", count(items.len(), "egg", "eggs")))
            .lit("</a></p>");
    }
    panel_indexes(&mut h, base);
    layout::end(
        &mut h,
        HERE,
        None,
        Some(Data {
            label: "_summary.json",
            path: eggcat_wire::paths::SUMMARY,
        }),
    );
    h.finish()
}

/// The filters, each with the count of eggs per value: source, category, format, the panels
/// that can import them and the platforms they run on (each of these two once the catalog
/// knows), and "one row per game" where some game has several eggs.
fn filters(h: &mut Html, items: &[SummaryItem]) {
    select(h, "source", "Source", "All sources", items, |i| {
        vec![i.source.clone()]
    });
    select(h, "category", "Category", "All categories", items, |i| {
        vec![i.category.clone()]
    });
    select(h, "format", "Format", "All formats", items, |i| {
        vec![i.format.clone()]
    });
    if items
        .iter()
        .any(|i| i.importable.pelican || i.importable.pterodactyl)
    {
        select(
            h,
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
    // Where the eggs run: only once a registry has answered for some egg (images.rs). The
    // values are platforms (`linux/arm64`): an egg runs on one when one of its images and its
    // install container both offer it.
    if items.iter().any(|i| !i.runs_on.is_empty()) {
        select(h, "platform", "Runs on", "Any platform", items, |i| {
            i.runs_on.clone()
        });
    }
    // One row per game: only where some game has more than one egg (`eggcat_catalog::games`).
    if items.iter().any(|i| i.game_eggs > 1) {
        h.lit("<div class=\"field check\"><input type=\"checkbox\" id=\"per-game\" name=\"rows\" value=\"game\">")
            .lit("<label for=\"per-game\">One row per game</label></div>");
    }
}

/// Every egg in a Pelican panel's import dialog: the index `PANEL_EGG_INDEX_URL` points at, one
/// per database, since the update check sees the order the panel's database gives the
/// variables (docs/panels.md).
fn panel_indexes(h: &mut Html, base: &str) {
    h.lit("<section class=\"indexes\" aria-labelledby=\"indexes\"><h2 id=\"indexes\">")
        .lit("Every egg in Pelican's import dialog</h2><p>Set <code>PANEL_EGG_INDEX_URL</code> in ")
        .lit("the panel's <code>.env</code> to the index for its database (<code>DB_CONNECTION</code> ")
        .lit("there: <code>sqlite</code> or unset, <code>mariadb</code> or <code>mysql</code>, ")
        .lit("<code>pgsql</code>), then run <code>php artisan <span class=\"nw\">p:egg:update-index</span></code>.</p><dl>");
    for db in Database::ALL {
        let url = format!("{base}/{}", paths::compat_pelican(db));
        h.el("dt", &[], db.label())
            .lit("<dd><code>")
            .path(&url)
            .lit("</code></dd>");
    }
    h.lit("</dl></section>");
}

/// `eggs/index.html`: every egg by name, a link each, with its category and source.
pub(crate) fn all(items: &[SummaryItem], assets: &Assets) -> String {
    let here = Here::Page(paths::ALL_EGGS_PAGE);
    let mut h = Html::with_capacity(items.len() * 160 + 4096);
    let eggs = count(items.len(), "egg", "eggs");
    layout::start(
        &mut h,
        "All eggs – eggcat",
        &format!("Every egg of the catalog by name, {eggs} for Pelican and Pterodactyl."),
        here,
        assets,
        Nav::Egg,
    );
    h.lit("<h1>All eggs</h1><p class=\"lede\">")
        .text(&format!("{eggs}, by name. "))
        .el(
            "a",
            &[("href", Some(&here.link(paths::CATALOG_PAGE)))],
            "Search and filter them in the catalog",
        )
        .lit(".</p><ul class=\"all-eggs\">");
    for i in by_name(items) {
        let href = here.link(&paths::egg_page(&i.slug));
        h.lit("<li>")
            .el("a", &[("href", Some(&href))], &i.name)
            .lit(" ")
            .el(
                "span",
                &[("class", Some("muted"))],
                &format!("{} · {} · {}", i.category, i.source, i.format),
            )
            .lit("</li>");
    }
    h.lit("</ul>");
    layout::end(
        &mut h,
        here,
        None,
        Some(Data {
            label: "_summary.json",
            path: eggcat_wire::paths::SUMMARY,
        }),
    );
    h.finish()
}

/// One list item.
fn item(h: &mut Html, i: &SummaryItem) {
    let id = format!("e-{}", i.slug);
    let href = HERE.link(&paths::egg_page(&i.slug));
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
        .el("span", &[], &i.format);
    // The game has other eggs: the repository and the last upstream change tell them apart
    // at a glance (with the format above and the missing images below).
    if i.lookalike || i.game_eggs > 1 {
        h.el(
            "span",
            &[("class", Some("repo"))],
            &format!("{}/{}", i.owner, i.repo),
        );
    }
    if i.game_eggs > 1 {
        card_updated(h, i);
        h.el(
            "span",
            &[("class", Some("game"))],
            &format!("{} for this game", count(i.game_eggs, "egg", "eggs")),
        );
    }
    if i.missing_images > 0 {
        h.el(
            "span",
            &[("class", Some("image-missing"))],
            &count(i.missing_images, "image missing", "images missing"),
        );
    }
    if i.missing_downloads > 0 {
        h.el(
            "span",
            &[("class", Some("image-missing"))],
            &count(
                i.missing_downloads,
                "install download missing",
                "install downloads missing",
            ),
        );
    }
    h.lit("</p></div></li>");
}

/// "Updated 2025-10-06" on a card (eggcat.js writes the same): when upstream last changed the
/// file, "or before" when the file is older than the history eggcat reads, "Read" when there
/// is no upstream history (docs/web.md, "Updated").
fn card_updated(h: &mut Html, i: &SummaryItem) {
    let at = eggcat_catalog::rfc3339(i.updated_at);
    let day = at.get(..10).unwrap_or(&at);
    let text = match i.updated_from.as_str() {
        "before" => format!("Updated {day} or before"),
        "indexed" => format!("Read {day}"),
        _ => format!("Updated {day}"),
    };
    h.el(
        "time",
        &[("class", Some("updated")), ("datetime", Some(&at))],
        &text,
    );
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
