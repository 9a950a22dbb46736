//! Fetching one source: from its location to its tree read at the tip ([`fetch_tree`]), or to
//! "unchanged" when its tip commit is the one the previous catalog was built from, and the
//! history of its egg files ([`read_history`]). Git only: which entries and blobs are worth
//! reading is the caller's choice ([`ChooseEntries`], [`ChooseBlobs`]: the build's egg-file
//! rule and version walk, passed in by `eggcat-pipeline`), and so is scanning the tree for eggs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eggcat_wire::{Base, LogCommit, MAX_FILE_SIZE, SourceHistory, TreeEntry};

use crate::depth::HistoryDepth;
use crate::process::RunLimits;
use crate::source::{Location, Source};
use crate::{FetchError, dir, git, io_error};

/// Which entries of a source's listed tree to read, by index (their sizes are the tree's, so an
/// oversized blob need never be inflated).
pub type ChooseEntries<'a> = &'a dyn Fn(&[TreeEntry]) -> Vec<usize>;

/// Which blobs of a source's history window to read, most wanted first, from the window's
/// commits and the commit before it. A budget cuts the last ones.
pub type ChooseBlobs<'a> = &'a dyn Fn(&[LogCommit], Option<&Base>) -> Vec<String>;

/// The default of [`Limits::history_bytes`]: 256 MiB.
pub const HISTORY_BYTES: u64 = 256 * 1024 * 1024;

/// Limits for fetching one source.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time for everything git does for the source.
    pub timeout: Duration,
    /// Largest size its mirror may grow to.
    pub max_bytes: u64,
    /// How much of the branch's history is fetched for the eggs' histories.
    pub history: HistoryDepth,
    /// The most a build reads of one source's history (the blobs of its eggs' versions): what
    /// bounds its memory however long or busy the history is. Newer versions come first.
    pub history_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(120),
            max_bytes: 512 * 1024 * 1024,
            history: HistoryDepth::default(),
            history_bytes: HISTORY_BYTES,
        }
    }
}

/// What fetching a source's tree gave, before any egg is parsed.
#[derive(Debug)]
pub enum Tree {
    /// The tip is the previous catalog's commit: nothing fetched.
    Unchanged,
    /// The tree at the tip, with the contents of the files the scan needs.
    Read(ReadTree),
    /// Fetching failed.
    Failed {
        /// The branch, when it was resolved before the failure.
        branch: Option<String>,
        /// Why, for the report.
        error: String,
    },
}

/// A source's tree at its tip, read, for the caller's scan and [`read_history`].
#[derive(Debug)]
pub struct ReadTree {
    /// The branch read.
    pub branch: String,
    /// The commit read.
    pub commit: String,
    /// Its entries, with the contents the caller chose ([`ChooseEntries`]).
    pub entries: Vec<TreeEntry>,
    /// The mirror the history is read from; `None` for a plain folder.
    mirror: Option<PathBuf>,
    /// The end of the time allowed for the source, shared by every git command run for it.
    deadline: Instant,
}

/// Asks upstream for the tip of `source` and, when it is not `previous_commit`, fetches it into
/// its mirror, lists the tree and reads the entries `choose` picks: git only, no egg parsed.
/// Never fails: a failure is [`Tree::Failed`] with the reason.
pub fn fetch_tree(
    source: &Source,
    mirrors_dir: &Path,
    previous_commit: Option<&str>,
    limits: Limits,
    choose: ChooseEntries<'_>,
) -> Tree {
    let mut branch = None;
    let fetch = Fetch {
        mirrors_dir,
        previous_commit,
        limits,
        choose,
    };
    match fetch_inner(source, fetch, &mut branch) {
        Ok(tree) => tree,
        Err(error) => Tree::Failed {
            branch,
            error: error.to_string(),
        },
    }
}

