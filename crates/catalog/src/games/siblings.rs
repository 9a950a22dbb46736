//! The eggs for one game as the egg pages show them: each game's egg and history documents, its eggs split into versions, the changes from an egg to the eggs its
//! page compares it with (each diffed once, and only when a page needs it), the summary's
//! `game` fields, and what an egg page is made from of its game (its reuse key's part).
//!
//! A version is a set of eggs that run servers the same way: `eggcat_diff` finds no change
//! between them but to what the egg is called and how it is found (name, description, author,
//! uuid, update URL, icon, tags; [`same_version`]), such as an egg and its Pterodactyl twin or a
//! repository's copy of another's egg. An egg page compares its egg in full with each *other
//! version* of its game (through that version's first egg) and lists at most
//! [`LISTED`] eggs of each version, so the copies of an egg cost nothing on
//! the other pages and the pages of a game of n eggs weigh O(n) in all (docs/web.md, "Eggs for
//! the same game"). Copies that are the same egg byte for byte are one version without a diff;
//! each other egg is diffed with the first egg of each version found so far, at most
//! [`MAX_COMPARED`] of them, so that splitting a game costs at most that many diffs per egg,
//! and a page at most [`LISTED`] + [`MAX_COMPARED`] - 1 more.
//!
//! The documents of one game are taken at a time ([`Siblings::load`]), with what is learnt
//! from them (the eggs read for the diff, the diffs): a game's pages need no other game's eggs.
//! A build hands them on typed ([`EggDocuments`], [`HistoryDocuments`], from `Built::documents`);
//! only a tree made elsewhere (tests, tools) has its documents decoded ([`decoded`],
//! [`histories_decoded`]).
//!
//! An egg page shows its siblings, so it is made from more than its own egg document: its key
//! ([`Siblings::page_key`], `crate::reuse::Reuse`) holds the key of every egg document of its
//! game, with the slugs.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use eggcat_diff::{Change, Kind, Prepared};

use super::{Compared, Doc, Groups, LISTED, Loaded, Others, Sibling, Version, history_key};
use crate::paths;
use crate::reuse::{Inputs, Key};
use crate::wire::SummaryItem;

/// Reads a file of the snapshot being made, by its published path; `None` when it has none
/// (the caller's IO, as for [`crate::PreviousFiles`]).
pub type SnapshotFiles<'a> = &'a (dyn Fn(&str) -> Option<Vec<u8>> + Sync);

/// The egg documents of the snapshot being made, typed, by slug, each with the key of its
/// published bytes (`Inputs::new("egg document")`): what the build hands on
/// (`crate::Documents`), or the documents of a tree made elsewhere, decoded ([`decoded`]).
/// `None` for an egg without one, or whose egg does not read as a value: it has no page.
pub type EggDocuments<'a> = &'a (dyn Fn(&str) -> Option<(Doc, Key)> + Sync);

/// The history documents of the snapshot being made, by slug, each with the key of its published
/// bytes ([`history_key`]; of its having none, for an egg without one): what the build hands on
/// (`crate::Documents::history`), or the documents of a tree made elsewhere, decoded
/// ([`histories_decoded`]).
pub type HistoryDocuments<'a> = &'a (dyn Fn(&str) -> (Loaded, Key) + Sync);

/// The history documents `files` reads, decoded and keyed by their bytes: for a published tree
/// made elsewhere than by the build (tests, tools).
pub fn histories_decoded<'a>(
    files: SnapshotFiles<'a>,
) -> impl Fn(&str) -> (Loaded, Key) + Sync + 'a {
    move |slug| {
        let bytes = files(&paths::history(slug));
        let key = history_key(bytes.as_deref());
        (Loaded::of(bytes.as_deref()), key)
    }
}

/// The egg documents `files` reads, decoded and keyed by their bytes: for a published tree made
/// elsewhere than by the build (tests, tools).
pub fn decoded<'a>(files: SnapshotFiles<'a>) -> impl Fn(&str) -> Option<(Doc, Key)> + Sync + 'a {
    move |slug| {
        let bytes = files(&paths::egg(slug))?;
        let key = document_key(&bytes);
        Some((Doc::decode(&bytes)?, key))
    }
}

