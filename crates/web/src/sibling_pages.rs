//! The sibling groups of one render: the summary's `game` fields, the changes between siblings
//! (each ordered pair diffed at most once, and only when a page needs it), the comparison pages,
//! and whether a page of the previous snapshot still holds.
//!
//! An egg page now shows its siblings, so it depends on more than its own egg document: it is
//! taken from the previous snapshot only when its group has the same slugs as there (read from
//! the previous `_summary.json`, whose `game` fields name the groups) and every egg document of
//! the group is unchanged. A comparison page depends on what it shows of its two egg documents
//! alone (`compare::Shown`: not on `meta.commit` or `indexedAt`, which it does not show).

use std::collections::BTreeMap;

use eggcat_catalog::wire::EggDocument;
use eggcat_catalog::{PreviousFiles, paths};
use eggcat_diff::{Change, Prepared};

use crate::compare::{self, Others, Sibling};
use crate::layout::Assets;
use crate::model::{EggDoc, egg_str};
use crate::siblings::{Groups, Member};
use crate::summary::SummaryItem;

/// The most eggs a game may have for its eggs to be compared: a game of n eggs has n(n-1)
/// comparison pages, and an upstream could name a thousand eggs alike. The largest game of the
/// ten shared repositories has four.
pub(crate) const MAX_COMPARED: usize = 12;

/// The groups of a render and what it has learnt about them.
pub(crate) struct Siblings<'a> {
    groups: Groups,
    docs: BTreeMap<&'a str, &'a EggDoc>,
    files: &'a BTreeMap<String, Vec<u8>>,
    previous: PreviousFiles<'a>,
    /// Slug to whether its egg document is byte-identical to the previous snapshot's.
    unchanged: BTreeMap<String, bool>,
    /// Slug to whether its comparison pages show the same of it as the previous snapshot's.
    shown_unchanged: BTreeMap<String, bool>,
    /// The previous snapshot's groups (each sorted), by slug; `None` without a readable summary.
    previous_groups: Option<BTreeMap<String, Vec<String>>>,
    /// The changes from the first slug to the second.
    diffs: BTreeMap<(String, String), Vec<Change>>,
    /// Eggs read for the diff, each once however many siblings it is compared with.
    prepared: BTreeMap<String, Prepared>,
}

