//! The snapshots folder: saving a catalog as a snapshot and making it current atomically, finding and reading the current one,
//! and pruning old ones.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use eggcat_wire::{Catalog, paths};

use crate::manifest::{Damaged, MANIFEST_FILE, Manifest, check_sizes};
use crate::{StoreError, io_error};

/// The file beside the published tree that carries [`State`].
pub(crate) const STATE_FILE: &str = "state.json";

/// A `data_dir`.
#[derive(Debug, Clone)]
pub struct Store {
    data_dir: PathBuf,
}

/// The published tree of a snapshot, read into memory.
#[derive(Debug, Default)]
pub struct SnapshotFiles {
    /// The snapshot's folder name (its build id).
    pub id: String,
    /// Every published file, by `/`-separated path under the output root (`api/v1/...`).
    /// A damaged file is left out.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The precompressed forms of some of them (`x.json.br`, `x.json.gz`), by their own path.
    pub precompressed: BTreeMap<String, Vec<u8>>,
    /// The files found damaged when the snapshot was read (missing, truncated, changed), by
    /// its manifest; empty for a snapshot made in memory.
    pub damaged: Vec<Damaged>,
}

/// Reads the files of one snapshot, each checked against the snapshot's manifest.
#[derive(Debug)]
pub struct SnapshotReader {
    dir: PathBuf,
    manifest: Option<Manifest>,
}

impl SnapshotReader {
    /// The bytes of the file at `path` under the snapshot's folder, when they are what the
    /// build wrote (a snapshot without a readable manifest has nothing to check them against:
    /// its files are read as they are). `None` for a missing or damaged file.
    pub fn read(&self, path: &str) -> Option<Vec<u8>> {
        match self.checked(path).ok()? {
            Ok(bytes) => Some(bytes),
            Err(_) => {
                tracing::warn!(snapshot = %self.dir.display(), path, "damaged file not reused");
                None
            }
        }
    }

    /// The bytes of the file at `path`, or what its manifest says is wrong with them; the
    /// outer error when it cannot be read at all.
    fn checked(&self, path: &str) -> std::io::Result<Result<Vec<u8>, Damaged>> {
        let bytes = fs::read(self.dir.join(path))?;
        Ok(
            match self.manifest.as_ref().and_then(|m| m.verify(path, &bytes)) {
                None => Ok(bytes),
                Some(damaged) => Err(damaged),
            },
        )
    }
}

/// The current snapshot as a server opens it: its folder, whose files it reads as requests come,
/// and its manifest, streamed once ([`Served::each_listed`]). See [`Store::served`].
#[derive(Debug)]
pub struct Served {
    /// The snapshot's folder name (its build id).
    pub id: String,
    dir: PathBuf,
}

impl Served {
    /// The snapshot's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Calls `each` with the path, size and SHA-256 (lowercase hex) of every file its manifest
    /// lists, in path order (a file's precompressed forms after it, `x.json.br` beside
    /// `x.json`), `state.json` left out, holding none of them; `Err` when the manifest is
    /// missing or unreadable ([`Served::unlisted`] then lists the files as they are).
    pub fn each_listed(&self, each: &mut dyn FnMut(&str, u64, &str)) -> Result<(), Damaged> {
        crate::manifest::each_entry(&self.dir, &mut |path, size, sha256| {
            if path != STATE_FILE {
                each(path, size, sha256);
            }
        })
    }

    /// The files of the tree, sorted, as they are on disk (`state.json` and `manifest.json`
    /// left out): for a snapshot whose manifest cannot be read.
    pub fn unlisted(&self) -> Result<Vec<String>, StoreError> {
        let mut paths = Vec::new();
        list_tree(&self.dir, "", &mut paths)?;
        paths.retain(|p| p != STATE_FILE && p != MANIFEST_FILE);
        paths.sort();
        Ok(paths)
    }

    /// Keeps the snapshot from being pruned for as long as the returned file is open (a shared
    /// lock on its folder: [`Store::prunable`] leaves a folder someone holds alone), so that a
    /// server reading its files one request at a time never finds them gone.
    pub fn pin(&self) -> std::io::Result<fs::File> {
        let dir = fs::File::open(&self.dir)?;
        dir.lock_shared()?;
        Ok(dir)
    }
}

