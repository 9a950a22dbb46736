//! A regression guard, model against model: every egg of the real corpus (`../shared/upstream`)
//! through eggcat's own model of the panels, so that the model stays right where PHP is absent.
//! Pelican imports our `pelican.yaml` / `pelican.json` by URL, its daily update check exports
//! the egg it made and compares with our file (Up-to-date, or Found update where eggcat says the
//! YAML cannot match), and after the upstream egg changes it compares with our new file (Found
//! update); `pterodactyl.json` passes Pterodactyl's import checks and converts back to
//! `pelican.json` except the losses it names. The proof against the panels' own code is
//! `differential.rs`.

mod support;

use eggcat_panels::{pelican, php, pterodactyl, variants};
use serde_json::Value;
use support::{target, with};

/// The update check's comparison: both sides parsed, `exported_at` dropped, compared as PHP
/// arrays (`md5(json_encode(...))`).
fn same_for_the_check(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = php::normalize(v);
        if let Some(m) = v.as_object_mut() {
            m.shift_remove("exported_at");
        }
        v
    };
    strip(a) == strip(b)
}

/// What the panel's daily check says for an egg imported from `file` (parsed), against
/// `published` (the file at the update URL now, parsed). `yaml`: the URL ends in .yaml.
fn check(file: &Value, published: &Value, yaml: bool) -> &'static str {
    let local = pelican::import(file).expect("the panel imported the file");
    let mut export = pelican::export(
        &local,
        "2026-02-02T00:00:00+00:00",
        eggcat_panels::Database::Sqlite,
    );
    if yaml {
        export = pelican::yaml_export(&export);
    }
    if same_for_the_check(&export, published) {
        "Up-to-date"
    } else {
        "Found update"
    }
}

fn parse_yaml(bytes: &[u8]) -> Value {
    eggcat_egg::parse(bytes, eggcat_egg::SyntaxKind::Yaml)
        .expect("our YAML parses")
        .value
}

#[test]
fn pelican_update_check_and_pterodactyl_round_trip_on_every_corpus_egg() {
    let Some(dir) = support::corpus() else {
        return;
    };
    let eggs: Vec<(String, Value)> = support::eggs(&dir)
        .into_iter()
        .map(|e| (e.rel, e.value))
        .collect();
    assert!(eggs.len() > 600, "the corpus has {} eggs", eggs.len());
    let (mut pelican_ok, mut ptero_ok, mut round_trips, mut refused) = (0, 0, 0, 0);
    for (rel, upstream) in &eggs {
        let v = with(rel, |t| variants(upstream, t));
        let (Some(yaml), Some(json), Some(ptdl)) =
            (&v.pelican_yaml, &v.pelican_json.sqlite, &v.pterodactyl_json)
        else {
            // Pelican's own import throws on this egg: no file, and the reason is given.
            assert!(
                !v.pelican.importable && !v.pelican.problems.is_empty(),
                "{rel}"
            );
            assert!(
                v.pelican_yaml.is_none() && v.pterodactyl_json.is_none(),
                "{rel}"
            );
            eprintln!("not convertible: {rel}: {}", v.pelican.problems.join("; "));
            refused += 1;
            continue;
        };
        pelican_ok += usize::from(v.pelican.importable);
        ptero_ok += usize::from(v.pterodactyl.importable);

        // Imported by URL, checked the next day: up to date, in both formats.
        let yaml_file = parse_yaml(yaml);
        let json_file: Value = serde_json::from_slice(json).unwrap();
        let yaml_found = v
            .pelican
            .losses
            .iter()
            .any(|l| l.starts_with("pelican.yaml: Pelican's update check"));
        assert_eq!(
            check(&yaml_file, &yaml_file, true),
            if yaml_found {
                "Found update"
            } else {
                "Up-to-date"
            },
            "{rel} (yaml)"
        );
        assert_eq!(
            check(&json_file, &json_file, false),
            "Up-to-date",
            "{rel} (json)"
        );
        let (_, [yaml_url, json_url, ..]) = target(rel);
        assert_eq!(yaml_file["meta"]["update_url"], yaml_url.as_str());
        assert_eq!(json_file["meta"]["update_url"], json_url.as_str());
        assert_eq!(yaml_file["uuid"], target(rel).0.as_str());

        // The upstream install script changes, eggcat rebuilds: the check finds the update.
        let mut changed = upstream.clone();
        let script = &mut changed["scripts"]["installation"]["script"];
        *script = Value::String(format!("{}\necho changed", script.as_str().unwrap_or("")));
        let v2 = with(rel, |t| variants(&changed, t));
        let new_yaml = parse_yaml(v2.pelican_yaml.as_ref().unwrap());
        let new_json: Value =
            serde_json::from_slice(v2.pelican_json.sqlite.as_ref().unwrap()).unwrap();
        assert_eq!(check(&yaml_file, &new_yaml, true), "Found update", "{rel}");
        assert_eq!(check(&json_file, &new_json, false), "Found update", "{rel}");

        // pterodactyl.json: Pterodactyl's parser takes it; Pelican converts it back to
        // pelican.json except what the losses name.
        let ptdl: Value = serde_json::from_slice(ptdl).unwrap();
        assert_eq!(ptdl["meta"]["version"], "PTDL_v2");
        assert!(
            ptdl["startup"].is_string() || !v.pterodactyl.importable,
            "{rel}"
        );
        if v.pterodactyl.importable {
            assert!(pterodactyl::problems(&ptdl, ptdl.to_string().len()).is_empty());
        }
        let back = pterodactyl::back_to_pelican(&ptdl).expect("Pelican imports pterodactyl.json");
        let mut back = pelican::export(&back, "x", eggcat_panels::Database::Sqlite);
        let mut want = pelican::export(
            &pelican::import(&json_file).unwrap(),
            "x",
            eggcat_panels::Database::Sqlite,
        );
        for v in [&mut back, &mut want] {
            v["meta"]["update_url"] = Value::Null;
        }
        let losses = v.pterodactyl.losses.join(" ");
        if losses.contains("icon") {
            want["icon"] = Value::Null;
        }
        if losses.contains("tags") {
            want["tags"] = serde_json::json!([]);
        }
        if losses.contains("`sort`") {
            for var in want["variables"].as_array_mut().unwrap() {
                var["sort"] = Value::Null;
            }
        }
        if losses.contains("empty `rules`") {
            for var in want["variables"].as_array_mut().unwrap() {
                if var["rules"] == serde_json::json!([]) {
                    var["rules"] = serde_json::json!([""]);
                }
            }
        }
        if losses.contains("startup command") {
            let chosen = ptdl["startup"].clone();
            want["startup_commands"] = serde_json::json!({ "Default": chosen });
        }
        assert!(
            same_for_the_check(&php::normalize(&back), &php::normalize(&want)),
            "{rel}: pterodactyl.json does not convert back to pelican.json\nback: {back}\nwant: {want}"
        );
        round_trips += 1;
    }
    eprintln!(
        "{} corpus eggs: Pelican importable {pelican_ok}, Pterodactyl importable {ptero_ok}, round trips {round_trips}, not convertible {refused}",
        eggs.len()
    );
    // The update check and the round trip held for every egg Pelican can import at all.
    assert_eq!(round_trips + refused, eggs.len());
    assert!(refused * 100 < eggs.len(), "{refused} eggs not convertible");
}
