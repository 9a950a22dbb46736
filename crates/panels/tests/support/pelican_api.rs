//! Pelican's application API for eggs on loopback (`tests/php/api.php` served by `php -S`), for
//! the tests that talk to a panel: the panels crate's own (`tests/api.rs`) and `eggcat-panel`'s,
//! which include this file by its path. Self-contained: std, serde_json and tempfile.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// An application key on the harness: the bearer token (identifier and secret), its type
/// (1 account, 2 application), its permissions (`{"egg": 1 read, 2 write, 3 both}`, and so for
/// `"server"`, which the `servers` include asks for), and its user's uuid and whether that user
/// is an admin.
pub fn key(token: &str, key_type: u8, permissions: Value, uuid: &str, admin: bool) -> Value {
    json!({"identifier": &token[..16], "token": &token[16..], "key_type": key_type,
           "permissions": permissions, "user": {"uuid": uuid, "admin": admin, "root_admin": admin}})
}

/// The harness served by `php -S`, stopped when dropped.
pub struct Harness {
    child: Child,
    pub port: u16,
    _dir: tempfile::TempDir,
    pub log: PathBuf,
    /// `api.php` and the environment it runs in (the panels' source, the database, the keys,
    /// the state folder), for its other commands (`add-server`).
    script: PathBuf,
    env: Vec<(&'static str, std::ffi::OsString)>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One answer: status, headers (names lowercase), body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Harness {
    /// Makes the harness's database (SQLite, a file: Pelican's migrations of the eggs' and the
    /// servers' tables, and with `fixture` the egg of Pelican's API fixture), writes `keys`
    /// (`{"rate_limit", "keys": [key(..)]}`) and serves it on a free loopback port.
    pub fn start(panels_src: &Path, keys: &Value, fixture: bool) -> Harness {
        Harness::start_on(panels_src, keys, fixture, None)
    }

    /// As [`Harness::start`] with the fixture, and the fixture's server too (BuildsTestFixture:
    /// server 100 of egg 100, its owner, node and allocations, its variables' values), so that
    /// [`Harness::add_server`] can put more servers on the panel.
    pub fn start_with_servers(panels_src: &Path, keys: &Value) -> Harness {
        Harness::start_full(panels_src, keys, true, true, None)
    }

    /// As [`Harness::start`], on the database `db` names (`boot.php`'s EGGCAT_DB: a MariaDB
    /// or PostgreSQL database the test made) instead of an SQLite file.
    pub fn start_on(panels_src: &Path, keys: &Value, fixture: bool, db: Option<Value>) -> Harness {
        Harness::start_full(panels_src, keys, fixture, false, db)
    }

    fn start_full(
        panels_src: &Path,
        keys: &Value,
        fixture: bool,
        servers: bool,
        db: Option<Value>,
    ) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = dir.path().join("panel.sqlite");
        std::fs::write(&sqlite, b"").unwrap();
        let db = db.unwrap_or_else(|| json!({"driver": "sqlite", "database": sqlite}));
        let keys_file = dir.path().join("keys.json");
        std::fs::write(&keys_file, keys.to_string()).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../panels/tests/php/api.php");
        let env = vec![
            ("EGGCAT_PANELS_SRC", panels_src.as_os_str().to_owned()),
            ("EGGCAT_DB", db.to_string().into()),
            ("EGGCAT_API_KEYS", keys_file.into_os_string()),
            ("EGGCAT_API_STATE", dir.path().as_os_str().to_owned()),
        ];
        let mut setup = Command::new("php");
        setup.envs(env.iter().cloned());
        let out = setup
            .arg(&script)
            .arg("setup")
            .env("EGGCAT_API_FIXTURE", if fixture { "1" } else { "0" })
            .env("EGGCAT_API_SERVERS", if servers { "1" } else { "0" })
            .output()
            .expect("php runs");
        assert!(
            out.status.success(),
            "api.php setup failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // A free port (the OS's choice, released for php to take).
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = dir.path().join("server.log");
        let mut serve = Command::new("php");
        serve.envs(env.iter().cloned());
        let child = serve
            .arg("-S")
            .arg(format!("127.0.0.1:{port}"))
            .arg(&script)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("php -S runs");
        let harness = Harness {
            child,
            port,
            _dir: dir,
            log,
            script,
            env,
        };
        let began = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                began.elapsed() < Duration::from_secs(10),
                "php -S did not listen on {port}: {}",
                std::fs::read_to_string(&harness.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        harness
    }

    /// Puts a server of egg `egg` named `name` on the panel (`php api.php add-server`: the
    /// fixture's owner and node, an allocation of its own, a value of each of the egg's
    /// variables, `values` where given and the default elsewhere); the harness must have been
    /// started [`Harness::start_with_servers`]. Its `{"id", "uuid", "name"}`.
    pub fn add_server(&self, egg: u64, name: &str, values: &[(&str, &str)]) -> Value {
        let out = Command::new("php")
            .envs(self.env.iter().cloned())
            .arg(&self.script)
            .arg("add-server")
            .arg(egg.to_string())
            .arg(name)
            .args(values.iter().map(|(env, value)| format!("{env}={value}")))
            .output()
            .expect("php runs");
        assert!(
            out.status.success(),
            "api.php add-server {egg} {name} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("add-server prints the server as JSON")
    }

    /// The harness's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// One HTTP/1.1 request (`Connection: close`), the answer read to its end.
    pub fn request(&self, method: &str, path: &str, key: Option<&str>, body: &[u8]) -> Answer {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let auth = key.map_or(String::new(), |k| format!("Authorization: Bearer {k}\r\n"));
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP head");
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
        {
            body = dechunk(&body);
        }
        Answer {
            status,
            headers,
            body,
        }
    }
}

/// What a [`proxy`] does with one request.
pub enum Fault {
    /// Passes it on, and the answer back.
    Pass,
    /// Holds it without passing it on (30 s): the panel never sees it, the client times out.
    Swallow,
    /// Passes it on and holds the panel's answer (30 s): the panel did it, the client times out.
    Mute,
    /// Answers this status itself (a proxy in front of the panel that fails: `502`).
    Answer(u16),
}

/// A TCP proxy on loopback in front of the harness on `panel_port`, doing with each request
/// what `decide` says from its request line (`GET /api/application/eggs/7/export?format=json
/// HTTP/1.1`): a panel behind a reverse proxy that fails one request, or times out before or
/// after its write. Its address, `http://127.0.0.1:PORT`.
pub fn proxy(panel_port: u16, decide: impl Fn(&str) -> Fault + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let decide = std::sync::Arc::new(decide);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let decide = decide.clone();
            std::thread::spawn(move || relay(client, panel_port, &*decide));
        }
    });
    url
}

