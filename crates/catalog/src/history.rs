//! Egg history from upstream git: which commits changed each egg file ([`walk`]), and the
//! published `history.json` with the changes between consecutive versions ([`document`]), with
//! the `pelican.json` of each older version Pelican imports (`versions/{sha256}/pelican.json`).
//!
//! Pure: the fetcher runs `git log` and `git cat-file` and hands over a [`SourceHistory`]; this
//! module decides what a version is. It follows one file back from the tip along the branch's
//! first-parent history: a rename (git's rename detection, within the repository, across folders
//! too) continues with the old path, a deletion followed later by an addition of the same path is
//! one history (`removed`, then `restored`). The fetcher reads a window of the branch (the newest
//! `history_depth` first-parent commits) and the commit just before it, the [`Base`]: the base is
//! never a version (what it changed is not read), the window's oldest change is compared with
//! the file as the base has it, and a file the window does not touch is older than the history
//! eggcat reads: no version, and a note that says so. Nothing is invented before the window.

use std::collections::HashMap;

use serde_json::Value;

use crate::paths::{self, import};
use crate::wire::{History, Since, UpdateCheckMd5, Version, VersionEvent};
use crate::{hex, rfc3339};
pub use eggcat_wire::{Base, FileChange, LogCommit, SourceHistory};

/// Versions kept per egg (newest first); older ones are cut and the document says so. With the
/// script diff's own bound ([`eggcat_diff::MAX_DIFF_LINES`]) it bounds a document's size.
pub const MAX_VERSIONS: usize = 100;

/// Characters of a changed text value (`old`, `new`: a description, a config value) kept in a
/// history document; the rest is cut with a note of how long it was. `eggcat diff` on the two
/// files shows them whole.
pub const MAX_VALUE_CHARS: usize = 2000;

/// Characters kept before the first difference of two long texts cut by [`MAX_VALUE_CHARS`].
const VALUE_CONTEXT_CHARS: usize = 200;

/// One version of one file, found by [`walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index into [`SourceHistory::commits`].
    pub commit: usize,
    /// The file's path in that commit.
    pub path: String,
    pub event: VersionEvent,
    /// For a rename: the path before.
    pub renamed_from: Option<String>,
    /// The blob in that commit; `None` for a removal.
    pub oid: Option<String>,
    /// The blob in the commit's first parent, when the file was there (not for an addition).
    pub before: Option<String>,
}

/// The blobs a source's history is read with for its eggs at `paths` (at the tip), given the
/// window's commits and the commit before it, most wanted first: every version's blob ranked by
/// how far back it is in its egg's history, so that a budget cuts the oldest versions of every
/// egg first, and each egg's file as the base has it when the window's oldest change of it is
/// not its addition. Each blob once. The fetcher reads them (`eggcat_upstream::read_history`).
pub fn wanted_blobs(commits: &[LogCommit], base: Option<&Base>, paths: &[&str]) -> Vec<String> {
    let mut ranked: Vec<(usize, String)> = paths
        .iter()
        .flat_map(|path| {
            let (steps, cut) = walk(commits, path);
            let earlier = steps
                .last()
                .filter(|s| !cut && base.is_some() && s.event != VersionEvent::Added)
                .and_then(|s| s.before.clone())
                .map(|oid| (steps.len(), oid));
            steps
                .into_iter()
                .enumerate()
                .filter_map(|(rank, step)| Some((rank, step.oid?)))
                .chain(earlier)
                .collect::<Vec<_>>()
        })
        .collect();
    ranked.sort_unstable();
    let mut seen = std::collections::HashSet::new();
    ranked.retain(|(_, oid)| seen.insert(oid.clone()));
    ranked.into_iter().map(|(_, oid)| oid).collect()
}

