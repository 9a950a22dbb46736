//! The `pelican.json` of each older version (issue 37): `history.json` names it in each
//! version's `pelicanJson`, and the build publishes it under `versions/{sha256}/`, once per
//! content, with the hashes the version gives; the versions with the tip's content name the
//! egg's own `pelican.json`. A kept history carries its files into the next snapshot, and drops
//! the hashes and files made under an identity (slug, uuid) the egg no longer has.

use std::collections::BTreeSet;

use super::*;
use crate::history::{FileChange, LogCommit};
use crate::paths::import::PELICAN_JSON;
use crate::wire::{Database, History, Version};

const PATH: &str = "games/egg-game.json";
const T0: i64 = 1_700_000_000;
const DAY: i64 = 86_400;

/// The history of the file at [`PATH`], newest first: `--old` added at c1, `--mid` at c2,
/// `--old` again at c3 (a revert), `--new` at c4 (the tip); each content is `file(tail)`.
fn history(file: impl Fn(&str) -> String) -> SourceHistory {
    let change = |i: i64, status: char, old_oid: &str, new_oid: &str| LogCommit {
        id: format!("c{i}"),
        time: T0 + i * DAY,
        subject: format!("commit {i}"),
        changes: vec![FileChange {
            status,
            old_path: PATH.to_owned(),
            new_path: PATH.to_owned(),
            old_oid: old_oid.to_owned(),
            new_oid: new_oid.to_owned(),
        }],
    };
    SourceHistory {
        commits: vec![
            change(4, 'M', "old", "new"),
            change(3, 'M', "mid", "old"),
            change(2, 'M', "old", "mid"),
            change(1, 'A', "0", "old"),
        ],
        blobs: ["old", "mid", "new"]
            .map(|oid| (oid.to_owned(), file(&format!("--{oid}")).into_bytes()))
            .into(),
        ..SourceHistory::default()
    }
}

/// A build of source `o/r` with `text` at [`PATH`] and `history`.
fn built_at(text: String, history: SourceHistory) -> Catalog {
    let files = [(PATH, text)];
    let source = (info("o", "r"), scanned(&files, "c4", history));
    run(vec![source], Previous::default(), 1000)
}

fn history_doc(catalog: &Catalog, slug: &str) -> History {
    serde_json::from_slice(&catalog.files[&paths::history(slug)]).unwrap()
}

/// The path under the output root a version's `pelicanJson` names.
fn named(v: &Version) -> Option<&str> {
    v.pelican_json
        .as_deref()?
        .strip_prefix(BASE)?
        .strip_prefix('/')
}

/// The files under `versions/` of `catalog`, and those its egg at `slug` names.
fn version_files(catalog: &Catalog, slug: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let published = catalog
        .files
        .keys()
        .filter(|p| p.contains("/versions/"))
        .cloned()
        .collect();
    let doc = history_doc(catalog, slug);
    let names = doc.versions.iter().filter_map(named);
    let named = names
        .filter(|p| p.contains("/versions/"))
        .map(str::to_owned);
    (published, named.collect())
}

fn exported_at(file: &[u8]) -> String {
    let value: Value = serde_json::from_slice(file).unwrap();
    value["exported_at"].as_str().unwrap().to_owned()
}

#[test]
fn each_older_version_publishes_the_pelican_json_whose_hashes_history_json_gives() {
    let now = built_at(importable_egg("--new"), history(importable_egg));
    let slug = slug_of(&now, PATH);
    let v = history_doc(&now, &slug).versions;
    assert_eq!(v.len(), 4);
    let own = paths::egg_file(&slug, PELICAN_JSON);
    assert_eq!(
        named(&v[0]),
        Some(own.as_str()),
        "the tip's content: pelican.json"
    );
    let sha256 = |i: usize| v[i].sha256.clone().unwrap();
    for (i, older) in v.iter().enumerate().skip(1) {
        let path = paths::version_pelican_json(&slug, older.sha256.as_deref().unwrap());
        assert_eq!(named(older), Some(path.as_str()), "version {i}");
    }
    assert_eq!(sha256(1), sha256(3), "a revert");
    assert_eq!(
        v[1].pelican_json, v[3].pelican_json,
        "one content, one file"
    );
    assert_ne!(v[1].pelican_json, v[2].pelican_json);
    let (published, names) = version_files(&now, &slug);
    assert_eq!(published, names, "every file named, every name a file");
    assert_eq!(published.len(), 2, "the two older contents");
    // Each version's file has the hashes it gives (the file is SQLite's order, which
    // PostgreSQL shares; MariaDB's hash is that of its own order), and is the `pelican.json` a
    // build with that content at the tip publishes, but its `exported_at`: the date of the
    // oldest commit with that content.
    for (i, tail, first_commit) in [
        (0, "--new", 0),
        (1, "--old", 1),
        (2, "--mid", 2),
        (3, "--old", 1),
    ] {
        let file = &now.files[named(&v[i]).unwrap()];
        let md5 = v[i].pelican_update_check_md5.as_ref().unwrap();
        let hash = eggcat_panels::update_check_md5(file).unwrap();
        assert_eq!(
            (&md5.sqlite, &md5.postgresql),
            (&hash, &hash),
            "version {i}"
        );
        let then = built_at(importable_egg(tail), SourceHistory::default());
        let mariadb = &then.files[&paths::egg_file(&slug, Database::MariaDb.pelican_json_name())];
        assert_eq!(
            Some(&md5.mariadb),
            eggcat_panels::update_check_md5(mariadb).as_ref()
        );
        let current = &then.files[&own];
        if i == 0 {
            assert_eq!(file, current, "the tip's file is pelican.json");
            continue;
        }
        let date = T0 + first_commit * DAY;
        let expected = crate::imports::atom_time(u64::try_from(date).unwrap() * 1000);
        assert_eq!(exported_at(file), expected, "version {i}");
        let current = String::from_utf8(current.clone()).unwrap();
        let as_then = current.replacen(&exported_at(current.as_bytes()), &expected, 1);
        assert_eq!(
            file,
            as_then.as_bytes(),
            "version {i}: pelican.json at {tail}"
        );
    }
}

