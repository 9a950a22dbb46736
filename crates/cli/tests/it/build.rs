//! The build over real git upstreams: incremental fetches, kept eggs, indexedAt, determinism,
//! atomic publishing.

use std::path::Path;

use eggcat_catalog::wire::SourceStatus;
use eggcat_store::Store;

use crate::support::*;

fn two_sources(root: &Path) -> (Repo, Repo) {
    let a = Repo::init(root.join("a"), "main");
    a.write("games/paper/egg-paper.json", egg_json("Paper"))
        .write("games/paper/pterodactyl-egg-paper.json", egg_json("Paper"))
        .write("games/paper/README.md", "paper readme")
        .write("egg-root.yml", egg_yaml("Root"));
    a.commit("a");
    let b = Repo::init(root.join("b"), "main");
    b.write(
        "voice/mumble/egg-mumble.yaml",
        egg_yaml("  Mumble\n  Server "),
    );
    b.commit("b");
    (a, b)
}

fn sources(a: &Repo, b: &Repo) -> Vec<eggcat_upstream::Source> {
    vec![
        source(&a.url(), "owner", "alpha"),
        source(&b.url(), "owner", "beta"),
    ]
}

#[test]
fn catalog_rules_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let out = build(
        &tmp.path().join("data"),
        sources(&a, &b),
        &Clock::new(1_700_000_000_000),
    );
    let index: serde_json::Value =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_index.json"]).unwrap();
    assert_eq!(
        index,
        serde_json::json!([
            {"slug": "alpha-paper", "name": "Paper", "category": "games", "repo": "alpha", "source": "test"},
            {"slug": "alpha-pterodactyl-paper", "name": "Paper (Pterodactyl)", "category": "games", "repo": "alpha", "source": "test"},
            {"slug": "alpha-root", "name": "Root", "category": "alpha", "repo": "alpha", "source": "test"},
            {"slug": "beta-mumble", "name": "Mumble Server", "category": "voice", "repo": "beta", "source": "test"},
        ])
    );
    let names: Vec<String> =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_names.json"]).unwrap();
    assert_eq!(
        names,
        ["Mumble Server", "Paper", "Paper (Pterodactyl)", "Root"]
    );
    let paper = egg_doc(&out, "alpha-paper");
    assert_eq!(paper["readme"], "paper readme");
    assert_eq!(
        egg_doc(&out, "alpha-root")["readme"],
        serde_json::Value::Null
    );
    let meta = &paper["meta"];
    let keys: Vec<&str> = meta
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "slug",
            "name",
            "category",
            "source",
            "owner",
            "repo",
            "branch",
            "path",
            "rawUrl",
            "indexedAt",
            "format",
            "sha256",
            "commit",
            "uuid",
            "import",
            "diagnostics",
            "images",
            "runsOn"
        ]
    );
    assert_eq!(meta["path"], "games/paper/egg-paper.json");
    assert_eq!(
        meta["rawUrl"],
        format!("file://{}/games/paper/egg-paper.json", a.dir.display())
    );
    assert_eq!(meta["indexedAt"], 1_700_000_001_000u64);
    assert_eq!(meta["format"], "PTDL_v2");
    // The published egg is the upstream file, compact: same keys, same order, same values.
    let upstream: serde_json::Value = serde_json::from_str(&egg_json("Paper")).unwrap();
    assert_eq!(paper["egg"].to_string(), upstream.to_string());
}

#[test]
fn unchanged_upstreams_are_not_refetched_and_output_is_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(1_700_000_000_000);
    let first = build(&data, sources(&a, &b), &clock);
    // Nothing changed: no new snapshot, the current one stays (its report included).
    let second = build(&data, sources(&a, &b), &clock);
    assert_eq!(second.snapshot_dir, first.snapshot_dir);
    assert_eq!(second.report.build_id, first.report.build_id);
    assert_eq!(
        std::fs::read_dir(data.join("snapshots")).unwrap().count(),
        1
    );
    // Another configuration (the same sources in another order) is built, from the unchanged
    // upstreams without fetching them, into the same documents.
    let mut reordered = sources(&a, &b);
    reordered.reverse();
    let third = build(&data, reordered, &clock);
    assert!(
        third
            .report
            .sources
            .iter()
            .all(|s| s.status == SourceStatus::Ok && !s.changed)
    );
    assert_ne!(first.report.build_id, third.report.build_id);
    for (path, bytes) in &first.snapshot.files {
        if !is_build_report(path) {
            assert_eq!(
                bytes, &third.snapshot.files[path],
                "{path} changed between identical builds"
            );
        }
    }
    assert_eq!(first.snapshot.files.len(), third.snapshot.files.len());
}

