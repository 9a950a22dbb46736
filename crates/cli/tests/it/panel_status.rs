//! `eggcat panel status`, `update` and `restore` end to end: the binary against Pelican's
//! importer and exporter on loopback (`crates/panels/tests/php/api.php`, SQLite) and a catalog
//! on loopback; the key from the environment or a file and never in the output; the table (no
//! colour off a terminal), `--json`, and the exit codes the guide (docs/guides/panel-status.md)
//! promises. The classification of every state is `crates/panel/tests/status.rs`'s, the merge
//! of every kind of egg `crates/panel/tests/update.rs`'s.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};

use crate::pelican_api::{Harness, key};
use serde_json::{Value, json};

const ADMIN: &str = "papp_fixture0001fixtureapplicationtokenvalue0001";
const NO_EGGS: &str = "papp_noeggs00001noeggstokenvalue000000000000001";

pub(crate) fn php_ready() -> Option<std::path::PathBuf> {
    let dir = eggcat_testkit::corpus()?;
    let php = Command::new("php")
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

fn run(args: &[&str], key: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eggcat"));
    cmd.args(args).env_remove("EGGCAT_PANEL_KEY");
    if let Some(k) = key {
        cmd.env("EGGCAT_PANEL_KEY", k);
    }
    cmd.output().unwrap()
}

#[test]
fn status_update_and_restore_for_a_behind_egg_exit_for_cron() {
    let Some(src) = php_ready() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
        key(NO_EGGS, 2, json!({"server": 3}), "00000000-0000-4000-8000-000000000106", true),
    ]});
    let h = Harness::start_with_servers(&src, &keys);
    let req = |method: &str, path: &str, body: &Value| {
        h.request(method, path, Some(ADMIN), body.to_string().as_bytes())
            .json()
    };
    // The catalog's address is known before it serves (the files name it).
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let catalog_url = format!("http://{}", listener.local_addr().unwrap());
    let mut v1 = req(
        "GET",
        "/api/application/eggs/100/export?format=json",
        &json!(null),
    );
    v1["uuid"] = json!("00000000-0000-4000-8000-000000000777");
    v1["name"] = json!("Old Egg");
    v1["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/old-egg/pelican.json"));
    let id = req("POST", "/api/application/eggs/import", &v1)["attributes"]["id"]
        .as_u64()
        .unwrap();
    let path = format!("/api/application/eggs/{id}/export?format=json");
    let e1 = req("GET", &path, &json!(null));
    let mut v2 = e1.clone();
    v2["description"] = json!("version 2");
    req("POST", "/api/application/eggs/import", &v2);
    let e2 = req("GET", &path, &json!(null));
    req("POST", "/api/application/eggs/import", &e1);
    let servers: Vec<Value> = ["Lobby", "Games"]
        .iter()
        .map(|name| h.add_server(id, name, &[]))
        .collect();
    let md5 = |f: &Value| eggcat_panels::update_check_md5(f.to_string().as_bytes()).unwrap();
    let history = json!({"versions": [
        {"commit": "b".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "Rename the port",
         "breaking": true, "changes": [
            {"kind": "variable_renamed", "text": "variable SERVER_PORT renamed to PORT", "breaking": true}],
         "pelicanUpdateCheckMd5": {"sqlite": md5(&e2), "mariadb": md5(&e2), "postgresql": md5(&e2)}},
        {"commit": "a".repeat(40), "date": "2026-09-01T00:00:00.000Z", "subject": "First",
         "breaking": false, "changes": [],
         "pelicanUpdateCheckMd5": {"sqlite": md5(&e1), "mariadb": md5(&e1), "postgresql": md5(&e1)}}
    ]});
    let files = BTreeMap::from([
        (
            "/api/v1/eggs/old-egg/history.json".to_owned(),
            history.to_string(),
        ),
        (
            "/api/v1/eggs/old-egg/pelican.json".to_owned(),
            e2.to_string(),
        ),
        ("/api/v1/eggs/_index.json".to_owned(), "[]".to_owned()),
    ]);
    serve_catalog(listener, files);
    let panel = h.url();
    let base = [
        "panel",
        "status",
        "--panel",
        panel.as_str(),
        "--catalog",
        catalog_url.as_str(),
    ];
    // --json, the key from the environment: exit 1 (an egg is behind).
    let out = run(&[&base[..], &["--json"]].concat(), Some(ADMIN));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let egg = report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap();
    assert_eq!(egg["state"], "behind", "{egg}");
    assert_eq!(egg["has"]["subject"], "First");
    assert_eq!(
        egg["resetsServerValues"],
        json!(["variable SERVER_PORT renamed to PORT"])
    );
    assert_eq!(egg["servers"], json!(servers));
    assert_eq!(report["serversKnown"], true);
    assert_eq!(
        report["counts"]["not-from-this-catalog"], 1,
        "the fixture egg"
    );
    // The table, the key from a file: no colour off a terminal, the breaking change marked.
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), format!("{ADMIN}\n")).unwrap();
    let key_path = key_file.path().to_str().unwrap();
    let out = run(&[&base[..], &["--key-file", key_path]].concat(), None);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    assert!(!table.contains('\x1b'), "{table}");
    assert!(
        table.contains("! variable SERVER_PORT renamed to PORT"),
        "{table}"
    );
    assert!(
        table.contains("resets every server's value: variable SERVER_PORT renamed to PORT"),
        "{table}"
    );
    let using = format!(
        "2 servers use this egg: Lobby (id {}), Games (id {})",
        servers[0]["id"], servers[1]["id"]
    );
    assert!(table.contains(&using), "{table}");
    assert!(!table.contains(ADMIN));
    // A key without the eggs permission: exit 2, the permission named, no state, no key.
    let out = run(&base, Some(NO_EGGS));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("Eggs: Read"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!stderr.contains(NO_EGGS), "{stderr}");
    // No key at all: exit 2, saying where it is looked for.
    let out = run(&base, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("EGGCAT_PANEL_KEY"), "{stderr}");
    // There is no option that takes the key itself.
    let out = run(&[&base[..], &["--key", ADMIN]].concat(), None);
    assert_eq!(out.status.code(), Some(2));

    // `panel update`: the version since renames a variable (breaking), so a dry run, and an
    // update without consent, leave the egg and say which flag writes it (exit 1).
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap();
    let update = [
        "panel",
        "update",
        "--panel",
        panel.as_str(),
        "--catalog",
        catalog_url.as_str(),
        "--data-dir",
        data_dir,
    ];
    let out = run(&[&update[..], &["--dry-run"]].concat(), Some(ADMIN));
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    assert!(table.contains("needs-consent"), "{table}");
    assert!(table.contains("--accept-breaking old-egg"), "{table}");
    assert!(table.contains(&using), "{table}");
    assert!(table.contains("(dry run: nothing written)"), "{table}");
    assert_eq!(
        req("GET", &path, &json!(null))["description"],
        e1["description"]
    );
    // With consent: written through Pelican's import, saved before, exit 0.
    let out = run(
        &[&update[..], &["--accept-breaking", "old-egg", "--json"]].concat(),
        Some(ADMIN),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let egg = report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap();
    assert_eq!(egg["outcome"], "updated", "{report:#}");
    assert_eq!(req("GET", &path, &json!(null))["description"], "version 2");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(ADMIN));
    // `panel restore`: the saved export listed, then put back (exit 0).
    let restore = [
        "panel",
        "restore",
        "--panel",
        panel.as_str(),
        "--data-dir",
        data_dir,
    ];
    let id_text = id.to_string();
    let out = run(
        &[&restore[..], &["--list", "--egg", &id_text]].concat(),
        Some(ADMIN),
    );
    let list = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{list}");
    assert_eq!(list.lines().count(), 1, "{list}");
    let out = run(&[&restore[..], &["--egg", &id_text]].concat(), Some(ADMIN));
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.starts_with(&format!("restored egg {id} from ")),
        "{said}"
    );
    assert_eq!(
        req("GET", &path, &json!(null))["description"],
        e1["description"]
    );
    // A time that was never saved: exit 2, saying how to list them.
    let out = run(
        &[
            &restore[..],
            &["--egg", &id_text, "--at", "1999-01-01T00-00-00.000Z"],
        ]
        .concat(),
        Some(ADMIN),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("panel restore --list"), "{stderr}");
}

/// A catalog on `listener` answering the paths of `files`, 404 elsewhere.
fn serve_catalog(listener: TcpListener, files: BTreeMap<String, String>) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = head.split(' ').nth(1).unwrap_or("/");
            let (status, body) = files
                .get(path)
                .map_or((404, "{}".to_owned()), |b| (200, b.clone()));
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
}