/// The key of an egg document's bytes, as a page's key holds it.
pub fn document_key(bytes: &[u8]) -> Key {
    Inputs::new("egg document").part("bytes", bytes).key()
}

/// The most versions a game may have for them to be compared: an egg page holds one
/// comparison per other version, and an upstream could name a thousand different eggs alike.
/// The largest game of the ten shared repositories has four.
pub const MAX_COMPARED: usize = 12;

/// The catalog's games as a render goes through them, and what it has learnt about the game
/// loaded.
pub struct Siblings<'a> {
    /// The catalog's games ([`Groups`]).
    groups: &'a Groups,
    /// The slugs of the game loaded last ([`Siblings::load`]) whose documents decode, sorted:
    /// the game as its pages show it.
    game: Vec<String>,
    /// Their documents, by slug.
    docs: BTreeMap<String, Doc>,
    /// What their pages show besides the documents, by slug.
    shown: BTreeMap<String, Shown>,
    /// The slugs of the games loaded so far that have no document in `docs_of`.
    unreadable: Vec<String>,
    docs_of: EggDocuments<'a>,
    /// Gives the history documents.
    histories: HistoryDocuments<'a>,
    /// The key of the bytes of each egg document of the game loaded, by slug (one that cannot
    /// be read has none).
    keys: BTreeMap<String, Key>,
    /// The versions of the game loaded, by its key (its first slug); `None` for a game of more than
    /// [`MAX_COMPARED`] versions.
    versions: BTreeMap<String, Option<Rc<Versions>>>,
    /// The changes from the first slug to the second, in the game loaded.
    diffs: BTreeMap<(String, String), Vec<Change>>,
    /// Eggs of the game loaded read for the diff, each once however many eggs it is compared
    /// with.
    prepared: BTreeMap<String, Prepared>,
}

impl std::fmt::Debug for Siblings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Siblings")
            .field("game", &self.game)
            .finish_non_exhaustive()
    }
}

/// What the pages show of one egg of the game loaded besides its document: its history.
#[derive(Debug)]
pub struct Shown {
    /// Its history document.
    pub history: Loaded,
    /// The key of its history document's bytes (or of its having none).
    history_key: Key,
}

/// One game's versions.
#[derive(Debug)]
struct Versions {
    /// Each version's slugs, sorted; the versions in the order of their first slugs.
    list: Vec<Vec<String>>,
}

