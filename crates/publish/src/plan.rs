//! The pure planner: what a publish must upload, in which order, what it may skip, and what it
//! deletes. It reads no clock and does no IO, so every rule of the order and of the comparison
//! is tested here with plain values.
//!
//! The order is what keeps a reader safe while a publish runs: every document first, then the
//! lists that name documents (the index, the names, the listing pages, the status last), then
//! the deletions. A client that reads the index at any moment finds every slug it names.

use std::collections::BTreeMap;

use crate::objects::LocalObject;

/// One object as the store's listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteObject {
    /// The key, with the prefix.
    pub key: String,
    /// The size in bytes.
    pub size: u64,
    /// The ETag as listed, quotes removed. For a single-part put it is the MD5 of the bytes.
    pub e_tag: Option<String>,
    /// The `sha256` metadata, when it was read (only for objects whose ETag is not an MD5).
    pub sha256: Option<String>,
}

/// The work of one publish, in the order it must run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Documents: everything that no other file names by slug. Uploaded first, concurrently.
    pub documents: Vec<String>,
    /// Lists, in their upload order (one at a time), after every document.
    pub lists: Vec<String>,
    /// Objects already up to date, not uploaded.
    pub skipped: Vec<String>,
    /// Keys to delete, last, sorted.
    pub deletes: Vec<String>,
}

impl Plan {
    /// How many objects the plan uploads.
    pub fn upload_count(&self) -> usize {
        self.documents.len() + self.lists.len()
    }
}

/// Plans a publish of `local` (keyed by object key) over `remote` (the listing under the same
/// prefix). With `force`, every object is uploaded. Lists go in their `list_rank` order.
pub fn plan(local: &BTreeMap<String, LocalObject>, remote: &[RemoteObject], force: bool) -> Plan {
    let remote: BTreeMap<&str, &RemoteObject> =
        remote.iter().map(|r| (r.key.as_str(), r)).collect();
    let mut out = Plan::default();
    let mut lists: Vec<(usize, &str)> = Vec::new();
    for (key, object) in local {
        if !force
            && remote
                .get(key.as_str())
                .is_some_and(|r| up_to_date(object, r))
        {
            out.skipped.push(key.clone());
        } else if let Some(rank) = object.list_rank {
            lists.push((rank, key));
        } else {
            out.documents.push(key.clone());
        }
    }
    lists.sort();
    out.lists = lists.into_iter().map(|(_, k)| k.to_owned()).collect();
    out.deletes = remote
        .keys()
        .filter(|k| !local.contains_key(**k))
        .map(|k| (*k).to_owned())
        .collect();
    out
}

/// Whether the remote object holds `local`'s bytes: the same size, and the ETag equal to the
/// MD5 of the bytes, or else (a store whose ETag is not an MD5) the stored SHA-256 equal.
fn up_to_date(local: &LocalObject, remote: &RemoteObject) -> bool {
    if remote.size != local.bytes.len() as u64 {
        return false;
    }
    match remote.e_tag.as_deref() {
        Some(tag) if is_md5(tag) => tag.eq_ignore_ascii_case(&local.md5),
        _ => remote.sha256.as_deref() == Some(local.sha256.as_str()),
    }
}

