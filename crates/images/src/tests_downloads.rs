//! Download checks against a real server on loopback (issue 38 §5): nginx, run by the test as
//! its own process (`eggcat_testkit::nginx`), serving HTTPS itself with a certificate from a
//! test CA that `openssl` makes (the client trusts it through `ca_file`), reached by
//! real-looking host names through the `resolve` override. Each case is nginx's own behaviour,
//! one `server` block per host name:
//!
//! - files: a root folder (a file deleted from it is nginx's `404`);
//! - redirects: `return 302` (to a file, to itself: a loop, to a host that refuses connections);
//! - `return 410`, `return 503`;
//! - `429` with `Retry-After`: `limit_req` (one request per 2 s, `limit_req_status 429`,
//!   `add_header Retry-After 2 always`), so that a second request in a row is refused and the
//!   same request asked again after the wait is answered;
//! - a slow answer: `limit_rate 64` (bytes a second), which nginx applies to the response head
//!   too, so even a `HEAD`'s answer takes about 3 s to arrive (a host over a saturated link);
//! - a host that refuses `HEAD`: `if ($request_method = HEAD) { return 405; }`, with nginx
//!   answering the ranged `GET` with `206`;
//! - GitHub's `releases/latest`: `return 302` to `/releases/tag/…` or, for a repository without
//!   a release, to `/releases`, as github.com answers.
//!
//! What the client sent is read from nginx's access log (method, host, URI, `Range`,
//! `User-Agent`). Without nginx and openssl the tests say so on one line and check nothing,
//! unless `EGGCAT_REGISTRY_TESTS=require`.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use eggcat_testkit::nginx::{self, Logged, Nginx};
use eggcat_testkit::tls::{self, Certificates};

use super::*;

/// The files of the servers' root folder.
const FILES: [&str; 5] = [
    "files/a.zip",
    "files/b.zip",
    "busy/a.zip",
    "busy/b.zip",
    "github/o/r/releases/tag/v1.0",
];

