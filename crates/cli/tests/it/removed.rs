//! Removed eggs answer `410 Gone` on every path of theirs, the list of them survives rebuilds
//! and restarts, and an egg that comes back serves again. Also: every other published file is
//! served at its own path with its media type.

use std::collections::BTreeMap;

use eggcat_server::{App, AppOptions};
use eggcat_store::Store;

use crate::http::get;
use crate::support::*;

fn app_for(data: &std::path::Path) -> std::sync::Arc<App> {
    let app = App::new(&AppOptions {
        cache_control: "public, max-age=60".into(),
    })
    .unwrap();
    install_current(&app, data);
    app
}

fn removed_list(files: &BTreeMap<String, Vec<u8>>) -> Vec<serde_json::Value> {
    serde_json::from_slice(&files["api/v1/eggs/_removed.json"]).unwrap()
}

#[test]
fn a_removed_egg_answers_410_on_every_path_until_it_comes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/paper/egg-paper.json", egg_json("Paper"))
        .write("voice/egg-mumble.yaml", egg_yaml("Mumble"));
    repo.commit("two eggs");
    let data = tmp.path().join("data");
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let first = build(&data, sources(), &Clock::new(1_700_000_000_000));
    assert!(removed_list(&first.snapshot.files).is_empty());

    repo.remove("voice/egg-mumble.yaml");
    repo.commit("mumble is gone");
    let second = build(&data, sources(), &Clock::new(1_700_000_100_000));
    let removed = removed_list(&second.snapshot.files);
    // Removed when the first build without it finished.
    let at = second.report.finished_at.clone();
    assert_eq!(
        removed,
        vec![serde_json::json!({
            "slug": "eggs-mumble",
            "removedAt": at,
            "source": "o/eggs",
            "path": "voice/egg-mumble.yaml",
        })]
    );

    let app = app_for(&data);
    for path in [
        "/api/v1/eggs/eggs-mumble",
        "/api/v1/eggs/eggs-mumble.json",
        "/api/v1/eggs/eggs-mumble/pelican.yaml",
        "/api/v1/eggs/eggs-mumble/pterodactyl.json",
        "/api/v1/eggs/eggs-mumble/versions/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/pelican.json",
        "/eggs/eggs-mumble/",
    ] {
        let r = get(&app, path, &[]);
        assert_eq!(r.status(), 410, "{path}");
        assert_eq!(r.headers()["content-type"], "application/problem+json");
        let body: serde_json::Value = serde_json::from_slice(r.body()).unwrap();
        assert_eq!(body["status"], 410);
        assert_eq!(body["title"], "Gone");
        assert_eq!(body["instance"], path);
        assert_eq!(body["removedAt"], at.as_str());
        assert_eq!(body["path"], "voice/egg-mumble.yaml");
        assert_eq!(body["source"], "o/eggs");
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("is no longer in the catalog (since {at})")),
            "{body}"
        );
    }
    // A slug that never existed is still a 404.
    assert_eq!(get(&app, "/api/v1/eggs/eggs-never", &[]).status(), 404);
    assert_eq!(get(&app, "/api/v1/eggs/eggs-paper", &[]).status(), 200);

    // A later build with no change, and one after a restart (a new store reading the same
    // data_dir), keep the removal and its time.
    let third = build(&data, sources(), &Clock::new(1_700_000_200_000));
    assert_eq!(removed_list(&third.snapshot.files), removed);
    let restarted = Store::new(&data).read_current().unwrap().unwrap();
    assert_eq!(removed_list(&restarted.files), removed);

    // It comes back: 410 ends, the slug serves again.
    repo.write("voice/egg-mumble.yaml", egg_yaml("Mumble"));
    repo.commit("mumble is back");
    let back = build(&data, sources(), &Clock::new(1_700_000_300_000));
    assert!(removed_list(&back.snapshot.files).is_empty());
    let app = app_for(&data);
    assert_eq!(get(&app, "/api/v1/eggs/eggs-mumble", &[]).status(), 200);
}