/// Commits a change to a README of `repo` (not an egg): a new commit, so the next build
/// publishes a new snapshot.
fn touch(repo: &Repo, n: usize) {
    repo.write("NOTES.md", format!("change {n}"));
    repo.commit(&format!("change {n}"));
}

#[test]
fn indexed_at_is_kept_for_unchanged_files_and_renewed_for_changed_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(1_000_000);
    let first = build(&data, sources(&a, &b), &clock);
    a.write("games/paper/egg-paper.json", egg_json("Paper 2"));
    a.commit("change paper");
    let second = build(&data, sources(&a, &b), &clock);
    let at = |o: &crate::support::Outcome, slug: &str| {
        egg_doc(o, slug)["meta"]["indexedAt"].as_u64().unwrap()
    };
    assert_eq!(at(&first, "alpha-root"), at(&second, "alpha-root"));
    assert_eq!(at(&first, "beta-mumble"), at(&second, "beta-mumble"));
    assert!(at(&second, "alpha-paper") > at(&first, "alpha-paper"));
    assert_eq!(egg_doc(&second, "alpha-paper")["egg"]["name"], "Paper 2");
    let alpha = &second.report.sources[0];
    assert!(alpha.changed && alpha.status == SourceStatus::Ok);
    assert!(!second.report.sources[1].changed, "beta did not change");
}

#[test]
fn history_rewritten_upstream_is_fetched_anew() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let first = build(&data, sources(&a, &b), &clock);
    a.write("egg-root.yml", egg_yaml("Root Rewritten"));
    let rewritten = a.amend();
    let second = build(&data, sources(&a, &b), &clock);
    assert_eq!(
        second.report.sources[0].status,
        SourceStatus::Ok,
        "{:#?}",
        second.report.sources[0]
    );
    assert_eq!(
        second.report.sources[0].commit.as_deref(),
        Some(rewritten.as_str())
    );
    assert_ne!(
        first.report.sources[0].commit,
        second.report.sources[0].commit
    );
    assert_eq!(
        egg_doc(&second, "alpha-root")["egg"]["name"],
        "Root Rewritten"
    );
}

#[test]
fn an_upstream_that_deletes_all_its_eggs_keeps_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let first = build(&data, sources(&a, &b), &clock);
    b.remove("voice/mumble/egg-mumble.yaml");
    b.commit("delete everything");
    let second = build(&data, sources(&a, &b), &clock);
    let beta = &second.report.sources[1];
    assert_eq!(beta.status, SourceStatus::Failed);
    assert!(beta.kept_previous);
    assert_eq!(
        beta.error.as_deref(),
        Some("no eggs found where the previous build had 1: kept the previous eggs")
    );
    assert_eq!(
        beta.commit, first.report.sources[1].commit,
        "the kept eggs' commit is reported"
    );
    assert_eq!(
        second.snapshot.files["api/v1/eggs/beta-mumble.json"],
        first.snapshot.files["api/v1/eggs/beta-mumble.json"]
    );
    // Still empty next time: still kept, still reported.
    let third = build(&data, sources(&a, &b), &clock);
    assert!(third.report.sources[1].kept_previous);
    assert_eq!(third.report.eggs, 4);
}

#[test]
fn a_source_that_fails_to_fetch_keeps_its_previous_eggs() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    build(&data, sources(&a, &b), &clock);
    std::fs::rename(&b.dir, tmp.path().join("moved")).unwrap();
    let second = build(&data, sources(&a, &b), &clock);
    let beta = &second.report.sources[1];
    assert_eq!(beta.status, SourceStatus::Failed);
    assert!(beta.kept_previous);
    assert!(
        beta.error
            .as_deref()
            .unwrap()
            .contains("does not appear to be a git repository"),
        "{beta:?}"
    );
    assert!(
        second
            .snapshot
            .files
            .contains_key("api/v1/eggs/beta-mumble.json")
    );
}