/// The history of a tree read by [`fetch_tree`]: the commits of its window, the commit before
/// it, and the blobs `choose` picks from them (the versions of the scan's eggs). A history that
/// cannot be read costs the eggs their history, not the source its eggs.
pub fn read_history(
    source: &Source,
    tree: &ReadTree,
    choose: ChooseBlobs<'_>,
    limits: Limits,
) -> SourceHistory {
    let Some(mirror) = &tree.mirror else {
        return SourceHistory {
            unavailable: Some("the source is a plain folder: it has no history".to_owned()),
            ..SourceHistory::default()
        };
    };
    let run_limits = RunLimits {
        deadline: tree.deadline,
        timeout: limits.timeout,
        watch: None,
    };
    let window = Window {
        depth: limits.history,
        budget: limits.history_bytes,
    };
    let history = history(mirror, &tree.commit, choose, window, run_limits).unwrap_or_else(|e| {
        tracing::warn!(url = %source.url, error = %e, "history unreadable");
        SourceHistory {
            unavailable: Some(format!("the history could not be read: {e}")),
            ..SourceHistory::default()
        }
    });
    SourceHistory {
        commit_url: commit_url(source),
        depth: limits.history.describe(),
        ..history
    }
}

/// What [`fetch_tree`] was asked.
#[derive(Clone, Copy)]
struct Fetch<'a> {
    mirrors_dir: &'a Path,
    previous_commit: Option<&'a str>,
    limits: Limits,
    choose: ChooseEntries<'a>,
}

fn fetch_inner(
    source: &Source,
    fetch: Fetch<'_>,
    branch_out: &mut Option<String>,
) -> Result<Tree, FetchError> {
    let Fetch {
        mirrors_dir,
        previous_commit,
        limits,
        choose,
    } = fetch;
    // One deadline for every git command of the source.
    let run_limits = RunLimits {
        deadline: Instant::now() + limits.timeout,
        timeout: limits.timeout,
        watch: None,
    };
    let url = match &source.location {
        Location::Git(url) => url.clone(),
        Location::Local(path) if is_git_repository(path) => file_url(path),
        // git reads a bundle by its path (not through file://), whole: it has no shallow
        // fetch, so the window is cut from the log alone.
        Location::Local(path) if is_bundle(path) => path.to_string_lossy().into_owned(),
        Location::Local(path) if path.is_dir() => {
            return from_folder(source, path, fetch, run_limits.deadline);
        }
        Location::Local(path) => {
            let why = if path.exists() {
                std::io::Error::other("a file, not a folder, a git repository or a git bundle")
            } else {
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder")
            };
            return Err(io_error(path)(why));
        }
    };
    let (branch, tip) = git::ls_remote(&url, source.branch.as_deref(), run_limits)?;
    *branch_out = Some(branch.clone());
    if previous_commit == Some(tip.as_str()) {
        tracing::debug!(url = %source.url, %tip, "unchanged");
        return Ok(Tree::Unchanged);
    }
    let mirror = mirrors_dir.join(source.mirror_name());
    let fetch_limits = RunLimits {
        watch: Some((&mirror, limits.max_bytes)),
        ..run_limits
    };
    let commit = git::fetch(&mirror, &url, &branch, limits.history, fetch_limits)?;
    let listed = git::list_tree(&mirror, &commit, run_limits)?;
    let (mut entries, oids): (Vec<TreeEntry>, Vec<String>) = listed.into_iter().unzip();
    let wanted = choose(&entries);
    let wanted_oids: Vec<&str> = wanted.iter().map(|&i| oids[i].as_str()).collect();
    let blobs = git::read_blobs(&mirror, &wanted_oids, run_limits)?;
    for (i, blob) in wanted.into_iter().zip(blobs) {
        entries[i].content = Some(blob);
    }
    tracing::debug!(url = %source.url, %commit, entries = entries.len(), "fetched");
    Ok(Tree::Read(ReadTree {
        branch,
        commit,
        entries,
        mirror: Some(mirror),
        deadline: run_limits.deadline,
    }))
}

fn from_folder(
    source: &Source,
    root: &Path,
    fetch: Fetch<'_>,
    deadline: Instant,
) -> Result<Tree, FetchError> {
    let mut entries = dir::list(root)?;
    for i in (fetch.choose)(&entries) {
        entries[i].content = Some(dir::read(root, &entries[i].path)?);
    }
    let commit = dir::digest(&entries);
    if fetch.previous_commit == Some(commit.as_str()) {
        return Ok(Tree::Unchanged);
    }
    Ok(Tree::Read(ReadTree {
        branch: source.branch.clone().unwrap_or_default(),
        commit,
        entries,
        mirror: None,
        deadline,
    }))
}

