//! A plain local folder as a source: its files read as they are, without git.
//!
//! This is how the bundled demo works, and how an egg author previews a folder before pushing.
//! Symbolic links are listed, never followed; a `.git` folder is not entered.

use std::path::Path;

use eggcat_wire::{EntryKind, TreeEntry};
use sha2::{Digest, Sha256};

use crate::{FetchError, io_error};

/// Every file, link and folder below `root`, as tree entries with `/`-separated paths.
pub(crate) fn list(root: &Path) -> Result<Vec<TreeEntry>, FetchError> {
    let mut entries = Vec::new();
    walk(root, "", true, &mut entries)?;
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(entries)
}

/// `prefix_utf8`: whether the folder's path below `root` is UTF-8 (`prefix` is its lossy form).
fn walk(
    dir: &Path,
    prefix: &str,
    prefix_utf8: bool,
    out: &mut Vec<TreeEntry>,
) -> Result<(), FetchError> {
    let io = |source| io_error(dir)(source);
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let file_name = entry.file_name();
        let utf8 = prefix_utf8 && file_name.to_str().is_some();
        let name = file_name.to_string_lossy().into_owned();
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let meta = std::fs::symlink_metadata(entry.path()).map_err(io)?;
        let kind = if meta.is_symlink() {
            EntryKind::Symlink
        } else if meta.is_dir() {
            if name != ".git" {
                walk(&entry.path(), &path, utf8, out)?;
            }
            continue;
        } else if meta.is_file() && !utf8 {
            EntryKind::NotUtf8
        } else if meta.is_file() {
            EntryKind::File
        } else {
            continue;
        };
        out.push(TreeEntry {
            path,
            kind,
            size: meta.len(),
            content: None,
        });
    }
    Ok(())
}

/// Reads a file's content.
pub(crate) fn read(root: &Path, path: &str) -> Result<Vec<u8>, FetchError> {
    let full = root.join(path);
    std::fs::read(&full).map_err(io_error(&full))
}

/// A stand-in for a commit id: a digest of the listing and of every content read, so it changes
/// whenever anything the catalog uses changes.
pub(crate) fn digest(entries: &[TreeEntry]) -> String {
    let mut h = Sha256::new();
    for e in entries {
        h.update(e.path.as_bytes());
        h.update([0, e.kind as u8]);
        h.update(e.size.to_le_bytes());
        if let Some(c) = &e.content {
            h.update(Sha256::digest(c));
        }
    }
    eggcat_wire::hex(&h.finalize()[..20])
}
