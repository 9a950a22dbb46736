//! `eggcat panel status`, `update` and `restore` on the shared corpus, end to end (issue 37 §5):
//! the ten shared repositories as git repositories whose eggs moved on upstream (a seeded
//! sample with an older version, some removed since), built and served by the `eggcat serve`
//! binary; a Pelican panel whose data path is Pelican's own importer and exporter
//! (`crates/panels/tests/php/api.php`) on SQLite (every egg Pelican imports), MariaDB and
//! PostgreSQL (a seeded sample), behind a proxy that fails the export of some eggs; every egg
//! put in one state by a seeded rule, as an admin would have it: imported at an older version or
//! the current one, edited locally (tags, features, an added image, a variable's rules),
//! imported from the other database's file, from elsewhere. `status` must tell every egg's
//! state as constructed; `update` must leave, as the panel's own export shows it, the merge
//! expected for each egg (upstream's change taken, every local edit kept); `status` then says
//! so; every `restore` gives back the export saved before (identical but for `exported_at`; on
//! PostgreSQL, in substance). On each database, before that: a key that may not write (the
//! permission named, nothing changed), and a panel that does not answer one import (that egg
//! as it was, every other updated, the next run finishes it).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eggcat_panels::standing::edits;
use serde_json::{Value, json};

use crate::pelican_api::{self, Fault, Harness, key};
use crate::support::*;

const ADMIN: &str = "papp_fixture0001fixtureapplicationtokenvalue0001";
/// A key that may read eggs but not write them.
const READ_ONLY: &str = "papp_readonly001readonlytokenvalue000000000000001";

/// The states, each egg's by [`state_of`].
const STATES: [&str; 8] = [
    "up-to-date",
    "behind",
    "edited-locally",
    "behind-and-edited",
    "same-egg-other-order",
    "removed-upstream",
    "not-from-this-catalog",
    "unknown",
];

/// FNV-1a of a fixed seed and `text`: the same eggs in the same states on every run.
fn hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ 37;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The state the egg at `rel` (`repo/path`) is put in. Eggs upstream keeps in YAML keep their
/// one version (the older version is made by editing JSON), so they take the states that need
/// none.
fn state_of(rel: &str) -> &'static str {
    let state = STATES[(hash(rel) % STATES.len() as u64) as usize];
    let needs_older = matches!(state, "behind" | "behind-and-edited");
    if needs_older && !rel.ends_with(".json") {
        return "up-to-date";
    }
    state
}

/// Whether the older version of the egg at `rel` also has a variable upstream removed since (a
/// breaking change: `update` needs consent).
fn older_has_a_removed_variable(rel: &str) -> bool {
    (hash(rel) / 8).is_multiple_of(3)
}

/// The older version of an upstream egg (JSON, any of the formats): another description, and
/// for some a variable since removed.
fn older(current: &[u8], rel: &str) -> Option<Vec<u8>> {
    let mut egg: Value = serde_json::from_slice(current).ok()?;
    let description = egg["description"].as_str().unwrap_or("").to_owned();
    egg["description"] = json!(format!("{description} (an older version)"));
    if older_has_a_removed_variable(rel)
        && let Some(vars) = egg["variables"].as_array_mut()
    {
        vars.push(json!({
            "name": "Old setting", "description": "A setting upstream removed since.",
            "env_variable": "EGGCAT_OLD_SETTING", "default_value": "1",
            "user_viewable": true, "user_editable": true, "rules": "required|string|max:20",
            "field_type": "text"
        }));
    }
    serde_json::to_vec_pretty(&egg).ok()
}

