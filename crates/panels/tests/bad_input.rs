//! Each reason Pelican's import throws gives no import file and a precise problem; eggs the
//! panels accept with changes (reserved variable names) convert with those changes.

use eggcat_panels::{Target, Variants, variants};
use serde_json::{Value, json};

fn egg() -> Value {
    json!({
        "meta": {"version": "PTDL_v2", "update_url": null},
        "name": "Test",
        "author": "dev@example.org",
        "description": "d",
        "docker_images": {"Java": "ghcr.io/x/y:java"},
        "startup": "java -jar {{JAR}} --tz {{TZ}}",
        "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "logs": "{}", "stop": "stop"},
        "scripts": {"installation": {"script": "#!/bin/bash\necho", "container": "alpine", "entrypoint": "bash"}},
        "variables": [
            {"name": "Jar", "description": "", "env_variable": "JAR", "default_value": "server.jar",
             "user_viewable": true, "user_editable": true, "rules": "required|string", "field_type": "text"}
        ]
    })
}

fn run(v: &Value) -> Variants {
    variants(
        v,
        &Target {
            uuid: "11111111-2222-5333-8444-555555555555",
            pelican_yaml_url: "https://e.example/a/pelican.yaml",
            pelican_json_urls: eggcat_panels::PerDatabase {
                sqlite: "https://e.example/a/pelican.json",
                mariadb: "https://e.example/a/pelican-mariadb.json",
                postgresql: "https://e.example/a/pelican-postgresql.json",
            },
            pterodactyl_url: "https://e.example/a/pterodactyl.json",
            exported_at: "2026-01-01T00:00:00+00:00",
        },
    )
}

fn refused(v: &Value, reason: &str) {
    let out = run(v);
    assert!(
        out.pelican_yaml.is_none()
            && out.pelican_json.iter().all(|(_, j)| j.is_none())
            && out.pterodactyl_json.is_none()
    );
    assert!(!out.pelican.importable && !out.pterodactyl.importable);
    let said = out.pelican.problems.join(" ");
    assert!(said.contains(reason), "{said:?} should say {reason:?}");
}

#[test]
fn a_good_egg_converts_for_both_panels() {
    let out = run(&egg());
    assert!(out.pelican.importable, "{:?}", out.pelican.problems);
    assert!(out.pterodactyl.importable, "{:?}", out.pterodactyl.problems);
    let yaml = String::from_utf8(out.pelican_yaml.unwrap()).unwrap();
    assert!(yaml.contains("version: PLCN_v3"), "{yaml}");
    assert!(
        yaml.contains("update_url: \"https://e.example/a/pelican.yaml\""),
        "{yaml}"
    );
    let ptdl: Value = serde_json::from_slice(&out.pterodactyl_json.unwrap()).unwrap();
    assert_eq!(ptdl["variables"][0]["rules"], "required|string");
    assert_eq!(ptdl["uuid"], "11111111-2222-5333-8444-555555555555");
}

#[test]
fn each_reason_the_import_throws() {
    let mut e = egg();
    e["meta"]["version"] = json!("EGG_v9");
    refused(&e, "does not recognize the format `EGG_v9`");
    let mut e = egg();
    e.as_object_mut().unwrap().remove("startup");
    refused(&e, "no `startup` command");
    let mut e = egg();
    e.as_object_mut().unwrap().remove("variables");
    refused(&e, "no `variables` list");
    let mut e = egg();
    e["variables"] = json!({"a": 1});
    refused(&e, "`variables` is not a list");
    let mut e = egg();
    e["variables"][0]
        .as_object_mut()
        .unwrap()
        .remove("env_variable");
    refused(&e, "variable 0 has no `env_variable`");
    let mut e = egg();
    e["variables"][0].as_object_mut().unwrap().remove("rules");
    refused(&e, "variable 0 has no `rules`");
    let mut e = egg();
    e["variables"][0]["description"] = Value::Null;
    refused(&e, "variable 0 has no `description`");
    let mut e = egg();
    e["variables"][0]["colour"] = json!("red");
    refused(&e, "the field `colour`");
    let mut e = egg();
    let mut twin = e["variables"][0].clone();
    twin["env_variable"] = json!("OTHER");
    e["variables"].as_array_mut().unwrap().push(twin);
    refused(&e, "two variables are named \"Jar\"");
    let mut e = egg();
    e.as_object_mut().unwrap().remove("author");
    refused(&e, "no `author`");
    refused(&json!(["not", "an", "egg"]), "not a map of fields");
}

#[test]
fn rule_breakers_are_published_but_not_importable() {
    let mut e = egg();
    e["author"] = json!("Parker");
    e["docker_images"] = json!({});
    let out = run(&e);
    assert!(out.pelican_yaml.is_some() && out.pterodactyl_json.is_some());
    assert!(!out.pelican.importable && !out.pterodactyl.importable);
    for check in [&out.pelican, &out.pterodactyl] {
        let said = check.problems.join("; ");
        assert!(
            said.contains("the author `Parker` is not an email address"),
            "{said}"
        );
        assert!(said.contains("no docker image"), "{said}");
    }
}

#[test]
fn reserved_names_are_renamed_as_pelican_does() {
    let mut e = egg();
    let mut tz = e["variables"][0].clone();
    tz["name"] = json!("Time zone");
    tz["env_variable"] = json!("tz");
    e["variables"].as_array_mut().unwrap().push(tz);
    let out = run(&e);
    let json: Value = serde_json::from_slice(&out.pelican_json.sqlite.unwrap()).unwrap();
    assert_eq!(json["variables"][1]["env_variable"], "SERVER_TZ");
    assert_eq!(
        json["startup_commands"]["Default"],
        "java -jar {{JAR}} --tz {{SERVER_TZ}}"
    );
    assert!(out.pelican.importable, "{:?}", out.pelican.problems);
}

#[test]
fn plcn_only_parts_are_named_as_losses_for_pterodactyl() {
    let mut e = egg();
    e["meta"]["version"] = json!("PLCN_v3");
    e.as_object_mut().unwrap().remove("startup");
    e["startup_commands"] =
        json!({"Default": "java -jar a.jar", "Low memory": "java -Xmx1G -jar a.jar"});
    e["tags"] = json!(["minecraft"]);
    e["variables"][0]["rules"] = json!(["required", "string"]);
    let out = run(&e);
    let ptdl: Value = serde_json::from_slice(&out.pterodactyl_json.unwrap()).unwrap();
    assert_eq!(ptdl["startup"], "java -jar a.jar");
    let losses = out.pterodactyl.losses.join("; ");
    assert!(losses.contains("`Low memory`"), "{losses}");
    assert!(losses.contains("tags"), "{losses}");
    assert!(out.pterodactyl.importable, "{:?}", out.pterodactyl.problems);
}
