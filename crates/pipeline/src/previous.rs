//! The previous catalog: first the current snapshot's state alone (what upstream is asked
//! against, and all a rebuild with no change reads), then, when something changed, the whole
//! previous catalog, decoded by `eggcat-catalog` from the bytes the store reads.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use eggcat_catalog::wire::State;
use eggcat_catalog::{Fetched, Previous};
use eggcat_store::{SnapshotReader, Store};

/// The current snapshot's state, as far as it could be read.
pub(crate) struct Loaded {
    /// The current snapshot and its state, when both can be read.
    current: Option<(PathBuf, State)>,
    /// The commit of each source key in that state, when it was made under this build's
    /// derivation (else empty: every source is fetched and parsed again).
    pub(crate) commits: HashMap<String, String>,
    /// Whether files of the current snapshot are missing or not of their size in its
    /// manifest: then the rebuild saves a new snapshot even if nothing changed upstream.
    damaged: bool,
}

/// The current snapshot's folder and state, when both can be read.
fn current(store: &Store) -> Option<(PathBuf, State)> {
    let dir = store.current_dir()?;
    let bytes = store.read_state(&dir).ok()?;
    let state = Previous::decode_state(&bytes).ok()?;
    Some((dir, state))
}

/// The current snapshot's state alone, when it can be read.
pub(crate) fn current_state(store: &Store) -> Option<State> {
    current(store).map(|(_, state)| state)
}

/// Reads the current snapshot's state (not its documents).
pub(crate) fn load(store: &Store, derivation: &str) -> Loaded {
    let current = current(store);
    let damaged = current.as_ref().is_some_and(|(dir, _)| {
        let damaged = store.check(dir);
        for d in damaged.iter().take(20) {
            tracing::error!(snapshot = %dir.display(), path = %d.path, problem = %d.problem, "damaged file in the current snapshot: rebuilding it");
        }
        !damaged.is_empty()
    });
    let commits = current
        .iter()
        .filter(|(_, state)| state.derivation == derivation)
        .flat_map(|(_, state)| &state.sources)
        .map(|s| (s.key.clone(), s.commit.clone()))
        .collect();
    Loaded {
        current,
        commits,
        damaged,
    }
}

impl Loaded {
    /// The current snapshot's state, when it could be read.
    pub(crate) fn state(&self) -> Option<&State> {
        self.current.as_ref().map(|(_, state)| state)
    }

    /// The current snapshot's folder when this rebuild would save it again but for its
    /// times: every source unchanged upstream, and the snapshot made from the same inputs (see
    /// `derivation::inputs`) by a build where no source failed.
    pub(crate) fn unchanged(&self, fetched: &[Fetched], inputs: &str) -> Option<PathBuf> {
        let (dir, state) = self.current.as_ref().filter(|_| !self.damaged)?;
        let all_unchanged = fetched.iter().all(|f| matches!(f, Fetched::Unchanged));
        let same = !state.inputs.is_empty()
            && state.inputs == inputs
            && state.sources.len() == fetched.len();
        (all_unchanged && same).then(|| dir.clone())
    }

    /// The whole previous catalog and the reader of the folder it was read from; when the
    /// current snapshot cannot be read, the newest older one that can stands in for it (so
    /// that failing sources still keep eggs), and when none can, an empty catalog (and a reader
    /// of nothing). The flag says whether it was read from a snapshot other than the one whose
    /// commits upstream was asked against.
    pub(crate) fn decode(&self, store: &Store) -> (Previous, Reads, bool) {
        let asked = self.current.as_ref().map(|(dir, _)| dir);
        let candidates = store.snapshots_newest_first().unwrap_or_else(|e| {
            tracing::error!(error = %e, "cannot list the snapshots: building without a previous catalog");
            Vec::new()
        });
        for dir in candidates {
            match decode(store, &dir) {
                Ok((previous, reads)) => {
                    let other = asked != Some(&dir);
                    if other {
                        tracing::warn!(instead = %dir.display(), "current snapshot unreadable: reusing an older one");
                    }
                    return (previous, reads, other);
                }
                Err(e) => {
                    tracing::error!(snapshot = %dir.display(), error = %e, "snapshot unreadable")
                }
            }
        }
        (
            Previous::default(),
            Reads::new(store, None),
            asked.is_some(),
        )
    }
}

