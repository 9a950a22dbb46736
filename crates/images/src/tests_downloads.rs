//! Download checks against real servers on loopback (issue 38 §5): an HTTP file server this
//! test runs, behind `socat` speaking TLS with a certificate from a test CA that `openssl`
//! makes (the client trusts it through `ca_file`), reached by real-looking host names through
//! the `resolve` override. It serves files, a redirect, `404`, `410`, `429` with
//! `Retry-After`, a slow answer and a host that refuses `HEAD`. Without `openssl` and `socat`
//! the test says so on one line and checks nothing, unless `EGGCAT_REGISTRY_TESTS=require`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eggcat_testkit::tls::{self, Tls};

use super::*;

/// What the file server holds and saw.
#[derive(Default)]
struct State {
    files: BTreeSet<String>,
    busy_asked: usize,
    /// Where `/away` redirects to.
    away: String,
    requests: Vec<(String, String, String)>,
}

/// The plain HTTP server; its port.
fn file_server(state: Arc<Mutex<State>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let state = state.clone();
            std::thread::spawn(move || serve(stream, &state));
        }
    });
    port
}

fn serve(mut stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().expect("a stream"));
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            head.push(line.trim_end().to_owned());
        }
        let mut first = head[0].split(' ');
        let (method, path) = (
            first.next().unwrap_or_default().to_owned(),
            first.next().unwrap_or_default().to_owned(),
        );
        let host = head
            .iter()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("host: ")
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let host = host.split(':').next().unwrap_or_default().to_owned();
        let (status, extra) = {
            let mut s = state.lock().unwrap();
            s.requests
                .push((method.clone(), host.clone(), path.clone()));
            match (host.as_str(), method.as_str(), path.as_str()) {
                ("slow.example.org", _, _) => {
                    drop(s);
                    std::thread::sleep(Duration::from_secs(3));
                    (200, String::new())
                }
                ("nohead.example.net", "HEAD", _) => (405, String::new()),
                ("nohead.example.net", "GET", p) => {
                    let range = head
                        .iter()
                        .any(|l| l.eq_ignore_ascii_case("range: bytes=0-0"));
                    match (s.files.contains(p), range) {
                        (true, true) => (206, "Content-Range: bytes 0-0/5\r\n".to_owned()),
                        (true, false) => (200, String::new()),
                        (false, _) => (404, String::new()),
                    }
                }
                (_, _, "/gone") => (410, String::new()),
                (_, _, "/loop") => (302, "Location: /loop\r\n".to_owned()),
                (_, _, "/away") => (302, format!("Location: {}\r\n", s.away)),
                (_, _, "/moved") => (302, "Location: /files/a.zip\r\n".to_owned()),
                (_, _, "/busy") => {
                    s.busy_asked += 1;
                    if s.busy_asked == 1 {
                        (429, "Retry-After: 1\r\n".to_owned())
                    } else {
                        (200, String::new())
                    }
                }
                (_, _, p) if s.files.contains(p) => (200, String::new()),
                _ => (404, String::new()),
            }
        };
        let body = if method == "HEAD" { "" } else { "hello" };
        let body = if status == 206 { "h" } else { body };
        let length = if method == "HEAD" { 5 } else { body.len() };
        let response =
            format!("HTTP/1.1 {status} X\r\nContent-Length: {length}\r\n{extra}\r\n{body}");
        if stream.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

