//! Upstreams for tests: the `git` program run with a fixed identity and date whatever the
//! machine's configuration says, and work-tree repositories made with it. No test touches the
//! internet; an upstream is a real repository in a temp dir.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The author and committer date of every commit unless a test gives one:
/// 2026-01-01T00:00:00Z, in Unix seconds.
pub const DATE: i64 = 1_767_225_600;

/// Runs git in `dir` at `date` (Unix seconds, UTC) as `eggcat-test <test@eggcat.invalid>`,
/// without signing and without the system's configuration; its stdout, trimmed. Panics with
/// git's stderr when it fails.
pub fn git_at(dir: &Path, date: i64, args: &[&str]) -> String {
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

/// [`git_at`] at [`DATE`].
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, DATE, args)
}

/// A work-tree repository used as an upstream.
#[derive(Debug)]
pub struct Repo {
    pub dir: PathBuf,
}

impl Repo {
    /// `git init` in `dir` (made if missing) with `branch` checked out.
    pub fn init(dir: impl Into<PathBuf>, branch: &str) -> Repo {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q", "-b", branch]);
        Repo { dir }
    }

    /// Writes a file, making its folders.
    pub fn write(&self, path: &str, bytes: impl AsRef<[u8]>) -> &Repo {
        let full = self.dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
        self
    }

    /// Removes a file.
    pub fn remove(&self, path: &str) -> &Repo {
        std::fs::remove_file(self.dir.join(path)).unwrap();
        self
    }

    /// Commits everything at [`DATE`]; returns the commit id.
    pub fn commit(&self, message: &str) -> String {
        self.commit_at(message, DATE)
    }

    /// Commits everything at `date` (Unix seconds); returns the commit id.
    pub fn commit_at(&self, message: &str, date: i64) -> String {
        git_at(&self.dir, date, &["add", "-A"]);
        git_at(
            &self.dir,
            date,
            &["commit", "-q", "--allow-empty", "-m", message],
        );
        self.head()
    }

    /// Replaces the last commit (a history rewrite, as after a force-push); returns its id.
    pub fn amend(&self) -> String {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "--amend", "-m", "rewritten"]);
        self.head()
    }

    /// The commit checked out.
    pub fn head(&self) -> String {
        git(&self.dir, &["rev-parse", "HEAD"])
    }

    /// The blob id of `path` in `commit`.
    pub fn blob(&self, commit: &str, path: &str) -> String {
        git(&self.dir, &["rev-parse", &format!("{commit}:{path}")])
    }

    /// The `file://` URL of the repository.
    pub fn url(&self) -> String {
        format!("file://{}", self.dir.display())
    }
}