/// Why a snapshot cannot be the previous catalog.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error(transparent)]
    Store(#[from] eggcat_store::StoreError),
    #[error(transparent)]
    Catalog(#[from] eggcat_catalog::PreviousError),
}

/// The previous catalog of one snapshot, and the reader of its files (with the ones decoding
/// read).
fn decode(store: &Store, dir: &std::path::Path) -> Result<(Previous, Reads), Unreadable> {
    let state = Previous::decode_state(&store.read_state(dir)?)?;
    let reads = Reads::new(store, Some(dir.to_owned()));
    let previous = Previous::decode(state, &|path| reads.read(path))?;
    Ok((previous, reads))
}

/// The files of the previous snapshot a rebuild reads (its egg documents, and the import files,
/// histories and pages it may reuse), each checked against the snapshot's manifest when it is
/// read (a damaged one is not reused). Which were read intact is kept: saving compares the
/// new snapshot's files with the previous one's to share the unchanged ones, and compares these
/// with the hash the manifest gives them instead of reading them again. Only their paths are
/// kept, not their bytes (which cost 30 MiB more at the rebuild's peak, bench/build.sh) nor a
/// hash of them (the manifest's was checked as they were read).
pub(crate) struct Reads {
    dir: Option<PathBuf>,
    reader: Option<SnapshotReader>,
    kept: std::sync::Mutex<HashSet<String>>,
}

impl Reads {
    /// Reads files of `dir` in `store`, or nothing.
    pub(crate) fn new(store: &Store, dir: Option<PathBuf>) -> Reads {
        Reads {
            reader: dir.as_deref().map(|d| store.reader(d)),
            dir,
            kept: std::sync::Mutex::new(HashSet::new()),
        }
    }

    /// The folder read, if any.
    pub(crate) fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
    }

    /// The bytes of the file at `path` in the folder.
    pub(crate) fn read(&self, path: &str) -> std::io::Result<Vec<u8>> {
        let Some(reader) = &self.reader else {
            return Err(std::io::ErrorKind::NotFound.into());
        };
        let bytes = reader.read(path).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "missing or damaged")
        })?;
        self.kept().insert(path.to_owned());
        Ok(bytes)
    }

    /// Whether the file at `path` was read intact, from the folder `current` (what the new
    /// snapshot is compared against).
    pub(crate) fn read_intact(&self, path: &str, current: Option<&std::path::Path>) -> bool {
        self.dir.is_some() && self.dir.as_deref() == current && self.kept().contains(path)
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The commit of each source of `previous`, when it was made under `derivation`.
pub(crate) fn commits(previous: &Previous, derivation: &str) -> HashMap<String, String> {
    if previous.derivation != derivation {
        return HashMap::new();
    }
    previous
        .sources
        .iter()
        .map(|(key, s)| (key.clone(), s.commit.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use eggcat_catalog::wire::SourceState;

    fn loaded(inputs: &str, sources: usize) -> Loaded {
        let state = State {
            sources: (0..sources)
                .map(|i| SourceState {
                    key: format!("k{i}"),
                    branch: "main".to_owned(),
                    commit: format!("c{i}"),
                    eggs: Vec::new(),
                    skipped: Vec::new(),
                    warnings: Vec::new(),
                    images: None,
                    downloads: None,
                })
                .collect(),
            inputs: inputs.to_owned(),
            ..State::default()
        };
        Loaded {
            current: Some((PathBuf::from("snapshots/1"), state)),
            commits: HashMap::new(),
            damaged: false,
        }
    }

    fn failed() -> Fetched {
        Fetched::Failed {
            branch: None,
            error: "down".to_owned(),
        }
    }

    #[test]
    fn only_every_source_unchanged_under_the_same_inputs_keeps_the_snapshot() {
        let two = || vec![Fetched::Unchanged, Fetched::Unchanged];
        assert_eq!(
            loaded("key", 2).unchanged(&two(), "key"),
            Some(PathBuf::from("snapshots/1"))
        );
        assert_eq!(loaded("key", 2).unchanged(&two(), "other"), None);
        // Written empty when a source failed in the build that made the snapshot.
        assert_eq!(loaded("", 2).unchanged(&two(), ""), None);
        assert_eq!(loaded("key", 3).unchanged(&two(), "key"), None);
        let one_failed = vec![Fetched::Unchanged, failed()];
        assert_eq!(loaded("key", 2).unchanged(&one_failed, "key"), None);
        let none = Loaded {
            current: None,
            commits: HashMap::new(),
            damaged: false,
        };
        assert_eq!(none.unchanged(&two(), "key"), None);
        // A damaged current snapshot is never kept, even when nothing changed.
        let damaged = Loaded {
            damaged: true,
            ..loaded("key", 2)
        };
        assert_eq!(damaged.unchanged(&two(), "key"), None);
    }
}
