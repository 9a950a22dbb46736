//! What follows a build: writing the current snapshot's tree into an `--out` folder with the
//! rules static hosts need, and publishing it (the upload to an S3-compatible bucket, `[publish]`
//! or `eggcat publish`). Both read the snapshot the build made current, or kept when nothing
//! changed, from disk: a build hands them no files. [`after_build`] is the one sequence of them
//! that `eggcat build` and `eggcat serve`'s rebuilds run; `eggcat publish` uploads alone.
//! [`rebuild`] is the whole of a server's rebuild: the build, the install of its snapshot into
//! what serves it ([`Install`], which the server implements: the pipeline does not depend on
//! the server), then [`after_build`].
//!
//! `--out` reads and writes one file at a time ([`eggcat_store::CurrentFiles::write_tree`]),
//! keeping of the tree only its paths and the two documents the rules read
//! ([`eggcat_publish::rules::Tree`]), so it holds no more of the catalog than the build that
//! streamed it into the snapshot. The upload still reads the whole snapshot into memory: its
//! plan compares every object's hash with the bucket's, and `eggcat-publish` takes the files.
//!
//! The upload is asynchronous (`object_store`); [`publish`] runs it to its end on a runtime of
//! its own, as `eggcat-images` asks the registries, so that the pipeline's API is blocking
//! throughout and its callers need no runtime of their own. It must not be called from a thread
//! that runs a tokio runtime (`eggcat serve` calls it from its loader thread).

use std::path::{Path, PathBuf};

use eggcat_catalog::wire::Report;
use eggcat_publish::rules::{RulesOptions, Tree};
use eggcat_publish::{Event, Options, PublishError, Summary, Target};
use eggcat_store::{Store, StoreError};

