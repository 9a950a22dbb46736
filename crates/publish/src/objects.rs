//! From the snapshot's files to the objects a bucket holds: each file under the prefix with its
//! Content-Type, Cache-Control, SHA-256 and MD5, plus the alias objects for the API's
//! extensionless paths and the 404 problem document. Pure: no IO.
//!
//! Aliases: `eggcat serve` answers `/api/v1/eggs` with the index and `/api/v1/eggs/{slug}` with
//! the egg's document. A bucket has no rewrites, but it can hold an object under each of those
//! keys beside the `api/v1/eggs/...` keys (S3, R2 and moto allow a key that is also a "folder").
//! MinIO, Garage and other file-backed stores cannot hold `a/b` beside `a/b/c`, so a publish to
//! them turns the alias objects off ([`Target::aliases`]) and leaves the aliases to the edge
//! rules, as it leaves what a bucket cannot do at all (`?fields=name`, `410 Gone`, `/` to
//! `index.html`) to [`crate::rules`].
//!
//! The 404 problem document ([`NOT_FOUND_KEY`]) is not a snapshot file: it is there for a CDN's
//! custom error response (a bucket answers a missing key with its own XML, or 403 when private).

use std::collections::BTreeMap;

use bytes::Bytes;
use eggcat_wire::paths;
use md5::Digest;

use crate::target::Target;

/// The key (under the prefix) of the 404 problem document, for a CDN's custom error response.
/// The underscore keeps it apart from every path of the catalog.
pub const NOT_FOUND_KEY: &str = "_errors/404.json";

/// Errors are never cached, as with `eggcat serve`: a missing egg may appear a minute later.
const NOT_FOUND_CACHE_CONTROL: &str = "no-store";

/// One object to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalObject {
    /// The key in the bucket, with the prefix.
    pub key: String,
    /// The snapshot file it holds (for an alias, the file it repeats).
    pub source: String,
    pub bytes: Bytes,
    pub content_type: &'static str,
    pub cache_control: String,
    /// Lowercase hex SHA-256 of the bytes, stored as the `sha256` metadata.
    pub sha256: String,
    /// Lowercase hex MD5 of the bytes: the ETag S3 gives a single-part put.
    pub md5: String,
    /// For a list, its place in the upload order (lower first); `None` for a document.
    pub list_rank: Option<usize>,
}

/// The objects for a snapshot's `files` under `prefix` (the target's, no leading or trailing
/// `/`; empty for the bucket's root), keyed by object key: every file, its alias unless
/// `target.aliases` is off, and the 404 problem document.
pub fn objects(
    files: &BTreeMap<String, Vec<u8>>,
    prefix: &str,
    target: &Target,
) -> BTreeMap<String, LocalObject> {
    let cache = &target.cache_control;
    let mut out = BTreeMap::new();
    for (path, bytes) in files {
        let bytes = Bytes::from(bytes.clone());
        let (sha256, md5) = digests(&bytes);
        let mut add = |key_path: &str| {
            let rank = list_rank(path);
            let object = LocalObject {
                key: key(prefix, key_path),
                source: path.clone(),
                bytes: bytes.clone(),
                content_type: paths::media_type(path),
                cache_control: match rank {
                    Some(_) => cache.lists.clone(),
                    None if paths::is_immutable(path) => paths::IMMUTABLE_CACHE_CONTROL.to_owned(),
                    None => cache.documents.clone(),
                },
                sha256: sha256.clone(),
                md5: md5.clone(),
                list_rank: rank,
            };
            out.insert(object.key.clone(), object);
        };
        add(path);
        if target.aliases
            && let Some(alias) = alias(path)
        {
            add(&alias);
        }
    }
    let bytes = Bytes::from(crate::rules::not_found_problem());
    let (sha256, md5) = digests(&bytes);
    let not_found = LocalObject {
        key: key(prefix, NOT_FOUND_KEY),
        source: NOT_FOUND_KEY.to_owned(),
        bytes,
        content_type: "application/problem+json",
        cache_control: NOT_FOUND_CACHE_CONTROL.to_owned(),
        sha256,
        md5,
        list_rank: None,
    };
    out.insert(not_found.key.clone(), not_found);
    out
}

/// The extensionless alias of a published path, if the API has one: the index is also
/// `api/v1/eggs`, and an egg document `api/v1/eggs/{slug}.json` is also `api/v1/eggs/{slug}`.
pub fn alias(path: &str) -> Option<String> {
    if path == paths::INDEX {
        return Some(paths::EGGS_DIR.to_owned());
    }
    let name = path.strip_prefix(paths::EGGS_DIR)?.strip_prefix('/')?;
    let slug = name.strip_suffix(".json")?;
    // `_index.json` and the other underscore files are catalog documents, not eggs.
    let is_slug = !slug.is_empty()
        && !slug.starts_with('_')
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    is_slug.then(|| format!("{}/{slug}", paths::EGGS_DIR))
}