/// nginx serving HTTPS for the test's hosts from `root`, with `certs`; `refused_port` is a
/// port nothing listens on (where `/away` redirects).
fn start(work: &Path, root: &Path, certs: &Certificates, refused_port: u16) -> Nginx {
    for file in FILES.iter().chain(&["github/o/none/releases"]) {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folders");
        std::fs::write(path, "hello").expect("a file");
    }
    let bin = nginx::binary().expect("nginx is installed (checked by tls::tools)");
    let (root, cert, key) = (root.display(), certs.cert.display(), certs.key.display());
    Nginx::start(&bin, work, |port| {
        let listen = format!("listen 127.0.0.1:{port} ssl;");
        let github = format!("https://github.com:{port}");
        format!(
            r#"
  ssl_certificate {cert};
  ssl_certificate_key {key};
  limit_req_zone $server_name zone=busy:1m rate=30r/m;
  server {{
    {listen}
    server_name files.example.com;
    root {root};
    location = /gone {{ return 410; }}
    location = /broken {{ return 503; }}
    location = /moved {{ return 302 /files/a.zip; }}
    location = /loop {{ return 302 /loop; }}
    location = /away {{ return 302 https://refusing.example.net:{refused_port}/x.zip; }}
    location /busy/ {{
      limit_req zone=busy;
      limit_req_status 429;
      add_header Retry-After 2 always;
    }}
  }}
  server {{
    {listen}
    server_name nohead.example.net;
    root {root};
    if ($request_method = HEAD) {{ return 405; }}
  }}
  server {{
    {listen}
    server_name slow.example.org;
    root {root};
    limit_rate 64;
  }}
  server {{
    {listen}
    server_name github.com;
    root {root}/github;
    location = /o/r/releases/latest {{ return 302 {github}/o/r/releases/tag/v1.0; }}
    location = /o/none/releases/latest {{ return 302 {github}/o/none/releases; }}
  }}"#
        )
    })
}

const NAMES: [&str; 5] = [
    "files.example.com",
    "nohead.example.net",
    "slow.example.org",
    "github.com",
    "refusing.example.net",
];

/// The options of these tests: `ca` trusted, every name on 127.0.0.1.
fn options(ca: Option<&Path>, timeout: Duration) -> Options {
    Options {
        // One request at a time per host: with two in flight, the slow host's two requests
        // could time out together, both asked, and which one spared the other would be a race.
        concurrency: 1,
        timeout,
        budget: Duration::from_secs(20),
        ttl: Duration::from_secs(60),
        allow_internal: true,
        ca_file: ca.map(Path::to_path_buf),
        resolve: NAMES
            .iter()
            .map(|n| {
                let address = Resolution::Address("127.0.0.1".parse().expect("an address"));
                ((*n).to_owned(), address)
            })
            .collect(),
        ..Options::default()
    }
}

/// A port of 127.0.0.1 nothing listens on: connections to it are refused.
fn refused_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("its address")
        .port()
}

#[test]
fn downloads_are_present_missing_or_unknown_as_real_servers_answer() {
    if !tls::tools("download checks over TLS") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let certs = tls::certificates(dir.path(), &NAMES);
    let root = dir.path().join("root");
    let server = start(&dir.path().join("nginx"), &root, &certs, refused_port());
    let url = |host: &str, path: &str| format!("https://{host}:{}{path}", server.port);
    let options = options(Some(&certs.ca), Duration::from_secs(1));
    let a = url("files.example.com", "/files/a.zip");
    let b = url("files.example.com", "/files/b.zip");
    let none = url("files.example.com", "/files/none.zip");
    let gone = url("files.example.com", "/gone");
    let broken = url("files.example.com", "/broken");
    let moved = url("files.example.com", "/moved");
    // Asked in this order (by URL, one at a time): the first passes nginx's `limit_req`, the
    // second, right after it, is refused with 429.
    let busy_first = url("files.example.com", "/busy/a.zip");
    let busy = url("files.example.com", "/busy/b.zip");
    let nohead = url("nohead.example.net", "/files/a.zip");
    let nohead_none = url("nohead.example.net", "/files/none.zip");
    let slow = url("slow.example.org", "/files/a.zip");
    let slow_too = url("slow.example.org", "/files/b.zip");
    let all = [
        &a,
        &b,
        &none,
        &gone,
        &broken,
        &moved,
        &busy_first,
        &busy,
        &nohead,
        &nohead_none,
        &slow,
        &slow_too,
    ]
    .map(|u| u.clone());
    let cache = dir.path().join("images.json");
    // The test's clock runs with the wall clock's (a `Retry-After` is waited out on it), and
    // jumps past the TTL when the test says.
    let clock = std::sync::atomic::AtomicU64::new(1_000_000);
    let started = Instant::now();
    let now = || {
        let ran = u64::try_from(started.elapsed().as_millis()).expect("a short test");
        clock.load(std::sync::atomic::Ordering::SeqCst) + ran
    };
    let found = check_downloads(&all, &all, &options, Some(&cache), &now);
    let took = started.elapsed();
    let status = |u: &String| found[u].status;
    assert_eq!(status(&a), ImageStatus::Present, "{:?}", found[&a]);
    assert_eq!(status(&moved), ImageStatus::Present, "a redirect to a file");
    assert_eq!(status(&none), ImageStatus::Missing);
    assert_eq!(
        found[&none].detail.as_deref(),
        Some("the host answered 404")
    );
    assert_eq!(status(&gone), ImageStatus::Missing);
    assert_eq!(
        found[&gone].detail.as_deref(),
        Some("the host answered 410")
    );
    assert_eq!(status(&broken), ImageStatus::Unknown, "a 503 is no missing");
    assert_eq!(
        found[&broken].detail.as_deref(),
        Some("the host answered 503"),
        "a download host is no registry"
    );
    assert_eq!(status(&busy_first), ImageStatus::Present);
    assert_eq!(
        status(&busy),
        ImageStatus::Present,
        "429 waited out, then asked again: {:?}",
        found[&busy]
    );
    assert!(
        took >= Duration::from_secs(2),
        "Retry-After: 2 was honoured ({took:?})"
    );
    assert_eq!(
        status(&nohead),
        ImageStatus::Present,
        "{:?}",
        found[&nohead]
    );
    assert_eq!(status(&nohead_none), ImageStatus::Missing);
    assert_eq!(status(&slow), ImageStatus::Unknown, "slow is never missing");
    assert_eq!(status(&slow_too), ImageStatus::Unknown);
    let slow_details: BTreeSet<&str> = [&slow, &slow_too]
        .iter()
        .map(|u| found[*u].detail.as_deref().unwrap_or_default())
        .collect();
    assert!(
        slow_details.contains("no answer within 1 s")
            && slow_details
                .iter()
                .any(|d| d.contains("failed earlier in this check")),
        "the slow host failed once: {slow_details:?}"
    );
    let seen = server.requests();
    let on = |host: &str, method: &str| -> Vec<&Logged> {
        seen.iter()
            .filter(|l| l.host == host && l.method == method)
            .collect()
    };
    let nohead_heads = on("nohead.example.net", "HEAD");
    assert_eq!(nohead_heads.len(), 2, "HEAD first: {seen:#?}");
    assert!(nohead_heads.iter().all(|l| l.status == 405));
    let nohead_gets = on("nohead.example.net", "GET");
    assert_eq!(nohead_gets.len(), 2, "then a ranged GET: {seen:#?}");
    assert!(
        nohead_gets
            .iter()
            .all(|l| l.range.as_deref() == Some("bytes=0-0")),
        "of the first byte only: {nohead_gets:#?}"
    );
    let statuses: BTreeSet<u16> = nohead_gets.iter().map(|l| l.status).collect();
    assert_eq!(statuses, BTreeSet::from([206, 404]), "{nohead_gets:#?}");
    assert!(
        on("files.example.com", "GET").is_empty(),
        "HEAD answers: no GET"
    );
    // The 429 was nginx's, and the same request came back after the 2 s it asked for.
    let busy_asked: Vec<&Logged> = seen.iter().filter(|l| l.uri == "/busy/b.zip").collect();
    assert_eq!(
        busy_asked.iter().map(|l| l.status).collect::<Vec<_>>(),
        [429, 200],
        "{busy_asked:#?}"
    );
    assert!(
        busy_asked[1].at_ms - busy_asked[0].at_ms >= 2000,
        "asked again after Retry-After: {busy_asked:#?}"
    );
    assert!(
        seen.iter().all(|l| l
            .user_agent
            .as_deref()
            .is_some_and(|ua| ua.starts_with("eggcat/") && ua.ends_with("(download checks)"))),
        "every request names eggcat: {seen:#?}"
    );

    // A file deleted: within the TTL the answer holds; past it, the first check says missing.
    std::fs::remove_file(root.join("files/b.zip")).expect("b.zip deleted");
    let asked = server.requests().len();
    let again = check_downloads(std::slice::from_ref(&b), &all, &options, Some(&cache), &now);
    assert_eq!(
        again[&b].status,
        ImageStatus::Present,
        "the answer holds for the TTL"
    );
    assert_eq!(server.requests().len(), asked, "nothing asked");
    clock.fetch_add(61_000, std::sync::atomic::Ordering::SeqCst);
    let later = check_downloads(std::slice::from_ref(&b), &all, &options, Some(&cache), &now);
    assert_eq!(later[&b].status, ImageStatus::Missing);
    assert!(
        server
            .requests()
            .iter()
            .any(|l| l.uri == "/files/b.zip" && l.status == 404),
        "nginx answered 404 for the deleted file"
    );

    // The CA not trusted: the TLS failure is unknown, never missing.
    let untrusted = Options {
        ca_file: None,
        ..options.clone()
    };
    let found = check_downloads(std::slice::from_ref(&none), &all, &untrusted, None, &now);
    assert_eq!(
        found[&none].status,
        ImageStatus::Unknown,
        "{:?}",
        found[&none]
    );

    // Internal addresses not allowed: nothing is asked.
    let asked = server.requests().len();
    let closed = Options {
        allow_internal: false,
        ..options
    };
    let found = check_downloads(std::slice::from_ref(&a), &all, &closed, None, &now);
    assert_eq!(found[&a].status, ImageStatus::Unknown);
    assert_eq!(
        found[&a].detail.as_deref(),
        Some("`files.example.com` resolves to an internal address (127.0.0.1): not asked")
    );
    assert_eq!(server.requests().len(), asked, "nothing asked");
}

/// A failure that belongs to one URL (a redirect loop) or to another host (a redirect to a host
/// that refuses connections) is that URL's `unknown`, and does not end its host's turn: the
/// host's other URLs are still asked. Before this was mended, both marked `files.example.com`
/// failed and its present file `unknown` without asking.
#[test]
fn a_redirect_that_fails_does_not_fail_its_host() {
    if !tls::tools("download checks over TLS") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let certs = tls::certificates(dir.path(), &NAMES);
    let refused = refused_port();
    let server = start(
        &dir.path().join("nginx"),
        &dir.path().join("root"),
        &certs,
        refused,
    );
    let url = |path: &str| format!("https://files.example.com:{}{path}", server.port);
    let options = options(Some(&certs.ca), Duration::from_secs(2));
    // Asked in this order (by URL): the two failing redirects first, then the file.
    let (away, looping, file) = (url("/away"), url("/loop"), url("/files/a.zip"));
    let all = [away.clone(), looping.clone(), file.clone()];
    let found = check_downloads(&all, &all, &options, None, &|| 1_000_000);
    for failing in [&away, &looping] {
        assert_eq!(found[failing].status, ImageStatus::Unknown, "{failing}");
        let detail = found[failing].detail.as_deref().unwrap_or_default();
        assert!(!detail.contains("failed earlier"), "{failing}: {detail}");
    }
    assert!(
        found[&looping]
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("redirect")),
        "{:?}",
        found[&looping]
    );
    let away_detail = found[&away].detail.as_deref().unwrap_or_default();
    assert!(
        away_detail.contains(&format!("cannot reach `refusing.example.net:{refused}`"))
            && !away_detail.contains("registry"),
        "the host that cannot be reached is named: {away_detail}"
    );
    assert_eq!(
        found[&file].status,
        ImageStatus::Present,
        "the host's other URL is asked: {:?}",
        found[&file]
    );
    let loops = server
        .requests()
        .iter()
        .filter(|l| l.uri == "/loop")
        .count();
    assert_eq!(loops, 6, "the URL and five redirects, no more");
}

