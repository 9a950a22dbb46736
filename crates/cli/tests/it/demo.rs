//! The bundled demo shows what eggcat does with history, offline: its upstream
//! (`demo/upstream.bundle`) is what `demo/make-upstream.sh` makes from the plain files, and
//! `eggcat build` with `demo/eggcat.toml`'s settings publishes versions of each real kind (an
//! image added, a variable renamed in a merged pull request, a breaking startup change, a
//! format-only export, a rename), the feed of those versions, and eggs older than the history
//! it reads.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use eggcat_catalog::wire::{History, VersionEvent};
use eggcat_diff::Kind;

use crate::support::*;

fn demo_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../demo")
        .canonicalize()
        .unwrap()
}

/// The bundle kept in the repository holds the commits the script makes from the plain files:
/// same tip commit (names, e-mails and dates are fixed, so the ids are the same on every
/// machine), whose tree the script checks against `demo/upstream/`.
#[test]
fn the_demo_bundle_is_what_the_script_makes_from_the_plain_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("made.bundle");
    let made = Command::new("bash")
        .arg(demo_dir().join("make-upstream.sh"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "make-upstream.sh failed: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let tip = String::from_utf8_lossy(&made.stdout).trim().to_owned();
    let heads = |bundle: &Path| {
        git(
            tmp.path(),
            &["bundle", "list-heads", bundle.to_str().unwrap()],
        )
    };
    let kept = heads(&demo_dir().join("upstream.bundle"));
    assert_eq!(
        kept,
        format!("{tip} refs/heads/main"),
        "demo/upstream.bundle is out of date: run `bash demo/make-upstream.sh`"
    );
    assert_eq!(heads(&out), kept);
}

/// `eggcat build` with the demo's configuration (its paths made absolute, its data elsewhere):
/// every kind of version the demo is for, in the histories and in the feed.
#[test]
fn the_demo_shows_history_the_feed_and_breaking_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(demo_dir().join("eggcat.toml")).unwrap();
    let bundle = demo_dir().join("upstream.bundle");
    let config = config
        .replace(
            "data_dir = \"../target/eggcat-demo\"",
            &format!("data_dir = \"{}\"", tmp.path().join("data").display()),
        )
        .replace(
            "url = \"upstream.bundle\"",
            &format!("url = \"{}\"", bundle.display()),
        )
        // Tests never touch the internet: the demo's image checks ask ghcr.io.
        .replace("[images]\nbudget = \"5s\"", "[images]\nenabled = false");
    assert!(config.contains(&bundle.display().to_string()));
    assert!(config.contains("[images]\nenabled = false"));
    std::fs::write(tmp.path().join("eggcat.toml"), config).unwrap();
    let out = tmp.path().join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(["build", "--config"])
        .arg(tmp.path().join("eggcat.toml"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let mut histories: BTreeMap<String, History> = BTreeMap::new();
    for e in std::fs::read_dir(out.join("api/v1/eggs")).unwrap() {
        let path = e.unwrap().path().join("history.json");
        if let Ok(bytes) = std::fs::read(&path) {
            let h: History = serde_json::from_slice(&bytes).unwrap();
            histories.insert(h.slug.clone(), h);
        }
    }
    assert_eq!(histories.len(), 8);
    let kinds = |slug: &str| -> Vec<(Kind, bool)> {
        histories[slug]
            .versions
            .iter()
            .flat_map(|v| v.changes.iter().map(|c| (c.kind, c.breaking)))
            .collect()
    };
    assert!(kinds("demo-eggs-mumble").contains(&(Kind::ImageAdded, false)));
    assert!(kinds("demo-eggs-python").contains(&(Kind::VariableRenamed, true)));
    assert!(kinds("demo-eggs-nodejs").contains(&(Kind::StartupChanged, true)));
    // The merged pull request is one version: the merge commit, on the first-parent line.
    assert!(
        histories["demo-eggs-python"].versions[0]
            .subject
            .starts_with("Merge pull request")
    );
    let openttd = &histories["demo-eggs-openttd"].versions[0];
    assert!(
        openttd.event == VersionEvent::Changed && openttd.changes.is_empty(),
        "format only"
    );
    let ddnet = &histories["demo-eggs-ddnet"];
    assert_eq!(ddnet.versions[0].event, VersionEvent::Renamed);
    assert!(ddnet.complete, "DDNet was added inside the history read");
    // Older than the history read: no version, where the history starts.
    for slug in [
        "demo-eggs-luanti",
        "demo-eggs-luanti-mods",
        "demo-eggs-pterodactyl-openttd",
    ] {
        let h = &histories[slug];
        assert!(h.versions.is_empty() && h.since.is_some(), "{slug}");
    }

    // The feed: the versions, newest first, then the three older eggs.
    let feed = std::fs::read_to_string(out.join("feed.atom")).unwrap();
    let versions: usize = histories.values().map(|h| h.versions.len()).sum();
    assert_eq!(feed.matches("<entry>").count(), versions + 3);
    assert!(feed.contains("<title>Node.js Generic: Node.js: start with source maps</title>"));
    assert!(feed.contains("Can break servers:"));
    // The egg page: the breaking change, and "Updated" from upstream.
    let page = std::fs::read_to_string(out.join("eggs/demo-eggs-nodejs/index.html")).unwrap();
    assert!(page.contains("<strong class=\"brk\">Can break servers:</strong>"));
    assert!(page.contains("<dt>Updated</dt><dd><time datetime=\"2025-10-06T09:40:00.000Z\">"));
}
