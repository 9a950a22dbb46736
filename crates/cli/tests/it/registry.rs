//! A real OCI registry on loopback for the image tests, and what they put in front of it.
//!
//! - [`Registry`]: Debian's `docker-registry` (the CNCF distribution registry, 2.8) serving a
//!   temporary folder on a free port of 127.0.0.1, deletes enabled, optionally with `auth: token`
//!   trusting a [`TokenIssuer`]; images go in and out with `skopeo` (copy from an OCI layout,
//!   delete by tag);
//! - [`oci_layout`]: small images made offline, an OCI layout of empty layers per platform (one
//!   platform: an image manifest; several: an index of them);
//! - [`TokenIssuer`]: the token service of the distribution spec's token authentication, for
//!   anyone who asks (anonymous), its JWTs signed RS256 by `openssl` with a self-signed
//!   certificate the registry trusts (`rootcertbundle`, the token's `x5c`);
//! - [`Proxy`]: forwards to the registry, counts each request (method, path, status) and the
//!   most it had in flight at once, and can answer `429` with `Retry-After` instead, or answer
//!   slowly;
//! - [`black_hole`]: a port that accepts connections and never answers (a registry that hangs).
//!
//! Strict mode: `.ci/test` sets `EGGCAT_REGISTRY_TESTS=require`, under which a missing
//! `docker-registry` or `skopeo` fails the test; otherwise the test is skipped with one line.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};

use crate::support::{free_port, skip_test};

/// Whether the registry tools are there; in strict mode their absence fails the test, else it
/// is skipped (one line on stderr) and `false` is returned.
pub(crate) fn registry_tools() -> bool {
    let strict = match std::env::var("EGGCAT_REGISTRY_TESTS") {
        Ok(v) if v == "require" => true,
        Ok(v) if !v.is_empty() => {
            panic!("EGGCAT_REGISTRY_TESTS is `{v}`: set it to `require` or unset it")
        }
        _ => false,
    };
    let missing: Vec<&str> = ["docker-registry", "skopeo", "openssl"]
        .into_iter()
        .filter(|tool| {
            Command::new(tool)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_err()
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!(
        "needs {} (Debian packages docker-registry, skopeo, openssl)",
        missing.join(", ")
    );
    assert!(!strict, "EGGCAT_REGISTRY_TESTS=require but the test {why}");
    skip_test(&why);
    false
}

/// `docker-registry serve` on 127.0.0.1, killed when dropped.
pub(crate) struct Registry {
    child: Option<Child>,
    pub(crate) port: u16,
    dir: tempfile::TempDir,
}

impl Registry {
    /// A registry with filesystem storage and deletes enabled; with `issuer`, it wants that
    /// issuer's tokens (`auth: token`).
    pub(crate) fn start(issuer: Option<&TokenIssuer>) -> Registry {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
            dir.path().join("storage").display()
        );
        if let Some(issuer) = issuer {
            config.push_str(&format!(
                "auth:\n  token:\n    realm: http://127.0.0.1:{}/token\n    service: {}\n    issuer: {}\n    rootcertbundle: {}\n",
                issuer.port,
                TokenIssuer::SERVICE,
                TokenIssuer::ISSUER,
                issuer.cert.display()
            ));
        }
        let file = dir.path().join("config.yml");
        std::fs::write(&file, config).unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("registry.log")).unwrap())
            .spawn()
            .expect("docker-registry starts");
        let registry = Registry {
            child: Some(child),
            port,
            dir,
        };
        registry.wait_ready();
        registry
    }

    /// `127.0.0.1:PORT`, as an image reference starts.
    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = http_status(self.port, "GET", "/v2/")
                && (status == 200 || status == 401)
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "docker-registry did not start: {}",
                std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Copies the OCI layout `layout` (tag `t`) into the registry as `name_tag`
    /// (`test/multi:v1`), every platform of it.
    pub(crate) fn push(&self, layout: &Path, name_tag: &str) {
        skopeo(&[
            "copy",
            "--all",
            "--dest-tls-verify=false",
            &format!("oci:{}:t", layout.display()),
            &format!("docker://{}/{name_tag}", self.host()),
        ]);
    }

    /// Deletes the manifest `name_tag` points at: the tag is gone.
    pub(crate) fn delete(&self, name_tag: &str) {
        skopeo(&[
            "delete",
            "--tls-verify=false",
            &format!("docker://{}/{name_tag}", self.host()),
        ]);
    }

    /// Stops the registry: its port refuses connections from now on.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

