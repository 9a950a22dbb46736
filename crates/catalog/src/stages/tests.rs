//! Unit tests of the build on in-memory inputs (no git, no disk): the catalog's invariants at
//! its own boundary. The previous catalog of a second build is decoded from the first build's
//! documents, as a rebuild reads it from its snapshot.

use std::collections::BTreeMap;

use serde_json::Value;

use super::*;
use crate::history::SourceHistory;
use crate::paths;
use crate::scan::{EntryKind, TreeEntry, scan};
use crate::wire::{SHARED_UUID, SourceStatus};

const BASE: &str = "https://eggcat.example";

fn egg(name: &str, uuid: Option<&str>) -> String {
    let uuid = uuid.map_or(String::new(), |u| format!(r#""uuid": "{u}","#));
    format!(
        r#"{{"_comment": "x", {uuid} "meta": {{"version": "PTDL_v2", "update_url": null}},
        "name": "{name}", "author": "a@b.c", "description": "about {name}",
        "startup": "./run", "variables": []}}"#
    )
}

/// A source `owner/repo` scanned from `files` (path, text) at `commit`, with the history
/// `history`.
fn scanned(files: &[(&str, String)], commit: &str, history: SourceHistory) -> Fetched {
    let entries: Vec<TreeEntry> = files
        .iter()
        .map(|(path, text)| TreeEntry {
            path: (*path).to_owned(),
            kind: EntryKind::File,
            size: text.len() as u64,
            content: Some(text.clone().into_bytes()),
        })
        .collect();
    Fetched::Scanned {
        branch: "main".to_owned(),
        commit: commit.to_owned(),
        scan: scan(&entries),
        history: Box::new(history),
    }
}

fn info(owner: &str, repo: &str) -> SourceInfo {
    SourceInfo {
        key: format!("https://git.example/{owner}/{repo}#main"),
        url: format!("https://git.example/{owner}/{repo}"),
        label: owner.to_owned(),
        owner: owner.to_owned(),
        repo: repo.to_owned(),
        raw_url: "https://raw.example/{owner}/{repo}/{branch}/{path}".to_owned(),
    }
}

fn ctx(now_ms: u64) -> BuildContext {
    BuildContext {
        base_url: BASE.to_owned(),
        build_id: format!("b{now_ms}"),
        started_at_ms: now_ms,
        now_ms,
        derivation: "code".to_owned(),
        images: Default::default(),
        downloads: Default::default(),
    }
}

fn run(inputs: Vec<(SourceInfo, Fetched)>, previous: Previous, now_ms: u64) -> Catalog {
    let inputs = inputs
        .into_iter()
        .map(|(info, fetched)| SourceInput { info, fetched })
        .collect();
    build(inputs, previous, &ctx(now_ms), &Reuse::none())
}

/// The previous catalog a rebuild decodes from `catalog`'s snapshot, and the reuse rule over its
/// keys and files.
fn previous_of(catalog: &Catalog) -> (Previous, Reuse<'_>) {
    let state = serde_json::to_vec(&catalog.state).unwrap();
    let state = Previous::decode_state(&state).unwrap();
    let read = |path: &str| {
        catalog
            .files
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::ErrorKind::NotFound.into())
    };
    let previous = Previous::decode(state, &read).unwrap();
    let reuse = Reuse::new(previous.keys.clone(), |path: &str| {
        catalog.files.get(path).cloned()
    });
    (previous, reuse)
}

fn json(catalog: &Catalog, path: &str) -> Value {
    serde_json::from_slice(&catalog.files[path]).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The slug of the egg at `path`.
fn slug_of(catalog: &Catalog, path: &str) -> String {
    slugs(catalog)
        .into_iter()
        .find(|s| json(catalog, &paths::egg(s))["meta"]["path"] == path)
        .unwrap_or_else(|| panic!("no egg at {path}"))
}

fn slugs(catalog: &Catalog) -> Vec<String> {
    let index = json(catalog, paths::INDEX);
    index
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["slug"].as_str().unwrap().to_owned())
        .collect()
}