fn relay(mut client: TcpStream, panel_port: u16, decide: &dyn Fn(&str) -> Fault) {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    // The head, then the body its Content-Length names.
    let (head_end, length) = loop {
        let n = client.read(&mut buf).unwrap_or(0);
        if n == 0 {
            return;
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap_or(0));
            break (at + 4, length);
        }
    };
    while raw.len() < head_end + length {
        let n = client.read(&mut buf).unwrap_or(0);
        if n == 0 {
            return;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let line =
        String::from_utf8_lossy(&raw[..raw.windows(2).position(|w| w == b"\r\n").unwrap_or(0)])
            .into_owned();
    let fault = decide(&line);
    match fault {
        Fault::Swallow => return std::thread::sleep(Duration::from_secs(30)),
        Fault::Answer(status) => {
            let body = format!(
                "{{\"errors\":[{{\"code\":\"BadGateway\",\"status\":\"{status}\",\"detail\":\"the proxy in front of the panel failed\"}}]}}"
            );
            let _ = write!(
                client,
                "HTTP/1.1 {status} Proxy\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            return;
        }
        Fault::Pass | Fault::Mute => {}
    }
    let mut panel = TcpStream::connect(("127.0.0.1", panel_port)).unwrap();
    panel.write_all(&raw).unwrap();
    let mut answer = Vec::new();
    // php -S closes the connection after its answer.
    let _ = panel.read_to_end(&mut answer);
    if matches!(fault, Fault::Mute) {
        return std::thread::sleep(Duration::from_secs(30));
    }
    let _ = client.write_all(&answer);
}

/// A chunked body, joined.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = raw.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(
            std::str::from_utf8(&raw[..line_end])
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[line_end + 2..line_end + 2 + size]);
        raw = &raw[line_end + 4 + size..];
    }
}
