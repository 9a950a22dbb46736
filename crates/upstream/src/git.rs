//! The git commands eggcat runs, with the environment that keeps them non-interactive and
//! confined to the accepted transports.

use std::path::Path;
use std::process::Command;

use eggcat_catalog::{EntryKind, TreeEntry};

use crate::process::{RunLimits, run};
use crate::{FetchError, io_error};

/// A `git` command that never prompts, never uses a credential helper, and speaks only the
/// accepted transports.
fn git(dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    cmd.args([
        "-c",
        "protocol.allow=never",
        "-c",
        "protocol.https.allow=always",
        "-c",
        "protocol.http.allow=always",
        "-c",
        "protocol.git.allow=always",
        "-c",
        "protocol.file.allow=always",
        "-c",
        "credential.helper=",
        "-c",
        "core.askPass=",
        "-c",
        "gc.autoDetach=false",
        "-c",
        "maintenance.autoDetach=false",
    ])
    .env("GIT_TERMINAL_PROMPT", "0")
    .env("GIT_ASKPASS", "true")
    .env("SSH_ASKPASS", "true")
    .env("GCM_INTERACTIVE", "never")
    .env("GIT_PROTOCOL_FROM_USER", "0")
    .env("LC_ALL", "C");
    cmd
}

/// The branch to read and its tip commit, asked of the remote without fetching.
pub(crate) fn ls_remote(
    url: &str,
    branch: Option<&str>,
    limits: RunLimits<'_>,
) -> Result<(String, String), FetchError> {
    let mut cmd = git(None);
    cmd.args(["ls-remote", "--symref", "--"]).arg(url);
    match branch {
        Some(b) => cmd.arg(format!("refs/heads/{b}")),
        None => cmd.arg("HEAD"),
    };
    let out = run("ls-remote", cmd, None, limits)?;
    let text = String::from_utf8_lossy(&out);
    let mut symref = None;
    let mut tip = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("ref: ") {
            symref = rest
                .split('\t')
                .next()
                .and_then(|r| r.strip_prefix("refs/heads/"))
                .map(str::to_owned);
        } else if let Some((oid, _)) = line.split_once('\t') {
            tip = Some(oid.to_owned());
        }
    }
    let branch = match branch {
        Some(b) => b.to_owned(),
        None => symref.ok_or(FetchError::NoDefaultBranch)?,
    };
    let tip = tip.ok_or_else(|| FetchError::BranchNotFound(branch.clone()))?;
    if tip.len() < 40 || !tip.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(FetchError::Protocol {
            command: "ls-remote",
            detail: format!("bad object id `{tip}`"),
        });
    }
    Ok((branch, tip))
}

/// Fetches the tip of `branch` at depth 1 into the bare mirror and returns its commit. The size
/// limit in `limits.watch` applies to the fetch itself.
pub(crate) fn fetch(
    mirror: &Path,
    url: &str,
    branch: &str,
    limits: RunLimits<'_>,
) -> Result<String, FetchError> {
    if !mirror.join("HEAD").exists() {
        std::fs::create_dir_all(mirror).map_err(io_error(mirror))?;
        let mut init = git(None);
        init.args(["init", "--bare", "--quiet"]).arg(mirror);
        run(
            "init",
            init,
            None,
            RunLimits {
                watch: None,
                ..limits
            },
        )?;
    }
    let local_ref = format!("refs/heads/{branch}");
    let mut cmd = git(Some(mirror));
    cmd.args([
        "fetch",
        "--quiet",
        "--depth=1",
        "--no-tags",
        "--no-write-fetch-head",
        "--",
    ])
    .arg(url)
    .arg(format!("+{local_ref}:{local_ref}"));
    run("fetch", cmd, None, limits)?;
    let mut rev = git(Some(mirror));
    rev.args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{local_ref}^{{commit}}"));
    let out = run(
        "rev-parse",
        rev,
        None,
        RunLimits {
            watch: None,
            ..limits
        },
    )?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// Every entry of the tree at `commit` (recursively, submodules listed but not entered), with
/// the object id of each blob.
pub(crate) fn list_tree(
    mirror: &Path,
    commit: &str,
    limits: RunLimits<'_>,
) -> Result<Vec<(TreeEntry, String)>, FetchError> {
    let mut cmd = git(Some(mirror));
    cmd.args(["ls-tree", "-r", "-l", "-z", "--full-tree"])
        .arg(commit);
    let out = run("ls-tree", cmd, None, limits)?;
    let bad = |detail: String| FetchError::Protocol {
        command: "ls-tree",
        detail,
    };
    let mut entries = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        // `<mode> SP <type> SP <object> SP+ <size> TAB <path>`
        let tab = record
            .iter()
            .position(|&b| b == b'\t')
            .ok_or_else(|| bad("no tab".into()))?;
        let head = String::from_utf8_lossy(&record[..tab]);
        let path = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
        let fields: Vec<&str> = head.split_whitespace().collect();
        let [mode, _kind, oid, size] = fields[..] else {
            return Err(bad(format!("unexpected entry `{head}`")));
        };
        let kind = match mode {
            "100644" | "100755" => EntryKind::File,
            "120000" => EntryKind::Symlink,
            "160000" => EntryKind::Submodule,
            _ => continue,
        };
        let size = size.parse().unwrap_or(0);
        entries.push((
            TreeEntry {
                path,
                kind,
                size,
                content: None,
            },
            oid.to_owned(),
        ));
    }
    Ok(entries)
}

/// The contents of the given blobs, in order, read in one `git cat-file --batch`.
pub(crate) fn read_blobs(
    mirror: &Path,
    oids: &[&str],
    limits: RunLimits<'_>,
) -> Result<Vec<Vec<u8>>, FetchError> {
    if oids.is_empty() {
        return Ok(Vec::new());
    }
    let mut input = Vec::with_capacity(oids.len() * 41);
    for oid in oids {
        input.extend_from_slice(oid.as_bytes());
        input.push(b'\n');
    }
    let mut cmd = git(Some(mirror));
    cmd.args(["cat-file", "--batch"]);
    let out = run("cat-file", cmd, Some(input), limits)?;
    let bad = |detail: String| FetchError::Protocol {
        command: "cat-file",
        detail,
    };
    let mut blobs = Vec::with_capacity(oids.len());
    let mut rest = &out[..];
    for oid in oids {
        let nl = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| bad("truncated header".into()))?;
        let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
        let size: usize = match header.split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size
                .parse()
                .map_err(|_| bad(format!("bad size in `{header}`")))?,
            _ => return Err(bad(format!("object {oid}: `{header}`"))),
        };
        let body = rest
            .get(nl + 1..nl + 1 + size)
            .ok_or_else(|| bad("truncated object".into()))?;
        blobs.push(body.to_vec());
        rest = rest.get(nl + 2 + size..).unwrap_or_default();
    }
    Ok(blobs)
}