/// The versions of the file at `path` (at the tip), newest first, at most [`MAX_VERSIONS`]
/// plus whether the walk was cut there.
///
/// Past an addition the walk goes on only into a deletion of the same path (the file was
/// deleted, then added back: `removed`, `restored`); whatever else happened at that path before
/// (a file renamed away from it) is another file's history. An addition with a deletion of the
/// same name in another syntax in the same commit (`egg-x.json` to `egg-x.yaml`) is a rename:
/// git's rename detection cannot pair a file rewritten from JSON to YAML.
pub fn walk(commits: &[LogCommit], path: &str) -> (Vec<Step>, bool) {
    let mut steps = Vec::new();
    let mut current = path.to_owned();
    let mut after_add = false;
    for (i, commit) in commits.iter().enumerate() {
        let Some(change) = commit.changes.iter().find(|c| touches(c, &current)) else {
            continue;
        };
        // The file at this path left it (renamed, or rewritten in another syntax): what came
        // before belongs to that file.
        let renamed_away = (change.status == 'R' && change.new_path != current)
            || (change.status == 'D' && migrated_to(commit, &current).is_some());
        if renamed_away || (after_add && change.status != 'D') {
            break;
        }
        if steps.len() == MAX_VERSIONS {
            return (steps, true);
        }
        let mut step = Step {
            commit: i,
            path: current.clone(),
            event: VersionEvent::Changed,
            renamed_from: None,
            oid: Some(change.new_oid.clone()),
            before: Some(change.old_oid.clone()),
        };
        after_add = false;
        match change.status {
            'D' => {
                step.event = VersionEvent::Removed;
                step.oid = None;
            }
            'A' | 'C' => match migrated_from(commit, &current) {
                Some(from) => {
                    step.event = VersionEvent::Renamed;
                    step.renamed_from = Some(from.to_owned());
                    current = from.to_owned();
                }
                None => {
                    step.event = VersionEvent::Added;
                    step.before = None;
                    after_add = true;
                }
            },
            'R' => {
                step.event = VersionEvent::Renamed;
                step.renamed_from = Some(change.old_path.clone());
                current = change.old_path.clone();
            }
            _ => {}
        }
        if let Some(from) = &step.renamed_from
            && change.status != 'R'
        {
            // Rewritten in another syntax: the file before is the deleted one.
            step.before = commit
                .changes
                .iter()
                .find(|c| c.status == 'D' && c.old_path == *from)
                .map(|c| c.old_oid.clone());
        }
        steps.push(step);
    }
    // An addition after a removal is a restoration (the walk saw the newer one first).
    for i in 0..steps.len() {
        if steps[i].event == VersionEvent::Added
            && steps
                .get(i + 1)
                .is_some_and(|s| s.event == VersionEvent::Removed)
        {
            steps[i].event = VersionEvent::Restored;
        }
    }
    (steps, false)
}

/// Whether `change` concerns the file at `path`: what it left there (a deletion, a rename away)
/// or what it put there.
fn touches(change: &FileChange, path: &str) -> bool {
    match change.status {
        'D' => change.old_path == path,
        'R' => change.new_path == path || change.old_path == path,
        _ => change.new_path == path,
    }
}

/// The file `commit` deleted that `path` replaces in another syntax: same folder and name, one
/// of `.json`, `.yaml`, `.yml` each (any case), when exactly one such file was deleted.
fn migrated_from<'a>(commit: &'a LogCommit, path: &str) -> Option<&'a str> {
    same_name_other_syntax(commit, path, 'D')
}

/// The file `commit` added in another syntax in place of `path`, which it deleted.
fn migrated_to<'a>(commit: &'a LogCommit, path: &str) -> Option<&'a str> {
    same_name_other_syntax(commit, path, 'A')
}

/// The one path of `commit`'s changes with `status` that is `path` in another syntax.
fn same_name_other_syntax<'a>(commit: &'a LogCommit, path: &str, status: char) -> Option<&'a str> {
    let stem = |p: &str| -> Option<String> {
        let (stem, ext) = p.rsplit_once('.')?;
        matches!(ext.to_ascii_lowercase().as_str(), "json" | "yaml" | "yml")
            .then(|| stem.to_owned())
    };
    let own = stem(path)?;
    let path_of = |c: &'a FileChange| match status {
        'D' => c.old_path.as_str(),
        _ => c.new_path.as_str(),
    };
    let mut found = commit
        .changes
        .iter()
        .filter(|c| c.status == status)
        .map(path_of)
        .filter(|p| *p != path && stem(p).as_deref() == Some(own.as_str()));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// What the history document of one egg is made from, besides its source's history.
