//! Fixtures: work-tree repositories used as upstreams, made with the `git` program under fixed
//! identities and dates, and the sources and limits the tests fetch them with.

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// The committer date of every commit unless a test gives one: 2026-01-01T00:00:00Z.
pub(crate) const DATE: i64 = 1_767_225_600;

/// Runs git in `dir` at `date` (Unix seconds) with a fixed identity, whatever the machine's
/// configuration says; its stdout, trimmed. Panics with git's stderr when it fails.
pub(crate) fn git_at(dir: &Path, date: i64, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=eggcat-test",
            "-c",
            "user.email=test@eggcat.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
        ])
        .args(args)
        .env("GIT_AUTHOR_DATE", format!("@{date} +0000"))
        .env("GIT_COMMITTER_DATE", format!("@{date} +0000"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, DATE, args)
}

/// A work-tree repository used as an upstream.
pub(crate) struct Repo {
    pub(crate) dir: PathBuf,
}

impl Repo {
    /// `git init` in `dir` with `branch` checked out.
    pub(crate) fn init(dir: impl Into<PathBuf>, branch: &str) -> Repo {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q", "-b", branch]);
        Repo { dir }
    }

    /// Writes a file, making its folders.
    pub(crate) fn write(&self, path: &str, bytes: impl AsRef<[u8]>) -> &Repo {
        let full = self.dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
        self
    }

    pub(crate) fn remove(&self, path: &str) -> &Repo {
        std::fs::remove_file(self.dir.join(path)).unwrap();
        self
    }

    /// Commits everything at the default date; returns the commit id.
    pub(crate) fn commit(&self, message: &str) -> String {
        self.commit_at(message, DATE)
    }

    /// Commits everything at `date` (Unix seconds); returns the commit id.
    pub(crate) fn commit_at(&self, message: &str, date: i64) -> String {
        git_at(&self.dir, date, &["add", "-A"]);
        git_at(
            &self.dir,
            date,
            &["commit", "-q", "--allow-empty", "-m", message],
        );
        self.head()
    }

    pub(crate) fn head(&self) -> String {
        git(&self.dir, &["rev-parse", "HEAD"])
    }

    /// The blob id of `path` in `commit`.
    pub(crate) fn blob(&self, commit: &str, path: &str) -> String {
        git(&self.dir, &["rev-parse", &format!("{commit}:{path}")])
    }

    pub(crate) fn url(&self) -> String {
        format!("file://{}", self.dir.display())
    }
}

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
