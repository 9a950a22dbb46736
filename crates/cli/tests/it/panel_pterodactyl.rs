//! `eggcat panel status` on a Pterodactyl panel, end to end: the binary against Pterodactyl's
//! importer on loopback (`crates/panels/tests/php/ptero_api.php`, SQLite) and a catalog on
//! loopback. The panel's kind is found from its answers (no option), `--json` and the table say
//! what differs and which file to upload with Update Egg, the exit code is the guide's, the key
//! never shows. Every state's classification is `crates/panel/tests/pterodactyl.rs`'s.

#[path = "../../../panels/tests/support/ptero_api.rs"]
mod ptero_api;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};

use ptero_api::{Harness, key};
use serde_json::{Value, json};

const ADMIN: &str = "ptla_admin0000001adminsecretadminsecretadminsecret1";

fn run(args: &[&str], key: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_eggcat"));
    cmd.args(args).env_remove("EGGCAT_PANEL_KEY");
    if let Some(k) = key {
        cmd.env("EGGCAT_PANEL_KEY", k);
    }
    cmd.output().unwrap()
}

#[test]
fn status_on_a_pterodactyl_panel_names_the_file_to_upload() {
    let Some(corpus) = eggcat_testkit::corpus() else {
        return;
    };
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
        return;
    }
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"r_nests": 1, "r_eggs": 1}), "00000000-0000-4000-8000-000000000101", true),
    ]});
    let h = Harness::start(&corpus.join("../panels-src"), &keys);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let catalog_url = format!("http://{}", listener.local_addr().unwrap());
    // A corpus egg as the catalog publishes its pterodactyl.json.
    let slug = "some-egg";
    let file_url = format!("{catalog_url}/api/v1/eggs/{slug}/pterodactyl.json");
    let file = eggcat_testkit::egg_files(&corpus)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .find_map(|path| {
            let upstream: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
            let rel = path.strip_prefix(&corpus).unwrap().display().to_string();
            let uuid = eggcat_panels::stable_uuid(&rel);
            let other = format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json");
            let v = eggcat_panels::variants(
                &upstream,
                &eggcat_panels::Target {
                    uuid: &uuid,
                    pelican_yaml_url: &other,
                    pelican_json_urls: eggcat_panels::PerDatabase {
                        sqlite: &other,
                        mariadb: &other,
                        postgresql: &other,
                    },
                    pterodactyl_url: &file_url,
                    exported_at: "2026-01-01T00:00:00+00:00",
                },
            );
            v.pterodactyl_json.filter(|_| v.pterodactyl.importable)
        })
        .expect("an importable corpus egg");
    let parsed: Value = serde_json::from_slice(&file).unwrap();
    let id = h.import(1, &file);
    h.edit(id, &json!({"egg": {"description": "Our own words"}}));
    let files = BTreeMap::from([
        (
            "/api/v1/eggs/_index.json".to_owned(),
            json!([{"slug": slug, "name": parsed["name"]}]).to_string(),
        ),
        (
            format!("/api/v1/eggs/{slug}/pterodactyl.json"),
            String::from_utf8(file.clone()).unwrap(),
        ),
    ]);
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
    let panel = h.url();
    let base = [
        "panel",
        "status",
        "--panel",
        panel.as_str(),
        "--catalog",
        catalog_url.as_str(),
    ];
    // --json, the kind found from the panel's answers: exit 1 (an egg differs).
    let out = run(&[&base[..], &["--json"]].concat(), Some(ADMIN));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["panelKind"], "pterodactyl");
    let egg = &report["eggs"][0];
    assert_eq!(egg["state"], "differs", "{egg}");
    assert_eq!(egg["differs"][0]["field"], "description");
    assert_eq!(egg["importFile"], file_url.as_str());
    // The table, the key from a file: no colour off a terminal, the steps to update by hand.
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), format!("{ADMIN}\n")).unwrap();
    let key_path = key_file.path().to_str().unwrap();
    let out = run(
        &[
            &base[..],
            &["--key-file", key_path, "--panel-kind", "pterodactyl"],
        ]
        .concat(),
        None,
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    assert!(!table.contains('\x1b'), "{table}");
    assert!(table.contains("differs: description"), "{table}");
    assert!(
        table.contains(&file_url) && table.contains("Update Egg"),
        "{table}"
    );
    // Named as Pelican, the panel has no Pelican egg route: an error (2), never a state.
    let out = run(
        &[&base[..], &["--panel-kind", "pelican"]].concat(),
        Some(ADMIN),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("404"), "{stderr}");
    for o in [&out.stdout, &out.stderr] {
        assert!(
            !String::from_utf8_lossy(o).contains("adminsecret"),
            "the key shows"
        );
    }
    // `panel update` and `restore` write through Pelican's import, which Pterodactyl's API
    // lacks: refused (2) with what to do instead, nothing written.
    let data = tempfile::tempdir().unwrap();
    for cmd in [
        vec!["panel", "update", "--catalog", catalog_url.as_str()],
        vec!["panel", "restore", "--egg", "1"],
    ] {
        let mut args = cmd.clone();
        args.extend([
            "--panel",
            base[3],
            "--data-dir",
            data.path().to_str().unwrap(),
        ]);
        let out = run(&args, Some(ADMIN));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {stderr}");
        assert!(
            stderr.contains("is a Pterodactyl panel") && stderr.contains("Update Egg"),
            "{cmd:?}: {stderr}"
        );
    }
    // Update Egg with that file: up to date, exit 0.
    h.update(id, &file);
    let out = run(&[&base[..], &["--json"]].concat(), Some(ADMIN));
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["eggs"][0]["state"], "up-to-date");
}