/// The published tree of the current snapshot, listed and not yet read: see
/// [`Store::current_files`].
#[derive(Debug)]
pub struct CurrentFiles {
    /// The snapshot's folder name (its build id).
    pub id: String,
    reader: SnapshotReader,
    /// Every published file, by `/`-separated path under the output root, sorted.
    paths: Vec<String>,
    /// The precompressed forms among the snapshot's files (`x.json.br` beside `x.json`), sorted.
    forms: Vec<String>,
    /// Damage found when listing: a missing or unreadable manifest (the files are then read as
    /// they are). A damaged file is found when it is read.
    pub damaged: Vec<Damaged>,
}

impl CurrentFiles {
    /// Every published file's path under the output root (`api/v1/...`), sorted; their
    /// precompressed forms are [`CurrentFiles::forms`].
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The precompressed forms of the published files (`x.json.br` beside `x.json`), sorted.
    pub fn forms(&self) -> &[String] {
        &self.forms
    }

    /// The bytes of the file at `path` (one of [`CurrentFiles::paths`]), when they are what the
    /// build wrote; else what is wrong with it, also logged.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, Damaged> {
        let problem = match self.reader.checked(path) {
            Ok(Ok(bytes)) => return Ok(bytes),
            Ok(Err(damaged)) => damaged.problem,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "missing".to_owned(),
            Err(e) => format!("unreadable: {e}"),
        };
        tracing::error!(snapshot = %self.id, path, %problem, "damaged file in the current snapshot");
        Err(Damaged {
            path: path.to_owned(),
            problem,
        })
    }
}

impl Store {
    /// A store rooted at `data_dir` (created by the first build).
    pub fn new(data_dir: impl Into<PathBuf>) -> Store {
        Store {
            data_dir: data_dir.into(),
        }
    }

    /// The root folder.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Where the git mirrors live.
    pub fn mirrors_dir(&self) -> PathBuf {
        self.data_dir.join("mirrors")
    }

    /// Where what the image registries said is kept between builds (`eggcat-images`' cache).
    pub fn images_file(&self) -> PathBuf {
        self.data_dir.join("images.json")
    }

    pub(crate) fn snapshots_dir(&self) -> PathBuf {
        self.data_dir.join("snapshots")
    }

    fn current_link(&self) -> PathBuf {
        self.data_dir.join("current")
    }

    /// The folder of the current snapshot, if there is one.
    pub fn current_dir(&self) -> Option<PathBuf> {
        let target = fs::read_link(self.current_link()).ok()?;
        let dir = self.data_dir.join(target);
        dir.is_dir().then_some(dir)
    }

    /// Reads the published tree of the current snapshot, or `None` when there is none. Each
    /// file is checked against the snapshot's manifest: a damaged one is left out and listed in
    /// [`SnapshotFiles::damaged`]; the snapshot is refused only when its index or status
    /// document cannot be read.
    pub fn read_current(&self) -> Result<Option<SnapshotFiles>, StoreError> {
        let Some(current) = self.current_files()? else {
            return Ok(None);
        };
        let mut damaged = current.damaged.clone();
        let (mut files, mut precompressed) = (BTreeMap::new(), BTreeMap::new());
        for (path, form) in (current.paths().iter().map(|p| (p, false)))
            .chain(current.forms().iter().map(|p| (p, true)))
        {
            match current.read(path) {
                Ok(bytes) if form => {
                    precompressed.insert(path.clone(), bytes);
                }
                Ok(bytes) => {
                    files.insert(path.clone(), bytes);
                }
                Err(d) => damaged.push(d),
            }
        }
        if let Some(missing) = [paths::INDEX, paths::STATUS]
            .iter()
            .find(|p| !files.contains_key(**p))
        {
            return Err(StoreError::Damaged {
                path: current.reader.dir.display().to_string(),
                detail: format!("{missing} missing or damaged"),
            });
        }
        Ok(Some(SnapshotFiles {
            id: current.id,
            files,
            precompressed,
            damaged,
        }))
    }

    /// The current snapshot as a server opens it, or `None` when there is none: nothing of it
    /// is read yet.
    pub fn served(&self) -> Option<Served> {
        let dir = self.current_dir()?;
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Some(Served { id, dir })
    }

