//! `eggcat-panel`'s client against Pelican's application API for eggs on loopback (the harness
//! `crates/panels/tests/php/api.php`, whose data path is Pelican's own importer, exporter,
//! transformer and serializer, held to Pelican's wire snapshots by `crates/panels/tests/api.rs`),
//! and against servers that fail as panels can: a 5xx, a redirect, no answer at all.

#[path = "../../panels/tests/support/pelican_api.rs"]
mod pelican_api;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Duration;

use eggcat_panel::{Client, Config, Key, PanelError, PanelServer, Servers};
use pelican_api::{Harness, key};
use serde_json::json;

const ADMIN: &str = "papp_fixture0001fixtureapplicationtokenvalue0001";
/// An application key without the eggs permission.
const NO_EGGS: &str = "papp_noeggs00001noeggstokenvalue000000000000001";
const FLOOD: &str = "papp_floodkey001floodtokenvalue0000000000000001";
/// An application key that may read eggs and not servers.
const EGGS_ONLY: &str = "papp_eggsonly001eggsonlytokenvalue00000000000001";

/// `../shared/panels-src`, or `None` (one line) when the corpus or PHP is missing.
fn panels_src() -> Option<PathBuf> {
    let dir = eggcat_testkit::corpus()?;
    let php = std::process::Command::new("php")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let packages = [
        "Symfony/Component/Yaml",
        "Illuminate/Database",
        "Illuminate/Validation",
    ]
    .iter()
    .all(|p| std::path::Path::new(&format!("/usr/share/php/{p}/autoload.php")).exists());
    if !(php && packages) {
        assert!(
            std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
            "EGGCAT_PHP=require but php-cli or its Laravel packages are missing"
        );
        eggcat_testkit::skip_test("needs php-cli and the Laravel packages (bash .ci/install)");
        return None;
    }
    Some(dir.join("../panels-src"))
}

fn client(url: &str, token: &str) -> Client {
    client_waiting(url, token, Duration::from_secs(60))
}

/// A client that waits out a `429` asking at most `wait_limit`.
fn client_waiting(url: &str, token: &str, wait_limit: Duration) -> Client {
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), format!("{token}\n")).unwrap();
    let mut config = Config::new(url, Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_secs(20);
    config.wait_limit = wait_limit;
    Client::new(config).unwrap()
}

#[tokio::test]
async fn lists_and_exports_the_eggs_and_names_what_a_key_lacks() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 5, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
        key(NO_EGGS, 2, json!({"server": 3}), "00000000-0000-4000-8000-000000000106", true),
        key(FLOOD, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000105", true),
        key(EGGS_ONLY, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000107", true),
    ]});
    let harness = Harness::start_with_servers(&src, &keys);
    let admin = client(&harness.url(), ADMIN);
    let eggs = admin.eggs().await.unwrap();
    assert_eq!(eggs.len(), 1);
    assert_eq!(
        (eggs[0].id, eggs[0].uuid.as_str(), eggs[0].name.as_str()),
        (100, "00000000-0000-4000-8000-000000000300", "Fixture Egg")
    );
    // The fixture's server, in the same request; a key that may not read servers is told
    // apart from an egg no server uses.
    assert_eq!(
        eggs[0].servers,
        Servers::Known(vec![PanelServer {
            id: 100,
            uuid: "00000000-0000-4000-8000-000000000400".to_owned(),
            name: "Fixture Server".to_owned(),
        }])
    );
    let eggs = client(&harness.url(), EGGS_ONLY).eggs().await.unwrap();
    assert_eq!(eggs[0].servers, Servers::NotPermitted);
    let export = admin.export(100).await.unwrap();
    assert_eq!(export["meta"]["version"], "PLCN_v3");
    assert_eq!(export["uuid"], eggs[0].uuid.as_str());
    // One missing egg fails alone.
    let both = admin.exports(&[100, 999]).await;
    assert_eq!(both[0].as_ref().unwrap(), &export);
    assert!(
        matches!(&both[1], Err(PanelError::NotFound { .. })),
        "{:?}",
        both[1]
    );

    // A key without the eggs permission: the permission named, Pelican's words quoted.
    let err = client(&harness.url(), NO_EGGS).eggs().await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PanelError::Forbidden { .. }), "{err:?}");
    assert!(
        text.contains("\"Eggs: Read\"") && text.contains("This action is unauthorized."),
        "{text}"
    );
    assert!(!text.contains("noeggstoken"), "{text}");
    // A wrong key.
    let err = client(&harness.url(), "papp_fixture0001wrongtoken0000000000000000")
        .eggs()
        .await
        .unwrap_err();
    assert!(matches!(err, PanelError::Unauthenticated { .. }), "{err:?}");
    assert!(!err.to_string().contains("wrongtoken"), "{err}");
    // The throttle, for a client that may not wait: 429 with the wait, never an answer.
    let flood = client_waiting(&harness.url(), FLOOD, Duration::ZERO);
    for _ in 0..5 {
        flood.export(100).await.unwrap();
    }
    let err = flood.export(100).await.unwrap_err();
    let PanelError::RateLimited {
        retry_after: Some(wait),
        ..
    } = err
    else {
        panic!("{err:?}")
    };
    assert!((1..=60).contains(&wait), "{wait}");
}

