//! The HTTP semantics, in-process through the request pipeline (`App::handle`).

use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;
use eggcat_server::{App, AppOptions};
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;

use crate::support::*;

/// A small catalog, built and loaded; also returns the published files.
pub(crate) fn served_catalog() -> (tempfile::TempDir, Arc<App>, eggcat_store::SnapshotFiles) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/paper/egg-paper.json", egg_json("Paper"))
        .write("games/paper/README.md", "# Paper\n".repeat(100))
        .write("voice/egg-mumble.yaml", egg_yaml("Mumble"));
    for i in 0..8 {
        repo.write(
            &format!("more/egg-more-{i}.json"),
            egg_json(&format!("More {i}")),
        );
    }
    repo.commit("eggs");
    let data = tmp.path().join("data");
    build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    );
    let store = eggcat_store::Store::new(&data);
    let app = App::new(&AppOptions {
        cache_control: "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400"
            .into(),
    })
    .unwrap();
    crate::support::install_current(&app, &data);
    let files = store.read_current().unwrap().unwrap();
    (tmp, app, files)
}

pub(crate) fn get(app: &App, path: &str, headers: &[(&str, &str)]) -> Response<Bytes> {
    send(app, "GET", path, headers)
}

pub(crate) fn send(
    app: &App,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Response<Bytes> {
    let mut req = Request::builder().method(method).uri(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let response = app.handle(&req.body(()).unwrap());
    let (parts, body) = response.into_parts();
    let bytes = futures_lite_block_on(body.collect()).unwrap().to_bytes();
    Response::from_parts(parts, bytes)
}

/// `Full` bodies are ready at once: poll the future a single time.
fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("a full body is always ready"),
    }
}

fn header<'a>(r: &'a Response<Bytes>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

fn problem(r: &Response<Bytes>) -> serde_json::Value {
    assert_eq!(header(r, "content-type"), "application/problem+json");
    let p: serde_json::Value = serde_json::from_slice(r.body()).unwrap();
    assert_eq!(p["status"], r.status().as_u16());
    assert_eq!(p["type"], "about:blank");
    assert_eq!(p["title"], r.status().canonical_reason().unwrap());
    p
}

#[test]
fn every_endpoint_and_alias_serves_the_published_bytes() {
    let (_tmp, app, files) = served_catalog();
    let cases = [
        ("/api/v1/eggs/_index.json", "api/v1/eggs/_index.json"),
        ("/api/v1/eggs", "api/v1/eggs/_index.json"),
        ("/api/v1/eggs/_names.json", "api/v1/eggs/_names.json"),
        ("/api/v1/eggs?fields=name", "api/v1/eggs/_names.json"),
        (
            "/api/v1/eggs/eggs-paper.json",
            "api/v1/eggs/eggs-paper.json",
        ),
        ("/api/v1/eggs/eggs-paper", "api/v1/eggs/eggs-paper.json"),
        (
            "/api/v1/eggs/eggs-mumble?unknown=1",
            "api/v1/eggs/eggs-mumble.json",
        ),
        ("/api/v1/_status.json", "api/v1/_status.json"),
    ];
    for (path, file) in cases {
        let r = get(&app, path, &[]);
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.body().as_ref(), files.files[file].as_slice(), "{path}");
        assert_eq!(header(&r, "content-type"), "application/json");
        assert_eq!(
            header(&r, "cache-control"),
            "public, max-age=300, stale-while-revalidate=86400, stale-if-error=86400"
        );
        assert!(header(&r, "etag").starts_with('"'));
        assert!(header(&r, "last-modified").ends_with(" GMT"));
        let head = send(&app, "HEAD", path, &[]);
        assert_eq!(head.status(), StatusCode::OK);
        assert!(head.body().is_empty());
        assert_eq!(
            header(&head, "content-length"),
            files.files[file].len().to_string()
        );
        assert_eq!(header(&head, "etag"), header(&r, "etag"));
    }
    let openapi = get(&app, "/api/v1/openapi.json", &[]);
    let doc: serde_json::Value = serde_json::from_slice(openapi.body()).unwrap();
    assert_eq!(doc["info"]["version"], "2.0.0");
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert_eq!(get(&app, "/healthz", &[]).status(), StatusCode::OK);
    let ready = get(&app, "/readyz", &[]);
    assert_eq!(ready.status(), StatusCode::OK);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(ready.body()).unwrap()["eggs"],
        10
    );
    let metrics = get(&app, "/metrics", &[]);
    let text = std::str::from_utf8(metrics.body()).unwrap();
    assert!(header(&metrics, "content-type").starts_with("text/plain; version=0.0.4"));
    for needle in [
        // GET and HEAD of each path above.
        "eggcat_http_requests_total{route=\"index\",status=\"200\"} 4",
        "eggcat_http_requests_total{route=\"egg\",status=\"200\"} 6",
        "eggcat_http_request_duration_seconds_bucket{le=\"+Inf\"}",
        "eggcat_catalog_eggs 10",
        "eggcat_catalog_build_timestamp_seconds 1700000",
    ] {
        assert!(text.contains(needle), "{needle} not in:\n{text}");
    }
}