/// Why `--out` could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// There is no current snapshot (it was removed since the build).
    #[error("there is no current snapshot")]
    NoSnapshot,
    /// The current snapshot cannot be listed, or its index or status document is damaged:
    /// nothing was written.
    #[error("cannot read the current snapshot")]
    Read(#[source] StoreError),
    /// Writing the tree failed: `out` is as it was, but for the files renamed before the failure.
    #[error("cannot write {}", .out.display())]
    Tree {
        /// The `--out` folder.
        out: PathBuf,
        /// What failed.
        #[source]
        source: StoreError,
    },
    /// Writing the static-host rules (`out/.eggcat/`) failed; the tree is written.
    #[error("cannot write the static-host rules in {}", .out.display())]
    Rules {
        /// The `--out` folder.
        out: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

/// Writes the current snapshot's tree into `out` (lists last, each file under a temporary name
/// then renamed, stale files removed, a damaged file left out: see
/// [`eggcat_store::CurrentFiles::write_tree`]), then the static hosts' rules into
/// `out/.eggcat/` (nginx, Caddy, CloudFront, problem documents).
pub fn write_out(store: &Store, out: &Path, rules: &RulesOptions) -> Result<(), OutError> {
    let current = store
        .current_files()
        .map_err(OutError::Read)?
        .ok_or(OutError::NoSnapshot)?;
    let mut tree = Tree::default();
    let written = current.write_tree(out, &mut |path, bytes| tree.see(path, bytes));
    match written {
        Ok(_) => {}
        // A damaged index or status document: the snapshot cannot be read as a tree.
        Err(e @ StoreError::Damaged { .. }) => return Err(OutError::Read(e)),
        Err(source) => {
            return Err(OutError::Tree {
                out: out.to_path_buf(),
                source,
            });
        }
    }
    eggcat_publish::rules::write(out, &tree, rules).map_err(|source| OutError::Rules {
        out: out.to_path_buf(),
        source,
    })
}

/// Why a snapshot's own report (`_status.json`) cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The file cannot be read.
    #[error("cannot read {}", .path.display())]
    Read {
        /// The report's path.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a report.
    #[error("{} is unreadable", .path.display())]
    Decode {
        /// The report's path.
        path: PathBuf,
        /// What failed.
        #[source]
        source: serde_json::Error,
    },
}

/// The report of the snapshot in `snapshot_dir`: when a rebuild found nothing changed
/// ([`crate::Rebuilt::Unchanged`]), the report of the build that made the snapshot kept.
pub fn kept_report(snapshot_dir: &Path) -> Result<Report, ReportError> {
    let path = snapshot_dir.join(eggcat_catalog::paths::STATUS);
    let bytes = std::fs::read(&path).map_err(|source| ReportError::Read {
        path: path.clone(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|source| ReportError::Decode { path, source })
}

/// Why publishing failed.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// There is no current snapshot to publish yet.
    #[error("there is no current snapshot")]
    NoSnapshot,
    /// The current snapshot cannot be read.
    #[error("cannot read the current snapshot")]
    Read(#[source] StoreError),
    /// The upload's runtime could not start.
    #[error("cannot start the runtime")]
    Runtime(#[source] std::io::Error),
    /// The upload failed (part way: the bucket stays consistent for readers, and the next
    /// publish finishes the work).
    #[error(transparent)]
    Publish(PublishError),
}

/// Publishes the current snapshot to `target` (only what the bucket does not hold yet, unless
/// `options.force`), reporting each step to `progress`, and returns what was done.
pub fn publish(
    store: &Store,
    target: &Target,
    options: Options,
    progress: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Summary, UploadError> {
    let snapshot = store
        .read_current()
        .map_err(UploadError::Read)?
        .ok_or(UploadError::NoSnapshot)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(UploadError::Runtime)?;
    runtime
        .block_on(eggcat_publish::publish(
            &snapshot.id,
            &snapshot.files,
            target,
            options,
            progress,
        ))
        .map_err(UploadError::Publish)
}

/// What follows a build, as configured: the `--out` folder with its rules, and the upload
/// target (`[publish]`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Follow<'a> {
    /// Write the current tree into this folder, with these rules for static hosts.
    pub out: Option<(&'a Path, &'a RulesOptions)>,
    /// Then publish the current snapshot to this target.
    pub publish: Option<&'a Target>,
}

/// What followed a build: each step that ran, with its result.
#[derive(Debug, Default)]
pub struct Followed {
    /// The `--out` tree, when one was asked for.
    pub out: Option<Result<(), OutError>>,
    /// The upload, when a target is configured and `--out` (if any) was written.
    pub upload: Option<Result<Summary, UploadError>>,
}

/// Runs what follows a build, in order, whether the build made a new snapshot current or kept
/// the current one (so that a missing `--out` tree or an upload that failed after an earlier
/// build is made good): the `--out` tree, then the upload. A failed `--out` ends the sequence:
/// nothing is uploaded. Blocks, like [`publish`]: not for a thread that runs a tokio runtime.
pub fn after_build(
    store: &Store,
    follow: &Follow<'_>,
    progress: &(dyn Fn(Event<'_>) + Sync),
) -> Followed {
    let mut followed = Followed::default();
    if let Some((out, rules)) = follow.out {
        let written = write_out(store, out, rules);
        let failed = written.is_err();
        followed.out = Some(written);
        if failed {
            return followed;
        }
    }
    followed.upload = follow
        .publish
        .map(|target| publish(store, target, Options::default(), progress));
    followed
}

/// What serves the store's current snapshot (`eggcat serve`'s `App`), as [`rebuild`] needs it:
/// the cut between the pipeline and the server, which the pipeline does not depend on.
pub trait Install {
    /// The id of the snapshot it serves now, if any.
    fn serving(&self) -> Option<String>;
    /// Serves the store's current snapshot `files` from now on; returns its report.
    fn install(&self, files: &eggcat_store::Served) -> Result<Report, String>;
}

/// What a rebuild did before what follows it.
#[derive(Debug)]
pub enum Installed {
    /// The build made a new snapshot current, now served: its report.
    New(Box<Report>),
    /// The build kept the current snapshot, which was already served.
    Unchanged,
}

/// One rebuild of a server, the one sequence: `build` (which makes a snapshot current in
/// `store`, or keeps the current one; `eggcat serve` runs a child `eggcat build`), then the
/// current snapshot installed into `server` unless it serves it already; `installed` is told
/// (before the upload starts, so a log reads in order), then, unless either failed,
/// [`after_build`] runs `follow`, whose result is returned. Blocks, like [`after_build`].
pub fn rebuild(
    store: &Store,
    build: impl FnOnce() -> Result<(), String>,
    server: &dyn Install,
    follow: &Follow<'_>,
    installed: &mut dyn FnMut(&Result<Installed, String>),
    progress: &(dyn Fn(Event<'_>) + Sync),
) -> Option<Followed> {
    let result = build().and_then(|()| {
        let files = store.served().ok_or("the build left no current snapshot")?;
        if server.serving().as_deref() == Some(files.id.as_str()) {
            return Ok(Installed::Unchanged);
        }
        Ok(Installed::New(Box::new(server.install(&files)?)))
    });
    installed(&result);
    // An unchanged rebuild follows too: an upload that failed after an earlier build is retried.
    result.ok().map(|_| after_build(store, follow, progress))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use eggcat_catalog::Catalog;
    use eggcat_catalog::wire::State;

    use super::*;

    fn store_with(tmp: &Path, removed: &str) -> Store {
        let store = Store::new(tmp.join("data"));
        let report = Report {
            interface_version: "2.0.0".to_owned(),
            build_id: "1".to_owned(),
            eggs: 1,
            ..Report::default()
        };
        let files = BTreeMap::from([
            (
                eggcat_catalog::paths::INDEX.to_owned(),
                b"[{\"slug\":\"a\"}]".to_vec(),
            ),
            (
                eggcat_catalog::paths::STATUS.to_owned(),
                serde_json::to_vec(&report).unwrap(),
            ),
            (
                eggcat_catalog::paths::REMOVED.to_owned(),
                removed.as_bytes().to_vec(),
            ),
            (eggcat_catalog::paths::egg("a"), b"{}".to_vec()),
            ("eggs/a/index.html".to_owned(), b"<!doctype html>".to_vec()),
        ]);
        let catalog = Catalog {
            files,
            report,
            state: State::default(),
        };
        store.save(&catalog, &HashSet::new()).unwrap();
        store
    }

    /// A server that records what it was asked to install.
    #[derive(Default)]
    struct Recorder(std::sync::Mutex<Option<String>>);

    impl Install for Recorder {
        fn serving(&self) -> Option<String> {
            self.0.lock().unwrap().clone()
        }

        fn install(&self, files: &eggcat_store::Served) -> Result<Report, String> {
            *self.0.lock().unwrap() = Some(files.id.clone());
            Ok(Report::default())
        }
    }

    /// A rebuild installs a new snapshot, then follows; the same snapshot again is unchanged
    /// and still follows (a failed upload is retried); a failed build is told and nothing
    /// follows, nor is anything installed.
    #[test]
    fn rebuild_installs_then_follows_once_and_not_after_a_failed_build() {
        let tmp = tempfile::tempdir().unwrap();
        let store = store_with(tmp.path(), "[]");
        let server = Recorder::default();
        let out = tmp.path().join("out");
        let rules = RulesOptions {
            cache_control: "max-age=1".into(),
        };
        let follow = Follow {
            out: Some((&out, &rules)),
            publish: None,
        };
        let mut told = Vec::new();
        let mut hear = |r: &Result<Installed, String>| told.push(format!("{r:?}"));
        let none = |_: Event<'_>| {};
        let followed = rebuild(&store, || Ok(()), &server, &follow, &mut hear, &none).unwrap();
        assert!(matches!(followed.out, Some(Ok(()))));
        assert!(out.join("eggs/a/index.html").is_file());
        let id = server.serving().expect("installed");
        assert_eq!(Some(id.as_str()), store.served().map(|s| s.id).as_deref());
        std::fs::remove_dir_all(&out).unwrap();
        let again = rebuild(&store, || Ok(()), &server, &follow, &mut hear, &none);
        assert!(again.is_some_and(|f| f.out.is_some_and(|o| o.is_ok())));
        assert!(out.join("eggs/a/index.html").is_file(), "followed again");
        std::fs::remove_dir_all(&out).unwrap();
        let failed = rebuild(
            &store,
            || Err("no".into()),
            &server,
            &follow,
            &mut hear,
            &none,
        );
        assert!(failed.is_none());
        assert!(!out.exists(), "nothing follows a failed build");
        assert!(told[0].starts_with("Ok(New("), "{told:?}");
        assert_eq!(told[1..], ["Ok(Unchanged)", "Err(\"no\")"]);
    }

    /// `--out` writes the tree and the rules made from it (here the 410 of the removed egg and
    /// the egg page's slug in the CloudFront function), and a later tree's rules replace them.
    #[test]
    fn out_writes_the_tree_and_its_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = r#"[{"slug":"old","removedAt":"T","source":"o/r","path":"p.json"}]"#;
        let store = store_with(tmp.path(), gone);
        let out = tmp.path().join("out");
        let rules = RulesOptions {
            cache_control: "max-age=1".into(),
        };
        write_out(&store, &out, &rules).unwrap();
        assert!(out.join("eggs/a/index.html").is_file());
        assert!(out.join(".eggcat/gone/old.json").is_file());
        let function = std::fs::read_to_string(out.join(".eggcat/cloudfront-function.js")).unwrap();
        let mut tree = Tree::default();
        let current = store.current_files().unwrap().unwrap();
        for path in current.paths() {
            tree.see(path, &current.read(path).unwrap());
        }
        let expected = eggcat_publish::rules::files(&tree, &rules);
        assert_eq!(
            function.as_bytes(),
            expected[".eggcat/cloudfront-function.js"].as_slice(),
            "the rules of the tree as read whole"
        );
        let report = kept_report(&store.current_dir().unwrap()).unwrap();
        assert_eq!(report.eggs, 1);
        // No current snapshot: nothing to write.
        let empty = Store::new(tmp.path().join("none"));
        assert!(matches!(
            write_out(&empty, &out, &rules),
            Err(OutError::NoSnapshot)
        ));
        assert!(out.join(".eggcat/gone/old.json").is_file(), "untouched");
    }
}
