//! A published snapshot being served: an index of its files in memory, their bodies on disk.
//!
//! Architecture invariant: the server holds what it needs to route and answer (each file's
//! path, length, ETag, and which precompressed forms it has), and of the bodies only a bounded
//! cache of those asked for most ([`crate::bodies`]: at most 16 MiB, whatever the catalog's
//! size). Any other body is read from the snapshot's folder when a request wants it, through
//! the page cache, which the kernel shares with every process and gives back under pressure. Opening a snapshot reads its
//! manifest, not its files, so a restart is ready in the time that takes; the files are then
//! checked against the manifest in the background ([`Snapshot::verify`]), and each file is
//! checked on its first read, so a damaged file is answered 404, never half a document.
//!
//! A snapshot is pinned while it is served ([`eggcat_store::Served::pin`]): the build
//! that prunes old snapshots leaves it alone until the last request holding it ends.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use eggcat_codings::Compressor;
use eggcat_store::{Damaged, Served};
use eggcat_wire::paths;
use eggcat_wire::{Removed, Report};
use http::HeaderValue;
use sha2::{Digest, Sha256};

use crate::bodies::Bodies;
use crate::encoding::Coding;
use crate::error::ServerError;

/// Bytes of a file's SHA-256 that make its ETag (and check its identity form on first read).
const ETAG_BYTES: usize = 10;
/// Bytes of a precompressed form's SHA-256 kept to check it on first read.
const CHECK_BYTES: usize = 8;

/// One file of the snapshot, as the index keeps it: 48 bytes plus its path.
#[derive(Debug)]
struct Entry {
    /// Its path, at `name..name + name_len` in [`Files::names`].
    name: u32,
    name_len: u32,
    /// Length of the identity form.
    size: u32,
    /// Length of each precompressed form, by [`eggcat_codings::Coding::index`]; 0 when absent
    /// (a stored form is never empty).
    forms: [u32; 2],
    /// The first bytes of the identity form's SHA-256.
    etag: [u8; ETAG_BYTES],
    /// The first bytes of each form's SHA-256.
    checks: [[u8; CHECK_BYTES]; 2],
    /// Which forms were read and found as the manifest says, by `1 << Coding::index`.
    verified: AtomicU8,
}

/// The files of a snapshot: where they are, and the index.
#[derive(Debug)]
struct Files {
    dir: PathBuf,
    /// Keeps the folder from being pruned while it is served.
    _pin: Option<fs::File>,
    /// Every path, one after another.
    names: String,
    /// Sorted by path.
    entries: Vec<Entry>,
    /// The bodies asked for most, in memory.
    bodies: Bodies,
}

impl Files {
    fn name(&self, entry: &Entry) -> &str {
        &self.names[entry.name as usize..(entry.name + entry.name_len) as usize]
    }

    fn find(&self, path: &str) -> Option<&Entry> {
        let at = self
            .entries
            .binary_search_by(|e| self.name(e).cmp(path))
            .ok()?;
        Some(&self.entries[at])
    }

    /// The size of `entry`'s form in `coding`, when it has one.
    fn size(entry: &Entry, coding: Coding) -> Option<u32> {
        match coding.stored() {
            None => Some(entry.size),
            Some(c) => Some(entry.forms[c.index()]).filter(|&n| n > 0),
        }
    }

    /// The body of `entry` in `coding` (a form it has), read from disk. The first read of each
    /// form checks its length and hash against the manifest's; later reads trust them (a
    /// snapshot's files are never written to once made current) and read exactly its length, so a
    /// truncated file is still found.
    fn read(&self, entry: &Entry, coding: Coding) -> Result<Bytes, Damaged> {
        let key = (entry.name, coding.index() as u8);
        if let Some(body) = self.bodies.get(key) {
            return Ok(body);
        }
        let (rel, size) = self.form(entry, coding);
        let damaged = |problem: String| Damaged {
            path: rel.clone(),
            problem,
        };
        let mut file = self.open(&rel)?;
        let bit = 1 << coding.index();
        let verified = entry.verified.load(Ordering::Relaxed) & bit != 0;
        // Read into spare capacity (no zeroing first); a verified form is read up to its length,
        // a form read for the first time whole, so that a longer file is found too.
        let mut body = Vec::with_capacity(size as usize + usize::from(!verified));
        let limit = if verified { u64::from(size) } else { u64::MAX };
        (&mut file)
            .take(limit)
            .read_to_end(&mut body)
            .map_err(|e| damaged(format!("unreadable: {e}")))?;
        if body.len() != size as usize {
            return Err(damaged(format!("{} bytes, expected {size}", body.len())));
        }
        if !verified {
            Files::verified(entry, coding, &Sha256::digest(&body)).map_err(damaged)?;
        }
        let body = Bytes::from(body);
        self.bodies.offer(key, &body);
        Ok(body)
    }

