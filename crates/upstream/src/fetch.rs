//! Fetching one source: from its location to a scanned tree, or to "unchanged" when its tip
//! commit is the one the previous catalog was built from.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eggcat_catalog::{Fetched, TreeEntry, needs_content, scan};

use crate::process::RunLimits;
use crate::source::{Location, Source};
use crate::{FetchError, dir, git, io_error};

/// Limits for fetching one source.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time for everything git does for the source.
    pub timeout: Duration,
    /// Largest size its mirror may grow to.
    pub max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(120),
            max_bytes: 512 * 1024 * 1024,
        }
    }
}

/// Fetches `source` into its mirror under `mirrors_dir` and scans it. `previous_commit` is the
/// commit the previous catalog holds for the source: when the upstream tip is still that commit,
/// nothing is fetched or parsed. Never fails: a failure is [`Fetched::Failed`] with the reason.
pub fn fetch(
    source: &Source,
    mirrors_dir: &Path,
    previous_commit: Option<&str>,
    limits: Limits,
) -> Fetched {
    let mut branch = None;
    match fetch_inner(source, mirrors_dir, previous_commit, limits, &mut branch) {
        Ok(fetched) => fetched,
        Err(error) => Fetched::Failed {
            branch,
            error: error.to_string(),
        },
    }
}

fn fetch_inner(
    source: &Source,
    mirrors_dir: &Path,
    previous_commit: Option<&str>,
    limits: Limits,
    branch_out: &mut Option<String>,
) -> Result<Fetched, FetchError> {
    // One deadline for every git command of the source.
    let run_limits = RunLimits {
        deadline: Instant::now() + limits.timeout,
        timeout: limits.timeout,
        watch: None,
    };
    let url = match &source.location {
        Location::Git(url) => url.clone(),
        Location::Local(path) if is_git_repository(path) => file_url(path),
        Location::Local(path) if path.is_dir() => {
            return from_folder(source, path, previous_commit);
        }
        Location::Local(path) => {
            let missing = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
            return Err(io_error(path)(missing));
        }
    };
    let (branch, tip) = git::ls_remote(&url, source.branch.as_deref(), run_limits)?;
    *branch_out = Some(branch.clone());
    if previous_commit == Some(tip.as_str()) {
        tracing::debug!(url = %source.url, %tip, "unchanged");
        return Ok(Fetched::Unchanged);
    }
    let mirror = mirrors_dir.join(source.mirror_name());
    let fetch_limits = RunLimits {
        watch: Some((&mirror, limits.max_bytes)),
        ..run_limits
    };
    let commit = git::fetch(&mirror, &url, &branch, fetch_limits)?;
    let listed = git::list_tree(&mirror, &commit, run_limits)?;
    let (mut entries, oids): (Vec<TreeEntry>, Vec<String>) = listed.into_iter().unzip();
    let wanted = needs_content(&entries);
    let wanted_oids: Vec<&str> = wanted.iter().map(|&i| oids[i].as_str()).collect();
    let blobs = git::read_blobs(&mirror, &wanted_oids, run_limits)?;
    for (i, blob) in wanted.into_iter().zip(blobs) {
        entries[i].content = Some(blob);
    }
    tracing::debug!(url = %source.url, %commit, entries = entries.len(), "fetched");
    Ok(Fetched::Scanned {
        branch,
        commit,
        scan: scan(&entries),
    })
}

fn from_folder(
    source: &Source,
    root: &Path,
    previous_commit: Option<&str>,
) -> Result<Fetched, FetchError> {
    let mut entries = dir::list(root)?;
    for i in needs_content(&entries) {
        entries[i].content = Some(dir::read(root, &entries[i].path)?);
    }
    let commit = dir::digest(&entries);
    if previous_commit == Some(commit.as_str()) {
        return Ok(Fetched::Unchanged);
    }
    let branch = source.branch.clone().unwrap_or_default();
    Ok(Fetched::Scanned {
        branch,
        commit,
        scan: scan(&entries),
    })
}

/// A work tree with `.git`, or a bare repository.
fn is_git_repository(path: &Path) -> bool {
    path.join(".git").exists() || (path.join("HEAD").is_file() && path.join("objects").is_dir())
}

/// Local repositories are fetched through file:// so that `--depth` is honoured.
fn file_url(path: &Path) -> String {
    let absolute: PathBuf = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", absolute.display())
}
