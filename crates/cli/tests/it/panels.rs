//! The panels' import files in the catalog: each egg's `pelican.yaml`, `pelican.json` and
//! `pterodactyl.json` with their `meta.import` verdicts, stable UUIDs (upstream's, derived, and
//! what happens when two eggs share one), the compat indexes read as Pelican's
//! `UpdateEggIndexCommand` reads them, and imports of the listed URLs through the HTTP server.

use std::io::{Read, Write};

use eggcat_server::{App, AppOptions, ServeOptions, Server};
use serde_json::Value;

use crate::support::*;

/// `GET path` over a real connection: status, Content-Type and body.
fn fetch(addr: std::net::SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: eggcat.example\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head[9..12].parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or("")
        .to_owned();
    (status, content_type, raw[split + 4..].to_vec())
}

const UUID: &str = "7f3c1d2e-8a4b-4c6d-9e0f-112233445566";

fn egg(name: &str, uuid: Option<&str>, startup: bool) -> String {
    let uuid = uuid.map_or(String::new(), |u| format!("\"uuid\": \"{u}\",\n"));
    let startup = if startup {
        "\"startup\": \"./run --port {{SERVER_PORT}} --max {{MAX_PLAYERS}}\",\n"
    } else {
        ""
    };
    format!(
        r##"{{
    "meta": {{ "version": "PTDL_v2", "update_url": null }},
    "name": "{name}",
    "author": "dev@example.org",
    {uuid}"description": "A test egg",
    "docker_images": {{ "Debian": "ghcr.io/parkervcp/yolks:debian" }},
    {startup}"config": {{ "files": "{{}}", "startup": "{{\"done\": \"ready\"}}", "logs": "{{}}", "stop": "stop" }},
    "scripts": {{ "installation": {{ "script": "#!/bin/bash\necho ok", "container": "alpine", "entrypoint": "bash" }} }},
    "variables": [
        {{ "name": "Players", "description": "", "env_variable": "MAX_PLAYERS", "default_value": "10",
           "user_viewable": true, "user_editable": true, "rules": "required|integer", "field_type": "text" }}
    ]
}}
"##
    )
}

