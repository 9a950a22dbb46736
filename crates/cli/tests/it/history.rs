//! Egg history from upstream git, end to end: real repositories with known commits, fetched
//! through file://, built, and every version and change of `history.json` checked. Also the bad
//! input of issue 17: force-pushes, unreadable old versions, binary junk, a huge script diff, a
//! history of thousands of commits, and a shallow fetch that must not invent a first version.

use std::time::Duration;

use eggcat_catalog::wire::{History, VersionEvent};
use eggcat_diff::Kind;
use eggcat_upstream::{HistoryDepth, Limits};
use serde_json::{Value, json};

use crate::support::*;

/// The diff crate's fixture egg (Paper, PTDL_v2 JSON) and the same egg written as PLCN_v3.
fn paper(format: &str) -> Value {
    let name = match format {
        "ptdl" => "paper.ptdl.json",
        _ => "paper.plcn.yaml",
    };
    let path = format!("{}/../diff/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    eggcat_diff::load(name, &std::fs::read(path).unwrap()).unwrap()
}

/// Paper with Java 17 dropped, the jar's default changed and the startup command given.
fn paper_edited(format: &str, startup: &str) -> Value {
    let mut egg = paper(format);
    egg["docker_images"]
        .as_object_mut()
        .unwrap()
        .remove("Java 17");
    for v in egg["variables"].as_array_mut().unwrap() {
        if v["env_variable"] == "SERVER_JARFILE" {
            v["default_value"] = json!("paper.jar");
        }
    }
    match format {
        "ptdl" => egg["startup"] = json!(startup),
        _ => egg["startup_commands"] = json!({ "Default": startup }),
    }
    egg
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap()
}

fn history_of(outcome: &crate::support::Outcome) -> History {
    let (path, bytes) = outcome
        .snapshot
        .files
        .iter()
        .find(|(p, _)| p.ends_with("/history.json"))
        .expect("a history document");
    let doc: History = serde_json::from_slice(bytes).unwrap();
    assert!(path.contains(&doc.slug));
    doc
}

fn kinds(changes: &[eggcat_diff::Change]) -> Vec<Kind> {
    changes.iter().map(|c| c.kind).collect()
}

const STARTUP_2: &str = "java -Xmx{{SERVER_MEMORY}}M -jar {{SERVER_JARFILE}} nogui";

/// Add, change, rename across folders, delete, re-add, and a PTDL -> PLCN migration with no
/// real change: every version, in order, with its event and changes.
#[test]
fn a_generated_repository_gives_every_version_and_change() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("a/egg-paper.json", pretty(&paper("ptdl")));
    let c1 = repo.commit("Add Paper");
    repo.write(
        "a/egg-paper.json",
        pretty(&paper_edited(
            "ptdl",
            paper("ptdl")["startup"].as_str().unwrap(),
        )),
    );
    let c2 = repo.commit("Drop Java 17, rename the jar");
    std::fs::create_dir_all(repo.dir.join("b")).unwrap();
    git(&repo.dir, &["mv", "a/egg-paper.json", "b/"]);
    let c3 = repo.commit("Move Paper to b/");
    repo.remove("b/egg-paper.json");
    let c4 = repo.commit("Remove Paper");
    repo.write("b/egg-paper.json", pretty(&paper_edited("ptdl", STARTUP_2)));
    let c5 = repo.commit("Bring Paper back with nogui");
    repo.write("b/egg-paper.json", pretty(&paper_edited("plcn", STARTUP_2)));
    let c6 = repo.commit("Migrate to PLCN_v3");

    let data = tmp.path().join("data");
    let out = build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    );
    let h = history_of(&out);
    assert_eq!(
        (h.source.as_str(), h.branch.as_str(), h.path.as_str()),
        ("o/eggs", "main", "b/egg-paper.json")
    );
    assert!(h.complete, "reaches the first commit: {:?}", h.note);
    let got: Vec<(&str, VersionEvent, &str)> = h
        .versions
        .iter()
        .map(|v| (v.commit.as_str(), v.event, v.path.as_str()))
        .collect();
    use VersionEvent::*;
    assert_eq!(
        got,
        [
            (c6.as_str(), Changed, "b/egg-paper.json"),
            (c5.as_str(), Restored, "b/egg-paper.json"),
            (c4.as_str(), Removed, "b/egg-paper.json"),
            (c3.as_str(), Renamed, "b/egg-paper.json"),
            (c2.as_str(), Changed, "a/egg-paper.json"),
            (c1.as_str(), Added, "a/egg-paper.json"),
        ]
    );
    let v = &h.versions;
    // The migration changes the format only.
    assert!(v[0].changes.is_empty(), "{:#?}", v[0].changes);
    assert!(!v[0].breaking);
    assert_eq!(v[0].compared_with.as_deref(), Some(c5.as_str()));
    // Restored: compared with the version before the removal, the startup changed.
    assert_eq!(v[1].compared_with.as_deref(), Some(c3.as_str()));
    assert_eq!(kinds(&v[1].changes), [Kind::StartupChanged]);
    assert!(v[1].breaking, "a changed startup command can break servers");
    // Removed: no content, no changes.
    assert!(v[2].sha256.is_none() && v[2].changes.is_empty() && v[2].compared_with.is_none());
    // A pure move.
    assert_eq!(v[3].renamed_from.as_deref(), Some("a/egg-paper.json"));
    assert!(v[3].changes.is_empty());
    // The image and the default.
    assert_eq!(
        kinds(&v[4].changes),
        [Kind::ImageRemoved, Kind::VariableChanged]
    );
    assert_eq!(
        v[4].changes[1].path,
        ["variables", "SERVER_JARFILE", "default_value"]
    );
    assert!(v[4].breaking);
    assert_eq!(v[4].subject, "Drop Java 17, rename the jar");
    assert_eq!(v[4].date, "2026-01-01T00:00:00.000Z");
    // The first version.
    assert!(v[5].changes.is_empty() && v[5].compared_with.is_none());
    // The newest version is the egg the catalog publishes.
    let doc = egg_doc(&out, &h.slug);
    assert_eq!(v[0].sha256.as_deref(), doc["meta"]["sha256"].as_str());
    // A file:// source has no web page for commits.
    assert!(v.iter().all(|v| v.url.is_none()));
}

