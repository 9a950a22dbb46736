//! One case per mismatch the differential test (`differential.rs`, the panels' own PHP) found
//! in eggcat's model, so that the model stays right where PHP is absent. Each test is named
//! after what the panel really does.

use eggcat_panels::{Target, Variants, variants};
use serde_json::{Value, json};

const TARGET: Target<'static> = Target {
    uuid: "8b2a1f0e-4c1d-4f7a-9a55-0d6c1e2b3a4f",
    pelican_yaml_url: "https://eggs.example/api/v1/eggs/x/pelican.yaml",
    pelican_json_urls: eggcat_panels::PerDatabase {
        sqlite: "https://eggs.example/api/v1/eggs/x/pelican.json",
        mariadb: "https://eggs.example/api/v1/eggs/x/pelican-mariadb.json",
        postgresql: "https://eggs.example/api/v1/eggs/x/pelican-postgresql.json",
    },
    pterodactyl_url: "https://eggs.example/api/v1/eggs/x/pterodactyl.json",
    exported_at: "2026-01-01T00:00:00+00:00",
};

/// A PTDL_v2 egg with these variables.
fn egg(variables: Value) -> Value {
    json!({
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": "Bot",
        "author": "a@example.org",
        "description": "A bot.",
        "features": null,
        "docker_images": {"Node": "ghcr.io/parkervcp/yolks:nodejs_20"},
        "file_denylist": [],
        "startup": "node {{HOSTNAME}} {{MAX}}",
        "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "logs": "{}", "stop": "^C"},
        "scripts": {"installation": {"script": "echo hi", "container": "alpine", "entrypoint": "ash"}},
        "variables": variables,
    })
}

fn var(env: &str, name: &str, default: Value, rules: &str) -> Value {
    json!({"name": name, "description": "", "env_variable": env, "default_value": default,
           "user_viewable": true, "user_editable": true, "rules": rules, "field_type": "text"})
}

fn files(upstream: &Value) -> (Variants, Value, Value, Value) {
    let v = variants(upstream, &TARGET);
    let yaml = eggcat_egg::parse(
        v.pelican_yaml.as_ref().unwrap(),
        eggcat_egg::SyntaxKind::Yaml,
    )
    .unwrap()
    .value;
    let json: Value = serde_json::from_slice(v.pelican_json.sqlite.as_ref().unwrap()).unwrap();
    let ptdl: Value = serde_json::from_slice(v.pterodactyl_json.as_ref().unwrap()).unwrap();
    (v, yaml, json, ptdl)
}

/// pelican-eggs/chatbots aoede `SPOTIFY_BOT_AUTOPLAY`: Pelican's `parse` words a boolean
/// default `'true'`/`'false'` whatever else it renames; eggcat wrote `""` and `1`.
#[test]
fn a_boolean_default_is_stored_as_the_word_pelican_gives_it() {
    let upstream = egg(json!([
        var(
            "AUTOPLAY",
            "Autoplay",
            json!(false),
            "required|string|in:true,false"
        ),
        var("LOOP", "Loop", json!(true), "required|string|in:true,false"),
    ]));
    let (_, yaml, json, ptdl) = files(&upstream);
    // The YAML holds the boolean Pelican's own export writes; the JSON and PTDL files the word.
    assert_eq!(yaml["variables"][0]["default_value"], json!(false));
    assert_eq!(yaml["variables"][1]["default_value"], json!(true));
    assert_eq!(json["variables"][0]["default_value"], "false");
    assert_eq!(json["variables"][1]["default_value"], "true");
    assert_eq!(ptdl["variables"][0]["default_value"], "false");
}