    /// Checks `entry`'s form in `coding` against the manifest without holding it: read through
    /// `buf` and hashed as it goes (the background check of every file, whose memory must not
    /// grow with the largest file).
    fn check(&self, entry: &Entry, coding: Coding, buf: &mut [u8]) -> Result<(), Damaged> {
        let (rel, size) = self.form(entry, coding);
        let damaged = |problem: String| Damaged {
            path: rel.clone(),
            problem,
        };
        let mut file = self.open(&rel)?;
        let (mut hasher, mut len) = (Sha256::new(), 0usize);
        loop {
            match file.read(buf) {
                Ok(0) => break,
                Ok(n) => {
                    hasher.update(&buf[..n]);
                    len += n;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(damaged(format!("unreadable: {e}"))),
            }
        }
        if len != size as usize {
            return Err(damaged(format!("{len} bytes, expected {size}")));
        }
        Files::verified(entry, coding, &hasher.finalize()).map_err(damaged)
    }

    /// The path and length of `entry`'s form in `coding`.
    fn form(&self, entry: &Entry, coding: Coding) -> (String, u32) {
        let name = self.name(entry);
        match coding.stored() {
            None => (name.to_owned(), entry.size),
            Some(c) => (c.path(name), entry.forms[c.index()]),
        }
    }

    /// The file at `rel` under the snapshot's folder, opened for reading.
    fn open(&self, rel: &str) -> Result<fs::File, Damaged> {
        fs::File::open(self.dir.join(rel)).map_err(|e| Damaged {
            path: rel.to_owned(),
            problem: match e.kind() {
                std::io::ErrorKind::NotFound => "missing".to_owned(),
                _ => format!("unreadable: {e}"),
            },
        })
    }

    /// Marks `entry`'s form in `coding` verified when `digest`, the SHA-256 of its bytes, begins
    /// as the manifest's; else what is wrong.
    fn verified(entry: &Entry, coding: Coding, digest: &[u8]) -> Result<(), String> {
        let expected = match coding.stored() {
            None => &entry.etag[..],
            Some(c) => &entry.checks[c.index()][..],
        };
        if digest[..expected.len()] != *expected {
            return Err("content changed (SHA-256 differs)".to_owned());
        }
        entry
            .verified
            .fetch_or(1 << coding.index(), Ordering::Relaxed);
        Ok(())
    }
}

/// A document held in memory rather than read from the snapshot: the OpenAPI document, and the
/// status document with a failed rebuild's note.
#[derive(Debug)]
pub(crate) struct Held {
    /// By [`Coding::index`]; identity always present.
    bodies: [Option<Bytes>; 3],
    etag: [u8; ETAG_BYTES],
    content_type: &'static str,
}

impl Held {
    /// `body`, with its precompressed forms when its media type compresses.
    pub(crate) fn new(body: Vec<u8>, content_type: &'static str) -> Held {
        let digest = Sha256::digest(&body);
        let mut bodies: [Option<Bytes>; 3] = Default::default();
        if paths::is_compressible(content_type) {
            let mut compressor = Compressor::new();
            for c in eggcat_codings::Coding::ALL {
                bodies[c.index()] = compressor.smaller(c, &body).map(Bytes::from);
            }
        }
        bodies[Coding::Identity.index()] = Some(Bytes::from(body));
        Held {
            bodies,
            etag: digest[..ETAG_BYTES]
                .try_into()
                .expect("a SHA-256 is 32 bytes"),
            content_type,
        }
    }

    /// It, as a document to answer with.
    pub(crate) fn doc(&self) -> Doc<'_> {
        Doc {
            source: Source::Held(self),
            modified: None,
        }
    }
}

/// A document found for a request: what it is answered with, its bodies read on demand.
pub(crate) struct Doc<'a> {
    source: Source<'a>,
    /// Its own modification time and `Last-Modified` value, when it differs from the snapshot's.
    modified: Option<(SystemTime, &'a HeaderValue)>,
}

enum Source<'a> {
    Held(&'a Held),
    File(&'a Files, &'a Entry),
}

