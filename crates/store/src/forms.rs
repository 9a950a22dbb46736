//! The precompressed forms of a snapshot's files (`x.json.br`, `x.json.gz` beside `x.json`,
//! [`eggcat_codings`]), written with the snapshot: a file that did not change since the
//! previous snapshot takes that snapshot's forms by hard link, as it takes its own bytes, so a
//! rebuild compresses only what changed. Each form is a file of the snapshot like any other:
//! listed in its manifest with its size and SHA-256, checked as the others are.

use std::fs;
use std::path::Path;

use eggcat_codings::{Coding, MIN_SIZE};
use eggcat_wire::paths;

use crate::manifest::{Entry, Manifest};

/// Whether the file at `path` gets precompressed forms: a compressible media type, and large
/// enough for compression to matter.
pub(crate) fn wanted(path: &str, len: usize) -> bool {
    len >= MIN_SIZE && paths::is_compressible(paths::media_type(path))
}

/// Links `path`'s forms from the previous snapshot in `previous` (whose manifest is
/// `listed`) into `tmp`, returning their manifest entries; `None` when the previous snapshot
/// has none for it (made before forms were written), or one is not of its listed size (damaged:
/// linking it would carry the damage into every later snapshot), or one cannot be linked: then
/// nothing is left linked and the caller compresses the file anew.
pub(crate) fn link_previous(
    previous: &Path,
    listed: &Manifest,
    tmp: &Path,
    path: &str,
) -> Option<Vec<(String, Entry)>> {
    let mut linked = Vec::new();
    for coding in Coding::ALL {
        let form = coding.path(path);
        let Some(entry) = listed.files.get(&form) else {
            continue;
        };
        let old = previous.join(&form);
        let intact = fs::metadata(&old).is_ok_and(|m| m.len() == entry.size);
        if !intact || fs::hard_link(&old, tmp.join(&form)).is_err() {
            for (done, _) in &linked {
                let _ = fs::remove_file(tmp.join(done));
            }
            return None;
        }
        linked.push((form, entry.clone()));
    }
    (!linked.is_empty()).then_some(linked)
}
