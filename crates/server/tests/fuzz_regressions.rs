//! The requests the fuzz target `server` (fuzz/fuzz_targets/server.rs) found answered wrongly,
//! kept as regression tests: each file of tests/fuzz/server/ is one request head in the
//! target's shape (`METHOD target`, then `Name: value` lines), named after the bug it pinned.
//! The answers checked here do not need a catalog (the query is refused before one is read).

use eggcat_server::{App, AppOptions};
use http::{Method, Request};
use http_body_util::BodyExt;

#[test]
fn a_head_is_answered_without_a_body() {
    let app = App::new(&AppOptions {
        cache_control: "no-cache".to_owned(),
    })
    .expect("the app starts");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/server");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz/server is committed") {
        let path = entry.expect("a readable entry").path();
        let text = std::fs::read_to_string(&path).expect("a request head");
        let mut lines = text.lines();
        let (method, target) = lines
            .next()
            .and_then(|l| l.split_once(' '))
            .expect("a request line");
        let mut request = Request::builder().method(method).uri(target);
        for (name, value) in lines.filter_map(|l| l.split_once(':')) {
            request = request.header(name.trim(), value.trim());
        }
        let request = request.body(()).expect("a valid request");
        let response = app.handle(&request);
        if request.method() == Method::HEAD {
            let body = futures_executor(response.body().clone());
            assert!(body.is_empty(), "{}: a HEAD got a body", path.display());
            assert!(
                response
                    .headers()
                    .contains_key(http::header::CONTENT_LENGTH),
                "{}: a HEAD without Content-Length",
                path.display()
            );
        }
        seen += 1;
    }
    assert!(seen >= 1, "no regression input in {}", dir.display());
}

/// A full body's bytes: `Full` is ready at once, so one poll with a no-op waker reads it.
fn futures_executor(body: eggcat_server::Body) -> bytes::Bytes {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let mut collect = std::pin::pin!(body.collect());
    match collect.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Ok(c)) => c.to_bytes(),
        std::task::Poll::Ready(Err(e)) => match e {},
        std::task::Poll::Pending => panic!("a full body is ready at once"),
    }
}
