//! Helpers for the publish and static-host tests: a minimal blocking HTTP/1.1 client (so that
//! every host is read the same way, byte for byte), and the outside servers run as our own
//! processes on 127.0.0.1: moto (an S3 server), nginx (through `eggcat_testkit::nginx`),
//! Caddy, plus a TCP proxy that can be cut to play a store that dies mid-publish.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use eggcat_testkit::nginx::Nginx;

use crate::support::free_port;

/// One answer, as read off the wire.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// Lowercase names; a repeated header keeps every value.
    pub(crate) headers: BTreeMap<String, Vec<String>>,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    /// The header's values joined with `, `, or "" when absent.
    pub(crate) fn header(&self, name: &str) -> String {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(|v| v.join(", "))
            .unwrap_or_default()
    }
}

/// Sends one request (`Connection: close`) to `127.0.0.1:port` and reads the answer.
pub(crate) fn request(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Answer> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut head =
        format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers"))?;
    let text = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = text.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status line"))?;
    let mut headers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        if let Some((k, v)) = line.split_once(':') {
            headers
                .entry(k.trim().to_ascii_lowercase())
                .or_default()
                .push(v.trim().to_owned());
        }
    }
    let mut body = raw[split + 4..].to_vec();
    if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.iter().any(|t| t.eq_ignore_ascii_case("chunked")))
    {
        body = dechunk(&body);
    }
    if method == "HEAD" {
        body.clear();
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// `GET target`, panicking on a transport error.
pub(crate) fn get(port: u16, target: &str) -> Answer {
    request(port, "GET", target, &[], b"").unwrap_or_else(|e| panic!("GET {target}: {e}"))
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&data[..end])
                .split(';')
                .next()
                .unwrap_or("")
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

/// Waits until something listens on `port`.
pub(crate) fn wait_for(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not start on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process killed on drop.
#[derive(Debug)]
pub(crate) struct Process {
    child: Child,
    pub(crate) port: u16,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Says that a test is skipped for lack of a server or tool, or fails it when
/// `EGGCAT_HOST_TESTS=require` (as `.ci/test` sets it), so that a missing server never passes
/// for a passing test in CI.
pub(crate) fn skip(why: &str) {
    let required = std::env::var("EGGCAT_HOST_TESTS").is_ok_and(|v| v == "require");
    assert!(!required, "EGGCAT_HOST_TESTS=require but {why}");
    crate::support::skip_test(&format!(
        "{why} (set EGGCAT_HOST_TESTS=require to make this a failure)"
    ));
}

/// The moto server binary named by `EGGCAT_MOTO`, or `None` after [`skip`].
pub(crate) fn moto_binary() -> Option<PathBuf> {
    match std::env::var_os("EGGCAT_MOTO").map(PathBuf::from) {
        Some(p) if p.is_file() => Some(p),
        other => {
            skip(&format!(
                "the S3 tests need moto: set EGGCAT_MOTO to a moto_server binary \
                 (python3 -m venv V && V/bin/pip install 'moto[server]'; EGGCAT_MOTO=V/bin/moto_server); \
                 EGGCAT_MOTO is {other:?}"
            ));
            None
        }
    }
}

/// Starts moto on a free port; `no_auth_actions` turns on signature checks after that many
/// unauthenticated calls.
pub(crate) fn start_moto(binary: &Path, no_auth_actions: Option<u32>) -> Process {
    let port = free_port();
    let mut cmd = Command::new(binary);
    cmd.args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(n) = no_auth_actions {
        cmd.env("INITIAL_NO_AUTH_ACTION_COUNT", n.to_string());
    }
    let child = cmd.spawn().expect("moto_server starts");
    wait_for(port, "moto_server");
    Process { child, port }
}

/// Creates a bucket anonymous clients may read (moto's `public-read` ACL).
pub(crate) fn create_public_bucket(port: u16, bucket: &str) {
    let a = request(
        port,
        "PUT",
        &format!("/{bucket}"),
        &[("x-amz-acl", "public-read")],
        b"",
    )
    .expect("create bucket");
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
}

/// A TCP proxy from a port of its own to `127.0.0.1:upstream`, which can be cut (listener and
/// every connection closed) to play a store that dies.
#[derive(Debug)]
pub(crate) struct Proxy {
    pub(crate) port: u16,
    dead: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
    /// PUT requests seen so far.
    pub(crate) puts: Arc<AtomicUsize>,
}

impl Proxy {
    /// Listens on `port` (0: any) and forwards to `upstream`; cut after `cut_after_puts` PUTs;
    /// each PUT held back `put_delay` (a slow store, so that a publish takes a while).
    pub(crate) fn start(
        port: u16,
        upstream: u16,
        cut_after_puts: Option<usize>,
        put_delay: Duration,
    ) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("proxy binds");
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            dead: Arc::default(),
            streams: Arc::default(),
            puts: Arc::default(),
        };
        let (dead, streams, puts) = (
            proxy.dead.clone(),
            proxy.streams.clone(),
            proxy.puts.clone(),
        );
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            // Polled, so that a cut proxy drops its listener (the port then refuses).
            while !dead.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                {
                    let mut all = streams.lock().unwrap();
                    all.push(client.try_clone().unwrap());
                    all.push(server.try_clone().unwrap());
                }
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (dead2, streams2, puts2) = (dead.clone(), streams.clone(), puts.clone());
                std::thread::spawn(move || {
                    pump(client, server, |chunk| {
                        let n = chunk.windows(5).filter(|w| w == b"PUT /").count();
                        let total = puts2.fetch_add(n, Ordering::SeqCst) + n;
                        if cut_after_puts.is_some_and(|limit| total >= limit) {
                            cut(&dead2, &streams2);
                            return false;
                        }
                        if n > 0 {
                            std::thread::sleep(put_delay);
                        }
                        true
                    })
                });
                std::thread::spawn(move || pump(s2, c2, |_| true));
            }
        });
        proxy
    }

    /// A proxy on `port` again, once the previous one on it has let it go.
    pub(crate) fn start_on_when_free(port: u16, upstream: u16) -> Proxy {
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpListener::bind(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "port {port} stays taken");
            std::thread::sleep(Duration::from_millis(20));
        }
        Proxy::start(port, upstream, None, Duration::ZERO)
    }

    /// Closes the listener and every connection.
    pub(crate) fn cut(&self) {
        cut(&self.dead, &self.streams);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
    }
}

