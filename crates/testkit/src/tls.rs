//! A real HTTPS front on loopback for tests: a test CA and a server certificate that `openssl`
//! makes, and `socat` speaking TLS with it in front of a plain HTTP server the test runs. The
//! client trusts the CA through its own option (eggcat's `ca_file`), never the system's store.
//! Used by the download checks' tests of `eggcat-images` and `eggcat`'s `it::downloads`.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `openssl` and `socat` are there. Without them a test says so on one line
/// (`skipped: {what}: needs openssl and socat`) and checks nothing, unless
/// `EGGCAT_REGISTRY_TESTS=require`, under which it fails.
pub fn tools(what: &str) -> bool {
    let ok = Command::new("openssl").arg("version").output().is_ok()
        && Command::new("socat").arg("-V").output().is_ok();
    if !ok {
        let strict = std::env::var("EGGCAT_REGISTRY_TESTS").is_ok_and(|v| v == "require");
        assert!(
            !strict,
            "EGGCAT_REGISTRY_TESTS=require but openssl or socat is missing"
        );
        eprintln!("skipped: {what}: needs openssl and socat");
    }
    ok
}

/// A test CA and a server certificate for `names`, made in `dir`: (the CA file, the server's
/// PEM with its key).
pub fn certificates(dir: &Path, names: &[&str]) -> (PathBuf, PathBuf) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let ca = ["-keyout", "ca.key", "-out", "ca.pem", "-days", "1"];
    run(&[
        &["req", "-x509"][..],
        &ec,
        &ca,
        &["-subj", "/CN=eggcat test CA"],
    ]
    .concat());
    let csr = ["-keyout", "server.key", "-out", "server.csr"];
    run(&[
        &["req"][..],
        &ec,
        &csr,
        &["-subj", "/CN=eggcat test server"],
    ]
    .concat());
    let san: Vec<String> = names.iter().map(|n| format!("DNS:{n}")).collect();
    std::fs::write(
        dir.join("san.ext"),
        format!(
            "subjectAltName={}\nbasicConstraints=CA:FALSE\n",
            san.join(",")
        ),
    )
    .expect("the extension file");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "1",
        "-extfile",
        "san.ext",
    ]);
    let pem = [
        std::fs::read(dir.join("server.crt")).expect("the certificate"),
        std::fs::read(dir.join("server.key")).expect("the key"),
    ]
    .concat();
    std::fs::write(dir.join("server.pem"), pem).expect("the server PEM");
    (dir.join("ca.pem"), dir.join("server.pem"))
}

/// `socat` speaking TLS on a free port of 127.0.0.1 in front of the plain server on port
/// `plain`; stopped when dropped.
#[derive(Debug)]
pub struct Tls {
    child: Child,
    /// The TLS port.
    pub port: u16,
}

impl Tls {
    /// Starts it with `server_pem` (certificate and key) and waits until it listens.
    pub fn start(server_pem: &Path, plain: u16) -> Tls {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a port")
            .local_addr()
            .expect("its address")
            .port();
        let child = Command::new("socat")
            .arg(format!(
                "OPENSSL-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork,cert={},verify=0",
                server_pem.display()
            ))
            .arg(format!("TCP:127.0.0.1:{plain}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat starts");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(5), "socat listens");
            std::thread::sleep(Duration::from_millis(20));
        }
        Tls { child, port }
    }
}

impl Drop for Tls {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