/// The local edits an admin makes (issue 37 §5): a tag and a feature (plugins require some), an
/// added image, a rule of the variable first by name (but the one upstream removes). Upstream changes none of these fields.
fn edit(export: &Value) -> Value {
    let mut v = export.clone();
    let mut tags = v["tags"].as_array().cloned().unwrap_or_default();
    tags.push(json!("modrinth_plugins"));
    v["tags"] = json!(tags);
    let mut features = v["features"].as_array().cloned().unwrap_or_default();
    features.push(json!("eggcat_local"));
    v["features"] = json!(features);
    if let Some(images) = v["docker_images"].as_object_mut() {
        images.insert("Eggcat local".to_owned(), json!("ghcr.io/eggcat/local:1"));
    }
    // The variable first by name, whatever order the database gives; not the one upstream
    // removed since: editing it too would be a conflict (which the merge's own tests cover).
    let first = v["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x["env_variable"].as_str())
        .filter(|env| *env != "EGGCAT_OLD_SETTING")
        .min()
        .map(str::to_owned);
    if let Some(first) = v["variables"].as_array_mut().and_then(|a| {
        a.iter_mut()
            .find(|x| x["env_variable"].as_str() == first.as_deref())
    }) {
        let mut rules = first["rules"].as_array().cloned().unwrap_or_default();
        rules.push(json!("max:4000"));
        first["rules"] = json!(rules);
    }
    v
}

/// The served catalog's JSON at `path`, or its status.
fn catalog_json(port: u16, path: &str) -> Result<Value, u16> {
    let answer = crate::hosts::request(port, "GET", path, &[], b"").map_err(|_| 0u16)?;
    if answer.status != 200 {
        return Err(answer.status);
    }
    Ok(serde_json::from_slice(&answer.body).unwrap())
}

/// A catalog egg the panel can hold: its slug, and the state it is put in.
struct CatalogEgg {
    slug: String,
    state: &'static str,
    /// Its `history.json`, and for a removed egg its files as the first build served them.
    before_removal: BTreeMap<String, Value>,
}

/// One database's panel, as a test makes it.
struct Panel<'a> {
    name: &'static str,
    harness: Harness,
    /// The panel's own import file (`pelican.json`, or `pelican-mariadb.json`).
    own: &'static str,
    other: &'static str,
    port: u16,
    eggs: Vec<&'a CatalogEgg>,
}