/// Pelican validates `default_value` as `string` on save, and its YAML export writes `"100"` as
/// the number 100: Pelican refuses its own YAML export. eggcat's YAML keeps the text, and says
/// that the update check on the YAML file cannot agree.
#[test]
fn a_number_like_default_stays_text_in_the_yaml_and_the_loss_is_named() {
    let upstream = egg(json!([var("MAX", "Max", json!("100"), "required|integer")]));
    let (v, yaml, json, _) = files(&upstream);
    assert_eq!(yaml["variables"][0]["default_value"], "100");
    assert_eq!(json["variables"][0]["default_value"], "100");
    let text = String::from_utf8(v.pelican_yaml.unwrap()).unwrap();
    assert!(text.contains("default_value: \"100\""), "{text}");
    assert!(
        v.pelican.losses.iter().any(|l| l.starts_with(
            "pelican.yaml: Pelican's update check can never find this file up to date"
        ) && l.contains("`MAX` `100`")),
        "{:?}",
        v.pelican.losses
    );
    // A default Pelican's YAML export leaves as text needs no such note.
    let plain = egg(json!([var("MAX", "Max", json!("many"), "required|string")]));
    assert!(variants(&plain, &TARGET).pelican.losses.is_empty());
}

/// `$egg->variables` has no `orderBy`: on SQLite the planner reads the (egg_id, name) unique
/// index, so Pelican exports variables by name; `sort` is the table's last column there.
#[test]
fn pelican_exports_variables_by_name_with_sort_last() {
    let upstream = egg(json!([
        var("ZED", "zeta", json!("1"), "string"),
        var("MAX", "Max players", json!("2"), "string"),
        var("ALPHA", "Port", json!("3"), "string"),
    ]));
    let (_, yaml, json, ptdl) = files(&upstream);
    for file in [&yaml, &json] {
        let names: Vec<&str> = file["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        // Byte order: upper case before lower case.
        assert_eq!(names, ["Max players", "Port", "zeta"]);
        let keys: Vec<&String> = file["variables"][0].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "name",
                "description",
                "env_variable",
                "default_value",
                "user_viewable",
                "user_editable",
                "rules",
                "sort"
            ]
        );
    }
    // Pterodactyl lists variables in the order it created them: the file's.
    assert_eq!(ptdl["variables"][0]["env_variable"], "ZED");
}

