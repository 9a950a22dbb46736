//! The Pelican application API harness (`tests/php/api.php`, issue 37 section 5) held to
//! Pelican's own wire snapshots: its tests of the API (`../shared/panels-src/pelican-api/tests/
//! Integration/Api/Fixtures`) replay the data `BuildsTestFixture.php` builds and compare each
//! answer with a committed JSON snapshot. Here the harness is served by `php -S` on loopback,
//! on an SQLite database Pelican's migrations made, with that data (the egg, and the server of
//! it with what it stands on); index, view, view with the `servers` and `variables` includes
//! and import must equal the snapshots (timestamps aside: the fixture freezes the clock at
//! 2026-01-01), the import replaying the very YAML Pelican's `test_import_egg` sends. Then what
//! the harness answers where the snapshots say nothing, each from the Pelican file that decides
//! it: the includes for a key that may not read servers (`EggTransformer::includeServers`),
//! servers the tests add and what an import does to their values, the export, the key
//! permissions (`AdminAcl`), the error bodies (`Handler.php`) and the throttle. These are what
//! `eggcat panel` is tested against, so each is checked here.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::pelican_api::{Harness, key};

const PHP_PACKAGES: &[&str] = &[
    "Symfony/Component/Yaml",
    "Illuminate/Support",
    "Illuminate/Database",
    "Illuminate/Validation",
];

/// The fixture's application key (BuildsTestFixture: identifier and token; read and write on
/// eggs and servers, among others).
const ADMIN_KEY: &str = "papp_fixture0001fixtureapplicationtokenvalue0001";
/// A key that may read eggs but not write them, and may not read servers.
const READ_KEY: &str = "papp_readonly001readonlytokenvalue00000000000001";
/// An account key of a user who is no admin.
const USER_KEY: &str = "pacc_plainuser01plainusertokenvalue00000000000001";
/// A key of its own user, for the throttle.
const FLOOD_KEY: &str = "papp_floodkey001floodtokenvalue0000000000000001";
/// Requests a minute per user the harness allows here (Pelican's default is 256).
const RATE_LIMIT: usize = 20;

/// `v` without the timestamps the fixture freezes (`created_at`, `updated_at`), anywhere.
fn timestamps_aside(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "created_at" && *k != "updated_at")
                .map(|(k, x)| (k.clone(), timestamps_aside(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(timestamps_aside).collect()),
        other => other.clone(),
    }
}

