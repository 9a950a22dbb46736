//! The panels' import, export and conversion (`eggcat_panels::variants`) on any egg that
//! parses: no panic, the settle loop ends (libFuzzer's `-timeout`), and every import file made
//! is one its panel's parser reads: each database's `pelican.json` and `pterodactyl.json` as
//! JSON, `pelican.yaml` as YAML (through the catalog's own parser).
//!
//! The first byte picks the syntax of the upstream egg (even: JSON, odd: YAML).
#![no_main]

use eggcat_egg::{SyntaxKind, parse};
use eggcat_panels::{Database, PerDatabase, Target, variants};
use libfuzzer_sys::fuzz_target;

const TARGET: Target<'static> = Target {
    uuid: "2a5e4f0e-6f6a-5d0b-9c43-6b1e2b4b7b1d",
    pelican_yaml_url: "https://eggs.example.org/api/v1/eggs/x/pelican.yaml",
    pelican_json_urls: PerDatabase {
        sqlite: "https://eggs.example.org/api/v1/eggs/x/pelican.json",
        mariadb: "https://eggs.example.org/api/v1/eggs/x/pelican-mariadb.json",
        postgresql: "https://eggs.example.org/api/v1/eggs/x/pelican-postgresql.json",
    },
    pterodactyl_url: "https://eggs.example.org/api/v1/eggs/x/pterodactyl.json",
    exported_at: "2026-11-23T00:00:00+00:00",
};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let syntax = if pick % 2 == 0 {
        SyntaxKind::Json
    } else {
        SyntaxKind::Yaml
    };
    let Ok(parsed) = parse(file, syntax) else {
        return;
    };
    let v = variants(&parsed.value, &TARGET);
    let mut files = vec![
        ("pterodactyl.json", &v.pterodactyl_json, SyntaxKind::Json),
        ("pelican.yaml", &v.pelican_yaml, SyntaxKind::Yaml),
    ];
    for db in Database::ALL {
        files.push((db.key(), v.pelican_json.get(db), SyntaxKind::Json));
    }
    for (name, bytes, syntax) in files {
        if let Some(bytes) = bytes
            && let Err(e) = parse(bytes, syntax)
        {
            panic!(
                "{name} does not parse: {e}\n{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
    if v.pelican.importable {
        assert!(
            Database::ALL
                .iter()
                .all(|&db| v.pelican_json.get(db).is_some())
                && v.pelican_yaml.is_some(),
            "importable without files"
        );
    }
});