fn cut(dead: &AtomicBool, streams: &Mutex<Vec<TcpStream>>) {
    if dead.swap(true, Ordering::SeqCst) {
        return;
    }
    for s in streams.lock().unwrap().drain(..) {
        let _ = s.shutdown(Shutdown::Both);
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream, mut ok: impl FnMut(&[u8]) -> bool) {
    let mut buf = [0u8; 16384];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if !ok(&buf[..n]) || to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// nginx serving `root` with the generated rules, as our own process (`eggcat_testkit::nginx`,
/// which the download checks' tests run too).
pub(crate) fn start_nginx(root: &Path, work: &Path) -> Option<Nginx> {
    let Some(bin) = eggcat_testkit::nginx::binary() else {
        skip("nginx is not installed (Debian package `nginx`)");
        return None;
    };
    let root = root.display();
    Some(Nginx::start(&bin, work, |port| {
        format!(
            "  server {{\n    listen 127.0.0.1:{port};\n    root {root};\n    \
             include {root}/.eggcat/nginx.conf;\n  }}"
        )
    }))
}

/// Caddy serving `root` with the generated rules, as our own process.
pub(crate) fn start_caddy(root: &Path, work: &Path) -> Option<Process> {
    let Some(bin) = ["/usr/bin/caddy", "/usr/local/bin/caddy"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
    else {
        skip("caddy is not installed (Debian package `caddy`)");
        return None;
    };
    let port = free_port();
    std::fs::create_dir_all(work).unwrap();
    let conf = format!(
        "{{\n\tadmin off\n\tauto_https off\n\tstorage file_system {w}/data\n}}\n\
         http://127.0.0.1:{port} {{\n\troot * {root}\n\timport {root}/.eggcat/Caddyfile\n}}\n",
        w = work.display(),
        root = root.display()
    );
    std::fs::write(work.join("Caddyfile"), conf).unwrap();
    let log = std::fs::File::create(work.join("caddy.log")).unwrap();
    let child = Command::new(bin)
        .args(["run", "--adapter", "caddyfile", "--config"])
        .arg(work.join("Caddyfile"))
        .env("HOME", work)
        .env("XDG_DATA_HOME", work.join("xdg-data"))
        .env("XDG_CONFIG_HOME", work.join("xdg-config"))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("caddy starts");
    let mut process = Process { child, port };
    wait_or_report(&mut process, "caddy", &work.join("caddy.log"));
    Some(process)
}

/// Waits for the port; if the process exits first, fails with its log.
fn wait_or_report(p: &mut Process, what: &str, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", p.port)).is_err() {
        if let Ok(Some(status)) = p.child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = p.child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            panic!(
                "{what} exited ({status}): {err}\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "{what} did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
}
