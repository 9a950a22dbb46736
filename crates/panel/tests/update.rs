//! `eggcat_panel::update` and `restore` against Pelican's own importer and exporter (the
//! loopback harness, SQLite) and a catalog on loopback serving `history.json`, the current
//! `pelican.json` and each version's file (`pelicanJson`): eggs behind unedited, behind with
//! local edits, in conflict with upstream, behind an update that removes a variable, and one
//! whose current file Pelican refuses; the last with servers on Pelican's own tables, whose
//! values of the variable it removes go with it; a key that may not write; a panel that times
//! out before or after its write (a proxy in front of it holds the import or its answer). What
//! each egg becomes is read back from the panel's own export, and what its servers hold from
//! the panel's `servers` include.

#[path = "../../panels/tests/support/pelican_api.rs"]
mod pelican_api;

mod support;

use std::sync::Arc;
use std::time::Duration;

use eggcat_panel::backups::Backups;
use eggcat_panel::status::Catalog;
use eggcat_panel::update::{Options, Side, exit_code, restore, update};
use eggcat_panel::{Client, Config, Key};
use eggcat_panels::standing::edits;
use pelican_api::{Fault, Harness, key};
use serde_json::{Value, json};
use support::{ADMIN, Files, catalog_server, check_schema, export, import, panels_src};

const READ_ONLY: &str = "papp_readonly001readonlytokenvalue000000000000001";

fn client(h: &Harness, token: &str) -> Client {
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), token).unwrap();
    let mut config = Config::new(&h.url(), Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_secs(20);
    Client::new(config).unwrap()
}

/// The fields where `a` and `b` differ in substance (order and `exported_at` aside).
fn differ(a: &Value, b: &Value) -> Vec<String> {
    edits(a, b).into_iter().map(|e| e.field).collect()
}

/// An egg of the scene: what the panel holds at the start, and the catalog's current file.
struct Egg {
    id: u64,
    slug: String,
    /// The panel's export before any update.
    before: Value,
    /// The catalog's current file (the panel's own export of it).
    current: Value,
}

/// Puts an egg on the panel at version 1 (then `edit` applied, as an admin would) and
/// publishes versions 1 and 2 (version 1 with `upstream` applied, a change `breaking` or not)
/// in the catalog. The catalog's files are the panel's own exports of them: what an unedited
/// egg exports is its import file.
#[allow(clippy::too_many_arguments)]
fn scene_egg(
    h: &Harness,
    files: &Files,
    catalog_url: &str,
    seed: &Value,
    n: u32,
    slug: &str,
    edit: impl Fn(&mut Value),
    upstream: impl Fn(&mut Value),
    change: (&str, &str, bool),
) -> Egg {
    let mut v1 = seed.clone();
    v1["uuid"] = json!(format!("00000000-0000-4000-8000-{:012}", 700 + n));
    v1["name"] = json!(format!("Egg {slug}"));
    v1["meta"]["update_url"] = json!(format!("{catalog_url}/api/v1/eggs/{slug}/pelican.json"));
    let id = import(h, &v1);
    let e1 = export(h, id);
    let mut v2 = e1.clone();
    upstream(&mut v2);
    // The current file as a panel exports it; Pelican refuses some (then it is v2 itself).
    let answer = h.request(
        "POST",
        "/api/application/eggs/import",
        Some(ADMIN),
        v2.to_string().as_bytes(),
    );
    let e2 = if answer.status == 201 {
        export(h, id)
    } else {
        v2.clone()
    };
    let mut panel = e1.clone();
    edit(&mut panel);
    import(h, &panel);
    let before = export(h, id);
    let md5 = |f: &Value| {
        eggcat_panels::update_check_md5(f.to_string().as_bytes()).unwrap_or_else(|| "0".repeat(32))
    };
    let version_url =
        |v: &str| format!("{catalog_url}/api/v1/eggs/{slug}/versions/{v}/pelican.json");
    let (kind, text, breaking) = change;
    let history = json!({"slug": slug, "complete": true, "versions": [
        {"commit": "b".repeat(40), "date": "2026-10-06T00:00:00.000Z", "subject": "v2",
         "breaking": breaking, "changes": [{"kind": kind, "text": text, "breaking": breaking}],
         "pelicanUpdateCheckMd5": {"sqlite": md5(&e2), "mariadb": "0".repeat(32), "postgresql": md5(&e2)},
         "pelicanJson": version_url("b")},
        {"commit": "a".repeat(40), "date": "2026-09-01T00:00:00.000Z", "subject": "v1",
         "breaking": false, "changes": [],
         "pelicanUpdateCheckMd5": {"sqlite": md5(&e1), "mariadb": "0".repeat(32), "postgresql": md5(&e1)},
         "pelicanJson": version_url("a")}
    ]});
    let mut f = files.lock().unwrap();
    let path = |p: &str| format!("/api/v1/eggs/{slug}/{p}");
    f.insert(path("history.json"), (200, history.to_string()));
    f.insert(path("pelican.json"), (200, e2.to_string()));
    f.insert(path("versions/b/pelican.json"), (200, e2.to_string()));
    f.insert(path("versions/a/pelican.json"), (200, e1.to_string()));
    Egg {
        id,
        slug: slug.to_owned(),
        before,
        current: e2,
    }
}

