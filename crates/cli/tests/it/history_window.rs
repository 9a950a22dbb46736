//! Egg history on a generated repository shaped like the real ones issue 25 was found on: a
//! long first-parent line of merged pull requests whose branches started far back, long
//! startup commands and descriptions changed near their end, and most eggs older than the
//! history read. Built through file:// like any upstream, then checked against git itself:
//! the window is `history_depth` first-parent commits whatever `--depth` fetched through the
//! merges, every version is a commit of that window that changed its file, no change line has
//! two identical sides, the feed's newest entries are real versions dated by their commits
//! (never by the build), an egg older than the window appears once below them, and the feed's
//! ids survive a change of slug.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use eggcat_catalog::wire::{History, VersionEvent};
use eggcat_upstream::{HistoryDepth, Limits};

use crate::support::*;

/// Eggs in the repository; all are added by its first commit.
const EGGS: usize = 60;
/// First-parent commits after the first one.
const MAIN: usize = 80;
/// `history_depth` of the builds.
const DEPTH: u32 = 20;
/// The first commit's time: 2024-01-01, long before the builds' clock.
const T0: i64 = 1_704_067_200;

const JVM: &str = "java -Xms128M -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxGCPauseMillis=200 -XX:+UnlockExperimentalVMOptions";

/// Egg `i` with `n` as its edit count: the startup command and the description change near
/// their end (past the first 60 characters a change line shows).
fn egg(i: usize, n: usize) -> String {
    let egg = serde_json::json!({
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": format!("Game {i:02}"),
        "author": "test@eggcat.invalid",
        "description": format!("Game {i:02}: a dedicated server with the flags the maintainers tuned over the years, edit {n}."),
        "docker_images": {"Java 21": "ghcr.io/pterodactyl/yolks:java_21"},
        "startup": format!("{JVM} -jar server.jar --edit={n} nogui"),
        "config": {"files": "{}", "startup": "{\"done\": \"Done\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "echo install\n", "container": "debian", "entrypoint": "bash"}},
        "variables": []
    });
    serde_json::to_string_pretty(&egg).expect("serializes")
}

fn path(i: usize) -> String {
    format!("games/g{i:02}/egg-g{i:02}.json")
}

/// The `git fast-import` stream of the repository: the first commit adds every egg; then each
/// first-parent commit either edits one egg's description or (every third) merges a branch
/// started 10 to 34 commits back whose one commit changes one egg's startup command (branches
/// of many ages: through them `--depth` reaches every older commit); some commits
/// touch no egg (a README). The newest commit edits egg 0, so that it has a version.
fn stream() -> String {
    let mut s = String::new();
    let mut edits = vec![0usize; EGGS];
    let blob = |s: &mut String, text: &str| {
        s.push_str(&format!("data {}\n{text}\n", text.len()));
    };
    let header = |s: &mut String, mark: usize, time: i64, msg: &str| {
        s.push_str(&format!(
            "commit refs/heads/main\nmark :{mark}\ncommitter t <t@t> {time} +0000\ndata {}\n{msg}\n",
            msg.len()
        ));
    };
    header(&mut s, 1, T0, "Import the eggs");
    for i in 0..EGGS {
        s.push_str(&format!("M 100644 inline {}\n", path(i)));
        blob(&mut s, &egg(i, 0));
    }
    s.push_str("M 100644 inline README.md\n");
    blob(&mut s, "eggs");
    // Marks: main commit k is k (1..=MAIN+1); a branch commit for merge k is 1000 + k.
    for k in 2..=MAIN + 1 {
        let time = T0 + (k as i64) * 3600;
        let egg_no = if k == MAIN + 1 { 0 } else { (k * 7) % EGGS };
        if k % 3 == 0 {
            // The branch: one commit on top of main as it was 10 to 34 commits back.
            let fork = k.saturating_sub(10 + (k * 7) % 25).max(1);
            edits[egg_no] += 1;
            s.push_str(&format!(
                "commit refs/heads/pr{k}\nmark :{}\ncommitter t <t@t> {} +0000\ndata 9\nbranch {k}\nfrom :{fork}\n",
                1000 + k,
                time - 60
            ));
            s.push_str(&format!("M 100644 inline {}\n", path(egg_no)));
            blob(&mut s, &egg(egg_no, edits[egg_no]));
            let msg = format!("Merge pull request #{k}");
            header(&mut s, k, time, &msg);
            s.push_str(&format!("from :{}\nmerge :{}\n", k - 1, 1000 + k));
            s.push_str(&format!("M 100644 inline {}\n", path(egg_no)));
            blob(&mut s, &egg(egg_no, edits[egg_no]));
        } else if k % 5 == 1 {
            header(&mut s, k, time, &format!("Docs {k}"));
            s.push_str(&format!("from :{}\nM 100644 inline README.md\n", k - 1));
            blob(&mut s, &format!("eggs, revision {k}"));
        } else {
            edits[egg_no] += 1;
            header(&mut s, k, time, &format!("Edit game {egg_no:02}"));
            s.push_str(&format!("from :{}\n", k - 1));
            s.push_str(&format!("M 100644 inline {}\n", path(egg_no)));
            blob(&mut s, &egg(egg_no, edits[egg_no]));
        }
    }
    s
}

fn fast_import(dir: &Path, stream: &str) {
    let mut child = std::process::Command::new("git")
        .args(["-C", dir.to_str().expect("utf-8"), "fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream.as_bytes())
        .expect("written");
    assert!(child.wait().expect("waited").success());
}

/// (id, link, updated) of each feed entry, in order.
fn feed_entries(feed: &str) -> Vec<(String, String, String)> {
    let between = |e: &str, a: &str, b: &str| {
        let start = e.find(a).expect("opening") + a.len();
        e[start..start + e[start..].find(b).expect("closing")].to_owned()
    };
    feed.split("<entry>\n")
        .skip(1)
        .map(|e| {
            (
                between(e, "<id>", "</id>"),
                between(e, "<link href=\"", "\"/>"),
                between(e, "<updated>", "</updated>"),
            )
        })
        .collect()
}

fn histories(out: &crate::support::Outcome) -> Vec<History> {
    out.snapshot
        .files
        .iter()
        .filter(|(p, _)| p.ends_with("/history.json"))
        .map(|(_, b)| serde_json::from_slice(b).expect("a history"))
        .collect()
}

#[test]
fn a_merge_heavy_repository_with_old_eggs_gives_a_true_window_and_feed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    fast_import(&repo.dir, &stream());
    git(&repo.dir, &["checkout", "-q", "-f", "main"]);
    let window: Vec<String> = git(
        &repo.dir,
        &[
            "rev-list",
            "--first-parent",
            &format!("--max-count={}", DEPTH + 1),
            "main",
        ],
    )
    .lines()
    .map(str::to_owned)
    .collect();
    let (inside, base) = (&window[..DEPTH as usize], &window[DEPTH as usize]);

    let data = tmp.path().join("data");
    let build_time = 1_800_000_000_000; // 2027: far after every commit
    let clock = Clock::new(build_time);
    let limits = Limits {
        timeout: Duration::from_secs(120),
        history: HistoryDepth::Commits(DEPTH),
        ..Limits::default()
    };
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let out = try_build_with(&data, sources(), &clock, limits).unwrap();

    // What `--depth` fetched through the merges reaches far past the window along the first
    // parent: the window is cut from the log, not by the fetch.
    let mirror = std::fs::read_dir(data.join("mirrors"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let reached: usize = git(&mirror, &["rev-list", "--first-parent", "--count", "main"])
        .parse()
        .unwrap();
    assert!(
        reached > DEPTH as usize + 1,
        "first-parent commits fetched: {reached}"
    );

    let docs = histories(&out);
    assert_eq!(docs.len(), EGGS);
    let mut older = 0;
    for h in &docs {
        for v in &h.versions {
            // A commit of the window that changed this file (first parent against it).
            assert!(
                inside.contains(&v.commit),
                "{}: {} outside the window",
                h.slug,
                v.subject
            );
            assert_ne!(v.event, VersionEvent::Earliest);
            let touched = git(
                &repo.dir,
                &["diff", "--name-only", &format!("{}^1", v.commit), &v.commit],
            );
            assert!(
                touched.lines().any(|p| p == v.path),
                "{}: {} did not touch {}",
                h.slug,
                v.subject,
                v.path
            );
            for c in &v.changes {
                if let Some((_, rest)) = c.text.split_once("changed from ") {
                    let (a, b) = rest.split_once(" to ").unwrap();
                    assert_ne!(a, b, "{}: {}", h.slug, c.text);
                }
            }
        }
        // Every egg was added by the first commit: none is complete, each says where the
        // history starts; the oldest version listed is compared with the file at the base.
        assert!(!h.complete);
        let since = h.since.as_ref().expect("since");
        assert_eq!(&since.commit, base);
        if let Some(oldest) = h.versions.last() {
            assert_eq!(oldest.compared_with.as_ref(), Some(base), "{}", h.slug);
            assert!(!oldest.changes.is_empty(), "{}: a real change", h.slug);
        } else {
            older += 1;
            let note = h.note.as_deref().unwrap();
            assert!(note.starts_with("older than the history eggcat reads (the newest 20 commits of the branch, back to 2024-01-0"), "{note}");
        }
    }
    assert!(
        older > EGGS / 2,
        "most eggs are older than the window: {older}"
    );

    // The feed: real versions first, newest first, dated by their commits; then the eggs older
    // than the window, once each, dated by the base, never by the build.
    let feed = String::from_utf8(out.snapshot.files["feed.atom"].clone()).unwrap();
    let entries = feed_entries(&feed);
    assert_eq!(entries.len(), 50);
    let versions: Vec<_> = entries
        .iter()
        .filter(|(_, l, _)| l.contains("#v-"))
        .collect();
    let first_fallback = entries
        .iter()
        .position(|(_, l, _)| !l.contains("#v-"))
        .unwrap();
    assert!(
        versions.len() >= 10 && first_fallback == versions.len(),
        "versions first: {entries:#?}"
    );
    let dates: Vec<&String> = entries.iter().map(|(_, _, d)| d).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(dates.iter().all(|d| d.starts_with("2024-")), "{dates:?}");
    let base_date = docs[0].since.as_ref().unwrap().date.clone();
    assert!(
        entries[first_fallback..]
            .iter()
            .all(|(_, _, d)| *d == base_date)
    );
    let slugs: BTreeSet<&str> = entries[first_fallback..]
        .iter()
        .map(|(_, l, _)| l.as_str())
        .collect();
    assert_eq!(slugs.len(), entries.len() - first_fallback, "once each");

    // A second egg of the same file name elsewhere changes egg 0's slug (the folders are added
    // to both): its versions keep their feed ids.
    let ids_of = |entries: &[(String, String, String)], page: &str| -> BTreeSet<String> {
        entries
            .iter()
            .filter(|(_, l, _)| l.contains(page))
            .map(|(id, ..)| id.clone())
            .collect()
    };
    let before = ids_of(&entries, "/eggs/eggs-g00/#v-");
    assert!(!before.is_empty(), "egg 0 has versions in the feed");
    repo.write("tools/g00/egg-g00.json", egg_json("Game 00 tools"));
    repo.commit("Add a second g00");
    let out = try_build_with(&data, sources(), &clock, limits).unwrap();
    assert!(
        !out.snapshot.files.contains_key("api/v1/eggs/eggs-g00.json"),
        "the slug changed"
    );
    let feed = String::from_utf8(out.snapshot.files["feed.atom"].clone()).unwrap();
    let index: Vec<serde_json::Value> =
        serde_json::from_slice(&out.snapshot.files["api/v1/eggs/_index.json"]).unwrap();
    let slug = index
        .iter()
        .map(|i| i["slug"].as_str().unwrap())
        .find(|s| egg_doc(&out, s)["meta"]["path"] == path(0))
        .unwrap();
    let after = ids_of(&feed_entries(&feed), &format!("/eggs/{slug}/#v-"));
    assert_eq!(before, after);
}
