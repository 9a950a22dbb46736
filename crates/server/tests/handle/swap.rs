//! Swapping the snapshot being served (ARCHITECTURE.md, "The server never serves a half-built
//! catalog"): each request answers from the one snapshot it loaded, whole, even while another
//! is installed; a snapshot a request still holds is pinned, so pruning leaves it alone; a
//! snapshot the server cannot open leaves the one being served in place.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use eggcat_store::Store;
use eggcat_wire::paths;
use http::StatusCode;

use crate::support::*;

/// A file over the 1 MiB the body cache holds, read from its snapshot's folder per request.
/// An image: the build stores no form of it (a compressed form of a file this repetitive would
/// be small enough for the cache), and writing the snapshot compresses nothing this large.
const LARGE: &str = "icons/large.png";

fn large_tree(tag: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = tree(tag);
    let line = format!("pixels of catalog {tag}\n");
    let mut large = b"\x89PNG\r\n\x1a\n".to_vec();
    while large.len() < 1_050_000 {
        large.extend_from_slice(line.as_bytes());
    }
    files.insert(LARGE.to_owned(), large);
    files
}

/// What a client may get for one (path, coding): each catalog's body and the ETag it goes with.
struct Expected {
    path: &'static str,
    coding: Option<&'static str>,
    versions: Vec<(Vec<u8>, String)>,
}

#[test]
fn requests_racing_swaps_each_get_one_catalogs_document_whole_with_its_own_etag() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [tmp.path().join("a"), tmp.path().join("b")];
    let snapshots: Vec<_> = ["a", "b"]
        .iter()
        .zip(&dirs)
        .map(|(tag, data)| save(data, large_tree(tag)))
        .collect();
    let mut expected = Vec::new();
    for (path, file, codings) in [
        ("/icons/large.png", LARGE, &[None][..]),
        (
            "/api/v1/eggs/paper",
            "api/v1/eggs/paper.json",
            &[None, Some("br"), Some("gzip")],
        ),
        (
            "/api/v1/eggs",
            paths::INDEX,
            &[None, Some("br"), Some("gzip")],
        ),
    ] {
        for &coding in codings {
            let versions = snapshots
                .iter()
                .map(|dir| {
                    let identity = std::fs::read(dir.join(file)).unwrap();
                    let body = match coding {
                        None => identity.clone(),
                        Some("br") => std::fs::read(dir.join(format!("{file}.br"))).unwrap(),
                        Some(_) => std::fs::read(dir.join(format!("{file}.gz"))).unwrap(),
                    };
                    (body, etag_of(&identity, coding))
                })
                .collect();
            expected.push(Expected {
                path,
                coding,
                versions,
            });
        }
    }
    let app = app();
    install(&app, &dirs[0]);
    let stop = AtomicBool::new(false);
    let answered = AtomicUsize::new(0);
    let seen = [AtomicUsize::new(0), AtomicUsize::new(0)];
    const READERS: usize = 4;
    std::thread::scope(|s| {
        for n in 0..READERS {
            let (app, expected, stop, answered, seen) = (&app, &expected, &stop, &answered, &seen);
            s.spawn(move || {
                let mut i = n;
                while !stop.load(Ordering::SeqCst) {
                    let e = &expected[i % expected.len()];
                    let accept = e.coding.unwrap_or("identity");
                    let r = send(app, "GET", e.path, &[("accept-encoding", accept)]);
                    assert_eq!(r.status(), StatusCode::OK, "{}", e.path);
                    let version = e
                        .versions
                        .iter()
                        .position(|(body, _)| body.as_slice() == r.body().as_ref())
                        .unwrap_or_else(|| {
                            panic!("{} ({accept}): a body that is neither catalog's", e.path)
                        });
                    assert_eq!(
                        header(&r, "etag"),
                        e.versions[version].1,
                        "{} ({accept}): the ETag of another catalog than the body's",
                        e.path
                    );
                    seen[version].fetch_add(1, Ordering::SeqCst);
                    answered.fetch_add(1, Ordering::SeqCst);
                    i += 1;
                }
            });
        }
        // Each swap waits for more answers than there are readers since the last one: at least
        // one request then started after it, so every catalog installed is read.
        let mut last = 0;
        for round in 1..=12 {
            while answered.load(Ordering::SeqCst) < last + 2 * READERS {
                std::thread::yield_now();
            }
            last = answered.load(Ordering::SeqCst);
            install(&app, &dirs[round % 2]);
        }
        stop.store(true, Ordering::SeqCst);
    });
    for (version, count) in seen.iter().enumerate() {
        assert!(
            count.load(Ordering::SeqCst) > 0,
            "catalog {version} never answered"
        );
    }
}