#[test]
fn a_failing_source_removes_nothing_and_a_dropped_source_removes_its_eggs() {
    let tmp = tempfile::tempdir().unwrap();
    let a = Repo::init(tmp.path().join("a"), "main");
    a.write("voice/egg-mumble.yaml", egg_yaml("Mumble"));
    a.commit("one egg");
    let b = Repo::init(tmp.path().join("b"), "main");
    b.write("games/egg-paper.json", egg_json("Paper"));
    b.commit("one egg");
    let data = tmp.path().join("data");
    let both = || vec![source(&a.url(), "o", "a"), source(&b.url(), "o", "b")];
    build(&data, both(), &Clock::new(1_700_000_000_000));

    // `a` fails to fetch: its eggs are kept, nothing is removed.
    std::fs::rename(tmp.path().join("a"), tmp.path().join("a-moved")).unwrap();
    let kept = build(&data, both(), &Clock::new(1_700_000_100_000));
    assert!(kept.report.sources[0].kept_previous);
    assert!(removed_list(&kept.snapshot.files).is_empty());

    // `b` is dropped from the configuration: its egg is removed.
    let dropped = build(
        &data,
        vec![source(&a.url(), "o", "a")],
        &Clock::new(1_700_000_200_000),
    );
    let removed = removed_list(&dropped.snapshot.files);
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0]["slug"], "b-paper");
    assert_eq!(removed[0]["source"], "o/b");
}

#[test]
fn every_published_file_is_served_with_its_media_type() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/paper/egg-paper.json", egg_json("Paper"));
    repo.commit("one egg");
    let data = tmp.path().join("data");
    build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    );
    let mut files = Store::new(&data).read_current().unwrap().unwrap();
    // Pages as the web catalog writes them (the pages themselves are tested with the web crate).
    let page = b"<!doctype html><title>x</title>".repeat(20);
    for path in [
        "index.html",
        "status/index.html",
        "eggs/eggs-paper/index.html",
    ] {
        files.files.insert(path.into(), page.clone());
    }
    files
        .files
        .insert("assets/app.css".into(), b"body{margin:0}".to_vec());
    let served = tmp.path().join("served");
    save_files(&served, files.files);
    let app = app_for(&served);

    for (path, media_type) in [
        ("/", "text/html; charset=utf-8"),
        ("/status/", "text/html; charset=utf-8"),
        ("/eggs/eggs-paper/", "text/html; charset=utf-8"),
        ("/assets/app.css", "text/css; charset=utf-8"),
        ("/api/v1/eggs/_removed.json", "application/json"),
    ] {
        let r = get(&app, path, &[("accept-encoding", "br")]);
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["content-type"], media_type, "{path}");
        assert!(r.headers().contains_key("etag"), "{path}");
        let csp = r.headers().get("content-security-policy");
        assert_eq!(
            csp.is_some(),
            media_type.starts_with("text/html"),
            "{path}: CSP on pages only"
        );
        if let Some(csp) = csp {
            assert_eq!(csp, eggcat_catalog::paths::CONTENT_SECURITY_POLICY);
        }
    }
    // The pages are precompressed like the documents.
    let r = get(&app, "/", &[("accept-encoding", "br")]);
    assert_eq!(r.headers()["content-encoding"], "br");
    // A folder without its slash redirects to it, keeping the query.
    let r = get(&app, "/eggs/eggs-paper?x=1", &[]);
    assert_eq!(r.status(), 308);
    assert_eq!(r.headers()["location"], "/eggs/eggs-paper/?x=1");
    let r = get(&app, "/status", &[]);
    assert_eq!(r.status(), 308);
    assert_eq!(r.headers()["location"], "/status/");
    // Anything else is a 404: the site's HTML page for a browser's path, a problem+json
    // document for the API's (decided by the path).
    for (path, media_type) in [
        ("/nothing.html", "text/html; charset=utf-8"),
        ("/eggs/eggs-none/", "text/html; charset=utf-8"),
        ("/api/v1/eggs/_nothing.json", "application/problem+json"),
    ] {
        let r = get(&app, path, &[]);
        assert_eq!(r.status(), 404, "{path}");
        assert_eq!(r.headers()["content-type"], media_type, "{path}");
    }
}