    /// The current snapshot's files, listed (by its manifest) but not read, or `None` when
    /// there is none: a reader that keeps few of them (the server keeps the documents that did
    /// not change from the catalog it serves) reads them one at a time with
    /// [`CurrentFiles::read`], and never holds the whole tree in memory at once.
    pub fn current_files(&self) -> Result<Option<CurrentFiles>, StoreError> {
        let Some(dir) = self.current_dir() else {
            return Ok(None);
        };
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (manifest, mut paths, damaged) = match Manifest::read(&dir) {
            Ok(m) => {
                let paths = m.files.keys().cloned().collect();
                (Some(m), paths, Vec::new())
            }
            // Without a readable manifest, every file is read as it is.
            Err(d) => {
                tracing::error!(snapshot = %id, path = %d.path, problem = %d.problem, "damaged file in the current snapshot");
                let mut paths = Vec::new();
                list_tree(&dir, "", &mut paths)?;
                (None, paths, vec![d])
            }
        };
        paths.retain(|p| p != STATE_FILE && p != MANIFEST_FILE);
        paths.sort();
        let has = |path: &str| paths.binary_search_by(|p| p.as_str().cmp(path)).is_ok();
        let (forms, files): (Vec<String>, Vec<String>) = paths
            .iter()
            .cloned()
            .partition(|p| eggcat_codings::form_of(p).is_some_and(|(base, _)| has(base)));
        let paths = files;
        let has = |path: &str| paths.binary_search_by(|p| p.as_str().cmp(path)).is_ok();
        if !has(paths::INDEX) || !has(paths::STATUS) {
            return Err(StoreError::Damaged {
                path: dir.display().to_string(),
                detail: "index or status document missing".to_owned(),
            });
        }
        Ok(Some(CurrentFiles {
            id,
            reader: SnapshotReader { dir, manifest },
            paths,
            forms,
            damaged,
        }))
    }

    /// The files of the snapshot in `dir` that are missing or not of their size in its
    /// manifest (a missing manifest is one of them). Stats each file, reads none: cheap enough
    /// for every rebuild.
    pub fn check(&self, dir: &Path) -> Vec<Damaged> {
        check_sizes(dir)
    }

    /// A reader of the files of the snapshot in `dir`, checked against its manifest.
    pub fn reader(&self, dir: &Path) -> SnapshotReader {
        SnapshotReader {
            dir: dir.to_path_buf(),
            manifest: Manifest::read(dir).ok(),
        }
    }

    /// The snapshots a build may read its previous catalog from, best first: the current one,
    /// then the others newest first (a damaged current snapshot is stood in for by the newest
    /// older one that can be read). Temporary folders are not listed.
    pub fn snapshots_newest_first(&self) -> Result<Vec<PathBuf>, StoreError> {
        let Some(current) = self.current_dir() else {
            return Ok(Vec::new());
        };
        let dir = self.snapshots_dir();
        let mut older: Vec<PathBuf> = fs::read_dir(&dir)
            .map_err(io_error("list", &dir))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p != &current
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        older.sort();
        older.reverse();
        older.insert(0, current);
        Ok(older)
    }

    /// The bytes of a snapshot's `state.json` (what the catalog decodes as its previous state).
    /// A state that does not match the snapshot's manifest is [`StoreError::Damaged`].
    pub fn read_state(&self, snapshot: &Path) -> Result<Vec<u8>, StoreError> {
        let path = snapshot.join(STATE_FILE);
        let bytes = fs::read(&path).map_err(io_error("read", &path))?;
        let damaged = Manifest::read(snapshot)
            .ok()
            .and_then(|m| m.verify(STATE_FILE, &bytes));
        match damaged {
            Some(d) => Err(StoreError::Damaged {
                path: snapshot.display().to_string(),
                detail: format!("{}: {}", d.path, d.problem),
            }),
            None => Ok(bytes),
        }
    }

