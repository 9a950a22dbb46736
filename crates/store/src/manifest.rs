//! A snapshot's `manifest.json`: the size and SHA-256 of every file the build wrote, so that
//! damage done to a snapshot after it was made current (a truncated document, a missing file, a
//! changed byte) is found without trusting the files themselves.
//!
//! Two checks, of two costs. [`check_sizes`] only stats each file (a few milliseconds for a
//! catalog of a thousand eggs): a rebuild runs it on the current snapshot before deciding that
//! nothing changed, so a damaged snapshot is never kept. [`Manifest::verify`] compares the bytes'
//! SHA-256: it runs on every file that is read anyway (loading the catalog to serve it, reusing
//! a file of the previous snapshot), where hashing costs little next to the read.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The file beside the published tree that carries the [`Manifest`].
pub(crate) const MANIFEST_FILE: &str = "manifest.json";

/// Every file of a snapshot (the published tree and `state.json`) with its size and hash.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// The format's version, 1.
    pub(crate) version: u32,
    /// By `/`-separated path under the snapshot's folder.
    pub(crate) files: BTreeMap<String, Entry>,
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Its length in bytes.
    pub(crate) size: u64,
    /// The SHA-256 of its bytes, lowercase hex.
    pub(crate) sha256: String,
}

/// A file of a snapshot that is not what its build wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged {
    /// Its path under the snapshot's folder (`api/v1/eggs/x.json`, or `manifest.json` itself).
    pub path: String,
    /// What is wrong, in words (`missing`, `12 bytes, expected 4096`, `content changed`).
    pub problem: String,
}

impl Entry {
    /// The entry of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> Entry {
        Entry {
            size: bytes.len() as u64,
            sha256: eggcat_wire::hex(&Sha256::digest(bytes)),
        }
    }
}

impl Manifest {
    /// Reads the manifest of the snapshot in `dir`; `Err` names what is wrong with it.
    pub(crate) fn read(dir: &Path) -> Result<Manifest, Damaged> {
        let damaged = |problem: String| Damaged {
            path: MANIFEST_FILE.to_owned(),
            problem,
        };
        let bytes = match fs::read(dir.join(MANIFEST_FILE)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(damaged("missing (the files cannot be checked)".to_owned()));
            }
            Err(e) => return Err(damaged(format!("unreadable: {e}"))),
        };
        serde_json::from_slice(&bytes).map_err(|e| damaged(format!("not a manifest: {e}")))
    }

    /// Whether `bytes`, read from `path`, are what the build wrote there: `None` when they are
    /// (or when the manifest does not list `path`: the caller decides whether that matters).
    pub(crate) fn verify(&self, path: &str, bytes: &[u8]) -> Option<Damaged> {
        let entry = self.files.get(path)?;
        let problem = if bytes.len() as u64 != entry.size {
            format!("{} bytes, expected {}", bytes.len(), entry.size)
        } else if Entry::of(bytes).sha256 != entry.sha256 {
            "content changed (SHA-256 differs)".to_owned()
        } else {
            return None;
        };
        Some(Damaged {
            path: path.to_owned(),
            problem,
        })
    }
}

/// The files of the snapshot in `dir` that are missing or not of the size its manifest says
/// (a missing or unreadable manifest is itself one damaged file). Stats each file, reads none.
pub(crate) fn check_sizes(dir: &Path) -> Vec<Damaged> {
    let manifest = match Manifest::read(dir) {
        Ok(m) => m,
        Err(damaged) => return vec![damaged],
    };
    manifest
        .files
        .iter()
        .filter_map(|(path, entry)| {
            let problem = match fs::metadata(dir.join(path)) {
                Ok(m) if m.is_file() && m.len() == entry.size => return None,
                Ok(m) if m.is_file() => format!("{} bytes, expected {}", m.len(), entry.size),
                Ok(_) => "not a file".to_owned(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => "missing".to_owned(),
                Err(e) => format!("unreadable: {e}"),
            };
            Some(Damaged {
                path: path.clone(),
                problem,
            })
        })
        .collect()
}

/// Calls `each` with the path, size and SHA-256 (lowercase hex) of every file the manifest of
/// the snapshot in `dir` lists, in path order, reading the manifest as a stream: nothing of it is
/// held but the entry at hand, so that a server opening a snapshot of 100,000 files does not
/// hold them twice. `Err` names what is wrong with the manifest.
pub(crate) fn each_entry(dir: &Path, each: &mut dyn FnMut(&str, u64, &str)) -> Result<(), Damaged> {
    use serde::de::DeserializeSeed;
    let damaged = |problem: String| Damaged {
        path: MANIFEST_FILE.to_owned(),
        problem,
    };
    let file = match fs::File::open(dir.join(MANIFEST_FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(damaged("missing (the files cannot be checked)".to_owned()));
        }
        Err(e) => return Err(damaged(format!("unreadable: {e}"))),
    };
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(file));
    Listing(each)
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| damaged(format!("not a manifest: {e}")))
}

/// The manifest's top level, streamed: its `files` go to the callback one by one.
struct Listing<'a>(&'a mut dyn FnMut(&str, u64, &str));

/// The manifest's `files`, streamed.
struct Listed<'a>(&'a mut dyn FnMut(&str, u64, &str));

impl<'de> serde::de::DeserializeSeed<'de> for Listing<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Listing<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a manifest object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let each = self.0;
        while let Some(key) = map.next_key::<String>()? {
            if key == "files" {
                map.next_value_seed(Listed(&mut *each))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Listed<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Listed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the manifest's files by path")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(path) = map.next_key::<String>()? {
            let entry: Entry = map.next_value()?;
            (self.0)(&path, entry.size, &entry.sha256);
        }
        Ok(())
    }
}