impl Doc<'_> {
    /// The `Content-Type` it is served with.
    pub(crate) fn content_type(&self) -> HeaderValue {
        HeaderValue::from_static(match self.source {
            Source::Held(held) => held.content_type,
            Source::File(files, entry) => paths::media_type(files.name(entry)),
        })
    }

    /// Its own modification time (whole seconds) and `Last-Modified` value, when it has one.
    pub(crate) fn modified(&self) -> Option<(SystemTime, &HeaderValue)> {
        self.modified
    }

    /// Which codings exist, by [`Coding::index`].
    pub(crate) fn available(&self) -> [bool; 3] {
        Coding::ALL.map(|c| match self.source {
            Source::Held(held) => held.bodies[c.index()].is_some(),
            Source::File(_, entry) => Files::size(entry, c).is_some(),
        })
    }

    /// The strong ETag of its form in `coding` (one it has), quotes included: the first bytes of
    /// the identity form's SHA-256, and the coding's token for a compressed form.
    pub(crate) fn etag(&self, coding: Coding) -> HeaderValue {
        let digest = match self.source {
            Source::Held(held) => &held.etag,
            Source::File(_, entry) => &entry.etag,
        };
        let hex = eggcat_wire::hex(digest);
        let value = match coding.stored() {
            None => format!("\"{hex}\""),
            Some(c) => format!("\"{hex}-{}\"", c.token()),
        };
        HeaderValue::from_str(&value).expect("hex is visible ASCII")
    }

    /// The file of its form in `coding` (one it has), when it is a file of the snapshot.
    pub(crate) fn file(&self, coding: Coding) -> Option<PathBuf> {
        match self.source {
            Source::Held(_) => None,
            Source::File(files, entry) => Some(files.dir.join(files.form(entry, coding).0)),
        }
    }

    /// Its body in `coding` (one it has); a file found damaged is `Err`.
    pub(crate) fn body(&self, coding: Coding) -> Result<Bytes, Damaged> {
        match self.source {
            Source::Held(held) => Ok(held.bodies[coding.index()]
                .clone()
                .or_else(|| held.bodies[Coding::Identity.index()].clone())
                .expect("identity is always held")),
            Source::File(files, entry) => files.read(entry, coding),
        }
    }
}

/// The status document when it is not served as the file: with a failed rebuild's note
/// (held), or dated otherwise.
#[derive(Debug)]
struct Status {
    held: Option<Held>,
    modified: (SystemTime, HeaderValue),
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
    /// The catalog's distinct download URLs asked, likewise (the report's `downloads`), and
    /// those built from variables not asked.
    pub downloads: [usize; 4],
    /// When the build finished (whole seconds): `Last-Modified` of every document.
    pub built_at: SystemTime,
    pub(crate) last_modified: HeaderValue,
    files: Arc<Files>,
    /// The slugs that answer `410 Gone`, from [`paths::REMOVED`].
    removed: Arc<HashMap<String, Removed>>,
    status: Option<Arc<Status>>,
}

impl Snapshot {
    /// Opens the snapshot `served`: streams its manifest into the index (sizes, hashes, forms)
    /// and reads its status document and its list of removed eggs, no other file. Returns the
    /// files found damaged meanwhile; a snapshot without a readable manifest has its files
    /// hashed here instead (slow, and only until the build that starts at once repairs it).
    pub fn open(served: &Served) -> Result<(Snapshot, Vec<Damaged>), ServerError> {
        let pin = served
            .pin()
            .map_err(|e| tracing::warn!(snapshot = %served.id, error = %e, "cannot pin the snapshot: a build may prune it while it is served"))
            .ok();
        let mut index = Index::default();
        let mut damaged = Vec::new();
        let listed = served.each_listed(&mut |path, size, sha256| {
            if let Err(d) = index.add(path, size, sha256) {
                damaged.push(d);
            }
        });
        if let Err(manifest) = listed {
            tracing::error!(snapshot = %served.id, path = %manifest.path, problem = %manifest.problem, "damaged file in the current snapshot");
            damaged = vec![manifest];
            index = Index::default();
            for path in served.unlisted()? {
                if let Err(d) = index.add_unlisted(served.dir(), &path) {
                    damaged.push(d);
                }
            }
        }
        index.names.shrink_to_fit();
        index.entries.shrink_to_fit();
        let files_ = Files {
            dir: served.dir().to_path_buf(),
            _pin: pin,
            names: index.names,
            entries: index.entries,
            bodies: Bodies::new(),
        };
        let read_checked = |path: &str| -> Option<Result<Bytes, Damaged>> {
            let entry = files_.find(path)?;
            Some(files_.read(entry, Coding::Identity))
        };
        let status = match read_checked(paths::STATUS) {
            Some(Ok(body)) => body,
            Some(Err(d)) => {
                damaged.push(d);
                return Err(ServerError::NoStatus);
            }
            None => return Err(ServerError::NoStatus),
        };
        let report: Report = serde_json::from_slice(&status).map_err(ServerError::Status)?;
        drop(status);
        let built_at =
            humantime::parse_rfc3339(&report.finished_at).map_err(ServerError::FinishedAt)?;
        let built_at = UNIX_EPOCH
            + Duration::from_secs(
                built_at
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs(),
            );
        let removed: Vec<Removed> = match read_checked(paths::REMOVED) {
            Some(Ok(body)) => serde_json::from_slice(&body).map_err(ServerError::Removed)?,
            Some(Err(d)) => {
                damaged.push(d);
                Vec::new()
            }
            // A snapshot made current before removals were tracked.
            None => Vec::new(),
        };
        let removed = removed.into_iter().map(|r| (r.slug.clone(), r)).collect();
        let snapshot = Snapshot {
            id: served.id.clone(),
            eggs: report.eggs,
            images: [
                report.images.present,
                report.images.missing,
                report.images.unknown,
            ],
            downloads: [
                report.downloads.present,
                report.downloads.missing,
                report.downloads.unknown,
                report.downloads.not_checkable,
            ],
            built_at,
            last_modified: header(&httpdate::fmt_http_date(built_at)),
            files: Arc::new(files_),
            removed: Arc::new(removed),
            status: None,
        };
        Ok((snapshot, damaged))
    }