#[derive(Debug, Clone, Copy)]
pub struct EggRef<'a> {
    pub slug: &'a str,
    /// `owner/repo`.
    pub source: &'a str,
    pub branch: &'a str,
    /// Path at the tip.
    pub path: &'a str,
    /// The uuid the egg's import files carry now, and the catalog's `base_url`: with `slug`,
    /// what each version's [`Version::pelican_update_check_md5`] and file are made with.
    pub uuid: &'a str,
    pub base_url: &'a str,
    /// The hex SHA-256 of the egg's file at the tip and the hashes of the `pelican.json` files
    /// the build made of it: a version with that file takes them, and names the egg's
    /// `pelican.json` as its file (no second conversion, no second file).
    pub tip: Option<(&'a str, &'a UpdateCheckMd5)>,
}

impl EggRef<'_> {
    /// The absolute URL of the egg's `pelican.json`: the file of the versions with the tip's
    /// content.
    pub fn tip_url(&self) -> String {
        format!(
            "{}/{}",
            self.base_url,
            paths::egg_file(self.slug, import::PELICAN_JSON)
        )
    }

    /// The path and absolute URL of the file of an older version with the upstream file's
    /// `sha256`.
    pub fn version_file(&self, sha256: &str) -> (String, String) {
        let path = paths::version_pelican_json(self.slug, sha256);
        let url = format!("{}/{path}", self.base_url);
        (path, url)
    }
}

/// A published file: its path under the output root and its bytes.
pub type File = (String, Vec<u8>);

/// What the versions of one document made of Pelican's files, by the upstream file's SHA-256:
/// each content converted once (versions of the same content share hashes and file), the
/// files to publish in the order made.
#[derive(Default)]
struct Made {
    by_sha256: HashMap<String, Option<(UpdateCheckMd5, String)>>,
    files: Vec<File>,
}

/// The history document of the egg at `egg.path`, and the files it names that are not the
/// egg's own: the `pelican.json` of each older version Pelican imports, once per content.
pub fn document(history: &SourceHistory, egg: EggRef<'_>) -> (History, Vec<File>) {
    let mut doc = History {
        slug: egg.slug.to_owned(),
        source: egg.source.to_owned(),
        branch: egg.branch.to_owned(),
        path: egg.path.to_owned(),
        complete: false,
        note: history.unavailable.clone(),
        since: None,
        versions: Vec::new(),
    };
    if history.unavailable.is_some() {
        return (doc, Vec::new());
    }
    let (steps, cut) = walk(&history.commits, egg.path);
    let reaches_start = steps.last().is_some_and(|s| s.event == VersionEvent::Added);
    // The file as the base has it, when the window's oldest change of it is not its addition:
    // that change is counted from there.
    let mut before = match (&history.base, steps.last()) {
        (Some(base), Some(oldest)) if !reaches_start && !cut => oldest
            .before
            .as_ref()
            .and_then(|oid| history.blobs.get(oid))
            .and_then(|bytes| eggcat_diff::load(&oldest.path, bytes).ok())
            .map(|egg| (base.id.clone(), egg)),
        _ => None,
    };
    // Oldest first, so that every version is compared with the newest readable one before it
    // (and a content's file is dated by the oldest version that has it).
    let mut made = Made::default();
    let mut versions: Vec<Version> = steps
        .iter()
        .rev()
        .map(|step| version(history, step, (&mut before, &mut made), egg))
        .collect();
    versions.reverse();
    doc.complete = reaches_start && !cut;
    if !doc.complete && !cut {
        doc.since = history.base.as_ref().map(|b| Since {
            commit: b.id.clone(),
            date: date(b.time),
        });
    }
    doc.note = note(&steps, cut, history);
    doc.versions = versions;
    (doc, made.files)
}