#[test]
fn before_the_first_catalog_only_health_answers() {
    let app = App::new(&AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    assert_eq!(get(&app, "/healthz", &[]).status(), StatusCode::OK);
    for path in [
        "/readyz",
        "/api/v1/eggs",
        "/api/v1/eggs/x.json",
        "/api/v1/_status.json",
    ] {
        let r = get(&app, path, &[]);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert_eq!(header(&r, "retry-after"), "5");
        problem(&r);
    }
    assert_eq!(
        get(&app, "/api/v1/openapi.json", &[]).status(),
        StatusCode::OK
    );
}

#[test]
fn errors_are_precise_problem_documents() {
    let (_tmp, app, _) = served_catalog();
    let r = get(&app, "/api/v1/eggs/no-such-egg.json", &[]);
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let p = problem(&r);
    assert_eq!(p["detail"], "no egg has the slug `no-such-egg`");
    assert_eq!(p["instance"], "/api/v1/eggs/no-such-egg.json");
    assert_eq!(
        get(&app, "/api/v1/eggz", &[]).status(),
        StatusCode::NOT_FOUND
    );
    let r = get(&app, "/api/v1/eggs?fields=slug", &[]);
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(
        problem(&r)["detail"]
            .as_str()
            .unwrap()
            .contains("the only value allowed is `name`")
    );
    assert_eq!(
        get(&app, "/api/v1/eggs?fields=name&fields=name", &[]).status(),
        StatusCode::BAD_REQUEST
    );
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let r = send(&app, method, "/api/v1/eggs", &[]);
        assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&r, "allow"), "GET, HEAD, OPTIONS");
        problem(&r);
    }
    // The method is judged before the query.
    assert_eq!(
        send(&app, "PUT", "/api/v1/eggs?fields=x", &[]).status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    for path in [
        "/api/v1/eggs/%2e%2e/%2e%2e/etc/passwd",
        "/api/v1/eggs/..%2f_status.json",
        "/api//v1/eggs",
        "/api/v1/eggs/a%5c..%5cb",
        "/api/v1/eggs/%00",
    ] {
        let r = get(&app, path, &[]);
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{path}");
        problem(&r);
    }
    let long = format!("/api/v1/eggs/{}.json", "a".repeat(5000));
    assert_eq!(get(&app, &long, &[]).status(), StatusCode::BAD_REQUEST);
}

#[test]
fn every_answer_carries_vary_and_cors() {
    let (_tmp, app, _) = served_catalog();
    let etag = header(&get(&app, "/api/v1/eggs", &[]), "etag").to_owned();
    let answers = [
        get(&app, "/api/v1/eggs", &[]),
        get(&app, "/api/v1/eggs", &[("if-none-match", &etag)]),
        get(&app, "/nope", &[]),
        get(&app, "/api/v1/eggs?fields=x", &[]),
        send(&app, "POST", "/api/v1/eggs", &[]),
        send(
            &app,
            "OPTIONS",
            "/api/v1/eggs",
            &[
                ("origin", "https://panel.example"),
                ("access-control-request-method", "GET"),
            ],
        ),
        get(&app, "/healthz", &[]),
        get(&app, "/metrics", &[]),
        // A preflight whose query would be a 400 for GET is still a preflight.
        send(&app, "OPTIONS", "/api/v1/eggs?fields=x", &[]),
        send(&app, "OPTIONS", "*", &[]),
    ];
    for r in &answers {
        assert_eq!(header(r, "vary"), "Accept-Encoding", "{:?}", r.status());
        assert_eq!(
            header(r, "access-control-allow-origin"),
            "*",
            "{:?}",
            r.status()
        );
    }
    let preflight = &answers[5];
    assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        header(preflight, "access-control-allow-methods"),
        "GET, HEAD, OPTIONS"
    );
    assert_eq!(header(preflight, "access-control-allow-headers"), "*");
    assert_eq!(header(preflight, "access-control-max-age"), "86400");
    for r in &answers[8..] {
        assert_eq!(r.status(), StatusCode::NO_CONTENT);
        assert_eq!(header(r, "allow"), "GET, HEAD, OPTIONS");
    }
}