/// A server on loopback that answers every request with `answer` (or never, when `None`).
fn fake(answer: Option<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            match answer {
                Some(a) => {
                    let _ = stream.write_all(a.as_bytes());
                }
                // Keep the connection open and say nothing.
                None => held.push(stream),
            }
        }
    });
    url
}

#[tokio::test]
async fn a_failing_panel_is_an_error_never_an_answer() {
    let key = "papp_somekey0001sometokenvalue00000000000000001";
    let server_error = fake(Some(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 142\r\n\r\n{\"errors\":[{\"code\":\"QueryException\",\"status\":\"500\",\"detail\":\"An unexpected error was encountered while processing this request, please try again.\"}]}",
    ));
    let err = client(&server_error, key).eggs().await.unwrap_err();
    assert!(
        matches!(err, PanelError::Server { status: 500, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("QueryException"), "{err}");
    let redirect = fake(Some(
        "HTTP/1.1 302 Found\r\nLocation: https://elsewhere.example/\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    ));
    let err = client(&redirect, key).eggs().await.unwrap_err();
    assert!(
        matches!(err, PanelError::Unexpected { status: 302, .. }),
        "{err:?}"
    );
    let not_pelican = fake(Some(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\nContent-Length: 13\r\n\r\n<html></html>",
    ));
    let err = client(&not_pelican, key).eggs().await.unwrap_err();
    assert!(matches!(err, PanelError::Malformed { .. }), "{err:?}");
    // A list without the servers include Pelican sends when asked: no count made up.
    let no_include = fake(Some(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 87\r\n\r\n{\"object\":\"list\",\"data\":[{\"object\":\"egg\",\"attributes\":{\"id\":1,\"uuid\":\"u\",\"name\":\"n\"}}]}",
    ));
    let err = client(&no_include, key).eggs().await.unwrap_err();
    assert!(
        matches!(&err, PanelError::Malformed { why, .. } if why.contains("no servers include")),
        "{err:?}"
    );
    let silent = fake(None);
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), key).unwrap();
    let mut config = Config::new(&silent, Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_millis(300);
    let err = Client::new(config).unwrap().eggs().await.unwrap_err();
    assert!(matches!(err, PanelError::Timeout(_)), "{err:?}");
    assert!(!err.to_string().contains("sometoken"));
}

#[test]
fn plain_http_to_another_host_and_a_bad_ca_file_are_refused() {
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), "papp_x").unwrap();
    let key = Key::from_file(key_file.path()).unwrap();
    let err = Client::new(Config::new("http://panel.example.org", key.clone())).unwrap_err();
    assert!(err.to_string().contains("plain http"), "{err}");
    let mut config = Config::new("https://panel.example.org", key);
    config.ca_file = Some(key_file.path().to_owned());
    let err = Client::new(config).unwrap_err();
    assert!(err.to_string().contains("not a PEM certificate"), "{err}");
}

/// https as a panel serves it: nginx with a certificate from a test CA in front of the panel.
/// A client that does not trust that CA refuses the connection (the certificate checked, never
/// an answer); the panel's own CA file (`ca_file`, `--ca-file`) makes the same panel work.
#[tokio::test]
async fn https_is_verified_and_a_panels_own_ca_is_trusted_when_given() {
    let Some(src) = panels_src() else { return };
    if !eggcat_testkit::tls::tools("a panel over https") {
        return;
    }
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let harness = Harness::start(&src, &keys, true);
    let dir = tempfile::tempdir().unwrap();
    let certs = eggcat_testkit::tls::certificates(dir.path(), &["localhost"]);
    let bin = eggcat_testkit::nginx::binary().unwrap();
    let (cert, key_file) = (certs.cert.display(), certs.key.display());
    let panel_port = harness.port;
    let nginx = eggcat_testkit::nginx::Nginx::start(&bin, &dir.path().join("nginx"), |port| {
        format!(
            "  server {{\n    listen 127.0.0.1:{port} ssl;\n    server_name localhost;\n    \
             ssl_certificate {cert};\n    ssl_certificate_key {key_file};\n    \
             location / {{ proxy_pass http://127.0.0.1:{panel_port}; }}\n  }}\n"
        )
    });
    let url = format!("https://localhost:{}", nginx.port);
    let with = |ca: Option<&std::path::Path>| {
        let key_file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(key_file.path(), ADMIN).unwrap();
        let mut config = Config::new(&url, Key::from_file(key_file.path()).unwrap());
        config.timeout = Duration::from_secs(20);
        config.ca_file = ca.map(std::path::Path::to_path_buf);
        Client::new(config).unwrap()
    };
    let err = with(None).eggs().await.unwrap_err();
    assert!(
        matches!(&err, PanelError::Transport(t) if t.contains("certificate")),
        "{err:?}"
    );
    let eggs = with(Some(&certs.ca)).eggs().await.unwrap();
    assert!(eggs.iter().any(|e| e.id == 100), "{eggs:?}");
    // The request went through nginx, over TLS, with the key.
    assert!(
        nginx
            .requests()
            .iter()
            .any(|r| r.uri == "/api/application/eggs?include=servers"
                && r.authorization
                    .as_deref()
                    .is_some_and(|a| a.starts_with("Bearer "))),
        "{:?}",
        nginx.requests()
    );
}