/// An RFC 3339 date of a commit time.
fn date(unix: i64) -> String {
    rfc3339(u64::try_from(unix).unwrap_or(0).saturating_mul(1000))
}

/// One version, its changes counted from `before` (the newest readable version before it),
/// which it then replaces when it can be read; its hashes and file from what `made` holds of
/// its content, or converted and added there.
fn version(
    history: &SourceHistory,
    step: &Step,
    (before, made): (&mut Option<(String, Value)>, &mut Made),
    egg: EggRef<'_>,
) -> Version {
    let commit = &history.commits[step.commit];
    let mut v = Version {
        commit: commit.id.clone(),
        date: date(commit.time),
        subject: commit.subject.clone(),
        url: history
            .commit_url
            .as_ref()
            .map(|t| t.replace("{commit}", &commit.id)),
        path: step.path.clone(),
        event: step.event,
        renamed_from: step.renamed_from.clone(),
        sha256: None,
        error: None,
        compared_with: None,
        breaking: false,
        changes: Vec::new(),
        pelican_update_check_md5: None,
        pelican_json: None,
    };
    let Some(oid) = &step.oid else {
        return v;
    };
    let Some(bytes) = history.blobs.get(oid) else {
        let why = history.unread.get(oid).map(String::as_str);
        v.error = Some(
            why.unwrap_or("the file could not be read from git")
                .to_owned(),
        );
        return v;
    };
    let sha256 = hex(&sha2_256(bytes));
    v.sha256 = Some(sha256.clone());
    let value = match eggcat_diff::load(&step.path, bytes) {
        Ok(value) => value,
        Err(e) => {
            v.error = Some(e.to_string());
            return v;
        }
    };
    let file = pelican_file(&sha256, &value, commit.time, egg, made);
    (v.pelican_update_check_md5, v.pelican_json) = file.unzip();
    let egg = value;
    if let Some((commit, old)) = before.as_ref() {
        v.changes = eggcat_diff::diff(old, &egg);
        v.changes.iter_mut().for_each(bound_values);
        v.breaking = eggcat_diff::any_breaking(&v.changes);
        v.compared_with = Some(commit.clone());
    }
    *before = Some((commit.id.clone(), egg));
    v
}

/// The hashes and the URL of the `pelican.json` of a version whose upstream file has `sha256`
/// and reads as `value`, first committed (as far as the document goes) at `time`: the tip's
/// (its hashes, the egg's `pelican.json`) for the tip's content; else what `made` holds for the
/// content; else converted once, its file added to `made` under `versions/{sha256}/` with the
/// commit's date as its `exported_at`. `None` where Pelican imports no such file.
fn pelican_file(
    sha256: &str,
    value: &Value,
    time: i64,
    egg: EggRef<'_>,
    made: &mut Made,
) -> Option<(UpdateCheckMd5, String)> {
    match egg.tip {
        Some((tip, md5)) if tip == sha256 => return Some((md5.clone(), egg.tip_url())),
        _ => {}
    }
    if let Some(known) = made.by_sha256.get(sha256) {
        return known.clone();
    }
    let ms = u64::try_from(time).unwrap_or(0).saturating_mul(1000);
    let exported_at = crate::imports::atom_time(ms);
    let identity = (egg.slug, egg.uuid);
    let file = crate::imports::version_file(value, identity, egg.base_url, &exported_at).map(
        |(md5, bytes)| {
            let (path, url) = egg.version_file(sha256);
            made.files.push((path, bytes));
            (md5, url)
        },
    );
    made.by_sha256.insert(sha256.to_owned(), file.clone());
    file
}

