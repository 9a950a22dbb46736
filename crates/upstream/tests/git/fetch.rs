//! [`fetch_tree`]: from a source's location to its tree at the branch tip, read from a bare
//! mirror in `mirrors/`, or "unchanged" without fetching; new, rewritten and missing branches;
//! a repository that goes away; bundles and plain folders.

use eggcat_upstream::{Location, Tree};
use eggcat_wire::EntryKind;

use crate::support::*;

#[test]
fn a_new_commit_is_fetched_into_a_bare_mirror_and_the_eggs_and_their_readmes_read() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("games/paper/egg-paper.json", egg("Paper", 10))
        .write("games/paper/README.md", "# Paper\n")
        .write("games/paper/notes.txt", "not read")
        .write("voice/egg-mumble.yaml", "name: Mumble\n")
        .write("docs/README.md", "no egg here");
    let first = repo.commit("eggs");
    let mirrors = tmp.path().join("mirrors");
    let src = source(&repo.url(), None);
    let tree = read(fetch_tree(&src, &mirrors, None, limits()));
    assert_eq!(
        (tree.branch.as_str(), tree.commit.as_str()),
        ("main", first.as_str())
    );
    let mut paths: Vec<&str> = tree.entries.iter().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "docs/README.md",
            "games/paper/README.md",
            "games/paper/egg-paper.json",
            "games/paper/notes.txt",
            "voice/egg-mumble.yaml"
        ]
    );
    // The egg files and the READMEs beside them are read; nothing else is.
    let paper = egg("Paper", 10);
    assert_eq!(
        content(&tree, "games/paper/egg-paper.json"),
        Some(paper.as_bytes())
    );
    assert_eq!(
        content(&tree, "games/paper/README.md"),
        Some(&b"# Paper\n"[..])
    );
    assert_eq!(
        content(&tree, "voice/egg-mumble.yaml"),
        Some(&b"name: Mumble\n"[..])
    );
    assert_eq!(content(&tree, "games/paper/notes.txt"), None);
    assert_eq!(content(&tree, "docs/README.md"), None);
    let entry = tree
        .entries
        .iter()
        .find(|e| e.path == "games/paper/egg-paper.json")
        .unwrap();
    assert_eq!(
        (entry.kind, entry.size),
        (EntryKind::File, paper.len() as u64)
    );
    // The mirror is bare (nothing checked out) and holds the branch at the commit read.
    let mirror = mirror(&mirrors, &src);
    assert_eq!(git(&mirror, &["rev-parse", "--is-bare-repository"]), "true");
    assert_eq!(mirrored(&mirror, "main"), first);
    // The next commit is fetched into the same mirror.
    repo.write("games/paper/egg-paper.json", egg("Paper 2", 10));
    let second = repo.commit("paper 2");
    let tree = read(fetch_tree(&src, &mirrors, Some(&first), limits()));
    assert_eq!(tree.commit, second);
    assert_eq!(
        content(&tree, "games/paper/egg-paper.json"),
        Some(egg("Paper 2", 10).as_bytes())
    );
    assert_eq!(mirrored(&mirror, "main"), second);
}

#[test]
fn the_tip_of_the_previous_catalog_is_unchanged_and_nothing_is_fetched() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0));
    let tip = repo.commit("a");
    let mirrors = tmp.path().join("mirrors");
    let tree = fetch_tree(&source(&repo.url(), None), &mirrors, Some(&tip), limits());
    assert!(matches!(tree, Tree::Unchanged), "{tree:?}");
    assert!(
        !mirrors.exists(),
        "a mirror was made for an unchanged source"
    );
    // Another commit than the tip is not "unchanged".
    repo.write("egg-a.json", egg("A2", 0)).commit("a2");
    let tree = fetch_tree(&source(&repo.url(), None), &mirrors, Some(&tip), limits());
    assert!(matches!(tree, Tree::Read(_)), "{tree:?}");
}