impl<'a> Siblings<'a> {
    /// The games `groups`, whose egg documents `docs` gives and whose history documents
    /// `histories` gives.
    pub fn new(
        groups: &'a Groups,
        docs: EggDocuments<'a>,
        histories: HistoryDocuments<'a>,
    ) -> Siblings<'a> {
        Siblings {
            groups,
            game: Vec::new(),
            docs: BTreeMap::new(),
            shown: BTreeMap::new(),
            unreadable: Vec::new(),
            docs_of: docs,
            histories,
            keys: BTreeMap::new(),
            versions: BTreeMap::new(),
            diffs: BTreeMap::new(),
            prepared: BTreeMap::new(),
        }
    }

    /// Every game (each a group of slugs, sorted), in order.
    pub fn games(&self) -> &'a [Vec<String>] {
        self.groups.all()
    }

    /// The slugs of the egg's game as its pages show it (itself included, sorted): the game
    /// loaded, when the egg is in it; else none.
    fn group(&self, slug: &str) -> &[String] {
        if self.docs.contains_key(slug) {
            &self.game
        } else {
            &[]
        }
    }

    /// Takes the documents of `game`, in place of the game loaded before and what was learnt
    /// from its eggs.
    pub fn load(&mut self, game: &[String]) {
        self.game.clear();
        self.docs.clear();
        self.shown.clear();
        self.keys.clear();
        self.versions.clear();
        self.prepared.clear();
        self.diffs.clear();
        for slug in game {
            let Some((doc, key)) = (self.docs_of)(slug) else {
                self.unreadable.push(slug.clone());
                continue;
            };
            self.keys.insert(slug.clone(), key);
            self.game.push(slug.clone());
            self.docs.insert(slug.clone(), doc);
        }
        for slug in &self.game {
            let (history, history_key) = (self.histories)(slug);
            let shown = Shown {
                history,
                history_key,
            };
            self.shown.insert(slug.clone(), shown);
        }
    }

    /// The slugs of the game loaded whose documents decode: the eggs that have pages.
    pub fn shown_slugs(&self) -> &[String] {
        &self.game
    }

    /// The slugs of every game loaded so far whose egg document was not given (a tree made
    /// elsewhere that lost one, or whose document does not decode): their pages are missing,
    /// which a caller must not publish.
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }

    /// What the pages show of an egg of the game loaded besides its document.
    pub fn shown(&self, slug: &str) -> Option<&Shown> {
        self.shown.get(slug)
    }

    /// The key of what the page of `slug` (of the game loaded) is made from: its egg document,
    /// its history document, its summary item and the build report's `warnings` about its file
    /// (both given by the caller), and the slugs and egg documents of every egg of its game.
    pub fn page_key<T: serde::Serialize + ?Sized>(
        &self,
        slug: &str,
        item: &SummaryItem,
        warnings: &T,
    ) -> Key {
        let key = |s: &str| self.keys.get(s).map_or("", |k| k.as_str());
        let mut inputs = Inputs::new("egg page").part("document", key(slug).as_bytes());
        if let Some(shown) = self.shown.get(slug) {
            inputs = inputs.part("history", shown.history_key.as_str().as_bytes());
        }
        inputs = inputs
            .value("summary item", item)
            .value("warnings", warnings);
        for sibling in self.group(slug) {
            inputs = inputs
                .part("sibling", sibling.as_bytes())
                .part("sibling document", key(sibling).as_bytes());
        }
        inputs.key()
    }

    /// The document of an egg of the game loaded.
    pub fn doc(&self, slug: &str) -> Option<&Doc> {
        self.docs.get(slug)
    }

    /// The egg read for the diff, once.
    fn prepare(&mut self, slug: &str) -> &Prepared {
        if !self.prepared.contains_key(slug) {
            let egg = self.docs.get(slug).map(|d| &d.egg);
            let prepared = eggcat_diff::prepare(egg.unwrap_or(&serde_json::Value::Null));
            self.prepared.insert(slug.to_owned(), prepared);
        }
        &self.prepared[slug]
    }

    /// The changes from `a` to `b`, diffed once.
    fn changes(&mut self, a: &str, b: &str) -> &[Change] {
        let key = (a.to_owned(), b.to_owned());
        if !self.diffs.contains_key(&key) {
            self.prepare(a);
            self.prepare(b);
            let list = eggcat_diff::diff_prepared(&self.prepared[a], &self.prepared[b]);
            self.diffs.insert(key.clone(), list);
        }
        &self.diffs[&key]
    }

    /// The versions of the group `group` (sorted, more than one egg), or `None` past
    /// [`MAX_COMPARED`] versions.
    fn split(&mut self, group: &[String]) -> Option<Versions> {
        let mut list: Vec<Vec<String>> = Vec::new();
        // An egg published byte for byte as an earlier one (a copy) is its version.
        let mut by_egg: HashMap<String, usize> = HashMap::new();
        for slug in group {
            let egg = self.docs.get(slug.as_str()).map(|d| d.egg.to_string());
            let egg = egg.unwrap_or_default();
            let known = match by_egg.get(&egg) {
                Some(&v) => Some(v),
                None => {
                    self.prepare(slug);
                    let mut found = None;
                    for (v, members) in list.iter().enumerate() {
                        self.prepare(&members[0]);
                        let (first, this) = (&self.prepared[&members[0]], &self.prepared[slug]);
                        if same_version(&eggcat_diff::diff_prepared(first, this)) {
                            found = Some(v);
                            break;
                        }
                    }
                    found
                }
            };
            let v = match known {
                Some(v) => v,
                None if list.len() == MAX_COMPARED => return None,
                None => {
                    list.push(Vec::new());
                    list.len() - 1
                }
            };
            list[v].push(slug.clone());
            by_egg.insert(egg, v);
        }
        Some(Versions { list })
    }

    /// The egg's document (of the game loaded), what else is shown of it, and its page's
    /// siblings: the first [`LISTED`]
    /// other eggs of its version and each other version, with the changes from this egg to
    /// each.
    pub fn of(&mut self, slug: &str) -> (&Doc, &Shown, Others<'_>) {
        self.learn(slug);
        (&self.docs[slug], &self.shown[slug], self.others(slug))
    }

    /// Splits the egg's game into versions, once, and diffs the egg with the eggs its page
    /// compares it with.
    fn learn(&mut self, slug: &str) {
        let group = self.group(slug);
        if group.len() < 2 {
            return;
        }
        let key = group[0].clone();
        if !self.versions.contains_key(&key) {
            let group = group.to_vec();
            let split = self.split(&group).map(Rc::new);
            self.versions.insert(key.clone(), split);
        }
        let Some(versions) = self.versions[&key].clone() else {
            return;
        };
        let Some((same, firsts)) = compared(&versions, slug) else {
            return;
        };
        for other in same.iter().chain(&firsts) {
            self.changes(slug, other);
        }
    }

    /// The egg page's siblings, once [`Siblings::learn`] has run for it.
    fn others(&self, slug: &str) -> Others<'_> {
        let group = self.group(slug);
        if group.len() < 2 {
            return Others::Alone;
        }
        let eggs = group.len();
        let Some(versions) = &self.versions[&group[0]] else {
            return Others::TooMany(eggs);
        };
        let Some((same, _)) = compared(versions, slug) else {
            return Others::Alone;
        };
        let mine = mine(versions, slug).expect("compared found it");
        let (docs, diffs) = (&self.docs, &self.diffs);
        let changes = |other: &str| diffs[&(slug.to_owned(), other.to_owned())].as_slice();
        let others = versions
            .list
            .iter()
            .enumerate()
            .filter(|(v, _)| *v != mine)
            .map(|(_, members)| Version {
                doc: &docs[members[0].as_str()],
                more: (members[1..].iter().take(LISTED))
                    .map(|s| &docs[s.as_str()].meta)
                    .collect(),
                more_total: members.len() - 1,
                changes: changes(&members[0]),
            })
            .collect();
        Others::Compared(Compared {
            eggs,
            versions: versions.list.len(),
            same: same
                .iter()
                .map(|s| Sibling {
                    meta: &docs[s.as_str()].meta,
                    changes: changes(s),
                })
                .collect(),
            same_total: versions.list[mine].len() - 1,
            others,
        })
    }
}

