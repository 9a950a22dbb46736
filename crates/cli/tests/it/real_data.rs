//! The ten real upstream repositories of ../shared/upstream, as git repositories, built whole.

use std::collections::{BTreeMap, BTreeSet};

use crate::support::*;

#[test]
fn the_ten_shared_repositories() {
    let Some(shared) = shared_upstream() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sources = shared_sources(&shared, tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(1_763_000_000_000);
    let out = build(&data, sources.clone(), &clock);

    let files = shared_egg_files(&shared);
    let (hidden, expected): (BTreeSet<_>, BTreeSet<_>) =
        files.into_iter().partition(|(_, p)| p.starts_with('.'));
    assert_eq!(
        hidden.len(),
        10,
        "one issue template per repository but one"
    );
    assert!(hidden.iter().all(|(_, p)| p.starts_with(".github/")));

    // Every egg file indexed exactly once; the issue templates skipped; nothing else skipped.
    let index: Vec<serde_json::Value> =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_index.json"]).unwrap();
    let mut indexed: BTreeMap<(String, String), String> = BTreeMap::new();
    for item in &index {
        let slug = item["slug"].as_str().unwrap();
        let doc = egg_doc(&out, slug);
        let key = (
            doc["meta"]["repo"].as_str().unwrap().to_owned(),
            doc["meta"]["path"].as_str().unwrap().to_owned(),
        );
        assert!(
            indexed.insert(key, slug.to_owned()).is_none(),
            "indexed twice: {slug}"
        );
    }
    let indexed_keys: BTreeSet<_> = indexed.keys().cloned().collect();
    assert_eq!(indexed_keys, expected);
    assert_eq!(out.report.eggs, expected.len());
    assert!(
        out.report.eggs > 600,
        "about 620 eggs, got {}",
        out.report.eggs
    );
    let skipped: BTreeSet<(String, String)> = out
        .report
        .skipped
        .iter()
        .map(|s| {
            (
                s.source.trim_start_matches("pelican-eggs/").to_owned(),
                s.path.clone(),
            )
        })
        .collect();
    assert_eq!(skipped, hidden);

    // Slugs are unique and well-formed; the examples of the catalog rules hold.
    let slugs: BTreeSet<&str> = index.iter().map(|i| i["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs.len(), index.len());
    assert!(slugs.iter().all(|s| {
        !s.starts_with(['_', '-'])
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    }));
    let slug_of = |repo: &str, path: &str| indexed[&(repo.to_owned(), path.to_owned())].as_str();
    assert_eq!(
        slug_of("games-steamcmd", "rust/vanilla/egg-rust.yaml"),
        "games-steamcmd-rust"
    );
    assert_eq!(
        slug_of("minecraft", "java/paper/pterodactyl-egg-paper.json"),
        "minecraft-pterodactyl-paper"
    );
    assert_eq!(
        slug_of(
            "games-steamcmd",
            "the_isle/evrima/egg-pterodactyl-the-isle.json"
        ),
        "pelican-eggs-games-steamcmd-the-isle-evrima-pterodactyl-the-isle"
    );
    assert_eq!(
        slug_of(
            "games-steamcmd",
            "the_isle/evrima/pterodactyl-egg-the-isle.json"
        ),
        "pelican-eggs-games-steamcmd-the-isle-evrima-pterodactyl-the-isle-2"
    );

    // Every `egg` equals its source, keys in the same order (parsed independently of eggcat).
    for ((repo, path), slug) in &indexed {
        let bytes = std::fs::read(shared.join(repo).join(path)).unwrap();
        let expected: serde_json::Value = if path.ends_with(".json") {
            serde_json::from_slice(&bytes).unwrap()
        } else {
            serde_saphyr_like::parse(&bytes)
        };
        let doc = egg_doc(&out, slug);
        assert_eq!(
            doc["egg"].to_string(),
            expected.to_string(),
            "{repo}/{path}"
        );
        assert_eq!(
            doc["meta"]["category"],
            path.split('/').next().unwrap(),
            "{repo}/{path}"
        );
    }

    // A rebuild with nothing changed: every source checked, nothing re-parsed, no new snapshot.
    let again = build(&data, sources.clone(), &clock);
    assert_eq!(again.snapshot_dir, out.snapshot_dir);
    assert_eq!(again.report.build_id, out.report.build_id);
    // The same sources in another order: a new snapshot, built from the unchanged upstreams
    // without parsing them again, with the same documents.
    let mut reordered = sources;
    reordered.reverse();
    let again = build(&data, reordered, &clock);
    assert_ne!(again.report.build_id, out.report.build_id);
    assert!(
        again
            .report
            .sources
            .iter()
            .all(|s| !s.changed && s.error.is_none())
    );
    for (path, bytes) in &out.snapshot.files {
        if !is_build_report(path) {
            assert_eq!(bytes, &again.snapshot.files[path], "{path}");
        }
    }
    assert_eq!(out.snapshot.files.len(), again.snapshot.files.len());
}

/// YAML parsed by the YAML library directly into a JSON value (no eggcat code involved).
mod serde_saphyr_like {
    pub(super) fn parse(bytes: &[u8]) -> serde_json::Value {
        let text = std::str::from_utf8(bytes).unwrap();
        let options = serde_saphyr::options! { strict_booleans: true };
        serde_saphyr::from_str_with_options(text, options).unwrap()
    }
}
