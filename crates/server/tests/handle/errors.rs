//! Paths and errors (docs/api.md, "Paths", "Errors", "Methods"): the precise `400` of each
//! malformed path, which `404` a path that names nothing gets, `410` for a removed egg, the
//! redirects, and the method checks, each a problem document with the headers of every answer.

use http::StatusCode;

use crate::documents::assert_common_headers;
use crate::support::*;

#[test]
fn malformed_paths_get_the_400_and_detail_docs_api_md_lists() {
    let site = Site::new("a");
    let long = format!("/api/v1/eggs/{}", "a".repeat(1100));
    for (path, detail) in [
        (
            "/api/v1/eggs/%ff",
            "malformed path: percent-encoding does not decode to UTF-8",
        ),
        ("/api/v1/eggs/a%00.json", "malformed path: contains NUL"),
        ("/api/v1/eggs/a%5cb", "malformed path: contains a backslash"),
        (
            "/api/v1//eggs",
            "malformed path: contains an empty segment (`//`)",
        ),
        (
            "/api/v1/eggs/../_status.json",
            "malformed path: contains a `.` or `..` segment",
        ),
        (
            "/api/v1/eggs/%2e%2e/%2e%2e/etc/passwd",
            "malformed path: contains a `.` or `..` segment",
        ),
        (
            "/eggs/./paper/",
            "malformed path: contains a `.` or `..` segment",
        ),
        (
            "/eggs/%2E%2E%2Fpaper/",
            "malformed path: contains a `.` or `..` segment",
        ),
        (long.as_str(), "malformed path: longer than 1024 bytes"),
    ] {
        for method in ["GET", "HEAD", "OPTIONS", "POST"] {
            let r = site.send(method, path, &[]);
            assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{method} {path}");
            assert_common_headers(&r);
            if method == "HEAD" {
                assert!(r.body().is_empty());
                assert!(r.headers().get("content-length").is_some());
                continue;
            }
            assert_eq!(problem(&r, path)["detail"], detail, "{method} {path}");
        }
    }
    // A target that is not in origin form names no path (`GET healthz` was answered with the
    // catalog page).
    for target in ["healthz", "example.com:80"] {
        let r = site.get(target, &[]);
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{target}");
        let p: serde_json::Value = serde_json::from_slice(r.body()).unwrap();
        assert_eq!(
            p["detail"], "malformed path: does not start with `/`",
            "{target}"
        );
    }
    // The limit is on the path as sent, before decoding: 1024 bytes pass.
    let at_limit = format!("/api/v1/eggs/{}", "a".repeat(1024 - "/api/v1/eggs/".len()));
    assert_eq!(site.get(&at_limit, &[]).status(), StatusCode::NOT_FOUND);
}