struct Scene {
    h: Harness,
    catalog_url: String,
    plain: Egg,
    edited: Egg,
    conflict: Egg,
    removes: Egg,
    refused: Egg,
    /// The servers of `removes` (`{"id", "uuid", "name"}`), each with its own SERVER_JARFILE
    /// and HIDDEN_TOKEN.
    servers: Vec<Value>,
}

fn scene(src: &std::path::Path) -> Scene {
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
        key(READ_ONLY, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000101", true),
    ]});
    let h = Harness::start_with_servers(src, &keys);
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    // Pelican's fixture egg is from no catalog: it is looked up by uuid in the index.
    files.lock().unwrap().insert(
        "/api/v1/eggs/_index.json".to_owned(),
        (200, "[]".to_owned()),
    );
    let seed = export(&h, 100);
    let new_description = |v: &mut Value| v["description"] = json!("upstream's new description");
    let described = ("description_changed", "description changed", false);
    let plain = scene_egg(
        &h,
        &files,
        &catalog_url,
        &seed,
        1,
        "plain",
        |_| {},
        new_description,
        described,
    );
    // The local edits issue 37 names: tags, features, a default, an added image, a variable's
    // rules; upstream changed the description and the startup command.
    let edited = scene_egg(
        &h,
        &files,
        &catalog_url,
        &seed,
        2,
        "edited",
        |v| {
            v["tags"] = json!(["modrinth_plugins"]);
            v["features"] = json!(["eula"]);
            v["docker_images"]["Java 17"] = json!("ghcr.io/fixture/java:17");
            let jar = v["variables"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|x| x["env_variable"] == "SERVER_JARFILE")
                .unwrap();
            jar["default_value"] = json!("custom.jar");
            jar["rules"] = json!(["required", "string", "max:40"]);
        },
        |v| {
            v["description"] = json!("upstream's new description");
            v["startup_commands"] = json!({"Default": "java -Xms128M -jar server.jar"});
        },
        ("startup_changed", "startup command changed", false),
    );
    let conflict = scene_egg(
        &h,
        &files,
        &catalog_url,
        &seed,
        3,
        "conflict",
        |v| v["description"] = json!("the admin's description"),
        |v| {
            v["description"] = json!("upstream's new description");
            v["config"]["stop"] = json!("^C");
        },
        described,
    );
    let removes = scene_egg(
        &h,
        &files,
        &catalog_url,
        &seed,
        4,
        "removes",
        |_| {},
        |v| {
            v["variables"]
                .as_array_mut()
                .unwrap()
                .retain(|x| x["env_variable"] != "HIDDEN_TOKEN");
        },
        ("variable_removed", "variable HIDDEN_TOKEN removed", true),
    );
    // Upstream's current file has no images: Pelican refuses it (`docker_images`
    // validation.required).
    let refused = scene_egg(
        &h,
        &files,
        &catalog_url,
        &seed,
        5,
        "refused",
        |_| {},
        |v| {
            v["description"] = json!("upstream's new description");
            v.as_object_mut().unwrap().remove("docker_images");
        },
        described,
    );
    let servers = ["Survival", "Creative"]
        .iter()
        .map(|name| {
            let jar = format!("{}.jar", name.to_lowercase());
            let token = format!("{name} token");
            h.add_server(
                removes.id,
                name,
                &[
                    ("SERVER_JARFILE", jar.as_str()),
                    ("HIDDEN_TOKEN", token.as_str()),
                ],
            )
        })
        .collect();
    Scene {
        h,
        catalog_url,
        plain,
        edited,
        conflict,
        removes,
        refused,
        servers,
    }
}