    /// Reads every form of every file not read yet and checks it against the manifest, until
    /// `go_on` says to stop (the snapshot is no longer served); returns the damaged ones. Run on
    /// the server's one checking thread after a snapshot is opened, through a buffer of 64 KiB:
    /// it also brings the files into the page cache.
    pub(crate) fn verify(&self, go_on: impl Fn() -> bool) -> Vec<Damaged> {
        let mut damaged = Vec::new();
        let mut buf = vec![0; 64 * 1024];
        for entry in &self.files.entries {
            if !go_on() {
                break;
            }
            for coding in Coding::ALL {
                let unread = entry.verified.load(Ordering::Relaxed) & (1 << coding.index()) == 0;
                if unread
                    && Files::size(entry, coding).is_some()
                    && let Err(d) = self.files.check(entry, coding, &mut buf)
                {
                    damaged.push(d);
                }
            }
        }
        damaged
    }

    /// How many files it serves, and the bytes of their identity, br and gzip forms on disk.
    pub fn payload(&self) -> (usize, [u64; 3]) {
        let mut bytes = [0u64; 3];
        for entry in &self.files.entries {
            for c in Coding::ALL {
                bytes[c.index()] += u64::from(Files::size(entry, c).unwrap_or(0));
            }
        }
        (self.files.entries.len(), bytes)
    }

    /// Bytes of its bodies held in memory.
    pub(crate) fn cached(&self) -> u64 {
        self.files.bodies.held()
    }

    /// Why `slug` answers `410 Gone`, when it was removed from the catalog.
    pub(crate) fn removed(&self, slug: &str) -> Option<&Removed> {
        self.removed.get(slug)
    }

    /// The document at `path` under the output root (`api/v1/...`).
    pub(crate) fn get(&self, path: &str) -> Option<Doc<'_>> {
        if path == paths::STATUS
            && let Some(status) = &self.status
        {
            let (at, header) = &status.modified;
            let modified = Some((*at, header));
            if let Some(held) = &status.held {
                return Some(Doc {
                    source: Source::Held(held),
                    modified,
                });
            }
            let entry = self.files.find(path)?;
            return Some(Doc {
                source: Source::File(&self.files, entry),
                modified,
            });
        }
        let entry = self.files.find(path)?;
        Some(Doc {
            source: Source::File(&self.files, entry),
            modified: None,
        })
    }

    /// Whether the snapshot has a file at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.files.find(path).is_some()
    }

    /// The uncompressed bytes of the file at `path`, read now.
    pub fn read(&self, path: &str) -> Option<Result<Bytes, Damaged>> {
        Some(self.get(path)?.body(Coding::Identity))
    }

    /// The same snapshot with another status document (the published one plus the last failed
    /// rebuild), modified at `at` (whole seconds).
    pub(crate) fn with_status(&self, status: Vec<u8>, at: SystemTime) -> Snapshot {
        self.with_status_of(Some(Held::new(status, "application/json")), at)
    }

    /// The same snapshot with its status document dated `at` (whole seconds) instead of the build
    /// time.
    pub(crate) fn with_status_dated(&self, at: SystemTime) -> Snapshot {
        self.with_status_of(None, at)
    }

    fn with_status_of(&self, held: Option<Held>, at: SystemTime) -> Snapshot {
        let mut next = self.clone();
        next.status = Some(Arc::new(Status {
            held,
            modified: (at, header(&httpdate::fmt_http_date(at))),
        }));
        next
    }
}

