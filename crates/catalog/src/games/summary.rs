//! `api/v1/eggs/_summary.json`: per egg, what the catalog page shows and searches.
//!
//! One array sorted by slug. The search runs over it in the browser, and scripts can use it as
//! a richer index than `_index.json` (docs/web.md documents each field).

use super::doc::{Doc, egg_str, egg_strings, one_line};
use super::updated::Updated;
use crate::wire::{ImageStatus, SummaryItem};
use crate::{Sink, paths};
use eggcat_wire::Importable;

/// Longest description kept in the summary and the catalog list, in characters.
pub const DESCRIPTION_CHARS: usize = 200;

/// The summary item of one egg, last updated as `updated` says.
pub fn item(doc: &Doc, icon: Option<String>, updated: Updated) -> SummaryItem {
    let m = &doc.meta;
    let mut images = egg_strings(&doc.egg, "docker_images");
    images.dedup();
    SummaryItem {
        slug: m.slug.clone(),
        name: m.name.clone(),
        description: one_line(egg_str(&doc.egg, "description"), DESCRIPTION_CHARS),
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
        updated_from: updated.from().to_owned(),
        icon,
        importable: Importable {
            pelican: m.import.pelican.importable,
            pterodactyl: m.import.pterodactyl.importable,
        },
        // Alone until the caller knows the game (`Siblings::load` sets both).
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

/// `api/v1/eggs/_summary.json` of the catalog whose eggs' items are `items` (in any order): the
/// items sorted by slug, lookalikes marked, put into `sink`, and returned as published.
pub fn summary(mut items: Vec<SummaryItem>, sink: Sink<'_>) -> Vec<SummaryItem> {
    items.sort_by(|a, b| a.slug.cmp(&b.slug));
    mark_lookalikes(&mut items);
    let bytes = serde_json::to_vec(&items).expect("the summary serializes");
    sink(paths::SUMMARY.to_owned(), bytes);
    items
}

/// Marks the items that another item of the same game would show as the same card, so that
/// their cards name the repository (two "5e Tools" from two repositories looked alike).
fn mark_lookalikes(items: &mut [SummaryItem]) {
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
