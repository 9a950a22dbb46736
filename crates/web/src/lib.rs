//! The web catalog: HTML pages, the Atom feed and the icons' files, rendered from the catalog's
//! facts. Web works out nothing of the catalog and decodes none of its documents: the build
//! hands [`render_into`] its games, report and removals ([`Facts`]), and `eggcat_catalog::games`
//! reads each game back (its egg and history documents, decoded by the catalog that wrote them),
//! with its versions, comparisons, summary items, icons and `_summary.json`.
//!
//! [`render_into`] is a pure function of the published tree and the facts: same inputs,
//! byte-identical files out ([`render`] reads the facts from the tree, for tests and tools). It
//! writes (paths from the tree's root):
//!
//! - `index.html`: the catalog; `eggs/index.html`: every egg as a plain list (the catalog
//!   without JavaScript); `eggs/{slug}/index.html`: one page per egg (which also sets the egg
//!   side by side with each other version of its game: compare.rs); `status/index.html`;
//! - `404.html`: the page every host answers a missing browser path with (status 404);
//! - `feed.atom`: the newest egg versions (one entry per upstream commit that changed an egg);
//! - `api/v1/eggs/_summary.json`: what the catalog page shows and searches (made by
//!   `eggcat_catalog::games::summary`);
//! - `assets/eggcat-{hash}.css`, `assets/eggcat-{hash}.js`: named by content, cacheable forever;
//! - `icons/{slug}.{png,jpg,gif,webp}`: egg icons that passed the checks of
//!   `eggcat_catalog::games::icon`.
//!
//! Every page uses relative URLs, except `404.html` (answered at any depth, it starts its URLs
//! from the path of [`SiteOptions::base_url`]); only the feed, the 404 page and the
//! copy-to-clipboard import URLs use [`SiteOptions::base_url`]. docs/web.md describes the pages and their rules.

use std::collections::BTreeMap;

mod catalog_page;
mod compare;
mod downloads;
mod egg_page;
mod egg_page_parts;
mod feed;
mod history;
mod html;
mod images;
mod layout;
mod model;
mod not_found_page;
mod readme;
mod rules;
mod side_by_side;
mod status_page;
mod words;

pub use eggcat_catalog::games::Groups;
use eggcat_catalog::games::{self, EggDocuments, HistoryDocuments, Siblings};
pub use eggcat_catalog::reuse::Reuse;
use eggcat_wire::paths;
pub use eggcat_wire::{PreviousFiles, Sink};
use eggcat_wire::{Removed, Report, SummaryItem};
pub use readme::render_readme;

/// How the site is addressed.
#[derive(Debug, Clone, Copy)]
pub struct SiteOptions<'a> {
    /// The public address of the tree's root: absolute, no trailing slash.
    pub base_url: &'a str,
}

/// The stylesheet, as shipped.
const CSS: &str = include_str!("../assets/eggcat.css");
/// The script, as shipped.
const JS: &str = include_str!("../assets/eggcat.js");

pub use eggcat_catalog::games::SnapshotFiles;

/// What the build that made a snapshot hands its pages besides the snapshot's files: facts of
/// the catalog it has in hand, so that the pages neither decode them again nor work them out.
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    /// The catalog's games (`eggcat_catalog::Built::games`).
    pub games: &'a Groups,
    /// The build report (`_status.json`).
    pub report: &'a Report,
    /// The removed eggs (`_removed.json`).
    pub removed: &'a [Removed],
    /// `_summary.json`'s items, sorted by slug (`eggcat_catalog::Built::summary`).
    pub summary: &'a [SummaryItem],
    /// The egg documents, typed (`eggcat_catalog::Built::documents`; decoded only for a tree
    /// made elsewhere, `games::decoded`).
    pub documents: EggDocuments<'a>,
    /// The history documents, typed, with the keys of their bytes
    /// (`eggcat_catalog::Built::documents`; decoded only for a tree made elsewhere,
    /// `games::histories_decoded`).
    pub histories: HistoryDocuments<'a>,
}

impl std::fmt::Debug for Facts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Facts")
            .field("games", self.games)
            .field("summary", &self.summary.len())
            .finish_non_exhaustive()
    }
}

/// What [`render_into`] found while rendering.
#[derive(Debug, Default)]
pub struct Rendered {
    /// The slugs of a game whose egg documents [`Facts::documents`] did not give (a tree made
    /// elsewhere that lost one, or whose document does not decode): their pages are missing (a build must not publish such a snapshot).
    pub unreadable: Vec<String>,
}