/// A rebuild with no upstream change publishes the same history bytes; a new commit adds a
/// version; a force-push that rewrites the branch gives the rewritten history, not a mix.
#[test]
fn rebuilds_keep_extend_and_rewrite_the_history() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("egg-paper.json", pretty(&paper("ptdl")));
    repo.commit("Add Paper");
    let data = tmp.path().join("data");
    let clock = Clock::new(1_700_000_000_000);
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let first = build(&data, sources(), &clock);
    let path = first
        .snapshot
        .files
        .keys()
        .find(|p| p.ends_with("/history.json"))
        .unwrap()
        .clone();
    let same = build(&data, sources(), &clock);
    assert_eq!(first.snapshot.files[&path], same.snapshot.files[&path]);

    repo.write("egg-paper.json", pretty(&paper_edited("ptdl", STARTUP_2)));
    let bad = repo.commit("A change to be rewritten");
    let second = history_of(&build(&data, sources(), &clock));
    assert_eq!(second.versions.len(), 2);
    assert_eq!(second.versions[0].commit, bad);

    repo.write("egg-paper.json", pretty(&paper("plcn")));
    let rewritten = repo.amend();
    let third = history_of(&build(&data, sources(), &clock));
    assert_eq!(third.versions.len(), 2, "{:#?}", third.versions);
    assert_eq!(third.versions[0].commit, rewritten);
    assert!(third.versions.iter().all(|v| v.commit != bad));
    assert!(third.versions[0].changes.is_empty(), "PLCN of the same egg");
}

