//! [`read_history`]: the window of first-parent commits a source's history is read from
//! (`history_depth` of them or those since `history_since`, and the commit before them), the
//! changes of each to JSON and YAML files with renames and deletions, and the blobs of the
//! eggs' versions within the budget, newest first.

use eggcat_upstream::{HistoryDepth, Limits};
use eggcat_wire::{Base, SourceHistory};

use crate::support::*;

/// The history of `paths` read as `depth` asks, the fetch included.
fn history_of(repo: &Repo, paths: &[&str], limits: Limits) -> SourceHistory {
    let tmp = tempfile::tempdir().unwrap();
    let src = source(&repo.url(), None);
    let tree = read(fetch_tree(&src, &tmp.path().join("mirrors"), None, limits));
    read_history(&src, &tree, paths, limits)
}

fn depth(history: HistoryDepth) -> Limits {
    Limits {
        history,
        ..limits()
    }
}

fn ids(history: &SourceHistory) -> Vec<&str> {
    history.commits.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn the_window_is_the_newest_commits_and_the_one_before_them_is_its_base() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    let commits: Vec<String> = (0..6)
        .map(|i| {
            repo.write("egg-a.json", egg(&format!("A{i}"), 0))
                .commit_at(&format!("a{i}"), DATE + i)
        })
        .collect();
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Commits(3)));
    assert_eq!(ids(&history), [&commits[5], &commits[4], &commits[3]]);
    assert_eq!(history.commits[0].subject, "a5");
    assert_eq!(history.commits[0].time, DATE + 5);
    assert_eq!(
        history.base,
        Some(Base {
            id: commits[2].clone(),
            time: DATE + 2
        })
    );
    assert_eq!(history.depth, "the newest 3 commits of the branch");
    assert_eq!(history.unavailable, None);
    // Every version of the window is read, and the file as the base has it (what the oldest
    // version changed is seen against it).
    for commit in &commits[2..] {
        let oid = repo.blob(commit, "egg-a.json");
        assert!(history.blobs.contains_key(&oid), "{commit}");
    }
    assert_eq!(history.blobs.len(), 4);
    // One commit: the tip's own change alone.
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Commits(1)));
    assert_eq!(ids(&history), [&commits[5]]);
    assert_eq!(history.base.map(|b| b.id), Some(commits[4].clone()));
    // A window longer than the branch reaches its first commit: no base.
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Commits(50)));
    assert_eq!(history.commits.len(), 6);
    assert_eq!(history.base, None);
}

#[test]
fn commits_that_change_no_egg_file_count_in_the_window_and_are_not_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0)).commit("a");
    let second = repo.write("egg-a.json", egg("A2", 0)).commit("a2");
    repo.write("README.md", "words").commit("readme");
    let fourth = repo.write("egg-a.json", egg("A3", 0)).commit("a3");
    repo.write("notes.txt", "more words").commit("notes");
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Commits(3)));
    assert_eq!(ids(&history), [fourth.as_str()]);
    assert_eq!(history.base.map(|b| b.id), Some(second));
    let change = &history.commits[0].changes[0];
    assert_eq!(
        (change.status, change.new_path.as_str()),
        ('M', "egg-a.json")
    );
}

#[test]
fn a_merged_branch_is_one_commit_of_the_window_however_long_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0)).commit("a");
    let before = repo
        .write("egg-a.json", egg("A2", 0))
        .commit_at("a2", DATE + 10);
    // A branch from the first commit whose commits are all newer than the main line's: every
    // parent's order (`git rev-list` without `--first-parent`) would put them in the window.
    git(&repo.dir, &["checkout", "-q", "-b", "feature", "HEAD~1"]);
    let feature: Vec<String> = (0..4)
        .map(|i| {
            repo.write("egg-b.json", egg(&format!("B{i}"), 0))
                .commit_at(&format!("b{i}"), DATE + 20 + i)
        })
        .collect();
    git(&repo.dir, &["checkout", "-q", "main"]);
    git_at(
        &repo.dir,
        DATE + 30,
        &["merge", "-q", "--no-ff", "-m", "merge feature", "feature"],
    );
    let merge = repo.head();
    let tip = repo
        .write("egg-a.json", egg("A3", 0))
        .commit_at("a3", DATE + 40);
    let history = history_of(
        &repo,
        &["egg-a.json", "egg-b.json"],
        depth(HistoryDepth::Commits(2)),
    );
    assert_eq!(ids(&history), [tip.as_str(), merge.as_str()]);
    assert_eq!(
        history.base.as_ref().map(|b| b.id.as_str()),
        Some(before.as_str())
    );
    for commit in &feature {
        assert!(
            !ids(&history).contains(&commit.as_str()),
            "{commit} is in the window"
        );
    }
    // The merge changed egg-b.json against its first parent: added, at the feature's last version.
    let change = &history.commits[1].changes[0];
    assert_eq!(
        (change.status, change.new_path.as_str()),
        ('A', "egg-b.json")
    );
    assert_eq!(change.new_oid, repo.blob(&feature[3], "egg-b.json"));
}

