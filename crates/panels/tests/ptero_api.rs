//! The Pterodactyl application API harness (`tests/php/ptero_api.php`, issue 37 section 6) held
//! to Pterodactyl's own tests of its nests and eggs routes
//! (`../shared/panels-src/pterodactyl-api/tests/Integration/Api/Application/Nests/`). Those tests
//! check each answer's JSON structure, not a snapshot: here each makes the same request of the
//! harness (served by `php -S` on loopback, on an SQLite database with Pterodactyl's egg tables,
//! NestSeeder's four nests and corpus eggs put there by Pterodactyl's own EggImporterService)
//! and checks the same status, keys, counts and values. Where a Pterodactyl test compares an
//! answer with its own transformer's output, which the harness runs itself, the answer is
//! checked against the file the egg was imported from instead (the data path). Then what the
//! harness answers where Pterodactyl's tests say nothing and `eggcat panel status` relies on it,
//! each from the Pterodactyl file that decides it.

#[path = "support/ptero_api.rs"]
mod ptero_api;
mod support;

use eggcat_panels::{pterodactyl_api, variants};
use ptero_api::{Answer, Harness, key};
use serde_json::{Value, json};

const PHP_PACKAGES: &[&str] = &[
    "Illuminate/Support",
    "Illuminate/Database",
    "Illuminate/Validation",
    "Illuminate/Http",
];

/// ApplicationApiIntegrationTestCase::createApiKey: an application key of a root admin with
/// read and write on every resource.
const ADMIN: &str = "ptla_admin0000001adminsecretadminsecretadminsecret1";
/// createNewDefaultApiKey(..., ['r_eggs' => 0]).
const NO_EGGS: &str = "ptla_noeggs000001noeggssecretnoeggssecretnoeggssec1";
/// createNewDefaultApiKey(..., ['r_nests' => 0]).
const NO_NESTS: &str = "ptla_nonests00001nonestssecretnonestssecretnonests1";
/// An application key of a user who is no root admin.
const NOT_ADMIN: &str = "ptla_notadmin0001notadminsecretnotadminsecretnotad1";
/// An account key (`ptlc_`) of a root admin: ApplicationApiRequest lets it through.
const ACCOUNT: &str = "ptlc_account00001accountsecretaccountsecretaccount1";
/// A key of its own user, for the throttle.
const FLOOD: &str = "ptla_flood0000001floodsecretfloodsecretfloodsecretf1";
const RATE_LIMIT: usize = 30;

fn all(bits: u8) -> Value {
    let mut p = serde_json::Map::new();
    for r in [
        "servers",
        "nodes",
        "allocations",
        "users",
        "locations",
        "nests",
        "eggs",
        "database_hosts",
        "server_databases",
    ] {
        p.insert(format!("r_{r}"), json!(bits));
    }
    Value::Object(p)
}

fn with(mut v: Value, field: &str, bits: u8) -> Value {
    v[field] = json!(bits);
    v
}

/// Laravel's assertJsonStructure, on a PHP structure written as JSON: a list holds keys (each
/// in `data`), maps (`{"key": structure}`: the key in `data`, its value held to the structure)
/// and lists (`'data' => [[...]]`: the answer's item 0 held to the inner list, as Laravel reads
/// the positional key 0).
fn assert_structure(data: &Value, structure: &Value, at: &str) {
    match structure {
        Value::Array(keys) => {
            for (i, k) in keys.iter().enumerate() {
                match k {
                    Value::String(name) => {
                        assert!(data.get(name).is_some(), "{at}: no key {name:?} in {data}")
                    }
                    Value::Object(_) => assert_structure(data, k, at),
                    nested => {
                        assert!(data.get(i).is_some(), "{at}: no item {i} in {data}");
                        assert_structure(&data[i], nested, &format!("{at}/{i}"));
                    }
                }
            }
        }
        Value::Object(map) => {
            for (k, nested) in map {
                assert!(data.get(k).is_some(), "{at}: no key {k:?} in {data}");
                assert_structure(&data[k], nested, &format!("{at}/{k}"));
            }
        }
        _ => panic!("a structure is keys"),
    }
}

