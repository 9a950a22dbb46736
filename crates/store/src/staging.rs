//! A snapshot being written: the build hands over each file as soon as it has made it, from any
//! of its threads, and the store writes it at once under `snapshots/.tmp-<id>/`, so a build
//! holds the files it is making, never the whole catalog (a catalog ten times the real one made
//! 470 MB of files that were all in memory until the end). [`Staging::finish`] writes the state
//! and the manifest, renames the folder into place and moves `current`, as
//! [`Store::save`] always did; a staging dropped unfinished (a failed build) removes its
//! folder, and `current` never moved.
//!
//! A file byte-identical to the current snapshot's at the same path is a hard link to it
//! (published files are never written to, so sharing them keeps each immutable), with its
//! precompressed forms; any other compressible file is compressed on a few threads of the
//! staging's own, fed through a short queue, while the build goes on making the next files.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use eggcat_codings::{Coding, Compressor};
use eggcat_wire::State;

use crate::forms;
use crate::manifest::{Entry, MANIFEST_FILE, Manifest};
use crate::snapshot::{STATE_FILE, Store};
use crate::{StoreError, io_error};

/// Files waiting for compression, per compressing thread: what the queue may hold in memory.
const QUEUED_PER_THREAD: usize = 4;

/// The precompressed forms a compressing thread wrote, with their manifest entries.
type Forms = Vec<(String, Entry)>;

/// Whether a file of the current snapshot was read intact by this build (checked against its
/// manifest as it was read): then its manifest's hash stands for its bytes, and it is not read
/// again to be compared.
pub type Verified<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// A snapshot being written ([`Store::stage`]).
pub struct Staging<'a> {
    store: &'a Store,
    id: String,
    tmp: PathBuf,
    /// The current snapshot when staging began, and its manifest: what unchanged files link to.
    previous: Option<(PathBuf, Manifest)>,
    verified: Verified<'a>,
    written: Mutex<Written>,
    queue: Option<SyncSender<(String, Vec<u8>)>>,
    compressing: Vec<JoinHandle<Result<Forms, StoreError>>>,
}

impl std::fmt::Debug for Staging<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staging")
            .field("tmp", &self.tmp)
            .finish_non_exhaustive()
    }
}

/// What has been written so far.
struct Written {
    /// Every path put so far (claimed before it is written): a path put twice is refused.
    claimed: HashSet<String>,
    manifest: BTreeMap<String, Entry>,
    /// The folders made, each once (`""` is the root).
    folders: HashSet<String>,
    /// The first failure: the staging writes nothing more, and [`Staging::finish`] returns it.
    failed: Option<StoreError>,
}

impl Store {
    /// Starts writing the snapshot of build `build_id` (its folder is that id, or `id-2`, ... when
    /// taken). `verified` says which files of the current snapshot the build read intact.
    pub fn stage<'a>(
        &'a self,
        build_id: &str,
        verified: Verified<'a>,
    ) -> Result<Staging<'a>, StoreError> {
        let snapshots = self.snapshots_dir();
        fs::create_dir_all(&snapshots).map_err(io_error("create", &snapshots))?;
        let mut id = build_id.to_owned();
        for n in 2.. {
            if !snapshots.join(&id).exists() && !snapshots.join(format!(".tmp-{id}")).exists() {
                break;
            }
            id = format!("{build_id}-{n}");
        }
        let tmp = snapshots.join(format!(".tmp-{id}"));
        fs::create_dir(&tmp).map_err(io_error("create", &tmp))?;
        let previous = self
            .current_dir()
            .and_then(|dir| Some((Manifest::read(&dir).ok()?, dir)))
            .map(|(manifest, dir)| (dir, manifest));
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        let (queue, waiting) = sync_channel(threads * QUEUED_PER_THREAD);
        let waiting = Arc::new(Mutex::new(waiting));
        let compressing = (0..threads)
            .map(|_| {
                let (waiting, tmp) = (Arc::clone(&waiting), tmp.clone());
                std::thread::spawn(move || compress(&waiting, &tmp))
            })
            .collect();
        Ok(Staging {
            store: self,
            id,
            tmp,
            previous,
            verified,
            written: Mutex::new(Written {
                claimed: HashSet::new(),
                manifest: BTreeMap::new(),
                folders: HashSet::from([String::new()]),
                failed: None,
            }),
            queue: Some(queue),
            compressing,
        })
    }
}

