//! Upstream sources: what a `[[source]]` of the configuration means, and fetching its tree.
//!
//! A source is a git repository reached over https, git://, file:// (or plain http on a loopback
//! address), or a local path: a git repository there is fetched like any other, and so is a git
//! bundle file (the bundled demo is one); a plain folder is read as it is. Git runs as the `git` program: it speaks every
//! transport, shallow-fetches over file://, and is killed when a source exceeds its time or size
//! limit. Files are read from the object database of a bare mirror; nothing is checked out.

mod depth;
mod dir;
mod fetch;
mod git;
mod process;
mod source;
mod window;

pub use depth::HistoryDepth;
pub use fetch::{
    ChooseBlobs, ChooseEntries, HISTORY_BYTES, Limits, ReadTree, Tree, fetch_tree, read_history,
};
pub use source::{ConfigError, Location, Source, SourceSpec, default_sources};

/// Why a source could not be fetched. Each message names what failed and is shown in the
/// build report.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The branch does not exist upstream.
    #[error(
        "branch `{branch}` not found upstream ({}): set the source's `branch` to an existing \
         one, or leave it out for the default branch",
        branches_line(.known)
    )]
    BranchNotFound {
        /// The branch asked for.
        branch: String,
        /// The branches the remote has (the first few, sorted), for the message.
        known: Vec<String>,
    },
    /// The remote has no default branch (an empty repository).
    #[error("upstream has no default branch (empty repository?)")]
    NoDefaultBranch,
    /// A git command failed.
    #[error("git {command} failed: {message}")]
    Git {
        /// `ls-remote`, `fetch`, ...
        command: &'static str,
        /// git's own words, last lines of stderr.
        message: String,
    },
    /// The time limit ran out.
    #[error("git {command} did not finish within {seconds} s")]
    Timeout {
        /// The command that was killed.
        command: &'static str,
        /// The limit.
        seconds: u64,
    },
    /// One fetch added more than the size cap to the mirror.
    #[error("fetch is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The cap in bytes.
        limit: u64,
    },
    /// The local path does not exist or cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// What was being read.
        path: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// git printed something this program does not understand.
    #[error("unexpected output from git {command}: {detail}")]
    Protocol {
        /// The command.
        command: &'static str,
        /// What was wrong.
        detail: String,
    },
}

/// "its branches: a, b, c" (at most five, then "..."), or "it has no branches".
fn branches_line(known: &[String]) -> String {
    const SHOWN: usize = 5;
    if known.is_empty() {
        return "it has no branches".into();
    }
    let mut line = format!(
        "its branches: {}",
        known[..known.len().min(SHOWN)].join(", ")
    );
    if known.len() > SHOWN {
        line.push_str(&format!(", ... ({} in all)", known.len()));
    }
    line
}

/// Maps an IO error on `path` (the path is only formatted when there is an error).
pub(crate) fn io_error(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
    move |source| FetchError::Io {
        path: path.display().to_string(),
        source,
    }
}