/// The index being made from a manifest streamed in path order.
#[derive(Default)]
struct Index {
    names: String,
    entries: Vec<Entry>,
}

impl Index {
    /// Adds the file at `path` of `size` bytes and SHA-256 `sha256` (hex): a file, or one of
    /// the precompressed forms of the file before it (its path, then `.br` or `.gz`).
    fn add(&mut self, path: &str, size: u64, sha256: &str) -> Result<(), Damaged> {
        let damaged = |problem: &str| Damaged {
            path: path.to_owned(),
            problem: problem.to_owned(),
        };
        let size =
            u32::try_from(size).map_err(|_| damaged("too large to serve (4 GiB or more)"))?;
        if let Some((base, coding)) = eggcat_codings::form_of(path)
            && let Some(at) = self.position(base)
        {
            // A form the manifest lists oddly is left out: the file is still served.
            if let (1.., Some(check)) = (size, unhex(sha256)) {
                let entry = &mut self.entries[at];
                entry.forms[coding.index()] = size;
                entry.checks[coding.index()] = check;
            }
            return Ok(());
        }
        let etag = unhex(sha256).ok_or_else(|| damaged("its manifest entry has no SHA-256"))?;
        self.push(path, size, etag, 0)
    }

    /// Adds the file at `path` of a snapshot in `dir` without a readable manifest: read and
    /// hashed now, served without forms (nothing says they are intact).
    fn add_unlisted(&mut self, dir: &std::path::Path, path: &str) -> Result<(), Damaged> {
        let damaged = |problem: String| Damaged {
            path: path.to_owned(),
            problem,
        };
        if eggcat_codings::form_of(path).is_some_and(|(base, _)| self.position(base).is_some()) {
            return Ok(());
        }
        let bytes = fs::read(dir.join(path)).map_err(|e| damaged(format!("unreadable: {e}")))?;
        let size = u32::try_from(bytes.len())
            .map_err(|_| damaged("too large to serve (4 GiB or more)".to_owned()))?;
        let digest = Sha256::digest(&bytes);
        let etag = digest[..ETAG_BYTES]
            .try_into()
            .expect("a SHA-256 is 32 bytes");
        self.push(path, size, etag, 1 << Coding::Identity.index())
    }

    fn push(
        &mut self,
        path: &str,
        size: u32,
        etag: [u8; ETAG_BYTES],
        verified: u8,
    ) -> Result<(), Damaged> {
        let too_many = || Damaged {
            path: path.to_owned(),
            problem: "past the 4 GiB of paths the index holds".to_owned(),
        };
        let name = u32::try_from(self.names.len()).map_err(|_| too_many())?;
        let name_len = u32::try_from(path.len()).map_err(|_| too_many())?;
        // The index is searched by path: it takes the files in path order, as a manifest (and
        // a listing of the tree) gives them.
        if let Some(last) = self.entries.last()
            && self.names[last.name as usize..] >= *path
        {
            return Err(Damaged {
                path: path.to_owned(),
                problem: "listed out of order in the manifest".to_owned(),
            });
        }
        self.names.push_str(path);
        self.entries.push(Entry {
            name,
            name_len,
            size,
            forms: [0; 2],
            etag,
            checks: [[0; CHECK_BYTES]; 2],
            verified: AtomicU8::new(verified),
        });
        Ok(())
    }

    /// Where the file at `path` is among the entries added so far (a form comes right after its
    /// file in path order, but other files may come between: `x.json-a` sorts before `x.json.br`).
    fn position(&self, path: &str) -> Option<usize> {
        let name = |e: &Entry| &self.names[e.name as usize..(e.name + e.name_len) as usize];
        self.entries.binary_search_by(|e| name(e).cmp(path)).ok()
    }
}

/// The first `N` bytes of a lowercase hex string of at least `2 * N` digits.
fn unhex<const N: usize>(hex: &str) -> Option<[u8; N]> {
    let digits = hex.as_bytes().get(..2 * N)?;
    let mut out = [0u8; N];
    for (byte, pair) in out.iter_mut().zip(digits.chunks(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

fn header(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).expect("ETags and dates are visible ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_prefixes_decode() {
        assert_eq!(unhex::<2>("0aff33"), Some([0x0a, 0xff]));
        assert_eq!(unhex::<2>("0af"), None);
        assert_eq!(unhex::<1>("zz"), None);
    }
}
