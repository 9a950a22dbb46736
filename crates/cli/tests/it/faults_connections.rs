//! Faults, fourth part: connections. A server at `max_connections` with every slot taken by an
//! idle connection (a client that connected and sent nothing) still answers a new client at
//! once, by closing the connection idle the longest; a connection that is busy is never closed
//! for it. The 10,000-connection figure is `bench/connections.sh`'s.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use eggcat_server::{ServeOptions, Server};

/// A GET of the status document on a new connection: the status code and how long it took.
fn ask(port: u16) -> (Option<u16>, Duration) {
    let started = Instant::now();
    let answer = (|| {
        let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
        s.write_all(b"GET /api/v1/_status.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .ok()?;
        let mut out = String::new();
        s.read_to_string(&mut out).ok()?;
        out.get(9..12)?.parse().ok()
    })();
    (answer, started.elapsed())
}

#[test]
fn idle_connections_at_max_connections_make_room_for_new_clients() {
    let (_tmp, app, _) = crate::http::served_catalog();
    let options = ServeOptions {
        workers: 1,
        max_connections: 8,
        ..ServeOptions::default()
    };
    let server = Server::start("127.0.0.1:0", Arc::clone(&app), options).unwrap();
    let port = server.local_addr().port();
    // Forty idle connections: five times the cap, and each sends nothing.
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    // Without shedding each new client would wait for the 5 s header timeout of the idle ones
    // ahead of it; with it, a few hundred milliseconds.
    for _ in 0..5 {
        let (status, took) = ask(port);
        assert_eq!(status, Some(200));
        assert!(took < Duration::from_secs(3), "answered after {took:?}");
    }
    // A connection in the middle of a slow request (its head half sent, and still sending)
    // is not idle: it is not closed for newcomers while it keeps sending.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"GET /api/v1/_status.json HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(200));
        slow.write_all(b"X-Slow: 1\r\n").unwrap();
        let (status, _) = ask(port);
        assert_eq!(status, Some(200));
    }
    slow.write_all(b"Connection: close\r\n\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(idle);
    server.stop();
}
