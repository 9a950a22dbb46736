//! An `eggcat build --out` tree with its generated rules, served by nginx and by Caddy (our own
//! processes on 127.0.0.1), passes the same conformance table as `eggcat serve`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use eggcat_catalog::paths;
use eggcat_server::{App, AppOptions, ServeOptions, Server};

use crate::conformance::{Body, Host, checks, run};
use crate::hosts::{request, start_caddy, start_nginx};
use crate::support::*;

const CACHE: &str = "public, max-age=60";

/// A catalog with a removed egg and two eggs for one game (Paper and its Pterodactyl twin, whose
/// egg pages compare them), written as `--out` writes it (tree and rules) under `tmp/out`.
fn tree(tmp: &Path) -> BTreeMap<String, Vec<u8>> {
    let repo = Repo::init(tmp.join("eggs"), "main");
    repo.write("games/paper/egg-paper.json", egg_json("Paper"))
        .write("games/paper/README.md", "# Paper\n")
        .write("games/paper/pterodactyl-egg-paper.json", egg_json("Paper"))
        .write("voice/egg-mumble.yaml", egg_yaml("Mumble"))
        .write("voice/egg-teamspeak.json", egg_json("Teamspeak"));
    repo.commit("four eggs");
    let data = tmp.join("data");
    let sources = || vec![source(&repo.url(), "o", "eggs")];
    let clock = Clock::new(1_700_000_000_000);
    build(&data, sources(), &clock);
    repo.remove("voice/egg-mumble.yaml")
        .commit("mumble is gone");
    let mut files = build(&data, sources(), &clock).snapshot.files;
    // The web pages and import files the other parts of eggcat add, in case this build has
    // none yet: the rules must serve them too (HTML headers, folders, YAML).
    let index: Vec<serde_json::Value> = serde_json::from_slice(&files[paths::INDEX]).unwrap();
    let slug = index[0]["slug"].as_str().unwrap().to_owned();
    for (path, bytes) in [
        (
            "index.html".to_owned(),
            b"<!doctype html><title>eggs</title>".to_vec(),
        ),
        (
            format!("eggs/{slug}/index.html"),
            b"<!doctype html><title>egg</title>".to_vec(),
        ),
        ("assets/site.css".to_owned(), b"body{}".to_vec()),
        (
            format!("api/v1/eggs/{slug}/pelican.yaml"),
            b"name: x\n".to_vec(),
        ),
    ] {
        files.entry(path).or_insert(bytes);
    }
    // Saved as a snapshot of its own (which writes the precompressed forms), served from there
    // by `eggcat serve`, and written with its forms into `out` by what `--out` runs.
    save_files(&tmp.join("served"), files);
    let snapshot = eggcat_store::Store::new(tmp.join("served"))
        .read_current()
        .unwrap()
        .unwrap();
    assert!(
        snapshot
            .precompressed
            .contains_key(&format!("{}.gz", paths::INDEX)),
        "the tree carries precompressed forms"
    );
    let files = snapshot.files;
    let out = tmp.join("out");
    let options = eggcat_publish::rules::RulesOptions {
        cache_control: CACHE.into(),
    };
    let served = eggcat_store::Store::new(tmp.join("served"));
    eggcat_pipeline::after::write_out(&served, &out, &options).unwrap();
    assert!(out.join(format!("{}.gz", paths::INDEX)).is_file());
    files
}