/// Why the history is partial, when it is: cut at [`MAX_VERSIONS`], older than the window of
/// commits read (which the fetcher's `depth` describes), or no version at all.
fn note(steps: &[Step], cut: bool, history: &SourceHistory) -> Option<String> {
    let window = &history.depth;
    let older = || {
        let date = history.base.as_ref().map(|b| date(b.time));
        let day = date
            .as_deref()
            .and_then(|d| d.get(..10))
            .unwrap_or("its start");
        format!("{window}, back to {day}")
    };
    if cut {
        Some(format!(
            "only the newest {MAX_VERSIONS} versions are listed; older ones are left out"
        ))
    } else if steps.is_empty() && history.base.is_some() {
        Some(format!(
            "older than the history eggcat reads ({}): the file did not change there",
            older()
        ))
    } else if steps.last().is_some_and(|s| s.event != VersionEvent::Added) && history.base.is_some()
    {
        Some(format!(
            "the file is older than the history eggcat reads ({}): its earlier versions are not listed",
            older()
        ))
    } else if steps.is_empty() {
        Some("no commit in the history read changed this file".to_owned())
    } else {
        None
    }
}

/// The Atom id of a feed entry about `parts` (`owner/repo`, a commit, the file's path in it):
/// a `urn:uuid:` of a UUIDv5 of them, so that it names the version whatever the egg's slug
/// becomes (a slug changes when another egg of the same stem arrives) and wherever the catalog
/// is served from.
pub fn feed_id(parts: &[&str]) -> String {
    format!("urn:uuid:{}", eggcat_panels::stable_uuid(&parts.join("\n")))
}

/// Cuts a long text `old` or `new` to [`MAX_VALUE_CHARS`], saying how long it was. Two texts
/// that first differ past the part kept from their start are both kept from
/// [`VALUE_CONTEXT_CHARS`] before that difference (marked by a leading `…`), so that the kept
/// parts show it: cut from the start, a long startup command changed near its end would keep
/// two identical halves.
fn bound_values(change: &mut eggcat_diff::Change) {
    use serde_json::Value;
    let start = match (&change.old, &change.new) {
        (Some(Value::String(a)), Some(Value::String(b))) => {
            let first = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
            if first + VALUE_CONTEXT_CHARS > MAX_VALUE_CHARS {
                first - VALUE_CONTEXT_CHARS
            } else {
                0
            }
        }
        _ => 0,
    };
    for value in [&mut change.old, &mut change.new].into_iter().flatten() {
        if let Value::String(text) = value {
            let chars = text.chars().count();
            if chars > MAX_VALUE_CHARS || start > 0 {
                let kept: String = text.chars().skip(start).take(MAX_VALUE_CHARS).collect();
                let lead = if start > 0 { "…" } else { "" };
                let tail = if chars > start + MAX_VALUE_CHARS {
                    "…"
                } else {
                    ""
                };
                *text = format!("{lead}{kept}{tail} [cut: {chars} characters in all]");
            }
        }
    }
}