/// An old version that is not an egg (broken JSON, binary junk) is listed as unreadable, and the
/// next version is compared with the last readable one. A huge install script rewrite gives a
/// bounded diff that says it was cut.
#[test]
fn unreadable_old_versions_and_huge_script_diffs() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("egg-paper.json", pretty(&paper("ptdl")));
    let first = repo.commit("Add Paper");
    repo.write("egg-paper.json", "{ \"name\": \"Paper\", broken");
    repo.commit("Break it");
    let mut junk = vec![0u8, 0xff, 0xfe, 0x00];
    junk.extend((0..5000u32).map(|i| (i * 7919 % 251) as u8));
    repo.write("egg-paper.json", junk);
    repo.commit("Binary junk");
    // Over the 16 MiB an egg file may have: never read into memory.
    repo.write("egg-paper.json", vec![b'x'; 17 * 1024 * 1024]);
    repo.commit("Seventeen MiB");
    let mut huge = paper("ptdl");
    let script: String = (0..20_000).map(|i| format!("echo line {i}\n")).collect();
    huge["scripts"]["installation"]["script"] = json!(script);
    repo.write("egg-paper.json", pretty(&huge));
    repo.commit("A huge install script");

    let data = tmp.path().join("data");
    let h = history_of(&build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    ));
    let v = &h.versions;
    assert_eq!(v.len(), 5);
    let huge_error = v[1].error.as_deref().unwrap_or_default();
    assert!(huge_error.contains("over the 16 MiB"), "{huge_error}");
    assert!(
        v[2].error.is_some() && v[3].error.is_some(),
        "{:#?}",
        &v[2..4]
    );
    assert!(v[1..4].iter().all(|v| v.changes.is_empty()));
    assert_eq!(v[0].compared_with.as_deref(), Some(first.as_str()));
    let script = v[0]
        .changes
        .iter()
        .find(|c| c.kind == Kind::InstallScriptChanged)
        .and_then(|c| c.script.as_ref())
        .expect("a script diff");
    assert_eq!(
        (script.added, script.removed),
        (20_000, 5),
        "the counts stay exact"
    );
    assert!(script.unified.lines().count() <= eggcat_diff::MAX_DIFF_LINES + 1);
    assert!(script.note.is_some(), "the diff says it was cut");
}

/// Thousands of commits: the history holds the newest `history_depth` commits, the oldest of
/// them a real change counted from the commit before (never an invented `added`, never that
/// commit as a version), and the document says where it starts. With a depth past the versions
/// kept, the list is cut at the limit with a note.
#[test]
fn a_long_history_is_bounded_and_never_invents_a_first_version() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    // 1,500 commits in one fast-import stream, each changing the egg's description.
    let mut stream = String::new();
    for i in 0..1500 {
        let mut egg = paper("ptdl");
        egg["description"] = json!(format!("version {i}"));
        let body = pretty(&egg);
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter t <t@t> {} +0000\ndata {}\nv{i}\nM 100644 inline egg-paper.json\ndata {}\n{}\n",
            1_700_000_000 + i,
            format!("v{i}").len(),
            body.len(),
            body
        ));
    }
    let mut child = std::process::Command::new("git")
        .args(["-C", repo.dir.to_str().unwrap(), "fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());

    let limits = |history| Limits {
        timeout: Duration::from_secs(120),
        history,
        ..Limits::default()
    };
    let data = tmp.path().join("data");
    let clock = Clock::new(1_700_000_000_000);
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let out = try_build_with(&data, sources(), &clock, limits(HistoryDepth::Commits(20))).unwrap();
    let h = history_of(&out);
    assert_eq!(h.versions.len(), 20);
    assert_eq!(h.versions[19].subject, "v1480");
    assert_eq!(h.versions[19].event, VersionEvent::Changed);
    assert_eq!(kinds(&h.versions[19].changes), [Kind::DescriptionChanged]);
    assert!(!h.complete);
    let since = h.since.as_ref().expect("where the history starts");
    assert_eq!(h.versions[19].compared_with.as_ref(), Some(&since.commit));
    assert!(
        h.note
            .as_deref()
            .unwrap()
            .contains("older than the history eggcat reads (the newest 20 commits of the branch"),
        "{:?}",
        h.note
    );
    assert_eq!(h.versions[0].subject, "v1499");
    assert_eq!(kinds(&h.versions[0].changes), [Kind::DescriptionChanged]);

    // Deeper than the versions kept per egg: cut at the limit, with a note.
    let data2 = tmp.path().join("data2");
    let out = try_build_with(
        &data2,
        sources(),
        &clock,
        limits(HistoryDepth::Commits(1200)),
    )
    .unwrap();
    let h = history_of(&out);
    assert_eq!(h.versions.len(), eggcat_catalog::history::MAX_VERSIONS);
    assert!(!h.complete);
    assert!(
        h.note.as_deref().unwrap().contains("newest"),
        "{:?}",
        h.note
    );

    // A date: the commits since then.
    let data3 = tmp.path().join("data3");
    let since = HistoryDepth::Since(1_700_000_000 + 1490);
    let h = history_of(&try_build_with(&data3, sources(), &clock, limits(since)).unwrap());
    assert_eq!(
        h.versions.len(),
        10,
        "{:?}",
        h.versions.iter().map(|v| &v.subject).collect::<Vec<_>>()
    );
    assert_eq!(h.versions[9].subject, "v1490");
    assert_eq!(kinds(&h.versions[9].changes), [Kind::DescriptionChanged]);
    assert!(
        h.note
            .as_deref()
            .unwrap()
            .contains("the branch's commits since")
    );
}

/// The bytes read of a source's history are bounded: past the budget the oldest versions of
/// every egg are left unread first, each listed with why.
#[test]
fn the_history_read_is_bounded_newest_versions_first() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    let mut size = 0;
    for i in 0..10 {
        for name in ["a", "b"] {
            let mut egg = paper("ptdl");
            egg["description"] = json!(format!("{name} {i}"));
            size = pretty(&egg).len();
            repo.write(&format!("egg-{name}.json"), pretty(&egg));
        }
        repo.commit(&format!("v{i}"));
    }
    let limits = Limits {
        timeout: Duration::from_secs(60),
        // Room for the newest four versions of each egg.
        history_bytes: 8 * size as u64 + 10,
        ..Limits::default()
    };
    let clock = Clock::new(1_700_000_000_000);
    let out = try_build_with(
        &tmp.path().join("data"),
        vec![source(&repo.url(), "o", "eggs")],
        &clock,
        limits,
    )
    .unwrap();
    let histories: Vec<History> = out
        .snapshot
        .files
        .iter()
        .filter(|(p, _)| p.ends_with("/history.json"))
        .map(|(_, b)| serde_json::from_slice(b).unwrap())
        .collect();
    assert_eq!(histories.len(), 2);
    for h in histories {
        assert_eq!(h.versions.len(), 10);
        assert!(
            h.versions[..4].iter().all(|v| v.error.is_none()),
            "{:#?}",
            h.versions
        );
        for v in &h.versions[4..] {
            assert!(
                v.error
                    .as_deref()
                    .unwrap_or_default()
                    .starts_with("not read"),
                "{v:#?}"
            );
        }
    }
}

