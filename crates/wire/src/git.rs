//! What the fetcher read of a source, handed to the build as pure data: the entries of its tree
//! at the tip (with the contents the build asked for), and the commits of its history window
//! with the blobs of its eggs' versions. `eggcat-upstream` reads them with git; which entries
//! and blobs to read is the build's rule (`eggcat_catalog::needs_content`,
//! `eggcat_catalog::history::wanted_blobs`), passed in by the pipeline.

use std::collections::HashMap;

/// Largest file read from upstream, eggs and READMEs alike. The fetcher checks it against the
/// size in the tree before reading the blob, so a 1 GiB blob of zeros is never inflated.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// What a tree entry is. Only regular files are ever read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (git modes 100644 and 100755).
    File,
    /// A symbolic link (git mode 120000). Never followed.
    Symlink,
    /// A submodule (git mode 160000). Never followed.
    Submodule,
    /// A regular file whose path is not UTF-8: `path` names it with U+FFFD in place of each
    /// byte that is not, so the report can point at it, but two such paths may read the same,
    /// so it is never read.
    NotUtf8,
}

/// One entry of an upstream tree, with its content when the build asked for it
/// (`eggcat_catalog::needs_content`).
#[derive(Debug, Clone)]
pub struct TreeEntry {
    /// `/`-separated path inside the repository.
    pub path: String,
    /// What the entry is.
    pub kind: EntryKind,
    /// Size in bytes, from the tree (before reading).
    pub size: u64,
    /// The bytes, for the entries the build asked for.
    pub content: Option<Vec<u8>>,
}

/// One commit of `git log --first-parent --raw`, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogCommit {
    /// Full id.
    pub id: String,
    /// Committer time, Unix seconds.
    pub time: i64,
    /// The message's first line.
    pub subject: String,
    /// What it did to the files asked about.
    pub changes: Vec<FileChange>,
}

/// One line of `--raw` output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// `A`, `M`, `D`, `R` (renamed), `C` (copied), `T` (type changed).
    pub status: char,
    /// The path before (same as `new_path` unless renamed or copied).
    pub old_path: String,
    /// The path after.
    pub new_path: String,
    /// The blob before (all zeros for an addition).
    pub old_oid: String,
    /// The blob after (all zeros for a deletion).
    pub new_oid: String,
}

/// The commit just before the window of commits read: the first-parent commit after the
/// oldest one read. Its own changes are not read; the window's oldest changes are counted from
/// the files as it has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// Full id.
    pub id: String,
    /// Committer time, Unix seconds.
    pub time: i64,
}

/// What the fetcher read of a source's history.
#[derive(Debug, Clone, Default)]
pub struct SourceHistory {
    /// The commits of the window, newest first.
    pub commits: Vec<LogCommit>,
    /// The commit before the window; `None` when the window reaches the branch's first commit.
    pub base: Option<Base>,
    /// Every blob the build asked for (`eggcat_catalog::history::wanted_blobs`), by object id.
    /// A blob that could not be read is absent (its version says so).
    pub blobs: HashMap<String, Vec<u8>>,
    /// Blobs left unread on purpose (too large, over the source's budget), with why.
    pub unread: HashMap<String, String>,
    /// Why there is no history, when there is none (a plain folder, git failing): the note of
    /// every egg's document.
    pub unavailable: Option<String>,
    /// `https://host/{owner}/{repo}/commit/{commit}` with the source's owner and repo filled
    /// in, when the host is known.
    pub commit_url: Option<String>,
    /// What the window is, in words, for the notes ("the newest 100 commits of the branch").
    pub depth: String,
}