#[test]
fn downloads_are_present_missing_or_unknown_as_real_servers_answer() {
    if !tls::tools("download checks over TLS") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let names = [
        "files.example.com",
        "nohead.example.net",
        "slow.example.org",
    ];
    let (ca, server_pem) = tls::certificates(dir.path(), &names);
    let state = Arc::new(Mutex::new(State::default()));
    state
        .lock()
        .unwrap()
        .files
        .extend(["/files/a.zip", "/files/b.zip"].map(str::to_owned));
    let tls = Tls::start(&server_pem, file_server(state.clone()));
    let url = |host: &str, path: &str| format!("https://{host}:{}{path}", tls.port);
    // One request at a time per host: with two in flight, the slow host's two requests could
    // time out together, both asked, and which one spared the other would be a race.
    let options = Options {
        concurrency: 1,
        timeout: Duration::from_secs(1),
        budget: Duration::from_secs(20),
        ttl: Duration::from_secs(60),
        allow_internal: true,
        ca_file: Some(ca.clone()),
        resolve: names
            .iter()
            .map(|n| {
                (
                    (*n).to_owned(),
                    Resolution::Address("127.0.0.1".parse().unwrap()),
                )
            })
            .collect(),
        ..Options::default()
    };
    let a = url("files.example.com", "/files/a.zip");
    let b = url("files.example.com", "/files/b.zip");
    let none = url("files.example.com", "/files/none.zip");
    let gone = url("files.example.com", "/gone");
    let moved = url("files.example.com", "/moved");
    let busy = url("files.example.com", "/busy");
    let nohead = url("nohead.example.net", "/files/a.zip");
    let nohead_none = url("nohead.example.net", "/files/none.zip");
    let slow = url("slow.example.org", "/files/a.zip");
    let slow_too = url("slow.example.org", "/files/b.zip");
    let all = [
        &a,
        &b,
        &none,
        &gone,
        &moved,
        &busy,
        &nohead,
        &nohead_none,
        &slow,
        &slow_too,
    ]
    .map(|u| u.clone());
    let cache = dir.path().join("images.json");
    let clock = std::sync::atomic::AtomicU64::new(1_000_000);
    let now = || clock.load(std::sync::atomic::Ordering::SeqCst);
    let started = Instant::now();
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
    assert_eq!(
        status(&busy),
        ImageStatus::Present,
        "429 waited out, then asked again"
    );
    assert!(
        took >= Duration::from_secs(1),
        "Retry-After: 1 was honoured ({took:?})"
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
    {
        let s = state.lock().unwrap();
        let on = |host: &str, method: &str| {
            s.requests
                .iter()
                .filter(|(m, h, _)| h == host && m == method)
                .count()
        };
        assert_eq!(on("nohead.example.net", "HEAD"), 2, "HEAD first");
        assert_eq!(on("nohead.example.net", "GET"), 2, "then a ranged GET");
        assert_eq!(on("files.example.com", "GET"), 0, "HEAD answers: no GET");
    }

    // A file deleted: within the TTL the answer holds; past it, the first check says missing.
    state.lock().unwrap().files.remove("/files/b.zip");
    let asked = state.lock().unwrap().requests.len();
    let again = check_downloads(std::slice::from_ref(&b), &all, &options, Some(&cache), &now);
    assert_eq!(
        again[&b].status,
        ImageStatus::Present,
        "the answer holds for the TTL"
    );
    assert_eq!(state.lock().unwrap().requests.len(), asked, "nothing asked");
    clock.fetch_add(61_000, std::sync::atomic::Ordering::SeqCst);
    let later = check_downloads(std::slice::from_ref(&b), &all, &options, Some(&cache), &now);
    assert_eq!(later[&b].status, ImageStatus::Missing);

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
    let asked = state.lock().unwrap().requests.len();
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
    assert_eq!(state.lock().unwrap().requests.len(), asked, "nothing asked");
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
    let names = ["files.example.com", "refusing.example.net"];
    let (ca, server_pem) = tls::certificates(dir.path(), &names);
    let state = Arc::new(Mutex::new(State::default()));
    state
        .lock()
        .unwrap()
        .files
        .insert("/files/a.zip".to_owned());
    let tls = Tls::start(&server_pem, file_server(state.clone()));
    let closed_port = TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("its address")
        .port();
    state.lock().unwrap().away = format!("https://refusing.example.net:{closed_port}/x.zip");
    let url = |path: &str| format!("https://files.example.com:{}{path}", tls.port);
    let options = Options {
        concurrency: 1,
        timeout: Duration::from_secs(2),
        budget: Duration::from_secs(20),
        allow_internal: true,
        ca_file: Some(ca),
        resolve: names
            .iter()
            .map(|n| {
                let address = Resolution::Address("127.0.0.1".parse().unwrap());
                ((*n).to_owned(), address)
            })
            .collect(),
        ..Options::default()
    };
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
    assert_eq!(
        found[&file].status,
        ImageStatus::Present,
        "the host's other URL is asked: {:?}",
        found[&file]
    );
}