/// A list's place in the upload order: its place in [`paths::LISTS`] (which ends with the
/// status); `None` for a document.
fn list_rank(path: &str) -> Option<usize> {
    paths::LISTS.iter().position(|l| *l == path)
}

/// `prefix/path`, or `path` for the root.
pub fn key(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

/// The lowercase hex SHA-256 and MD5 of `bytes`.
fn digests(bytes: &[u8]) -> (String, String) {
    (
        hex(&sha2::Sha256::digest(bytes)),
        hex(&md5::Md5::digest(bytes)),
    )
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{DEFAULT_DOCUMENTS_CACHE_CONTROL, DEFAULT_LISTS_CACHE_CONTROL};

    #[test]
    fn aliases_are_the_index_and_egg_documents_only() {
        assert_eq!(alias(paths::INDEX).as_deref(), Some("api/v1/eggs"));
        assert_eq!(
            alias("api/v1/eggs/mc-paper.json").as_deref(),
            Some("api/v1/eggs/mc-paper")
        );
        for none in [
            paths::NAMES,
            paths::REMOVED,
            paths::SUMMARY,
            "api/v1/eggs/x/pelican.json",
            "api/v1/eggs/x.yaml",
            "api/v1/compat/pelican.json",
            "index.html",
        ] {
            assert_eq!(alias(none), None, "{none}");
        }
    }

    #[test]
    fn objects_carry_types_hashes_and_cache_control() {
        let files: BTreeMap<String, Vec<u8>> = [
            (paths::INDEX.to_owned(), b"[]".to_vec()),
            ("api/v1/eggs/a.json".to_owned(), b"".to_vec()),
            ("api/v1/eggs/a/pelican.yaml".to_owned(), b"a: 1\n".to_vec()),
        ]
        .into();
        let o = objects(&files, "", &Target::new("s3://eggs"));
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "_errors/404.json",
                "api/v1/eggs",
                "api/v1/eggs/_index.json",
                "api/v1/eggs/a",
                "api/v1/eggs/a.json",
                "api/v1/eggs/a/pelican.yaml"
            ]
        );
        let empty = &o["api/v1/eggs/a"];
        // The well-known digests of the empty string.
        assert_eq!(empty.md5, "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            empty.sha256,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(empty.content_type, "application/json");
        assert_eq!(empty.cache_control, DEFAULT_DOCUMENTS_CACHE_CONTROL);
        assert_eq!(o["api/v1/eggs"].cache_control, DEFAULT_LISTS_CACHE_CONTROL);
        assert_eq!(o["api/v1/eggs"].list_rank, Some(0));
        assert_eq!(
            o["api/v1/eggs/a/pelican.yaml"].content_type,
            "application/yaml"
        );
        assert_eq!(key("p/q", "x"), "p/q/x");
    }

    #[test]
    fn aliases_off_uploads_no_key_that_is_also_a_folder() {
        // MinIO and Garage refuse `api/v1/eggs/a` beside `api/v1/eggs/a/pelican.yaml`.
        let files: BTreeMap<String, Vec<u8>> = [
            (paths::INDEX.to_owned(), b"[]".to_vec()),
            ("api/v1/eggs/a.json".to_owned(), b"{}".to_vec()),
            ("api/v1/eggs/a/pelican.yaml".to_owned(), b"a: 1\n".to_vec()),
        ]
        .into();
        let target = Target {
            aliases: false,
            ..Target::new("s3://eggs/cat")
        };
        let o = objects(&files, "cat", &target);
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "cat/_errors/404.json",
                "cat/api/v1/eggs/_index.json",
                "cat/api/v1/eggs/a.json",
                "cat/api/v1/eggs/a/pelican.yaml"
            ]
        );
        for k in &keys {
            assert!(!keys.iter().any(|o| o.starts_with(&format!("{k}/"))), "{k}");
        }
    }

    #[test]
    fn the_404_problem_document_is_uploaded_uncached() {
        let o = objects(&BTreeMap::new(), "p", &Target::new("s3://eggs/p"));
        let not_found = &o["p/_errors/404.json"];
        assert_eq!(not_found.bytes, crate::rules::not_found_problem());
        assert_eq!(not_found.content_type, "application/problem+json");
        assert_eq!(not_found.cache_control, "no-store");
        assert_eq!(not_found.list_rank, None);
    }
}