/// Every web file for the published snapshot `files` (path -> bytes), from its documents: what
/// [`render_into`] puts, collected, with the facts read from the tree (for tests and tools; a
/// build hands [`render_into`] its own): the games of the documents its `_index.json` lists
/// ([`Groups::of_documents`]), its `_status.json` and `_removed.json`, and its summary items,
/// made from its documents as the build makes them (`games::summary_of_documents`, which also
/// puts `_summary.json` and the icons).
pub fn render(
    files: &BTreeMap<String, Vec<u8>>,
    options: &SiteOptions<'_>,
    reuse: &Reuse<'_>,
) -> BTreeMap<String, Vec<u8>> {
    let out = std::sync::Mutex::new(BTreeMap::new());
    let sink = |path: String, bytes: Vec<u8>| {
        let mut out = out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        out.insert(path, bytes);
    };
    let read = |path: &str| files.get(path).cloned();
    let index: Vec<eggcat_wire::IndexItem> = read_json(&read, paths::INDEX).unwrap_or_default();
    let games = Groups::of_documents(index.iter().map(|i| i.slug.as_str()), &read);
    let report: Report = read_json(&read, paths::STATUS).unwrap_or_default();
    let removed: Vec<Removed> = read_json(&read, paths::REMOVED).unwrap_or_default();
    let slugs = index.iter().map(|i| i.slug.as_str());
    let summary = games::summary_of_documents(slugs, &read, &games, &sink);
    let documents = games::decoded(&read);
    let histories = games::histories_decoded(&read);
    let facts = Facts {
        games: &games,
        report: &report,
        removed: &removed,
        summary: &summary,
        documents: &documents,
        histories: &histories,
    };
    render_into(&facts, options, reuse, &sink);
    out.into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Puts every web file for the snapshot `facts` tells of into `sink`, from its documents as
/// `facts` gives them (typed: nothing is read back from the snapshot's files). Eggs whose
/// documents are not given (a tree made elsewhere whose egg document does not parse) are left
/// out of the pages (they stay in the JSON API). The eggs are rendered one game at a time (`games`, the build's groups of eggs that serve
/// the same game), and only that game's documents are in memory meanwhile: a page shows its
/// game's eggs, never another's.
///
/// An egg page that stands ([`Reuse`]: the previous snapshot made it from the same inputs, which
/// are its egg document, its history document, the build report's warnings about its file, its
/// summary item, and the slugs and egg documents of its game) is taken from there instead of
/// being rendered again.
pub fn render_into(
    facts: &Facts<'_>,
    options: &SiteOptions<'_>,
    reuse: &Reuse<'_>,
    sink: Sink<'_>,
) -> Rendered {
    let base = options.base_url.trim_end_matches('/');
    let assets = layout::Assets {
        css: format!(
            "{}/eggcat-{:016x}.css",
            eggcat_wire::paths::ASSETS_DIR,
            fnv1a(CSS.as_bytes())
        ),
        js: format!(
            "{}/eggcat-{:016x}.js",
            eggcat_wire::paths::ASSETS_DIR,
            fnv1a(JS.as_bytes())
        ),
    };
    sink(assets.css.clone(), CSS.as_bytes().to_vec());
    sink(assets.js.clone(), JS.as_bytes().to_vec());

    let Facts {
        games,
        report: status,
        removed,
        summary: items,
        documents,
        histories,
    } = *facts;

    let mut readmes = readme::Renderer::new();
    // Each page shows the egg's siblings (other eggs for the same game): the catalog groups
    // them and, a game at a time, splits it into versions, diffs them and says what a page is
    // made from (`eggcat_catalog::games`).
    let mut siblings = Siblings::new(games, documents, histories);
    let mut versions = BTreeMap::new();
    let mut sha256 = BTreeMap::new();
    for game in siblings.games() {
        siblings.load(game);
        for slug in &siblings.shown_slugs().to_vec() {
            let found = items.binary_search_by(|i| i.slug.as_str().cmp(slug));
            let (Some(doc), Some(shown), Ok(at)) =
                (siblings.doc(slug), siblings.shown(slug), found)
            else {
                continue;
            };
            let item = &items[at];
            let warnings = egg_page::file_warnings(status, &doc.meta);
            sha256.insert(slug.clone(), doc.meta.sha256.clone());
            versions.insert(slug.clone(), shown.history.recent().to_vec());
            let page_path = eggcat_wire::paths::egg_page(slug);
            let key = siblings.page_key(slug, item, &warnings);
            let page = reuse.file(&page_path, &key).unwrap_or_else(|| {
                let (doc, shown, others) = siblings.of(slug);
                let related = egg_page::Related {
                    siblings: &others,
                    history: &shown.history,
                };
                egg_page::render(doc, item, related, &warnings, &assets, base, &mut readmes)
                    .into_bytes()
            });
            sink(page_path, page);
        }
    }
    let unreadable = siblings.unreadable().to_vec();
    drop(siblings);
    sink(
        eggcat_wire::paths::CATALOG_PAGE.to_owned(),
        catalog_page::render(items, status, &assets, base).into_bytes(),
    );
    sink(
        eggcat_wire::paths::ALL_EGGS_PAGE.to_owned(),
        catalog_page::all(items, &assets).into_bytes(),
    );
    sink(
        eggcat_wire::paths::NOT_FOUND_PAGE.to_owned(),
        not_found_page::render(base, &assets).into_bytes(),
    );
    sink(
        eggcat_wire::paths::STATUS_PAGE.to_owned(),
        status_page::render(status, removed, items, &assets).into_bytes(),
    );
    sink(
        eggcat_wire::paths::FEED.to_owned(),
        feed::render(items, &versions, &sha256, base).into_bytes(),
    );
    Rendered { unreadable }
}

fn read_json<T: serde::de::DeserializeOwned>(files: SnapshotFiles<'_>, path: &str) -> Option<T> {
    serde_json::from_slice(&files(path)?).ok()
}

/// FNV-1a, 64 bits: names the assets by their content (a cache key, not a security measure).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
