//! `api/v1/eggs/_summary.json`: per egg, what the catalog page shows and searches.
//!
//! One array sorted by slug. The search runs over it in the browser, and scripts can use it as
//! a richer index than `_index.json` (docs/web.md documents each field).

use serde_json::Value;

use super::doc::{Doc, docker_images, egg_str, egg_strings, one_line};
use super::history::Loaded;
use super::updated::Updated;
use super::{Groups, icon};
use crate::wire::{ImageStatus, Meta, SummaryItem};
use crate::{Sink, paths};
use eggcat_wire::Importable;

/// Longest description kept in the summary and the catalog list, in characters.
pub const DESCRIPTION_CHARS: usize = 200;

/// What the summary item of an egg reads from the egg itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EggFields {
    /// Its `description`'s first line, clipped to [`DESCRIPTION_CHARS`].
    pub description: String,
    /// Its `tags`.
    pub tags: Vec<String>,
    /// Its docker images (a run of one image repeated counted once).
    pub images: Vec<String>,
}

impl EggFields {
    /// The fields of the upstream egg `egg`.
    pub fn of(egg: &Value) -> EggFields {
        let mut images: Vec<String> = docker_images(egg).into_iter().map(|(_, i)| i).collect();
        images.dedup();
        EggFields {
            description: one_line(egg_str(egg, "description"), DESCRIPTION_CHARS),
            tags: egg_strings(egg, "tags"),
            images,
        }
    }
}

/// The summary item of the egg whose document's `meta` is `m` and whose egg has `fields`, with
/// its icon's path, last updated as `updated` says, in the catalog's games `games`.
pub fn item(
    m: &Meta,
    fields: EggFields,
    icon: Option<String>,
    updated: Updated,
    games: &Groups,
) -> SummaryItem {
    SummaryItem {
        slug: m.slug.clone(),
        name: m.name.clone(),
        description: fields.description,
        category: m.category.clone(),
        source: m.source.clone(),
        owner: m.owner.clone(),
        repo: m.repo.clone(),
        path: m.path.clone(),
        format: m.format.clone(),
        tags: fields.tags,
        images: fields.images,
        indexed_at: m.indexed_at,
        updated_at: updated.at(),
        updated_from: updated.from().to_owned(),
        icon,
        importable: Importable {
            pelican: m.import.pelican.importable,
            pterodactyl: m.import.pterodactyl.importable,
        },
        game: games.key(&m.slug).to_owned(),
        game_eggs: games.group(&m.slug).len().max(1),
        // Set over the whole catalog by [`summary`].
        lookalike: false,
        missing_images: m
            .images
            .iter()
            .filter(|i| i.status == ImageStatus::Missing)
            .count(),
        missing_downloads: m
            .downloads
            .iter()
            .filter(|d| d.status == ImageStatus::Missing)
            .count(),
        runs_on: m.runs_on.clone(),
        aliases: super::aliases::of(&m.name),
        name_forms: super::name_forms::of(&m.name),
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

/// `_summary.json` of a published tree made elsewhere than by the build (tests, tools), from its
/// documents: for each egg of `slugs` whose document `read` gives and decodes, its item, made as
/// the build makes it (its icon's file put into `sink` too, its date from its history
/// document), in the games `groups`; then [`summary`].
pub fn summary_of_documents<'s>(
    slugs: impl IntoIterator<Item = &'s str>,
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    groups: &Groups,
    sink: Sink<'_>,
) -> Vec<SummaryItem> {
    let mut items = Vec::new();
    for slug in slugs {
        let Some(doc) = read(&paths::egg(slug)).and_then(|b| Doc::decode(&b)) else {
            continue;
        };
        let icon = icon::put(slug, &doc.egg, sink);
        let history = Loaded::of(read(&paths::history(slug)).as_deref());
        let updated = Updated::of(&history, doc.meta.indexed_at);
        let fields = EggFields::of(&doc.egg);
        items.push(item(&doc.meta, fields, icon, updated, groups));
    }
    summary(items, sink)
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