/// Whether an ETag is a plain MD5 (32 hex digits), not a multipart or encrypted object's tag.
pub fn is_md5(tag: &str) -> bool {
    tag.len() == 32 && tag.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::objects;
    use crate::target::Target;

    fn local(files: &[(&str, &str)]) -> BTreeMap<String, LocalObject> {
        let files = files
            .iter()
            .map(|(p, b)| ((*p).to_owned(), b.as_bytes().to_vec()))
            .collect();
        objects(&files, "pre", &Target::new("s3://eggs/pre"))
    }

    fn remote_of(local: &BTreeMap<String, LocalObject>) -> Vec<RemoteObject> {
        local
            .values()
            .map(|o| RemoteObject {
                key: o.key.clone(),
                size: o.bytes.len() as u64,
                e_tag: Some(o.md5.clone()),
                sha256: None,
            })
            .collect()
    }

    const TREE: &[(&str, &str)] = &[
        ("api/v1/eggs/_index.json", "[\"a\",\"b\"]"),
        ("api/v1/eggs/_names.json", "[\"A\"]"),
        ("api/v1/_status.json", "{}"),
        ("api/v1/eggs/a.json", "{\"a\":1}"),
        ("api/v1/eggs/a/pelican.yaml", "a: 1\n"),
        ("api/v1/eggs/b.json", "{\"b\":1}"),
        ("index.html", "<p>"),
        ("assets/site.css", "p{}"),
    ];

    #[test]
    fn first_publish_uploads_documents_then_lists_with_status_last() {
        let l = local(TREE);
        let p = plan(&l, &[], false);
        assert!(p.skipped.is_empty() && p.deletes.is_empty());
        assert_eq!(p.upload_count(), l.len());
        // Every document, and the per-egg aliases, come before any list.
        for d in [
            "pre/api/v1/eggs/a.json",
            "pre/api/v1/eggs/a",
            "pre/assets/site.css",
        ] {
            assert!(
                p.documents.iter().any(|k| k == d),
                "{d} in {:?}",
                p.documents
            );
        }
        let index = p
            .lists
            .iter()
            .position(|k| k == "pre/api/v1/eggs/_index.json");
        let alias = p.lists.iter().position(|k| k == "pre/api/v1/eggs");
        assert!(index.is_some() && alias.is_some(), "{:?}", p.lists);
        assert_eq!(
            p.lists.last().map(String::as_str),
            Some("pre/api/v1/_status.json")
        );
        assert!(p.lists.iter().any(|k| k == "pre/index.html"));
    }

    #[test]
    fn nothing_changed_uploads_nothing_and_force_uploads_all() {
        let l = local(TREE);
        let r = remote_of(&l);
        let p = plan(&l, &r, false);
        assert_eq!(p.upload_count(), 0);
        assert_eq!(p.skipped.len(), l.len());
        let forced = plan(&l, &r, true);
        assert_eq!(forced.upload_count(), l.len());
        assert!(forced.skipped.is_empty());
    }

    #[test]
    fn a_changed_egg_uploads_its_files_and_the_lists_that_changed() {
        let before = local(TREE);
        let mut tree = TREE.to_vec();
        tree[3] = ("api/v1/eggs/a.json", "{\"a\":2}");
        tree[2] = ("api/v1/_status.json", "{\"x\":1}");
        let p = plan(&local(&tree), &remote_of(&before), false);
        assert_eq!(p.documents, ["pre/api/v1/eggs/a", "pre/api/v1/eggs/a.json"]);
        assert_eq!(p.lists, ["pre/api/v1/_status.json"]);
        assert!(p.deletes.is_empty());
    }

    #[test]
    fn a_removed_egg_is_deleted_and_same_size_other_bytes_are_uploaded() {
        let before = local(TREE);
        let tree: Vec<_> = TREE
            .iter()
            .filter(|(p, _)| !p.contains("/b"))
            .copied()
            .collect();
        let p = plan(&local(&tree), &remote_of(&before), false);
        assert_eq!(p.deletes, ["pre/api/v1/eggs/b", "pre/api/v1/eggs/b.json"]);
        let mut tree = TREE.to_vec();
        tree[6] = ("index.html", "<b>");
        let p = plan(&local(&tree), &remote_of(&before), false);
        assert_eq!(p.lists, ["pre/index.html"]);
    }

    #[test]
    fn a_store_without_md5_etags_is_compared_by_the_stored_sha256() {
        let l = local(TREE);
        let mut r = remote_of(&l);
        for o in &mut r {
            o.e_tag = Some("abc-2".into());
        }
        assert_eq!(
            plan(&l, &r, false).upload_count(),
            l.len(),
            "no way to tell: upload"
        );
        for (o, lo) in r.iter_mut().zip(l.values()) {
            o.sha256 = Some(lo.sha256.clone());
        }
        assert_eq!(plan(&l, &r, false).upload_count(), 0);
        assert!(is_md5("0123456789abcdef0123456789ABCDEF"));
        assert!(!is_md5("0123456789abcdef0123456789abcdef-2"));
    }
}