/// The index of the version of `slug`.
fn mine(versions: &Versions, slug: &str) -> Option<usize> {
    versions
        .list
        .iter()
        .position(|v| v.binary_search_by(|s| s.as_str().cmp(slug)).is_ok())
}

/// The eggs the page of `slug` compares it with: a few of its own version, and the first of
/// each other; `None` when `slug` is in no version.
fn compared<'v>(versions: &'v Versions, slug: &str) -> Option<(Vec<&'v String>, Vec<&'v String>)> {
    let mine = mine(versions, slug)?;
    let same = versions.list[mine]
        .iter()
        .filter(|s| *s != slug)
        .take(LISTED)
        .collect();
    let firsts = versions
        .list
        .iter()
        .enumerate()
        .filter(|(v, _)| *v != mine)
        .map(|(_, members)| &members[0])
        .collect();
    Some((same, firsts))
}

/// Whether eggs with these changes between them run servers the same way: the changes touch
/// nothing but what the egg is called and how it is found (name, description, author, uuid,
/// update URL, icon, tags), none of which a server sees.
fn same_version(changes: &[Change]) -> bool {
    changes.iter().all(|c| {
        !c.breaking
            && matches!(
                c.kind,
                Kind::NameChanged
                    | Kind::DescriptionChanged
                    | Kind::AuthorChanged
                    | Kind::UuidChanged
                    | Kind::UpdateUrlChanged
                    | Kind::IconChanged
                    | Kind::TagAdded
                    | Kind::TagRemoved
            )
    })
}