fn skopeo(args: &[&str]) {
    let out = Command::new("skopeo")
        .args(args)
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("skopeo runs");
    assert!(
        out.status.success(),
        "skopeo {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The status of a request to 127.0.0.1:`port`, or `None` when nothing answers.
fn http_status(port: u16, method: &str, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).ok()?;
    line.split(' ').nth(1)?.parse().ok()
}

/// Writes an OCI layout into `dir` holding one image tagged `t`: for one platform an image
/// manifest, for several an index with one manifest each. Every image has one empty layer;
/// each platform's config differs, so each manifest has its own digest. `salt` goes into the
/// configs, so that two layouts of the same platforms are two images.
pub(crate) fn oci_layout(dir: &Path, platforms: &[&str], salt: &str) -> PathBuf {
    let blobs = dir.join("blobs/sha256");
    std::fs::create_dir_all(&blobs).unwrap();
    let blob = |bytes: &[u8]| {
        let hex = format!("{:x}", Sha256::digest(bytes));
        std::fs::write(blobs.join(&hex), bytes).unwrap();
        (format!("sha256:{hex}"), bytes.len())
    };
    // An empty tar archive: two zero blocks.
    let (layer, layer_size) = blob(&[0u8; 1024]);
    let mut manifests = Vec::new();
    for platform in platforms {
        let mut parts = platform.split('/');
        let (os, arch, variant) = (parts.next().unwrap(), parts.next().unwrap(), parts.next());
        let mut config = serde_json::json!({
            "architecture": arch, "os": os, "config": {"Labels": {"salt": salt}},
            "rootfs": {"type": "layers", "diff_ids": [layer]},
        });
        if let Some(v) = variant {
            config["variant"] = v.into();
        }
        let (config, config_size) = blob(&serde_json::to_vec(&config).unwrap());
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config, "size": config_size},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer, "size": layer_size}],
        });
        let (digest, size) = blob(&serde_json::to_vec(&manifest).unwrap());
        let mut platform = serde_json::json!({"os": os, "architecture": arch});
        if let Some(v) = variant {
            platform["variant"] = v.into();
        }
        manifests.push(serde_json::json!({
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": digest, "size": size, "platform": platform,
        }));
    }
    let top = if manifests.len() == 1 {
        manifests.pop().unwrap()
    } else {
        let index = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": manifests,
        });
        let (digest, size) = blob(&serde_json::to_vec(&index).unwrap());
        serde_json::json!({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": digest, "size": size})
    };
    let mut top = top;
    top["annotations"] = serde_json::json!({"org.opencontainers.image.ref.name": "t"});
    top.as_object_mut().unwrap().remove("platform");
    let index = serde_json::json!({"schemaVersion": 2, "manifests": [top]});
    std::fs::write(dir.join("index.json"), serde_json::to_vec(&index).unwrap()).unwrap();
    std::fs::write(dir.join("oci-layout"), br#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
    dir.to_owned()
}

/// A token service for anyone: every scope asked for is granted. Its JWTs are RS256, signed by
/// `openssl` with a key whose self-signed certificate the registry trusts.
pub(crate) struct TokenIssuer {
    pub(crate) port: u16,
    cert: PathBuf,
    /// The query of every token request, in order.
    pub(crate) requests: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl TokenIssuer {
    const SERVICE: &'static str = "eggcat-test-registry";
    const ISSUER: &'static str = "eggcat-test-issuer";

    pub(crate) fn start() -> TokenIssuer {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        let cert = dir.path().join("cert.pem");
        let out = Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            ])
            .args(["-subj", "/CN=eggcat-test-issuer", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let der = Command::new("openssl")
            .args(["x509", "-outform", "DER", "-in"])
            .arg(&cert)
            .output()
            .expect("openssl runs")
            .stdout;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let x5c = STANDARD.encode(der);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = issue(stream, &key, &x5c, &seen);
            }
        });
        TokenIssuer {
            port,
            cert,
            requests,
            _dir: dir,
        }
    }
}

/// Answers one token request.
fn issue(
    mut stream: TcpStream,
    key: &Path,
    x5c: &str,
    seen: &Mutex<Vec<String>>,
) -> std::io::Result<()> {
    let head = read_head(&mut stream)?;
    let target = head.split(' ').nth(1).unwrap_or("");
    let query = target.split_once('?').map_or("", |(_, q)| q).to_owned();
    seen.lock().unwrap().push(query.clone());
    let access: Vec<serde_json::Value> = query
        .split('&')
        .filter_map(|p| p.strip_prefix("scope="))
        .map(|s| s.replace("%3A", ":").replace("%2F", "/").replace("%2C", ","))
        .filter_map(|scope| {
            let (kind, rest) = scope.split_once(':')?;
            let (name, actions) = rest.rsplit_once(':')?;
            Some(serde_json::json!({"type": kind, "name": name, "actions": actions.split(',').collect::<Vec<_>>()}))
        })
        .collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let header = serde_json::json!({"typ": "JWT", "alg": "RS256", "x5c": [x5c]});
    let claims = serde_json::json!({
        "iss": TokenIssuer::ISSUER, "sub": "", "aud": TokenIssuer::SERVICE,
        "exp": now + 300, "nbf": now - 10, "iat": now, "jti": format!("{now}-{}", access.len()),
        "access": access,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let mut openssl = Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    openssl
        .stdin
        .take()
        .expect("piped")
        .write_all(signing_input.as_bytes())?;
    let signature = openssl.wait_with_output()?.stdout;
    let token = format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature));
    let body = serde_json::json!({"token": token, "access_token": token, "expires_in": 300});
    respond(
        &mut stream,
        200,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// What the proxy does with the next requests.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// Forward each request to the registry.
    Forward,
    /// Answer the next `times` requests `429 Too Many Requests` with `Retry-After: seconds`,
    /// then forward.
    TooMany { times: usize, seconds: u64 },
    /// Forward each request after holding it `millis` ms, so that requests sent together are
    /// in flight together.
    Slow { millis: u64 },
}

/// One request the proxy saw: method, path and the status it answered.
pub(crate) type Seen = (String, String, u16);

/// A counting proxy in front of a registry, on its own port (so images named with its port are
/// asked through it).
pub(crate) struct Proxy {
    pub(crate) port: u16,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
    mode: Arc<Mutex<Mode>>,
    flight: Arc<Flight>,
}

/// Requests read and not yet answered, and the most there were at once.
#[derive(Default)]
struct Flight {
    now: AtomicUsize,
    peak: AtomicUsize,
}

/// One request in flight, from its head read to its answer written (or the connection lost).
struct InFlight<'a>(&'a Flight);

