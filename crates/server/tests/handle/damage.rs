//! Damaged files (ARCHITECTURE.md, "Damage to a published snapshot is found, not served, and
//! repaired"): a file whose bytes do not match the snapshot's manifest answers `404`, never
//! part of it; the rest is served; `/readyz` says `degraded`, the metrics count it, and
//! [`eggcat_server::App::damage_found`] wakes the rebuild loop.
//!
//! The files are damaged before the snapshot is opened, so whether a request or the background
//! check finds each first, the answers and the report are the same.

use std::path::Path;

use http::StatusCode;

use crate::support::*;

/// The fixture saved, `damage` applied to its folder, then served.
fn damaged_site(damage: impl FnOnce(&Path)) -> Site {
    let tmp = tempfile::tempdir().unwrap();
    let dir = save(&tmp.path().join("data"), tree("a"));
    damage(&dir);
    let app = app();
    install(&app, &tmp.path().join("data"));
    Site { tmp, app }
}

/// Writes `bytes` over the file at `path` in the snapshot folder `dir`, through a new inode: the
/// store hard-links files between snapshots, and a test must not edit another one's.
fn replace(dir: &Path, path: &str, bytes: &[u8]) {
    let file = dir.join(path);
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, bytes).unwrap();
}

#[test]
fn a_changed_truncated_or_missing_file_is_a_404_and_the_rest_is_served() {
    let original = tree("a");
    let paper = &original["api/v1/eggs/paper.json"];
    let site = damaged_site(|dir| {
        // The same length, one byte changed: only the hash tells.
        let mut changed = paper.clone();
        changed[10] ^= 0x20;
        replace(dir, "api/v1/eggs/paper.json", &changed);
        let mumble = &original["api/v1/eggs/mumble.json"];
        replace(dir, "api/v1/eggs/mumble.json", &mumble[..mumble.len() / 2]);
        std::fs::remove_file(dir.join("api/v1/eggs/paper/pelican.yaml")).unwrap();
    });
    for (path, problem_words) in [
        (
            "/api/v1/eggs/paper.json",
            "content changed (SHA-256 differs)",
        ),
        ("/api/v1/eggs/mumble", "bytes, expected"),
        ("/api/v1/eggs/paper/pelican.yaml", "missing"),
    ] {
        for method in ["GET", "HEAD"] {
            let r = site.send(method, path, &[]);
            assert_eq!(r.status(), StatusCode::NOT_FOUND, "{method} {path}");
            assert_eq!(header(&r, "content-type"), "application/problem+json");
            assert!(r.headers().get("etag").is_none(), "{path}");
            if method == "GET" {
                let detail = problem(&r, path)["detail"].as_str().unwrap().to_owned();
                assert!(
                    detail.contains("is damaged on the server") && detail.contains(problem_words),
                    "{path}: {detail}"
                );
            }
        }
    }
    // The rest of the snapshot is served.
    let r = site.get("/api/v1/eggs/_index.json", &[]);
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.body().as_ref(),
        original[eggcat_wire::paths::INDEX].as_slice()
    );
    // The rebuild loop was woken, by the time the first answer was sent.
    assert!(
        try_ready(site.app.damage_found()).is_some(),
        "damage_found did not wake"
    );
    let ready: serde_json::Value = serde_json::from_slice(site.get("/readyz", &[]).body()).unwrap();
    assert_eq!(ready["status"], "degraded");
    assert_eq!(ready["problems"][0]["code"], "snapshot_damaged");
    let detail = ready["problems"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("3 damaged file(s) not served until the next build: "),
        "{detail}"
    );
    for path in [
        "api/v1/eggs/paper.json",
        "api/v1/eggs/mumble.json",
        "api/v1/eggs/paper/pelican.yaml",
    ] {
        assert!(detail.contains(path), "{path} not in {detail}");
    }
    let metrics = site.get("/metrics", &[]);
    let text = std::str::from_utf8(metrics.body()).unwrap();
    assert!(text.contains("eggcat_snapshot_damaged_files 3\n"), "{text}");
}

#[test]
fn a_damaged_form_is_a_404_in_its_coding_and_the_others_are_served() {
    let site = damaged_site(|dir| {
        // The same length, one byte changed.
        let mut form = std::fs::read(dir.join("api/v1/eggs/paper.json.gz")).unwrap();
        let last = form.len() - 1;
        form[last] ^= 1;
        replace(dir, "api/v1/eggs/paper.json.gz", &form);
    });
    let path = "/api/v1/eggs/paper.json";
    let r = site.get(path, &[("accept-encoding", "gzip")]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    problem(&r, path);
    let identity = site.get(path, &[]);
    assert_eq!(identity.status(), StatusCode::OK);
    assert_eq!(
        identity.body().as_ref(),
        tree("a")["api/v1/eggs/paper.json"].as_slice()
    );
    let br = site.get(path, &[("accept-encoding", "br")]);
    assert_eq!(br.status(), StatusCode::OK);
    assert_eq!(
        br.body().as_ref(),
        site.on_disk("api/v1/eggs/paper.json.br").as_slice()
    );
}

#[test]
fn a_damaged_404_page_gives_way_to_the_problem_document() {
    let site = damaged_site(|dir| replace(dir, "404.html", b"<html>half"));
    let r = site.get("/nope", &[]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(problem(&r, "/nope")["detail"], "no resource at `/nope`");
}

#[test]
fn a_snapshot_without_its_manifest_is_served_from_its_files_as_they_are_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = save(&tmp.path().join("data"), tree("a"));
    std::fs::remove_file(dir.join("manifest.json")).unwrap();
    let app = app();
    assert_eq!(
        install(&app, &tmp.path().join("data")),
        1,
        "the missing manifest is counted"
    );
    let site = Site { tmp, app };
    // Nothing says the forms are intact: identity only.
    let r = site.get(
        "/api/v1/eggs/paper.json",
        &[("accept-encoding", "br, gzip")],
    );
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get("content-encoding").is_none());
    assert_eq!(
        r.body().as_ref(),
        tree("a")["api/v1/eggs/paper.json"].as_slice()
    );
    let ready: serde_json::Value = serde_json::from_slice(site.get("/readyz", &[]).body()).unwrap();
    assert_eq!(ready["status"], "degraded");
    let detail = ready["problems"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("manifest.json"), "{detail}");
}

#[test]
fn the_background_check_finds_a_damaged_file_no_request_asked_for() {
    let site = damaged_site(|dir| replace(dir, "eggs/paper/index.html", b"<html>half"));
    // The check runs on its own thread after the snapshot is opened: its finding wakes
    // `damage_found`, awaited here (the time limit only ends a test that would hang).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    runtime
        .block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(30), site.app.damage_found()).await
        })
        .expect("the background check reported nothing");
    let ready: serde_json::Value = serde_json::from_slice(site.get("/readyz", &[]).body()).unwrap();
    assert_eq!(ready["status"], "degraded");
    let detail = ready["problems"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "1 damaged file(s) not served until the next build: eggs/paper/index.html ("
        ),
        "{detail}"
    );
}
