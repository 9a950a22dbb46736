//! End to end on a real port: a real HTTP client, hostile clients, the connection cap, graceful
//! shutdown, and catalogs swapped while many clients read.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use eggcat_server::{App, AppOptions, ServeOptions, Server};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::http::served_catalog;
use crate::support::*;

struct Running {
    addr: SocketAddr,
    server: Option<Server>,
}

fn start(app: Arc<App>, options: ServeOptions) -> Running {
    let server = Server::start("127.0.0.1:0", app, options).unwrap();
    Running {
        addr: server.local_addr(),
        server: Some(server),
    }
}

impl Running {
    /// Stops the server without blocking the runtime; the handle completes when it has stopped.
    fn stop(&mut self) -> tokio::task::JoinHandle<()> {
        let server = self.server.take().expect("stopped once");
        tokio::task::spawn_blocking(move || server.stop())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            std::thread::spawn(move || server.stop());
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Empty<Bytes>>;

fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

async fn fetch(
    client: &HttpClient,
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, Bytes) {
    let mut req = http::Request::get(format!("http://{addr}{path}"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = client
        .request(req.body(Empty::new()).unwrap())
        .await
        .expect("request succeeds");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, headers, body)
}

/// Sends raw bytes and returns everything the server answers until it closes (or `wait` ends).
fn raw(addr: SocketAddr, request: &[u8], wait: Duration) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(wait)).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn a_real_client_gets_documents_encodings_and_304s() {
    let (_tmp, app, files) = served_catalog();
    runtime().block_on(async {
        let mut server = start(app, ServeOptions::default());
        let c = client();
        let (status, headers, body) = fetch(&c, server.addr, "/api/v1/eggs/_index.json", &[]).await;
        assert_eq!(status, 200);
        assert_eq!(
            body.as_ref(),
            files.files["api/v1/eggs/_index.json"].as_slice()
        );
        let etag = headers["etag"].to_str().unwrap().to_owned();
        let (status, headers, body) = fetch(
            &c,
            server.addr,
            "/api/v1/eggs/_index.json",
            &[("if-none-match", &etag)],
        )
        .await;
        assert_eq!((status, body.len()), (304, 0));
        assert_eq!(headers["vary"], "Accept-Encoding");
        let (status, headers, body) = fetch(
            &c,
            server.addr,
            "/api/v1/eggs/eggs-paper",
            &[("accept-encoding", "gzip")],
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(headers["content-encoding"], "gzip");
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(body.as_ref())
            .read_to_end(&mut plain)
            .unwrap();
        assert_eq!(plain, files.files["api/v1/eggs/eggs-paper.json"]);
        let (status, _, _) = fetch(&c, server.addr, "/api/v1/eggs/missing", &[]).await;
        assert_eq!(status, 404);
        server.stop().await.unwrap();
    });
}

/// `bytes` of text that gzip cannot shrink much: lines of pseudo-random lowercase words.
fn hard_to_compress(bytes: usize) -> String {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut text = String::with_capacity(bytes + 80);
    while text.len() < bytes {
        for _ in 0..12 {
            for _ in 0..(3 + state % 6) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push(char::from(b'a' + ((state >> 33) % 26) as u8));
            }
            text.push(' ');
        }
        text.push('\n');
    }
    text
}

#[test]
fn large_bodies_are_sent_whole_from_their_files_and_from_memory_when_a_file_shrinks() {
    // An egg with a large README: its page, and the gzip form of it, are past the size the
    // server sends with `sendfile` (64 KiB).
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("games/big/egg-big.json", egg_json("Big"))
        .write("games/big/README.md", hard_to_compress(300_000))
        .write("games/small/egg-small.json", egg_json("Small"))
        .commit("eggs");
    let data = tmp.path().join("data");
    build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    );
    let app = App::new(&AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    install_current(&app, &data);
    let files = eggcat_store::Store::new(&data)
        .read_current()
        .unwrap()
        .unwrap();
    let large: Vec<(&String, &Vec<u8>)> = files
        .files
        .iter()
        .filter(|(_, body)| body.len() >= 64 * 1024)
        .collect();
    assert!(!large.is_empty(), "no published file of 64 KiB or more");
    let large_gzip = large
        .iter()
        .filter(|(path, _)| {
            files
                .precompressed
                .get(&format!("{path}.gz"))
                .is_some_and(|gz| gz.len() >= 64 * 1024)
        })
        .count();
    assert!(large_gzip > 0, "no gzip form of 64 KiB or more");
    let current = data.join("current");
    runtime().block_on(async {
        let server = start(app, ServeOptions::default());
        let c = client();
        // Each large body whole, plain and gzip, twice (the second time from the body cache),
        // with a small document between them on the same connections.
        let check = |path: String, want: Vec<u8>| {
            let c = c.clone();
            async move {
                let (status, _, body) = fetch(&c, server.addr, &path, &[]).await;
                assert_eq!(status, 200, "{path}");
                assert!(
                    body.as_ref() == want.as_slice(),
                    "{path}: {} bytes",
                    body.len()
                );
                let (status, headers, body) =
                    fetch(&c, server.addr, &path, &[("accept-encoding", "gzip")]).await;
                assert_eq!(status, 200, "{path}");
                let mut plain = Vec::new();
                if headers.get("content-encoding").is_some_and(|e| e == "gzip") {
                    flate2::read::GzDecoder::new(body.as_ref())
                        .read_to_end(&mut plain)
                        .unwrap();
                } else {
                    plain = body.to_vec();
                }
                assert!(plain == want, "{path} (gzip): {} bytes", plain.len());
                let (status, _, _) = fetch(&c, server.addr, "/healthz", &[]).await;
                assert_eq!(status, 200);
            }
        };
        for _ in 0..2 {
            for (path, want) in &large {
                check(format!("/{path}"), want.to_vec()).await;
            }
        }
        // A file that shrank after its bytes were read and checked (damaged since): the answer
        // is still the whole body, the rest of it from memory, never part of it.
        for (path, want) in &large {
            std::fs::write(current.join(path), &want[..want.len() / 3]).unwrap();
            let gz = current.join(format!("{path}.gz"));
            if gz.exists() {
                std::fs::write(&gz, b"").unwrap();
            }
        }
        for (path, want) in &large {
            check(format!("/{path}"), want.to_vec()).await;
        }
    });
}

#[test]
fn head_over_the_wire_has_the_length_and_no_body() {
    let (_tmp, app, files) = served_catalog();
    runtime().block_on(async {
        let server = start(app, ServeOptions::default());
        let addr = server.addr;
        let answer = tokio::task::spawn_blocking(move || {
            raw(
                addr,
                b"HEAD /api/v1/eggs/_index.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                Duration::from_secs(5),
            )
        })
        .await
        .unwrap();
        let len = files.files["api/v1/eggs/_index.json"].len();
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(
            answer.contains(&format!("content-length: {len}\r\n")),
            "{answer}"
        );
        assert!(
            answer.ends_with("\r\n\r\n"),
            "no body after the head: {answer}"
        );
    });
}

#[test]
fn hostile_requests_get_4xx_and_never_a_file() {
    let (_tmp, app, _) = served_catalog();
    runtime().block_on(async {
        let server = start(app, ServeOptions::default());
        let addr = server.addr;
        tokio::task::spawn_blocking(move || {
            let wait = Duration::from_secs(5);
            let huge = format!(
                "GET /api/v1/eggs HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "a".repeat(20 * 1024)
            );
            assert!(raw(addr, huge.as_bytes(), wait).starts_with("HTTP/1.1 431"));
            // RFC 9112, section 3.2: an HTTP/1.1 request has exactly one Host (HTTP/1.0 none).
            for (request, detail) in [
                (
                    "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
                    "an HTTP/1.1 request must have a `Host` header",
                ),
                (
                    "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
                    "an HTTP/1.1 request must have one `Host` header, not several",
                ),
            ] {
                let answer = raw(addr, request.as_bytes(), wait);
                assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
                assert!(answer.contains(detail), "{answer}");
            }
            let old = raw(addr, b"GET /healthz HTTP/1.0\r\n\r\n", wait);
            assert!(old.starts_with("HTTP/1.0 200"), "{old}");
            for path in [
                "/api/v1/eggs/%2e%2e/%2e%2e/etc/passwd",
                "/../../etc/passwd",
                "/api/v1/eggs/..\\..\\x",
                "/api/v1//eggs",
            ] {
                let answer = raw(
                    addr,
                    format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                    wait,
                );
                let status = &answer[9..12];
                assert!(status == "400" || status == "404", "{path}: {answer}");
                assert!(!answer.contains("root:"), "{path}");
            }
            let nul = raw(
                addr,
                b"GET /api/v1/eggs/\0 HTTP/1.1\r\nHost: x\r\n\r\n",
                wait,
            );
            assert!(nul.starts_with("HTTP/1.1 400"), "{nul}");
            let garbage = raw(addr, b"\x16\x03\x01\x02\x00 not http\r\n\r\n", wait);
            assert!(
                garbage.starts_with("HTTP/1.1 400") || garbage.is_empty(),
                "{garbage}"
            );
        })
        .await
        .unwrap();
    });
}

/// Issue 41's probe: a bare LF in a head, `Transfer-Encoding` (any, also twice or with a
/// coding before `chunked`) and a `Content-Length` other than 0 are a `400` and a closed
/// connection, also after a good pipelined request (answered first); the request sent after the
/// refused one is never answered. `CONNECT` is answered, with an `instance`, and closed.
#[test]
fn ambiguous_framing_and_connect_are_refused_and_the_connection_closed() {
    let (_tmp, app, _) = served_catalog();
    runtime().block_on(async {
        let server = start(app, ServeOptions::default());
        let addr = server.addr;
        tokio::task::spawn_blocking(move || {
            let wait = Duration::from_secs(5);
            let good = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
            let smuggled = "GET /api/v1/_status.json HTTP/1.1\r\nHost: x\r\n\r\n";
            for (bad, detail) in [
                (
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\nContent-Length: 40\r\n\r\n",
                    "bare LF",
                ),
                ("GET /healthz HTTP/1.1\nHost: x\r\n\r\n", "bare LF"),
                ("GET /healthz HTTP/1.1\r\nHost: x\n\n", "bare LF"),
                (
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                    "`Transfer-Encoding`",
                ),
                (
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                    "`Transfer-Encoding`",
                ),
                (
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n",
                    "`Content-Length` other than 0",
                ),
            ] {
                for before in ["", good] {
                    let sent = format!("{before}{bad}{smuggled}");
                    let answer = raw(addr, sent.as_bytes(), wait);
                    let answers: Vec<&str> = answer.matches("HTTP/1.1 ").collect();
                    let last = answer.rfind("HTTP/1.1 ").unwrap_or(0);
                    let refused = &answer[last..];
                    assert!(refused.starts_with("HTTP/1.1 400"), "{bad:?}: {answer}");
                    assert!(refused.contains("connection: close\r\n"), "{refused}");
                    assert!(refused.contains(detail), "{refused}");
                    assert!(refused.contains(r#""instance":"/healthz""#), "{refused}");
                    // The good request first, then the refusal; the smuggled one never (`raw`
                    // reads until the server closes).
                    assert_eq!(answers.len(), 1 + usize::from(!before.is_empty()), "{answer}");
                    if !before.is_empty() {
                        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
                    }
                }
            }
            // `Content-Length: 0` is no body: served, and the connection stays open.
            let zero = raw(
                addr,
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                wait,
            );
            assert_eq!(zero.matches("HTTP/1.1 200").count(), 2, "{zero}");
            let started = Instant::now();
            let connect = raw(
                addr,
                b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01",
                wait,
            );
            assert!(started.elapsed() < Duration::from_secs(3), "not closed");
            assert!(connect.starts_with("HTTP/1.1 405"), "{connect}");
            assert!(connect.contains("connection: close\r\n"), "{connect}");
            assert!(
                connect.contains(r#""instance":"//example.com:443""#),
                "{connect}"
            );
        })
        .await
        .unwrap();
    });
}

#[test]
fn a_slowloris_client_is_closed_within_ten_seconds() {
    let (_tmp, app, _) = served_catalog();
    runtime().block_on(async {
        let server = start(app, ServeOptions::default());
        let addr = server.addr;
        let took = tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(200)))
                .unwrap();
            let started = Instant::now();
            s.write_all(b"GET /api/v1/eggs HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            let mut buf = [0u8; 1024];
            loop {
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "still open after 15 s"
                );
                // One header line a second, never finishing the request.
                if s.write_all(b"X-Slow: 1\r\n").is_err() {
                    return started.elapsed();
                }
                match s.read(&mut buf) {
                    Ok(0) => return started.elapsed(),
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => return started.elapsed(),
                }
                std::thread::sleep(Duration::from_millis(800));
            }
        })
        .await
        .unwrap();
        assert!(took < Duration::from_secs(10), "closed after {took:?}");
    });
}

#[test]
fn past_the_connection_cap_new_clients_wait_while_busy_ones_are_served_and_idle_ones_make_room() {
    let (_tmp, app, _) = served_catalog();
    runtime().block_on(async {
        let options = ServeOptions {
            max_connections: 2,
            ..ServeOptions::default()
        };
        let server = start(app, options);
        let addr = server.addr;
        tokio::task::spawn_blocking(move || {
            let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
            let ask = |s: &mut TcpStream| {
                s.write_all(request).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut buf = [0u8; 512];
                assert!(s.read(&mut buf).unwrap() > 0);
            };
            let mut first = TcpStream::connect(addr).unwrap();
            let mut second = TcpStream::connect(addr).unwrap();
            ask(&mut first);
            ask(&mut second);
            // A third client is not served while the two open ones stay busy (a request every
            // 100 ms: never idle for the 500 ms that would let one be closed for it)...
            let mut third = TcpStream::connect(addr).unwrap();
            third.write_all(request).unwrap();
            third
                .set_read_timeout(Some(Duration::from_millis(50)))
                .unwrap();
            let mut buf = [0u8; 512];
            for _ in 0..12 {
                assert!(
                    third.read(&mut buf).is_err(),
                    "the third connection must wait"
                );
                // ...and the busy ones still are served...
                ask(&mut first);
                ask(&mut second);
                std::thread::sleep(Duration::from_millis(50));
            }
            // ...until they fall idle: one of them is closed to make room, and the third is
            // served.
            third
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let n = third.read(&mut buf).unwrap();
            assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
            let mut closed = 0;
            for s in [&mut first, &mut second] {
                s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
                closed += usize::from(s.read(&mut buf).is_ok_and(|n| n == 0));
            }
            assert_eq!(closed, 1, "the idle connection closed for the third one");
        })
        .await
        .unwrap();
    });
}

#[test]
fn shutdown_stops_accepting_and_finishes_in_flight_requests() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    // A document of several MiB that a slow client reads while the server shuts down.
    let big = egg_json("Big").replace(
        "\"variables\": []",
        &format!(
            "\"description\": \"{}\", \"variables\": []",
            "x".repeat(6 << 20)
        ),
    );
    repo.write("big/egg-big.json", big);
    repo.commit("big");
    let data = tmp.path().join("data");
    build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(0),
    );
    let app = App::new(&AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    install_current(&app, &data);
    let expected = app
        .snapshot()
        .unwrap()
        .read("api/v1/eggs/eggs-big.json")
        .unwrap()
        .unwrap()
        .len();
    runtime().block_on(async {
        let mut server = start(app, ServeOptions::default());
        let addr = server.addr;
        let reader = tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET /api/v1/eggs/eggs-big.json HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            std::thread::sleep(Duration::from_millis(300));
            let mut out = Vec::new();
            let mut buf = [0u8; 64 * 1024];
            loop {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            out
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let stopped = server.stop();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            TcpStream::connect(addr).is_err(),
            "no new connections after shutdown began"
        );
        let got = reader.await.unwrap();
        let head_end = got.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        assert_eq!(
            got.len() - head_end,
            expected,
            "the in-flight response was delivered whole"
        );
        stopped.await.unwrap();
    });
}