#[test]
fn conditional_requests() {
    let (_tmp, app, _) = served_catalog();
    let first = get(&app, "/api/v1/eggs/eggs-paper.json", &[]);
    let etag = header(&first, "etag").to_owned();
    let last_modified = header(&first, "last-modified").to_owned();
    let weak = format!("W/{etag}");
    let list = format!("\"other\", {etag}");
    for inm in [etag.as_str(), weak.as_str(), list.as_str(), "*"] {
        for method in ["GET", "HEAD"] {
            let r = send(
                &app,
                method,
                "/api/v1/eggs/eggs-paper.json",
                &[("if-none-match", inm)],
            );
            assert_eq!(r.status(), StatusCode::NOT_MODIFIED, "{method} {inm}");
            assert!(r.body().is_empty());
            assert_eq!(header(&r, "etag"), etag);
            assert_eq!(header(&r, "vary"), "Accept-Encoding");
            // A 304 carries no Content-Length, for HEAD either (RFC 9110 section 8.6).
            assert!(r.headers().get("content-length").is_none(), "{method}");
        }
    }
    // If-None-Match sent on two lines is one list.
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[("if-none-match", "\"stale\""), ("if-none-match", &etag)]
        )
        .status(),
        StatusCode::NOT_MODIFIED
    );
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[("if-none-match", "\"stale\"")]
        )
        .status(),
        StatusCode::OK
    );
    // The alias is the same representation, so the same ETag.
    assert_eq!(
        get(&app, "/api/v1/eggs/eggs-paper", &[("if-none-match", &etag)]).status(),
        StatusCode::NOT_MODIFIED
    );
    // If-Modified-Since only counts without If-None-Match.
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[("if-modified-since", &last_modified)]
        )
        .status(),
        StatusCode::NOT_MODIFIED
    );
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[("if-modified-since", "Sat, 01 Jan 2000 00:00:00 GMT")]
        )
        .status(),
        StatusCode::OK
    );
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[
                ("if-modified-since", &last_modified),
                ("if-none-match", "\"stale\"")
            ]
        )
        .status(),
        StatusCode::OK
    );
    // If-Match (strong comparison) and If-Unmodified-Since: 412 when they do not hold.
    for (name, value) in [
        ("if-match", etag.as_str()),
        ("if-match", "*"),
        ("if-unmodified-since", last_modified.as_str()),
    ] {
        let r = get(&app, "/api/v1/eggs/eggs-paper.json", &[(name, value)]);
        assert_eq!(r.status(), StatusCode::OK, "{name}: {value}");
    }
    for (name, value) in [
        ("if-match", "\"stale\""),
        ("if-match", weak.as_str()),
        ("if-unmodified-since", "Sat, 01 Jan 2000 00:00:00 GMT"),
    ] {
        let r = get(&app, "/api/v1/eggs/eggs-paper.json", &[(name, value)]);
        assert_eq!(
            r.status(),
            StatusCode::PRECONDITION_FAILED,
            "{name}: {value}"
        );
        let detail = problem(&r)["detail"].as_str().unwrap().to_owned();
        assert!(detail.contains(&etag), "{detail}");
    }
    let metrics = get(&app, "/metrics", &[]);
    assert!(
        std::str::from_utf8(metrics.body())
            .unwrap()
            .contains("eggcat_http_requests_total{route=\"egg\",status=\"412\"} 3")
    );
    // Another coding is another representation: the identity ETag does not match the gzip one.
    assert_eq!(
        get(
            &app,
            "/api/v1/eggs/eggs-paper.json",
            &[("if-none-match", &etag), ("accept-encoding", "gzip")]
        )
        .status(),
        StatusCode::OK
    );
}

fn decode(coding: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        "gzip" => {
            flate2::read::GzDecoder::new(body)
                .read_to_end(&mut out)
                .unwrap();
        }
        "br" => brotli::BrotliDecompress(&mut &body[..], &mut out).unwrap(),
        other => panic!("unexpected coding {other}"),
    }
    out
}

