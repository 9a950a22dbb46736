//! `eggcat_panel::status` against Pelican's own importer and exporter (the loopback harness,
//! SQLite) and a catalog on loopback serving `history.json` and `pelican.json` as `eggcat
//! serve` does: eggs put on the panel at an older version, at the current one, edited locally,
//! removed upstream, from elsewhere, each classified as constructed. The catalog's files are
//! the panel's own exports of what was imported (what an unedited egg exports is its import
//! file, the premise of Pelican's update check).

#[path = "../../panels/tests/support/pelican_api.rs"]
mod pelican_api;

#[allow(dead_code, unreachable_pub)]
#[path = "../../panels/tests/support/db.rs"]
mod db;

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use eggcat_panel::status::{Catalog, exit_code, status};
use eggcat_panel::{Client, Config, Key};
use pelican_api::{Harness, key};
use serde_json::{Value, json};
use support::{
    ADMIN, Files, admin_and_catalog, catalog_server, check_schema, egg_item, export, import, md5,
    panels_src,
};

#[tokio::test]
async fn every_state_is_told_as_constructed_on_pelicans_own_code() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start(&src, &keys, true);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    // Pelican's fixture egg is the seed: its export is a complete PLCN_v3 file.
    let seed = export(&h, 100);
    assert_eq!(seed["meta"]["version"], "PLCN_v3", "{seed}");
    // The states, in a seeded rotation, several eggs each.
    let states = [
        "up-to-date",
        "behind",
        "edited-locally",
        "same-egg-other-order",
        "removed-upstream",
        "not-from-this-catalog",
        "unknown",
    ];
    let mut expected = BTreeMap::new();
    // The seeded rule: egg n gets state (3n + SEED) mod 7, ten eggs each.
    const SEED: usize = 37;
    for n in 0..70u32 {
        let state = states[(n as usize * 3 + SEED) % states.len()];
        let slug = format!("egg-{n}");
        let mut v1 = seed.clone();
        v1["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 500 + n));
        v1["name"] = json!(format!("Egg {n}"));
        v1["meta"]["update_url"] = json!(if state == "not-from-this-catalog" {
            "https://raw.githubusercontent.com/pelican-eggs/x/main/egg.json".to_owned()
        } else {
            format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json")
        });
        let id = import(&h, &v1);
        let e1 = export(&h, id);
        let mut v2 = e1.clone();
        v2["description"] = json!(format!("version 2 of egg {n}"));
        import(&h, &v2);
        let e2 = export(&h, id);
        match state {
            "behind" => {
                import(&h, &e1);
            }
            "edited-locally" => {
                let mut edited = e2.clone();
                edited["tags"] = json!(["modrinth_plugins"]);
                import(&h, &edited);
            }
            _ => {}
        }
        let history = json!({"slug": slug, "versions": [
            {"commit": "b".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "v2",
             "breaking": true, "changes": [
                {"kind": "description_changed", "text": "description changed", "breaking": false},
                {"kind": "variable_removed", "text": "variable X removed", "breaking": true}],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&e2), "mariadb": "0".repeat(32), "postgresql": md5(&e2)}},
            {"commit": "a".repeat(40), "date": "2026-09-01T00:00:00.000Z", "subject": "v1",
             "breaking": false, "changes": [],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&e1), "mariadb": "0".repeat(32), "postgresql": md5(&e1)}}
        ]});
        let mut f = files.lock().unwrap();
        if state == "unknown" {
            // A catalog of an eggcat before issue 37: no hashes; and no import file today
            // (an egg Pelican refuses).
            let mut old = history.clone();
            for v in old["versions"].as_array_mut().unwrap() {
                v.as_object_mut().unwrap().remove("pelicanUpdateCheckMd5");
            }
            f.insert(
                format!("/api/v1/eggs/{slug}/history.json"),
                (200, old.to_string()),
            );
        } else if state == "same-egg-other-order" {
            // The file in another key order (each variable's `sort` first, MariaDB's file)
            // with the hash of that order: the panel (SQLite) exports the same egg in its
            // own order.
            let mut other = e2.clone();
            for var in other["variables"].as_array_mut().unwrap() {
                let var = var.as_object_mut().unwrap();
                let sort = var.shift_remove("sort").unwrap();
                var.shift_insert(0, "sort".to_owned(), sort);
            }
            let mut h = history.clone();
            h["versions"][0]["pelicanUpdateCheckMd5"]["sqlite"] = json!(md5(&other));
            f.insert(
                format!("/api/v1/eggs/{slug}/history.json"),
                (200, h.to_string()),
            );
            f.insert(
                format!("/api/v1/eggs/{slug}/pelican.json"),
                (200, other.to_string()),
            );
        } else if state == "removed-upstream" {
            f.insert(
                format!("/api/v1/eggs/{slug}/history.json"),
                (410, "{}".to_owned()),
            );
        } else {
            f.insert(
                format!("/api/v1/eggs/{slug}/history.json"),
                (200, history.to_string()),
            );
            f.insert(
                format!("/api/v1/eggs/{slug}/pelican.json"),
                (200, e2.to_string()),
            );
        }
        expected.insert(id, state);
    }
    // The uuid path: an egg imported without an update_url (from a file saved by hand) is
    // found by the uuid of a catalog egg's document; its one edit is the update_url.
    let mut by_uuid = seed.clone();
    by_uuid["uuid"] = json!("00000000-0000-4000-8000-000000000999");
    by_uuid["name"] = json!("By Uuid");
    by_uuid["meta"]["update_url"] =
        json!(format!("{catalog_url}/api/v1/eggs/by-uuid/pelican.json"));
    let uuid_id = import(&h, &by_uuid);
    let uuid_file = export(&h, uuid_id);
    let mut plain = uuid_file.clone();
    plain["meta"]["update_url"] = Value::Null;
    import(&h, &plain);
    {
        let md5 = eggcat_panels::update_check_md5(uuid_file.to_string().as_bytes()).unwrap();
        let history = json!({"versions": [{"commit": "d".repeat(40), "date": "2026-10-06T00:00:00.000Z",
            "subject": "v1", "breaking": false, "changes": [],
            "pelicanUpdateCheckMd5": {"sqlite": md5, "mariadb": "0".repeat(32), "postgresql": md5}}]});
        let mut f = files.lock().unwrap();
        f.insert(
            "/api/v1/eggs/_index.json".to_owned(),
            (
                200,
                json!([{"slug": "by-uuid"}, {"slug": "other"}]).to_string(),
            ),
        );
        f.insert(
            "/api/v1/eggs/by-uuid.json".to_owned(),
            (
                200,
                json!({"meta": {"uuid": "00000000-0000-4000-8000-000000000999"}}).to_string(),
            ),
        );
        f.insert(
            "/api/v1/eggs/other.json".to_owned(),
            (
                200,
                json!({"meta": {"uuid": "00000000-0000-4000-8000-000000000998"}}).to_string(),
            ),
        );
        f.insert(
            "/api/v1/eggs/by-uuid/history.json".to_owned(),
            (200, history.to_string()),
        );
        f.insert(
            "/api/v1/eggs/by-uuid/pelican.json".to_owned(),
            (200, uuid_file.to_string()),
        );
    }
    expected.insert(uuid_id, "edited-locally");
    // Found by uuid, unedited, with the hash of MariaDB's file (its export as a MariaDB panel
    // gives it, update_url aside): up to date, told by MariaDB's hash, not SQLite's.
    let mut maria = plain.clone();
    maria["uuid"] = json!("00000000-0000-4000-8000-000000000997");
    maria["name"] = json!("By Uuid On MariaDB");
    let maria_id = import(&h, &maria);
    let maria_export = export(&h, maria_id);
    {
        let md5 = eggcat_panels::update_check_md5(maria_export.to_string().as_bytes()).unwrap();
        let history = json!({"versions": [{"commit": "e".repeat(40), "date": "2026-10-06T00:00:00.000Z",
            "subject": "v1", "breaking": false, "changes": [],
            "pelicanUpdateCheckMd5": {"sqlite": "0".repeat(32), "mariadb": md5, "postgresql": "0".repeat(32)}}]});
        let mut f = files.lock().unwrap();
        f.insert(
            "/api/v1/eggs/_index.json".to_owned(),
            (
                200,
                json!([{"slug": "by-uuid"}, {"slug": "other"}, {"slug": "maria"}]).to_string(),
            ),
        );
        f.insert(
            "/api/v1/eggs/maria.json".to_owned(),
            (
                200,
                json!({"meta": {"uuid": "00000000-0000-4000-8000-000000000997"}}).to_string(),
            ),
        );
        f.insert(
            "/api/v1/eggs/maria/history.json".to_owned(),
            (200, history.to_string()),
        );
        f.insert(
            "/api/v1/eggs/maria/pelican-mariadb.json".to_owned(),
            (200, maria_export.to_string()),
        );
    }
    expected.insert(maria_id, "up-to-date");
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), ADMIN).unwrap();
    let mut config = Config::new(&h.url(), Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_secs(20);
    let client = Client::new(config).unwrap();
    let catalog = Catalog::new(&catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let report = status(&client, &catalog).await.unwrap();
    let eggs = report["eggs"].as_array().unwrap();
    for e in eggs {
        let id = e["id"].as_u64().unwrap();
        let want = expected
            .get(&id)
            .copied()
            .unwrap_or("not-from-this-catalog");
        assert_eq!(e["state"], want, "egg {id}: {e}");
        match want {
            "behind" => {
                assert_eq!(e["has"]["subject"], "v1", "{e}");
                assert_eq!(e["since"][0]["changes"][1]["breaking"], true, "{e}");
                assert_eq!(
                    e["resetsServerValues"],
                    json!(["variable X removed"]),
                    "{e}"
                );
            }
            "edited-locally" if id == uuid_id => {
                assert_eq!(e["matchedBy"], "uuid", "{e}");
                assert_eq!(e["slug"], "by-uuid", "{e}");
                assert_eq!(e["edits"][0]["field"], "meta.update_url", "{e}");
                assert_eq!(e["edits"].as_array().unwrap().len(), 1, "{e}");
            }
            "edited-locally" => {
                assert_eq!(e["matchedBy"], "update_url", "{e}");
                assert_eq!(e["edits"][0]["field"], "tags", "{e}");
                assert_eq!(e["edits"].as_array().unwrap().len(), 1, "{e}");
            }
            "same-egg-other-order" => {
                assert!(
                    e["reason"]
                        .as_str()
                        .unwrap()
                        .contains("keys in another order"),
                    "{e}"
                );
            }
            "unknown" | "removed-upstream" | "not-from-this-catalog" => {
                assert!(e["why"].as_str().is_some_and(|w| !w.is_empty()), "{e}");
            }
            _ => {}
        }
    }
    assert_eq!(eggs.len(), expected.len() + 1, "the fixture egg too");
    for state in states {
        let want = if matches!(
            state,
            "not-from-this-catalog" | "edited-locally" | "up-to-date"
        ) {
            11
        } else {
            10
        };
        assert_eq!(
            report["counts"][state], want,
            "{state}: {}",
            report["counts"]
        );
    }
    // The report keeps its documented schema.
    check_schema(&report, "panel-status");
    assert_eq!(exit_code(&report), 1);
}

/// A PostgreSQL panel returns an egg's variables in the order of their rows on disk: an
/// updated row moves to the end of the table, and the export, the same egg, no longer hashes
/// as the file (Pelican's check says "Found update"). `status` says up to date in substance,
/// with the fix.
#[tokio::test]
async fn a_postgresql_panel_whose_rows_moved_is_up_to_date_in_substance() {
    let Some(src) = panels_src() else { return };
    if let Some(why) = db::missing(db::POSTGRES_PROGRAMS, "pdo_pgsql") {
        assert!(
            std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
            "EGGCAT_PHP=require but {why}"
        );
        eggcat_testkit::skip_test(&why);
        return;
    }
    let dir = db::server_dir();
    db::init(dir.path(), false, true);
    let pg = db::start_postgres(dir.path(), None);
    pg.sql("create database panel");
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start_on(
        &src,
        &keys,
        true,
        Some(json!({"driver": "pgsql", "socket": pg.socket, "database": "panel"})),
    );
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let seed = export(&h, 100);
    assert!(
        seed["variables"].as_array().unwrap().len() >= 2,
        "the seed needs two variables to reorder: {seed}"
    );
    let mut ids = Vec::new();
    for n in 0..10u32 {
        let slug = format!("pg-{n}");
        let mut v = seed.clone();
        v["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 900 + n));
        v["name"] = json!(format!("PG Egg {n}"));
        v["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json"));
        let id = import(&h, &v);
        let file = export(&h, id);
        let history = json!({"versions": [{"commit": "c".repeat(40), "date": "2026-10-06T00:00:00.000Z",
            "subject": "v1", "breaking": false, "changes": [],
            "pelicanUpdateCheckMd5": {"sqlite": md5(&file), "mariadb": "0".repeat(32), "postgresql": md5(&file)}}]});
        let mut f = files.lock().unwrap();
        f.insert(
            format!("/api/v1/eggs/{slug}/history.json"),
            (200, history.to_string()),
        );
        f.insert(
            format!("/api/v1/eggs/{slug}/pelican.json"),
            (200, file.to_string()),
        );
        ids.push((id, file));
    }
    // Touch each egg's first variable: its row is written anew at the end of the table; with
    // statistics, PostgreSQL reads this small table by a sequential scan, in physical order
    // (docs/panels.md).
    let out = std::process::Command::new("/usr/bin/psql")
        .arg("-h")
        .arg(&pg.socket)
        .args(["-U", "postgres", "-d", "panel", "-v", "ON_ERROR_STOP=1", "-c",
            "update egg_variables set name = name where id in (select min(id) from egg_variables group by egg_id); analyze egg_variables"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (id, file) in &ids {
        let now = export(&h, *id);
        assert_ne!(
            md5(&now),
            md5(file),
            "egg {id}: the rows did not move, nothing is tested"
        );
    }
    let (client, catalog) = admin_and_catalog(&h, &files, &catalog_url);
    let report = status(&client, &catalog).await.unwrap();
    for (id, _) in &ids {
        let e = egg_item(&report, *id);
        assert_eq!(e["state"], "same-egg-other-order", "{e}");
        assert!(e["reason"].as_str().unwrap().contains("CLUSTER"), "{e}");
    }
    assert_eq!(
        exit_code(&report),
        0,
        "up to date in substance needs nothing"
    );
}

/// A catalog that answers something other than JSON for an egg's history is an error of the
/// run, never a state ("removed upstream" is a 410 only).
#[tokio::test]
async fn a_catalog_answer_that_is_not_json_is_an_error_not_a_state() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start(&src, &keys, true);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let mut v = export(&h, 100);
    v["uuid"] = json!("00000000-0000-4000-8000-000000000444");
    v["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/broken/pelican.json"));
    import(&h, &v);
    files.lock().unwrap().insert(
        "/api/v1/eggs/broken/history.json".to_owned(),
        (200, "<html>maintenance</html>".to_owned()),
    );
    let (client, catalog) = admin_and_catalog(&h, &files, &catalog_url);
    let err = status(&client, &catalog).await.unwrap_err();
    assert!(
        matches!(&err, eggcat_panel::PanelError::Malformed { what, .. } if what.contains("broken/history.json")),
        "{err}"
    );
}

/// Eggs behind say which servers use them (the `servers` include, in the one request that
/// lists the eggs), beside the changes that reset those servers' values: eggs with none, two
/// and three servers, behind unedited and behind with local edits, each listed as constructed
/// (`php api.php add-server`, on Pelican's own tables). An egg that is not behind carries no
/// list. A key that may not read servers gets the same states, and the servers "not known",
/// with the permission named: never a count of zero.
#[tokio::test]
async fn an_egg_behind_says_which_servers_use_it_or_that_the_key_may_not_tell() {
    let Some(src) = panels_src() else { return };
    const EGGS_ONLY: &str = "papp_eggsonly001eggsonlytokenvalue00000000000001";
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
        key(EGGS_ONLY, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000107", true),
    ]});
    let h = Harness::start_with_servers(&src, &keys);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    files.lock().unwrap().insert(
        "/api/v1/eggs/_index.json".to_owned(),
        (200, "[]".to_owned()),
    );
    let seed = export(&h, 100);
    // (slug, state, servers): behind, behind with an edit (tags), up to date.
    let eggs = [
        ("none", "behind", 0),
        ("two", "behind", 2),
        ("three", "behind", 3),
        ("edited-two", "behind-and-edited", 2),
        ("edited-none", "behind-and-edited", 0),
        ("current", "up-to-date", 2),
    ];
    let mut want = BTreeMap::new();
    for (n, (slug, state, count)) in eggs.into_iter().enumerate() {
        let mut v1 = seed.clone();
        v1["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 600 + n));
        v1["name"] = json!(format!("Egg {slug}"));
        v1["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json"));
        let id = import(&h, &v1);
        let e1 = export(&h, id);
        let mut v2 = e1.clone();
        v2["description"] = json!("version 2");
        v2["variables"]
            .as_array_mut()
            .unwrap()
            .retain(|v| v["env_variable"] != "HIDDEN_TOKEN");
        import(&h, &v2);
        let e2 = export(&h, id);
        match state {
            "behind" => {
                import(&h, &e1);
            }
            "behind-and-edited" => {
                let mut edited = e1.clone();
                edited["tags"] = json!(["modrinth_plugins"]);
                import(&h, &edited);
            }
            _ => {}
        }
        let version_url =
            |v: &str| format!("{catalog_url}/api/v1/eggs/{slug}/versions/{v}/pelican.json");
        let history = json!({"slug": slug, "versions": [
            {"commit": "b".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "v2",
             "breaking": true, "changes": [
                {"kind": "variable_removed", "text": "variable HIDDEN_TOKEN removed", "breaking": true}],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&e2), "mariadb": "0".repeat(32), "postgresql": md5(&e2)},
             "pelicanJson": version_url("b")},
            {"commit": "a".repeat(40), "date": "2026-09-01T00:00:00.000Z", "subject": "v1",
             "breaking": false, "changes": [],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&e1), "mariadb": "0".repeat(32), "postgresql": md5(&e1)},
             "pelicanJson": version_url("a")}
        ]});
        {
            let mut f = files.lock().unwrap();
            let path = |p: &str| format!("/api/v1/eggs/{slug}/{p}");
            f.insert(path("history.json"), (200, history.to_string()));
            f.insert(path("pelican.json"), (200, e2.to_string()));
            f.insert(path("versions/b/pelican.json"), (200, e2.to_string()));
            f.insert(path("versions/a/pelican.json"), (200, e1.to_string()));
        }
        // The servers, after the imports: a behind egg's have values of the variable the
        // update would remove.
        let servers: Vec<Value> = (1..=count)
            .map(|k| {
                let jar = format!("{slug}-{k}.jar");
                h.add_server(
                    id,
                    &format!("{slug} server {k}"),
                    &[("SERVER_JARFILE", jar.as_str())],
                )
            })
            .collect();
        want.insert(id, (slug, state, servers));
    }
    let catalog = Catalog::new(&catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let run = |token: &'static str| {
        let catalog = &catalog;
        let url = h.url();
        async move {
            let key_file = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(key_file.path(), token).unwrap();
            let client =
                Client::new(Config::new(&url, Key::from_file(key_file.path()).unwrap())).unwrap();
            let report = status(&client, catalog).await.unwrap();
            check_schema(&report, "panel-status");
            report
        }
    };

    let report = run(ADMIN).await;
    assert_eq!(report["serversKnown"], true, "{report:#}");
    assert!(report.get("serversWhy").is_none(), "{report:#}");
    for (&id, (slug, state, servers)) in &want {
        let e = egg_item(&report, id);
        assert_eq!(e["state"], *state, "{slug}: {e:#}");
        if *state == "up-to-date" {
            assert!(e.get("servers").is_none(), "{slug}: {e:#}");
            continue;
        }
        assert_eq!(
            e["resetsServerValues"],
            json!(["variable HIDDEN_TOKEN removed"]),
            "{slug}"
        );
        assert_eq!(e["servers"], json!(servers), "{slug}: {e:#}");
    }
    // The counts and names as constructed, spelled out once.
    let three = want.values().find(|(s, _, _)| *s == "three").unwrap();
    let names: Vec<&str> = three
        .2
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["three server 1", "three server 2", "three server 3"]
    );
    assert_eq!(
        eggcat_panel::servers_in_words(&json!(three.2)),
        format!(
            "3 servers use this egg: three server 1 (id {}), three server 2 (id {}), three server 3 (id {})",
            three.2[0]["id"], three.2[1]["id"], three.2[2]["id"]
        )
    );
    let none = want.values().find(|(s, _, _)| *s == "none").unwrap();
    assert_eq!(none.2, Vec::<Value>::new());
    assert_eq!(
        eggcat_panel::servers_in_words(&json!([])),
        "no server uses this egg"
    );

    // A key that may read eggs but not servers: the same states, the servers not known.
    let report = run(EGGS_ONLY).await;
    assert_eq!(report["serversKnown"], false, "{report:#}");
    let why = report["serversWhy"].as_str().unwrap();
    assert!(why.contains("\"Servers: Read\""), "{why}");
    for (&id, (slug, state, _)) in &want {
        let e = egg_item(&report, id);
        assert_eq!(e["state"], *state, "{slug}: {e:#}");
        if *state != "up-to-date" {
            assert_eq!(e["servers"], Value::Null, "{slug}: not known, not none");
        }
    }
    assert!(
        eggcat_panel::servers_in_words(&Value::Null).contains("\"Servers: Read\""),
        "the words for an egg name the permission too"
    );
}

