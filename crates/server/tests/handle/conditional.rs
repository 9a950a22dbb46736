//! Conditional requests (docs/api.md, "ETag and If-None-Match", "If-Match and
//! If-Unmodified-Since", "Last-Modified and If-Modified-Since"), through the whole handler:
//! the validators of the representation the request would get, and what a `304` carries.

use http::StatusCode;

use crate::documents::assert_common_headers;
use crate::support::*;

const EGG: &str = "/api/v1/eggs/paper.json";

#[test]
fn if_none_match_of_the_representation_sent_gives_a_bare_304() {
    let site = Site::new("a");
    let identity = site.on_disk("api/v1/eggs/paper.json");
    let etag = etag_of(&identity, None);
    let weak = format!("W/{etag}");
    let listed = format!("\"other\", {etag}");
    for method in ["GET", "HEAD"] {
        for inm in [etag.as_str(), weak.as_str(), listed.as_str(), "*"] {
            let r = site.send(method, EGG, &[("if-none-match", inm)]);
            assert_eq!(r.status(), StatusCode::NOT_MODIFIED, "{method} {inm}");
            assert!(r.body().is_empty());
            // A 304 carries the validators and Cache-Control of its 200, and nothing that
            // describes a body (docs/api.md, "Headers of each kind of answer").
            assert_eq!(header(&r, "etag"), etag);
            assert_eq!(header(&r, "last-modified"), LAST_MODIFIED);
            assert_eq!(header(&r, "cache-control"), CACHE_CONTROL);
            for absent in ["content-type", "content-length", "content-encoding"] {
                assert!(
                    r.headers().get(absent).is_none(),
                    "{method} {inm}: {absent}"
                );
            }
            assert_common_headers(&r);
        }
    }
    // Sent on two lines, the header is one list.
    let r = site.get(
        EGG,
        &[("if-none-match", "\"stale\""), ("if-none-match", &etag)],
    );
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    let r = site.get(EGG, &[("if-none-match", "\"stale\"")]);
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.body().as_ref(), identity.as_slice());
    // The alias is the same representation.
    let r = site.get("/api/v1/eggs/paper", &[("if-none-match", &etag)]);
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    // Each coding is its own representation: the identity ETag does not match the br one.
    let br = [("accept-encoding", "br"), ("if-none-match", etag.as_str())];
    assert_eq!(site.get(EGG, &br).status(), StatusCode::OK);
    let br_etag = etag_of(&identity, Some("br"));
    let r = site.get(
        EGG,
        &[("accept-encoding", "br"), ("if-none-match", &br_etag)],
    );
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(header(&r, "etag"), br_etag);
}

#[test]
fn if_modified_since_counts_only_without_if_none_match() {
    let site = Site::new("a");
    for (since, status) in [
        (LAST_MODIFIED, StatusCode::NOT_MODIFIED),
        ("Wed, 15 Nov 2023 00:00:00 GMT", StatusCode::NOT_MODIFIED),
        ("Tue, 14 Nov 2023 22:13:19 GMT", StatusCode::OK),
        ("Sat, 01 Jan 2000 00:00:00 GMT", StatusCode::OK),
        ("yesterday", StatusCode::OK),
    ] {
        let r = site.get(EGG, &[("if-modified-since", since)]);
        assert_eq!(r.status(), status, "{since}");
    }
    // With If-None-Match, the date is not looked at, even when the tag does not match.
    let r = site.get(
        EGG,
        &[
            ("if-modified-since", LAST_MODIFIED),
            ("if-none-match", "\"stale\""),
        ],
    );
    assert_eq!(r.status(), StatusCode::OK);
    // A date sent twice is ignored.
    let twice = [
        ("if-modified-since", LAST_MODIFIED),
        ("if-modified-since", LAST_MODIFIED),
    ];
    assert_eq!(site.get(EGG, &twice).status(), StatusCode::OK);
}

#[test]
fn if_match_and_if_unmodified_since_that_do_not_hold_give_a_412_problem() {
    let site = Site::new("a");
    let etag = etag_of(&site.on_disk("api/v1/eggs/paper.json"), None);
    let weak = format!("W/{etag}");
    for headers in [
        vec![("if-match", etag.as_str())],
        vec![("if-match", "*")],
        vec![("if-match", "\"x\""), ("if-match", etag.as_str())],
        vec![("if-unmodified-since", LAST_MODIFIED)],
        vec![("if-unmodified-since", "not a date")],
        // If-Match decides alone when it is there.
        vec![
            ("if-match", etag.as_str()),
            ("if-unmodified-since", "Sat, 01 Jan 2000 00:00:00 GMT"),
        ],
    ] {
        assert_eq!(
            site.get(EGG, &headers).status(),
            StatusCode::OK,
            "{headers:?}"
        );
    }
    for headers in [
        vec![("if-match", "\"stale\"")],
        vec![("if-match", weak.as_str())],
        // An empty If-Match is a list of no tags: nothing matches (docs/api.md).
        vec![("if-match", "")],
        vec![("if-unmodified-since", "Sat, 01 Jan 2000 00:00:00 GMT")],
    ] {
        let r = site.get(EGG, &headers);
        assert_eq!(r.status(), StatusCode::PRECONDITION_FAILED, "{headers:?}");
        let p = problem(&r, EGG);
        let detail = p["detail"].as_str().unwrap();
        assert!(
            detail.contains(&etag) && detail.contains(LAST_MODIFIED),
            "{detail}"
        );
        assert_common_headers(&r);
    }
    // The precondition comes before If-None-Match: a 412 even when the tag would give a 304.
    let r = site.get(EGG, &[("if-match", "\"stale\""), ("if-none-match", &etag)]);
    assert_eq!(r.status(), StatusCode::PRECONDITION_FAILED);
}

#[test]
fn a_304_of_a_content_named_asset_keeps_its_immutable_cache_control() {
    let site = Site::new("a");
    let path = format!("/{ASSET}");
    let etag = etag_of(&site.on_disk(ASSET), None);
    let r = site.get(&path, &[("if-none-match", &etag)]);
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(
        header(&r, "cache-control"),
        eggcat_wire::paths::IMMUTABLE_CACHE_CONTROL
    );
}
