//! Documents: every file of the snapshot at its path, whole, with its media type and the
//! headers docs/api.md lists for a `200`; HEAD; the precompressed forms `Accept-Encoding` picks.

use eggcat_wire::paths;
use http::StatusCode;

use crate::support::*;

/// (request path, file of the snapshot, `Content-Type`)
const SERVED: &[(&str, &str, &str)] = &[
    ("/api/v1/eggs/_index.json", paths::INDEX, "application/json"),
    ("/api/v1/eggs", paths::INDEX, "application/json"),
    ("/api/v1/eggs/_names.json", paths::NAMES, "application/json"),
    ("/api/v1/eggs?fields=name", paths::NAMES, "application/json"),
    (
        "/api/v1/eggs/paper.json",
        "api/v1/eggs/paper.json",
        "application/json",
    ),
    (
        "/api/v1/eggs/paper",
        "api/v1/eggs/paper.json",
        "application/json",
    ),
    (
        "/api/v1/eggs/paper?unknown=1",
        "api/v1/eggs/paper.json",
        "application/json",
    ),
    (
        "/api/v1/eggs/%70aper.json",
        "api/v1/eggs/paper.json",
        "application/json",
    ),
    (
        "/api/v1/eggs/paper/pelican.yaml",
        "api/v1/eggs/paper/pelican.yaml",
        "application/yaml",
    ),
    (
        "/api/v1/eggs/_removed.json",
        paths::REMOVED,
        "application/json",
    ),
    ("/", "index.html", "text/html; charset=utf-8"),
    (
        "/eggs/paper/",
        "eggs/paper/index.html",
        "text/html; charset=utf-8",
    ),
    ("/404.html", "404.html", "text/html; charset=utf-8"),
    (
        "/assets/eggcat-0123456789abcdef.css",
        ASSET,
        "text/css; charset=utf-8",
    ),
    ("/icons/paper.png", "icons/paper.png", "image/png"),
];

#[test]
fn every_file_is_served_whole_at_its_path_with_its_media_type_and_headers() {
    let site = Site::new("a");
    for &(path, file, media_type) in SERVED {
        let r = site.get(path, &[]);
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        let bytes = site.on_disk(file);
        assert_eq!(r.body().as_ref(), bytes.as_slice(), "{path}");
        assert_eq!(header(&r, "content-type"), media_type, "{path}");
        assert_eq!(header(&r, "etag"), etag_of(&bytes, None), "{path}");
        assert_eq!(header(&r, "last-modified"), LAST_MODIFIED, "{path}");
        let cache = if file == ASSET {
            paths::IMMUTABLE_CACHE_CONTROL
        } else {
            CACHE_CONTROL
        };
        assert_eq!(header(&r, "cache-control"), cache, "{path}");
        assert!(r.headers().get("content-encoding").is_none(), "{path}");
        assert_common_headers(&r);
        let html = media_type.starts_with("text/html");
        assert_eq!(
            r.headers()
                .get("content-security-policy")
                .map(|v| v.to_str().unwrap()),
            html.then_some(paths::CONTENT_SECURITY_POLICY),
            "{path}"
        );
        assert_eq!(r.headers().get("referrer-policy").is_some(), html, "{path}");
    }
}

/// The headers docs/api.md puts on every answer, whatever its status.
pub(crate) fn assert_common_headers(r: &http::Response<bytes::Bytes>) {
    assert_eq!(header(r, "vary"), "Accept-Encoding", "{}", r.status());
    assert_eq!(header(r, "access-control-allow-origin"), "*");
    assert_eq!(
        header(r, "access-control-expose-headers"),
        "ETag, Content-Length, Content-Encoding"
    );
    assert_eq!(header(r, "x-content-type-options"), "nosniff");
}