/// Regression: a download host that cannot be reached was "cannot reach the registry", the
/// image checks' words, on the egg page, in the document and in `validate --downloads`. No
/// server: the port refuses connections.
#[test]
fn a_download_host_that_cannot_be_reached_is_named_not_called_a_registry() {
    let refused = refused_port();
    let url = format!("http://refusing.example.net:{refused}/x.zip");
    let options = options(None, Duration::from_secs(2));
    let found = check_downloads(
        std::slice::from_ref(&url),
        std::slice::from_ref(&url),
        &options,
        None,
        &|| 1_000_000,
    );
    assert_eq!(found[&url].status, ImageStatus::Unknown);
    let detail = found[&url].detail.as_deref().unwrap_or_default();
    assert!(
        detail.starts_with(&format!("cannot reach `refusing.example.net:{refused}`: ")),
        "{detail}"
    );
}

/// Regression: `github.com/O/R/releases/latest` of a repository without a release redirects to
/// its releases page (`/O/R/releases`, `200`), which counted as present; the API's answer to
/// the same question (which eggcat asks on the web) is `404`. Such a chain is now missing; one
/// that ends on a release's tag is present.
#[test]
fn a_github_repository_without_a_release_has_no_latest_release() {
    if !tls::tools("download checks over TLS") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let certs = tls::certificates(dir.path(), &NAMES);
    let server = start(
        &dir.path().join("nginx"),
        &dir.path().join("root"),
        &certs,
        refused_port(),
    );
    let url = |path: &str| format!("https://github.com:{}{path}", server.port);
    let options = options(Some(&certs.ca), Duration::from_secs(2));
    let (released, none) = (url("/o/r/releases/latest"), url("/o/none/releases/latest"));
    let all = [released.clone(), none.clone()];
    let found = check_downloads(&all, &all, &options, None, &|| 1_000_000);
    assert_eq!(
        found[&released].status,
        ImageStatus::Present,
        "{:?}",
        found[&released]
    );
    assert_eq!(
        found[&none].status,
        ImageStatus::Missing,
        "{:?}",
        found[&none]
    );
    assert_eq!(
        found[&none].detail.as_deref(),
        Some("the repository has no release: `releases/latest` leads to its releases page")
    );
    let seen = server.requests();
    let statuses: Vec<(&str, u16)> = seen.iter().map(|l| (l.uri.as_str(), l.status)).collect();
    assert!(
        statuses.contains(&("/o/none/releases/latest", 302))
            && statuses.contains(&("/o/none/releases", 200)),
        "nginx redirected as github.com does, to a page that answers: {statuses:?}"
    );
}
