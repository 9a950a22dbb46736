//! The diff on the real eggs of `../shared/upstream` (skipped, with one line, when it is
//! absent; failed when it is absent under `EGGCAT_CORPUS=require`). Two claims: the panels'
//! own conversions of an egg (eggcat's `pelican.json` and `pterodactyl.json`, which change the
//! format and nothing else unless the panel says so) give no change beyond what the conversion
//! is known to change; and a PLCN egg and its "(Pterodactyl)" twin give the same changes read
//! in either direction (an addition one way is a removal the other), with no format-only
//! change among them.

use std::path::Path;

use eggcat_diff::{Change, Kind, diff, load};
use serde_json::Value;

fn read(path: &Path) -> Option<Value> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    load(&name, &std::fs::read(path).ok()?).ok()
}

/// Eggs whose import Pelican changes for real: a reserved variable name (renamed with a
/// `SERVER_` prefix, commands rewritten) or two variables with one `env_variable` (merged).
fn pelican_rewrites(egg: &Value) -> bool {
    let envs: Vec<String> = egg["variables"]
        .as_array()
        .map(|vs| {
            vs.iter()
                .map(|v| {
                    v["env_variable"]
                        .as_str()
                        .unwrap_or("")
                        .to_ascii_uppercase()
                })
                .collect()
        })
        .unwrap_or_default();
    let mut unique = envs.clone();
    unique.sort();
    unique.dedup();
    unique.len() != envs.len()
        || envs
            .iter()
            .any(|e| eggcat_egg::panel::is_reserved_env_name(e))
}

const TARGET: eggcat_panels::Target<'static> = eggcat_panels::Target {
    uuid: "8b2a1f0e-4c1d-4f7a-9a55-0d6c1e2b3a4f",
    pelican_yaml_url: "https://eggs.example/pelican.yaml",
    pelican_json_urls: eggcat_panels::PerDatabase {
        sqlite: "https://eggs.example/pelican.json",
        mariadb: "https://eggs.example/pelican-mariadb.json",
        postgresql: "https://eggs.example/pelican-postgresql.json",
    },
    pterodactyl_url: "https://eggs.example/pterodactyl.json",
    exported_at: "2026-01-01T00:00:00+00:00",
};

#[test]
fn the_panels_conversions_change_only_what_they_are_known_to_change() {
    let Some(dir) = eggcat_testkit::pelican_eggs() else {
        return;
    };
    let files = eggcat_testkit::egg_files(&dir);
    let (mut checked, mut unexpected) = (0, Vec::new());
    for path in &files {
        let Some(upstream) = read(path) else { continue };
        if pelican_rewrites(&upstream) {
            continue;
        }
        let v = eggcat_panels::variants(&upstream, &TARGET);
        let (Some(json), Some(ptdl)) = (&v.pelican_json.sqlite, &v.pterodactyl_json) else {
            continue;
        };
        checked += 1;
        let json = load("pelican.json", json).expect("eggcat's pelican.json is an egg");
        let ptdl = load("pterodactyl.json", ptdl).expect("eggcat's pterodactyl.json is an egg");
        // The target gives a new uuid and update URL; Pelican keeps an icon only in the types
        // it stores; PTDL has no icon, no tags, and one startup command (the others are losses
        // the conversion names).
        let known = |c: &Change, ptdl: bool| match c.kind {
            Kind::UuidChanged | Kind::UpdateUrlChanged | Kind::IconChanged => true,
            Kind::TagRemoved => ptdl,
            Kind::StartupRemoved => {
                ptdl && v
                    .pterodactyl
                    .losses
                    .iter()
                    .any(|l| l.contains(&format!("`{}`", c.path[1])))
            }
            _ => false,
        };
        for (to, other, is_ptdl) in [
            ("pelican.json", &json, false),
            ("pterodactyl.json", &ptdl, true),
        ] {
            for c in diff(&upstream, other) {
                if !known(&c, is_ptdl) {
                    unexpected.push(format!("{} -> {to}: {}", path.display(), c.text));
                }
            }
        }
    }
    eprintln!("{checked} eggs converted to pelican.json and pterodactyl.json and diffed");
    assert!(checked > 500, "only {checked} eggs checked");
    assert!(unexpected.is_empty(), "{:#?}", unexpected);
}

#[test]
fn an_egg_and_its_pterodactyl_twin_differ_the_same_both_ways() {
    let Some(dir) = eggcat_testkit::pelican_eggs() else {
        return;
    };
    let files = eggcat_testkit::egg_files(&dir);
    let mut pairs = 0;
    let mut problems = Vec::new();
    for twin in files.iter().filter(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("egg-pterodactyl-"))
    }) {
        let name = twin
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        let stem = name["egg-pterodactyl-".len()..]
            .rsplit_once('.')
            .expect("an extension")
            .0;
        let folder = twin.parent().expect("a folder");
        let Some(egg) = ["json", "yaml", "yml"]
            .iter()
            .map(|x| folder.join(format!("egg-{stem}.{x}")))
            .find(|p| p.is_file())
        else {
            continue;
        };
        let (Some(a), Some(b)) = (read(&egg), read(twin)) else {
            continue;
        };
        pairs += 1;
        let (forth, back) = (diff(&a, &b), diff(&b, &a));
        let mut mirrored: Vec<Kind> = forth.iter().map(|c| mirror(c.kind)).collect();
        let mut kinds: Vec<Kind> = back.iter().map(|c| c.kind).collect();
        mirrored.sort();
        kinds.sort();
        if mirrored != kinds {
            problems.push(format!(
                "{}: {mirrored:?} one way, {kinds:?} the other",
                egg.display()
            ));
        }
        // Format-only differences between the two files (PTDL's single `startup`, `config` as
        // JSON text, rules as text, CRLF, old placeholder names) must not show up.
        for c in &forth {
            let format_only = match c.kind {
                Kind::StartupRenamed => true,
                Kind::ConfigKeyChanged | Kind::ConfigFileChanged => c.old == c.new,
                _ => c.old.is_some() && c.old == c.new,
            };
            if format_only {
                problems.push(format!(
                    "{}: format-only change reported: {}",
                    egg.display(),
                    c.text
                ));
            }
        }
    }
    eprintln!("{pairs} eggs diffed with their Pterodactyl twins");
    assert!(pairs > 200, "only {pairs} twin pairs found");
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The kind a change has when the two eggs are swapped.
fn mirror(kind: Kind) -> Kind {
    use Kind::*;
    let pairs = [
        (TagAdded, TagRemoved),
        (ImageAdded, ImageRemoved),
        (StartupAdded, StartupRemoved),
        (ConfigFileAdded, ConfigFileRemoved),
        (ConfigKeyAdded, ConfigKeyRemoved),
        (FeatureAdded, FeatureRemoved),
        (DenylistAdded, DenylistRemoved),
        (VariableAdded, VariableRemoved),
    ];
    pairs
        .iter()
        .find_map(|&(a, r)| {
            if kind == a {
                Some(r)
            } else if kind == r {
                Some(a)
            } else {
                None
            }
        })
        .unwrap_or(kind)
}