/// IntegrationJsonRequestAssertions::assertNotFoundJson.
fn assert_not_found(a: &Answer) {
    assert_eq!(a.status, 404);
    assert_eq!(
        a.json(),
        json!({"errors": [{"code": "NotFoundHttpException", "status": "404",
            "detail": "The requested resource could not be found on the server."}]})
    );
}

/// IntegrationJsonRequestAssertions::assertAccessDeniedJson.
fn assert_access_denied(a: &Answer) {
    assert_eq!(a.status, 403);
    assert_eq!(
        a.json(),
        json!({"errors": [{"code": "AccessDeniedHttpException", "status": "403",
            "detail": "This action is unauthorized."}]})
    );
}

/// Corpus eggs for nest 1, as eggcat publishes their `pterodactyl.json`: importable by
/// Pterodactyl, with a `done` text in `config.startup` (EggControllerTest's structure asks for
/// one). A spread over the corpus: every 37th egg that qualifies, four of them.
fn eggs(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (n, egg) in support::eggs(dir).into_iter().enumerate() {
        if n % 37 != 0 {
            continue;
        }
        let v = support::with(&egg.rel, |t| variants(&egg.value, t));
        let Some(file) = v.pterodactyl_json.filter(|_| v.pterodactyl.importable) else {
            continue;
        };
        let parsed: Value = serde_json::from_slice(&file).unwrap();
        let startup: Option<Value> = parsed["config"]["startup"]
            .as_str()
            .and_then(|s| serde_json::from_str(s).ok());
        if startup.is_some_and(|s| s.get("done").is_some()) {
            out.push((egg.rel, file));
        }
        if out.len() == 4 {
            break;
        }
    }
    assert_eq!(out.len(), 4, "four corpus eggs for nest 1");
    out
}

