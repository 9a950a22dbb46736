//! `eggcat_panel::pterodactyl_status` against Pterodactyl's own importer (the loopback harness
//! `crates/panels/tests/php/ptero_api.php`, SQLite, held to Pterodactyl's API tests by
//! `crates/panels/tests/ptero_api.rs`) and a catalog on loopback serving `_index.json`, egg
//! documents, `history.json` and `pterodactyl.json` as `eggcat serve` does. The catalog's files
//! are eggcat's own `pterodactyl.json` of real corpus eggs; the panel's eggs are put there by
//! Pterodactyl's Import Egg, some edited through its models as an admin's forms save them, one
//! imported from an older file, one copying another's install script, some from elsewhere, two
//! catalog eggs with one name and author (told apart by content, or not), a real Pelican egg
//! and its Pterodactyl twin upstream (one egg): each classified as constructed. Then Update Egg
//! with the file `status` names brings the differing egg up to date, in place.

#[path = "../../panels/tests/support/pelican_api.rs"]
mod pelican_api;
#[path = "../../panels/tests/support/ptero_api.rs"]
mod ptero_api;

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use eggcat_panel::pterodactyl::{Kind, detect};
use eggcat_panel::pterodactyl_status::{exit_code, status};
use eggcat_panel::status::Catalog;
use eggcat_panel::{Client, Config, Key, PanelError};
use eggcat_panels::pterodactyl_api::from_file;
use eggcat_panels::{PerDatabase, Target, stable_uuid, variants};
use ptero_api::{Harness, key};
use serde_json::{Value, json};
use support::{Files, catalog_server, check_schema, panels_src};

const ADMIN: &str = "ptla_admin0000001adminsecretadminsecretadminsecret1";
const NO_NESTS: &str = "ptla_nonests00001nonestssecretnonestssecretnonests1";
const NO_EGGS: &str = "ptla_noeggs000001noeggssecretnoeggssecretnoeggssec1";
const FLOOD: &str = "ptla_flood0000001floodsecretfloodsecretfloodsecretf1";

fn keys() -> Value {
    json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, json!({"r_nests": 1, "r_eggs": 1}), "00000000-0000-4000-8000-000000000101", true),
        key(NO_NESTS, 2, json!({"r_eggs": 1}), "00000000-0000-4000-8000-000000000102", true),
        key(NO_EGGS, 2, json!({"r_nests": 1}), "00000000-0000-4000-8000-000000000103", true),
    ]})
}

fn client(h: &Harness, token: &str) -> Client {
    Client::new(client_config(h, token)).unwrap()
}

fn client_config(h: &Harness, token: &str) -> Config {
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), token).unwrap();
    let mut config = Config::new(&h.url(), Key::from_file(key_file.path()).unwrap());
    config.timeout = Duration::from_secs(20);
    config
}

/// A corpus egg in the test's catalog: its slug, its `pterodactyl.json` as eggcat publishes it
/// at the catalog's address, parsed.
struct CatalogEgg {
    slug: String,
    file: Value,
}

/// The JSON eggs of the corpus whose `pterodactyl.json` Pterodactyl imports and that have a
/// variable, as eggcat publishes them under `catalog_url`.
fn corpus_eggs(corpus: &std::path::Path, catalog_url: &str) -> Vec<CatalogEgg> {
    eggcat_testkit::egg_files(corpus)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| {
            let upstream: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
            let rel = path.strip_prefix(corpus).unwrap().display().to_string();
            let slug: String = rel
                .trim_end_matches(".json")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            let base = format!("{catalog_url}/api/v1/eggs/{slug}");
            let (json_url, maria_url) = (
                format!("{base}/pelican.json"),
                format!("{base}/pelican-mariadb.json"),
            );
            let (yaml_url, ptero_url) = (
                format!("{base}/pelican.yaml"),
                format!("{base}/pterodactyl.json"),
            );
            let uuid = stable_uuid(&rel);
            let v = variants(
                &upstream,
                &Target {
                    uuid: &uuid,
                    pelican_yaml_url: &yaml_url,
                    pelican_json_urls: PerDatabase {
                        sqlite: &json_url,
                        mariadb: &maria_url,
                        postgresql: &json_url,
                    },
                    pterodactyl_url: &ptero_url,
                    exported_at: "2026-01-01T00:00:00+00:00",
                },
            );
            let file: Value = serde_json::from_slice(v.pterodactyl_json.as_ref()?).ok()?;
            let has_variable = file["variables"].as_array().is_some_and(|v| !v.is_empty());
            (v.pterodactyl.importable && has_variable).then_some(CatalogEgg { slug, file })
        })
        .collect()
}

