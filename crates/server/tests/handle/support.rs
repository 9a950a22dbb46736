//! The fixture: a small published tree, written as a snapshot through `eggcat-store`'s own
//! `save` (precompressed forms and manifest included, as a build writes them), served by an
//! [`App`] that opened it from disk; and requests sent straight to [`App::handle`].

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use eggcat_server::{App, AppOptions};
use eggcat_store::Store;
use eggcat_wire::Report;
use eggcat_wire::paths;
use http::{Request, Response};
use http_body_util::BodyExt;
use sha2::{Digest, Sha256};

/// The `Cache-Control` the fixture's app is configured with.
pub(crate) const CACHE_CONTROL: &str = "public, max-age=300";

/// When the fixture's builds finished: every document's `Last-Modified`.
pub(crate) const FINISHED_AT: &str = "2023-11-14T22:13:20.000Z";
pub(crate) const LAST_MODIFIED: &str = "Tue, 14 Nov 2023 22:13:20 GMT";

/// The content-named stylesheet (`paths::is_immutable`).
pub(crate) const ASSET: &str = "assets/eggcat-0123456789abcdef.css";

/// A served catalog: its `data_dir` (in a temporary folder) and the app serving it.
pub(crate) struct Site {
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) app: Arc<App>,
}

impl Site {
    /// The fixture's tree ([`tree`] of `tag`), saved and served.
    pub(crate) fn new(tag: &str) -> Site {
        Site::with(tree(tag))
    }

    /// `files` saved and served.
    pub(crate) fn with(files: BTreeMap<String, Vec<u8>>) -> Site {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        save(&tmp.path().join("data"), files);
        let app = app();
        install(&app, &tmp.path().join("data"));
        Site { tmp, app }
    }

    pub(crate) fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// The folder of the snapshot being served.
    pub(crate) fn snapshot_dir(&self) -> PathBuf {
        Store::new(self.data())
            .current_dir()
            .expect("a current snapshot")
    }