fn sha2_256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn commit(id: &str, changes: &[(char, &str, &str, &str)]) -> LogCommit {
        LogCommit {
            id: id.to_owned(),
            time: 1_700_000_000,
            subject: format!("subject {id}"),
            changes: changes
                .iter()
                .map(|&(status, old_path, new_path, new_oid)| FileChange {
                    status,
                    old_path: old_path.to_owned(),
                    new_path: new_path.to_owned(),
                    // The blob before, when there is one: named after the blob after.
                    old_oid: match status {
                        'A' => "0".to_owned(),
                        _ => format!("{new_oid}-before"),
                    },
                    new_oid: new_oid.to_owned(),
                })
                .collect(),
        }
    }

    fn events(steps: &[Step]) -> Vec<(usize, &str, VersionEvent)> {
        steps
            .iter()
            .map(|s| (s.commit, s.path.as_str(), s.event))
            .collect()
    }

    /// Newest first: restored, removed, renamed across folders, changed, added; an unrelated
    /// commit in between is no version.
    #[test]
    fn walk_follows_renames_and_removals() {
        let commits = [
            commit("6", &[('A', "b/egg-y.json", "b/egg-y.json", "o4")]),
            commit("5", &[('D', "b/egg-y.json", "b/egg-y.json", "0")]),
            commit("4", &[('M', "c/egg-z.json", "c/egg-z.json", "z")]),
            commit("3", &[('R', "a/egg-x.json", "b/egg-y.json", "o2")]),
            commit("2", &[('M', "a/egg-x.json", "a/egg-x.json", "o2")]),
            commit("1", &[('A', "a/egg-x.json", "a/egg-x.json", "o1")]),
        ];
        let (steps, cut) = walk(&commits, "b/egg-y.json");
        assert!(!cut);
        use VersionEvent::*;
        assert_eq!(
            events(&steps),
            [
                (0, "b/egg-y.json", Restored),
                (1, "b/egg-y.json", Removed),
                (3, "b/egg-y.json", Renamed),
                (4, "a/egg-x.json", Changed),
                (5, "a/egg-x.json", Added),
            ]
        );
        assert_eq!(steps[2].renamed_from.as_deref(), Some("a/egg-x.json"));
        assert_eq!(steps[1].oid, None);
    }

    /// A file renamed away from a path, and a new file added at that path later: the new file's
    /// history starts at its addition; the old versions belong to the renamed file.
    #[test]
    fn a_new_file_at_a_path_renamed_away_does_not_take_the_old_history() {
        let commits = [
            commit("4", &[('A', "a/egg-x.json", "a/egg-x.json", "new")]),
            commit("3", &[('R', "a/egg-x.json", "b/egg-y.json", "o2")]),
            commit("2", &[('M', "a/egg-x.json", "a/egg-x.json", "o2")]),
            commit("1", &[('A', "a/egg-x.json", "a/egg-x.json", "o1")]),
        ];
        let (x, _) = walk(&commits, "a/egg-x.json");
        assert_eq!(events(&x), [(0, "a/egg-x.json", VersionEvent::Added)]);
        let (y, _) = walk(&commits, "b/egg-y.json");
        use VersionEvent::*;
        assert_eq!(
            events(&y),
            [
                (1, "b/egg-y.json", Renamed),
                (2, "a/egg-x.json", Changed),
                (3, "a/egg-x.json", Added),
            ]
        );
    }

    /// JSON rewritten as YAML under the same name is a rename git cannot see: the history goes
    /// on with the JSON file; two candidates are no rename.
    #[test]
    fn a_change_of_syntax_under_the_same_name_is_a_rename() {
        let commits = [
            commit(
                "2",
                &[
                    ('D', "a/egg-v.json", "a/egg-v.json", "0"),
                    ('A', "a/egg-v.yaml", "a/egg-v.yaml", "o2"),
                ],
            ),
            commit("1", &[('A', "a/egg-v.json", "a/egg-v.json", "o1")]),
        ];
        let (steps, _) = walk(&commits, "a/egg-v.yaml");
        assert_eq!(
            events(&steps),
            [
                (0, "a/egg-v.yaml", VersionEvent::Renamed),
                (1, "a/egg-v.json", VersionEvent::Added),
            ]
        );
        assert_eq!(steps[0].renamed_from.as_deref(), Some("a/egg-v.json"));
        let mut two = commits.clone();
        two[0].changes.push(FileChange {
            status: 'D',
            old_path: "a/egg-v.yml".into(),
            new_path: "a/egg-v.yml".into(),
            old_oid: "o0".into(),
            new_oid: "0".into(),
        });
        let (steps, _) = walk(&two, "a/egg-v.yaml");
        assert_eq!(events(&steps), [(0, "a/egg-v.yaml", VersionEvent::Added)]);
        // A new JSON file at the old path later starts its own history.
        let mut later = vec![commit("3", &[('A', "a/egg-v.json", "a/egg-v.json", "o3")])];
        later.extend(commits.iter().cloned());
        let (steps, _) = walk(&later, "a/egg-v.json");
        assert_eq!(events(&steps), [(0, "a/egg-v.json", VersionEvent::Added)]);
    }

    /// The commit before the window is no version: the window's oldest change of a file is
    /// counted from the file as the base has it, and a file the window does not touch has no
    /// version, the base as `since` and a note that says it is older than the history read.
    #[test]
    fn the_base_is_no_version_and_the_oldest_change_is_counted_from_it() {
        let commits = [commit("2", &[('M', "egg-a.json", "egg-a.json", "o2")])];
        let history = SourceHistory {
            commits: commits.to_vec(),
            base: Some(Base {
                id: "1".to_owned(),
                time: 1_600_000_000,
            }),
            blobs: HashMap::from([
                (
                    "o2-before".to_owned(),
                    br#"{"meta":{"version":"PTDL_v2"},"name":"A","startup":"./a"}"#.to_vec(),
                ),
                (
                    "o2".to_owned(),
                    br#"{"meta":{"version":"PTDL_v2"},"name":"A","startup":"./b"}"#.to_vec(),
                ),
            ]),
            depth: "the newest commit of the branch".to_owned(),
            ..SourceHistory::default()
        };
        let doc = document(&history, egg_ref("egg-a.json")).0;
        assert!(!doc.complete);
        assert_eq!(doc.versions.len(), 1);
        assert_eq!(doc.versions[0].event, VersionEvent::Changed);
        assert_eq!(doc.versions[0].compared_with.as_deref(), Some("1"));
        assert!(
            doc.versions[0].breaking,
            "a changed startup can break servers"
        );
        let since = doc.since.as_ref().expect("since");
        assert_eq!(
            (since.commit.as_str(), since.date.as_str()),
            ("1", "2020-09-13T12:26:40.000Z")
        );
        assert_eq!(
            doc.note.as_deref(),
            Some(
                "the file is older than the history eggcat reads (the newest commit of the branch, back to 2020-09-13): its earlier versions are not listed"
            )
        );
        let untouched = document(&history, egg_ref("egg-b.json")).0;
        assert!(untouched.versions.is_empty() && !untouched.complete);
        assert_eq!(untouched.since, doc.since);
        assert_eq!(
            untouched.note.as_deref(),
            Some(
                "older than the history eggcat reads (the newest commit of the branch, back to 2020-09-13): the file did not change there"
            )
        );
    }

    fn egg_ref(path: &str) -> EggRef<'_> {
        EggRef {
            slug: "s",
            source: "o/r",
            branch: "main",
            path,
            uuid: "8f0c3a9e-6a47-4a52-9b8e-0c1f2d3e4f50",
            base_url: "https://eggs.example",
            tip: None,
        }
    }

    /// A version that cannot be read is listed with its reason, and the next one is compared
    /// with the last readable one; a format-only change is a version with no changes.
    #[test]
    fn unreadable_versions_are_listed_and_skipped_over() {
        let commits = [
            commit("4", &[('M', "egg-a.yaml", "egg-a.yaml", "o4")]),
            commit("3", &[('M', "egg-a.yaml", "egg-a.yaml", "o3")]),
            commit("2", &[('M', "egg-a.yaml", "egg-a.yaml", "o2")]),
            commit("1", &[('A', "egg-a.yaml", "egg-a.yaml", "o1")]),
        ];
        let history = SourceHistory {
            commits: commits.to_vec(),
            blobs: HashMap::from([
                (
                    "o1".to_owned(),
                    b"meta: {version: PLCN_v3}\nname: A\nstartup: ./a\n".to_vec(),
                ),
                (
                    "o2".to_owned(),
                    b"meta: {version: PLCN_v3}\r\nname: A\r\nstartup: ./a\r\n".to_vec(),
                ),
                ("o3".to_owned(), b"\x00\xff\xfe junk".to_vec()),
                (
                    "o4".to_owned(),
                    b"meta: {version: PLCN_v3}\nname: A\nstartup: ./a\nauthor: x@y.z\n".to_vec(),
                ),
            ]),
            commit_url: Some("https://example.org/c/{commit}".to_owned()),
            ..SourceHistory::default()
        };
        let doc = document(&history, egg_ref("egg-a.yaml")).0;
        assert!(doc.complete, "{:?}", doc.note);
        let v = &doc.versions;
        assert_eq!(v.len(), 4);
        assert_eq!(v[3].event, VersionEvent::Added);
        assert!(v[2].changes.is_empty(), "CRLF only: {:?}", v[2].changes);
        assert_eq!(v[2].compared_with.as_deref(), Some("1"));
        assert!(v[1].error.is_some() && v[1].changes.is_empty());
        assert_eq!(v[0].compared_with.as_deref(), Some("2"));
        assert_eq!(v[0].changes.len(), 1, "{:?}", v[0].changes);
        assert_eq!(v[0].url.as_deref(), Some("https://example.org/c/4"));
        assert_eq!(v[0].date, "2023-11-14T22:13:20.000Z");
    }

    #[test]
    fn versions_past_the_limit_are_cut_with_a_note() {
        let commits: Vec<LogCommit> = (0..MAX_VERSIONS + 5)
            .rev()
            .map(|i| {
                let status = if i == 0 { 'A' } else { 'M' };
                commit(&i.to_string(), &[(status, "egg-a.json", "egg-a.json", "o")])
            })
            .collect();
        let (steps, cut) = walk(&commits, "egg-a.json");
        assert!(cut);
        assert_eq!(steps.len(), MAX_VERSIONS);
        let history = SourceHistory {
            commits,
            ..SourceHistory::default()
        };
        let doc = document(&history, egg_ref("egg-a.json")).0;
        assert!(!doc.complete);
        assert!(doc.note.unwrap().contains("newest 100"));
    }

    /// The change of an egg whose description went from `old` to `new` in one commit.
    fn description_change(old: &str, new: &str) -> eggcat_diff::Change {
        let egg = |d: &str| {
            format!(r#"{{"meta":{{"version":"PTDL_v2"}},"name":"A","description":"{d}"}}"#)
                .into_bytes()
        };
        let history = SourceHistory {
            commits: vec![
                commit("2", &[('M', "egg-a.json", "egg-a.json", "o2")]),
                commit("1", &[('A', "egg-a.json", "egg-a.json", "o1")]),
            ],
            blobs: HashMap::from([("o1".to_owned(), egg(old)), ("o2".to_owned(), egg(new))]),
            ..SourceHistory::default()
        };
        let mut doc = document(&history, egg_ref("egg-a.json")).0;
        doc.versions.swap_remove(0).changes.swap_remove(0)
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let long = "x".repeat(MAX_VALUE_CHARS + 10);
        let change = &description_change("short", &long);
        assert_eq!(change.old.as_ref().unwrap(), "short");
        let new = change.new.as_ref().unwrap().as_str().unwrap();
        assert!(new.ends_with(&format!(
            "[cut: {} characters in all]",
            MAX_VALUE_CHARS + 10
        )));
        assert!(new.chars().count() < MAX_VALUE_CHARS + 50);
    }

    #[test]
    fn long_values_changed_late_are_cut_around_their_difference() {
        let head = "x".repeat(MAX_VALUE_CHARS + 500);
        let change = &description_change(&format!("{head} old end"), &format!("{head} new end"));
        let old = change.old.as_ref().unwrap().as_str().unwrap();
        let new = change.new.as_ref().unwrap().as_str().unwrap();
        assert_ne!(old, new);
        assert!(old.starts_with('…') && old.contains(" old end"), "{old}");
        assert!(new.starts_with('…') && new.contains(" new end"), "{new}");
        let len = MAX_VALUE_CHARS + 508;
        assert!(
            new.ends_with(&format!(" [cut: {len} characters in all]")),
            "{new}"
        );
    }

    #[test]
    fn no_history_says_why() {
        let history = SourceHistory {
            unavailable: Some("a plain folder has no history".to_owned()),
            ..SourceHistory::default()
        };
        let doc = document(&history, egg_ref("egg-a.json")).0;
        assert!(doc.versions.is_empty() && !doc.complete);
        assert_eq!(doc.note.as_deref(), Some("a plain folder has no history"));
    }
}