#[test]
fn a_path_that_names_nothing_is_a_404_problem_on_the_api_and_the_404_page_elsewhere() {
    let site = Site::new("a");
    for (path, detail) in [
        ("/api/v2/eggs", "no resource at `/api/v2/eggs`"),
        ("/api/v1/eggs/nope.json", "no egg has the slug `nope`"),
        ("/api/v1/eggs/nope", "no egg has the slug `nope`"),
        ("/api/v1/eggs/Paper.json", "no egg has the slug `Paper`"),
        (
            "/api/v1/eggs/_nope.json",
            "no resource at `/api/v1/eggs/_nope.json`",
        ),
        (
            "/api/v1/eggs/paper/pterodactyl.json",
            "no resource at `/api/v1/eggs/paper/pterodactyl.json`",
        ),
        ("/api/v1/eggs/", "no resource at `/api/v1/eggs/`"),
        // Percent-encoded, the API's path still (a reviewer found the HTML page here).
        ("/%61pi/v1/nothing", "no resource at `/%61pi/v1/nothing`"),
        ("/api%2Fv1/nothing", "no resource at `/api%2Fv1/nothing`"),
    ] {
        let r = site.get(path, &[]);
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(problem(&r, path)["detail"], detail, "{path}");
        assert!(r.headers().get("etag").is_none(), "{path}");
        assert_common_headers(&r);
    }
    // A browser's path gets the catalog's own page, with status 404, in the coding it prefers.
    let page = site.on_disk("404.html");
    for path in [
        "/nope",
        "/eggs/nope/",
        "/index.html/",
        "/healthz/",
        "/assets/eggcat-ffff.css",
        "/icons/gone.png",
    ] {
        let r = site.get(path, &[]);
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(r.body().as_ref(), page.as_slice(), "{path}");
        assert_eq!(header(&r, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&r, "cache-control"), "no-store");
        assert_eq!(
            header(&r, "content-security-policy"),
            eggcat_wire::paths::CONTENT_SECURITY_POLICY
        );
        assert!(r.headers().get("etag").is_none(), "{path}");
        assert!(r.headers().get("last-modified").is_none(), "{path}");
        assert_common_headers(&r);
    }
    let r = site.get("/nope", &[("accept-encoding", "br")]);
    assert_eq!(header(&r, "content-encoding"), "br");
    assert_eq!(r.body().as_ref(), site.on_disk("404.html.br").as_slice());
}