#[test]
fn a_snapshot_still_held_by_a_request_is_read_whole_and_never_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let old_dir = save(&data, tree("a"));
    let app = app();
    install(&app, &data);
    // What a request in flight holds: the snapshot it loaded.
    let held = app.snapshot().expect("a catalog is served");
    save(&data, tree("b"));
    install(&app, &data);
    assert_eq!(app.snapshot().unwrap().id, "build-b");
    let prunable = Store::new(&data).prunable(1, None).unwrap();
    assert!(
        !prunable.contains(&old_dir),
        "a build would prune the snapshot a request holds: {prunable:?}"
    );
    let body = held
        .read("api/v1/eggs/paper.json")
        .expect("listed")
        .expect("intact");
    assert_eq!(
        body.as_ref(),
        tree("a")["api/v1/eggs/paper.json"].as_slice()
    );
    // New requests get the new catalog.
    let r = send(&app, "GET", "/api/v1/eggs/paper.json", &[]);
    assert_eq!(
        r.body().as_ref(),
        tree("b")["api/v1/eggs/paper.json"].as_slice()
    );
}

#[test]
fn installing_a_snapshot_swaps_every_document_at_once() {
    let site = Site::new("a");
    save(&site.data(), tree("b"));
    install(&site.app, &site.data());
    let b = tree("b");
    for (path, file) in [
        ("/api/v1/eggs", paths::INDEX),
        ("/api/v1/eggs?fields=name", paths::NAMES),
        ("/api/v1/eggs/paper", "api/v1/eggs/paper.json"),
        (
            "/api/v1/eggs/paper/pelican.yaml",
            "api/v1/eggs/paper/pelican.yaml",
        ),
        ("/eggs/paper/", "eggs/paper/index.html"),
    ] {
        let r = site.get(path, &[]);
        assert_eq!(r.body().as_ref(), b[file].as_slice(), "{path}");
        assert_eq!(header(&r, "etag"), etag_of(&b[file], None), "{path}");
    }
    let ready: serde_json::Value = serde_json::from_slice(site.get("/readyz", &[]).body()).unwrap();
    assert_eq!(ready["build"], "build-b");
}

#[test]
fn a_snapshot_that_cannot_be_opened_leaves_the_served_one_in_place() {
    let site = Site::new("a");
    let mut files = tree("b");
    files.remove(paths::STATUS);
    let catalog = eggcat_wire::Catalog {
        files,
        report: serde_json::from_slice(&report("build-b", 2)).unwrap(),
        state: Default::default(),
    };
    Store::new(site.data())
        .save(&catalog, &HashSet::new())
        .unwrap();
    let served = Store::new(site.data()).served().unwrap();
    assert_eq!(served.id, "build-b");
    let error = site.app.install(&served).expect_err("no status document");
    assert_eq!(error.to_string(), "no status document");
    assert_eq!(site.app.snapshot().unwrap().id, "build-a");
    let r = site.get("/api/v1/eggs/paper", &[]);
    assert_eq!(
        r.body().as_ref(),
        tree("a")["api/v1/eggs/paper.json"].as_slice()
    );
}