/// Runs the table against `host`, plus a conditional GET, and fails with every failure.
fn conforms(host: Host, port: u16, files: &BTreeMap<String, Vec<u8>>) {
    let table = checks(files, CACHE);
    assert!(
        table.len() > files.len(),
        "the table covers every file and more"
    );
    assert!(
        table.iter().any(|c| matches!(c.body, Body::Gone(_))),
        "the tree's removed egg has its 410 checks"
    );
    let mut failures = run(host, port, files, &table);
    // Conditional requests: the ETag a host gives comes back as a 304.
    let target = format!("/{}", paths::INDEX);
    let first = request(port, "GET", &target, &[], b"").unwrap();
    let etag = first.header("etag");
    let again = request(port, "GET", &target, &[("If-None-Match", &etag)], b"").unwrap();
    if etag.is_empty() || again.status != 304 {
        failures.push(format!(
            "conditional GET: etag `{etag}`, status {}",
            again.status
        ));
    }
    eprintln!(
        "{host:?}: {} checks, {} failures",
        table.len() + 1,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{host:?}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The comparison pages of an earlier eggcat (`/eggs/{a}/compare/{b}/`, without the slash, or
/// with `index.html`) answer a permanent redirect to the page of egg `a`, at its section "Other
/// eggs for this game", and an egg's `pelican-postgresql.json` one to its `pelican.json`
/// (`paths::moved`); a removed egg's answer 410 first.
fn moves_former_comparisons(port: u16, files: &BTreeMap<String, Vec<u8>>) {
    let index: Vec<serde_json::Value> = serde_json::from_slice(&files[paths::INDEX]).unwrap();
    let removed: Vec<serde_json::Value> = serde_json::from_slice(&files[paths::REMOVED]).unwrap();
    let (a, b) = (
        index[0]["slug"].as_str().unwrap(),
        index[1]["slug"].as_str().unwrap(),
    );
    let gone = removed[0]["slug"].as_str().unwrap();
    let old = format!("/eggs/{a}/compare/{b}/");
    for target in [
        old.clone(),
        old.trim_end_matches('/').to_owned(),
        format!("{old}index.html"),
    ] {
        let answer = request(port, "GET", &target, &[], b"").unwrap();
        assert_eq!(answer.status, 308, "{target}");
        let to = format!("/eggs/{a}/#others");
        assert_eq!(answer.header("location"), to, "{target}");
        assert_eq!(
            paths::moved_comparison(&target).as_deref(),
            Some(to.as_str()),
            "{target}: as eggcat serve decides"
        );
    }
    let answer = request(port, "GET", &format!("/eggs/{gone}/compare/{a}/"), &[], b"").unwrap();
    assert_eq!(answer.status, 410, "a removed egg's former comparison");

    // An egg's `pelican-postgresql.json` of an earlier eggcat: to its `pelican.json`, which
    // answers; a removed egg's 410 first.
    let a = index
        .iter()
        .map(|e| e["slug"].as_str().unwrap())
        .find(|s| files.contains_key(&format!("api/v1/eggs/{s}/pelican.json")))
        .expect("an egg Pelican imports");
    let old = format!("/api/v1/eggs/{a}/pelican-postgresql.json");
    let answer = request(port, "GET", &old, &[], b"").unwrap();
    assert_eq!(answer.status, 308, "{old}");
    let to = format!("/api/v1/eggs/{a}/pelican.json");
    assert_eq!(answer.header("location"), to, "{old}");
    assert_eq!(answer.header("cache-control"), "no-store", "{old}");
    assert_eq!(
        paths::moved(&old).as_deref(),
        Some(to.as_str()),
        "{old}: as eggcat serve decides"
    );
    let answer = request(port, "GET", &to, &[], b"").unwrap();
    assert_eq!(answer.status, 200, "{to}");
    assert_eq!(answer.body, files[&to[1..]], "{to}");
    let answer = request(
        port,
        "GET",
        &format!("/api/v1/eggs/{gone}/pelican-postgresql.json"),
        &[],
        b"",
    )
    .unwrap();
    assert_eq!(answer.status, 410, "a removed egg's former PostgreSQL file");
    // A slug no egg has moves nowhere: 404.
    for target in [
        format!("/eggs/no-such-egg/compare/{a}/"),
        "/api/v1/eggs/no-such-egg/pelican-postgresql.json".to_owned(),
    ] {
        let answer = request(port, "GET", &target, &[], b"").unwrap();
        assert_eq!(answer.status, 404, "{target}");
    }
}

#[test]
fn eggcat_serve_passes_the_conformance_table() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tree(tmp.path());
    let app = App::new(&AppOptions {
        cache_control: CACHE.into(),
    })
    .unwrap();
    install_current(&app, &tmp.path().join("served"));
    let server = Server::start("127.0.0.1:0", Arc::clone(&app), ServeOptions::default()).unwrap();
    let port = server.local_addr().port();
    conforms(Host::Serve, port, &files);
    moves_former_comparisons(port, &files);
    server.stop();
}

#[test]
fn nginx_with_the_generated_rules_passes_the_conformance_table() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tree(tmp.path());
    let Some(nginx) = start_nginx(&tmp.path().join("out"), &tmp.path().join("nginx")) else {
        return;
    };
    conforms(Host::Nginx, nginx.port, &files);
    moves_former_comparisons(nginx.port, &files);
}

#[test]
fn caddy_with_the_generated_rules_passes_the_conformance_table() {
    let tmp = tempfile::tempdir().unwrap();
    let files = tree(tmp.path());
    let Some(caddy) = start_caddy(&tmp.path().join("out"), &tmp.path().join("caddy")) else {
        return;
    };
    conforms(Host::Caddy, caddy.port, &files);
    moves_former_comparisons(caddy.port, &files);
}

/// The CloudFront function, run by node (skipped without it) on the viewer requests a bucket
/// cannot answer itself.
#[test]
fn the_cloudfront_function_rewrites_and_answers_what_a_bucket_cannot() {
    let Ok(node) = std::process::Command::new("node").arg("--version").output() else {
        crate::hosts::skip("node is not installed; the CloudFront function is not run");
        return;
    };
    assert!(node.status.success());
    let tmp = tempfile::tempdir().unwrap();
    let files = tree(tmp.path());
    let removed: Vec<serde_json::Value> = serde_json::from_slice(&files[paths::REMOVED]).unwrap();
    let gone = removed[0]["slug"].as_str().unwrap();
    let index: Vec<serde_json::Value> = serde_json::from_slice(&files[paths::INDEX]).unwrap();
    // An egg of the catalog: the last by slug, so that the front-coded search runs through
    // every entry before it.
    let slug = index.last().unwrap()["slug"].as_str().unwrap();
    // A comparison page of an earlier eggcat, of two eggs of the catalog.
    let other = index[0]["slug"].as_str().unwrap();
    let compare = format!("/eggs/{slug}/compare/{other}/");
    let function = tmp.path().join("out/.eggcat/cloudfront-function.js");
    let script = format!(
        r#"const src = require('fs').readFileSync({path:?}, 'utf8');
const handler = new Function(src + '; return handler;')();
const run = (uri, qs, method) => {{
  const r = handler({{ request: {{ uri, method: method || 'GET', querystring: qs || {{}}, headers: {{}} }} }});
  if (!r.statusCode) return [0, r.uri];
  const type = r.headers['content-type'] ? r.headers['content-type'].value : '';
  if (type.startsWith('text/html')) return [r.statusCode, {{ html: r.body.data, type, cache: r.headers['cache-control'].value }}];
  if (r.headers.location) return [r.statusCode, {{ location: r.headers.location.value, cache: r.headers['cache-control'].value }}];
  return [r.statusCode, r.body ? JSON.parse(r.body.data) : null];
}};
console.log(JSON.stringify([
  run('/api/v1/eggs'), run('/api/v1/eggs', {{ fields: {{ value: 'name' }} }}),
  run('/api/v1/eggs', {{ fields: {{ value: 'x' }} }}), run('/api/v1/eggs/some-egg'),
  run('/'), run('/eggs/some-egg/'), run('/api/v1/eggs/{gone}/pelican.yaml'),
  run('/api/v1/eggs/_index.json', null, 'DELETE'), run('/api/v1/eggs', null, 'OPTIONS'),
  run('/eggs/{slug}/'), run('/eggs/no-such-egg/'), run('/no/such/file.json'), run('/status/'),
  run('/api/v1/eggs/no-such-egg.json'), run('/eggs/{slug}'), run('/eggs/'), run('/404.html'),
  run('/assets/eggcat-0123456789abcdef.css'), run('/eggs/{slug}/index.html'),
  run('{compare}'), run('{compare_bare}'), run('{compare}index.html'),
  run('/eggs/{slug}/compare/'), run('/eggs/{gone}/compare/{slug}/'),
  run('/api/v1/eggs/{slug}/pelican-postgresql.json'),
  run('/api/v1/eggs/{gone}/pelican-postgresql.json'),
  run('/eggs/no-such-egg/compare/{slug}/'), run('/api/v1/eggs/no-such-egg/pelican-postgresql.json'),
]));"#,
        compare_bare = compare.trim_end_matches('/'),
        path = function.display().to_string()
    );
    let out = std::process::Command::new("node")
        .arg("-e")
        .arg(script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<(u16, serde_json::Value)> = serde_json::from_slice(&out.stdout).unwrap();
    let uri = |u: &str| (0, serde_json::Value::from(u));
    assert_eq!(got[0], uri("/api/v1/eggs/_index.json"));
    assert_eq!(got[1], uri("/api/v1/eggs/_names.json"));
    assert_eq!(got[2].0, 400);
    assert_eq!(got[3], uri("/api/v1/eggs/some-egg.json"));
    assert_eq!(got[4], uri("/index.html"));
    assert_eq!(got[5].0, 404, "no egg has the slug `some-egg`");
    assert_eq!(got[6].0, 410);
    assert_eq!(got[6].1["slug"], gone);
    assert_eq!(got[6].1["removedAt"], removed[0]["removedAt"]);
    assert_eq!(got[7].0, 405);
    assert_eq!(got[8].0, 204);
    // A browser's path: an egg's page goes to the bucket; a path that names no page is
    // answered here with the site's 404 page (the bucket's miss would get the API's problem
    // document from the distribution's custom error response).
    assert_eq!(got[9], uri(&format!("/eggs/{slug}/index.html")));
    let page = String::from_utf8(files[paths::NOT_FOUND_PAGE].clone()).unwrap();
    for i in [10, 11] {
        assert_eq!(got[i].0, 404, "{:?}", got[i]);
        assert_eq!(got[i].1["html"], page.as_str());
        assert_eq!(got[i].1["type"], "text/html; charset=utf-8");
        assert_eq!(got[i].1["cache"], "no-store");
    }
    assert_eq!(got[12], uri("/status/index.html"));
    assert_eq!(
        got[13],
        uri("/api/v1/eggs/no-such-egg.json"),
        "the API's 404 is the bucket's"
    );
    assert_eq!(got[14].0, 308);
    assert_eq!(got[14].1["location"], format!("/eggs/{slug}/"));
    assert_eq!(got[15], uri("/eggs/index.html"));
    assert_eq!(got[16], uri("/404.html"));
    assert_eq!(got[17], uri("/assets/eggcat-0123456789abcdef.css"));
    assert_eq!(got[18], uri(&format!("/eggs/{slug}/index.html")));
    // A comparison page of an earlier eggcat, in each of its spellings, moved to the first
    // egg's page; a path under it that was no page is the site's 404 page, and a removed
    // egg's is its 410.
    for i in [19, 20, 21] {
        assert_eq!(got[i].0, 308, "{:?}", got[i]);
        assert_eq!(got[i].1["location"], format!("/eggs/{slug}/#others"));
    }
    assert_eq!(got[22].0, 404, "{:?}", got[22]);
    assert_eq!(got[22].1["html"], page.as_str());
    assert_eq!(got[23].0, 410, "{:?}", got[23]);
    // An egg's former PostgreSQL file moved to its `pelican.json`; a removed egg's is its 410.
    assert_eq!(got[24].0, 308, "{:?}", got[24]);
    assert_eq!(
        got[24].1["location"],
        format!("/api/v1/eggs/{slug}/pelican.json")
    );
    assert_eq!(got[24].1["cache"], "no-store");
    assert_eq!(got[25].0, 410, "{:?}", got[25]);
    // A slug no egg has moves nowhere: the site's 404 page for the comparison page, the
    // bucket's 404 for the file.
    assert_eq!(got[26].0, 404, "{:?}", got[26]);
    assert_eq!(got[26].1["html"], page.as_str());
    assert_eq!(
        got[27],
        uri("/api/v1/eggs/no-such-egg/pelican-postgresql.json")
    );
}