    /// Takes the lock that lets one build at a time run on this `data_dir`, waiting a little: a
    /// child process forked by another thread may hold a copy of a just-released lock until it
    /// execs. Held until the returned file is dropped.
    pub fn lock(&self) -> Result<fs::File, StoreError> {
        fs::create_dir_all(&self.data_dir).map_err(io_error("create", &self.data_dir))?;
        let path = self.data_dir.join(".lock");
        let lock = fs::File::create(&path).map_err(io_error("open", &path))?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        loop {
            match lock.try_lock() {
                Ok(()) => return Ok(lock),
                Err(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(_) => return Err(StoreError::Locked(self.data_dir.display().to_string())),
            }
        }
    }

    /// Saves `catalog` as a new snapshot and makes it current; returns its id and folder, as a
    /// [`Staging`](crate::Staging) the files are put into one by one does (files identical to
    /// the current snapshot's are hard-linked, the manifest is written last, a failure removes
    /// the half-written folder and leaves the current snapshot as it was). For a catalog made
    /// in memory; a build streams its files into [`Store::stage`] instead.
    ///
    /// `read` holds the paths of files of the current snapshot that the caller has read already
    /// and found intact, matching its manifest: they are compared by the hash that manifest
    /// gives them instead of being read again. A file not in `read` is read to be compared.
    pub fn save(
        &self,
        catalog: &Catalog,
        read: &HashSet<String>,
    ) -> Result<(String, PathBuf), StoreError> {
        let verified = |path: &str| read.contains(path);
        let staging = self.stage(&catalog.report.build_id, &verified)?;
        for (path, bytes) in &catalog.files {
            staging.put(path, bytes.clone());
        }
        staging.finish(&catalog.state)
    }

    /// Moves `current` to `snapshots/<id>` with one atomic rename.
    pub(crate) fn point_current_at(&self, id: &str) -> Result<(), StoreError> {
        let link = self.current_link();
        let tmp_link = self
            .data_dir
            .join(format!(".current-{}", std::process::id()));
        let _ = fs::remove_file(&tmp_link);
        let target = Path::new("snapshots").join(id);
        std::os::unix::fs::symlink(&target, &tmp_link).map_err(io_error("link", &tmp_link))?;
        fs::rename(&tmp_link, &link).map_err(io_error("rename", &link))
    }

    /// The snapshots to prune, sparing `spare` as well as the current one: the snapshots beyond
    /// the `keep` newest, and any `.tmp-` left by a killed build. A build lists them before it
    /// writes its own `.tmp-` folder, so that it can remove them meanwhile ([`remove_all`]).
    pub fn prunable(&self, keep: usize, spare: Option<&Path>) -> Result<Vec<PathBuf>, StoreError> {
        let snapshots = self.snapshots_dir();
        if !snapshots.exists() {
            return Ok(Vec::new());
        }
        let current = self
            .current_dir()
            .and_then(|d| d.file_name().map(|n| n.to_os_string()));
        let mut names: Vec<String> = fs::read_dir(&snapshots)
            .map_err(io_error("list", &snapshots))?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let (tmp, done): (Vec<String>, Vec<String>) =
            names.into_iter().partition(|n| n.starts_with(".tmp-"));
        let old = done.len().saturating_sub(keep);
        Ok(tmp
            .iter()
            .chain(done.iter().take(old))
            .filter(|name| current.as_deref() != Some(std::ffi::OsStr::new(name)))
            .map(|name| snapshots.join(name))
            .filter(|path| spare != Some(path.as_path()) && !pinned(path))
            .collect())
    }
}

/// Whether a server holds the snapshot in `dir` ([`CurrentFiles::pin`]): it reads its files as
/// requests come, so the folder must stay until it lets go.
fn pinned(dir: &Path) -> bool {
    fs::File::open(dir).is_ok_and(|f| matches!(f.try_lock(), Err(fs::TryLockError::WouldBlock)))
}

/// Removes snapshot folders.
pub fn remove_all(dirs: &[PathBuf]) -> Result<(), StoreError> {
    for dir in dirs {
        fs::remove_dir_all(dir).map_err(io_error("remove", dir))?;
    }
    Ok(())
}

/// What [`CurrentFiles::write_tree`] wrote.
#[derive(Debug, Default)]
pub struct WrittenTree {
    /// The published files written (precompressed forms left out), sorted: a damaged file is
    /// not among them.
    pub paths: Vec<String>,
    /// The files found damaged and left out (missing, truncated, changed), by the manifest.
    pub damaged: Vec<Damaged>,
}

impl CurrentFiles {
    /// Writes the published tree into `out` (for `--out`), one file at a time: each file is read
    /// from the snapshot, checked against its manifest, and written beside its target under a
    /// temporary name, so that no more than one file is held in memory; only when all are
    /// written are they renamed into place, the [`paths::LISTS`] last, and then files that are
    /// no longer published removed. Only the folders the tree itself has (`api/`, `eggs/`, ...)
    /// are cleaned: anything else in `out` is left alone. When a write fails (a full disk, ...),
    /// the temporary files are removed and `out` is left as it was. The precompressed forms
    /// (`x.json.gz`) are each renamed into place just before the files, so that nginx's
    /// `gzip_static` and Caddy's `precompressed` find them.
    ///
    /// A damaged file is left out (and logged), as [`Store::read_current`] leaves it out; a
    /// damaged index or status document refuses the whole tree ([`StoreError::Damaged`]) before
    /// anything in `out` changes. `each` sees every published file written, with its bytes (the
    /// forms are not shown to it).
    pub fn write_tree(
        &self,
        out: &Path,
        each: &mut dyn FnMut(&str, &[u8]),
    ) -> Result<WrittenTree, StoreError> {
        // Every other file first, the lists that name them last: a reader of `out` never finds a
        // list entry whose file is not there yet. Each group's forms go just before it.
        let is_list =
            |p: &str| paths::is_list(eggcat_codings::form_of(p).map_or(p, |(base, _)| base));
        let (list_forms, rest_forms): (Vec<&String>, Vec<&String>) =
            self.forms.iter().partition(|p| is_list(p));
        let (lists, rest): (Vec<&String>, Vec<&String>) =
            self.paths.iter().partition(|p| paths::is_list(p));
        fn with(group: Vec<&String>, is_form: bool) -> impl Iterator<Item = (&String, bool)> {
            group.into_iter().map(move |p| (p, is_form))
        }
        let ordered: Vec<(&String, bool)> = (with(rest_forms, true).chain(with(rest, false)))
            .chain(with(list_forms, true).chain(with(lists, false)))
            .collect();
        let suffix = format!(".eggcat-{}.tmp", std::process::id());
        let tmp_of = |target: &Path| {
            let mut name = target.file_name().unwrap_or_default().to_os_string();
            name.push(&suffix);
            target.with_file_name(name)
        };
        let mut tree = WrittenTree::default();
        // The files and forms written, in `ordered`'s order: what is renamed into place.
        let mut staged: Vec<&String> = Vec::with_capacity(ordered.len());
        let mut written: Vec<PathBuf> = Vec::with_capacity(ordered.len());
        let mut result = Ok(());
        for (path, is_form) in ordered {
            let bytes = match self.read(path) {
                Ok(bytes) => bytes,
                Err(damaged) => {
                    tree.damaged.push(damaged);
                    continue;
                }
            };
            let target = out.join(path);
            let parent = target.parent().expect("every published path has a folder");
            if let Err(e) = fs::create_dir_all(parent) {
                result = Err(io_error("create", parent)(e));
                break;
            }
            let tmp = tmp_of(&target);
            written.push(tmp.clone());
            if let Err(e) = fs::write(&tmp, &bytes) {
                result = Err(io_error("write", &tmp)(e));
                break;
            }
            staged.push(path);
            if !is_form {
                each(path, &bytes);
                tree.paths.push(path.clone());
            }
        }
        tree.paths.sort();
        let has = |path: &str| {
            tree.paths
                .binary_search_by(|p| p.as_str().cmp(path))
                .is_ok()
        };
        // As `read_current` refuses it: a tree without its index or status serves nothing.
        let result =
            result.and_then(
                |()| match [paths::INDEX, paths::STATUS].iter().find(|p| !has(p)) {
                    Some(missing) => Err(StoreError::Damaged {
                        path: self.reader.dir.display().to_string(),
                        detail: format!("{missing} missing or damaged"),
                    }),
                    None => Ok(()),
                },
            );
        if let Err(e) = result {
            for tmp in &written {
                let _ = fs::remove_file(tmp);
            }
            return Err(e);
        }
        for path in &staged {
            let target = out.join(path);
            fs::rename(tmp_of(&target), &target).map_err(io_error("rename", &target))?;
        }
        let published: HashSet<&str> = staged.iter().map(|p| p.as_str()).collect();
        let folders: std::collections::BTreeSet<&str> = tree
            .paths
            .iter()
            .filter_map(|p| p.split_once('/').map(|(top, _)| top))
            .collect();
        for folder in folders {
            remove_stale(&out.join(folder), folder, &|p| published.contains(p))?;
        }
        Ok(tree)
    }
}

/// Removes the files under `dir` (at `prefix` in the tree) that are not `published`, and the
/// folders that are left empty.
fn remove_stale(
    dir: &Path,
    prefix: &str,
    published: &dyn Fn(&str) -> bool,
) -> Result<(), StoreError> {
    for entry in fs::read_dir(dir).map_err(io_error("list", dir))?.flatten() {
        let rel = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error("stat", &path))?;
        if kind.is_dir() {
            remove_stale(&path, &rel, published)?;
            if fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none()) {
                fs::remove_dir(&path).map_err(io_error("remove", &path))?;
            }
        } else if !published(&rel) {
            fs::remove_file(&path).map_err(io_error("remove", &path))?;
        }
    }
    Ok(())
}

