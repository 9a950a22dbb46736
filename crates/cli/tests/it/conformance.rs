//! The HTTP conformance checks, written once as a table (request -> expected status, headers
//! and where the body comes from) and run against every host: `eggcat serve`, nginx and Caddy
//! with the generated rules. The table is made from the tree itself (every published file, its
//! aliases, the removed eggs), so it follows whatever the other parts of eggcat publish.
//!
//! What a static host cannot do is written in the table too ([`Check::unlike_serve`]): there the
//! check asserts what that host does instead, so a change in either direction is noticed.

use std::collections::BTreeMap;

use eggcat_catalog::paths;

use crate::hosts::{Answer, request};

/// The hosts the table runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    Serve,
    Nginx,
    Caddy,
}

/// Where the expected body comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// The bytes of this file of the tree.
    File(String),
    /// A problem document (RFC 9457) with the answer's status.
    Problem,
    /// The 410 problem of this removed slug (detail and members as `eggcat serve` gives them).
    Gone(String),
    /// No body.
    Empty,
    /// Any body: static hosts put a short HTML note in a redirect.
    Any,
}

/// One request and what must come back.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    pub(crate) method: &'static str,
    pub(crate) target: String,
    pub(crate) status: u16,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Body,
    /// Exact `Cache-Control`, when it matters.
    pub(crate) cache_control: Option<String>,
    /// A header that must be present with this value (e.g. `Location`, `Allow`).
    pub(crate) header: Option<(&'static str, String)>,
    /// Hosts that answer differently, with what they answer instead and why.
    pub(crate) unlike_serve: Vec<(Host, u16, &'static str)>,
}

impl Check {
    fn get(target: impl Into<String>, status: u16, body: Body) -> Check {
        Check {
            method: "GET",
            target: target.into(),
            status,
            content_type: None,
            body,
            cache_control: None,
            header: None,
            unlike_serve: Vec::new(),
        }
    }
}

/// The table for a tree (`files`) served with `cache_control`.
pub(crate) fn checks(files: &BTreeMap<String, Vec<u8>>, cache_control: &str) -> Vec<Check> {
    let mut out = Vec::new();
    let file = |path: &str, target: String| {
        let mut c = Check::get(target, 200, Body::File(path.to_owned()));
        c.content_type = Some(paths::media_type(path).to_owned());
        c.cache_control = Some(if paths::is_immutable(path) {
            paths::IMMUTABLE_CACHE_CONTROL.to_owned()
        } else {
            cache_control.to_owned()
        });
        c
    };
    for path in files.keys() {
        out.push(file(path, format!("/{path}")));
        if let Some(folder) = path.strip_suffix("index.html") {
            out.push(file(path, format!("/{folder}")));
            if !folder.is_empty() {
                let bare = format!("/{}", folder.trim_end_matches('/'));
                let mut c = Check::get(bare, 308, Body::Any);
                c.header = Some(("location", format!("/{folder}")));
                c.unlike_serve = vec![(Host::Nginx, 301, "nginx redirects a folder with 301")];
                out.push(c);
            }
        }
        if let Some(alias) = eggcat_publish::alias(path) {
            out.push(file(path, format!("/{alias}")));
        }
    }
    out.push(file(paths::NAMES, "/api/v1/eggs?fields=name".into()));
    out.push(file(paths::INDEX, "/api/v1/eggs?other=1".into()));
    let problem = |target: &str, status: u16| {
        let mut c = Check::get(target, status, Body::Problem);
        c.content_type = Some("application/problem+json".into());
        c.cache_control = Some("no-store".into());
        c
    };
    out.push(problem("/api/v1/eggs?fields=nope", 400));
    out.push(problem("/api/v1/eggs/no-such-egg", 404));
    out.push(problem("/api/v1/eggs/no-such-egg.json", 404));
    out.push(problem("/api/v1/no/such/file.json", 404));
    out.push(problem("/api/nope", 404));
    // A browser's path that names nothing: the site's own 404 page, with status 404, decided
    // by the path (paths::is_api_path), never cached.
    assert!(
        files.contains_key(paths::NOT_FOUND_PAGE),
        "the build wrote the 404 page"
    );
    for target in [
        "/no/such/file.json",
        "/eggs/no-such-egg/",
        "/eggs/no-such-egg/index.html",
        "/nope",
        "/apiary/",
        "/.eggcat/nginx.conf",
    ] {
        let mut c = Check::get(target, 404, Body::File(paths::NOT_FOUND_PAGE.to_owned()));
        c.content_type = Some(paths::media_type(paths::NOT_FOUND_PAGE).to_owned());
        c.cache_control = Some("no-store".into());
        out.push(c);
    }
    // Every build publishes the removed list (empty or not): a tree without it, or with an entry
    // that names no slug, would silently drop the 410 checks, so it fails here instead.
    for slug in removed_slugs(files) {
        let slug = slug.as_str();
        for target in [
            format!("/api/v1/eggs/{slug}"),
            format!("/api/v1/eggs/{slug}.json"),
            format!("/api/v1/eggs/{slug}/pelican.yaml"),
            // An older version's file (issue 37), whatever its content's hash.
            format!(
                "/api/v1/eggs/{slug}/versions/{}/pelican.json",
                "0".repeat(64)
            ),
            format!("/eggs/{slug}/"),
        ] {
            let mut c = problem(&target, 410);
            c.body = Body::Gone(slug.to_owned());
            out.push(c);
        }
    }
    let mut head = file(paths::INDEX, format!("/{}", paths::INDEX));
    head.method = "HEAD";
    head.body = Body::Empty;
    out.push(head);
    let mut post = problem(&format!("/{}", paths::INDEX), 405);
    post.method = "POST";
    post.header = Some(("allow", "GET, HEAD, OPTIONS".into()));
    out.push(post);
    let mut options = Check::get("/api/v1/eggs", 204, Body::Empty);
    options.method = "OPTIONS";
    options.header = Some(("access-control-allow-methods", "GET, HEAD, OPTIONS".into()));
    out.push(options);
    out
}

/// The slugs of the tree's removed list, in its order. Panics when the list is missing, is not a
/// JSON array, or has an entry without a `slug` string: the table would lose its 410 checks.
fn removed_slugs(files: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let bytes = files
        .get(paths::REMOVED)
        .unwrap_or_else(|| panic!("the tree has no {}", paths::REMOVED));
    let removed: Vec<serde_json::Value> = serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{} is not a JSON array: {e}", paths::REMOVED));
    removed
        .iter()
        .map(|r| match r["slug"].as_str() {
            Some(slug) => slug.to_owned(),
            None => panic!("an entry of {} has no slug: {r}", paths::REMOVED),
        })
        .collect()
}

/// Runs every check against `host` on `port`; returns the failures, one line each.
pub(crate) fn run(
    host: Host,
    port: u16,
    files: &BTreeMap<String, Vec<u8>>,
    table: &[Check],
) -> Vec<String> {
    let mut failures = Vec::new();
    for check in table {
        let Ok(answer) = request(port, check.method, &check.target, &[], b"") else {
            failures.push(format!("{} {}: no answer", check.method, check.target));
            continue;
        };
        let status = check
            .unlike_serve
            .iter()
            .find(|(h, _, _)| *h == host)
            .map_or(check.status, |(_, s, _)| *s);
        let mut fail =
            |what: String| failures.push(format!("{} {}: {what}", check.method, check.target));
        if answer.status != status {
            fail(format!("status {} instead of {status}", answer.status));
            continue;
        }
        let expected = [
            ("content-type", check.content_type.clone()),
            ("cache-control", check.cache_control.clone()),
        ]
        .into_iter()
        .chain(check.header.clone().map(|(n, v)| (n, Some(v))));
        for (name, value) in expected {
            if let Some(value) = value
                && answer.header(name) != value
            {
                fail(format!(
                    "{name} `{}` instead of `{value}`",
                    answer.header(name)
                ));
            }
        }
        if !answer.header("vary").contains("Accept-Encoding") {
            fail(format!(
                "vary `{}` lacks Accept-Encoding",
                answer.header("vary")
            ));
        }
        for (name, value) in [
            ("access-control-allow-origin", "*"),
            ("x-content-type-options", "nosniff"),
        ] {
            if answer.header(name) != value {
                fail(format!(
                    "{name} `{}` instead of `{value}`",
                    answer.header(name)
                ));
            }
        }
        let html = answer.header("content-type").starts_with("text/html");
        if html
            && matches!(answer.status, 200 | 404)
            && answer.header("content-security-policy") != paths::CONTENT_SECURITY_POLICY
        {
            fail(format!(
                "content-security-policy `{}`",
                answer.header("content-security-policy")
            ));
        }
        if let Some(why) = body_mismatch(&check.body, &answer, files) {
            fail(why);
        }
    }
    failures
}

fn body_mismatch(
    body: &Body,
    answer: &Answer,
    files: &BTreeMap<String, Vec<u8>>,
) -> Option<String> {
    match body {
        Body::File(path) => (answer.body != files[path]).then(|| format!("body is not {path}")),
        Body::Empty => (!answer.body.is_empty()).then(|| "a body where none is expected".into()),
        Body::Any => None,
        Body::Problem | Body::Gone(_) => {
            let Ok(p) = serde_json::from_slice::<serde_json::Value>(&answer.body) else {
                return Some(format!(
                    "not a problem document: {}",
                    String::from_utf8_lossy(&answer.body)
                ));
            };
            if p["type"] != "about:blank" || p["status"] != answer.status {
                return Some(format!("problem fields: {p}"));
            }
            let Body::Gone(slug) = body else { return None };
            // The 410 is compared with the removed list's entry; a list that is missing, does not
            // parse or lacks the slug is a failure, never "no mismatch".
            let Some(bytes) = files.get(paths::REMOVED) else {
                return Some(format!(
                    "410 of `{slug}`: the tree has no {}",
                    paths::REMOVED
                ));
            };
            let removed: Vec<serde_json::Value> = match serde_json::from_slice(bytes) {
                Ok(removed) => removed,
                Err(e) => {
                    return Some(format!(
                        "410 of `{slug}`: {} does not parse: {e}",
                        paths::REMOVED
                    ));
                }
            };
            let Some(entry) = removed.iter().find(|r| r["slug"] == slug.as_str()) else {
                return Some(format!(
                    "410 of `{slug}`: no entry for it in {}",
                    paths::REMOVED
                ));
            };
            for key in ["slug", "removedAt", "source", "path"] {
                if p[key] != entry[key] {
                    return Some(format!(
                        "410 `{key}` is {} instead of {}",
                        p[key], entry[key]
                    ));
                }
            }
            let detail = p["detail"].as_str().unwrap_or("");
            (!detail.contains(slug.as_str())).then(|| format!("410 detail `{detail}`"))
        }
    }
}

/// The table's own checks fail when what they compare with is missing: a 410 is never "no
/// mismatch" for want of the removed list or of the slug's entry in it, and a tree without the
/// list cannot give a table without 410 checks.
mod the_table_cannot_pass_for_want_of_data {
    use super::*;

    /// A 410 problem for `slug` as `eggcat serve` gives it.
    fn gone(slug: &str) -> Answer {
        let body = serde_json::json!({
            "type": "about:blank", "status": 410, "title": "Gone",
            "detail": format!("the egg `{slug}` was removed"), "slug": slug,
            "removedAt": "2026-01-01T00:00:00.000Z", "source": "o/eggs", "path": "egg-x.json",
        });
        Answer {
            status: 410,
            headers: BTreeMap::new(),
            body: serde_json::to_vec(&body).unwrap(),
        }
    }

    fn tree(removed: Option<&str>) -> BTreeMap<String, Vec<u8>> {
        let mut files = BTreeMap::new();
        files.insert(
            paths::NOT_FOUND_PAGE.to_owned(),
            b"<!doctype html>".to_vec(),
        );
        if let Some(removed) = removed {
            files.insert(paths::REMOVED.to_owned(), removed.as_bytes().to_vec());
        }
        files
    }

    const ENTRY: &str = r#"[{"slug":"o-x","removedAt":"2026-01-01T00:00:00.000Z","source":"o/eggs","path":"egg-x.json"}]"#;

    #[test]
    fn a_410_matches_its_entry() {
        let body = Body::Gone("o-x".into());
        assert_eq!(body_mismatch(&body, &gone("o-x"), &tree(Some(ENTRY))), None);
    }

    #[test]
    fn a_410_without_the_removed_list_is_a_mismatch() {
        let body = Body::Gone("o-x".into());
        let why = body_mismatch(&body, &gone("o-x"), &tree(None)).expect("a mismatch");
        assert!(why.contains("has no"), "{why}");
        let why = body_mismatch(&body, &gone("o-x"), &tree(Some("{"))).expect("a mismatch");
        assert!(why.contains("does not parse"), "{why}");
    }

    #[test]
    fn a_410_of_a_slug_the_list_does_not_name_is_a_mismatch() {
        let body = Body::Gone("o-y".into());
        let why = body_mismatch(&body, &gone("o-y"), &tree(Some(ENTRY))).expect("a mismatch");
        assert!(why.contains("no entry"), "{why}");
    }

    #[test]
    fn the_table_has_the_410_checks_of_every_removed_slug() {
        let table = checks(&tree(Some(ENTRY)), "public, max-age=60");
        let gone: Vec<&str> = table
            .iter()
            .filter(|c| c.body == Body::Gone("o-x".into()))
            .map(|c| c.target.as_str())
            .collect();
        assert_eq!(
            gone,
            [
                "/api/v1/eggs/o-x",
                "/api/v1/eggs/o-x.json",
                "/api/v1/eggs/o-x/pelican.yaml",
                &format!("/api/v1/eggs/o-x/versions/{}/pelican.json", "0".repeat(64)),
                "/eggs/o-x/"
            ]
        );
    }

    #[test]
    #[should_panic(expected = "the tree has no api/v1/eggs/_removed.json")]
    fn a_tree_without_the_removed_list_has_no_table() {
        checks(&tree(None), "public, max-age=60");
    }

    #[test]
    #[should_panic(expected = "has no slug")]
    fn a_removed_entry_without_a_slug_has_no_table() {
        checks(&tree(Some(r#"[{"removedAt":"x"}]"#)), "public, max-age=60");
    }
}
