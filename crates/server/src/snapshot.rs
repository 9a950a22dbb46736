//! A published snapshot in memory: every document with its precompressed variants and ETags.
//!
//! Architecture invariant: nothing is read from disk or compressed per request. A snapshot is
//! loaded whole, compressed once, and then swapped in; a document whose bytes did not change
//! since the previous snapshot reuses that snapshot's compressed variants.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use eggcat_catalog::paths;
use eggcat_catalog::wire::{Removed, Report};
use eggcat_store::SnapshotFiles;
use http::HeaderValue;
use sha2::{Digest, Sha256};

use crate::encoding::{Coding, Compressor, MIN_COMPRESS_SIZE};
use crate::error::ServerError;

/// One representation of a document.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    pub(crate) body: Bytes,
    /// Strong ETag, quotes included.
    pub(crate) etag: HeaderValue,
}

/// A document and its variants, indexed by [`Coding::index`]; identity is always present.
#[derive(Debug, Clone)]
pub struct Document {
    digest: [u8; 32],
    /// `Content-Type`, from the path's extension.
    content_type: HeaderValue,
    variants: [Option<Variant>; 4],
    /// Its own modification time, when it differs from the snapshot's build time.
    modified: Option<(SystemTime, HeaderValue)>,
}

impl Document {
    /// Compresses `body`, when its media type compresses ([`paths::is_compressible`]), into every
    /// coding that makes it smaller; `content_type` is a media
    /// type from [`paths::media_type`].
    pub(crate) fn new(body: Vec<u8>, content_type: &'static str) -> Document {
        let digest = Sha256::digest(&body).into();
        Document::hashed(body, digest, content_type, &mut Compressor::new())
    }

    /// [`Document::new`], given the SHA-256 of `body`.
    fn hashed(
        mut body: Vec<u8>,
        digest: [u8; 32],
        content_type: &'static str,
        compressor: &mut Compressor,
    ) -> Document {
        let hex = eggcat_catalog::hex(&digest[..10]);
        let mut variants: [Option<Variant>; 4] = Default::default();
        // `Bytes::from(Vec)` keeps the vector's whole allocation for as long as the snapshot is
        // served: the body is cut to its length (the compressed ones already are).
        body.shrink_to_fit();
        if body.len() >= MIN_COMPRESS_SIZE && paths::is_compressible(content_type) {
            for coding in [Coding::Brotli, Coding::Zstd, Coding::Gzip] {
                let packed = compressor.compress(coding, &body);
                if packed.len() < body.len() {
                    let etag = format!("\"{hex}-{}\"", coding.token());
                    variants[coding.index()] = Some(Variant {
                        body: Bytes::from(packed),
                        etag: header(&etag),
                    });
                }
            }
        }
        variants[Coding::Identity.index()] = Some(Variant {
            body: Bytes::from(body),
            etag: header(&format!("\"{hex}\"")),
        });
        Document {
            digest,
            content_type: HeaderValue::from_static(content_type),
            variants,
            modified: None,
        }
    }

    /// The `Content-Type` it is served with.
    pub(crate) fn content_type(&self) -> &HeaderValue {
        &self.content_type
    }

    /// Its own modification time (whole seconds) and `Last-Modified` value, when it has one.
    pub(crate) fn modified(&self) -> Option<(SystemTime, &HeaderValue)> {
        self.modified.as_ref().map(|(t, h)| (*t, h))
    }

    /// Which codings exist, by [`Coding::index`].
    pub(crate) fn available(&self) -> [bool; 4] {
        [0, 1, 2, 3].map(|i| self.variants[i].is_some())
    }

    /// The variant for `coding` (identity when that coding does not exist).
    pub(crate) fn variant(&self, coding: Coding) -> &Variant {
        self.variants[coding.index()]
            .as_ref()
            .or(self.variants[Coding::Identity.index()].as_ref())
            .expect("identity is always present")
    }

    /// The uncompressed bytes.
    pub fn identity(&self) -> &Bytes {
        &self.variant(Coding::Identity).body
    }
}

fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).expect("ETags and dates are visible ASCII")
}

/// A snapshot ready to serve.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The build id.
    pub id: String,
    /// Eggs in the catalog.
    pub eggs: usize,
    /// The catalog's distinct image references by what their registries said: present,
    /// missing, unknown (the report's `images`).
    pub images: [usize; 3],
    /// When the build finished (whole seconds): `Last-Modified` of every document.
    pub built_at: SystemTime,
    pub(crate) last_modified: HeaderValue,
    /// The lists and the report, by path under the output root.
    docs: HashMap<String, Arc<Document>>,
    /// The egg documents, by slug (looked up without building a path per request).
    egg_docs: HashMap<String, Arc<Document>>,
    /// The slugs that answer `410 Gone`, from [`paths::REMOVED`].
    removed: HashMap<String, Removed>,
}

impl Snapshot {
    /// Loads a published tree; documents identical to `previous`'s reuse its variants.
    pub fn load(
        files: SnapshotFiles,
        previous: Option<&Snapshot>,
    ) -> Result<Snapshot, ServerError> {
        Snapshot::load_each(files.id, files.files.into_iter().map(Ok), previous)
    }