/// Each server of egg `id` with its environment, as the panel's `servers` include gives them.
fn environments(h: &Harness, id: u64) -> Vec<(String, Value)> {
    let answer = h.request(
        "GET",
        &format!("/api/application/eggs/{id}?include=servers"),
        Some(ADMIN),
        b"",
    );
    answer.json()["attributes"]["relationships"]["servers"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let a = &s["attributes"];
            (
                a["name"].as_str().unwrap().to_owned(),
                a["container"]["environment"].clone(),
            )
        })
        .collect()
}

fn outcome(report: &Value, id: u64) -> &Value {
    report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("egg {id} in {report:#}"))
}

#[tokio::test]
async fn update_merges_keeps_edits_asks_consent_and_restore_puts_back() {
    let Some(src) = panels_src() else { return };
    let s = scene(&src);
    let panel = client(&s.h, ADMIN);
    let catalog = Catalog::new(&s.catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let data = tempfile::tempdir().unwrap();
    let backups = Backups::new(data.path(), panel.url());
    let all = [&s.plain, &s.edited, &s.conflict, &s.removes, &s.refused];
    let unchanged = |what: &str| {
        for egg in all {
            let now = export(&s.h, egg.id);
            assert_eq!(
                differ(&egg.before, &now),
                Vec::<String>::new(),
                "{what}: {} changed",
                egg.slug
            );
        }
    };

    // A dry run writes nothing and says what each egg would become.
    let dry = update(
        &panel,
        &catalog,
        &backups,
        &Options {
            dry_run: true,
            ..Options::default()
        },
    )
    .await
    .unwrap();
    let got = |r: &Value, e: &Egg| outcome(r, e.id)["outcome"].as_str().unwrap().to_owned();
    assert_eq!(got(&dry, &s.plain), "would-update", "{dry:#}");
    assert_eq!(got(&dry, &s.edited), "would-update", "{dry:#}");
    assert_eq!(got(&dry, &s.conflict), "conflict");
    assert_eq!(got(&dry, &s.removes), "needs-consent");
    assert!(
        outcome(&dry, s.removes.id)["why"]
            .as_str()
            .unwrap()
            .contains("--accept-breaking removes"),
        "{dry:#}"
    );
    // Which servers it touches, and how many in its why.
    let removes_plan = outcome(&dry, s.removes.id);
    assert_eq!(
        removes_plan["servers"],
        json!(s.servers),
        "{removes_plan:#}"
    );
    let why = removes_plan["why"].as_str().unwrap();
    assert!(
        why.contains(&format!(
            "2 servers use this egg: Survival (id {}), Creative (id {})",
            s.servers[0]["id"], s.servers[1]["id"]
        )),
        "{why}"
    );
    assert!(why.contains("removes HIDDEN_TOKEN"), "{why}");
    // An update that neither breaks nor removes does not list them.
    assert!(outcome(&dry, s.plain.id).get("servers").is_none());
    let edited_plan = outcome(&dry, s.edited.id);
    assert_eq!(edited_plan["state"], "behind-and-edited");
    assert_eq!(
        edited_plan["keptLocal"],
        json!([
            "tags",
            "features",
            "docker_images.Java 17",
            "variables.SERVER_JARFILE.default_value",
            "variables.SERVER_JARFILE.rules"
        ]),
        "{edited_plan:#}"
    );
    assert_eq!(
        edited_plan["tookUpstream"],
        json!(["description", "startup_commands"])
    );
    unchanged("the dry run");
    check_schema(&dry, "panel-update");
    assert_eq!(backups.list(None).unwrap(), [], "a dry run saves nothing");
    assert_eq!(exit_code(&dry), 1, "eggs left behind");

    // The update.
    let report = update(&panel, &catalog, &backups, &Options::default())
        .await
        .unwrap();
    assert_eq!(got(&report, &s.plain), "updated", "{report:#}");
    assert_eq!(got(&report, &s.edited), "updated", "{report:#}");
    assert_eq!(got(&report, &s.conflict), "conflict");
    assert_eq!(got(&report, &s.removes), "needs-consent");
    assert_eq!(got(&report, &s.refused), "failed");
    let why = outcome(&report, s.refused.id)["why"].as_str().unwrap();
    assert!(
        why.contains("422") && why.contains("the egg is as it was"),
        "{why}"
    );
    assert_eq!(exit_code(&report), 2, "a write failed");
    check_schema(&report, "panel-update");
    // What the panel holds now, by its own export.
    assert_eq!(
        differ(&s.plain.current, &export(&s.h, s.plain.id)),
        Vec::<String>::new()
    );
    let mut want = s.edited.current.clone();
    for key in ["tags", "features", "docker_images"] {
        want[key] = s.edited.before[key].clone();
    }
    want["variables"] = s.edited.before["variables"].clone();
    assert_eq!(
        differ(&want, &export(&s.h, s.edited.id)),
        Vec::<String>::new()
    );
    for left in [&s.conflict, &s.removes, &s.refused] {
        assert_eq!(
            differ(&left.before, &export(&s.h, left.id)),
            Vec::<String>::new(),
            "{} untouched",
            left.slug
        );
    }
    // Saved before each write: the three eggs written (the refused one too).
    let saved = backups.list(None).unwrap();
    let mut saved_eggs: Vec<u64> = saved.iter().map(|b| b.egg).collect();
    saved_eggs.sort_unstable();
    assert_eq!(saved_eggs, [s.plain.id, s.edited.id, s.refused.id]);

    // Consent, and a side for the conflict, for those two eggs only.
    let report = update(
        &panel,
        &catalog,
        &backups,
        &Options {
            prefer: Some(Side::Theirs),
            accept_breaking: vec!["removes".to_owned()],
            only: vec!["conflict".to_owned(), s.removes.id.to_string()],
            ..Options::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(report["eggs"].as_array().unwrap().len(), 2, "{report:#}");
    assert_eq!(got(&report, &s.conflict), "updated", "{report:#}");
    assert_eq!(got(&report, &s.removes), "updated", "{report:#}");
    assert_eq!(exit_code(&report), 0);
    assert_eq!(
        export(&s.h, s.conflict.id)["description"],
        "upstream's new description"
    );
    let vars: Vec<Value> = export(&s.h, s.removes.id)["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["env_variable"].clone())
        .collect();
    assert_eq!(vars, [json!("SERVER_JARFILE")]);
    assert_eq!(
        outcome(&report, s.removes.id)["servers"],
        json!(s.servers),
        "the servers it touched"
    );
    // Its servers kept their value of the variable that stayed; the one removed went with
    // every server's value of it, as consented.
    let after: Vec<(String, Value, Value)> = environments(&s.h, s.removes.id)
        .into_iter()
        .map(|(name, env)| {
            (
                name,
                env["SERVER_JARFILE"].clone(),
                env["HIDDEN_TOKEN"].clone(),
            )
        })
        .collect();
    assert_eq!(
        after,
        [
            ("Survival".to_owned(), json!("survival.jar"), Value::Null),
            ("Creative".to_owned(), json!("creative.jar"), Value::Null)
        ]
    );

    // Restore puts the export saved before back (`exported_at` aside), saving the current one.
    let edited_saved = backups.list(Some(s.edited.id)).unwrap().pop().unwrap();
    let restored = restore(&panel, &backups, &edited_saved).await.unwrap();
    assert_eq!(restored["holds"], true, "{restored:#}");
    let now = export(&s.h, s.edited.id);
    assert_eq!(differ(&s.edited.before, &now), Vec::<String>::new());
    let saved: Value = serde_json::from_slice(&std::fs::read(&edited_saved.path).unwrap()).unwrap();
    let (mut a, mut b) = (saved, now);
    a.as_object_mut().unwrap().remove("exported_at");
    b.as_object_mut().unwrap().remove("exported_at");
    assert_eq!(a, b, "identical but for exported_at");
    assert_eq!(backups.list(Some(s.edited.id)).unwrap().len(), 2);
    // Restoring the egg whose update removed a variable gives the variable back, not the
    // servers' values of it: they were deleted with it, and each server has the default now.
    let removes_saved = backups.list(Some(s.removes.id)).unwrap().pop().unwrap();
    let restored = restore(&panel, &backups, &removes_saved).await.unwrap();
    assert_eq!(restored["holds"], true, "{restored:#}");
    let tokens: Vec<Value> = environments(&s.h, s.removes.id)
        .into_iter()
        .map(|(_, env)| env["HIDDEN_TOKEN"].clone())
        .collect();
    assert_eq!(tokens, [json!("internal"), json!("internal")]);
}

#[tokio::test]
async fn a_key_that_may_not_write_loses_nothing_and_names_the_permission() {
    let Some(src) = panels_src() else { return };
    let s = scene(&src);
    let panel = client(&s.h, READ_ONLY);
    let catalog = Catalog::new(&s.catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let data = tempfile::tempdir().unwrap();
    let backups = Backups::new(data.path(), panel.url());
    // The key may not read servers either: an update that removes a variable says the servers
    // it touches are not known, and why; never that none does.
    let dry = update(
        &panel,
        &catalog,
        &backups,
        &Options {
            dry_run: true,
            ..Options::default()
        },
    )
    .await
    .unwrap();
    let removes = outcome(&dry, s.removes.id);
    assert_eq!(removes["outcome"], "needs-consent", "{dry:#}");
    assert_eq!(removes["servers"], Value::Null, "{removes:#}");
    let why = removes["why"].as_str().unwrap();
    assert!(
        why.contains("are not known") && why.contains("\"Servers: Read\""),
        "{why}"
    );
    check_schema(&dry, "panel-update");
    let report = update(&panel, &catalog, &backups, &Options::default())
        .await
        .unwrap();
    let failed: Vec<&Value> = report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["outcome"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "the first write fails, {report:#}");
    let why = failed[0]["why"].as_str().unwrap();
    assert!(
        why.contains("may not import an egg") && why.contains("Eggs: Write"),
        "{why}"
    );
    let not_tried = report["counts"]["not-tried"].as_u64().unwrap();
    assert!(not_tried >= 1, "{report:#}");
    assert_eq!(exit_code(&report), 2);
    check_schema(&report, "panel-update");
    for egg in [&s.plain, &s.edited, &s.conflict, &s.removes, &s.refused] {
        assert_eq!(
            differ(&egg.before, &export(&s.h, egg.id)),
            Vec::<String>::new(),
            "{} untouched",
            egg.slug
        );
    }
}

/// What the proxy in front of the panel does with an import (any other value: passes it on).
/// Holds the import without passing it on: the panel never sees it.
const SWALLOW: u8 = 1;
/// Passes the import on and holds the panel's answer: the panel wrote it, the client times out.
const MUTE: u8 = 2;

#[tokio::test]
async fn a_panel_that_times_out_loses_nothing_and_is_told_apart() {
    let Some(src) = panels_src() else { return };
    let s = scene(&src);
    let mode = Arc::new(std::sync::atomic::AtomicU8::new(SWALLOW));
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), ADMIN).unwrap();
    let holds = mode.clone();
    let through = pelican_api::proxy(s.h.port, move |line| {
        if !line.starts_with("POST /api/application/eggs/import ") {
            return Fault::Pass;
        }
        match holds.load(std::sync::atomic::Ordering::SeqCst) {
            SWALLOW => Fault::Swallow,
            MUTE => Fault::Mute,
            _ => Fault::Pass,
        }
    });
    let mut config = Config::new(&through, Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_secs(3);
    let panel = Client::new(config).unwrap();
    let catalog = Catalog::new(&s.catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let data = tempfile::tempdir().unwrap();
    let backups = Backups::new(data.path(), panel.url());
    let only = |e: &Egg| Options {
        only: vec![e.slug.clone()],
        ..Options::default()
    };
    // The import never reaches the panel: failed, and the egg is as it was.
    let report = update(&panel, &catalog, &backups, &only(&s.plain))
        .await
        .unwrap();
    let e = outcome(&report, s.plain.id);
    assert_eq!(e["outcome"], "failed", "{report:#}");
    assert!(
        e["why"].as_str().unwrap().contains("did not answer within")
            && e["why"].as_str().unwrap().contains("the egg is as it was"),
        "{report:#}"
    );
    assert_eq!(
        differ(&s.plain.before, &export(&s.h, s.plain.id)),
        Vec::<String>::new()
    );
    assert_eq!(exit_code(&report), 2);
    // The panel writes it, its answer never comes: a fresh export tells it was written.
    mode.store(MUTE, std::sync::atomic::Ordering::SeqCst);
    let report = update(&panel, &catalog, &backups, &only(&s.edited))
        .await
        .unwrap();
    let e = outcome(&report, s.edited.id);
    assert_eq!(e["outcome"], "updated", "{report:#}");
    assert!(
        e["why"]
            .as_str()
            .unwrap()
            .contains("but the panel holds the merged egg"),
        "{report:#}"
    );
    assert_eq!(
        export(&s.h, s.edited.id)["description"],
        "upstream's new description"
    );
    check_schema(&report, "panel-update");
    // Both were saved before the write.
    assert_eq!(backups.list(None).unwrap().len(), 2);
}