/// A new history depth is a new derivation: the next build fetches every source again and the
/// histories reach as deep as now asked, though upstream did not move.
#[test]
fn a_new_history_depth_takes_effect_without_an_upstream_change() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    for i in 0..6 {
        let mut egg = paper("ptdl");
        egg["description"] = json!(format!("v{i}"));
        repo.write("egg-paper.json", pretty(&egg));
        repo.commit(&format!("v{i}"));
    }
    let data = tmp.path().join("data");
    let clock = Clock::new(1_700_000_000_000);
    let at = |depth| Limits {
        timeout: Duration::from_secs(60),
        history: HistoryDepth::Commits(depth),
        ..Limits::default()
    };
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let shallow = history_of(&try_build_with(&data, sources(), &clock, at(2)).unwrap());
    assert_eq!(shallow.versions.len(), 2);
    let deep = history_of(&try_build_with(&data, sources(), &clock, at(10)).unwrap());
    assert_eq!(deep.versions.len(), 6, "{:?}", deep.note);
    assert!(deep.complete);
}

/// The real corpus: every egg has a history document, and its newest version is the egg the
/// catalog publishes (same bytes, by SHA-256).
#[test]
fn real_corpus_histories_end_at_the_published_egg() {
    let Some(shared) = shared_upstream() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sources = shared_sources(&shared, tmp.path());
    let out = build(
        &tmp.path().join("data"),
        sources,
        &Clock::new(1_700_000_000_000),
    );
    let index: Vec<Value> =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_index.json"]).unwrap();
    assert!(index.len() > 500, "{} eggs", index.len());
    for item in &index {
        let slug = item["slug"].as_str().unwrap();
        let bytes = &out.snapshot.files[&eggcat_catalog::paths::history(slug)];
        let h: History = serde_json::from_slice(bytes).unwrap();
        let doc = egg_doc(&out, slug);
        let newest = h
            .versions
            .first()
            .unwrap_or_else(|| panic!("{slug}: no version"));
        assert_eq!(
            newest.sha256.as_deref(),
            doc["meta"]["sha256"].as_str(),
            "{slug}"
        );
        assert_eq!(h.path, doc["meta"]["path"].as_str().unwrap(), "{slug}");
        assert_eq!(
            newest.event,
            VersionEvent::Added,
            "{slug}: one commit, the file's first"
        );
        assert!(h.complete, "{slug}");
    }
}
