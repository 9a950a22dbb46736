//! Snapshots on disk, and nothing else: saving a catalog as a snapshot and making it current
//! atomically, reading the current snapshot (its files, or the bytes of its `state.json` for the
//! next build, or its tree written into an `--out` folder one file at a time), pruning old ones,
//! and the lock that lets one build run at a time. The rebuild that fetches, builds and saves is
//! `eggcat-pipeline`'s; what a snapshot's documents mean is the catalog's. ("Publish", in
//! eggcat, is the upload to a bucket, `eggcat-publish`'s.)
//!
//! Layout of `data_dir`:
//! ```text
//! mirrors/<owner-repo-hash>.git   bare, shallow mirror of each git source
//! snapshots/<build-id>/           one complete published tree (api/v1/...) plus state.json
//!                                 and manifest.json (each file's size and SHA-256, written last)
//! snapshots/.tmp-<build-id>/      a snapshot being written (never current)
//! current -> snapshots/<build-id> the current snapshot, swapped by an atomic rename
//! .lock                           held by the one build that may run at a time
//! ```
//!
//! Architecture invariant: `current` only ever names a complete snapshot. A snapshot is written
//! under a temporary name, renamed into place, and only then does `current` move (a symlink
//! renamed over the old one), so a reader sees the old catalog or the new one, never a mix, and a
//! build killed at any point leaves the previous snapshot current and intact.

mod forms;
mod manifest;
mod snapshot;
mod staging;

pub use manifest::Damaged;
pub use snapshot::{
    CurrentFiles, Served, SnapshotFiles, SnapshotReader, Store, WrittenTree, remove_all,
};
pub use staging::{Staging, Verified};

/// Why reading or writing snapshots failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading or writing under `data_dir` (or `--out`) failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// Another build holds the lock on `data_dir`.
    #[error("another build is running on {0}")]
    Locked(String),
    /// A snapshot on disk is damaged.
    #[error("snapshot {path} is damaged: {detail}")]
    Damaged {
        /// The snapshot.
        path: String,
        /// What is wrong.
        detail: String,
    },
}

/// Maps an IO error on `path` (the path is only formatted when there is an error).
pub(crate) fn io_error<'a>(
    action: &'static str,
    path: &'a std::path::Path,
) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        action,
        path: path.display().to_string(),
        source,
    }
}