#[test]
fn import_files_identities_and_compat_indexes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(tmp.path().join("eggs"), "main");
    repo.write("a/egg-first.json", egg("First", Some(UUID), true))
        .write("b/egg-twin.json", egg("Twin", Some(UUID), true))
        .write("c/egg-odd-uuid.json", egg("Odd", Some("not-a-uuid"), true))
        .write("d/egg-no-startup.json", egg("Broken", None, false));
    repo.commit("four eggs");
    let data = tmp.path().join("data");
    let out = build(
        &data,
        vec![source(&repo.url(), "o", "eggs")],
        &Clock::new(1_700_000_000_000),
    );
    let files = &out.snapshot.files;
    let meta = |slug: &str| egg_doc(&out, slug)["meta"].clone();

    // Identity: the first egg keeps upstream's uuid, its twin and the odd one get derived ones.
    assert_eq!(meta("eggs-first")["uuid"], UUID);
    let twin = meta("eggs-twin")["uuid"].as_str().unwrap().to_owned();
    assert_eq!(twin, eggcat_panels::stable_uuid("o/eggs/b/egg-twin.json"));
    let odd = meta("eggs-odd-uuid")["uuid"].as_str().unwrap().to_owned();
    assert_eq!(
        odd,
        eggcat_panels::stable_uuid("o/eggs/c/egg-odd-uuid.json")
    );
    let warnings = &out.report.warnings;
    let collision = warnings
        .iter()
        .find(|w| w.path == "b/egg-twin.json")
        .expect("the collision is in the report");
    assert!(
        collision.message.contains("a/egg-first.json"),
        "{}",
        collision.message
    );
    assert!(collision.message.contains(&twin), "{}", collision.message);
    // ...and both eggs carry the E017 diagnostic, counted in the status.
    for slug in ["eggs-first", "eggs-twin"] {
        let codes: Vec<Value> = meta(slug)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].clone())
            .collect();
        assert!(codes.contains(&Value::from("E017")), "{slug}: {codes:?}");
    }
    assert_eq!(out.report.diagnostics.by_code["E017"], 2);
    assert!(out.report.diagnostics.by_source["o/eggs"]["E017"] == 2);

    // A convertible egg: three files, URLs in meta, both panels accept it.
    let first = meta("eggs-first");
    let base = format!("{TEST_BASE_URL}/api/v1/eggs/eggs-first");
    assert_eq!(
        first["import"]["pelican"]["yaml"],
        format!("{base}/pelican.yaml")
    );
    assert_eq!(first["import"]["pelican"]["importable"], true);
    assert_eq!(
        first["import"]["pterodactyl"]["json"],
        format!("{base}/pterodactyl.json")
    );
    assert_eq!(first["import"]["pterodactyl"]["importable"], true);
    let yaml = eggcat_egg::parse(
        &files["api/v1/eggs/eggs-first/pelican.yaml"],
        eggcat_egg::SyntaxKind::Yaml,
    )
    .unwrap()
    .value;
    assert_eq!(yaml["meta"]["update_url"], format!("{base}/pelican.yaml"));
    assert_eq!(yaml["uuid"], UUID);
    // One JSON file per export order, each naming itself as its update URL: PostgreSQL's is
    // SQLite's, so a panel on it imports `pelican.json`, and no file of its own is written.
    let databases = &first["import"]["pelican"]["databases"];
    assert_eq!(databases["sqlite"], first["import"]["pelican"]["json"]);
    assert!(!files.contains_key("api/v1/eggs/eggs-first/pelican-postgresql.json"));
    for (db, name) in [
        ("sqlite", "pelican.json"),
        ("mariadb", "pelican-mariadb.json"),
        ("postgresql", "pelican.json"),
    ] {
        assert_eq!(databases[db], format!("{base}/{name}"));
        let file: Value =
            serde_json::from_slice(&files[&format!("api/v1/eggs/eggs-first/{name}")]).unwrap();
        assert_eq!(file["meta"]["update_url"], format!("{base}/{name}"));
        assert_eq!(file["uuid"], UUID);
    }

    // An egg Pelican's import throws on: published, no import files, the reason given.
    let broken = meta("eggs-no-startup");
    assert!(files.contains_key("api/v1/eggs/eggs-no-startup.json"));
    assert!(!files.contains_key("api/v1/eggs/eggs-no-startup/pelican.yaml"));
    assert!(!files.contains_key("api/v1/eggs/eggs-no-startup/pelican-mariadb.json"));
    assert_eq!(broken["import"]["pelican"]["json"], Value::Null);
    assert!(broken["import"]["pelican"].get("databases").is_none());
    assert_eq!(broken["import"]["pelican"]["importable"], false);
    let why = broken["import"]["pelican"]["problems"][0].as_str().unwrap();
    assert!(why.contains("no `startup` command"), "{why}");

    // The compat indexes, read as Pelican's UpdateEggIndexCommand reads them.
    let index = |path: &str| -> Vec<(String, String, String)> {
        let v: Value = serde_json::from_slice(&files[path]).unwrap();
        v["nests"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| {
                let nest = n["nest_type"].as_str().unwrap().to_owned();
                n["Eggs"].as_array().unwrap().iter().map(move |e| {
                    (
                        nest.clone(),
                        e["egg"]["name"].as_str().unwrap().to_owned(),
                        e["download_url"].as_str().unwrap().to_owned(),
                    )
                })
            })
            .collect()
    };
    let pelican = index("api/v1/compat/pelican.json");
    let names: Vec<&str> = pelican.iter().map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(names, ["First", "Odd", "Twin"]);
    assert!(
        pelican
            .iter()
            .all(|(nest, _, url)| nest == "Eggs" && url.ends_with("/pelican.json"))
    );
    // The index of each other database lists the same eggs, with the files that database
    // imports (PostgreSQL: SQLite's).
    for (path, name) in [
        ("api/v1/compat/pelican-mariadb.json", "pelican-mariadb.json"),
        ("api/v1/compat/pelican-postgresql.json", "pelican.json"),
    ] {
        let listed = index(path);
        assert_eq!(listed.len(), pelican.len(), "{path}");
        for ((nest, egg, url), sqlite) in listed.iter().zip(&pelican) {
            assert_eq!((nest, egg), (&sqlite.0, &sqlite.1), "{path}");
            let want = sqlite.2.replace("/pelican.json", &format!("/{name}"));
            assert_eq!(url, &want, "{path}");
        }
    }
    let ptero = index("api/v1/compat/pterodactyl.json");
    assert_eq!(ptero.len(), 3);
    assert!(
        ptero
            .iter()
            .all(|(_, _, url)| url.ends_with("/pterodactyl.json"))
    );

    // Every listed URL, fetched from the real HTTP server over a socket, imports (Pelican's
    // steps) with its uuid.
    let app = App::new(&AppOptions {
        cache_control: "public, max-age=60".into(),
    })
    .unwrap();
    crate::support::install_current(&app, &data);
    let server = Server::start("127.0.0.1:0", app, ServeOptions::default()).unwrap();
    let addr = server.local_addr();
    for (_, name, url) in pelican.iter().chain(&ptero) {
        let path = url.strip_prefix(TEST_BASE_URL).unwrap();
        let (status, ty, body) = fetch(addr, path);
        assert_eq!(status, 200, "{path}");
        let yaml = path.ends_with(".yaml");
        let want = if yaml {
            "application/yaml"
        } else {
            "application/json"
        };
        assert_eq!(ty, want, "{path}");
        let syntax = if yaml {
            eggcat_egg::SyntaxKind::Yaml
        } else {
            eggcat_egg::SyntaxKind::Json
        };
        let parsed = eggcat_egg::parse(&body, syntax).unwrap().value;
        let imported = eggcat_panels::pelican::import(&parsed).unwrap();
        assert_eq!(imported.name, Value::from(name.as_str()));
        assert!(eggcat_panels::is_uuid(imported.uuid.as_str().unwrap()));
    }
    server.stop();
}

#[test]
fn a_base_url_that_is_not_absolute_http_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in [
        "eggcat.example",
        "ftp://eggcat.example",
        "https://u:p@eggcat.example",
        "https://e.example/?q=1",
    ] {
        let config = tmp.path().join("eggcat.toml");
        std::fs::write(&config, format!("base_url = \"{bad}\"\n")).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_eggcat"))
            .arg("build")
            .arg("--config")
            .arg(&config)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("base_url"), "{bad}: {err}");
    }
}