#[test]
fn every_encoding_decompresses_to_the_identity_bytes() {
    let (_tmp, app, files) = served_catalog();
    for (path, file) in [
        ("/api/v1/eggs/_index.json", "api/v1/eggs/_index.json"),
        ("/api/v1/eggs/eggs-paper", "api/v1/eggs/eggs-paper.json"),
        ("/api/v1/_status.json", "api/v1/_status.json"),
    ] {
        let identity = &files.files[file];
        let mut etags = vec![header(&get(&app, path, &[]), "etag").to_owned()];
        for coding in ["br", "gzip"] {
            let r = get(&app, path, &[("accept-encoding", coding)]);
            assert_eq!(
                r.headers()
                    .get("content-encoding")
                    .map(|v| v.to_str().unwrap()),
                Some(coding),
                "{path} ({} bytes)",
                identity.len()
            );
            assert_eq!(&decode(coding, r.body()), identity, "{path} {coding}");
            let etag = header(&r, "etag").to_owned();
            assert!(!etags.contains(&etag), "ETags differ per representation");
            etags.push(etag.clone());
            assert_eq!(
                get(
                    &app,
                    path,
                    &[("accept-encoding", coding), ("if-none-match", &etag)]
                )
                .status(),
                StatusCode::NOT_MODIFIED
            );
        }
        let browser = get(
            &app,
            path,
            &[("accept-encoding", "gzip, deflate, br, zstd")],
        );
        assert_eq!(header(&browser, "content-encoding"), "br");
        let picky = get(&app, path, &[("accept-encoding", "br;q=0.5, gzip;q=0.8")]);
        assert_eq!(header(&picky, "content-encoding"), "gzip");
        // Accept-Encoding on two lines is one list.
        let two_lines = get(
            &app,
            path,
            &[("accept-encoding", "br;q=0.1"), ("accept-encoding", "gzip")],
        );
        assert_eq!(header(&two_lines, "content-encoding"), "gzip");
        // zstd is not stored (eggcat-codings says why): asked for alone, identity.
        let zstd = get(&app, path, &[("accept-encoding", "zstd")]);
        assert!(zstd.headers().get("content-encoding").is_none());
        assert_eq!(zstd.body().as_ref(), identity.as_slice());
        let refuse = get(&app, path, &[("accept-encoding", "gzip;q=0, identity")]);
        assert!(refuse.headers().get("content-encoding").is_none());
        assert_eq!(refuse.body().as_ref(), identity.as_slice());
    }
}

#[test]
fn a_failed_rebuild_is_shown_in_the_status_and_nothing_else_changes() {
    let (_tmp, app, files) = served_catalog();
    let index_before = get(&app, "/api/v1/eggs", &[]);
    app.rebuild_failed("cannot write /data: disk full", 1_700_000_100_000);
    let status: serde_json::Value =
        serde_json::from_slice(get(&app, "/api/v1/_status.json", &[]).body()).unwrap();
    assert_eq!(status["lastRebuild"]["outcome"], "failed");
    assert_eq!(
        status["lastRebuild"]["error"],
        "cannot write /data: disk full"
    );
    assert_eq!(status["lastRebuild"]["at"], "2023-11-14T22:15:00.000Z");
    let published: serde_json::Value =
        serde_json::from_slice(&files.files["api/v1/_status.json"]).unwrap();
    assert_eq!(status["buildId"], published["buildId"]);
    let index_after = get(&app, "/api/v1/eggs", &[]);
    assert_eq!(index_before.body(), index_after.body());
    assert_eq!(header(&index_before, "etag"), header(&index_after, "etag"));
    let metrics = get(&app, "/metrics", &[]);
    let text = std::str::from_utf8(metrics.body()).unwrap();
    assert!(text.contains("eggcat_last_build_success 0"), "{text}");
    assert!(
        text.contains("eggcat_builds_total{outcome=\"failed\"} 1"),
        "{text}"
    );
    // Clients polling with If-Modified-Since alone see the change too.
    let since = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_050),
    );
    let r = get(
        &app,
        "/api/v1/_status.json",
        &[("if-modified-since", &since)],
    );
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(header(&r, "last-modified"), "Tue, 14 Nov 2023 22:15:00 GMT");
    let r = get(&app, "/api/v1/eggs", &[("if-modified-since", &since)]);
    assert_eq!(
        r.status(),
        StatusCode::NOT_MODIFIED,
        "the other documents did not change"
    );
}

#[test]
fn the_status_date_never_goes_back_past_the_server_start() {
    // A restart after a failed rebuild must not make the status document look older than the
    // "failed" copy a client may hold: its Last-Modified is at least the server's start.
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (_tmp, app, _) = served_catalog();
    let status = get(&app, "/api/v1/_status.json", &[]);
    let index = get(&app, "/api/v1/eggs", &[]);
    let date = |r: &Response<Bytes>| {
        httpdate::parse_http_date(header(r, "last-modified"))
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    // The catalog was built by a clock in 2023; the server started now.
    assert!((1_700_000_000..1_700_000_100).contains(&date(&index)));
    assert!(
        date(&status) >= before,
        "{}",
        header(&status, "last-modified")
    );
}
