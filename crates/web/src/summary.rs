//! `api/v1/eggs/_summary.json`: per egg, what the catalog page shows and searches.
//!
//! One array sorted by slug. The search runs over it in the browser, and scripts can use it as
//! a richer index than `_index.json` (docs/web.md documents each field).

use eggcat_catalog::wire::ImageStatus;
use serde::Serialize;

use crate::model::{EggDoc, egg_strings, one_line};

/// Longest description kept in the summary and the catalog list, in characters.
pub(crate) const DESCRIPTION_CHARS: usize = 200;

/// One element of the summary.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SummaryItem {
    pub(crate) slug: String,
    pub(crate) name: String,
    /// The description's first non-empty line, at most [`DESCRIPTION_CHARS`] characters.
    pub(crate) description: String,
    pub(crate) category: String,
    pub(crate) source: String,
    pub(crate) owner: String,
    pub(crate) repo: String,
    /// Path of the egg file in its repository.
    pub(crate) path: String,
    pub(crate) format: String,
    pub(crate) tags: Vec<String>,
    pub(crate) images: Vec<String>,
    pub(crate) indexed_at: u64,
    /// When upstream last changed the file (Unix ms), as far as the history knows
    /// (`updated.rs`): what "Recently updated" sorts by.
    pub(crate) updated_at: u64,
    /// How `updatedAt` is known: `upstream` (the commit that last changed the file), `before`
    /// (the file is older than the history eggcat reads: it changed then or earlier) or
    /// `indexed` (no history: when eggcat first read this content).
    pub(crate) updated_from: &'static str,
    /// Path of the icon from the tree's root (`icons/{slug}.{ext}`), or null.
    pub(crate) icon: Option<String>,
    /// Whether each panel can import the egg (both false before the catalog knows).
    pub(crate) importable: Importable,
    /// The egg's game: the key of its sibling group (crate::siblings), the group's first slug.
    pub(crate) game: String,
    /// How many eggs the game has in the catalog, this one included.
    pub(crate) game_eggs: usize,
    /// Whether another egg for the same game would show the same card (name, description,
    /// category, source and format): the card then names the repository, `owner/repo`.
    pub(crate) lookalike: bool,
    /// How many of the egg's images (`meta.images`) their registry says do not exist.
    pub(crate) missing_images: usize,
    /// `meta.runsOn`: the platforms the egg runs on (the catalog's "Runs on" filter).
    pub(crate) runs_on: Vec<String>,
}

/// `importable` of a summary item.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Importable {
    pub(crate) pelican: bool,
    pub(crate) pterodactyl: bool,
}

/// The summary item of one egg, last updated as `updated` says.
pub(crate) fn item(
    doc: &EggDoc,
    icon: Option<String>,
    updated: crate::updated::Updated,
) -> SummaryItem {
    let m = &doc.meta;
    let mut images = egg_strings(&doc.egg, "docker_images");
    images.dedup();
    SummaryItem {
        slug: m.slug.clone(),
        name: m.name.clone(),
        description: one_line(
            crate::model::egg_str(&doc.egg, "description"),
            DESCRIPTION_CHARS,
        ),
        category: m.category.clone(),
        source: m.source.clone(),
        owner: m.owner.clone(),
        repo: m.repo.clone(),
        path: m.path.clone(),
        format: m.format.clone(),
        tags: egg_strings(&doc.egg, "tags"),
        images,
        indexed_at: m.indexed_at,
        updated_at: updated.at(),
        updated_from: updated.from(),
        icon,
        importable: Importable {
            pelican: m.import.pelican.importable,
            pterodactyl: m.import.pterodactyl.importable,
        },
        // Alone until the caller knows the groups (lib.rs sets both).
        game: m.slug.clone(),
        game_eggs: 1,
        lookalike: false,
        missing_images: m
            .images
            .iter()
            .filter(|i| i.status == ImageStatus::Missing)
            .count(),
        runs_on: m.runs_on.clone(),
    }
}

/// Marks the items that another item of the same game would show as the same card, so that
/// their cards name the repository (two "5e Tools" from two repositories looked alike).
pub(crate) fn mark_lookalikes(items: &mut [SummaryItem]) {
    let card = |i: &SummaryItem| {
        (
            i.game.clone(),
            i.name.clone(),
            i.description.clone(),
            i.category.clone(),
            i.source.clone(),
            i.format.clone(),
        )
    };
    let mut seen: std::collections::HashMap<_, usize> = std::collections::HashMap::new();
    for i in items.iter() {
        *seen.entry(card(i)).or_default() += 1;
    }
    for i in items.iter_mut() {
        i.lookalike = seen.get(&card(i)).is_some_and(|n| *n > 1);
    }
}