#[test]
fn a_force_pushed_branch_is_read_at_its_new_tip_whatever_came_before() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0));
    let base = repo.commit("a");
    repo.write("egg-a.json", egg("A2", 0));
    let old_tip = repo.commit("a2");
    let mirrors = tmp.path().join("mirrors");
    let src = source(&repo.url(), None);
    read(fetch_tree(&src, &mirrors, None, limits()));
    // The last commit rewritten: the new tip is not a descendant of the one mirrored.
    repo.write("egg-a.json", egg("A rewritten", 0));
    git(&repo.dir, &["add", "-A"]);
    git_at(
        &repo.dir,
        DATE + 60,
        &["commit", "-q", "--amend", "-m", "rewritten"],
    );
    let rewritten = repo.head();
    assert_ne!(rewritten, old_tip);
    let tree = read(fetch_tree(&src, &mirrors, Some(&old_tip), limits()));
    assert_eq!(tree.commit, rewritten);
    assert_eq!(
        content(&tree, "egg-a.json"),
        Some(egg("A rewritten", 0).as_bytes())
    );
    // Its history is the new line's: the commit that was rewritten away is no version.
    let history = read_history(&src, &tree, &["egg-a.json"], limits());
    let ids: Vec<&str> = history.commits.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, [rewritten.as_str(), base.as_str()]);
    // And a branch reset to an older commit is read there.
    git(&repo.dir, &["reset", "-q", "--hard", &base]);
    let tree = read(fetch_tree(&src, &mirrors, Some(&rewritten), limits()));
    assert_eq!(tree.commit, base);
    assert_eq!(content(&tree, "egg-a.json"), Some(egg("A", 0).as_bytes()));
    assert_eq!(mirrored(&mirror(&mirrors, &src), "main"), base);
}

#[test]
fn without_a_branch_the_remotes_default_is_read_and_a_configured_one_is_read_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "trunk");
    repo.write("egg-a.json", egg("A", 0));
    let trunk = repo.commit("a");
    git(&repo.dir, &["checkout", "-q", "-b", "dev"]);
    repo.write("egg-b.json", egg("B", 0));
    let dev = repo.commit("b");
    git(&repo.dir, &["checkout", "-q", "trunk"]);
    let mirrors = tmp.path().join("mirrors");
    let tree = read(fetch_tree(
        &source(&repo.url(), None),
        &mirrors,
        None,
        limits(),
    ));
    assert_eq!(
        (tree.branch.as_str(), tree.commit.as_str()),
        ("trunk", trunk.as_str())
    );
    assert!(tree.entries.iter().all(|e| e.path != "egg-b.json"));
    let tree = read(fetch_tree(
        &source(&repo.url(), Some("dev")),
        &mirrors,
        None,
        limits(),
    ));
    assert_eq!(
        (tree.branch.as_str(), tree.commit.as_str()),
        ("dev", dev.as_str())
    );
    assert!(tree.entries.iter().any(|e| e.path == "egg-b.json"));
}

#[test]
fn a_missing_branch_fails_naming_the_branches_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0)).commit("a");
    git(&repo.dir, &["branch", "stable"]);
    let (branch, error) = failed(fetch_tree(
        &source(&repo.url(), Some("relase")),
        &tmp.path().join("mirrors"),
        None,
        limits(),
    ));
    assert_eq!(branch, None);
    assert_eq!(
        error,
        "branch `relase` not found upstream (its branches: main, stable): set the source's \
         `branch` to an existing one, or leave it out for the default branch"
    );
}

#[test]
fn an_empty_repository_has_no_default_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let bare = tmp.path().join("empty.git");
    std::fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    let url = format!("file://{}", bare.display());
    let (_, error) = failed(fetch_tree(
        &source(&url, None),
        &tmp.path().join("m"),
        None,
        limits(),
    ));
    assert_eq!(error, "upstream has no default branch (empty repository?)");
    let (_, error) = failed(fetch_tree(
        &source(&url, Some("main")),
        &tmp.path().join("m"),
        None,
        limits(),
    ));
    assert_eq!(
        error,
        "branch `main` not found upstream (it has no branches): set the source's `branch` to an \
         existing one, or leave it out for the default branch"
    );
}

#[test]
fn a_repository_that_goes_away_fails_and_its_mirror_keeps_the_last_good_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let up = fetched_once(tmp.path());
    let moved = tmp.path().join("moved");
    std::fs::rename(&up.repo.dir, &moved).unwrap();
    let (branch, error) = failed(fetch_tree(&up.src, &up.mirrors, Some(&up.good), limits()));
    assert_eq!(branch, None);
    assert!(error.starts_with("git ls-remote failed: "), "{error}");
    assert!(
        error.contains("does not appear to be a git repository"),
        "{error}"
    );
    let mirror = mirror(&up.mirrors, &up.src);
    assert_eq!(mirrored(&mirror, "main"), up.good);
    assert_eq!(
        git(
            &mirror,
            &["cat-file", "-p", &format!("{}:egg-a.json", up.good)]
        ),
        egg("A", 0)
    );
    // Back, with a new commit: fetched into the same mirror.
    std::fs::rename(&moved, &up.repo.dir).unwrap();
    up.repo.write("egg-a.json", egg("A2", 0));
    let next = up.repo.commit("a2");
    assert_eq!(
        read(fetch_tree(&up.src, &up.mirrors, Some(&up.good), limits())).commit,
        next
    );
    assert_eq!(mirrored(&mirror, "main"), next);
}

