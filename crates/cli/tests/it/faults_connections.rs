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
    // A connection in the middle of a request whose head arrives faster than the floor (1 KiB/s
    // averaged since its first byte) is not closed for newcomers while it keeps sending.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"GET /api/v1/_status.json HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let line = format!("X-Slow: {}\r\n", "a".repeat(500));
    for _ in 0..8 {
        std::thread::sleep(Duration::from_millis(200));
        slow.write_all(line.as_bytes()).unwrap();
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

/// Whether the server closed `s` (after whatever it had sent): read until the end or an error.
fn closed_by_server(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return false,
            Err(_) => return true,
        }
    }
}

/// Issue 41: busy connections that make no progress give up their slot too. With one slot,
/// held by a client whose request head trickles in below the floor (a slowloris, never idle for
/// 500 ms), or by a client that pipelines requests and never reads the answers (its writes
/// blocked), a new client is answered within a few seconds: the holder is closed for it, long
/// before the header timeout (5 s) or the write timeout (30 s) would close it.
#[test]
fn slow_heads_and_unread_pipelined_answers_make_room_for_new_clients() {
    let (_tmp, app, _) = crate::http::served_catalog();
    let options = ServeOptions {
        workers: 1,
        max_connections: 1,
        ..ServeOptions::default()
    };
    let server = Server::start("127.0.0.1:0", Arc::clone(&app), options).unwrap();
    let port = server.local_addr().port();

    let mut slowloris = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slowloris
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // Ten bytes a second, from another thread while the new client waits: never idle.
    let trickle = slowloris.try_clone().unwrap();
    let trickling = std::thread::spawn(move || {
        let mut trickle = trickle;
        for _ in 0..40 {
            std::thread::sleep(Duration::from_millis(100));
            if trickle.write_all(b"X").is_err() {
                return;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    let (status, took) = ask(port);
    assert_eq!(status, Some(200));
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    assert!(
        closed_by_server(&mut slowloris),
        "the slowloris kept its slot"
    );
    trickling.join().unwrap();

    let mut pipeliner = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let request = "GET /api/v1/eggs/_index.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2000);
    pipeliner.write_all(request.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (status, took) = ask(port);
    assert_eq!(status, Some(200));
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    assert!(
        closed_by_server(&mut pipeliner),
        "the pipeliner kept its slot"
    );
    server.stop();
}