fn history(slug: &str, versions: Value) -> String {
    json!({"slug": slug, "versions": versions}).to_string()
}

fn version(date: &str, subject: &str, changes: Value) -> Value {
    let breaking = changes
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["breaking"] == true);
    json!({"commit": subject.repeat(40).chars().take(40).collect::<String>(), "date": date,
        "subject": subject, "breaking": breaking, "changes": changes})
}

#[tokio::test]
async fn every_state_is_told_as_constructed_on_pterodactyls_own_importer() {
    let Some(src) = panels_src() else { return };
    let corpus = src.join("../upstream");
    let h = Harness::start(&src, &keys());
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let eggs = corpus_eggs(&corpus, &catalog_url);
    // Plain eggs (a name and author no other chosen egg has), and a real twin pair upstream: a
    // Pelican egg and its Pterodactyl twin, one name and author, the same egg in every field
    // the API shows.
    let mut by_owner: BTreeMap<(String, String), Vec<&CatalogEgg>> = BTreeMap::new();
    for e in &eggs {
        let owner = (e.file["name"].to_string(), e.file["author"].to_string());
        by_owner.entry(owner).or_default().push(e);
    }
    let twins = by_owner
        .values()
        .find(|g| g.len() == 2 && from_file(&g[0].file) == from_file(&g[1].file))
        .expect("a twin pair in the corpus");
    let plain: Vec<&CatalogEgg> = by_owner
        .values()
        .filter(|g| g.len() == 1)
        .map(|g| g[0])
        .step_by(7)
        .take(8)
        .collect();
    assert_eq!(plain.len(), 8, "eight plain eggs in the corpus");
    let [
        up1,
        up2,
        edited,
        behind,
        copies,
        no_file,
        ambiguous,
        elsewhere,
    ] = plain[..]
    else {
        unreachable!()
    };
    let mut f: BTreeMap<String, (u16, String)> = BTreeMap::new();
    let mut index = vec![json!({"slug": no_file.slug, "name": no_file.file["name"]})];
    let mut publish = |slug: &str, file: &Value, f: &mut BTreeMap<String, (u16, String)>| {
        index.push(json!({"slug": slug, "name": file["name"], "category": "c", "repo": "r", "source": "s"}));
        f.insert(
            format!("/api/v1/eggs/{slug}/pterodactyl.json"),
            (200, eggcat_panels::pretty(file)),
        );
    };
    for e in [up1, up2, edited, behind, copies, twins[0], twins[1]] {
        publish(&e.slug, &e.file, &mut f);
    }
    // An egg the catalog has but wrote no pterodactyl.json for (its document says so).
    f.insert(
        format!("/api/v1/eggs/{}.json", no_file.slug),
        (200, json!({"egg": {"name": no_file.file["name"], "author": no_file.file["author"]},
            "meta": {"slug": no_file.slug, "import": {"pterodactyl": {"json": null, "importable": false,
                "problems": ["Pelican cannot import this egg: a test's reason"]}}}}).to_string()),
    );
    // Two catalog eggs with one name and author, told apart by their description only.
    let mut amb_a = ambiguous.file.clone();
    amb_a["description"] = json!("Variant A");
    let mut amb_b = ambiguous.file.clone();
    amb_b["description"] = json!("Variant B");
    publish("amb-a", &amb_a, &mut f);
    publish("amb-b", &amb_b, &mut f);
    // Histories: the edited egg's one version is older than the panel's egg; the behind egg's
    // current version is newer (dated ahead of the test), and removes a variable.
    f.insert(
        format!("/api/v1/eggs/{}/history.json", edited.slug),
        (
            200,
            history(
                &edited.slug,
                json!([version("2000-01-01T00:00:00.000Z", "a", json!([]))]),
            ),
        ),
    );
    f.insert(
        format!("/api/v1/eggs/{}/history.json", behind.slug),
        (
            200,
            history(
                &behind.slug,
                json!([
                    version(
                        "2099-01-01T00:00:00.000Z",
                        "b",
                        json!([
                {"kind": "variable_removed", "text": "variable OLD_VAR removed", "breaking": true},
                {"kind": "startup_changed", "text": "startup command changed", "breaking": false}])
                    ),
                    version("2000-01-01T00:00:00.000Z", "a", json!([]))
                ]),
            ),
        ),
    );
    f.insert(
        "/api/v1/eggs/_index.json".to_owned(),
        (200, json!(index).to_string()),
    );
    files.lock().unwrap().extend(f);

    // The panel, as admins make it (Import Egg into the nests; the admin's forms).
    let bytes = |v: &Value| eggcat_panels::pretty(v).into_bytes();
    let mut expected: BTreeMap<u64, (&str, Option<&str>)> = BTreeMap::new();
    for e in [up1, up2] {
        expected.insert(h.import(1, &bytes(&e.file)), ("up-to-date", Some(&e.slug)));
    }
    let edited_id = h.import(1, &bytes(&edited.file));
    let first_env = edited.file["variables"][0]["env_variable"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut images = edited.file["docker_images"].clone();
    images["Extra"] = json!("ghcr.io/example/extra:1");
    h.edit(
        edited_id,
        &json!({"egg": {"description": "Our own words", "docker_images": images},
            "variables": {&first_env: {"rules": "required|string|max:7"}}}),
    );
    expected.insert(edited_id, ("differs", Some(&edited.slug)));
    // Imported from an older file: another startup, and a variable upstream removed since.
    let mut older = behind.file.clone();
    older["startup"] = json!("./old-start.sh");
    older["variables"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "Old", "description": "",
        "env_variable": "OLD_VAR", "default_value": "1", "user_viewable": true,
        "user_editable": true, "rules": "required|string", "field_type": "text"}));
    let behind_id = h.import(2, &bytes(&older));
    expected.insert(behind_id, ("differs", Some(&behind.slug)));
    // An egg that copies its install script from another (Copy Script From): compared with
    // the script it copies. The one it copies from is the same egg, in another nest.
    let parent = h.import(3, &bytes(&copies.file));
    let child = h.import(4, &bytes(&copies.file));
    h.edit(
        child,
        &json!({"egg": {"script_install": null, "copy_script_from": parent}}),
    );
    expected.insert(parent, ("up-to-date", Some(&copies.slug)));
    expected.insert(child, ("up-to-date", Some(&copies.slug)));
    expected.insert(h.import(1, &bytes(&twins[1].file)), ("up-to-date", None));
    expected.insert(
        h.import(1, &bytes(&no_file.file)),
        ("unknown", Some(&no_file.slug)),
    );
    let mut neither = ambiguous.file.clone();
    neither["description"] = json!("Variant C");
    expected.insert(h.import(2, &bytes(&neither)), ("ambiguous", None));
    expected.insert(h.import(2, &bytes(&amb_b)), ("up-to-date", Some("amb-b")));
    expected.insert(
        h.import(3, &bytes(&elsewhere.file)),
        ("not-from-this-catalog", None),
    );
    let mut other_author = up1.file.clone();
    other_author["author"] = json!("someone@else.example");
    let other_author_id = h.import(3, &bytes(&other_author));
    expected.insert(other_author_id, ("not-from-this-catalog", None));

    let catalog = Catalog::new(&catalog_url, None, Duration::from_secs(20), 4).unwrap();
    let admin = client(&h, ADMIN);
    assert_eq!(detect(&admin).await.unwrap(), Kind::Pterodactyl);
    let report = status(&admin, &catalog).await.unwrap();
    check_schema(&report, "panel-status-pterodactyl");
    let by_id: BTreeMap<u64, &Value> = report["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_u64().unwrap(), e))
        .collect();
    assert_eq!(by_id.len(), expected.len(), "{report:#}");
    for (id, (state, slug)) in &expected {
        let e = by_id[id];
        assert_eq!(e["state"], *state, "egg {id}: {e:#}");
        if let Some(slug) = slug {
            assert_eq!(e["slug"], *slug, "egg {id}: {e:#}");
        }
    }
    let fields = |id: u64| -> Vec<String> {
        by_id[&id]["differs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["field"].as_str().unwrap().to_owned())
            .collect()
    };
    // The admin's edits, each named with both values.
    assert_eq!(
        fields(edited_id),
        [
            "description",
            "docker_images",
            &format!("variables.{first_env}.rules")
        ]
    );
    let e = by_id[&edited_id];
    assert_eq!(e["differs"][0]["panel"], "Our own words");
    assert_eq!(e["differs"][0]["catalog"], edited.file["description"]);
    assert_eq!(
        e["since"],
        json!([]),
        "no upstream version after the egg was saved"
    );
    assert_eq!(e["matchedBy"], "name-author");
    // The older file: the version since, with the variable it removes.
    assert_eq!(fields(behind_id), ["startup", "variables.OLD_VAR"]);
    let e = by_id[&behind_id];
    assert_eq!(e["updateDeletesVariables"], json!(["OLD_VAR"]));
    assert_eq!(e["since"][0]["subject"], "b");
    assert_eq!(e["resetsServerValues"], json!(["variable OLD_VAR removed"]));
    let update = e["update"].as_str().unwrap();
    let file_url = format!("{catalog_url}/api/v1/eggs/{}/pterodactyl.json", behind.slug);
    assert_eq!(e["importFile"], file_url.as_str());
    assert!(
        update.contains(&file_url) && update.contains("Update Egg"),
        "{update}"
    );
    assert!(
        update.contains(&format!("/admin/nests/egg/{behind_id}")),
        "{update}"
    );
    // The twins are one egg; the two that differ are told apart by content, or not.
    let twin = by_id
        .values()
        .find(|e| e["sameAs"].is_array())
        .expect("the twin egg");
    let mut pair = [twins[0].slug.clone(), twins[1].slug.clone()];
    pair.sort();
    assert_eq!(
        (twin["slug"].as_str(), &twin["sameAs"]),
        (Some(pair[0].as_str()), &json!([pair[1]]))
    );
    let by_state = |s: &str| {
        by_id
            .values()
            .filter(|e| e["state"] == s)
            .cloned()
            .collect::<Vec<_>>()
    };
    let amb = &by_state("ambiguous")[0];
    assert_eq!(
        amb["candidates"],
        json!([{"slug": "amb-a", "differs": ["description"]}, {"slug": "amb-b", "differs": ["description"]}])
    );
    let by_content = by_id.values().find(|e| e["slug"] == "amb-b").unwrap();
    assert_eq!(by_content["matchedBy"], "content");
    // Not from this catalog: the name unknown, or another author's.
    let why = by_id[&other_author_id]["why"].as_str().unwrap();
    assert!(why.contains(&format!("{} by", up1.slug)), "{why}");
    let why = by_state("unknown")[0]["why"].as_str().unwrap().to_owned();
    assert!(why.contains("a test's reason"), "{why}");
    for state in [
        "up-to-date",
        "differs",
        "ambiguous",
        "not-from-this-catalog",
        "unknown",
    ] {
        let n = expected.values().filter(|(s, _)| *s == state).count();
        assert_eq!(report["counts"][state], n, "{state}: {}", report["counts"]);
    }
    assert_eq!(exit_code(&report), 1);

    // Update Egg with the file `status` names: the same egg, in place, now up to date.
    let current = files.lock().unwrap()[&format!("/api/v1/eggs/{}/pterodactyl.json", behind.slug)]
        .1
        .clone();
    h.update(behind_id, current.as_bytes());
    let again = status(&admin, &catalog).await.unwrap();
    let e = again["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == behind_id)
        .unwrap();
    assert_eq!(e["state"], "up-to-date", "{e:#}");
    assert_eq!(e["uuid"], by_id[&behind_id]["uuid"], "the same egg");
    assert_eq!(again["counts"]["differs"], 1, "only the edited egg");
}

/// A key the panel refuses for one of the two routes, a panel asking to slow down, and a
/// catalog that fails: each an error of the run, naming what to do, never a state.
#[tokio::test]
async fn refusals_and_failures_are_errors_not_states() {
    let Some(src) = panels_src() else { return };
    let h = Harness::start(&src, &keys());
    let files: Files = Arc::default();
    let catalog_url = catalog_server(files.clone());
    let corpus = src.join("../upstream");
    let egg = corpus_eggs(&corpus, &catalog_url)
        .into_iter()
        .next()
        .unwrap();
    h.import(1, eggcat_panels::pretty(&egg.file).as_bytes());
    let catalog = Catalog::new(&catalog_url, None, Duration::from_secs(20), 4).unwrap();
    for (token, permission) in [(NO_NESTS, "Nests: Read"), (NO_EGGS, "Eggs: Read")] {
        let e = status(&client(&h, token), &catalog).await.unwrap_err();
        assert!(
            matches!(&e, PanelError::Forbidden { permission: p, .. } if p == permission),
            "{e}"
        );
        assert!(
            e.to_string().contains("This action is unauthorized."),
            "{e}"
        );
    }
    // A panel allowing three requests a minute: a page of nests and four nests' eggs are five.
    let slow = Harness::start(
        &src,
        &json!({"rate_limit": 3, "keys": [key(FLOOD, 2, json!({"r_nests": 1, "r_eggs": 1}),
            "00000000-0000-4000-8000-000000000104", true)]}),
    );
    let mut never_waits = client_config(&slow, FLOOD);
    never_waits.wait_limit = Duration::ZERO;
    let e = status(&Client::new(never_waits).unwrap(), &catalog)
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            PanelError::RateLimited {
                retry_after: Some(_),
                ..
            }
        ),
        "{e}"
    );
    // The catalog fails on the candidate's file.
    files.lock().unwrap().insert(
        "/api/v1/eggs/_index.json".to_owned(),
        (
            200,
            json!([{"slug": egg.slug, "name": egg.file["name"]}]).to_string(),
        ),
    );
    files.lock().unwrap().insert(
        format!("/api/v1/eggs/{}/pterodactyl.json", egg.slug),
        (500, "{}".to_owned()),
    );
    let admin = client(&h, ADMIN);
    assert!(status(&admin, &catalog).await.is_err());
    // Without an index the catalog cannot be read at all.
    files.lock().unwrap().remove("/api/v1/eggs/_index.json");
    let e = status(&admin, &catalog).await.unwrap_err();
    assert!(e.to_string().contains("_index.json"), "{e}");
}

/// Which panel answers: Pelican's harness lists eggs, Pterodactyl's lists nests.
#[tokio::test]
async fn the_panel_kind_is_told_by_its_routes() {
    let Some(src) = panels_src() else { return };
    let h = Harness::start(&src, &keys());
    assert_eq!(detect(&client(&h, ADMIN)).await.unwrap(), Kind::Pterodactyl);
    let pelican_keys = json!({"rate_limit": 1000, "keys": [pelican_api::key(
        support::ADMIN, 2, json!({"egg": 3}), "00000000-0000-4000-8000-000000000100", true)]});
    let p = pelican_api::Harness::start(&src, &pelican_keys, false);
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), support::ADMIN).unwrap();
    let pelican = Client::new(Config::new(
        &p.url(),
        Key::from_file(key_file.path()).unwrap(),
    ))
    .unwrap();
    assert_eq!(detect(&pelican).await.unwrap(), Kind::Pelican);
    // A key Pterodactyl does not know: a 401, not a kind (its /eggs 404 comes first, then
    // /nests asks for the key).
    let e = detect(&client(&h, "ptla_unknown00001unknownsecret"))
        .await
        .unwrap_err();
    assert!(matches!(e, PanelError::Unauthenticated { .. }), "{e}");
}