/// Pelican renames `HOSTNAME` (reserved there) to `SERVER_HOSTNAME`; Pterodactyl reserves other
/// names and renames none, so `pterodactyl.json` keeps the upstream's names and startup.
#[test]
fn pterodactyl_keeps_the_names_pelican_renames() {
    let upstream = egg(json!([
        var("HOSTNAME", "Host name", json!("x"), "string"),
        var("MAX", "Max", json!("2"), "string"),
    ]));
    let (v, _, json, ptdl) = files(&upstream);
    let envs = |f: &Value| -> Vec<String> {
        let mut e: Vec<String> = f["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["env_variable"].as_str().unwrap().to_owned())
            .collect();
        e.sort();
        e
    };
    assert_eq!(envs(&json), ["MAX", "SERVER_HOSTNAME"]);
    assert_eq!(
        json["startup_commands"]["Default"],
        "node {{SERVER_HOSTNAME}} {{MAX}}"
    );
    assert_eq!(envs(&ptdl), ["HOSTNAME", "MAX"]);
    assert_eq!(ptdl["startup"], "node {{HOSTNAME}} {{MAX}}");
    assert!(v.pterodactyl.importable, "{:?}", v.pterodactyl.problems);
}

/// Both import files go through Pelican's import, which keeps one variable per env_variable
/// (`updateOrCreate`); Pterodactyl would create both, so the merge is a named loss.
#[test]
fn a_second_variable_with_the_same_env_name_is_a_named_loss() {
    let upstream = egg(json!([
        var("WINDOWS_INSTALL", "Windows", json!("0"), "boolean"),
        var(
            "WINDOWS_INSTALL",
            "Windows install",
            json!("1"),
            "required|string|in:1"
        ),
    ]));
    let (v, _, _, ptdl) = files(&upstream);
    assert_eq!(ptdl["variables"].as_array().unwrap().len(), 1);
    assert!(
        v.pterodactyl
            .losses
            .iter()
            .any(|l| l.starts_with("the second variable `WINDOWS_INSTALL` (merged")),
        "{:?}",
        v.pterodactyl.losses
    );
}

/// Found by the fuzz target `panels`: a docker image name of 20,000 characters. Pelican's YAML
/// export (Symfony's dumper) writes it as a plain mapping key, and Pelican's parser reads it
/// back; eggcat's YAML parser stopped such a key at YAML's 1,024 characters and refused the
/// `pelican.yaml` eggcat had written exactly as Pelican would.
#[test]
fn a_docker_image_name_longer_than_yaml_keys_usually_are_reads_back() {
    let image = format!("ghcr.io/example/{}", "a".repeat(20_000));
    let mut upstream = egg(json!([]));
    upstream["docker_images"] = json!({ &image: "ghcr.io/example/yolks:java_21" });
    let (_, yaml, json, _) = files(&upstream);
    assert_eq!(
        yaml["docker_images"][&image],
        "ghcr.io/example/yolks:java_21"
    );
    assert_eq!(
        json["docker_images"][&image],
        "ghcr.io/example/yolks:java_21"
    );
}

/// Every input the fuzz target `panels` (fuzz/fuzz_targets/panels.rs) found failing, in the
/// target's own shape (first byte even: a JSON egg, odd: YAML; the rest is the file), kept in
/// tests/fuzz/panels/ and named after its bug: every import file made reads back with eggcat's
/// parsers.
#[test]
fn fuzz_inputs_give_import_files_that_read_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/panels");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz/panels is committed") {
        let path = entry.expect("a readable entry").path();
        let data = std::fs::read(&path).expect("a readable file");
        let Some((&pick, file)) = data.split_first() else {
            continue;
        };
        let syntax =
            [eggcat_egg::SyntaxKind::Json, eggcat_egg::SyntaxKind::Yaml][usize::from(pick % 2)];
        let upstream = eggcat_egg::parse(file, syntax)
            .expect("the input parses")
            .value;
        let v = variants(&upstream, &TARGET);
        let made = [
            (&v.pelican_json.sqlite, eggcat_egg::SyntaxKind::Json),
            (&v.pterodactyl_json, eggcat_egg::SyntaxKind::Json),
            (&v.pelican_yaml, eggcat_egg::SyntaxKind::Yaml),
        ];
        for (bytes, syntax) in made {
            if let Some(bytes) = bytes
                && let Err(e) = eggcat_egg::parse(bytes, syntax)
            {
                panic!("{}: an import file does not read back: {e}", path.display());
            }
        }
        seen += 1;
    }
    assert!(seen >= 1, "the inputs are missing from {}", dir.display());
}

/// PostgreSQL exports in SQLite's order, so with SQLite's URL (as the catalog gives it) its file
/// is SQLite's, byte for byte; at a URL of its own it differs only in `meta.update_url`.
#[test]
fn postgresql_shares_sqlites_file() {
    let upstream = egg(json!([
        var("MAX", "Max", json!("10"), "required|string"),
        var("HOSTNAME", "Host name", json!("x"), "required|string"),
    ]));
    let shared = Target {
        pelican_json_urls: eggcat_panels::PerDatabase {
            postgresql: TARGET.pelican_json_urls.sqlite,
            ..TARGET.pelican_json_urls
        },
        ..TARGET
    };
    let v = variants(&upstream, &shared);
    assert!(v.pelican_json.sqlite.is_some());
    assert_eq!(v.pelican_json.postgresql, v.pelican_json.sqlite);
    assert_ne!(v.pelican_json.mariadb, v.pelican_json.sqlite);
    let own = variants(&upstream, &TARGET);
    let text = |b: &Option<Vec<u8>>| String::from_utf8(b.clone().unwrap()).unwrap();
    assert_eq!(
        text(&own.pelican_json.postgresql).replace("pelican-postgresql.json", "pelican.json"),
        text(&own.pelican_json.sqlite)
    );
}