impl Staging<'_> {
    /// Writes the file at `path` (`/`-separated, under the published root); each path once. A
    /// failure is kept for [`Staging::finish`], and nothing more is written.
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        if let Err(e) = self.write(path, bytes) {
            self.written().failed.get_or_insert(e);
        }
    }

    /// The bytes of a file already put, read back from the folder being written; `None` for a
    /// file not put or not readable. For this module's tests: the build reads none of its own
    /// files back (its documents are handed on typed, ARCHITECTURE.md).
    #[cfg(test)]
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let target = self.tmp.join(path);
        fs::read(target).ok()
    }

    /// The first failure to write a file, taken out: a caller that stops before
    /// [`Staging::finish`] reports it.
    pub fn take_failure(&self) -> Option<StoreError> {
        self.written().failed.take()
    }

    fn write(&self, path: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        {
            let mut written = self.written();
            if written.failed.is_some() {
                return Ok(());
            }
            // A second put would write over the first one's file, which may be a link to the
            // current snapshot's: refused, and the snapshot with it.
            if !written.claimed.insert(path.to_owned()) {
                let target = self.tmp.join(path);
                return Err(io_error("write", &target)(std::io::Error::other(
                    "the build put this file twice",
                )));
            }
        }
        self.make_parent(path)?;
        let target = self.tmp.join(path);
        let entry = Entry::of(&bytes);
        let previous = self.previous.as_ref();
        let same = previous.filter(|(dir, listed)| {
            match listed.files.get(path).filter(|_| (self.verified)(path)) {
                Some(old) => *old == entry,
                None => same_content(&dir.join(path), &bytes),
            }
        });
        let linked = same.filter(|(dir, _)| fs::hard_link(dir.join(path), &target).is_ok());
        if linked.is_none() {
            write_new(&target, &bytes)?;
        }
        let mut entries = vec![(path.to_owned(), entry)];
        let compressed = path != STATE_FILE && forms::wanted(path, bytes.len());
        if compressed {
            match linked
                .and_then(|(dir, listed)| forms::link_previous(dir, listed, &self.tmp, path))
            {
                Some(forms) => entries.extend(forms),
                None => self
                    .queue
                    .as_ref()
                    .expect("the queue lives until finish")
                    .send((path.to_owned(), bytes))
                    .map_err(|_| compressing_stopped(&self.tmp))?,
            }
        }
        self.written().manifest.extend(entries);
        Ok(())
    }

    /// Makes the folder of `path` and its parents, each once.
    fn make_parent(&self, path: &str) -> Result<(), StoreError> {
        let Some((folder, _)) = path.rsplit_once('/') else {
            return Ok(());
        };
        let mut missing = Vec::new();
        let mut at = folder;
        let written = self.written();
        while !written.folders.contains(at) {
            missing.push(at);
            at = at.rsplit_once('/').map_or("", |(parent, _)| parent);
        }
        drop(written);
        for folder in missing.into_iter().rev() {
            let dir = self.tmp.join(folder);
            match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
                Err(e) => return Err(io_error("create", &dir)(e)),
            }
            self.written().folders.insert(folder.to_owned());
        }
        Ok(())
    }

    /// Writes `state` and the manifest, renames the folder into place and makes it current;
    /// returns its id and folder. The first failure of any `put` is returned instead, and the
    /// folder removed.
    pub fn finish(mut self, state: &State) -> Result<(String, PathBuf), StoreError> {
        self.put(
            STATE_FILE,
            serde_json::to_vec(state).expect("state always serializes"),
        );
        let forms = self.stop_compressing();
        let mut written = std::mem::replace(
            &mut *self.written(),
            Written {
                claimed: HashSet::new(),
                manifest: BTreeMap::new(),
                folders: HashSet::new(),
                failed: None,
            },
        );
        if let Some(e) = written.failed {
            return Err(e);
        }
        written.manifest.extend(forms?);
        let manifest = Manifest {
            version: 1,
            files: written.manifest,
        };
        let target = self.tmp.join(MANIFEST_FILE);
        let bytes = serde_json::to_vec(&manifest).expect("a manifest serializes");
        fs::write(&target, bytes).map_err(io_error("write", &target))?;
        let dir = self.tmp.with_file_name(&self.id);
        fs::rename(&self.tmp, &dir).map_err(io_error("rename", &self.tmp))?;
        self.store.point_current_at(&self.id)?;
        Ok((std::mem::take(&mut self.id), dir))
    }

    /// Closes the queue and waits for the compressing threads: the forms they wrote.
    fn stop_compressing(&mut self) -> Result<Forms, StoreError> {
        self.queue = None;
        let mut all = Vec::new();
        let mut failed = None;
        for thread in self.compressing.drain(..) {
            match thread.join() {
                Ok(Ok(forms)) => all.extend(forms),
                Ok(Err(e)) => {
                    failed.get_or_insert(e);
                }
                // Never a panic here: this runs in `drop` too, maybe while the build unwinds.
                Err(_) => {
                    failed.get_or_insert(StoreError::Io {
                        action: "compress into",
                        path: self.tmp.display().to_string(),
                        source: std::io::Error::other("a compressing thread panicked"),
                    });
                }
            }
        }
        failed.map_or(Ok(all), Err)
    }

    fn written(&self) -> std::sync::MutexGuard<'_, Written> {
        self.written.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Staging<'_> {
    /// An unfinished staging (a failed build, or one whose finish failed) leaves nothing: its
    /// folder is removed (best effort: what is left is pruned by the next build).
    fn drop(&mut self) {
        let _ = self.stop_compressing();
        if !self.id.is_empty() {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// A compressing thread: takes files off the queue until it closes and writes each coding that
/// makes one smaller beside it; returns their manifest entries. After a failure it still
/// empties the queue, so that `put` never blocks on a queue nobody reads.
fn compress(waiting: &Mutex<Receiver<(String, Vec<u8>)>>, tmp: &Path) -> Result<Forms, StoreError> {
    let mut compressor = Compressor::new();
    let mut written = Vec::new();
    let mut failed = None;
    loop {
        let next = waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok((path, bytes)) = next else { break };
        if failed.is_some() {
            continue;
        }
        for coding in Coding::ALL {
            let Some(packed) = compressor.smaller(coding, &bytes) else {
                continue;
            };
            let form = coding.path(&path);
            let target = tmp.join(&form);
            if let Err(e) = write_new(&target, &packed) {
                failed = Some(e);
                break;
            }
            written.push((form, Entry::of(&packed)));
        }
    }
    failed.map_or(Ok(written), Err)
}

/// Writes a new file: never through an existing one, which could be a link to a file of the
/// current snapshot.
fn write_new(target: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    use std::io::Write;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(target)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(io_error("write", target))
}

fn compressing_stopped(tmp: &Path) -> StoreError {
    StoreError::Io {
        action: "compress into",
        path: tmp.display().to_string(),
        source: std::io::Error::other("the compressing threads stopped"),
    }
}

pub(crate) fn same_content(path: &Path, bytes: &[u8]) -> bool {
    fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
        && fs::read(path).is_ok_and(|old| old == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTHING_READ: Verified<'static> = &|_| false;

    /// The snapshot folders under `store`, temporary ones included, by name.
    fn folders(store: &Store) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(store.snapshots_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn files_put_from_many_threads_are_readable_at_once_and_made_current_together() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let staging = store.stage("1", NOTHING_READ).unwrap();
        // Large and compressible: each gets its forms, on the staging's own threads.
        let body = |i: usize| format!("[{}]", format!("\"egg {i}\",").repeat(200)).into_bytes();
        std::thread::scope(|scope| {
            for t in 0..4 {
                let staging = &staging;
                scope.spawn(move || {
                    for i in (t..40).step_by(4) {
                        staging.put(&format!("api/v1/eggs/e{i}/pelican.json"), body(i));
                    }
                });
            }
        });
        // Written as put: a later stage reads it back before the snapshot is finished, and
        // nothing is current yet.
        assert_eq!(staging.read("api/v1/eggs/e7/pelican.json"), Some(body(7)));
        assert_eq!(store.current_dir(), None);
        let (id, dir) = staging.finish(&State::default()).unwrap();
        assert_eq!(id, "1");
        assert_eq!(store.current_dir().as_deref(), Some(dir.as_path()));
        assert_eq!(folders(&store), ["1"]);
        let manifest = Manifest::read(&dir).unwrap();
        for i in 0..40 {
            let path = format!("api/v1/eggs/e{i}/pelican.json");
            assert_eq!(manifest.files[&path], Entry::of(&body(i)));
            for coding in Coding::ALL {
                let form = coding.path(&path);
                let bytes = fs::read(dir.join(&form)).unwrap();
                assert_eq!(manifest.files[&form], Entry::of(&bytes), "{form}");
            }
        }
        assert!(store.check(&dir).is_empty());
    }

    #[test]
    fn a_staging_dropped_unfinished_leaves_nothing_and_the_current_snapshot_stands() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let first = store.stage("1", NOTHING_READ).unwrap();
        first.put("api/v1/eggs/_index.json", b"[]".to_vec());
        let (_, current) = first.finish(&State::default()).unwrap();
        let second = store.stage("2", NOTHING_READ).unwrap();
        second.put("api/v1/eggs/_index.json", b"[1]".to_vec());
        assert_eq!(folders(&store), [".tmp-2", "1"]);
        drop(second);
        assert_eq!(folders(&store), ["1"]);
        assert_eq!(store.current_dir(), Some(current));
    }

    #[test]
    fn a_failed_put_fails_the_snapshot_and_writes_nothing_more() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let first = store.stage("1", NOTHING_READ).unwrap();
        first.put("a.json", b"{}".to_vec());
        let (_, current) = first.finish(&State::default()).unwrap();
        let staging = store.stage("2", NOTHING_READ).unwrap();
        staging.put("x", b"file".to_vec());
        // `x` is a file: nothing can go under it.
        staging.put("x/y.json", b"{}".to_vec());
        staging.put("later.json", b"{}".to_vec());
        assert_eq!(
            staging.read("later.json"),
            None,
            "nothing written after a failure"
        );
        let error = staging.finish(&State::default()).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with(".tmp-2/x: File exists (os error 17)"),
            "{error}"
        );
        assert_eq!(folders(&store), ["1"]);
        assert_eq!(store.current_dir(), Some(current));
    }

    /// A compressible body of `n` bytes or so.
    fn body(tag: &str) -> Vec<u8> {
        format!("[{}]", format!("\"{tag}\",").repeat(200)).into_bytes()
    }

    #[test]
    fn a_path_put_twice_fails_the_snapshot_and_leaves_the_current_one_intact() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let first = store.stage("1", NOTHING_READ).unwrap();
        first.put("a.json", body("a"));
        let (_, current) = first.finish(&State::default()).unwrap();
        let staging = store.stage("2", NOTHING_READ).unwrap();
        // Identical: a hard link to the current snapshot's file.
        staging.put("a.json", body("a"));
        staging.put("a.json", b"other".to_vec());
        let error = staging.finish(&State::default()).unwrap_err();
        assert!(error.to_string().contains("put this file twice"), "{error}");
        assert_eq!(fs::read(current.join("a.json")).unwrap(), body("a"));
        assert!(store.check(&current).is_empty());
        assert_eq!(folders(&store), ["1"]);
    }

    #[test]
    fn damaged_or_missing_forms_of_the_current_snapshot_are_made_anew_not_linked() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let first = store.stage("1", NOTHING_READ).unwrap();
        first.put("a.json", body("a"));
        first.put("b.json", body("b"));
        let (_, old) = first.finish(&State::default()).unwrap();
        // a.json's br form truncated, b.json's gzip form gone.
        fs::write(old.join(Coding::ALL[0].path("a.json")), b"x").unwrap();
        fs::remove_file(old.join(Coding::ALL[1].path("b.json"))).unwrap();
        let staging = store.stage("2", NOTHING_READ).unwrap();
        staging.put("a.json", body("a"));
        staging.put("b.json", body("b"));
        let (_, new) = staging.finish(&State::default()).unwrap();
        assert!(store.check(&new).is_empty(), "{:?}", store.check(&new));
        for path in ["a.json", "b.json"] {
            let ino = |dir: &Path, p: &str| fs::metadata(dir.join(p)).map(|m| m.ino()).ok();
            // The identity file is shared; no form is, so none was written through a link.
            assert_eq!(ino(&new, path), ino(&old, path));
            for coding in Coding::ALL {
                let form = coding.path(path);
                assert!(ino(&new, &form).is_some(), "{form}");
                assert_ne!(ino(&new, &form), ino(&old, &form), "{form}");
            }
        }
    }
}
