//! The precompressed forms of a snapshot's files (`x.json.br`, `x.json.gz` beside `x.json`,
//! [`eggcat_codings`]), written with the snapshot: a file that did not change since the
//! previous snapshot takes that snapshot's forms by hard link, as it takes its own bytes, so a
//! rebuild compresses only what changed. Each form is a file of the snapshot like any other:
//! listed in its manifest with its size and SHA-256, checked as the others are.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use eggcat_catalog::paths;
use eggcat_codings::{Coding, Compressor, MIN_SIZE};

use crate::manifest::{Entry, Manifest};
use crate::{StoreError, io_error};

/// Whether the file at `path` gets precompressed forms: a compressible media type, and large
/// enough for compression to matter.
pub(crate) fn wanted(path: &str, len: usize) -> bool {
    len >= MIN_SIZE && paths::is_compressible(paths::media_type(path))
}

/// Links `path`'s forms from the previous snapshot in `previous` (whose manifest is
/// `listed`) into `tmp`, returning their manifest entries; `None` when the previous snapshot
/// has none for it (made before forms were written) or one cannot be linked: then the caller
/// compresses the file anew.
pub(crate) fn link_previous(
    previous: &Path,
    listed: &Manifest,
    tmp: &Path,
    path: &str,
) -> Option<Vec<(String, Entry)>> {
    let mut linked = Vec::new();
    for coding in Coding::ALL {
        let form = coding.path(path);
        if let Some(entry) = listed.files.get(&form) {
            fs::hard_link(previous.join(&form), tmp.join(&form)).ok()?;
            linked.push((form, entry.clone()));
        }
    }
    (!linked.is_empty()).then_some(linked)
}

/// Compresses each file of `files` into every coding that makes it smaller and writes those
/// forms under `tmp`, on up to four threads (the build that writes a snapshot waits for it);
/// returns their manifest entries.
pub(crate) fn compress_all(
    tmp: &Path,
    files: &[(&str, &[u8])],
) -> Result<Vec<(String, Entry)>, StoreError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let work = || -> Result<Vec<(String, Entry)>, StoreError> {
        let mut compressor = Compressor::new();
        let mut written = Vec::new();
        while let Some((path, bytes)) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
            for coding in Coding::ALL {
                let Some(packed) = compressor.smaller(coding, bytes) else {
                    continue;
                };
                let form = coding.path(path);
                let target = tmp.join(&form);
                fs::write(&target, &packed).map_err(io_error("write", &target))?;
                written.push((form, Entry::of(&packed)));
            }
        }
        Ok(written)
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        let mut all = Vec::new();
        for worker in workers {
            all.extend(worker.join().expect("a compression thread panicked")?);
        }
        Ok(all)
    })
}