/// Two sources; `b` has an egg at the same path as `a`'s, and two of `a`'s share a stem.
fn two_sources() -> Vec<(SourceInfo, Fetched)> {
    let a = [
        ("games/paper/egg-paper.json", egg("Paper", None)),
        ("games/paper2/egg-paper.json", egg("Paper Two", None)),
        ("voice/egg-mumble.json", egg("Mumble", None)),
    ];
    let b = [("games/paper/egg-paper.json", egg("Paper B", None))];
    vec![
        (
            info("beta", "eggs"),
            scanned(&b, "c-b1", SourceHistory::default()),
        ),
        (
            info("alpha", "eggs"),
            scanned(&a, "c-a1", SourceHistory::default()),
        ),
    ]
}

#[test]
fn every_egg_once_with_unique_slugs_whatever_the_configuration_order() {
    let catalog = run(two_sources(), Previous::default(), 1000);
    let listed = slugs(&catalog);
    assert_eq!(listed.len(), 4, "{listed:?}");
    let unique: std::collections::BTreeSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), 4, "slugs are unique: {listed:?}");
    let origins: std::collections::BTreeSet<(String, String)> = listed
        .iter()
        .map(|s| {
            let doc = json(&catalog, &paths::egg(s));
            (
                doc["meta"]["owner"].as_str().unwrap().to_owned(),
                doc["meta"]["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(origins.len(), 4, "each upstream file once");
    // The other configuration order gives the same documents but the report's source order.
    let mut reversed = two_sources();
    reversed.reverse();
    let other = run(reversed, Previous::default(), 1000);
    for (path, bytes) in &catalog.files {
        if path != paths::STATUS {
            assert_eq!(bytes, &other.files[path], "{path}");
        }
    }
}

#[test]
fn slug_collisions_are_told_apart_by_folder_then_owner() {
    let catalog = run(two_sources(), Previous::default(), 1000);
    // `paper` is the stem of three files: two in one repository (told apart by folder), one of
    // them at the same path as another owner's (told apart by owner).
    assert_eq!(
        slugs(&catalog),
        [
            "alpha-eggs-games-paper-paper",
            "beta-eggs-games-paper-paper",
            "eggs-games-paper2-paper",
            "eggs-mumble",
        ]
    );
}

#[test]
fn the_same_input_gives_byte_identical_output() {
    let first = run(two_sources(), Previous::default(), 1000);
    let second = run(two_sources(), Previous::default(), 1000);
    assert_eq!(first.files, second.files);
    assert_eq!(first.state, second.state);
}

#[test]
fn a_failed_source_and_an_emptied_source_keep_their_previous_eggs() {
    let first = run(two_sources(), Previous::default(), 1000);
    let (previous, reuse) = previous_of(&first);
    let failed = Fetched::Failed {
        branch: None,
        error: "git ls-remote failed".to_owned(),
    };
    let emptied = scanned(
        &[("README.md", "gone".to_owned())],
        "c-a2",
        SourceHistory::default(),
    );
    let inputs = vec![
        (info("beta", "eggs"), failed),
        (info("alpha", "eggs"), emptied),
    ]
    .into_iter()
    .map(|(info, fetched)| SourceInput { info, fetched })
    .collect();
    let second = build(inputs, previous, &ctx(2000), &reuse);
    assert_eq!(
        slugs(&second),
        slugs(&first),
        "nothing upstream empties the catalog"
    );
    let sources = &second.report.sources;
    assert!(
        sources
            .iter()
            .all(|s| s.status == SourceStatus::Failed && s.kept_previous)
    );
    assert!(
        sources[1]
            .error
            .as_deref()
            .unwrap()
            .ends_with(KEPT_PREVIOUS_EGGS)
    );
    // The kept eggs are the same documents; their commit stays the one they were read at.
    for slug in slugs(&first) {
        assert_eq!(
            first.files[&paths::egg(&slug)],
            second.files[&paths::egg(&slug)],
            "{slug}"
        );
    }
    assert_eq!(json(&second, paths::REMOVED), serde_json::json!([]));
}

#[test]
fn upstream_uuids_are_kept_once_and_a_shared_one_is_derived_for_the_later_egg() {
    let u = "8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5a";
    let files = [
        ("a/egg-one.json", egg("One", Some(u))),
        ("b/egg-two.json", egg("Two", Some(&u.to_ascii_uppercase()))),
        ("c/egg-three.json", egg("Three", Some("not-a-uuid"))),
    ];
    let catalog = run(
        vec![(
            info("o", "r"),
            scanned(&files, "c1", SourceHistory::default()),
        )],
        Previous::default(),
        1000,
    );
    let meta = |path: &str| json(&catalog, &paths::egg(&slug_of(&catalog, path)))["meta"].clone();
    assert_eq!(
        meta("a/egg-one.json")["uuid"],
        u,
        "the first holder keeps upstream's uuid"
    );
    let two = meta("b/egg-two.json");
    assert_ne!(
        two["uuid"].as_str().unwrap().to_ascii_lowercase(),
        u,
        "the later twin gets a derived uuid"
    );
    assert_eq!(
        two["uuid"],
        eggcat_panels::stable_uuid("o/r/b/egg-two.json")
    );
    assert_eq!(
        meta("c/egg-three.json")["uuid"],
        eggcat_panels::stable_uuid("o/r/c/egg-three.json")
    );
    for slug in ["a/egg-one.json", "b/egg-two.json"] {
        let diagnostics = meta(slug)["diagnostics"].clone();
        let codes: Vec<&Value> = diagnostics
            .as_array()
            .unwrap()
            .iter()
            .map(|d| &d["code"])
            .collect();
        assert!(codes.iter().any(|c| *c == SHARED_UUID), "{slug}: {codes:?}");
    }
    let warned: Vec<&str> = catalog
        .report
        .warnings
        .iter()
        .map(|w| w.path.as_str())
        .collect();
    assert!(
        warned.contains(&"b/egg-two.json"),
        "the collision is reported: {warned:?}"
    );
    // The import file carries the uuid of the document.
    let ptdl: Value = serde_json::from_slice(
        &catalog.files[&paths::egg_file(
            &slug_of(&catalog, "b/egg-two.json"),
            paths::import::PTERODACTYL_JSON,
        )],
    )
    .unwrap();
    assert_eq!(ptdl["uuid"], two["uuid"]);
}

#[test]
fn a_kept_egg_keeps_its_history_document_and_the_shared_uuid_finding_is_not_doubled() {
    let u = "8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5a";
    let files = [
        ("a/egg-one.json", egg("One", Some(u))),
        ("b/egg-two.json", egg("Two", Some(u))),
    ];
    let history = SourceHistory {
        depth: "to a depth of 7 commits".to_owned(),
        ..SourceHistory::default()
    };
    let first = run(
        vec![(info("o", "r"), scanned(&files, "c1", history))],
        Previous::default(),
        1000,
    );
    let (previous, reuse) = previous_of(&first);
    let input = SourceInput {
        info: info("o", "r"),
        fetched: Fetched::Unchanged,
    };
    let second = build(vec![input], previous, &ctx(2000), &reuse);
    for slug in slugs(&first) {
        let slug = slug.as_str();
        assert_eq!(
            first.files[&paths::history(slug)],
            second.files[&paths::history(slug)],
            "{slug}: the kept egg's history is the previous document"
        );
        assert_eq!(
            first.files[&paths::egg(slug)],
            second.files[&paths::egg(slug)],
            "{slug}: one E017, not two"
        );
    }
    // With no previous document, a kept egg's history says why there is none.
    let (previous, _) = previous_of(&first);
    let input = SourceInput {
        info: info("o", "r"),
        fetched: Fetched::Unchanged,
    };
    let third = build(vec![input], previous, &ctx(3000), &Reuse::none());
    let history = json(&third, &paths::history(&slug_of(&third, "a/egg-one.json")));
    assert!(
        history.to_string().contains("not read in this build"),
        "{history}"
    );
}

/// Holds the history documents `built` hands on equal to what decoding the bytes it put gives,
/// keys included, for every egg with a page; returns how many.
fn histories_handed_on_as_put(built: &Built, files: &BTreeMap<String, Vec<u8>>) -> usize {
    let read = |path: &str| files.get(path).cloned();
    let decoded = crate::games::histories_decoded(&read);
    let mut held = 0;
    for slug in built.summary.iter().map(|i| i.slug.as_str()) {
        assert!(files.contains_key(&paths::history(slug)), "{slug}");
        assert_eq!(built.documents.history(slug), decoded(slug), "{slug}");
        held += 1;
    }
    held
}

/// `build_into`, with the files it puts collected.
fn built_into(
    inputs: Vec<SourceInput>,
    previous: Previous,
    now_ms: u64,
    reuse: &Reuse<'_>,
) -> (Built, BTreeMap<String, Vec<u8>>) {
    let files = Mutex::new(BTreeMap::new());
    let sink = |path: String, bytes: Vec<u8>| {
        files.lock().unwrap().insert(path, bytes);
    };
    let built = build_into(inputs, previous, &ctx(now_ms), reuse, &sink);
    (built, files.into_inner().unwrap())
}

#[test]
fn the_history_documents_handed_on_are_the_ones_put_made_kept_or_not_histories() {
    let files = [
        ("a/egg-one.json", egg("One", None)),
        ("b/egg-two.json", egg("Two", None)),
    ];
    let history = SourceHistory {
        depth: "to a depth of 7 commits".to_owned(),
        ..SourceHistory::default()
    };
    let scanned_input = || SourceInput {
        info: info("o", "r"),
        fetched: scanned(&files, "c1", history.clone()),
    };
    let unchanged = || SourceInput {
        info: info("o", "r"),
        fetched: Fetched::Unchanged,
    };
    // Made in this build.
    let (built, put) = built_into(
        vec![scanned_input()],
        Previous::default(),
        1000,
        &Reuse::none(),
    );
    assert_eq!(histories_handed_on_as_put(&built, &put), 2);
    let mut first = run(
        vec![(info("o", "r"), scanned(&files, "c1", history.clone()))],
        Previous::default(),
        1000,
    );
    // Kept from the previous snapshot: one a history, one of an older eggcat that is not.
    let odd = slug_of(&first, "b/egg-two.json");
    let note = br#"{"note":"made by an older eggcat"}"#.to_vec();
    first.files.insert(paths::history(&odd), note.clone());
    let (previous, reuse) = previous_of(&first);
    let (built, put) = built_into(vec![unchanged()], previous, 2000, &reuse);
    assert_eq!(histories_handed_on_as_put(&built, &put), 2);
    assert_eq!(put[&paths::history(&odd)], note, "kept as it is");
    let (shown, _) = built.documents.history(&odd);
    let note = Some("made by an older eggcat".to_owned());
    assert_eq!(shown, crate::games::Loaded::Unreadable { note });
    let one = slug_of(&first, "a/egg-one.json");
    assert!(matches!(
        built.documents.history(&one).0,
        crate::games::Loaded::Doc(_)
    ));
    // Kept, with no previous document: one that says why there is none.
    let (previous, _) = previous_of(&first);
    let (built, put) = built_into(vec![unchanged()], previous, 3000, &Reuse::none());
    assert_eq!(histories_handed_on_as_put(&built, &put), 2);
}

#[test]
fn an_unchanged_file_keeps_when_and_where_it_was_first_read_and_a_changed_one_gets_now() {
    let first = run(two_sources(), Previous::default(), 1000);
    let (previous, reuse) = previous_of(&first);
    let a = [
        ("games/paper/egg-paper.json", egg("Paper", None)),
        (
            "games/paper2/egg-paper.json",
            egg("Paper Two, edited", None),
        ),
        ("voice/egg-mumble.json", egg("Mumble", None)),
    ];
    let inputs = vec![
        SourceInput {
            info: info("beta", "eggs"),
            fetched: Fetched::Unchanged,
        },
        SourceInput {
            info: info("alpha", "eggs"),
            fetched: scanned(&a, "c-a2", SourceHistory::default()),
        },
    ];
    let second = build(inputs, previous, &ctx(2000), &reuse);
    let first_read = |catalog: &Catalog| -> BTreeMap<String, (u64, String)> {
        slugs(catalog)
            .into_iter()
            .map(|s| {
                let meta = &json(catalog, &paths::egg(&s))["meta"];
                (
                    format!(
                        "{}:{}",
                        meta["owner"].as_str().unwrap(),
                        meta["path"].as_str().unwrap()
                    ),
                    (
                        meta["indexedAt"].as_u64().unwrap(),
                        meta["commit"].as_str().unwrap().to_owned(),
                    ),
                )
            })
            .collect()
    };
    let at = first_read(&second);
    let read_at = |t: u64, c: &str| (t, c.to_owned());
    assert_eq!(
        at["alpha:games/paper2/egg-paper.json"],
        read_at(2000, "c-a2")
    );
    // Unchanged in a source read at a new commit: when and where it was first read.
    assert_eq!(
        at["alpha:games/paper/egg-paper.json"],
        read_at(1000, "c-a1")
    );
    assert_eq!(at["alpha:voice/egg-mumble.json"], read_at(1000, "c-a1"));
    assert_eq!(at["beta:games/paper/egg-paper.json"], read_at(1000, "c-b1"));
    // So a commit elsewhere in the repository leaves the egg's documents as they were.
    let mumble = slug_of(&second, "voice/egg-mumble.json");
    assert_eq!(
        second.files[&paths::egg(&mumble)],
        first.files[&paths::egg(&mumble)]
    );
    assert_eq!(second.report.sources[1].commit.as_deref(), Some("c-a2"));
    assert!(!second.report.sources[0].changed);
    assert!(second.report.sources[1].changed);

    // Read again at a third commit: still the first read, not the second.
    let (previous, reuse) = previous_of(&second);
    let inputs = vec![SourceInput {
        info: info("alpha", "eggs"),
        fetched: scanned(&a, "c-a3", SourceHistory::default()),
    }];
    let third = build(inputs, previous, &ctx(3000), &reuse);
    let at = first_read(&third);
    assert_eq!(
        at["alpha:games/paper2/egg-paper.json"],
        read_at(2000, "c-a2")
    );
    assert_eq!(at["alpha:voice/egg-mumble.json"], read_at(1000, "c-a1"));
}

/// The import files of an egg stand ([`Reuse`]) only when the previous snapshot made them from
/// the same inputs: a file planted in the previous snapshot is taken for an unchanged egg (so
/// the rule is what decides), and never for an egg one of whose inputs changed.
#[test]
fn import_files_stand_only_when_made_from_the_same_inputs() {
    let files = |paper: &str| {
        [
            ("games/paper/egg-paper.json", egg(paper, None)),
            ("voice/egg-mumble.json", egg("Mumble", None)),
        ]
    };
    let source = |commit: &str, paper: &str| {
        vec![SourceInput {
            info: info("alpha", "eggs"),
            fetched: scanned(&files(paper), commit, SourceHistory::default()),
        }]
    };
    let mut first = build(
        source("c1", "Paper"),
        Previous::default(),
        &ctx(1000),
        &Reuse::none(),
    );
    let [paper, mumble] = ["games/paper/egg-paper.json", "voice/egg-mumble.json"]
        .map(|path| paths::egg_file(&slug_of(&first, path), paths::import::PELICAN_YAML));
    for path in [&paper, &mumble] {
        first.files.insert(path.clone(), b"planted".to_vec());
    }
    let (previous, reuse) = previous_of(&first);
    let second = build(source("c2", "Paper, edited"), previous, &ctx(2000), &reuse);
    assert_eq!(
        second.files[&mumble], b"planted",
        "unchanged egg: its files stand"
    );
    assert_ne!(
        second.files[&paper], b"planted",
        "changed egg: converted anew"
    );
    assert_eq!(second.state.reuse.len(), 2, "{:?}", second.state.reuse);

    // The same eggs under another base URL (an input of every import file): nothing stands.
    let (previous, reuse) = previous_of(&first);
    let inputs = source("c1", "Paper");
    let moved = BuildContext {
        base_url: "https://elsewhere.example".to_owned(),
        ..ctx(2000)
    };
    let third = build(inputs, previous, &moved, &reuse);
    assert_ne!(third.files[&mumble], b"planted");
}

/// The build groups its eggs into games (for the pages): by display name, the ` (Pterodactyl)`
/// twin included, and by a shared upstream uuid.
#[test]
fn the_build_groups_its_eggs_into_games() {
    let uuid = "0b9ad3d9-6d8f-4a2b-a3a5-8f1c3e2d4b6a";
    let files = [
        ("games/paper/egg-paper.json", egg("Paper", None)),
        ("games/paper/pterodactyl-egg-paper.json", egg("Paper", None)),
        ("voice/egg-mumble.json", egg("Mumble", Some(uuid))),
        ("voice/egg-murmur.json", egg("Murmur", Some(uuid))),
        ("voice/egg-teamspeak.json", egg("TeamSpeak", None)),
    ];
    let inputs = vec![SourceInput {
        info: info("alpha", "eggs"),
        fetched: scanned(&files, "c1", SourceHistory::default()),
    }];
    let built = build_into(
        inputs,
        Previous::default(),
        &ctx(1000),
        &Reuse::none(),
        &|_, _| {},
    );
    let games = built.games.all();
    let mut sizes: Vec<usize> = games.iter().map(Vec::len).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [1, 2, 2], "{games:?}");
    let twin = games
        .iter()
        .find(|g| g.iter().any(|s| s.contains("pterodactyl")));
    assert_eq!(twin.map(Vec::len), Some(2), "{games:?}");
}

/// A game read back for its pages (`games::Siblings`): its eggs split into versions, each page's
/// comparisons; the summary items the build made, with their game fields; a document that does
/// not decode is left out of its game's pages and named.
#[test]
fn a_game_read_back_gives_versions_comparisons_and_summary_items() {
    use crate::games::{Others, Siblings};
    let paper = egg("Paper", None);
    let newer = paper.replace(r#""startup": "./run""#, r#""startup": "./run --new""#);
    let files = [
        ("paper/a/egg-paper.json", paper.clone()),
        ("paper/b/egg-paper.json", paper),
        ("paper/c/egg-paper.json", newer),
        ("voice/egg-mumble.json", egg("Mumble", None)),
    ];
    let inputs = vec![SourceInput {
        info: info("alpha", "eggs"),
        fetched: scanned(&files, "c1", SourceHistory::default()),
    }];
    let out = std::sync::Mutex::new(BTreeMap::new());
    let sink = |path: String, bytes: Vec<u8>| {
        out.lock().unwrap().insert(path, bytes);
    };
    let built = build_into(
        inputs,
        Previous::default(),
        &ctx(1000),
        &Reuse::none(),
        &sink,
    );
    let mut out = out.into_inner().unwrap();
    let game = built
        .games
        .all()
        .iter()
        .find(|g| g.len() == 3)
        .unwrap()
        .clone();
    let read = |path: &str| out.get(path).cloned();
    let documents = |slug: &str| built.documents.get(slug);
    let histories = |slug: &str| built.documents.history(slug);
    let mut siblings = Siblings::new(&built.games, &documents, &histories);
    siblings.load(&game);
    assert_eq!(siblings.shown_slugs(), game.as_slice());
    // The documents handed on are the ones put, as a reader of the tree decodes them.
    let decoded = crate::games::decoded(&read);
    for slug in &game {
        let ((handed, key), (read_back, read_key)) =
            (built.documents.get(slug).unwrap(), decoded(slug).unwrap());
        assert_eq!(key, read_key, "{slug}");
        assert_eq!(handed.egg, read_back.egg, "{slug}");
        assert_eq!(handed.meta, read_back.meta, "{slug}");
        assert_eq!(handed.readme, read_back.readme, "{slug}");
    }
    drop(decoded);
    // So are the history documents, and the keys of their bytes.
    let histories_read = crate::games::histories_decoded(&read);
    for slug in &game {
        let (handed, key) = built.documents.history(slug);
        let (read_back, read_key) = histories_read(slug);
        assert!(matches!(handed, crate::games::Loaded::Doc(_)), "{slug}");
        assert_eq!((handed, key), (read_back, read_key), "{slug}");
    }
    drop(histories_read);
    let changed = &game[2];
    let item = built.summary.iter().find(|i| &i.slug == changed).unwrap();
    assert_eq!((item.game.as_str(), item.game_eggs), (game[0].as_str(), 3));
    assert_eq!(built.summary.len(), 4, "one item per egg");
    assert!(built.summary.is_sorted_by(|a, b| a.slug < b.slug));
    let (_, _, others) = siblings.of(changed);
    let Others::Compared(c) = others else {
        panic!("{others:?}")
    };
    assert_eq!((c.eggs, c.versions, c.same.len()), (3, 2, 0));
    assert_eq!(c.others[0].more_total, 1, "the copies are one version");
    assert!(!c.others[0].changes.is_empty());
    let (_, _, others) = siblings.of(&game[0]);
    let Others::Compared(c) = others else {
        panic!("{others:?}")
    };
    assert_eq!(c.same.len(), 1);
    assert!(c.same[0].changes.is_empty(), "a byte-identical copy");

    // In a tree made elsewhere, a document that does not decode is in no page of its game.
    out.insert(paths::egg(&game[1]), b"{}".to_vec());
    let read = |path: &str| out.get(path).cloned();
    let decoded = crate::games::decoded(&read);
    let histories = crate::games::histories_decoded(&read);
    let mut siblings = Siblings::new(&built.games, &decoded, &histories);
    siblings.load(&game);
    assert_eq!(siblings.shown_slugs(), [game[0].clone(), game[2].clone()]);
    assert_eq!(siblings.unreadable(), [game[1].clone()]);
}

/// An egg Pelican imports, with variables whose names sort otherwise than their env names (so
/// that SQLite's and MariaDB's files differ), its startup ending in `tail`.
fn importable_egg(tail: &str) -> String {
    format!(
        r#"{{"meta": {{"version": "PTDL_v2", "update_url": null}}, "name": "Game",
        "author": "a@b.c", "description": "A game", "docker_images": {{"Java": "ghcr.io/x/java:21"}},
        "startup": "./run {tail}", "config": {{"files": "{{}}", "startup": "{{}}", "logs": "{{}}", "stop": "stop"}},
        "scripts": {{"installation": {{"script": "echo", "container": "debian", "entrypoint": "bash"}}}},
        "variables": [
          {{"name": "a name", "description": "", "env_variable": "Z_ENV", "default_value": "1",
            "user_viewable": true, "user_editable": true, "rules": "required|string"}},
          {{"name": "B name", "description": "", "env_variable": "A_ENV", "default_value": "2",
            "user_viewable": true, "user_editable": true, "rules": "required|string"}}
        ]}}"#
    )
}

/// Each version in `history.json` carries the hash Pelican's update check computes for the
/// import file eggcat would have published at that version, per database order: at the tip,
/// the hash of the `pelican.json` and `pelican-mariadb.json` this build publishes; at an older
/// version, that of the file a build with the older content at the tip publishes. (The
/// differential test holds the hash of a file to Pelican's own command.)
#[test]
fn every_version_carries_the_update_check_hash_of_the_file_published_at_it() {
    use crate::history::{FileChange, LogCommit};
    use crate::wire::Database;
    let path = "games/egg-game.json";
    let (old, new) = (importable_egg("--old"), importable_egg("--new"));
    let change = |id: &str, status: char, old_oid: &str, new_oid: &str| LogCommit {
        id: id.to_owned(),
        time: 1_700_000_000,
        subject: format!("commit {id}"),
        changes: vec![FileChange {
            status,
            old_path: path.to_owned(),
            new_path: path.to_owned(),
            old_oid: old_oid.to_owned(),
            new_oid: new_oid.to_owned(),
        }],
    };
    let history = SourceHistory {
        commits: vec![change("c2", 'M', "o1", "o2"), change("c1", 'A', "0", "o1")],
        blobs: [
            ("o1".to_owned(), old.clone().into_bytes()),
            ("o2".to_owned(), new.clone().into_bytes()),
        ]
        .into(),
        ..SourceHistory::default()
    };
    let built = |content: &str, history: SourceHistory| {
        let files = [(path, content.to_owned())];
        run(
            vec![(info("o", "r"), scanned(&files, "c2", history))],
            Previous::default(),
            1000,
        )
    };
    let now = built(&new, history);
    let then = built(&old, SourceHistory::default());
    let slug = slug_of(&now, path);
    assert_eq!(slug, slug_of(&then, path));
    let md5_of = |catalog: &Catalog, db: Database| {
        let file = &catalog.files[&paths::egg_file(&slug, db.own_file().pelican_json_name())];
        eggcat_panels::update_check_md5(file).unwrap()
    };
    let history = json(&now, &paths::history(&slug));
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    for (version, catalog) in [(&versions[0], &now), (&versions[1], &then)] {
        let hashes = &version["pelicanUpdateCheckMd5"];
        for db in Database::ALL {
            assert_eq!(
                hashes[db.key()],
                md5_of(catalog, db),
                "{db:?} at {}",
                version["commit"]
            );
        }
    }
    assert_ne!(
        versions[0]["pelicanUpdateCheckMd5"],
        versions[1]["pelicanUpdateCheckMd5"]
    );
    let hashes = &versions[0]["pelicanUpdateCheckMd5"];
    assert_ne!(hashes["sqlite"], hashes["mariadb"], "the orders differ");
    assert_eq!(
        hashes["sqlite"], hashes["postgresql"],
        "PostgreSQL imports pelican.json"
    );
}
mod versions;
