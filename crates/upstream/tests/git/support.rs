//! Fixtures: work-tree repositories used as upstreams, made with the `git` program under fixed
//! identities and dates, and the sources and limits the tests fetch them with.

use std::path::{Path, PathBuf};
use std::time::Duration;

use eggcat_upstream::{Limits, ReadTree, Source, SourceSpec, Tree};
use eggcat_wire::SourceHistory;

/// [`eggcat_upstream::fetch_tree`] reading what a build reads: the catalog's egg files and
/// their READMEs (`eggcat_catalog::needs_content`, which the pipeline passes).
pub(crate) fn fetch_tree(
    source: &Source,
    mirrors_dir: &Path,
    previous_commit: Option<&str>,
    limits: Limits,
) -> Tree {
    let choose = &eggcat_catalog::needs_content;
    eggcat_upstream::fetch_tree(source, mirrors_dir, previous_commit, limits, choose)
}

/// [`eggcat_upstream::read_history`] reading what a build reads for the eggs at `paths`: their
/// versions' blobs (`eggcat_catalog::history::wanted_blobs`, which the pipeline passes).
pub(crate) fn read_history(
    source: &Source,
    tree: &ReadTree,
    paths: &[&str],
    limits: Limits,
) -> SourceHistory {
    let choose = |commits: &[_], base: Option<&_>| {
        eggcat_catalog::history::wanted_blobs(commits, base, paths)
    };
    eggcat_upstream::read_history(source, tree, &choose, limits)
}

// `git` under a fixed identity and date, and work-tree repositories used as upstreams: the
// workspace's test kit, shared with the CLI's tests.
pub(crate) use eggcat_testkit::{DATE, Repo, git, git_at};

/// An egg file in JSON of about `pad` bytes more than its fields.
pub(crate) fn egg(name: &str, pad: usize) -> String {
    format!(
        r#"{{"meta":{{"version":"PTDL_v2"}},"name":"{name}","author":"a@b.c","description":"{}","startup":"./run"}}"#,
        "d".repeat(pad)
    )
}

/// The source at `url` (a URL or a path), owner `o`, repository `eggs`, on `branch` (the remote's
/// default branch when `None`).
pub(crate) fn source(url: &str, branch: Option<&str>) -> Source {
    let spec = SourceSpec {
        url: url.to_owned(),
        branch: branch.map(str::to_owned),
        owner: Some("o".to_owned()),
        repo: Some("eggs".to_owned()),
        label: Some("test".to_owned()),
        ..SourceSpec::default()
    };
    Source::resolve(&spec, Path::new("/")).expect("a valid source")
}

/// The default limits, with a time limit a loaded test machine cannot reach by accident.
pub(crate) fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(60),
        ..Limits::default()
    }
}

/// An upstream of one egg fetched once: where the tests of what a later fetch or history read
/// does to a mirror start from.
pub(crate) struct Fetched {
    /// The upstream, `up` in the test's folder: `egg-a.json` in one commit on `main`.
    pub(crate) repo: Repo,
    /// That commit, the one the mirror holds.
    pub(crate) good: String,
    /// The mirrors' folder, `mirrors` in the test's folder.
    pub(crate) mirrors: PathBuf,
    pub(crate) src: Source,
    /// What the fetch read.
    pub(crate) tree: ReadTree,
}

/// Makes the upstream of [`Fetched`] in `dir` and fetches it once.
pub(crate) fn fetched_once(dir: &Path) -> Fetched {
    let repo = Repo::init(dir.join("up"), "main");
    repo.write("egg-a.json", egg("A", 0));
    let good = repo.commit("a");
    let mirrors = dir.join("mirrors");
    let src = source(&repo.url(), None);
    let tree = read(fetch_tree(&src, &mirrors, None, limits()));
    Fetched {
        repo,
        good,
        mirrors,
        src,
        tree,
    }
}

/// The tree read, or a panic naming what the fetch gave instead.
pub(crate) fn read(tree: Tree) -> ReadTree {
    match tree {
        Tree::Read(read) => read,
        other => panic!("not read: {other:?}"),
    }
}

/// The error of a failed fetch, or a panic naming what the fetch gave instead.
pub(crate) fn failed(tree: Tree) -> (Option<String>, String) {
    match tree {
        Tree::Failed { branch, error } => (branch, error),
        other => panic!("did not fail: {other:?}"),
    }
}

/// The content read for the entry at `path`: `None` when it was not read.
pub(crate) fn content<'a>(tree: &'a ReadTree, path: &str) -> Option<&'a [u8]> {
    tree.entries
        .iter()
        .find(|e| e.path == path)
        .unwrap_or_else(|| panic!("{path} not in the tree"))
        .content
        .as_deref()
}

/// The mirror of `source` under `mirrors`.
pub(crate) fn mirror(mirrors: &Path, source: &Source) -> PathBuf {
    mirrors.join(source.mirror_name())
}

/// The commit the mirror holds for `branch`.
pub(crate) fn mirrored(mirror: &Path, branch: &str) -> String {
    git(mirror, &["rev-parse", &format!("refs/heads/{branch}")])
}

/// `len` bytes no compressor shrinks (xorshift), so that a fetch of them is as large on disk.
pub(crate) fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