#[test]
fn rebuilds_swapped_in_under_load_never_show_a_mixed_or_partial_catalog() {
    // Two different catalogs, A and B, each with its own documents.
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    for i in 0..20 {
        repo.write(
            &format!("g/egg-e{i}.json"),
            egg_json(&format!("Egg {i} version A")),
        );
    }
    repo.commit("a");
    let (data_a, data_b) = (tmp.path().join("a"), tmp.path().join("b"));
    build(
        &data_a,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(0),
    );
    for i in 0..20 {
        repo.write(
            &format!("g/egg-e{i}.json"),
            egg_json(&format!("Egg {i} version B")),
        );
    }
    repo.commit("b");
    build(
        &data_b,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(0),
    );
    let read = |d: &std::path::Path| eggcat_store::Store::new(d).read_current().unwrap().unwrap();
    let mut allowed: HashMap<String, Vec<Vec<u8>>> = HashMap::new();
    for files in [read(&data_a), read(&data_b)] {
        for (path, bytes) in files.files {
            allowed.entry(path).or_default().push(bytes);
        }
    }
    let allowed = Arc::new(allowed);
    let app = App::new(&AppOptions {
        cache_control: "no-cache".into(),
    })
    .unwrap();
    install_current(&app, &data_a);

    runtime().block_on(async {
        let server = start(Arc::clone(&app), ServeOptions::default());
        let stop = Arc::new(AtomicBool::new(false));
        let checked = Arc::new(AtomicUsize::new(0));
        let mut clients = Vec::new();
        for n in 0..16 {
            let (allowed, stop, checked) = (
                Arc::clone(&allowed),
                Arc::clone(&stop),
                Arc::clone(&checked),
            );
            let addr = server.addr;
            clients.push(tokio::spawn(async move {
                let c = client();
                let mut i = n;
                while !stop.load(Ordering::Relaxed) {
                    let (path, file) = match i % 3 {
                        0 => (
                            "/api/v1/eggs".to_owned(),
                            "api/v1/eggs/_index.json".to_owned(),
                        ),
                        1 => (
                            "/api/v1/eggs?fields=name".to_owned(),
                            "api/v1/eggs/_names.json".to_owned(),
                        ),
                        _ => (
                            format!("/api/v1/eggs/eggs-e{}", i % 20),
                            format!("api/v1/eggs/eggs-e{}.json", i % 20),
                        ),
                    };
                    let coding = ["gzip", "br", "identity"][i % 3];
                    let (status, headers, body) =
                        fetch(&c, addr, &path, &[("accept-encoding", coding)]).await;
                    assert_eq!(status, 200, "{path}");
                    let plain = match headers.get("content-encoding").map(|v| v.to_str().unwrap()) {
                        Some("gzip") => {
                            let mut out = Vec::new();
                            flate2::read::GzDecoder::new(body.as_ref())
                                .read_to_end(&mut out)
                                .unwrap();
                            out
                        }
                        Some("br") => {
                            let mut out = Vec::new();
                            brotli::BrotliDecompress(&mut body.as_ref(), &mut out).unwrap();
                            out
                        }
                        None => body.to_vec(),
                        Some(other) => panic!("unexpected coding {other}"),
                    };
                    assert!(
                        allowed[&file].contains(&plain),
                        "{path}: a body that is neither catalog A's nor B's"
                    );
                    checked.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            }));
        }
        // Swap A and B back and forth while the clients read.
        for round in 0..30 {
            let data = if round % 2 == 0 {
                data_b.clone()
            } else {
                data_a.clone()
            };
            let app = Arc::clone(&app);
            tokio::task::spawn_blocking(move || install_current(&app, &data))
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.store(true, Ordering::Relaxed);
        for c in clients {
            c.await
                .expect("no client saw an error or a dropped connection");
        }
        assert!(
            checked.load(Ordering::Relaxed) > 500,
            "only {} requests checked",
            checked.load(Ordering::Relaxed)
        );
    });
}

#[test]
fn a_second_server_on_a_taken_address_is_refused() {
    // SO_REUSEPORT would otherwise let it bind and take part of the first one's connections.
    let (_tmp, app, _) = served_catalog();
    let first = start(Arc::clone(&app), ServeOptions::default());
    let err = Server::start(&first.addr.to_string(), app, ServeOptions::default()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AddrInUse);
    assert_eq!(
        err.to_string(),
        "the address is already in use (is another server running?)"
    );
}