#[test]
fn the_harness_answers_pterodactyls_own_api_tests() {
    let Some(dir) = support::corpus() else { return };
    if !support::php_ready(PHP_PACKAGES) {
        return;
    }
    let keys = json!({"rate_limit": RATE_LIMIT, "keys": [
        key(ADMIN, 2, all(3), "00000000-0000-4000-8000-000000000101", true),
        key(NO_EGGS, 2, with(all(3), "r_eggs", 0), "00000000-0000-4000-8000-000000000102", true),
        key(NO_NESTS, 2, with(all(3), "r_nests", 0), "00000000-0000-4000-8000-000000000103", true),
        key(NOT_ADMIN, 2, all(3), "00000000-0000-4000-8000-000000000104", false),
        key(ACCOUNT, 1, json!({}), "00000000-0000-4000-8000-000000000105", true),
        key(FLOOD, 2, all(1), "00000000-0000-4000-8000-000000000106", true),
    ]});
    let h = Harness::start(&dir.join("../panels-src"), &keys);
    let files = eggs(&dir);
    let ids: Vec<u64> = files.iter().map(|(_, f)| h.import(1, f)).collect();
    // One egg in another nest: nest 1's lists leave it out, and its id under nest 1 is no egg.
    let elsewhere = h.import(2, &files[0].1);
    let get = |path: &str| h.get(path, Some(ADMIN));

    // NestControllerTest::testNestResponse.
    let a = get("/api/application/nests");
    assert_eq!(a.status, 200);
    let v = a.json();
    assert_eq!(v["data"].as_array().unwrap().len(), 4);
    assert_structure(
        &v,
        &json!(["object", {"data": [["object", {"attributes": ["id", "uuid", "author", "name", "description", "created_at", "updated_at"]}]]},
            {"meta": {"pagination": ["total", "count", "per_page", "current_page", "total_pages"]}}]),
        "nests",
    );
    assert_eq!(v["object"], "list");
    assert_eq!(
        v["meta"]["pagination"],
        json!({"total": 4, "count": 4, "per_page": 50, "current_page": 1, "total_pages": 1, "links": {}})
    );
    // assertJsonFragment of each nest's transform: NestSeeder's nests, all their columns.
    let names = ["Minecraft", "Source Engine", "Voice Servers", "Rust"];
    for (i, nest) in v["data"].as_array().unwrap().iter().enumerate() {
        assert_eq!(nest["object"], "nest");
        let a = &nest["attributes"];
        let keys: Vec<&String> = a.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "id",
                "uuid",
                "author",
                "name",
                "description",
                "created_at",
                "updated_at"
            ]
        );
        assert_eq!(
            (a["id"].as_u64(), a["name"].as_str()),
            (Some(i as u64 + 1), Some(names[i]))
        );
        assert_eq!(a["author"], "support@pterodactyl.io");
        // BaseTransformer::formatTimestamp: ISO 8601 in UTC.
        assert!(a["created_at"].as_str().unwrap().ends_with("+00:00"), "{a}");
    }

    // NestControllerTest::testSingleNestResponse.
    let a = get("/api/application/nests/1");
    assert_eq!(a.status, 200);
    let nest = a.json();
    assert_structure(
        &nest,
        &json!(["object", {"attributes": ["id", "uuid", "author", "name", "description", "created_at", "updated_at"]}]),
        "nest",
    );
    assert_eq!(nest["object"], "nest");
    assert_eq!(nest["attributes"], v["data"][0]["attributes"]);

    // NestControllerTest::testSingleNestWithEggsIncluded.
    let a = get("/api/application/nests/1?include=servers,eggs");
    assert_eq!(a.status, 200);
    let nest = a.json();
    assert_structure(
        &nest,
        &json!(["object", {"attributes": {"relationships": {"eggs": ["object", {"data": []}], "servers": ["object", {"data": []}]}}}]),
        "nest with eggs",
    );
    let included = nest["attributes"]["relationships"]["eggs"]["data"]
        .as_array()
        .unwrap();
    assert_eq!(included.len(), ids.len());

    // NestControllerTest::testGetMissingNest.
    assert_not_found(&get("/api/application/nests/nil"));
    // NestControllerTest::testErrorReturnedIfNoPermission (r_nests 0).
    assert_access_denied(&h.get("/api/application/nests/1", Some(NO_NESTS)));

    // EggControllerTest::testListAllEggsInNest.
    let a = get("/api/application/nests/1/eggs");
    assert_eq!(a.status, 200);
    let list = a.json();
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), ids.len());
    let egg_structure = json!(["object", {"attributes": ["id", "uuid", "nest", "author", "description", "docker_image", "startup", "created_at", "updated_at",
        {"script": ["privileged", "install", "entry", "container", "extends"]},
        {"config": [{"files": []}, {"startup": ["done"]}, "stop", {"logs": []}, "extends"]}]}]);
    assert_structure(
        &list,
        &json!(["object", {"data": [egg_structure.clone()]}]),
        "eggs",
    );
    // Each egg is the file it was imported from, as EggTransformer::transform gives it (the
    // test compares with its own run of the transformer, which the harness runs itself).
    for (datum, (rel, file)) in data.iter().zip(&files) {
        assert_structure(datum, &egg_structure, rel);
        let a = &datum["attributes"];
        let f: Value = serde_json::from_slice(file).unwrap();
        let keys: Vec<&String> = a.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "id",
                "uuid",
                "name",
                "nest",
                "author",
                "description",
                "docker_image",
                "docker_images",
                "config",
                "startup",
                "script",
                "created_at",
                "updated_at"
            ],
            "{rel}"
        );
        assert_eq!(a["nest"], 1, "{rel}");
        for (field, want) in [
            ("name", &f["name"]),
            ("author", &f["author"]),
            ("description", &f["description"]),
            ("startup", &f["startup"]),
            ("docker_images", &f["docker_images"]),
        ] {
            assert_eq!(&a[field], want, "{rel}: {field}");
        }
        assert_ne!(a["uuid"], f["uuid"], "{rel}: Import Egg gives a new uuid");
        let first = f["docker_images"].as_object().unwrap().values().next();
        assert_eq!(Some(&a["docker_image"]), first, "{rel}");
        assert_eq!(
            a["script"]["install"], f["scripts"]["installation"]["script"],
            "{rel}"
        );
        assert_eq!(
            a["script"]["entry"], f["scripts"]["installation"]["entrypoint"],
            "{rel}"
        );
        assert_eq!(
            a["script"]["container"], f["scripts"]["installation"]["container"],
            "{rel}"
        );
        assert_eq!(a["config"]["stop"], f["config"]["stop"], "{rel}");
        assert_eq!(
            a["config"]["startup"],
            serde_json::from_str::<Value>(f["config"]["startup"].as_str().unwrap()).unwrap(),
            "{rel}"
        );
    }

    // EggControllerTest::testReturnSingleEgg.
    let a = get(&format!("/api/application/nests/1/eggs/{}", ids[0]));
    assert_eq!(a.status, 200);
    let egg = a.json();
    assert_structure(
        &egg,
        &json!(["object", {"attributes": ["id", "uuid", "nest", "author", "description", "docker_image", "startup", {"script": []}, {"config": []}, "created_at", "updated_at"]}]),
        "egg",
    );
    assert_eq!(
        egg,
        json!({"object": "egg", "attributes": data[0]["attributes"]})
    );

    // EggControllerTest::testReturnSingleEggWithRelationships.
    let a = get(&format!(
        "/api/application/nests/1/eggs/{}?include=servers,variables,nest",
        ids[0]
    ));
    assert_eq!(a.status, 200);
    let egg = a.json();
    assert_structure(
        &egg,
        &json!(["object", {"attributes": {"relationships": {"nest": ["object", "attributes"], "servers": ["object", {"data": []}], "variables": ["object", {"data": []}]}}}]),
        "egg with relationships",
    );
    let r = &egg["attributes"]["relationships"];
    assert_eq!(r["nest"]["object"], "nest");
    assert_eq!(r["nest"]["attributes"], v["data"][0]["attributes"]);
    assert_eq!(
        r["servers"],
        json!({"object": "list", "data": []}),
        "no servers here"
    );
    // The variables are the file's, each as EggVariable::toArray gives it.
    let f: Value = serde_json::from_slice(&files[0].1).unwrap();
    let vars = r["variables"]["data"].as_array().unwrap();
    assert_eq!(vars.len(), f["variables"].as_array().unwrap().len());
    for (got, want) in vars.iter().zip(f["variables"].as_array().unwrap()) {
        assert_eq!(got["object"], "egg_variable");
        let g = &got["attributes"];
        let keys: Vec<&String> = g.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "id",
                "egg_id",
                "name",
                "description",
                "env_variable",
                "default_value",
                "user_viewable",
                "user_editable",
                "rules",
                "created_at",
                "updated_at"
            ]
        );
        for field in [
            "name",
            "description",
            "env_variable",
            "default_value",
            "user_viewable",
            "user_editable",
            "rules",
        ] {
            assert_eq!(g[field], want[field], "{}: {field}", files[0].0);
        }
        assert_eq!(g["egg_id"].as_u64(), Some(ids[0]));
    }

    // EggControllerTest::testGetMissingEgg.
    assert_not_found(&get("/api/application/nests/1/eggs/nil"));
    // EggControllerTest::testErrorReturnedIfNoPermission (r_eggs 0).
    assert_access_denied(&h.get("/api/application/nests/1/eggs", Some(NO_EGGS)));

    // What `eggcat panel status` relies on beyond Pterodactyl's tests.
    // Route bindings are scoped (RouteServiceProvider: scopeBindings): an egg of nest 2 is not
    // found under nest 1.
    assert_not_found(&get(&format!("/api/application/nests/1/eggs/{elsewhere}")));
    assert_eq!(
        get(&format!("/api/application/nests/2/eggs/{elsewhere}")).status,
        200
    );
    // `config` and `script` include only what an egg copies from another (config_from,
    // copy_script_from): none here, a null resource (PterodactylSerializer::null).
    let a = get(&format!(
        "/api/application/nests/1/eggs/{}?include=config,script",
        ids[0]
    ));
    let r = &a.json()["attributes"]["relationships"];
    for include in ["config", "script"] {
        assert_eq!(
            r[include],
            json!({"object": "null_resource", "attributes": null})
        );
    }
    // Nested includes, two levels at most (limitRecursion(2)).
    let a = get("/api/application/nests/1?include=eggs.variables.nest");
    let eggs = &a.json()["attributes"]["relationships"]["eggs"]["data"];
    let rel = eggs[0]["attributes"]["relationships"].as_object().unwrap();
    assert_eq!(rel.keys().collect::<Vec<_>>(), ["variables"]);
    // Pages of nests (Fractal's paginator: `links` to the others).
    let a = get("/api/application/nests?per_page=3&page=2");
    let page = a.json();
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["data"][0]["attributes"]["name"], "Rust");
    assert_eq!(page["meta"]["pagination"]["total_pages"], 2);
    assert_eq!(
        page["meta"]["pagination"]["links"],
        json!({"previous": format!("{}/api/application/nests?page=1", h.url())})
    );
    // Pterodactyl has no /api/application/eggs (Pelican's route): a 404 before any key is
    // read, which is how `eggcat panel status` tells the panels apart.
    let a = h.get("/api/application/eggs", None);
    assert_eq!(a.status, 404);
    assert_eq!(
        a.json()["errors"][0]["detail"],
        "The route api/application/eggs could not be found."
    );
    // No key, a wrong key: 401 in JSON (Handler::unauthenticated), a redirect to the login page
    // for a request that does not ask for JSON.
    let unauthenticated = json!({"errors": [{"code": "AuthenticationException", "status": "401", "detail": "Unauthenticated."}]});
    for k in [None, Some("ptla_admin0000001wrongsecret")] {
        let a = h.get("/api/application/nests", k);
        assert_eq!((a.status, a.json()), (401, unauthenticated.clone()));
    }
    let a = h.request("GET", "/api/application/nests", None, &[]);
    assert_eq!(a.status, 302);
    assert!(a.header("location").unwrap().ends_with("/auth/login"));
    // A user who is no root admin (AuthenticateApplicationUser); a root admin's account key
    // (ApplicationApiRequest::authorize lets it through).
    let a = h.get("/api/application/nests/1/eggs", Some(NOT_ADMIN));
    assert_eq!(a.status, 403);
    assert_eq!(
        a.json()["errors"][0]["detail"],
        "This account does not have permission to access the API."
    );
    assert_eq!(
        h.get("/api/application/nests/1/eggs", Some(ACCOUNT)).status,
        200
    );
    // The eggs are read-only here: no route writes them.
    let a = h.request(
        "POST",
        "/api/application/nests/1/eggs",
        Some(ADMIN),
        &[("Accept", "application/json")],
    );
    assert_eq!(a.status, 405);
    // The throttle (RouteServiceProvider's `api.application`, per user), with Retry-After.
    let mut last = None;
    for _ in 0..=RATE_LIMIT {
        last = Some(h.get("/api/application/nests", Some(FLOOD)));
    }
    let a = last.unwrap();
    assert_eq!(a.status, 429);
    assert_eq!(a.json()["errors"][0]["code"], "ThrottleRequestsException");
    assert!(a.header("retry-after").is_some());
    // What the importer does to a file's oddities, as `pterodactyl_api::from_file` expects it:
    // empty denylist entries dropped with their keys kept (`{"1": "a.txt"}`), empty `files`
    // shown as `{}`, a `false` kept in `logs`.
    let mut odd: Value = serde_json::from_slice(&files[0].1).unwrap();
    odd["file_denylist"] = json!(["", "a.txt", "0"]);
    odd["config"]["files"] = json!("{}");
    odd["config"]["logs"] = json!("{\"custom\": false}");
    let id = h.import(2, odd.to_string().as_bytes());
    let a = h
        .get(
            &format!("/api/application/nests/2/eggs/{id}?include=variables"),
            Some(ADMIN),
        )
        .json();
    assert_eq!(
        a["attributes"]["config"]["file_denylist"],
        json!({"1": "a.txt"})
    );
    assert_eq!(a["attributes"]["config"]["files"], json!({}));
    let panel = pterodactyl_api::from_api(&a["attributes"]).unwrap();
    assert_eq!(
        pterodactyl_api::differences(&pterodactyl_api::from_file(&odd), &panel),
        []
    );
    let log = std::fs::read_to_string(&h.log).unwrap();
    assert!(
        !log.contains("ptero_api.php:"),
        "no request failed in the harness: {log}"
    );
}