impl<'a> InFlight<'a> {
    fn start(flight: &'a Flight) -> InFlight<'a> {
        let now = flight.now.fetch_add(1, Ordering::SeqCst) + 1;
        flight.peak.fetch_max(now, Ordering::SeqCst);
        InFlight(flight)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Proxy {
    pub(crate) fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mode = Arc::new(Mutex::new(Mode::Forward));
        let flight = Arc::new(Flight::default());
        let (s, m, f) = (seen.clone(), mode.clone(), flight.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, m, f) = (s.clone(), m.clone(), f.clone());
                std::thread::spawn(move || {
                    let _ = serve_connection(stream, upstream, &s, &m, &f);
                });
            }
        });
        Proxy {
            port,
            seen,
            mode,
            flight,
        }
    }

    /// The most requests it had in flight at once.
    pub(crate) fn peak(&self) -> usize {
        self.flight.peak.load(Ordering::SeqCst)
    }

    /// `127.0.0.1:PORT`, as an image reference starts.
    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub(crate) fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// How many requests of `method` to paths containing `part` it saw.
    pub(crate) fn count(&self, method: &str, part: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, p, _)| m == method && p.contains(part))
            .count()
    }
}

/// Serves one client connection, request after request (clients keep connections alive).
fn serve_connection(
    mut client: TcpStream,
    upstream: u16,
    seen: &Mutex<Vec<Seen>>,
    mode: &Mutex<Mode>,
    flight: &Flight,
) -> std::io::Result<()> {
    loop {
        let head = read_head(&mut client)?;
        let _in_flight = InFlight::start(flight);
        let mut words = head.split(' ');
        let (method, path) = (
            words.next().unwrap_or("").to_owned(),
            words.next().unwrap_or("").to_owned(),
        );
        let length: usize = header_value(&head, "content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        client.read_exact(&mut body)?;
        let (too_many, hold) = {
            let mut m = mode.lock().unwrap();
            match *m {
                Mode::TooMany { times, seconds } if times > 0 => {
                    *m = Mode::TooMany {
                        times: times - 1,
                        seconds,
                    };
                    (Some(seconds), 0)
                }
                Mode::Slow { millis } => (None, millis),
                _ => (None, 0),
            }
        };
        std::thread::sleep(Duration::from_millis(hold));
        if let Some(seconds) = too_many {
            seen.lock().unwrap().push((method, path, 429));
            respond(
                &mut client,
                429,
                &[("Retry-After", &seconds.to_string())],
                b"",
            )?;
            continue;
        }
        // One upstream connection per request, closed by the registry after its answer, whose
        // bytes go back as they are (the client's connection stays open).
        let mut up = TcpStream::connect(("127.0.0.1", upstream))?;
        let head = head
            .lines()
            .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
            .collect::<Vec<_>>()
            .join("\r\n");
        write!(up, "{head}\r\nConnection: close\r\n\r\n")?;
        up.write_all(&body)?;
        let mut answer = Vec::new();
        up.read_to_end(&mut answer)?;
        let status = std::str::from_utf8(&answer[..answer.len().min(16)])
            .ok()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        seen.lock().unwrap().push((method, path, status));
        // The registry said `Connection: close`; the client may keep its connection.
        let answer = String::from_utf8_lossy(&answer).replacen("Connection: close\r\n", "", 1);
        client.write_all(answer.as_bytes())?;
    }
}

/// A port that accepts connections and never answers: a registry that hangs.
pub(crate) fn black_hole() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

/// The request line and headers, up to the blank line.
fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    head.truncate(head.len() - 4);
    Ok(String::from_utf8_lossy(&head).into_owned())
}

fn header_value<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}