#[test]
fn head_has_the_headers_of_get_and_the_length_of_its_body_without_the_body() {
    let site = Site::new("a");
    for &(path, ..) in SERVED {
        for accept in ["", "br", "gzip"] {
            let headers: &[(&str, &str)] = if accept.is_empty() {
                &[]
            } else {
                &[("accept-encoding", accept)]
            };
            let get = site.get(path, headers);
            let head = site.send("HEAD", path, headers);
            assert_eq!(head.status(), get.status(), "{path} {accept}");
            assert!(
                head.body().is_empty(),
                "{path} {accept}: a HEAD with a body"
            );
            assert_eq!(
                header(&head, "content-length"),
                get.body().len().to_string(),
                "{path} {accept}"
            );
            for name in [
                "content-type",
                "etag",
                "last-modified",
                "cache-control",
                "vary",
            ] {
                assert_eq!(
                    head.headers().get(name),
                    get.headers().get(name),
                    "{path} {accept}: {name}"
                );
            }
            assert_eq!(
                head.headers().get("content-encoding"),
                get.headers().get("content-encoding"),
                "{path} {accept}"
            );
        }
    }
}

#[test]
fn accept_encoding_picks_a_stored_form_sent_as_it_is_on_disk() {
    let site = Site::new("a");
    let file = "api/v1/eggs/paper.json";
    let identity = site.on_disk(file);
    // (Accept-Encoding, coding sent) as the table of docs/api.md, "Content encoding".
    for (accept, sent) in [
        ("gzip", Some("gzip")),
        ("br", Some("br")),
        ("x-gzip", Some("gzip")),
        ("gzip, deflate, br, zstd", Some("br")),
        ("gzip;q=1.0, br;q=0.5", Some("gzip")),
        ("br;q=0, *;q=0.1", Some("gzip")),
        ("*", Some("br")),
        ("zstd", None),
        ("gzip;q=0.5, identity;q=1", None),
        ("*;q=0", None),
        ("identity;q=0", None),
    ] {
        let r = site.get("/api/v1/eggs/paper", &[("accept-encoding", accept)]);
        assert_eq!(r.status(), StatusCode::OK, "{accept}");
        assert_eq!(
            r.headers()
                .get("content-encoding")
                .map(|v| v.to_str().unwrap()),
            sent,
            "{accept}"
        );
        let body = match sent {
            Some("br") => site.on_disk(&format!("{file}.br")),
            Some(_) => site.on_disk(&format!("{file}.gz")),
            None => identity.clone(),
        };
        assert_eq!(r.body().as_ref(), body.as_slice(), "{accept}");
        assert_eq!(header(&r, "etag"), etag_of(&identity, sent), "{accept}");
        assert_eq!(header(&r, "vary"), "Accept-Encoding");
    }
    // Accept-Encoding on two lines is one list.
    let r = site.get(
        "/api/v1/eggs/paper",
        &[("accept-encoding", "br;q=0.1"), ("accept-encoding", "gzip")],
    );
    assert_eq!(header(&r, "content-encoding"), "gzip");
}

#[test]
fn files_without_forms_are_sent_as_identity_whatever_is_accepted() {
    let site = Site::new("a");
    // Under 256 bytes, and an image: the build stores no form of either.
    for (path, file) in [
        ("/api/v1/eggs/_names.json", paths::NAMES),
        ("/icons/paper.png", "icons/paper.png"),
    ] {
        assert!(
            !site.snapshot_dir().join(format!("{file}.br")).exists(),
            "{file} has a form: the fixture no longer tests this"
        );
        let r = site.get(path, &[("accept-encoding", "br, gzip")]);
        assert_eq!(r.status(), StatusCode::OK);
        assert!(r.headers().get("content-encoding").is_none(), "{path}");
        assert_eq!(r.body().as_ref(), site.on_disk(file).as_slice());
    }
}

/// The server does no ranges (docs/api.md names none, and no answer carries `Accept-Ranges`):
/// RFC 9110 section 14.2 lets a server ignore `Range`, so the answer is the whole document with
/// `200`, never a part, a `206` or a `416`.
#[test]
fn a_range_request_gets_the_whole_document() {
    let site = Site::new("a");
    let whole = site.on_disk("api/v1/eggs/paper.json");
    for range in [
        "bytes=0-9",
        "bytes=-5",
        "bytes=999999-",
        "bytes=5-1",
        "pages=1",
    ] {
        let r = site.get("/api/v1/eggs/paper.json", &[("range", range)]);
        assert_eq!(r.status(), StatusCode::OK, "{range}");
        assert_eq!(r.body().as_ref(), whole.as_slice(), "{range}");
        assert!(r.headers().get("content-range").is_none(), "{range}");
        assert!(r.headers().get("accept-ranges").is_none(), "{range}");
    }
}