/// The YAML Pelican's `test_import_egg` posts, read from its test file (a PHP 7.3 heredoc: the
/// closing marker's indentation is taken off every line).
fn pelican_import_yaml(panels_src: &Path) -> String {
    let test = std::fs::read_to_string(panels_src.join(
        "pelican-api/tests/Integration/Api/Fixtures/Application/StoreEndpointsFixtureTest.php",
    ))
    .unwrap();
    let start = test.find("<<<'YAML'\n").expect("the heredoc") + "<<<'YAML'\n".len();
    let end = start + test[start..].find("YAML;").expect("its end");
    let indent = test[..end].rsplit('\n').next().unwrap().len();
    test[start..end]
        .lines()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn snapshot(panels_src: &Path, name: &str) -> Value {
    let path = panels_src.join(format!(
        "pelican-api/tests/Integration/Api/Fixtures/Application/__snapshots__/{name}"
    ));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn the_api_harness_answers_as_pelicans_own_snapshots() {
    let Some(dir) = support::corpus() else { return };
    if !support::php_ready(PHP_PACKAGES) {
        return;
    }
    let panels_src = dir.join("../panels-src");
    let keys = json!({"rate_limit": RATE_LIMIT, "keys": [
        key(ADMIN_KEY, 2, json!({"egg": 3, "server": 3}), "00000000-0000-4000-8000-000000000100", true),
        key(READ_KEY, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000103", true),
        key(USER_KEY, 1, json!({}), "00000000-0000-4000-8000-000000000104", false),
        key(FLOOD_KEY, 2, json!({"egg": 1}), "00000000-0000-4000-8000-000000000105", true),
    ]});
    let harness = Harness::start_with_servers(&panels_src, &keys);
    // Index, view, view with includes, import: equal to Pelican's snapshots, key order aside
    // (as its assertMatchesJsonSnapshot compares), `{}` and `[]` told apart, timestamps aside.
    for (path, name) in [
        (
            "/api/application/eggs",
            "EggFixtureTest__test_index__1.json",
        ),
        (
            "/api/application/eggs/100",
            "EggFixtureTest__test_view__1.json",
        ),
        (
            "/api/application/eggs/100?include=servers,variables",
            "EggFixtureTest__test_view_with_all_includes__1.json",
        ),
    ] {
        let answer = harness.request("GET", path, Some(ADMIN_KEY), b"");
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(
            timestamps_aside(&answer.json()),
            timestamps_aside(&snapshot(&panels_src, name)),
            "GET {path} against {name}"
        );
    }
    includes_and_servers(&harness, &panels_src);

    let yaml = pelican_import_yaml(&panels_src);
    assert!(yaml.starts_with("meta:\n  version: PLCN_v3\n"), "{yaml}");
    let import = |key| {
        harness.request(
            "POST",
            "/api/application/eggs/import",
            Some(key),
            yaml.as_bytes(),
        )
    };
    let answer = import(ADMIN_KEY);
    assert_eq!(answer.status, 201);
    let imported = timestamps_aside(&answer.json());
    assert_eq!(
        imported,
        timestamps_aside(&snapshot(
            &panels_src,
            "StoreEndpointsFixtureTest__test_import_egg__1.json"
        )),
        "POST /api/application/eggs/import"
    );
    // Importing the same file again updates the egg with its uuid in place.
    let again = import(ADMIN_KEY);
    assert_eq!(
        (again.status, timestamps_aside(&again.json())),
        (201, imported)
    );
    let index = harness.request("GET", "/api/application/eggs", Some(ADMIN_KEY), b"");
    assert_eq!(index.json()["data"].as_array().unwrap().len(), 2);

    // The export: Pelican's exporter's file, with the headers EggController sets.
    let export = harness.request(
        "GET",
        "/api/application/eggs/101/export?format=json",
        Some(READ_KEY),
        b"",
    );
    assert_eq!(export.status, 200);
    assert_eq!(export.header("content-type"), Some("application/json"));
    assert_eq!(
        export.header("content-disposition"),
        Some("attachment; filename=egg-fixture-imported-egg.json")
    );
    let file = export.json();
    assert_eq!(file["meta"]["version"], "PLCN_v3");
    assert_eq!(file["uuid"], "00000000-0000-4000-8000-000000000700");
    let yaml_export = harness.request(
        "GET",
        "/api/application/eggs/101/export",
        Some(READ_KEY),
        b"",
    );
    assert_eq!(
        (yaml_export.status, yaml_export.header("content-type")),
        (200, Some("application/yaml")),
        "YAML when no format is asked"
    );

    // The error bodies (Handler::exceptionToArray, app.debug off).
    let error = |method: &str,
                 path: &str,
                 key: Option<&str>,
                 status: u16,
                 code: &str,
                 detail: &str| {
        let answer = harness.request(method, path, key, b"");
        assert_eq!(
            (answer.status, answer.json()),
            (
                status,
                json!({"errors": [{"code": code, "status": status.to_string(), "detail": detail}]})
            ),
            "{method} {path}"
        );
    };
    error(
        "GET",
        "/api/application/eggs",
        None,
        401,
        "AuthenticationException",
        "Unauthenticated.",
    );
    error(
        "GET",
        "/api/application/eggs",
        Some("papp_fixture0001wrongtoken"),
        401,
        "AuthenticationException",
        "Unauthenticated.",
    );
    // ImportEggRequest needs write on `egg` (AdminAcl::WRITE).
    let refused = harness.request(
        "POST",
        "/api/application/eggs/import",
        Some(READ_KEY),
        yaml.as_bytes(),
    );
    assert_eq!(
        (refused.status, refused.json()),
        (
            403,
            json!({"errors": [{"code": "AuthorizationException", "status": "403", "detail": "This action is unauthorized."}]})
        )
    );
    error(
        "GET",
        "/api/application/eggs",
        Some(USER_KEY),
        403,
        "AccessDeniedHttpException",
        "This account does not have permission to access the API.",
    );
    error(
        "GET",
        "/api/application/eggs/999",
        Some(ADMIN_KEY),
        404,
        "NotFoundHttpException",
        "The requested resource could not be found on the server.",
    );
    error(
        "GET",
        "/api/application/eggs/import",
        Some(ADMIN_KEY),
        404,
        "NotFoundHttpException",
        "The requested resource could not be found on the server.",
    );
    error(
        "PUT",
        "/api/application/eggs/100",
        Some(ADMIN_KEY),
        405,
        "MethodNotAllowedHttpException",
        "The PUT method is not supported for route api/application/eggs/100. Supported methods: GET, DELETE.",
    );
    let bad_format = harness.request(
        "GET",
        "/api/application/eggs/100/export?format=xml",
        Some(ADMIN_KEY),
        b"",
    );
    assert_eq!(
        (bad_format.status, bad_format.json()),
        (
            422,
            json!({"errors": [{"code": "ValidationException", "status": "422", "detail": "validation.in",
                               "meta": {"source_field": "format", "rule": "in"}}]})
        )
    );
    // A file Pelican's models refuse: the validation error, field by field; nothing stored.
    let no_images = yaml.replace(
        "docker_images:\n  'Java 21': 'ghcr.io/fixture/java:21'\n",
        "",
    );
    let refused = harness.request(
        "POST",
        "/api/application/eggs/import",
        Some(ADMIN_KEY),
        no_images.replace("000000000700", "000000000701").as_bytes(),
    );
    assert_eq!(
        refused.status,
        422,
        "{}",
        String::from_utf8_lossy(&refused.body)
    );
    assert_eq!(
        refused.json()["errors"][0]["meta"],
        json!({"source_field": "docker_images", "rule": "required"})
    );
    let index = harness.request("GET", "/api/application/eggs", Some(ADMIN_KEY), b"");
    assert_eq!(index.json()["data"].as_array().unwrap().len(), 2);

    // The throttle: RATE_LIMIT requests a minute per user, then 429 with Retry-After.
    for i in 0..RATE_LIMIT {
        let answer = harness.request("GET", "/api/application/eggs/100", Some(FLOOD_KEY), b"");
        assert_eq!(answer.status, 200, "request {i}");
        assert_eq!(
            answer.header("x-ratelimit-remaining"),
            Some((RATE_LIMIT - i - 1).to_string().as_str())
        );
    }
    let throttled = harness.request("GET", "/api/application/eggs/100", Some(FLOOD_KEY), b"");
    assert_eq!(
        (throttled.status, throttled.json()),
        (
            429,
            json!({"errors": [{"code": "ThrottleRequestsException", "status": "429", "detail": "Too Many Attempts."}]})
        )
    );
    assert!(throttled.header("retry-after").is_some());
    // Another user is not throttled.
    let other = harness.request("GET", "/api/application/eggs/100", Some(ADMIN_KEY), b"");
    assert_eq!(other.status, 200);
    let log = std::fs::read_to_string(&harness.log).unwrap_or_default();
    assert!(
        !log.contains("api.php:") && !log.contains("PHP Fatal") && !log.contains("PHP Warning"),
        "the harness logged errors:\n{log}"
    );
}

/// What the snapshots do not show of the includes: a key without "Servers: Read" gets the null
/// resource for `servers` (`EggTransformer::includeServers` returns `$this->null()`,
/// `PanelSerializer::null()` serializes it) and the variables all the same; the index includes
/// per egg; servers the tests add are listed with their values; and Pelican's import, which
/// deletes the variables a file no longer has, takes every server's value of them with them
/// (the database's cascade), so that a variable given back comes back with its default.
fn includes_and_servers(harness: &Harness, panels_src: &Path) {
    let all = snapshot(
        panels_src,
        "EggFixtureTest__test_view_with_all_includes__1.json",
    );
    let answer = harness.request(
        "GET",
        "/api/application/eggs/100?include=servers,variables",
        Some(READ_KEY),
        b"",
    );
    assert_eq!(answer.status, 200);
    let relationships = &answer.json()["attributes"]["relationships"];
    assert_eq!(
        relationships["servers"],
        json!({"object": "null_resource", "attributes": null})
    );
    assert_eq!(
        timestamps_aside(&relationships["variables"]),
        timestamps_aside(&all["attributes"]["relationships"]["variables"])
    );
    // Spaces and unknown names are Fractal's to ignore; the order is the transformer's.
    let answer = harness.request(
        "GET",
        "/api/application/eggs/100?include=%20variables,,unknown,servers",
        Some(ADMIN_KEY),
        b"",
    );
    assert_eq!(
        timestamps_aside(&answer.json()),
        timestamps_aside(&all),
        "the includes in another order"
    );
    let second = harness.add_server(100, "Second Server", &[("SERVER_JARFILE", "second.jar")]);
    assert_eq!(
        second,
        json!({"id": 101, "uuid": "00000000-0000-4000-8000-000000000401", "name": "Second Server"})
    );
    let servers = |key: &str| -> Vec<Value> {
        let index = harness.request(
            "GET",
            "/api/application/eggs?include=servers",
            Some(key),
            b"",
        );
        assert_eq!(index.status, 200);
        let eggs = index.json()["data"].as_array().unwrap().clone();
        assert_eq!(eggs.len(), 1);
        eggs[0]["attributes"]["relationships"]["servers"]["data"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let listed = servers(ADMIN_KEY);
    let names: Vec<&Value> = listed.iter().map(|s| &s["attributes"]["name"]).collect();
    assert_eq!(names, [&json!("Fixture Server"), &json!("Second Server")]);
    assert_eq!(
        listed[1]["attributes"]["container"]["environment"],
        json!({"HIDDEN_TOKEN": "internal", "SERVER_JARFILE": "second.jar",
               "STARTUP": "java -jar {{SERVER_JARFILE}}",
               "P_SERVER_UUID": "00000000-0000-4000-8000-000000000401"})
    );
    assert_eq!(servers(READ_KEY), Vec::<Value>::new(), "a null resource");
    // The egg without SERVER_JARFILE, then with it again: each server's value is gone.
    let export = |key| {
        harness
            .request(
                "GET",
                "/api/application/eggs/100/export?format=json",
                Some(key),
                b"",
            )
            .json()
    };
    let file = export(ADMIN_KEY);
    let mut without = file.clone();
    without["variables"]
        .as_array_mut()
        .unwrap()
        .retain(|v| v["env_variable"] != "SERVER_JARFILE");
    for body in [&without, &file] {
        let answer = harness.request(
            "POST",
            "/api/application/eggs/import",
            Some(ADMIN_KEY),
            body.to_string().as_bytes(),
        );
        assert_eq!(
            answer.status,
            201,
            "{}",
            String::from_utf8_lossy(&answer.body)
        );
    }
    let jars: Vec<Value> = servers(ADMIN_KEY)
        .iter()
        .map(|s| s["attributes"]["container"]["environment"]["SERVER_JARFILE"].clone())
        .collect();
    assert_eq!(
        jars,
        [json!("server.jar"), json!("server.jar")],
        "custom.jar and second.jar went with the variable"
    );
}
