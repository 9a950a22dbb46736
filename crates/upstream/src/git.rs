//! The git commands eggcat runs, with the environment that keeps them non-interactive and
//! confined to the accepted transports.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use eggcat_wire::{EntryKind, FileChange, LogCommit, TreeEntry};

use crate::depth::HistoryDepth;

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
    let Some(tip) = tip else {
        return Err(FetchError::BranchNotFound {
            known: heads(url, limits).unwrap_or_default(),
            branch,
        });
    };
    if tip.len() < 40 || !tip.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(FetchError::Protocol {
            command: "ls-remote",
            detail: format!("bad object id `{tip}`"),
        });
    }
    Ok((branch, tip))
}

/// The remote's branch names, sorted: asked only when a configured branch is missing, so that
/// the message can say which branches there are.
fn heads(url: &str, limits: RunLimits<'_>) -> Result<Vec<String>, FetchError> {
    let mut cmd = git(None);
    cmd.args(["ls-remote", "--heads", "--"]).arg(url);
    let out = run("ls-remote", cmd, None, limits)?;
    let mut names: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| l.split_once('\t')?.1.strip_prefix("refs/heads/"))
        .map(str::to_owned)
        .collect();
    names.sort();
    Ok(names)
}

/// Fetches `branch` into the bare mirror, as deep as `depth` says, and returns its tip commit.
/// The size limit in `limits.watch` applies to the fetch itself.
pub(crate) fn fetch(
    mirror: &Path,
    url: &str,
    branch: &str,
    depth: HistoryDepth,
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
    let fetch = |deepen: String| {
        let mut cmd = git(Some(mirror));
        cmd.args([
            "fetch",
            "--quiet",
            &deepen,
            "--no-tags",
            "--no-write-fetch-head",
            "--",
        ])
        .arg(url)
        .arg(format!("+{local_ref}:{local_ref}"));
        run("fetch", cmd, None, limits).inspect_err(|e| {
            if matches!(e, FetchError::Timeout { .. } | FetchError::TooLarge { .. }) {
                remove_locks(mirror, &local_ref);
            }
        })
    };
    match depth {
        // One commit more than the window: the commit before the oldest one read, so that what
        // the oldest one changed can be seen. `--depth` counts along every parent, so through a
        // merge it may reach further back than this; the window is cut by `log`, not here.
        HistoryDepth::Commits(n) => fetch(format!("--depth={}", n.max(1).saturating_add(1)))?,
        HistoryDepth::Since(unix) => {
            let date = humantime::format_rfc3339_seconds(
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix),
            );
            match fetch(format!("--shallow-since={date}")) {
                // The tip itself is older than the date: fetch just the tip.
                Err(FetchError::Git { message, .. })
                    if message.contains("no commits selected for shallow requests") =>
                {
                    fetch("--depth=1".to_owned())?
                }
                // And the parents of the oldest commits since the date, for the same reason.
                other => {
                    other?;
                    if mirror.join("shallow").exists() {
                        fetch("--deepen=1".to_owned())?;
                    }
                    Vec::new()
                }
            }
        }
    };
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