#[test]
fn a_local_repository_path_and_a_bundle_file_are_fetched_like_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("up"), "main");
    repo.write("egg-a.json", egg("A", 0));
    let first = repo.commit("a");
    repo.write("egg-a.json", egg("A2", 0));
    let tip = repo.commit("a2");
    let mirrors = tmp.path().join("mirrors");
    let by_path = source(&repo.dir.display().to_string(), None);
    assert!(matches!(by_path.location, Location::Local(_)));
    assert_eq!(
        read(fetch_tree(&by_path, &mirrors, None, limits())).commit,
        tip
    );
    let bundle = tmp.path().join("eggs.bundle");
    git(
        &repo.dir,
        &["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"],
    );
    let from_bundle = source(&bundle.display().to_string(), Some("main"));
    let tree = read(fetch_tree(&from_bundle, &mirrors, None, limits()));
    assert_eq!(tree.commit, tip);
    assert_eq!(content(&tree, "egg-a.json"), Some(egg("A2", 0).as_bytes()));
    // A bundle is fetched whole; its history still reads the window asked for.
    let history = read_history(&from_bundle, &tree, &["egg-a.json"], limits());
    assert_eq!(history.unavailable, None);
    let ids: Vec<&str> = history.commits.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, [tip.as_str(), first.as_str()]);
}

#[test]
fn a_plain_folder_is_read_as_it_is_without_following_links_or_entering_git() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("eggs");
    std::fs::create_dir_all(folder.join("games/.git")).unwrap();
    std::fs::write(folder.join("games/egg-a.json"), egg("A", 0)).unwrap();
    std::fs::write(folder.join("games/.git/egg-hidden.json"), egg("Hidden", 0)).unwrap();
    std::fs::write(tmp.path().join("secret.json"), "outside the folder").unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("secret.json"),
        folder.join("games/egg-link.json"),
    )
    .unwrap();
    let src = source(&folder.display().to_string(), None);
    let mirrors = tmp.path().join("mirrors");
    let tree = read(fetch_tree(&src, &mirrors, None, limits()));
    let mut paths: Vec<&str> = tree.entries.iter().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["games/egg-a.json", "games/egg-link.json"]);
    assert_eq!(
        content(&tree, "games/egg-a.json"),
        Some(egg("A", 0).as_bytes())
    );
    let link = tree
        .entries
        .iter()
        .find(|e| e.path == "games/egg-link.json")
        .unwrap();
    assert_eq!(
        (link.kind, link.content.as_deref()),
        (EntryKind::Symlink, None)
    );
    assert!(!mirrors.exists(), "a plain folder needs no mirror");
    // Its "commit" is a digest of what was read: the same folder is unchanged, a change is not.
    let digest = tree.commit.clone();
    assert!(matches!(
        fetch_tree(&src, &mirrors, Some(&digest), limits()),
        Tree::Unchanged
    ));
    std::fs::write(folder.join("games/egg-a.json"), egg("A2", 0)).unwrap();
    assert_ne!(
        read(fetch_tree(&src, &mirrors, Some(&digest), limits())).commit,
        digest
    );
    let history = read_history(&src, &tree, &["games/egg-a.json"], limits());
    assert_eq!(
        history.unavailable.as_deref(),
        Some("the source is a plain folder: it has no history")
    );
    assert!(history.commits.is_empty());
    // A path that is not there fails, naming it.
    let gone = tmp.path().join("nowhere");
    let (_, error) = failed(fetch_tree(
        &source(&gone.display().to_string(), None),
        &mirrors,
        None,
        limits(),
    ));
    assert_eq!(
        error,
        format!("cannot read {}: no such folder", gone.display())
    );
    // A plain file is none of what a local source may be, and is named as what it is.
    let file = tmp.path().join("plain.txt");
    std::fs::write(&file, "not a source").unwrap();
    let (_, error) = failed(fetch_tree(
        &source(&file.display().to_string(), None),
        &mirrors,
        None,
        limits(),
    ));
    assert_eq!(
        error,
        format!(
            "cannot read {}: a file, not a folder, a git repository or a git bundle",
            file.display()
        )
    );
}
