//! Faults, third part: the store. `eggcat publish` through a fault-injecting HTTP proxy in front
//! of moto that, for one object in the middle of the upload, either answers `500` every time
//! or never answers (the request times out). Each time the publish fails with one clear line
//! naming the object, the bucket never lists an index whose documents are missing (the lists go
//! up last: the index in the bucket is still the previous, complete one), and the next publish,
//! with the store healthy again, completes.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use eggcat_catalog::paths;

use crate::hosts::{create_public_bucket, get, moto_binary, start_moto};
use crate::publish_site::{Site, counts, error_line, keys};

/// What the proxy does to the requests for its one faulty object.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Answers `500 InternalError`, on every attempt.
    Fails,
    /// Reads the request and never answers.
    Hangs,
}

/// An HTTP/1.1 proxy on 127.0.0.1 to moto: it forwards every request, except a `PUT` whose path
/// ends with `faulty`, which gets the fault.
struct FaultProxy {
    port: u16,
    stop: Arc<AtomicBool>,
    /// Requests for the faulty object seen.
    hits: Arc<AtomicUsize>,
}

impl FaultProxy {
    fn start(upstream: u16, faulty: String, fault: Fault) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let (stop, hits) = (Arc::new(AtomicBool::new(false)), Arc::default());
        let proxy = FaultProxy {
            port,
            stop: Arc::clone(&stop),
            hits: Arc::clone(&hits),
        };
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                client.set_nonblocking(false).unwrap();
                let (faulty, stop, hits) = (faulty.clone(), Arc::clone(&stop), Arc::clone(&hits));
                std::thread::spawn(move || {
                    let _ = connection(client, upstream, &faulty, fault, &stop, &hits);
                });
            }
        });
        proxy
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// One client connection: each request read whole (head, then `Content-Length` bytes of body),
/// then either forwarded on a fresh connection to moto (its answer relayed, and the client's
/// connection closed after it: each answer is then delimited by the close) or faulted.
fn connection(
    mut client: TcpStream,
    upstream: u16,
    faulty: &str,
    fault: Fault,
    stop: &AtomicBool,
    hits: &AtomicUsize,
) -> std::io::Result<()> {
    let (head, body) = read_request(&mut client)?;
    let line = head.lines().next().unwrap_or_default().to_owned();
    let mut parts = line.split(' ');
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    if method == "PUT" && path.ends_with(faulty) {
        hits.fetch_add(1, Ordering::SeqCst);
        match fault {
            Fault::Fails => {
                let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code>\
                           <Message>We encountered an internal error. Please try again.</Message></Error>";
                write!(
                    client,
                    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{xml}",
                    xml.len()
                )?;
            }
            Fault::Hangs => {
                // Until the client gives up (its timeout) or the proxy stops.
                client.set_read_timeout(Some(Duration::from_millis(100)))?;
                let mut byte = [0u8; 1];
                while !stop.load(Ordering::SeqCst) {
                    match client.read(&mut byte) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                        Err(_) => break,
                    }
                }
            }
        }
        return client.shutdown(Shutdown::Both);
    }
    // Forwarded with `Connection: close`, so that moto's answer ends with its connection.
    let mut server = TcpStream::connect(("127.0.0.1", upstream))?;
    let head = head
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .collect::<Vec<_>>()
        .join("\r\n");
    write!(server, "{head}\r\nConnection: close\r\n\r\n")?;
    server.write_all(&body)?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    client.write_all(&answer)?;
    client.shutdown(Shutdown::Both)
}

/// The head (without its blank line) and the body of one request.
fn read_request(client: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 4096];
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = client.read(&mut byte)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&byte[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let length: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    while body.len() < length {
        let n = client.read(&mut byte)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        body.extend_from_slice(&byte[..n]);
    }
    Ok((head, body))
}

/// Writes a config for `s3://eggs` through `port`, with a per-request timeout.
fn config(site: &Site, port: u16, timeout: &str) -> std::path::PathBuf {
    let path = site.config(port, "eggs");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("timeout = \"{timeout}\"\n"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The index in the bucket, and whether every egg it lists has its document there.
fn bucket_index_is_complete(s3: u16) -> (Vec<String>, bool) {
    let index = get(s3, &format!("/eggs/{}", paths::INDEX));
    assert_eq!(index.status, 200, "the bucket holds an index");
    let index: Vec<serde_json::Value> = serde_json::from_slice(&index.body).unwrap();
    let slugs: Vec<String> = index
        .iter()
        .map(|e| e["slug"].as_str().unwrap().to_owned())
        .collect();
    let complete = slugs
        .iter()
        .all(|s| get(s3, &format!("/eggs/{}", paths::egg(s))).status == 200);
    (slugs, complete)
}

/// Publishes a first catalog, then a second one with new eggs through a proxy that faults on
/// one new egg's document; checks the bucket, then publishes again without the fault.
fn one_object_faults(fault: Fault) {
    let Some(moto) = moto_binary() else { return };
    let s3 = start_moto(&moto, None);
    create_public_bucket(s3.port, "eggs");
    let site = Site::new(10);
    site.build();
    let direct = config(&site, s3.port, "60s");
    assert!(site.publish(&direct, &[], "k", "s").status.success());
    let (before, complete) = bucket_index_is_complete(s3.port);
    assert!(complete);

    // Twenty more eggs; the fault hits the document of one in the middle.
    for i in 10..30 {
        site.repo.write(
            &format!("games/egg-{i}/egg-{i}.json"),
            crate::support::egg_json(&format!("Egg {i}")),
        );
    }
    site.repo.commit("more eggs");
    let files = keys(&site.build());
    let faulty = "api/v1/eggs/eggs-20.json";
    assert!(files.contains_key(faulty), "{faulty} is published");
    let proxy = FaultProxy::start(s3.port, faulty.to_owned(), fault);
    let through = config(&site, proxy.port, "2s");
    let started = Instant::now();
    let out = site.publish(&through, &[], "k", "s");
    let took = started.elapsed();
    let line = error_line(&out);
    assert!(line.contains(faulty), "the error names the object: {line}");
    assert!(proxy.hits.load(Ordering::SeqCst) >= 1);
    assert!(
        took < Duration::from_secs(45),
        "a failing store fails the publish in bounded time ({took:?})"
    );
    eprintln!("{fault:?}: {line} (after {took:?})");
    // The index in the bucket is the previous one, and complete.
    let (during, complete) = bucket_index_is_complete(s3.port);
    assert_eq!(during, before, "the new index was not uploaded");
    assert!(complete);
    assert_ne!(
        get(s3.port, &format!("/eggs/{faulty}")).status,
        200,
        "the faulty object is not there"
    );
    drop(proxy);

    // The store is healthy again: the next publish completes.
    let (uploaded, unchanged, _) = counts(&site.publish(&direct, &[], "k", "s"));
    assert!(unchanged > 0, "what the failed publish uploaded is kept");
    assert!(uploaded > 0);
    for (key, bytes) in &files {
        assert_eq!(&get(s3.port, &format!("/eggs/{key}")).body, bytes, "{key}");
    }
    let (after, complete) = bucket_index_is_complete(s3.port);
    assert_eq!(after.len(), before.len() + 20);
    assert!(complete);
}

#[test]
fn a_store_failing_on_one_object_never_lists_a_missing_document_and_the_next_publish_completes() {
    one_object_faults(Fault::Fails);
}

#[test]
fn a_store_hanging_on_one_object_times_out_never_lists_a_missing_document_and_the_next_publish_completes()
 {
    one_object_faults(Fault::Hangs);
}