/// Removes the lock files of a `git fetch` that was killed for a limit: killed, git cannot
/// remove them itself, and every later fetch into the mirror would fail on them (`Unable to
/// create '.../shallow.lock': File exists`) until the mirror was deleted by hand. The process that
/// held them is gone (it was waited for), and no other git runs in the mirror: it is the one
/// source's, and one build runs at a time.
fn remove_locks(mirror: &Path, local_ref: &str) {
    for lock in [
        "shallow.lock".to_owned(),
        "packed-refs.lock".to_owned(),
        format!("{local_ref}.lock"),
    ] {
        let path = mirror.join(lock);
        match std::fs::remove_file(&path) {
            Ok(()) => tracing::debug!(path = %path.display(), "removed the lock of a killed fetch"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot remove the lock of a killed fetch")
            }
        }
    }
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
        let path = String::from_utf8_lossy(&record[tab + 1..]);
        // Borrowed: it was UTF-8 as it stood.
        let utf8 = matches!(path, std::borrow::Cow::Borrowed(_));
        let path = path.into_owned();
        let fields: Vec<&str> = head.split_whitespace().collect();
        let [mode, _kind, oid, size] = fields[..] else {
            return Err(bad(format!("unexpected entry `{head}`")));
        };
        let kind = match mode {
            "100644" | "100755" if !utf8 => EntryKind::NotUtf8,
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

/// The size of each blob, in order, from one `git cat-file --batch-check`.
pub(crate) fn blob_sizes(
    mirror: &Path,
    oids: &[&str],
    limits: RunLimits<'_>,
) -> Result<Vec<u64>, FetchError> {
    if oids.is_empty() {
        return Ok(Vec::new());
    }
    let input: String = oids.iter().map(|o| format!("{o}\n")).collect();
    let mut cmd = git(Some(mirror));
    cmd.args(["cat-file", "--batch-check"]);
    let out = run("cat-file", cmd, Some(input.into_bytes()), limits)?;
    let text = String::from_utf8_lossy(&out);
    let sizes: Vec<u64> = text
        .lines()
        .map(|line| match line.split(' ').collect::<Vec<_>>()[..] {
            [_, "blob", size] => size.parse().map_err(|_| line.to_owned()),
            _ => Err(line.to_owned()),
        })
        .collect::<Result<_, _>>()
        .map_err(|line| FetchError::Protocol {
            command: "cat-file",
            detail: format!("unexpected `{line}`"),
        })?;
    if sizes.len() != oids.len() {
        return Err(FetchError::Protocol {
            command: "cat-file",
            detail: format!("{} sizes for {} objects", sizes.len(), oids.len()),
        });
    }
    Ok(sizes)
}

/// The first-parent line of `commit` as far as the mirror has it (at most `max_count`
/// commits), newest first: each commit's id and committer time, from one `git rev-list`.
pub(crate) fn first_parents(
    mirror: &Path,
    commit: &str,
    max_count: Option<u32>,
    limits: RunLimits<'_>,
) -> Result<Vec<(String, i64)>, FetchError> {
    let mut cmd = git(Some(mirror));
    cmd.args(["rev-list", "--first-parent", "--timestamp"]);
    if let Some(n) = max_count {
        cmd.arg(format!("--max-count={n}"));
    }
    cmd.arg(commit);
    let out = run("rev-list", cmd, None, limits)?;
    String::from_utf8_lossy(&out)
        .lines()
        .map(|line| {
            let (time, id) = line.split_once(' ')?;
            Some((id.to_owned(), time.parse().ok()?))
        })
        .collect::<Option<_>>()
        .ok_or_else(|| FetchError::Protocol {
            command: "rev-list",
            detail: "a line is not `<time> <id>`".to_owned(),
        })
}

/// The first-parent history of `commit` down to `base` (excluded; the whole line as far as
/// the mirror has it without one), newest first, with the changes to JSON and YAML files
/// (renames detected), in one `git log`. Commits that change none of them are left out.
pub(crate) fn log(
    mirror: &Path,
    commit: &str,
    base: Option<&str>,
    limits: RunLimits<'_>,
) -> Result<Vec<LogCommit>, FetchError> {
    let mut cmd = git(Some(mirror));
    // The settings that shape this output are given here, so that a machine's git
    // configuration (`log.showRoot = false`, `diff.relative`, signatures) cannot change the
    // history published from the same upstream.
    cmd.args([
        "-c",
        "diff.renameLimit=2000",
        "-c",
        "log.showRoot=true",
        "-c",
        "log.showSignature=false",
        "-c",
        "diff.relative=false",
        "-c",
        "i18n.logOutputEncoding=UTF-8",
        "log",
        "-z",
        "--first-parent",
        "--diff-merges=first-parent",
        "--root",
        "--raw",
        "--no-abbrev",
        "-M",
        "--format=%x01%H %ct %s",
    ]);
    cmd.arg(commit);
    if let Some(base) = base {
        cmd.arg(format!("^{base}"));
    }
    cmd.args(["--", ":(icase)*.json", ":(icase)*.yaml", ":(icase)*.yml"]);
    let out = run("log", cmd, None, limits)?;
    parse_log(&out)
}

/// Parses `git log -z --raw --format=%x01%H %ct %s`: records start with 0x01; a record is the
/// header, NUL, then `:<modes> <oids> <status>` NUL `<path>` NUL (a second path for a rename or
/// copy), repeated.
fn parse_log(out: &[u8]) -> Result<Vec<LogCommit>, FetchError> {
    let bad = |detail: String| FetchError::Protocol {
        command: "log",
        detail,
    };
    let mut commits = Vec::new();
    for record in out.split(|&b| b == 1).filter(|r| !r.is_empty()) {
        let mut fields = record.split(|&b| b == 0);
        let header = String::from_utf8_lossy(fields.next().unwrap_or_default());
        let mut parts = header.splitn(3, ' ');
        let (Some(id), Some(time)) = (parts.next(), parts.next()) else {
            return Err(bad(format!("bad commit header `{header}`")));
        };
        let time = time
            .parse()
            .map_err(|_| bad(format!("bad commit time in `{header}`")))?;
        let mut commit = LogCommit {
            id: id.to_owned(),
            time,
            subject: parts.next().unwrap_or_default().trim_end().to_owned(),
            changes: Vec::new(),
        };
        while let Some(raw) = fields.next() {
            let raw = String::from_utf8_lossy(raw);
            let raw = raw.trim_start_matches('\n');
            if raw.is_empty() {
                continue;
            }
            // `:100644 100644 <old oid> <new oid> <status>`
            let words: Vec<&str> = raw.trim_start_matches(':').split(' ').collect();
            let [_, _, old_oid, new_oid, status] = words[..] else {
                return Err(bad(format!("bad change line `{raw}`")));
            };
            let letter = status.chars().next().unwrap_or('?');
            let mut path = || {
                fields
                    .next()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .ok_or_else(|| bad(format!("no path after `{raw}`")))
            };
            let old_path = path()?;
            let new_path = if matches!(letter, 'R' | 'C') {
                path()?
            } else {
                old_path.clone()
            };
            commit.changes.push(FileChange {
                status: letter,
                old_path,
                new_path,
                old_oid: old_oid.to_owned(),
                new_oid: new_oid.to_owned(),
            });
        }
        commits.push(commit);
    }
    Ok(commits)
}

/// The commits of the mirror's shallow boundary (`shallow`): their parents were not fetched.
pub(crate) fn shallow_commits(mirror: &Path) -> Result<BTreeSet<String>, FetchError> {
    let path = mirror.join("shallow");
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeSet::new()),
        Err(e) => Err(io_error(&path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_log_records_with_renames_and_deletions() {
        let out = b"\x01c2 1700000100 move it\0\n:100644 100644 aaa bbb R087\0a/egg-x.json\0b/egg-y.json\0:100644 000000 ccc 000 D\0egg-z.yml\0\x01c1 1700000000 \0\n:000000 100644 000 aaa A\0a/egg-x.json\0";
        let commits = parse_log(out).unwrap();
        assert_eq!(commits.len(), 2);
        assert_eq!(commits[0].subject, "move it");
        assert_eq!(commits[0].time, 1_700_000_100);
        assert_eq!(
            commits[0].changes[0],
            FileChange {
                status: 'R',
                old_path: "a/egg-x.json".into(),
                new_path: "b/egg-y.json".into(),
                old_oid: "aaa".into(),
                new_oid: "bbb".into(),
            }
        );
        assert_eq!(commits[0].changes[1].status, 'D');
        assert_eq!(commits[0].changes[1].new_path, "egg-z.yml");
        assert_eq!(commits[1].subject, "");
        assert_eq!(commits[1].changes[0].status, 'A');
        assert!(parse_log(b"\x01nonsense").is_err());
    }
}