/// Lists the files under `dir`, as `/`-separated paths after `prefix`, into `out`.
fn list_tree(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), StoreError> {
    for entry in fs::read_dir(dir).map_err(io_error("list", dir))? {
        let entry = entry.map_err(io_error("list", dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error("stat", &path))?;
        if kind.is_dir() {
            list_tree(&path, &rel, out)?;
        } else if kind.is_file() {
            out.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use eggcat_wire::{Report, State};

    fn catalog(build_id: &str, egg: &str) -> Catalog {
        let report = Report {
            interface_version: "2.0.0".to_owned(),
            build_id: build_id.to_owned(),
            eggs: 1,
            ..Report::default()
        };
        let files = BTreeMap::from([
            (paths::INDEX.to_owned(), b"[]".to_vec()),
            (paths::STATUS.to_owned(), b"{}".to_vec()),
            (paths::egg("a"), egg.as_bytes().to_vec()),
        ]);
        Catalog {
            files,
            report,
            state: State::default(),
        }
    }

    #[test]
    fn save_makes_current_and_shares_identical_files() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        assert!(store.read_current().unwrap().is_none());
        assert!(store.snapshots_newest_first().unwrap().is_empty());
        let (first, first_dir) = store.save(&catalog("1", "{}"), &HashSet::new()).unwrap();
        let (second, second_dir) = store.save(&catalog("2", "{}"), &HashSet::new()).unwrap();
        assert_eq!((first.as_str(), second.as_str()), ("1", "2"));
        let current = store.read_current().unwrap().unwrap();
        assert_eq!(current.id, "2");
        assert!(
            !current.files.contains_key(STATE_FILE),
            "the state is not published"
        );
        assert_eq!(current.files[&paths::egg("a")], b"{}");
        let ino = |d: &Path| fs::metadata(d.join(paths::egg("a"))).unwrap().ino();
        assert_eq!(
            ino(&first_dir),
            ino(&second_dir),
            "an unchanged file is a hard link"
        );
        assert!(store.read_state(&second_dir).unwrap().starts_with(b"{"));
        // The same build id twice gets its own folder.
        let (third, _) = store
            .save(&catalog("2", "{\"x\":1}"), &HashSet::new())
            .unwrap();
        assert_eq!(third, "2-2");
        let order = store.snapshots_newest_first().unwrap();
        let names: Vec<_> = order
            .iter()
            .map(|d| d.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["2-2", "2", "1"], "current first, then newest first");
    }

    #[test]
    fn damage_is_found_by_the_manifest_and_damaged_files_are_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let (_, dir) = store
            .save(&catalog("1", "{\"egg\":1}"), &HashSet::new())
            .unwrap();
        assert!(store.check(&dir).is_empty(), "a fresh snapshot is intact");
        assert!(store.read_current().unwrap().unwrap().damaged.is_empty());
        let egg = paths::egg("a");
        // Truncated: the stat check finds it, and the read leaves it out.
        fs::write(dir.join(&egg), b"{").unwrap();
        let found = store.check(&dir);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, egg);
        assert_eq!(found[0].problem, "1 bytes, expected 9");
        let read = store.read_current().unwrap().unwrap();
        assert!(!read.files.contains_key(&egg));
        assert_eq!(read.damaged, found);
        assert_eq!(store.reader(&dir).read(&egg), None, "not reused");
        // Same size, other bytes: only the hash finds it.
        fs::write(dir.join(&egg), b"{\"egg\":2}").unwrap();
        assert!(store.check(&dir).is_empty());
        let read = store.read_current().unwrap().unwrap();
        assert_eq!(read.damaged[0].problem, "content changed (SHA-256 differs)");
        // Missing.
        fs::remove_file(dir.join(&egg)).unwrap();
        assert_eq!(store.check(&dir)[0].problem, "missing");
        // A missing index is a snapshot that cannot be served at all.
        fs::remove_file(dir.join(paths::INDEX)).unwrap();
        assert!(matches!(
            store.read_current(),
            Err(StoreError::Damaged { .. })
        ));
        // A damaged state is refused with the reason.
        fs::write(dir.join(STATE_FILE), b"{}").unwrap();
        let state = store.read_state(&dir).unwrap_err().to_string();
        assert!(state.contains("state.json: 2 bytes, expected"), "{state}");
    }

    #[test]
    fn a_failed_save_leaves_no_folder_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        store.save(&catalog("1", "{}"), &HashSet::new()).unwrap();
        // A path that cannot be a file (its folder is a file): the write fails half-way.
        let mut broken = catalog("2", "{}");
        broken.files.insert("x".to_owned(), Vec::new());
        broken.files.insert("x/y".to_owned(), Vec::new());
        assert!(store.save(&broken, &HashSet::new()).is_err());
        let names: Vec<_> = fs::read_dir(tmp.path().join("snapshots"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["1"], "no .tmp- folder left");
        assert_eq!(store.read_current().unwrap().unwrap().id, "1");
    }

    #[test]
    fn compressible_files_get_forms_once_and_a_rebuild_links_them() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let big = format!("{{\"a\":\"{}\"}}", "paper ".repeat(200));
        let (_, first_dir) = store.save(&catalog("1", &big), &HashSet::new()).unwrap();
        let egg = paths::egg("a");
        let current = store.current_files().unwrap().unwrap();
        assert_eq!(current.paths(), [paths::STATUS, paths::INDEX, egg.as_str()]);
        let forms = [format!("{egg}.br"), format!("{egg}.gz")];
        assert_eq!(current.forms(), forms, "small files get none");
        // The manifest, streamed, lists each form right after its file, with its size.
        let mut listed = Vec::new();
        let served = store.served().unwrap();
        served
            .each_listed(&mut |path, size, _| listed.push((path.to_owned(), size)))
            .unwrap();
        let at = listed.iter().position(|(p, _)| *p == egg).unwrap();
        for (n, form) in forms.iter().enumerate() {
            let size = fs::metadata(first_dir.join(form)).unwrap().len();
            assert_eq!(listed[at + 1 + n], (form.clone(), size));
        }
        assert!(!listed.iter().any(|(p, _)| p == STATE_FILE));
        let mut gz = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&fs::read(first_dir.join(&forms[1])).unwrap()[..]),
            &mut gz,
        )
        .unwrap();
        assert_eq!(gz, big.as_bytes());
        let read = store.read_current().unwrap().unwrap();
        assert_eq!(
            read.precompressed.keys().collect::<Vec<_>>(),
            [&forms[0], &forms[1]]
        );
        assert!(!read.files.contains_key(&forms[0]));
        // The same file in the next snapshot: its forms are the previous ones, linked.
        let (_, second_dir) = store.save(&catalog("2", &big), &HashSet::new()).unwrap();
        let ino = |d: &Path, p: &str| fs::metadata(d.join(p)).unwrap().ino();
        for form in &forms {
            assert_eq!(ino(&first_dir, form), ino(&second_dir, form), "{form}");
        }
        assert!(store.check(&second_dir).is_empty());
        // A changed file gets new forms; a damaged form is found like any file.
        let (_, third_dir) = store
            .save(
                &catalog("3", &big.replace("paper", "spigot")),
                &HashSet::new(),
            )
            .unwrap();
        assert_ne!(ino(&second_dir, &forms[0]), ino(&third_dir, &forms[0]));
        fs::write(third_dir.join(&forms[1]), b"x").unwrap();
        assert_eq!(store.check(&third_dir)[0].path, forms[1]);
    }

    /// `--out`: the tree with its forms, one file at a time; stale files and emptied folders
    /// go, the owner's files beside the tree stay, a damaged file is left out, and a damaged
    /// index leaves `out` as it was.
    #[test]
    fn the_current_tree_is_written_file_by_file_and_damage_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join("data"));
        let big = format!("{{\"a\":\"{}\"}}", "paper ".repeat(200));
        let mut second = catalog("1", &big);
        second.files.insert(paths::egg("b"), b"{\"b\":1}".to_vec());
        let (_, dir) = store.save(&second, &HashSet::new()).unwrap();
        let out = tmp.path().join("out");
        fs::create_dir_all(out.join("api/v1/eggs/old")).unwrap();
        fs::write(out.join("api/v1/eggs/old/x.json"), b"stale").unwrap();
        fs::write(out.join("robots.txt"), b"mine").unwrap();
        let current = store.current_files().unwrap().unwrap();
        let mut seen = Vec::new();
        let tree = current
            .write_tree(&out, &mut |path, bytes| {
                seen.push((path.to_owned(), bytes.len()))
            })
            .unwrap();
        let (a, b) = (paths::egg("a"), paths::egg("b"));
        assert_eq!(
            tree.paths,
            [paths::STATUS, paths::INDEX, a.as_str(), b.as_str()]
        );
        assert_eq!(seen.len(), 4, "forms are not shown: {seen:?}");
        assert_eq!(fs::read(out.join(&a)).unwrap(), big.as_bytes());
        assert!(out.join(format!("{a}.br")).is_file() && out.join(format!("{a}.gz")).is_file());
        assert!(
            !out.join("api/v1/eggs/old").exists(),
            "stale folder removed"
        );
        assert!(out.join("robots.txt").is_file(), "not the tree's: kept");
        // A damaged file is left out of the tree (and so removed from `out`).
        fs::write(dir.join(&b), b"{\"b\":2}").unwrap();
        let current = store.current_files().unwrap().unwrap();
        let tree = current.write_tree(&out, &mut |_, _| {}).unwrap();
        assert_eq!(tree.damaged.len(), 1);
        assert_eq!(tree.damaged[0].path, b);
        assert!(!out.join(&b).exists());
        // A damaged index refuses the tree: `out` keeps what it had, no temporary file stays.
        fs::write(dir.join(paths::INDEX), b"{}").unwrap();
        let current = store.current_files().unwrap().unwrap();
        let e = current.write_tree(&out, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("missing or damaged"), "{e}");
        assert_eq!(fs::read(out.join(paths::INDEX)).unwrap(), b"[]");
        let mut listed = Vec::new();
        list_tree(&out, "", &mut listed).unwrap();
        assert!(!listed.iter().any(|p| p.ends_with(".tmp")), "{listed:?}");
    }

    #[test]
    fn a_pinned_snapshot_is_not_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let (_, first_dir) = store.save(&catalog("1", "{}"), &HashSet::new()).unwrap();
        let pin = store.served().unwrap().pin().unwrap();
        store.save(&catalog("2", "{}"), &HashSet::new()).unwrap();
        assert!(
            store.prunable(0, None).unwrap().is_empty(),
            "held by a server"
        );
        drop(pin);
        assert_eq!(store.prunable(0, None).unwrap(), [first_dir]);
    }

    #[test]
    fn one_lock_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join("data"));
        let held = store.lock().unwrap();
        assert!(matches!(store.lock(), Err(StoreError::Locked(_))));
        drop(held);
        assert!(store.lock().is_ok());
    }

    #[test]
    fn files_the_caller_read_are_compared_in_memory() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let (_, first_dir) = store.save(&catalog("1", "{}"), &HashSet::new()).unwrap();
        let ino = |d: &Path| fs::metadata(d.join(paths::egg("a"))).unwrap().ino();
        // Read as they are: shared.
        let read = HashSet::from([paths::egg("a")]);
        let (_, second_dir) = store.save(&catalog("2", "{}"), &read).unwrap();
        assert_eq!(ino(&first_dir), ino(&second_dir));
        // The same file read with other bytes than the new ones: written anew.
        let (_, third_dir) = store.save(&catalog("3", "{\"b\":2}"), &read).unwrap();
        assert_ne!(ino(&second_dir), ino(&third_dir));
        assert_eq!(
            fs::read(third_dir.join(paths::egg("a"))).unwrap(),
            b"{\"b\":2}"
        );
        // Every folder of the tree is there, made once each.
        assert!(third_dir.join("api/v1/eggs").is_dir());
    }
}