    /// [`Snapshot::load`] from files given one at a time: the body of a document identical to
    /// `previous`'s is dropped as soon as it is hashed, and a new one is compressed at once, so
    /// that a rebuild's swap holds the catalog being served plus what changed, never a second
    /// copy of the whole tree (what kept `serve`'s resident memory growing, bench/soak.sh).
    pub fn load_each(
        id: String,
        files: impl IntoIterator<Item = Result<(String, Vec<u8>), ServerError>>,
        previous: Option<&Snapshot>,
    ) -> Result<Snapshot, ServerError> {
        // Compression runs on this one thread: a load is rare (startup, and the changed documents
        // of a rebuild), one thread bounds its peak memory (each encoder allocates its tables
        // anew), and the other cores stay with the HTTP workers, which keep serving meanwhile.
        let mut compressor = Compressor::new();
        let (mut docs, mut egg_docs) = (HashMap::new(), HashMap::new());
        for file in files {
            let (path, body) = file?;
            let digest: [u8; 32] = Sha256::digest(&body).into();
            let doc = match previous
                .and_then(|p| p.get(&path))
                .filter(|d| d.digest == digest)
            {
                Some(same) => Arc::clone(same),
                None => {
                    let content_type = paths::media_type(&path);
                    Arc::new(Document::hashed(
                        body,
                        digest,
                        content_type,
                        &mut compressor,
                    ))
                }
            };
            match egg_slug(&path) {
                Some(slug) => egg_docs.insert(slug.to_owned(), doc),
                None => docs.insert(path, doc),
            };
        }

        let status = docs.get(paths::STATUS).ok_or(ServerError::NoStatus)?;
        let report: Report =
            serde_json::from_slice(status.identity()).map_err(ServerError::Status)?;
        let built_at =
            humantime::parse_rfc3339(&report.finished_at).map_err(ServerError::FinishedAt)?;
        let built_at = UNIX_EPOCH
            + Duration::from_secs(
                built_at
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs(),
            );
        let removed: Vec<Removed> = match docs.get(paths::REMOVED) {
            Some(doc) => serde_json::from_slice(doc.identity()).map_err(ServerError::Removed)?,
            // A snapshot published before removals were tracked.
            None => Vec::new(),
        };
        let removed = removed.into_iter().map(|r| (r.slug.clone(), r)).collect();
        Ok(Snapshot {
            id,
            eggs: report.eggs,
            images: [
                report.images.present,
                report.images.missing,
                report.images.unknown,
            ],
            built_at,
            last_modified: header(&httpdate::fmt_http_date(built_at)),
            docs,
            egg_docs,
            removed,
        })
    }

    /// Why `slug` answers `410 Gone`, when it was removed from the catalog.
    /// How many files it holds, and the bytes of their bodies in identity, br, zstd and gzip:
    /// most of the server's memory.
    pub fn payload(&self) -> (usize, [usize; 4]) {
        let mut bytes = [0; 4];
        for doc in self.docs.values().chain(self.egg_docs.values()) {
            let order = [Coding::Identity, Coding::Brotli, Coding::Zstd, Coding::Gzip];
            for (sum, coding) in bytes.iter_mut().zip(order) {
                *sum += doc.variants[coding.index()]
                    .as_ref()
                    .map_or(0, |v| v.body.len());
            }
        }
        (self.docs.len() + self.egg_docs.len(), bytes)
    }

    pub(crate) fn removed(&self, slug: &str) -> Option<&Removed> {
        self.removed.get(slug)
    }

    /// The document at `path` under the output root (`api/v1/...`).
    pub fn get(&self, path: &str) -> Option<&Arc<Document>> {
        match egg_slug(path) {
            Some(slug) => self.egg_docs.get(slug),
            None => self.docs.get(path),
        }
    }

    /// The document of the egg `slug`.
    pub fn egg(&self, slug: &str) -> Option<&Arc<Document>> {
        self.egg_docs.get(slug)
    }

    /// The same snapshot with another status document (the published one plus the last failed
    /// rebuild), modified at `at` (whole seconds).
    pub(crate) fn with_status(&self, status: Vec<u8>, at: SystemTime) -> Snapshot {
        self.with_status_doc(Document::new(status, "application/json"), at)
    }

    /// The same snapshot with its status document dated `at` (whole seconds) instead of the build
    /// time.
    pub(crate) fn with_status_dated(&self, at: SystemTime) -> Snapshot {
        match self.docs.get(paths::STATUS) {
            Some(status) => self.with_status_doc(Document::clone(status), at),
            None => self.clone(),
        }
    }

    fn with_status_doc(&self, mut status: Document, at: SystemTime) -> Snapshot {
        let mut next = self.clone();
        status.modified = Some((at, header(&httpdate::fmt_http_date(at))));
        next.docs.insert(paths::STATUS.to_owned(), Arc::new(status));
        next
    }
}

/// The slug of an egg document's path (`api/v1/eggs/<slug>.json`, not the `_` lists).
fn egg_slug(path: &str) -> Option<&str> {
    let name = path
        .strip_prefix(paths::EGGS_DIR)?
        .strip_prefix('/')?
        .strip_suffix(".json")?;
    (!name.starts_with('_') && !name.contains('/')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> SnapshotFiles {
        SnapshotFiles {
            id: "b1".to_owned(),
            files: pairs
                .iter()
                .map(|(p, body)| ((*p).to_owned(), body.as_bytes().to_vec()))
                .collect(),
            damaged: Vec::new(),
        }
    }

    #[test]
    fn a_tree_without_a_readable_status_is_refused_with_the_reason() {
        let missing = Snapshot::load(files(&[]), None).expect_err("no status document");
        assert!(matches!(missing, ServerError::NoStatus));
        assert_eq!(missing.to_string(), "no status document");
        let broken = Snapshot::load(files(&[(paths::STATUS, "{")]), None).expect_err("not JSON");
        assert!(matches!(broken, ServerError::Status(_)));
        assert!(
            broken.to_string().starts_with("status document: EOF"),
            "{broken}"
        );
    }
}