    /// The bytes of the file at `path` of the current snapshot on disk (a form included).
    pub(crate) fn on_disk(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.snapshot_dir().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    pub(crate) fn get(&self, path: &str, headers: &[(&str, &str)]) -> Response<Bytes> {
        send(&self.app, "GET", path, headers)
    }

    pub(crate) fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Response<Bytes> {
        send(&self.app, method, path, headers)
    }
}

/// An app with no catalog yet.
pub(crate) fn app() -> Arc<App> {
    App::new(&AppOptions {
        cache_control: CACHE_CONTROL.to_owned(),
    })
    .expect("a valid Cache-Control")
}

/// Makes `app` serve the current snapshot of `data`, as `eggcat serve` does.
pub(crate) fn install(app: &Arc<App>, data: &Path) -> usize {
    let served = Store::new(data).served().expect("a current snapshot");
    app.install(&served).expect("the snapshot opens")
}

/// Saves `files` (their status document among them) as the current snapshot of `data`.
pub(crate) fn save(data: &Path, files: BTreeMap<String, Vec<u8>>) -> PathBuf {
    let report: Report =
        serde_json::from_slice(&files[paths::STATUS]).expect("the tree has a report");
    let catalog = eggcat_wire::Catalog {
        files,
        report,
        state: Default::default(),
    };
    Store::new(data)
        .save(&catalog, &HashSet::new())
        .expect("the snapshot is saved")
        .1
}

/// The build report of a build `build_id` of `eggs` eggs.
pub(crate) fn report(build_id: &str, eggs: usize) -> Vec<u8> {
    let report = Report {
        interface_version: eggcat_wire::INTERFACE_VERSION.to_owned(),
        build_id: build_id.to_owned(),
        started_at: "2023-11-14T22:13:19.000Z".to_owned(),
        finished_at: FINISHED_AT.to_owned(),
        eggs,
        ..Report::default()
    };
    serde_json::to_vec(&report).expect("a report serializes")
}

/// A small published tree whose documents all say `tag`: documents over and under the 256
/// bytes below which no form is stored, an import file, pages (`404.html` among them), an
/// asset, an icon, and one removed egg (`gone`).
pub(crate) fn tree(tag: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut put = |path: &str, bytes: Vec<u8>| {
        files.insert(path.to_owned(), bytes);
    };
    put(paths::STATUS, report(&format!("build-{tag}"), 2));
    let items: Vec<String> = ["mumble", "paper"]
        .iter()
        .map(|s| {
            format!(
                r#"{{"slug":"{s}","name":"{s} {tag}","category":"games","repo":"eggs","source":"test"}}"#
            )
        })
        .collect();
    let mut index = format!("[{}]", items.join(",")).into_bytes();
    // Padded past the 256 bytes a form needs, with JSON's own whitespace.
    index.extend(std::iter::repeat_n(b' ', 300));
    put(paths::INDEX, index);
    put(
        paths::NAMES,
        format!(r#"["mumble {tag}","paper {tag}"]"#).into_bytes(),
    );
    put(&paths::egg("paper"), egg_doc("paper", tag));
    put(&paths::egg("mumble"), egg_doc("mumble", tag));
    put(
        &paths::egg_file("paper", "pelican.yaml"),
        format!("name: paper {tag}\ndescription: {}\n", "words ".repeat(80)).into_bytes(),
    );
    put(
        paths::REMOVED,
        br#"[{"slug":"gone","removedAt":"2023-11-01T00:00:00.000Z","source":"test/eggs","path":"games/egg-gone.json"}]"#
            .to_vec(),
    );
    put(paths::CATALOG_PAGE, page(&format!("catalog {tag}")));
    put(&paths::egg_page("paper"), page(&format!("paper {tag}")));
    put(paths::NOT_FOUND_PAGE, page(&format!("not found {tag}")));
    put(
        ASSET,
        format!("body {{ color: black; }}\n{}", "/* css */\n".repeat(40)).into_bytes(),
    );
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend((0..600u32).map(|i| (i * 7 % 251) as u8));
    put(&paths::icon("paper", "png"), png);
    files
}

/// An egg document of about 2 KiB.
pub(crate) fn egg_doc(slug: &str, tag: &str) -> Vec<u8> {
    format!(
        r#"{{"egg":{{"name":"{slug} {tag}","description":"{}"}},"meta":{{"slug":"{slug}"}}}}"#,
        "a long description ".repeat(100)
    )
    .into_bytes()
}

fn page(title: &str) -> Vec<u8> {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1>{}</body></html>",
        "<p>text of the page</p>".repeat(30)
    )
    .into_bytes()
}

/// The strong ETag the API promises for `bytes` (docs/api.md, "ETag and If-None-Match"): the
/// first 20 hex digits of their SHA-256, quoted, with `-br` or `-gzip` for a compressed form.
pub(crate) fn etag_of(identity: &[u8], coding: Option<&str>) -> String {
    let hex: String = Sha256::digest(identity)[..10]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    match coding {
        Some(c) => format!("\"{hex}-{c}\""),
        None => format!("\"{hex}\""),
    }
}

/// Sends one request to the app and collects the answer.
pub(crate) fn send(
    app: &App,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Response<Bytes> {
    let mut req = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let response = app.handle(&req.body(()).expect("a valid request"));
    let (parts, body) = response.into_parts();
    let bytes = ready(body.collect()).expect("a full body").to_bytes();
    Response::from_parts(parts, bytes)
}

/// The output of a future that is ready at its first poll (a `Full` body, a stored
/// notification); `None` when it is not.
pub(crate) fn try_ready<F: std::future::Future>(f: F) -> Option<F::Output> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(f).as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}

fn ready<F: std::future::Future>(f: F) -> F::Output {
    try_ready(f).expect("ready at once")
}

/// The value of header `name`; panics when it is absent.
pub(crate) fn header<'a>(r: &'a Response<Bytes>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header ({})", r.status()))
        .to_str()
        .expect("a visible ASCII header")
}

/// The problem document of an error answer, checked for the fields every one has (RFC 9457, as
/// docs/api.md "Errors" describes them), with its `instance`.
pub(crate) fn problem(r: &Response<Bytes>, instance: &str) -> serde_json::Value {
    assert_eq!(header(r, "content-type"), "application/problem+json");
    assert_eq!(header(r, "cache-control"), "no-store");
    let p: serde_json::Value = serde_json::from_slice(r.body()).expect("a JSON problem");
    assert_eq!(p["type"], "about:blank");
    assert_eq!(p["status"], r.status().as_u16());
    assert_eq!(
        p["title"],
        r.status().canonical_reason().expect("a known status")
    );
    assert_eq!(p["instance"], instance);
    p
}
