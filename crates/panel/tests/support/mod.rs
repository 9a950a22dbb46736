//! What the tests of `eggcat panel` against Pelican's own code share: where Pelican's source
//! is (or one line saying why the test checks nothing), a catalog on loopback serving the
//! files a test gives it, and import and export through the harness.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::pelican_api::Harness;

pub const ADMIN: &str = "papp_fixture0001fixtureapplicationtokenvalue0001";

pub fn panels_src() -> Option<PathBuf> {
    let dir = eggcat_testkit::corpus()?;
    let php = std::process::Command::new("php")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !php || !std::path::Path::new("/usr/share/php/Illuminate/Database/autoload.php").exists() {
        assert!(
            std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
            "EGGCAT_PHP=require but php-cli or its Laravel packages are missing"
        );
        eggcat_testkit::skip_test("needs php-cli and the Laravel packages (bash .ci/install)");
        return None;
    }
    Some(dir.join("../panels-src"))
}

pub type Files = Arc<Mutex<BTreeMap<String, (u16, String)>>>;

/// A catalog on loopback: each path its status and body; any other path 404.
pub fn catalog_server(files: Files) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
            let (status, body) = files
                .lock()
                .unwrap()
                .get(&path)
                .cloned()
                .unwrap_or((404, "{}".to_owned()));
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

pub fn import(h: &Harness, file: &Value) -> u64 {
    let answer = h.request(
        "POST",
        "/api/application/eggs/import",
        Some(ADMIN),
        file.to_string().as_bytes(),
    );
    let v = answer.json();
    v["attributes"]["id"]
        .as_u64()
        .unwrap_or_else(|| panic!("import refused: {v}"))
}

pub fn export(h: &Harness, id: u64) -> Value {
    h.request(
        "GET",
        &format!("/api/application/eggs/{id}/export?format=json"),
        Some(ADMIN),
        b"",
    )
    .json()
}

/// Panics unless `report` holds to `docs/schemas/{name}.schema.json`.
pub fn check_schema(report: &Value, name: &str) {
    let path = format!(
        "{}/../../docs/schemas/{name}.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let id = format!("https://eggcat.invalid/schemas/{name}.schema.json");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource(&id, schema).unwrap();
    let index = compiler.compile(&id, &mut schemas).unwrap();
    if let Err(e) = schemas.validate(report, index) {
        panic!("the report breaks docs/schemas/{name}.schema.json: {e:#}");
    }
}

/// The admin's client on the harness `h`, and the catalog at `catalog_url`, whose files
/// `files` now list no egg (`_index.json` empty: no egg is matched by its uuid).
pub fn admin_and_catalog(
    h: &Harness,
    files: &Files,
    catalog_url: &str,
) -> (eggcat_panel::Client, eggcat_panel::status::Catalog) {
    files.lock().unwrap().insert(
        "/api/v1/eggs/_index.json".to_owned(),
        (200, "[]".to_owned()),
    );
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), ADMIN).unwrap();
    let key = eggcat_panel::Key::from_file(key_file.path()).unwrap();
    let client = eggcat_panel::Client::new(eggcat_panel::Config::new(&h.url(), key)).unwrap();
    let timeout = std::time::Duration::from_secs(20);
    let catalog = eggcat_panel::status::Catalog::new(catalog_url, None, timeout, 4).unwrap();
    (client, catalog)
}

/// The item of the panel's egg `id` in a status or update report.
pub fn egg_item(report: &Value, id: u64) -> Value {
    report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("egg {id} is in the report: {report:#}"))
        .clone()
}

/// Pelican's update-check hash of a file.
pub fn md5(file: &Value) -> String {
    eggcat_panels::update_check_md5(file.to_string().as_bytes()).unwrap()
}