/// `eggcat_panels::pterodactyl_api::from_file` (what `eggcat panel status` expects a Pterodactyl
/// panel to show of an egg imported from the catalog's `pterodactyl.json`) against the panel's
/// own answer: every corpus egg whose `pterodactyl.json` Pterodactyl imports, imported by
/// Pterodactyl's EggImporterService (spread over the four nests) and read back through the API
/// (`?include=variables,config,script`), differs from its file in no field.
#[test]
fn every_corpus_egg_reads_back_from_the_api_as_its_file() {
    let Some(dir) = support::corpus() else { return };
    if !support::php_ready(PHP_PACKAGES) {
        return;
    }
    let keys = json!({"rate_limit": 1000, "keys": [
        key(ADMIN, 2, all(3), "00000000-0000-4000-8000-000000000101", true),
    ]});
    let h = Harness::start(&dir.join("../panels-src"), &keys);
    let files: Vec<(String, Vec<u8>)> = support::eggs(&dir)
        .into_iter()
        .filter_map(|egg| {
            let v = support::with(&egg.rel, |t| variants(&egg.value, t));
            let file = v.pterodactyl_json.filter(|_| v.pterodactyl.importable)?;
            Some((egg.rel, file))
        })
        .collect();
    assert!(files.len() > 600, "{} importable eggs", files.len());
    // Spread over the four nests: the importer loads the target nest's eggs and their
    // variables at each import (`Nest::with('eggs', 'eggs.variables')`), so one nest of 600
    // eggs costs four times the time.
    let chunks: Vec<&[(String, Vec<u8>)]> = files.chunks(files.len().div_ceil(4)).collect();
    let mut data = Vec::new();
    for (nest, chunk) in (1u64..).zip(&chunks) {
        let bytes: Vec<&[u8]> = chunk.iter().map(|(_, f)| f.as_slice()).collect();
        let ids = h.import_all(nest, &bytes);
        assert_eq!(ids.len(), chunk.len());
        let a = h.get(
            &format!("/api/application/nests/{nest}/eggs?include=variables,config,script"),
            Some(ADMIN),
        );
        assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
        let list = a.json();
        data.extend(list["data"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(data.len(), files.len());
    let mut mismatches = Vec::new();
    for (datum, (rel, file)) in data.iter().zip(&files) {
        let file: Value = serde_json::from_slice(file).unwrap();
        let panel = pterodactyl_api::from_api(&datum["attributes"]).unwrap();
        for d in pterodactyl_api::differences(&pterodactyl_api::from_file(&file), &panel) {
            mismatches.push(format!(
                "{rel}: {}: file {:?}, panel {:?}",
                d.field, d.base, d.panel
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} fields differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