#[test]
fn a_date_keeps_the_commits_since_then_and_the_one_before() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    let day = 86_400;
    let commits: Vec<String> = (0..4)
        .map(|i| {
            repo.write("egg-a.json", egg(&format!("A{i}"), 0))
                .commit_at(&format!("a{i}"), DATE + i * day)
        })
        .collect();
    let since = (DATE + 2 * day) as u64;
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Since(since)));
    assert_eq!(ids(&history), [&commits[3], &commits[2]]);
    assert_eq!(history.base.map(|b| b.id), Some(commits[1].clone()));
    assert_eq!(
        history.depth,
        "the branch's commits since 2026-01-03T00:00:00Z"
    );
    // A tip older than the date: no commit read, the tip is the base.
    let later = (DATE + 30 * day) as u64;
    let history = history_of(&repo, &["egg-a.json"], depth(HistoryDepth::Since(later)));
    assert!(history.commits.is_empty());
    assert_eq!(history.base.map(|b| b.id), Some(commits[3].clone()));
}

#[test]
fn renames_deletions_and_restorations_are_in_the_log_of_their_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("games/egg-a.json", egg("A", 200))
        .write("games/egg-b.json", egg("B", 200));
    let added = repo.commit("add");
    std::fs::create_dir(repo.dir.join("games/a")).unwrap();
    git(&repo.dir, &["mv", "games/egg-a.json", "games/a/egg-a.json"]);
    let renamed = repo.commit("move a");
    let removed = repo.remove("games/egg-b.json").commit("remove b");
    let restored = repo
        .write("games/egg-b.json", egg("B again", 200))
        .commit("b again");
    let history = history_of(
        &repo,
        &["games/a/egg-a.json", "games/egg-b.json"],
        depth(HistoryDepth::Commits(10)),
    );
    assert_eq!(ids(&history), [&restored, &removed, &renamed, &added]);
    let change = |i: usize| {
        let c = &history.commits[i].changes;
        assert_eq!(c.len(), 1, "{c:?}");
        (c[0].status, c[0].old_path.as_str(), c[0].new_path.as_str())
    };
    assert_eq!(change(0), ('A', "games/egg-b.json", "games/egg-b.json"));
    assert_eq!(change(1), ('D', "games/egg-b.json", "games/egg-b.json"));
    assert_eq!(change(2), ('R', "games/egg-a.json", "games/a/egg-a.json"));
    assert_eq!(history.commits[3].changes.len(), 2);
    let rename = &history.commits[2].changes[0];
    assert_eq!(rename.old_oid, rename.new_oid, "moved unchanged");
    // The deletion's "after" is no blob; the versions of both eggs are read.
    assert_eq!(history.commits[1].changes[0].new_oid, "0".repeat(40));
    for (commit, path) in [
        (&added, "games/egg-a.json"),
        (&added, "games/egg-b.json"),
        (&restored, "games/egg-b.json"),
    ] {
        assert!(
            history.blobs.contains_key(&repo.blob(commit, path)),
            "{path} at {commit}"
        );
    }
}

#[test]
fn the_budget_reads_the_newest_versions_first_and_says_why_the_others_were_not() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    let commits: Vec<String> = (0..4)
        .map(|i| {
            repo.write("egg-a.json", egg(&format!("A{i}"), 1000))
                .commit(&format!("a{i}"))
        })
        .collect();
    let size = egg("A0", 1000).len() as u64;
    let limits = Limits {
        history_bytes: 2 * size + size / 2,
        ..depth(HistoryDepth::Commits(10))
    };
    let history = history_of(&repo, &["egg-a.json"], limits);
    assert_eq!(history.commits.len(), 4);
    let why = format!(
        "not read: the versions of this source's eggs fill the {} bytes a build reads of a \
         source's history, newer versions first",
        limits.history_bytes
    );
    for (i, commit) in commits.iter().enumerate() {
        let oid = repo.blob(commit, "egg-a.json");
        if i >= 2 {
            assert!(history.blobs.contains_key(&oid), "version {i} not read");
        } else {
            assert_eq!(history.unread.get(&oid), Some(&why), "version {i}");
        }
    }
}

#[test]
fn a_history_that_cannot_be_read_costs_the_eggs_their_history_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let Fetched {
        mirrors, src, tree, ..
    } = fetched_once(tmp.path());
    std::fs::remove_dir_all(mirror(&mirrors, &src)).unwrap();
    let history = read_history(&src, &tree, &["egg-a.json"], limits());
    let why = history.unavailable.as_deref().unwrap_or_default();
    assert!(
        why.starts_with("the history could not be read: git rev-list failed: "),
        "{why}"
    );
    assert!(history.commits.is_empty() && history.blobs.is_empty());
    assert_eq!(history.depth, "the newest 100 commits of the branch");
}