impl<'a> Siblings<'a> {
    /// The groups of `docs`, the published tree `files` and the previous snapshot's reader.
    pub(crate) fn new(
        docs: &'a [EggDoc],
        files: &'a BTreeMap<String, Vec<u8>>,
        previous: PreviousFiles<'a>,
    ) -> Siblings<'a> {
        let members: Vec<Member<'_>> = docs
            .iter()
            .map(|d| Member {
                slug: &d.meta.slug,
                name: &d.meta.name,
                uuid: egg_str(&d.egg, "uuid"),
            })
            .collect();
        Siblings {
            groups: Groups::new(&members),
            docs: docs.iter().map(|d| (d.meta.slug.as_str(), d)).collect(),
            files,
            previous,
            unchanged: BTreeMap::new(),
            shown_unchanged: BTreeMap::new(),
            previous_groups: None,
            diffs: BTreeMap::new(),
            prepared: BTreeMap::new(),
        }
    }

    /// Sets the summary item's `game` and `gameEggs`.
    pub(crate) fn set_game(&self, item: &mut SummaryItem) {
        item.game = self.groups.key(&item.slug).to_owned();
        item.game_eggs = self.groups.group(&item.slug).len().max(1);
    }

    /// Whether the egg's document is the previous snapshot's, byte for byte.
    pub(crate) fn doc_unchanged(&mut self, slug: &str) -> bool {
        if let Some(&known) = self.unchanged.get(slug) {
            return known;
        }
        let path = paths::egg(slug);
        let same = (self.previous)(&path).as_deref() == self.files.get(&path).map(Vec::as_slice);
        self.unchanged.insert(slug.to_owned(), same);
        same
    }

    /// Whether the comparison pages show the same of the egg as the previous snapshot's
    /// ([`compare::Shown`]): its document is unchanged, or changed only where they do not look.
    fn shown_unchanged(&mut self, slug: &str) -> bool {
        if self.doc_unchanged(slug) {
            return true;
        }
        if let Some(&known) = self.shown_unchanged.get(slug) {
            return known;
        }
        let path = paths::egg(slug);
        let decode = |bytes: &[u8]| serde_json::from_slice::<EggDocument>(bytes).ok();
        let before = (self.previous)(&path);
        let same = match (before.as_deref().and_then(decode), self.files.get(&path)) {
            (Some(before), Some(now)) => {
                decode(now).is_some_and(|now| compare::shown(&before) == compare::shown(&now))
            }
            _ => false,
        };
        self.shown_unchanged.insert(slug.to_owned(), same);
        same
    }

    /// Whether the egg's siblings are what the previous snapshot's page showed: the same group
    /// (the egg alone included) and every sibling's document unchanged.
    pub(crate) fn siblings_unchanged(&mut self, slug: &str) -> bool {
        let group: Vec<String> = self.groups.group(slug).to_vec();
        let before = self.previous_groups().get(slug).cloned();
        let same_group = match before {
            Some(before) => before == group,
            // Not in the previous summary: the page was not there either, or cannot be trusted.
            None => false,
        };
        same_group && group.iter().all(|s| self.doc_unchanged(s))
    }

    fn previous_groups(&mut self) -> &BTreeMap<String, Vec<String>> {
        self.previous_groups.get_or_insert_with(|| {
            #[derive(serde::Deserialize)]
            struct Item {
                slug: String,
                game: Option<String>,
            }
            let items: Vec<Item> = (self.previous)(paths::SUMMARY)
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or_default();
            let mut by_game: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for i in &items {
                if let Some(g) = &i.game {
                    by_game.entry(g).or_default().push(i.slug.clone());
                }
            }
            let mut out = BTreeMap::new();
            for i in &items {
                if let Some(g) = &i.game {
                    let mut members = by_game[g.as_str()].clone();
                    members.sort();
                    out.insert(i.slug.clone(), members);
                }
            }
            out
        })
    }

    /// The changes from `a` to `b`, diffed once.
    fn changes(&mut self, a: &str, b: &str) -> &[Change] {
        let key = (a.to_owned(), b.to_owned());
        if !self.diffs.contains_key(&key) {
            let list = match (self.docs.get(a).copied(), self.docs.get(b).copied()) {
                (Some(x), Some(y)) => {
                    for (slug, doc) in [(a, x), (b, y)] {
                        if !self.prepared.contains_key(slug) {
                            self.prepared
                                .insert(slug.to_owned(), eggcat_diff::prepare(&doc.egg));
                        }
                    }
                    eggcat_diff::diff_prepared(&self.prepared[a], &self.prepared[b])
                }
                _ => Vec::new(),
            };
            self.diffs.insert(key.clone(), list);
        }
        &self.diffs[&key]
    }

    /// The egg page's siblings, each with the changes from this egg to it.
    pub(crate) fn of(&mut self, slug: &str) -> Others<'_> {
        let size = self.groups.group(slug).len();
        if size > MAX_COMPARED {
            return Others::TooMany(size);
        }
        let others: Vec<String> = self.groups.siblings(slug).map(str::to_owned).collect();
        for o in &others {
            self.changes(slug, o);
        }
        Others::Compared(
            others
                .iter()
                .filter_map(|o| {
                    Some(Sibling {
                        meta: &self.docs.get(o.as_str())?.meta,
                        changes: &self.diffs[&(slug.to_owned(), o.clone())],
                    })
                })
                .collect(),
        )
    }

    /// Every comparison page (both directions of every pair of siblings, in games of at most
    /// [`MAX_COMPARED`] eggs) into `out`; a page whose two eggs show the same as in the previous
    /// snapshot ([`compare::Shown`]) is taken from there.
    pub(crate) fn pages(&mut self, assets: &Assets, out: &mut BTreeMap<String, Vec<u8>>) {
        let groups: Vec<Vec<String>> = self
            .groups
            .with_siblings()
            .filter(|g| g.len() <= MAX_COMPARED)
            .map(<[_]>::to_vec)
            .collect();
        for group in groups {
            for a in &group {
                for b in group.iter().filter(|b| *b != a) {
                    let path = paths::compare_page(a, b);
                    let kept = if self.shown_unchanged(a) && self.shown_unchanged(b) {
                        (self.previous)(&path)
                    } else {
                        None
                    };
                    let page = match kept {
                        Some(page) => page,
                        None => {
                            let (x, y) = (self.docs[a.as_str()], self.docs[b.as_str()]);
                            compare::page(x, y, self.changes(a, b), assets).into_bytes()
                        }
                    };
                    out.insert(path, page);
                }
            }
        }
    }
}
