//! Pterodactyl's application API for nests and eggs on loopback (`tests/php/ptero_api.php`
//! served by `php -S`), for the tests that talk to a Pterodactyl panel: the panels crate's own
//! (`tests/ptero_api.rs`, held to Pterodactyl's tests) and `eggcat-panel`'s, which include this
//! file by its path. Self-contained: std, serde_json and tempfile. The admin's side (Import Egg,
//! Update Egg, the egg's forms) runs as `php ptero_api.php import|update|edit`, Pterodactyl's
//! own services on the same database.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// An application key on the harness: the bearer token (16 characters of identifier, then the
/// secret), its type (1 account, 2 application), its permissions (`{"r_eggs": 1, "r_nests": 1}`:
/// 1 read, 2 write, 3 both; a resource not named has none), and its user's uuid and whether that
/// user is a root admin.
pub fn key(token: &str, key_type: u8, permissions: Value, uuid: &str, root_admin: bool) -> Value {
    assert!(token.len() > 16, "a token is its identifier and a secret");
    json!({"token": token, "key_type": key_type, "permissions": permissions,
           "user": {"uuid": uuid, "root_admin": root_admin}})
}

/// The harness served by `php -S`, stopped when dropped.
pub struct Harness {
    child: Child,
    pub port: u16,
    dir: tempfile::TempDir,
    panels_src: PathBuf,
    pub log: PathBuf,
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

/// `php` with the environment of the harness whose folder is `dir`.
fn php_in(dir: &Path, panels_src: &Path) -> Command {
    let mut cmd = Command::new("php");
    let db = json!({"driver": "sqlite", "database": dir.join("panel.sqlite")});
    cmd.env("EGGCAT_PANELS_SRC", panels_src)
        .env("EGGCAT_DB", db.to_string())
        .env("EGGCAT_API_KEYS", dir.join("keys.json"))
        .env("EGGCAT_API_STATE", dir);
    cmd
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../panels/tests/php/ptero_api.php")
}

impl Harness {
    /// Makes the harness's database (an SQLite file: Pterodactyl's egg tables, NestSeeder's
    /// four nests, the users and `keys`' keys), writes `keys` (`{"rate_limit", "keys":
    /// [key(..)]}`) and serves it on a free loopback port.
    pub fn start(panels_src: &Path, keys: &Value) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("panel.sqlite"), b"").unwrap();
        std::fs::write(dir.path().join("keys.json"), keys.to_string()).unwrap();
        let setup = php_in(dir.path(), panels_src)
            .arg(script())
            .arg("setup")
            .output()
            .expect("php runs");
        assert!(
            setup.status.success(),
            "ptero_api.php setup failed:\n{}{}",
            String::from_utf8_lossy(&setup.stdout),
            String::from_utf8_lossy(&setup.stderr)
        );
        // A free port (the OS's choice, released for php to take).
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = dir.path().join("server.log");
        let child = php_in(dir.path(), panels_src)
            .arg("-S")
            .arg(format!("127.0.0.1:{port}"))
            .arg(script())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("php -S runs");
        let harness = Harness {
            child,
            port,
            panels_src: panels_src.to_owned(),
            log,
            dir,
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

    /// Runs `php ptero_api.php ARGS`: its output, or what the panel said when it refused.
    pub fn try_php(&self, args: &[&str]) -> Result<String, String> {
        let out = php_in(self.dir.path(), &self.panels_src)
            .arg(script())
            .args(args)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        if out.status.success() {
            Ok(text(&out.stdout))
        } else {
            Err(format!("{}{}", text(&out.stdout), text(&out.stderr)))
        }
    }

    fn php(&self, args: &[&str]) -> String {
        self.try_php(args)
            .unwrap_or_else(|e| panic!("ptero_api.php {args:?} failed:\n{e}"))
    }

    /// Writes `bytes` to a file of the harness's folder and returns its path.
    fn file(&self, bytes: &[u8]) -> PathBuf {
        let path = self
            .dir
            .path()
            .join(format!("upload-{}.json", rand_suffix()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Admin -> Nests -> Import Egg: Pterodactyl's EggImporterService on `file` into `nest`.
    /// The new egg's id, or the panel's refusal.
    pub fn try_import(&self, nest: u64, file: &[u8]) -> Result<u64, String> {
        let path = self.file(file);
        let out = self.try_php(&["import", &nest.to_string(), path.to_str().unwrap()])?;
        Ok(out.trim().parse().expect("an egg id"))
    }

    pub fn import(&self, nest: u64, file: &[u8]) -> u64 {
        self.try_import(nest, file)
            .unwrap_or_else(|e| panic!("Import Egg refused: {e}"))
    }

    /// Import Egg of every file into `nest`, in one run of PHP: the new eggs' ids, in order.
    pub fn import_all(&self, nest: u64, files: &[&[u8]]) -> Vec<u64> {
        let paths: Vec<PathBuf> = files.iter().map(|f| self.file(f)).collect();
        let mut args = vec!["import".to_owned(), nest.to_string()];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.php(&args)
            .lines()
            .map(|l| l.trim().parse().expect("an egg id"))
            .collect()
    }

    /// The egg's page, Egg File, Update Egg: Pterodactyl's EggUpdateImporterService.
    pub fn update(&self, egg: u64, file: &[u8]) {
        let path = self.file(file);
        self.php(&["update", &egg.to_string(), path.to_str().unwrap()]);
    }

    /// An admin's edit through Pterodactyl's models: `{"egg": {column: value}, "variables":
    /// {"ENV": {column: value} or null}}`.
    pub fn edit(&self, egg: u64, edit: &Value) {
        self.php(&["edit", &egg.to_string(), &edit.to_string()]);
    }

    /// The harness's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// One HTTP/1.1 GET (`Connection: close`) with `Accept: application/json`, as Pterodactyl's
    /// tests send them, the answer read to its end.
    pub fn get(&self, path: &str, key: Option<&str>) -> Answer {
        self.request("GET", path, key, &[("Accept", "application/json")])
    }

    /// One HTTP/1.1 request with the given headers.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n",
            self.port
        );
        if let Some(k) = key {
            head.push_str(&format!("Authorization: Bearer {k}\r\n"));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("Connection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).unwrap();
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
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        Answer {
            status,
            headers,
            body: raw[split + 4..].to_vec(),
        }
    }
}

/// A name no other upload of this process has.
fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed).to_string()
}