#[test]
fn missing_url_and_missing_branch_are_reported_and_others_still_indexed() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = two_sources(tmp.path());
    let mut sources = vec![source(&a.url(), "owner", "alpha")];
    sources.push(source(
        &format!("file://{}/nowhere", tmp.path().display()),
        "owner",
        "nowhere",
    ));
    let mut branchy = source(&a.url(), "owner", "alpha-dev");
    branchy.branch = Some("dev".into());
    sources.push(branchy);
    let out = build(&tmp.path().join("data"), sources, &Clock::new(0));
    assert_eq!(out.report.eggs, 3);
    let nowhere = &out.report.sources[1];
    assert_eq!(nowhere.status, SourceStatus::Failed);
    assert!(
        nowhere
            .error
            .as_deref()
            .unwrap()
            .starts_with("git ls-remote failed: "),
        "{nowhere:?}"
    );
    assert!(!nowhere.kept_previous);
    assert_eq!(
        out.report.sources[2].error.as_deref(),
        Some(
            "branch `dev` not found upstream (its branches: main): set the source's `branch` to \
             an existing one, or leave it out for the default branch"
        )
    );
}

#[test]
fn nothing_is_published_when_every_source_fails_on_the_first_build() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = source(
        &format!("file://{}/nowhere", tmp.path().display()),
        "o",
        "r",
    );
    let data = tmp.path().join("data");
    let err = try_build(&data, vec![bad], &Clock::new(0)).unwrap_err();
    let want = format!(
        "nothing to publish: no source could be fetched (source `file://{}/nowhere`: git ls-remote failed",
        tmp.path().display()
    );
    assert!(err.to_string().starts_with(&want), "{err}");
    assert!(Store::new(&data).current_dir().is_none());
}

#[test]
fn snapshots_are_pruned_and_leftovers_of_killed_builds_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    std::fs::create_dir_all(data.join("snapshots/.tmp-killed/api")).unwrap();
    for n in 0..6 {
        touch(&a, n);
        build(&data, sources(&a, &b), &clock);
    }
    let mut left: Vec<String> = std::fs::read_dir(data.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left.len(), 3, "{left:?}");
    assert!(!left.iter().any(|n| n.starts_with(".tmp")));
    let current = Store::new(&data).current_dir().unwrap();
    assert_eq!(current.file_name().unwrap().to_str().unwrap(), left[2]);
}

#[test]
fn unchanged_documents_are_hard_linked_between_snapshots() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let first = build(&data, sources(&a, &b), &clock);
    touch(&b, 1);
    let second = build(&data, sources(&a, &b), &clock);
    assert_ne!(first.snapshot_dir, second.snapshot_dir);
    let doc = "api/v1/eggs/alpha-paper.json";
    let ino =
        |o: &crate::support::Outcome| std::fs::metadata(o.snapshot_dir.join(doc)).unwrap().ino();
    assert_eq!(ino(&first), ino(&second));
}

#[test]
fn eggs_derived_by_other_code_are_parsed_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let first = build(&data, sources(&a, &b), &clock);
    // A snapshot written by another eggcat (other deriving code): same commits, another
    // derivation.
    edit_state(&first.snapshot_dir, |state| {
        assert!(
            state["derivation"]
                .as_str()
                .unwrap()
                .contains(&format!(" {TEST_BASE_URL} history="))
        );
        state["derivation"] = "0123456789abcdef https://eggcat.example".into();
    });
    let second = build(&data, sources(&a, &b), &clock);
    assert!(
        second.report.sources.iter().all(|s| s.changed),
        "every source is parsed again"
    );
    for (path, bytes) in &first.snapshot.files {
        if !is_build_report(path) {
            assert_eq!(
                bytes, &second.snapshot.files[path],
                "{path}: same rules, same documents"
            );
        }
    }
    // And then nothing changed: no new snapshot.
    let third = build(&data, sources(&a, &b), &clock);
    assert_eq!(third.snapshot_dir, second.snapshot_dir);
    assert_eq!(third.report.build_id, second.report.build_id);
}

#[test]
fn a_damaged_current_snapshot_falls_back_to_an_older_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    build(&data, sources(&a, &b), &clock);
    touch(&a, 1);
    let second = build(&data, sources(&a, &b), &clock);
    // The current snapshot's own state file is damaged (as a file written last before a power
    // loss can be; replaced, not written through, since unchanged files are hard links shared
    // with the older snapshot), and then a source fails.
    let state = second.snapshot_dir.join("state.json");
    std::fs::remove_file(&state).unwrap();
    std::fs::write(&state, "{ not json").unwrap();
    std::fs::rename(&b.dir, tmp.path().join("moved")).unwrap();
    let third = build(&data, sources(&a, &b), &clock);
    let beta = &third.report.sources[1];
    assert_eq!(beta.status, SourceStatus::Failed);
    assert!(
        beta.kept_previous,
        "the older snapshot still provides the failing source's eggs"
    );
    assert!(
        third
            .snapshot
            .files
            .contains_key("api/v1/eggs/beta-mumble.json")
    );
}