fn import(h: &Harness, file: &Value) -> u64 {
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

fn export(h: &Harness, id: u64) -> Value {
    h.request(
        "GET",
        &format!("/api/application/eggs/{id}/export?format=json"),
        Some(ADMIN),
        b"",
    )
    .json()
}

fn eggcat(args: &[&str], data_dir: &Path, key: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env("EGGCAT_PANEL_KEY", key)
        .output()
        .unwrap()
}

fn status(panel: &str, catalog: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args([
            "panel",
            "status",
            "--json",
            "--panel",
            panel,
            "--catalog",
            catalog,
        ])
        .env("EGGCAT_PANEL_KEY", ADMIN)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "panel status: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What the egg `id` of `report` is (its entry).
fn entry(report: &Value, id: u64) -> Value {
    report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("egg {id} is not in the report"))
}

/// Puts each egg of `panel` in its state; returns per panel egg id: the catalog egg, the
/// export before any update and the file the update must leave (`None`: left as it is).
fn populate(panel: &Panel<'_>, catalog_port: u16) -> BTreeMap<u64, (String, Value, Option<Value>)> {
    let h = &panel.harness;
    let mut out = BTreeMap::new();
    for egg in &panel.eggs {
        let slug = &egg.slug;
        let file = |name: &str| -> Value {
            catalog_json(catalog_port, &format!("/api/v1/eggs/{slug}/{name}"))
                .unwrap_or_else(|s| panic!("{slug}/{name}: {s}"))
        };
        let older = || -> Value {
            let history =
                catalog_json(catalog_port, &format!("/api/v1/eggs/{slug}/history.json")).unwrap();
            let url = history["versions"][1]["pelicanJson"].as_str().unwrap();
            let path = &url[url.find("/api/v1/").unwrap()..];
            let mut v = catalog_json(catalog_port, path).unwrap();
            // As the panel's own file of that version names itself.
            v["meta"]["update_url"] = file(panel.own)["meta"]["update_url"].clone();
            v
        };
        let (id, expected) = match egg.state {
            "up-to-date" | "unknown" => (import(h, &file(panel.own)), None),
            "behind" => (import(h, &older()), Some(file(panel.own))),
            "edited-locally" => {
                let id = import(h, &file(panel.own));
                import(h, &edit(&export(h, id)));
                (id, None)
            }
            "behind-and-edited" => {
                let id = import(h, &older());
                import(h, &edit(&export(h, id)));
                (id, Some(edit(&file(panel.own))))
            }
            "same-egg-other-order" => (import(h, &file(panel.other)), None),
            "removed-upstream" => (import(h, &egg.before_removal[panel.own]), None),
            "not-from-this-catalog" => {
                let mut v = file(panel.own);
                let n = hash(slug);
                v["uuid"] = json!(format!(
                    "{:08x}-0000-4000-8000-{:012x}",
                    n >> 32,
                    n & 0xffff_ffff_ffff
                ));
                v["meta"]["update_url"] =
                    json!(format!("https://eggs.example.invalid/{slug}.json"));
                (import(h, &v), None)
            }
            other => unreachable!("{other}"),
        };
        out.insert(id, (slug.clone(), export(h, id), expected));
    }
    out
}

#[test]
fn status_update_and_restore_on_the_corpus_on_pelicans_own_code() {
    let Some(shared) = shared_upstream() else {
        return;
    };
    let Some(src) = crate::panel_status::php_ready() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // The repositories: one commit with the older versions and the eggs removed since, one
    // with the corpus as it is.
    // Every egg file, the issue templates under `.github/` aside.
    let files: Vec<(String, String)> = shared_egg_files(&shared)
        .into_iter()
        .filter(|(_, rel)| !rel.starts_with('.'))
        .collect();
    let mut repos: BTreeMap<String, Repo> = BTreeMap::new();
    for (name, _) in &files {
        repos.entry(name.clone()).or_insert_with(|| {
            let dir = tmp.path().join("repos").join(name);
            copy_dir(&shared.join(name), &dir);
            Repo::init(&dir, "main")
        });
    }
    let mut older_made = 0;
    for (name, rel) in &files {
        let key = format!("{name}/{rel}");
        if matches!(state_of(&key), "behind" | "behind-and-edited") {
            let bytes = std::fs::read(shared.join(name).join(rel)).unwrap();
            if let Some(old) = older(&bytes, &key) {
                repos[name].write(rel, old);
                older_made += 1;
            }
        }
    }
    for repo in repos.values() {
        repo.commit("The eggs as they were");
    }
    let config = tmp.path().join("eggcat.toml");
    let mut text = String::from("data_dir = \"data\"\n[images]\nenabled = false\n");
    for (name, repo) in &repos {
        text.push_str(&format!(
            "[[source]]\nurl = \"{}\"\nowner = \"pelican-eggs\"\nrepo = \"{name}\"\n",
            repo.url()
        ));
    }
    std::fs::write(&config, text).unwrap();
    let port = free_port();
    let catalog = format!("http://127.0.0.1:{port}");
    let _serve = Serve::start(&config, port, "2s");
    wait_until(
        "the first build is served",
        Duration::from_secs(300),
        || catalog_json(port, "/api/v1/eggs/_index.json").is_ok(),
    );
    let index = catalog_json(port, "/api/v1/eggs/_index.json").unwrap();
    // Every egg by its upstream path, with its state.
    let mut eggs: Vec<CatalogEgg> = Vec::new();
    for item in index.as_array().unwrap() {
        let slug = item["slug"].as_str().unwrap().to_owned();
        let doc = catalog_json(port, &format!("/api/v1/eggs/{slug}.json")).unwrap();
        let rel = format!(
            "{}/{}",
            doc["meta"]["repo"].as_str().unwrap(),
            doc["meta"]["path"].as_str().unwrap()
        );
        // Only eggs Pelican imports can be on a panel.
        if doc["meta"]["import"]["pelican"]["importable"] != true {
            continue;
        }
        let mut state = state_of(&rel);
        // Without variables the other database's file is the same file: nothing to reorder.
        if state == "same-egg-other-order"
            && catalog_json(port, &format!("/api/v1/eggs/{slug}/pelican.json")).unwrap()
                ["variables"]
                .as_array()
                .is_none_or(Vec::is_empty)
        {
            state = "up-to-date";
        }
        let mut before_removal = BTreeMap::new();
        if state == "removed-upstream" {
            for name in ["pelican.json", "pelican-mariadb.json"] {
                before_removal.insert(
                    name.to_owned(),
                    catalog_json(port, &format!("/api/v1/eggs/{slug}/{name}")).unwrap(),
                );
            }
        }
        eggs.push(CatalogEgg {
            slug,
            state,
            before_removal,
        });
    }
    enough_per_state(&eggs);
    // Upstream moves on: the current files, the removed eggs gone.
    for (name, rel) in &files {
        let key = format!("{name}/{rel}");
        if state_of(&key) == "removed-upstream" {
            repos[name].remove(rel);
        } else {
            repos[name].write(rel, std::fs::read(shared.join(name).join(rel)).unwrap());
        }
    }
    for repo in repos.values() {
        repo.commit("The eggs as they are");
    }
    // The rebuild is served when every egg given an older version has two.
    let moved: Vec<&CatalogEgg> = eggs
        .iter()
        .filter(|e| matches!(e.state, "behind" | "behind-and-edited"))
        .collect();
    wait_until("the rebuild is served", Duration::from_secs(300), || {
        moved.iter().all(|e| {
            catalog_json(port, &format!("/api/v1/eggs/{}/history.json", e.slug))
                .is_ok_and(|h| h["versions"].as_array().is_some_and(|v| v.len() >= 2))
        })
    });
    // An egg whose older version Pelican would refuse has no file of it: it cannot be behind.
    eggs.retain(|e| {
        !matches!(e.state, "behind" | "behind-and-edited")
            || catalog_json(port, &format!("/api/v1/eggs/{}/history.json", e.slug))
                .is_ok_and(|h| h["versions"][1]["pelicanJson"].is_string())
    });
    eprintln!(
        "panel corpus: {} eggs Pelican imports, {older_made} older versions made",
        eggs.len()
    );

    let keys = json!({"rate_limit": 100000, "keys": [
        key(ADMIN, 2, json!({"egg": 3, "server": 1}), "00000000-0000-4000-8000-000000000100", true),
        key(READ_ONLY, 2, json!({"egg": 1, "server": 1}), "00000000-0000-4000-8000-000000000101", true),
    ]});
    // SQLite: every egg; MariaDB and PostgreSQL: one in four, by the seeded rule.
    let sample: Vec<&CatalogEgg> = eggs.iter().filter(|e| hash(&e.slug) % 4 == 1).collect();
    let mut panels = vec![Panel {
        name: "SQLite",
        harness: Harness::start(&src, &keys, false),
        own: "pelican.json",
        other: "pelican-mariadb.json",
        port,
        eggs: eggs.iter().collect(),
    }];
    let dir = crate::db::server_dir();
    let servers = crate::db::missing(crate::db::POSTGRES_PROGRAMS, "pdo_pgsql")
        .or_else(|| crate::db::missing(crate::db::MARIADB_PROGRAMS, "pdo_mysql"));
    let mut running = Vec::new();
    match servers {
        Some(why) => {
            assert!(
                std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
                "EGGCAT_PHP=require but {why}"
            );
            skip_test(&format!("panel corpus on MariaDB and PostgreSQL: {why}"));
        }
        None => {
            crate::db::init(dir.path(), true, true);
            let maria = crate::db::start_mariadb(dir.path());
            maria.sql("create database panel");
            let pg = crate::db::start_postgres(dir.path(), None);
            pg.sql("create database panel");
            panels.push(Panel {
                name: "MariaDB",
                harness: Harness::start_on(
                    &src,
                    &keys,
                    false,
                    Some(json!({"driver": "mysql", "socket": maria.socket, "database": "panel"})),
                ),
                own: "pelican-mariadb.json",
                other: "pelican.json",
                port,
                eggs: sample.clone(),
            });
            panels.push(Panel {
                name: "PostgreSQL",
                harness: Harness::start_on(
                    &src,
                    &keys,
                    false,
                    Some(json!({"driver": "pgsql", "socket": pg.socket, "database": "panel"})),
                ),
                own: "pelican.json",
                other: "pelican-mariadb.json",
                port,
                eggs: sample.clone(),
            });
            running.push(maria);
            running.push(pg);
        }
    }
    for panel in &panels {
        one_panel(panel, &catalog, tmp.path());
    }
}

/// At least 10 catalog eggs per state (each egg's state read back from its upstream path, which
/// its document names): fewer would check too little.
fn enough_per_state(eggs: &[CatalogEgg]) {
    for state in STATES {
        let n = eggs.iter().filter(|e| e.state == state).count();
        assert!(n >= 10, "{n} eggs in state {state}: too few to check");
    }
}

fn one_panel(panel: &Panel<'_>, catalog: &str, tmp: &Path) {
    let h = &panel.harness;
    let built = populate(panel, panel.port);
    // The proxy in front of the panel fails the export of the eggs put in `unknown`.
    let failing: Arc<Mutex<Vec<u64>>> = Arc::default();
    {
        let mut f = failing.lock().unwrap();
        for (id, (slug, _, _)) in &built {
            if panel
                .eggs
                .iter()
                .any(|e| &e.slug == slug && e.state == "unknown")
            {
                f.push(*id);
            }
        }
    }
    // And, when asked, holds the next import without passing it on (a panel that times out).
    let swallow_next_import = Arc::new(AtomicBool::new(false));
    let fails = failing.clone();
    let swallow = swallow_next_import.clone();
    let through = pelican_api::proxy(h.port, move |line| {
        if line.starts_with("POST /api/application/eggs/import ")
            && swallow.swap(false, Ordering::SeqCst)
        {
            return Fault::Swallow;
        }
        let failing = fails.lock().unwrap();
        match failing
            .iter()
            .any(|id| line.starts_with(&format!("GET /api/application/eggs/{id}/export")))
        {
            true => Fault::Answer(502),
            false => Fault::Pass,
        }
    });
    let state_by_id: BTreeMap<u64, &'static str> = built
        .iter()
        .map(|(id, (slug, _, _))| {
            let state = panel.eggs.iter().find(|e| &e.slug == slug).unwrap().state;
            (*id, state)
        })
        .collect();
    // status: every egg as constructed.
    let report = status(&through, catalog);
    let mut per_state: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, want) in &state_by_id {
        let e = entry(&report, *id);
        assert_eq!(e["state"], *want, "{}: {e:#}", panel.name);
        *per_state.entry(want).or_default() += 1;
        if *want == "behind-and-edited" {
            let fields: Vec<&str> = e["edits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["field"].as_str().unwrap())
                .collect();
            assert!(
                fields.contains(&"tags") && !fields.contains(&"description"),
                "{}: the edits are the admin's only: {e:#}",
                panel.name
            );
        }
    }
    eprintln!("panel corpus, {}: {per_state:?}", panel.name);
    for state in STATES {
        assert!(
            per_state.get(state).copied().unwrap_or(0) >= 10,
            "{}: fewer than 10 eggs {state}: {per_state:?}",
            panel.name
        );
    }
    // update: every behind egg brought up to date, every local edit kept.
    let data = tmp.join(format!("panel-data-{}", panel.name));
    let update = |key: &str, extra: &[&str]| -> (Option<i32>, Value) {
        let mut args = vec![
            "panel",
            "update",
            "--json",
            "--panel",
            &through,
            "--catalog",
            catalog,
            "--accept-breaking",
            "all",
        ];
        args.extend(extra);
        let out = eggcat(&args, &data, key);
        let report = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}: {}", panel.name, String::from_utf8_lossy(&out.stderr)));
        (out.status.code(), report)
    };
    let unchanged = |what: &str| {
        for (id, (slug, before, _)) in &built {
            if state_by_id[id] != "unknown" {
                let now = export(h, *id);
                assert_eq!(
                    edits(before, &now),
                    [],
                    "{}: {what}: {slug} changed",
                    panel.name
                );
            }
        }
    };
    // A key that may not write: the first write refused, the permission named, the rest not
    // tried, nothing changed (exit 2).
    let (code, refused) = update(READ_ONLY, &[]);
    assert_eq!(code, Some(2), "{}: {refused:#}", panel.name);
    assert_eq!(
        refused["counts"]["failed"], 1,
        "{}: {refused:#}",
        panel.name
    );
    assert!(
        refused["counts"]["not-tried"].as_u64().unwrap() >= 9,
        "{}: {}",
        panel.name,
        refused["counts"]
    );
    let why = refused["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["outcome"] == "failed")
        .unwrap()["why"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(why.contains("Eggs: Write"), "{}: {why}", panel.name);
    unchanged("a refused key");
    // A panel that does not answer an import: that egg failed and as it was, every other egg
    // updated (exit 2); the next run updates it.
    swallow_next_import.store(true, Ordering::SeqCst);
    let (code, first) = update(ADMIN, &["--timeout", "3s"]);
    assert_eq!(code, Some(2), "{}: {}", panel.name, first["counts"]);
    let timed_out: Vec<&Value> = first["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["outcome"] == "failed")
        .collect();
    assert_eq!(timed_out.len(), 1, "{}: {}", panel.name, first["counts"]);
    let why = timed_out[0]["why"].as_str().unwrap();
    assert!(
        why.contains("did not answer within") && why.contains("the egg is as it was"),
        "{}: {why}",
        panel.name
    );
    let stuck = timed_out[0]["id"].as_u64().unwrap();
    assert_eq!(
        edits(&built[&stuck].1, &export(h, stuck)),
        [],
        "{}: the egg whose import timed out changed",
        panel.name
    );
    let (code, second) = update(ADMIN, &[]);
    let not_done: Vec<&Value> = second["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            !matches!(e["outcome"].as_str(), Some("updated" | "left"))
                || (e["outcome"] == "left"
                    && matches!(e["state"].as_str(), Some("behind" | "behind-and-edited")))
        })
        .collect();
    assert_eq!(
        code,
        Some(0),
        "{}: {:#}",
        panel.name,
        json!({"counts": second["counts"], "not done": not_done})
    );
    assert_eq!(
        entry(&second, stuck)["outcome"],
        "updated",
        "{}",
        panel.name
    );
    // What each egg is now, by the panel's own export: the merge expected, or as it was.
    for (id, (slug, before, expected)) in &built {
        let now = export(h, *id);
        let e = entry(&first, *id);
        match expected {
            Some(want) => {
                if *id != stuck {
                    assert_eq!(e["outcome"], "updated", "{}: {slug}: {e:#}", panel.name);
                }
                assert_eq!(
                    edits(want, &now),
                    [],
                    "{}: {slug} is not the merge expected",
                    panel.name
                );
            }
            None => {
                assert_eq!(e["outcome"], "left", "{}: {slug}: {e:#}", panel.name);
                assert_eq!(edits(before, &now), [], "{}: {slug} changed", panel.name);
            }
        }
    }
    // status again: what was behind is up to date, what was edited is the current version
    // with its edits.
    let after = status(&through, catalog);
    for (id, state) in &state_by_id {
        let want = match *state {
            "behind" => "up-to-date",
            "behind-and-edited" => "edited-locally",
            other => other,
        };
        assert_eq!(
            entry(&after, *id)["state"],
            want,
            "{}: egg {id}",
            panel.name
        );
    }
    // restore: each updated egg back as it was saved before the update.
    for (id, (slug, _, expected)) in &built {
        if expected.is_none() {
            continue;
        }
        // The one panel's folder, the one export saved of this egg.
        let panel_dir = std::fs::read_dir(data.join("panel-backups"))
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .path();
        let saved = std::fs::read_dir(panel_dir.join(id.to_string()))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .next()
            .unwrap();
        let out = eggcat(
            &[
                "panel",
                "restore",
                "--panel",
                &through,
                "--egg",
                &id.to_string(),
            ],
            &data,
            ADMIN,
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: restore {slug}: {}{}",
            panel.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut was: Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
        let mut now = export(h, *id);
        if panel.name == "PostgreSQL" {
            assert_eq!(edits(&was, &now), [], "{}: restore {slug}", panel.name);
        } else {
            was.as_object_mut().unwrap().remove("exported_at");
            now.as_object_mut().unwrap().remove("exported_at");
            assert_eq!(was, now, "{}: restore {slug}", panel.name);
        }
    }
}