#[test]
fn without_a_404_page_every_path_gets_the_problem_document() {
    let mut files = tree("a");
    files.remove(eggcat_wire::paths::NOT_FOUND_PAGE);
    let site = Site::with(files);
    let r = site.get("/nope", &[]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(problem(&r, "/nope")["detail"], "no resource at `/nope`");
}

#[test]
fn every_path_of_a_removed_egg_is_410_with_the_removal() {
    let site = Site::new("a");
    for path in [
        "/api/v1/eggs/gone.json",
        "/api/v1/eggs/gone",
        "/api/v1/eggs/gone/pelican.yaml",
        "/api/v1/eggs/gone/anything/else",
        "/eggs/gone/",
        "/eggs/gone",
    ] {
        for method in ["GET", "HEAD"] {
            let r = site.send(method, path, &[]);
            assert_eq!(r.status(), StatusCode::GONE, "{method} {path}");
            assert_common_headers(&r);
            if method == "HEAD" {
                assert!(r.body().is_empty());
                continue;
            }
            let p = problem(&r, path);
            assert_eq!(
                p["detail"],
                "the egg `gone` is no longer in the catalog (since 2023-11-01T00:00:00.000Z); \
                 it came from `games/egg-gone.json` of test/eggs"
            );
            assert_eq!(p["slug"], "gone");
            assert_eq!(p["removedAt"], "2023-11-01T00:00:00.000Z");
            assert_eq!(p["source"], "test/eggs");
            assert_eq!(p["path"], "games/egg-gone.json");
        }
    }
}

#[test]
fn a_folder_without_its_slash_and_a_former_comparison_page_redirect_with_308() {
    let site = Site::new("a");
    for (path, location) in [
        ("/eggs/paper", "/eggs/paper/"),
        ("/eggs/paper?q=x", "/eggs/paper/?q=x"),
        ("/eggs/paper/compare/mumble/", "/eggs/paper/#others"),
        ("/eggs/paper/compare/mumble", "/eggs/paper/#others"),
    ] {
        for method in ["GET", "HEAD"] {
            let r = site.send(method, path, &[]);
            assert_eq!(
                r.status(),
                StatusCode::PERMANENT_REDIRECT,
                "{method} {path}"
            );
            assert_eq!(header(&r, "location"), location, "{path}");
            assert_eq!(header(&r, "cache-control"), "no-store");
            assert!(r.body().is_empty());
            assert_common_headers(&r);
        }
    }
    // What replaced a former path is for an egg of the catalog: a slug no egg has is a 404.
    for path in [
        "/eggs/no-such-egg/compare/mumble/",
        "/eggs/no-such-egg/compare/mumble",
        "/api/v1/eggs/no-such-egg/pelican-postgresql.json",
    ] {
        for method in ["GET", "HEAD"] {
            let r = site.send(method, path, &[]);
            assert_eq!(r.status(), StatusCode::NOT_FOUND, "{method} {path}");
            assert_common_headers(&r);
            // A page's path gets the site's 404 page, the API's the problem.
            if method == "GET" && path.starts_with("/api/") {
                let p = problem(&r, path);
                assert_eq!(p["detail"], "no egg has the slug `no-such-egg`");
            }
        }
    }
}

#[test]
fn methods_are_checked_after_the_path_and_before_the_query() {
    let site = Site::new("a");
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let r = site.send(method, "/api/v1/eggs/paper.json", &[]);
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(header(&r, "allow"), "GET, HEAD, OPTIONS");
        let p = problem(&r, "/api/v1/eggs/paper.json");
        assert_eq!(
            p["detail"],
            format!("method {method} is not allowed: this API is read-only (GET, HEAD, OPTIONS)")
        );
    }
    // The path first, as far as it is judged without the catalog: a malformed path is a 400
    // and a slug outside the pattern a 404, whatever the method (the 400s are in
    // `malformed_paths_get_the_400_and_detail_docs_api_md_lists`).
    for method in ["DELETE", "OPTIONS"] {
        let r = site.send(method, "/api/v1/eggs/Paper.json", &[]);
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{method}");
    }
    // Any other path may name a file of the snapshot, and the method comes before the
    // snapshot is looked at: a write is a 405 and OPTIONS a preflight even where a GET would be
    // a 404, as the generated static-host rules answer (docs/api.md, "Order of evaluation",
    // says 404 here: the code and the static hosts agree with each other, not with it).
    assert_eq!(
        site.send("DELETE", "/api/v2", &[]).status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        site.send("OPTIONS", "/api/v2", &[]).status(),
        StatusCode::NO_CONTENT
    );
    // The query last: a POST with a bad `fields` is a 405, a preflight for it a 204.
    let url = "/api/v1/eggs?fields=x";
    assert_eq!(
        site.send("POST", url, &[]).status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    for path in [url, "*", "/api/v1/eggs/paper.json", "/eggs/paper/"] {
        let r = site.send("OPTIONS", path, &[("origin", "https://panel.example")]);
        assert_eq!(r.status(), StatusCode::NO_CONTENT, "{path}");
        assert_eq!(
            header(&r, "access-control-allow-methods"),
            "GET, HEAD, OPTIONS"
        );
        assert_eq!(header(&r, "access-control-allow-headers"), "*");
        assert_eq!(header(&r, "access-control-max-age"), "86400");
        assert_eq!(header(&r, "cache-control"), "public, max-age=86400");
        assert!(r.body().is_empty());
        assert_common_headers(&r);
    }
    for (query, detail) in [
        (
            "fields=slug",
            "unsupported value `slug` for `fields`: the only value allowed is `name`",
        ),
        (
            "fields=",
            "unsupported value `` for `fields`: the only value allowed is `name`",
        ),
        (
            "fields=name&fields=name",
            "`fields` is given more than once: give it once, as `fields=name`",
        ),
    ] {
        let r = site.get(&format!("/api/v1/eggs?{query}"), &[]);
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(problem(&r, "/api/v1/eggs")["detail"], detail, "{query}");
    }
}

#[test]
fn the_snapshots_own_files_beside_the_published_tree_are_not_served() {
    let site = Site::new("a");
    for file in ["state.json", "manifest.json"] {
        assert!(
            site.snapshot_dir().join(file).exists(),
            "{file}: the fixture no longer tests this"
        );
        let r = site.get(&format!("/{file}"), &[]);
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{file}");
        assert_eq!(
            r.body().as_ref(),
            site.on_disk("404.html").as_slice(),
            "{file}"
        );
    }
}