/// What [`history`] reads of a source.
#[derive(Debug, Clone, Copy)]
struct Window {
    depth: HistoryDepth,
    /// Bytes of old versions read at most.
    budget: u64,
}

/// The history of the mirror's `commit`: one `git log` of the window, then one
/// `git cat-file --batch` for the blobs `choose` picks from it.
fn history(
    mirror: &Path,
    commit: &str,
    choose: ChooseBlobs<'_>,
    window: Window,
    limits: RunLimits<'_>,
) -> Result<SourceHistory, FetchError> {
    // The window and the commit before it.
    let count = match window.depth {
        HistoryDepth::Commits(n) => Some(n.max(1).saturating_add(1)),
        HistoryDepth::Since(_) => None,
    };
    let line = git::first_parents(mirror, commit, count, limits)?;
    let shallow = git::shallow_commits(mirror)?;
    let (_, base) = crate::window::cut(line, &shallow, window.depth);
    // The log of the window alone (it leaves out the commits that change no egg file, so the
    // window is counted on the line above, not on it).
    let commits = git::log(mirror, commit, base.as_ref().map(|b| b.id.as_str()), limits)?;
    let wanted = choose(&commits, base.as_ref());
    let oids: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let (blobs, unread) = read_within(mirror, &oids, window.budget, limits)?;
    Ok(SourceHistory {
        commits,
        base,
        blobs,
        unread,
        ..SourceHistory::default()
    })
}

/// Blobs by object id, and why each blob left unread was.
type Blobs = (HashMap<String, Vec<u8>>, HashMap<String, String>);

/// The blobs `oids` (most wanted first) read while they fit in `budget` bytes, and why each
/// other one was not read.
fn read_within(
    mirror: &Path,
    oids: &[&str],
    budget: u64,
    limits: RunLimits<'_>,
) -> Result<Blobs, FetchError> {
    let sizes = git::blob_sizes(mirror, oids, limits)?;
    let mut total = 0u64;
    let mut wanted = Vec::new();
    let mut unread = HashMap::new();
    for (oid, size) in oids.iter().zip(sizes) {
        if size > MAX_FILE_SIZE {
            let why = format!("the file is {size} bytes, over the 16 MiB an egg file may have");
            unread.insert((*oid).to_owned(), why);
        } else if total + size > budget {
            let why = format!(
                "not read: the versions of this source's eggs fill the {budget} bytes a build reads of a source's history, newer versions first"
            );
            unread.insert((*oid).to_owned(), why);
        } else {
            total += size;
            wanted.push(*oid);
        }
    }
    let blobs = git::read_blobs(mirror, &wanted, limits)?;
    let blobs = wanted.iter().map(|o| (*o).to_owned()).zip(blobs).collect();
    Ok((blobs, unread))
}

/// The upstream host's page of a commit, `{commit}` left to fill, when the host is known.
fn commit_url(source: &Source) -> Option<String> {
    let Location::Git(url) = &source.location else {
        return None;
    };
    let rest = url.split_once("://")?.1;
    let host = rest.split('/').next()?;
    let (owner, repo) = (&source.owner, &source.repo);
    match host {
        "github.com" | "www.github.com" => Some(format!(
            "https://github.com/{owner}/{repo}/commit/{{commit}}"
        )),
        "gitlab.com" => Some(format!(
            "https://gitlab.com/{owner}/{repo}/-/commit/{{commit}}"
        )),
        "codeberg.org" => Some(format!(
            "https://codeberg.org/{owner}/{repo}/commit/{{commit}}"
        )),
        _ => None,
    }
}

/// A work tree with `.git`, or a bare repository.
fn is_git_repository(path: &Path) -> bool {
    path.join(".git").exists() || (path.join("HEAD").is_file() && path.join("objects").is_dir())
}

/// A git bundle (`git bundle create`): a file that starts with the bundle signature.
fn is_bundle(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| {
            head.starts_with(b"# v2 git bundle") || head.starts_with(b"# v3 git bundle")
        })
}

/// Local repositories are fetched through file:// so that `--depth` is honoured.
fn file_url(path: &Path) -> String {
    let absolute: PathBuf = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", absolute.display())
}
