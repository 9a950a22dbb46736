//! A real HTTPS server on loopback for tests: a test CA and a server certificate that `openssl`
//! makes, for nginx (`crate::nginx`) to serve HTTPS with itself (`ssl_certificate`). The client
//! trusts the CA through its own option (eggcat's `ca_file`), never the system's store. Used by
//! the download checks' tests of `eggcat-images` and `eggcat`'s `it::downloads`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `nginx` and `openssl` are there. Without them a test says so on one line
/// (`skipped: {what}: needs nginx and openssl`) and checks nothing, unless
/// `EGGCAT_REGISTRY_TESTS=require`, under which it fails.
pub fn tools(what: &str) -> bool {
    let ok =
        Command::new("openssl").arg("version").output().is_ok() && crate::nginx::binary().is_some();
    if !ok {
        let strict = std::env::var("EGGCAT_REGISTRY_TESTS").is_ok_and(|v| v == "require");
        assert!(
            !strict,
            "EGGCAT_REGISTRY_TESTS=require but nginx or openssl is missing"
        );
        eprintln!("skipped: {what}: needs nginx and openssl");
    }
    ok
}

/// What [`certificates`] makes.
#[derive(Debug, Clone)]
pub struct Certificates {
    /// The test CA's certificate: the file a client is told to trust.
    pub ca: PathBuf,
    /// The server's certificate, signed by the CA (nginx's `ssl_certificate`).
    pub cert: PathBuf,
    /// The server's key (nginx's `ssl_certificate_key`).
    pub key: PathBuf,
}

/// A test CA and a server certificate for `names` (its subject alternative names), made in
/// `dir`, valid for a day.
pub fn certificates(dir: &Path, names: &[&str]) -> Certificates {
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
    Certificates {
        ca: dir.join("ca.pem"),
        cert: dir.join("server.crt"),
        key: dir.join("server.key"),
    }
}
