//! The server's request handling (`App::handle`, the whole pipeline but the socket) with a real
//! snapshot loaded: the demo's eggs (demo/upstream) built by the real pipeline once, at start.
//! Any method, path, query and headers (`Accept-Encoding`, `If-Match`, `If-None-Match`,
//! `If-Modified-Since`, `If-Unmodified-Since`, `Range`, anything): no panic, a status the API
//! documents, and the headers docs/api.md's table "Headers of each kind of answer" gives it.
//!
//! Input: a request head as text: `METHOD target` on the first line, then `Name: value` lines.
//! Lines that are not valid HTTP are skipped, as the HTTP layer would refuse them first.
#![no_main]

use std::sync::{Arc, OnceLock};

use eggcat_server::{App, AppOptions};
use eggcat_store::Store;
use eggcat_upstream::{Limits, Source, SourceSpec};
use http::header::{self, HeaderName, HeaderValue};
use http::{Method, Request, StatusCode, Uri};
use libfuzzer_sys::fuzz_target;

const CACHE_CONTROL: &str = "public, max-age=300";

fn app() -> &'static Arc<App> {
    static APP: OnceLock<Arc<App>> = OnceLock::new();
    APP.get_or_init(|| {
        let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../demo/upstream");
        let spec = SourceSpec {
            url: demo.to_owned(),
            label: Some("demo".to_owned()),
            owner: Some("eggcat".to_owned()),
            repo: Some("demo-eggs".to_owned()),
            branch: Some("main".to_owned()),
            ..SourceSpec::default()
        };
        let source = Source::resolve(&spec, std::path::Path::new("/")).expect("the demo source");
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::new(dir.path());
        let options = eggcat_pipeline::BuildOptions {
            sources: vec![source],
            limits: Limits::default(),
            base_url: "http://127.0.0.1:8080".to_owned(),
            // No registry is asked: the fuzzed server answers from the snapshot alone.
            images: eggcat_images::Options {
                enabled: false,
                ..eggcat_images::Options::default()
            },
        };
        eggcat_pipeline::rebuild(&store, &options, &|| 1_763_856_000_000, &|_| {})
            .expect("the demo builds");
        let files = store.served().expect("a snapshot was published");
        let app = App::new(&AppOptions {
            cache_control: CACHE_CONTROL.to_owned(),
        })
        .expect("the app starts");
        app.install(&files).expect("the snapshot installs");
        // The server reads the snapshot's files as requests come: the folder stays for the
        // whole run.
        let _ = dir.keep();
        app
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or_default();
    let (method, target) = first.split_once(' ').unwrap_or(("GET", first));
    let Ok(method) = Method::from_bytes(method.as_bytes()) else {
        return;
    };
    let Ok(uri) = target.parse::<Uri>() else {
        return;
    };
    let mut builder = Request::builder().method(method.clone()).uri(uri);
    let mut accept_encoding = String::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.trim().as_bytes()),
            HeaderValue::from_str(value.trim()),
        ) else {
            continue;
        };
        if name == header::ACCEPT_ENCODING {
            // From the bytes, as the server reads it: a value with obs-text (bytes over 0x7f)
            // has no `to_str`, yet its ASCII tokens still name codings.
            accept_encoding
                .push_str(&String::from_utf8_lossy(value.as_bytes()).to_ascii_lowercase());
            accept_encoding.push(',');
        }
        builder = builder.header(name, value);
    }
    let Ok(request) = builder.body(()) else {
        return;
    };
    let response = app().handle(&request);
    let status = response.status();
    let h = response.headers();
    let has = |name: &HeaderName| h.contains_key(name);
    let is = |name: &HeaderName, value: &str| h.get(name).is_some_and(|v| v == value);
    let shown = format!("{method} {target} -> {status} {h:?}");

    // Every answer.
    assert!(is(&header::VARY, "Accept-Encoding"), "{shown}");
    assert!(is(&header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"), "{shown}");
    assert!(
        is(
            &header::ACCESS_CONTROL_EXPOSE_HEADERS,
            "ETag, Content-Length, Content-Encoding"
        ),
        "{shown}"
    );
    assert!(is(&header::X_CONTENT_TYPE_OPTIONS, "nosniff"), "{shown}");
    if let Some(coding) = h.get(header::CONTENT_ENCODING) {
        let coding = coding.to_str().expect("codings are ASCII");
        // Named, or allowed by `*`; `x-gzip` names gzip too.
        assert!(
            accept_encoding.contains(coding) || accept_encoding.contains('*'),
            "{coding} sent but not asked for: {shown}"
        );
    }
    if method == Method::HEAD {
        assert!(
            http_body_len(&response) == 0,
            "HEAD answered with a body: {shown}"
        );
    }
    let html = h
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    match status {
        StatusCode::OK => {
            assert!(has(&header::CONTENT_TYPE), "{shown}");
            assert!(has(&header::CACHE_CONTROL), "{shown}");
            assert_eq!(has(&header::ETAG), has(&header::LAST_MODIFIED), "{shown}");
            if html {
                assert!(has(&header::CONTENT_SECURITY_POLICY), "{shown}");
                assert!(has(&header::REFERRER_POLICY), "{shown}");
            }
            if method == Method::HEAD {
                assert!(has(&header::CONTENT_LENGTH), "{shown}");
            }
        }
        StatusCode::NOT_MODIFIED => {
            assert!(has(&header::ETAG) && has(&header::LAST_MODIFIED), "{shown}");
            assert!(has(&header::CACHE_CONTROL), "{shown}");
            assert!(!has(&header::CONTENT_TYPE), "{shown}");
            assert!(!has(&header::CONTENT_ENCODING), "{shown}");
            assert_eq!(http_body_len(&response), 0, "{shown}");
        }
        StatusCode::NO_CONTENT => {
            assert!(method == Method::OPTIONS, "{shown}");
            assert!(is(&header::ALLOW, "GET, HEAD, OPTIONS"), "{shown}");
        }
        StatusCode::PERMANENT_REDIRECT => {
            assert!(has(&header::LOCATION), "{shown}");
            assert!(is(&header::CACHE_CONTROL, "no-store"), "{shown}");
            assert!(!has(&header::ETAG), "{shown}");
        }
        StatusCode::BAD_REQUEST
        | StatusCode::NOT_FOUND
        | StatusCode::METHOD_NOT_ALLOWED
        | StatusCode::GONE
        | StatusCode::PRECONDITION_FAILED => {
            assert!(is(&header::CACHE_CONTROL, "no-store"), "{shown}");
            assert!(
                !has(&header::ETAG) && !has(&header::LAST_MODIFIED),
                "{shown}"
            );
            let problem = is(&header::CONTENT_TYPE, "application/problem+json");
            // Only a browser path's 404 gets the HTML page instead of a problem document.
            assert!(
                problem || (status == StatusCode::NOT_FOUND && html),
                "{shown}"
            );
            if status == StatusCode::METHOD_NOT_ALLOWED {
                assert!(is(&header::ALLOW, "GET, HEAD, OPTIONS"), "{shown}");
            }
            if problem && method != Method::HEAD {
                let body = response.body().clone();
                let bytes = futures_body(body);
                let doc: serde_json::Value =
                    serde_json::from_slice(&bytes).expect("a problem document is JSON");
                assert_eq!(doc["status"], status.as_u16(), "{shown}");
            }
        }
        other => panic!("undocumented status {other}: {shown}"),
    }
});

/// The length of a response's body (the bodies are in memory).
fn http_body_len(response: &http::Response<eggcat_server::Body>) -> usize {
    futures_body(response.body().clone()).len()
}

/// A full body's bytes, without a runtime: `Full` yields its one frame at once.
fn futures_body(body: eggcat_server::Body) -> bytes::Bytes {
    use http_body_util::BodyExt;
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut collect = std::pin::pin!(body.collect());
    match collect.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Ok(c)) => c.to_bytes(),
        std::task::Poll::Ready(Err(e)) => match e {},
        std::task::Poll::Pending => unreachable!("a full body is ready at once"),
    }
}