#[test]
fn a_kept_history_carries_its_version_files_and_drops_a_name_it_cannot_give_back() {
    let mut first = built_at(importable_egg("--new"), history(importable_egg));
    let slug = slug_of(&first, PATH);
    let unchanged = || SourceInput {
        info: info("o", "r"),
        fetched: Fetched::Unchanged,
    };
    let kept = |first: &Catalog, now_ms: u64| {
        let (previous, reuse) = previous_of(first);
        build(vec![unchanged()], previous, &ctx(now_ms), &reuse)
    };
    let second = kept(&first, 2000);
    let carried = |p: &&String| p.contains("/versions/") || p.ends_with("/history.json");
    let wanted: Vec<&String> = first.files.keys().filter(carried).collect();
    assert_eq!(wanted.len(), 3);
    for path in wanted {
        assert_eq!(second.files.get(path), Some(&first.files[path]), "{path}");
    }
    // The previous snapshot lost the file of `--mid`: its version no longer names one, and
    // keeps its hashes; the other file is carried.
    let before = history_doc(&first, &slug).versions;
    let lost = named(&before[2]).unwrap().to_owned();
    first.files.remove(&lost);
    let third = kept(&first, 3000);
    let after = history_doc(&third, &slug).versions;
    assert_eq!(after[2].pelican_json, None);
    assert_eq!(
        after[2].pelican_update_check_md5,
        before[2].pelican_update_check_md5
    );
    assert_eq!((&after[1], &after[3]), (&before[1], &before[3]));
    let (published, names) = version_files(&third, &slug);
    assert_eq!(published, names);
    assert_eq!(published.len(), 1);
}

/// The tip's hashes and file in `catalog` for the egg at `slug`, as its history's newest version
/// must name them.
fn tip_of(catalog: &Catalog, slug: &str) -> (Option<String>, Option<String>) {
    let file = &catalog.files[&paths::egg_file(slug, PELICAN_JSON)];
    let url = format!("{BASE}/{}", paths::egg_file(slug, PELICAN_JSON));
    (eggcat_panels::update_check_md5(file), Some(url))
}

/// Holds the kept history of the egg at `slug` in `catalog` to what an egg whose identity
/// changed gets: the tip's content its hashes and file, every other version none.
fn only_the_tip_named(catalog: &Catalog, slug: &str) {
    let v = history_doc(catalog, slug).versions;
    let sqlite = |v: &Version| {
        v.pelican_update_check_md5
            .as_ref()
            .map(|m| m.sqlite.clone())
    };
    assert_eq!(
        (sqlite(&v[0]), v[0].pelican_json.clone()),
        tip_of(catalog, slug)
    );
    for v in &v[1..] {
        assert_eq!(
            (&v.pelican_update_check_md5, &v.pelican_json),
            (&None, &None)
        );
    }
    let (published, names) = version_files(catalog, slug);
    assert_eq!((published.len(), names.len()), (0, 0), "{published:?}");
}

#[test]
fn a_kept_history_under_another_slug_or_uuid_keeps_only_the_tips_hashes_and_file() {
    let u = "8f2d6a4e-1c3b-4f5a-9e7d-0b1c2d3e4f5a";
    let with_uuid =
        |tail: &str| importable_egg(tail).replacen('{', &format!(r#"{{"uuid": "{u}", "#), 1);
    let first = built_at(with_uuid("--new"), history(with_uuid));
    let slug = slug_of(&first, PATH);
    assert_eq!(version_files(&first, &slug).0.len(), 2);
    let unchanged = || SourceInput {
        info: info("o", "r"),
        fetched: Fetched::Unchanged,
    };
    // An egg of a source earlier in (owner, repo, path) order takes its uuid.
    let (previous, reuse) = previous_of(&first);
    let taker = SourceInput {
        info: info("a", "q"),
        fetched: scanned(
            &[("x/egg-other.json", egg("Other", Some(u)))],
            "d1",
            SourceHistory::default(),
        ),
    };
    let second = build(vec![taker, unchanged()], previous, &ctx(2000), &reuse);
    assert_eq!(slug_of(&second, PATH), slug);
    assert_ne!(json(&second, &paths::egg(&slug))["meta"]["uuid"], u);
    only_the_tip_named(&second, &slug);
    // An egg of another source with the same candidate slug: this one's slug changes.
    let (previous, reuse) = previous_of(&first);
    let twin = SourceInput {
        info: info("p", "r"),
        fetched: scanned(
            &[("x/egg-game.json", importable_egg("--x"))],
            "e1",
            SourceHistory::default(),
        ),
    };
    let third = build(vec![unchanged(), twin], previous, &ctx(3000), &reuse);
    let renamed = slug_of(&third, PATH);
    assert_ne!(renamed, slug);
    only_the_tip_named(&third, &renamed);
}