/// The history eggcat reads is a window (`history_depth`): an egg unchanged within it has no
/// version in `history.json`, and an egg imported long ago may be older than every version
/// listed. Unedited and unchanged: up to date (its current file's hash made from the file).
/// Edited, or older than the window: the version the edits were made on is not certain
/// (`baseKnown: false`), and `update` leaves the egg rather than guess.
#[tokio::test]
async fn the_history_window_never_turns_into_unknown_or_a_guessed_base() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start(&src, &keys, true);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let seed = export(&h, 100);
    let mut ids = BTreeMap::new();
    for (n, slug) in ["quiet", "quiet-edited", "ancient"].into_iter().enumerate() {
        let mut v = seed.clone();
        v["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 960 + n));
        v["name"] = json!(slug);
        v["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json"));
        let id = import(&h, &v);
        let current = export(&h, id);
        let history = if slug == "ancient" {
            // The panel has a version older than the window; the one version listed is the
            // current file's.
            let mut old = current.clone();
            old["description"] = json!("a description from before the window");
            import(&h, &old);
            json!({"slug": slug, "complete": false, "versions": [
                {"commit": "c".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "now",
                 "breaking": false, "changes": [],
                 "pelicanUpdateCheckMd5": {"sqlite": md5(&current), "mariadb": md5(&current), "postgresql": md5(&current)},
                 "pelicanJson": format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json")}]})
        } else {
            if slug == "quiet-edited" {
                let mut edited = current.clone();
                edited["tags"] = json!(["modrinth_plugins"]);
                import(&h, &edited);
            }
            json!({"slug": slug, "complete": false, "versions": []})
        };
        let mut f = files.lock().unwrap();
        f.insert(
            format!("/api/v1/eggs/{slug}/history.json"),
            (200, history.to_string()),
        );
        f.insert(
            format!("/api/v1/eggs/{slug}/pelican.json"),
            (200, current.to_string()),
        );
        ids.insert(slug, id);
    }
    let (client, catalog) = admin_and_catalog(&h, &files, &catalog_url);
    let report = status(&client, &catalog).await.unwrap();
    let egg = |slug: &str| egg_item(&report, ids[slug]);
    assert_eq!(egg("quiet")["state"], "up-to-date", "{report:#}");
    let edited = egg("quiet-edited");
    assert_eq!(edited["state"], "edited-locally", "{edited:#}");
    assert_eq!(edited["baseKnown"], false, "{edited:#}");
    let ancient = egg("ancient");
    assert_eq!(ancient["state"], "edited-locally", "{ancient:#}");
    assert_eq!(ancient["baseKnown"], false, "{ancient:#}");
    check_schema(&report, "panel-status");
    // update takes neither for a merge from a guessed base: both left, nothing written.
    let data = tempfile::tempdir().unwrap();
    let backups = eggcat_panel::backups::Backups::new(data.path(), client.url());
    let before = export(&h, ids["ancient"]);
    let updated = eggcat_panel::update::update(
        &client,
        &catalog,
        &backups,
        &eggcat_panel::update::Options::default(),
    )
    .await
    .unwrap();
    for slug in ["quiet-edited", "ancient"] {
        let e = egg_item(&updated, ids[slug]);
        assert_eq!(e["outcome"], "left", "{e:#}");
        assert!(e["why"].as_str().unwrap().contains("not certain"), "{e:#}");
    }
    assert_eq!(
        eggcat_panels::standing::edits(&before, &export(&h, ids["ancient"])),
        []
    );
    assert_eq!(backups.list(None).unwrap(), []);
}

/// A panel whose limit is lower than the requests a run makes (Pelican's default is 256 a
/// minute, and `status` asks for one export per egg): the `429`s' waits are waited out and the
/// requests sent again, so the report is whole, not an error. Here a limit of 8 requests per 2
/// seconds against 20 eggs.
#[tokio::test]
async fn a_panel_that_throttles_is_waited_out_not_given_up() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start(&src, &keys, true);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let seed = export(&h, 100);
    let mut ids = Vec::new();
    for n in 0..20u32 {
        let slug = format!("t-{n}");
        let mut v = seed.clone();
        v["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 980 + n));
        v["name"] = json!(slug);
        v["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json"));
        let id = import(&h, &v);
        let file = export(&h, id);
        let mut f = files.lock().unwrap();
        f.insert(
            format!("/api/v1/eggs/{slug}/history.json"),
            (
                200,
                json!({"slug": slug, "complete": true, "versions": []}).to_string(),
            ),
        );
        f.insert(
            format!("/api/v1/eggs/{slug}/pelican.json"),
            (200, file.to_string()),
        );
        ids.push(id);
    }
    // The limit comes down once the panel is set up (the harness reads its keys per request).
    let state = h.log.parent().unwrap();
    let mut slow = keys.clone();
    slow["rate_limit"] = json!(8);
    slow["rate_window"] = json!(2);
    std::fs::write(state.join("keys.json"), slow.to_string()).unwrap();
    let (client, catalog) = admin_and_catalog(&h, &files, &catalog_url);
    let report = status(&client, &catalog).await.unwrap();
    for id in &ids {
        let e = egg_item(&report, *id);
        assert_eq!(e["state"], "up-to-date", "{e:#}");
    }
    let throttled = std::fs::read_to_string(state.join("throttled.log")).unwrap_or_default();
    assert!(
        throttled.lines().count() > 0,
        "the panel never said 429: nothing was tested"
    );
}

/// An egg imported from the egg's `pelican.yaml` (the page lists it) or the former
/// `pelican-postgresql.json` names that file: the same egg as `pelican.json`, up to date when
/// unedited, not an egg with an edited `update_url`; `update` points a behind one at the file
/// for its database.
#[tokio::test]
async fn an_egg_imported_from_the_yaml_file_is_the_same_egg() {
    let Some(src) = panels_src() else { return };
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
    ]});
    let h = Harness::start(&src, &keys, true);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let seed = export(&h, 100);
    let mut ids = BTreeMap::new();
    for (n, (slug, named)) in [
        ("yaml-current", "pelican.yaml"),
        ("pg-current", "pelican-postgresql.json"),
        ("yaml-behind", "pelican.yaml"),
    ]
    .into_iter()
    .enumerate()
    {
        let url = |name: &str| format!("{catalog_url}/api/v1/eggs/{slug}/{name}");
        let mut v = seed.clone();
        v["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 990 + n));
        v["name"] = json!(slug);
        v["meta"]["update_url"] = json!(url("pelican.json"));
        let id = import(&h, &v);
        let current = export(&h, id);
        let mut old = current.clone();
        old["description"] = json!("the older description");
        // The panel's egg names the other file.
        let mut on_panel = if slug == "yaml-behind" {
            old.clone()
        } else {
            current.clone()
        };
        on_panel["meta"]["update_url"] = json!(url(named));
        import(&h, &on_panel);
        let history = json!({"slug": slug, "complete": true, "versions": [
            {"commit": "b".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "now",
             "breaking": false, "changes": [{"kind": "description_changed", "text": "description changed", "breaking": false}],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&current), "mariadb": md5(&current), "postgresql": md5(&current)},
             "pelicanJson": url("pelican.json")},
            {"commit": "a".repeat(40), "date": "2026-09-06T00:00:00.000Z", "subject": "before",
             "breaking": false, "changes": [],
             "pelicanUpdateCheckMd5": {"sqlite": md5(&old), "mariadb": md5(&old), "postgresql": md5(&old)},
             "pelicanJson": url("versions/a/pelican.json")}]});
        let mut f = files.lock().unwrap();
        let path = |name: &str| format!("/api/v1/eggs/{slug}/{name}");
        f.insert(path("history.json"), (200, history.to_string()));
        f.insert(path("pelican.json"), (200, current.to_string()));
        f.insert(path("versions/a/pelican.json"), (200, old.to_string()));
        ids.insert(slug, (id, url("pelican.json")));
    }
    let (client, catalog) = admin_and_catalog(&h, &files, &catalog_url);
    let report = status(&client, &catalog).await.unwrap();
    let state = |report: &Value, slug: &str| egg_item(report, ids[slug].0);
    assert_eq!(
        state(&report, "yaml-current")["state"],
        "up-to-date",
        "{report:#}"
    );
    assert_eq!(
        state(&report, "pg-current")["state"],
        "up-to-date",
        "{report:#}"
    );
    assert_eq!(
        state(&report, "yaml-behind")["state"],
        "behind",
        "{report:#}"
    );
    let data = tempfile::tempdir().unwrap();
    let backups = eggcat_panel::backups::Backups::new(data.path(), client.url());
    let updated = eggcat_panel::update::update(
        &client,
        &catalog,
        &backups,
        &eggcat_panel::update::Options::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        state(&updated, "yaml-behind")["outcome"],
        "updated",
        "{updated:#}"
    );
    let (id, json_url) = &ids["yaml-behind"];
    let now = export(&h, *id);
    assert_eq!(now["meta"]["update_url"], json!(json_url));
    assert_eq!(now["description"], seed["description"]);
    let again = status(&client, &catalog).await.unwrap();
    assert_eq!(
        state(&again, "yaml-behind")["state"],
        "up-to-date",
        "{again:#}"
    );
}