/// Replaces a file of a snapshot without writing through its hard links (unchanged files are
/// shared between snapshots).
fn replace(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Edits a snapshot's `state.json`, as an older or other eggcat would have written it.
fn edit_state(snapshot_dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = snapshot_dir.join("state.json");
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut state);
    rewrite(
        snapshot_dir,
        "state.json",
        serde_json::to_vec(&state).unwrap(),
    );
}

/// Replaces a file of a snapshot as a build would have written it: its entry in the snapshot's
/// manifest (size and SHA-256) is updated too, or the change would be damage, which a build
/// does not reuse.
fn rewrite(snapshot_dir: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    use sha2::Digest;
    let bytes = bytes.as_ref();
    let manifest_path = snapshot_dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let hex: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    manifest["files"][path] = serde_json::json!({"size": bytes.len(), "sha256": hex});
    replace(&snapshot_dir.join(path), bytes);
    replace(&manifest_path, serde_json::to_vec(&manifest).unwrap());
}

#[test]
fn import_files_and_pages_of_unchanged_eggs_are_reused_and_equal_fresh_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = two_sources(tmp.path());
    let data = tmp.path().join("data");
    let clock = Clock::new(0);
    let first = build(&data, sources(&a, &b), &clock);
    a.write("games/paper/egg-paper.json", egg_json("Paper Two"))
        .commit("paper two");
    let second = build(&data, sources(&a, &b), &clock);
    let changed_yaml = "api/v1/eggs/alpha-paper/pelican.yaml";
    assert_ne!(
        first.snapshot.files[changed_yaml], second.snapshot.files[changed_yaml],
        "the changed egg is converted again"
    );

    // The same build with nothing to reuse (as after an upgrade of eggcat): every derived file
    // is made afresh, and they are the files the second build reused.
    edit_state(&second.snapshot_dir, |state| {
        assert!(!state["derivation"].as_str().unwrap().is_empty());
        state["derivation"] = "made by another eggcat".into();
    });
    let fresh = build(&data, sources(&a, &b), &clock);
    assert!(
        fresh.report.sources.iter().all(|s| s.changed),
        "other code may check differently: every source is parsed and checked again"
    );
    for (path, bytes) in &second.snapshot.files {
        if !is_build_report(path) {
            assert!(
                bytes == &fresh.snapshot.files[path],
                "{path}: reused != fresh"
            );
        }
    }
    assert_eq!(second.snapshot.files.len(), fresh.snapshot.files.len());

    // And reuse really reads the previous snapshot: what it holds for an egg whose inputs are
    // unchanged is what the next build publishes. The twin's file is unchanged, so its document
    // keeps its commit and its import files and page are the previous ones, as are the other
    // source's; everything of the changed egg is made anew.
    let twin_yaml = "api/v1/eggs/alpha-pterodactyl-paper/pelican.yaml";
    let twin_page = "eggs/alpha-pterodactyl-paper/index.html";
    let beta_page = "eggs/beta-mumble/index.html";
    let changed_page = "eggs/alpha-paper/index.html";
    for path in [twin_yaml, twin_page, beta_page, changed_yaml, changed_page] {
        rewrite(&fresh.snapshot_dir, path, "kept\n");
    }
    a.write("games/paper/egg-paper.json", egg_json("Paper Three"))
        .commit("paper three");
    let next = build(&data, sources(&a, &b), &clock);
    let text = |path: &str| String::from_utf8_lossy(&next.snapshot.files[path]).into_owned();
    assert_eq!(text(twin_yaml), "kept\n");
    assert_eq!(text(twin_page), "kept\n");
    assert_eq!(text(beta_page), "kept\n");
    assert!(
        text(changed_page).contains("Paper Three"),
        "new egg, new page"
    );
    assert!(
        text(changed_yaml).contains("Paper Three"),
        "a changed egg is never taken from the previous snapshot"
    );
}
