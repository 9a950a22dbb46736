//! The panels' import files for one egg: `pelican.yaml` and `pelican.json` (PLCN_v3, exactly as
//! Pelican's exporter writes the egg after importing the upstream file) and `pterodactyl.json`
//! (PTDL_v2, as Pterodactyl's exporter writes it), each checked against the panel's own import
//! rules; and the stable UUIDs the catalog gives eggs.
//!
//! No IO. [`variants`] is a pure function of the upstream egg and the [`Target`]. The panels'
//! steps live in [`pelican`] (import, export, `yamlExport`) and [`pterodactyl`]; [`php`] holds
//! the PHP behaviours they rely on; [`yaml`] writes YAML that Symfony reads back exactly.
//! docs/panels.md lists every conversion rule with its source in the panels' code.

mod checks;
mod database;
mod error;
mod icon;
pub mod merge;
pub mod pelican;
pub mod php;
pub mod pterodactyl;
pub mod pterodactyl_api;
pub mod standing;
mod uuid;
pub mod yaml;

use eggcat_egg::panel::{PELICAN_MAX, chars};
use serde_json::Value;

pub use database::{Database, ExportOrder, PerDatabase, unicode_ci_cmp};
pub use eggcat_egg::panel::{is_email, is_uuid};
pub use error::ImportError;
pub use uuid::stable_uuid;

/// Where the variants will be published and what identity they carry (chosen by the catalog).
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The stable UUID every variant carries.
    pub uuid: &'a str,
    /// Absolute URL of `pelican.yaml` (its `meta.update_url`).
    pub pelican_yaml_url: &'a str,
    /// Absolute URL of each database's `pelican.json` (its `meta.update_url`).
    pub pelican_json_urls: PerDatabase<&'a str>,
    /// Absolute URL of `pterodactyl.json` (its `meta.update_url`).
    pub pterodactyl_url: &'a str,
    /// The `exported_at` the files carry (the panels' update check ignores it).
    pub exported_at: &'a str,
}

/// The import files of one egg and the panels' verdicts on them.
#[derive(Debug, Clone, Default)]
pub struct Variants {
    /// `pelican.yaml` (in SQLite's order), or `None` when Pelican cannot import the egg at all.
    pub pelican_yaml: Option<Vec<u8>>,
    /// Each database's `pelican.json`, or `None` likewise.
    pub pelican_json: PerDatabase<Option<Vec<u8>>>,
    /// Whether Pelican's update check can find `pelican.yaml` up to date: false where its YAML
    /// export writes a text of the egg as a number, which its own import refuses, so the file
    /// keeps the text (`pelican.losses` names the first such value).
    pub yaml_up_to_date: bool,
    /// `pterodactyl.json`, or `None` when there is no Pelican egg to convert from.
    pub pterodactyl_json: Option<Vec<u8>>,
    /// Pelican's verdict.
    pub pelican: Check,
    /// Pterodactyl's verdict.
    pub pterodactyl: Check,
}

/// One panel's verdict on its import file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Check {
    /// Whether the panel's import rules accept the file.
    pub importable: bool,
    /// Why the panel would refuse it, one sentence each.
    pub problems: Vec<String>,
    /// What the conversion could not carry (empty when nothing is lost).
    pub losses: Vec<String>,
}

/// Imports beyond which an egg whose export does not settle is given up (never reached on the
/// real corpus: the second import gives the first's export back).
const MAX_ROUNDS: usize = 4;

/// The import files of `upstream` (the egg as parsed from its upstream file).
pub fn variants(upstream: &Value, target: &Target<'_>) -> Variants {
    let egg = match pelican::import(upstream) {
        Ok(egg) => egg,
        Err(reason) => {
            let refused = |panel: &str| Check {
                importable: false,
                problems: vec![format!("{panel} cannot import this egg: {reason}")],
                losses: Vec::new(),
            };
            return Variants {
                pelican: refused("Pelican"),
                pterodactyl: refused("eggcat cannot convert it, as Pelican"),
                ..Variants::default()
            };
        }
    };
    let mut egg = egg;
    egg.uuid = Value::String(target.uuid.to_owned());
    let Settled {
        yaml,
        json,
        yaml_text_kept,
    } = settled(&egg, target);
    let mut pelican = Check {
        problems: pelican_problems(&egg),
        ..Check::default()
    };
    let yaml_up_to_date = yaml_text_kept.is_empty();
    if let Some(first) = yaml_text_kept.first() {
        let more = match yaml_text_kept.len() {
            1 => String::new(),
            2 => " and 1 more".to_owned(),
            n => format!(" and {} more", n - 1),
        };
        pelican.losses.push(format!(
            "pelican.yaml: Pelican's update check can never find this file up to date: Pelican's YAML export writes {first}{more} as a number, which its own import refuses, so the file keeps the text; pelican.json has no such limit"
        ));
    }
    let unsettled = [
        ("YAML", yaml.is_none()),
        ("JSON", json.iter().any(|(_, j)| j.is_none())),
    ];
    for (format, unsettled) in unsettled {
        if unsettled {
            pelican.problems.push(format!(
                "Pelican's export of this egg changes each time it is imported again, so its update check would never say up to date ({format})"
            ));
        }
    }
    pelican.importable = pelican.problems.is_empty();

    // Pterodactyl gets the upstream's variable names (it reserves other names, renames none);
    // the two imports differ in nothing else, so the fallback is never the rule.
    let mut for_ptero = pelican::import_keeping_names(upstream).unwrap_or_else(|_| egg.clone());
    for_ptero.uuid = egg.uuid.clone();
    let (ptdl, mut losses) =
        pterodactyl::export(&for_ptero, target.pterodactyl_url, target.exported_at);
    losses.extend(merged_variables(upstream));
    let ptdl_text = pretty(&ptdl);
    let mut ptero_problems = pterodactyl::problems(&ptdl, ptdl_text.len());
    ptero_problems.sort();
    ptero_problems.dedup();
    Variants {
        pelican_yaml: yaml.map(|v| yaml::dump(&v).into_bytes()),
        pelican_json: json.map(|_, v| v.map(|v| pretty(&v).into_bytes())),
        yaml_up_to_date,
        pterodactyl: Check {
            importable: ptero_problems.is_empty(),
            problems: ptero_problems,
            losses,
        },
        pterodactyl_json: Some(ptdl_text.into_bytes()),
        pelican,
    }
}

/// The values of `pelican.yaml` and each database's `pelican.json` for `egg` (imported, with
/// the target's UUID): what the files hold once parsed, `None` where no file settles. The YAML
/// (SQLite's order) keeps as text what Pelican validates as text (see
/// [`pelican::keep_validated_text`]).
fn settled(egg: &pelican::Egg, target: &Target<'_>) -> Settled {
    let yaml_shape = |export: &Value| {
        let mut file = pelican::yaml_export(export);
        pelican::keep_validated_text(export, &mut file);
        file
    };
    let yaml = settle(
        egg,
        target.pelican_yaml_url,
        target.exported_at,
        Database::Sqlite,
        yaml_shape,
    );
    let mut json = PerDatabase::<Option<Value>>::default();
    for db in Database::ALL {
        let (url, own) = (target.pelican_json_urls.get(db), db.own_file());
        let file = if own != db && target.pelican_json_urls.get(own) == url {
            // The file of the database it shares (PostgreSQL: SQLite's order, at SQLite's URL),
            // settled already: `Database::ALL` lists the owner first.
            json.get(own).clone()
        } else {
            settle(egg, url, target.exported_at, db, Value::clone).map(|(_, file)| file)
        };
        *json.get_mut(db) = file;
    }
    let yaml_text_kept = yaml.as_ref().map_or_else(Vec::new, |(export, _)| {
        pelican::keep_validated_text(export, &mut pelican::yaml_export(export))
    });
    Settled {
        yaml: yaml.map(|(_, file)| file),
        json,
        yaml_text_kept,
    }
}

/// The settled import files of one egg.
struct Settled {
    yaml: Option<Value>,
    json: PerDatabase<Option<Value>>,
    /// The texts the YAML keeps that Pelican's own YAML export writes as numbers (so its
    /// update check cannot find the YAML file up to date).
    yaml_text_kept: Vec<String>,
}

/// The file Pelican's update check finds equal to the panel's own export of the egg it made
/// from that file: the export, imported and exported again until it no longer changes (the
/// panel's YAML export turns JSON text into data, which a second import keeps). `shape` is the
/// format's step after the struct (`yamlExport` for YAML, nothing for JSON); `db` the panel's
/// database. Returns the exporter's struct and the file made of it.
fn settle(
    egg: &pelican::Egg,
    url: &str,
    exported_at: &str,
    db: Database,
    shape: impl Fn(&Value) -> Value,
) -> Option<(Value, Value)> {
    let mut egg = egg.clone();
    egg.update_url = Value::String(url.to_owned());
    let mut export = pelican::export(&egg, exported_at, db);
    let mut file = shape(&export);
    for _ in 0..MAX_ROUNDS {
        let again = pelican::import(&file).ok()?;
        let next_export = pelican::export(&again, exported_at, db);
        let next = shape(&next_export);
        if php::normalize(&next) == php::normalize(&file) {
            return Some((export, file));
        }
        (export, file) = (next_export, next);
    }
    None
}

/// The variables a second one of the same `env_variable` was merged into: Pelican's import,
/// which both import files are made through, updates the first (`updateOrCreate`), where
/// Pterodactyl's would create both.
fn merged_variables(upstream: &Value) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut losses = Vec::new();
    for v in upstream["variables"].as_array().into_iter().flatten() {
        if let Some(env) = v["env_variable"].as_str()
            && !seen.insert(env)
        {
            losses.push(format!(
                "the second variable `{env}` (merged into the first, as Pelican's import does; Pterodactyl would keep both)"
            ));
        }
    }
    losses
}

/// JSON as the panels print it: `JSON_PRETTY_PRINT` (four spaces), slashes unescaped.
pub fn pretty(v: &Value) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(v, &mut ser).expect("a JSON value serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Why Pelican's validation would refuse `egg` (`Egg::$validationRules`,
/// `EggVariable::getRules`).
fn pelican_problems(egg: &pelican::Egg) -> Vec<String> {
    let mut p = Vec::new();
    checks::text(&mut p, "the name", &egg.name, PELICAN_MAX);
    checks::author(&mut p, &egg.author);
    match checks::values(&egg.docker_images) {
        Some(images) if !images.is_empty() => {
            if images.iter().any(|i| i.as_str().is_none_or(str::is_empty)) {
                p.push("a docker image is empty or not text".to_owned());
            }
        }
        _ => p.push("the egg has no docker image".to_owned()),
    }
    match checks::values(&egg.startup_commands) {
        Some(cmds) if !cmds.is_empty() => {
            if cmds.iter().any(|c| c.as_str().is_none_or(str::is_empty)) {
                p.push("a startup command is empty or not text".to_owned());
            }
            let mut seen: Vec<&&Value> = cmds.iter().collect();
            seen.sort_by_key(|v| v.to_string());
            if seen.windows(2).any(|w| w[0] == w[1]) {
                p.push(
                    "two startup commands are the same (Pelican wants them distinct)".to_owned(),
                );
            }
        }
        _ => p.push("the egg has no startup command".to_owned()),
    }
    checks::text(
        &mut p,
        "the stop command (`config.stop`)",
        &egg.config_stop,
        PELICAN_MAX,
    );
    for v in &egg.variables {
        let env = v["env_variable"].as_str().unwrap_or("");
        checks::text(
            &mut p,
            &format!("the name of variable `{env}`"),
            &v["name"],
            PELICAN_MAX,
        );
        if !eggcat_egg::panel::is_alpha_dash(env) || chars(env) > PELICAN_MAX {
            p.push(format!(
                "the env variable `{env}` is not 1 to {PELICAN_MAX} letters, digits, `_` or `-`"
            ));
        }
        if eggcat_egg::panel::is_reserved_env_name(env) {
            p.push(format!("the env variable `{env}` is reserved by Pelican"));
        }
        if checks::values(&v["rules"]).is_some_and(|r| r.iter().any(|x| !x.is_string())) {
            p.push(format!("a rule of variable `{env}` is not text"));
        }
    }
    p.sort();
    p.dedup();
    p
}

/// What Pelican's update check (`CheckEggUpdatesCommand::check`) compares an egg imported from
/// `file` with, when the egg's update URL answers with `file` itself: the panel's own export of
/// the egg (on SQLite, its default database), parsed back, without `exported_at`, in the shape
/// `json_encode` sees (PHP arrays: a list-like map is a list). `yaml` is whether the update URL
/// ends in `.yaml`/`.yml` (the check picks the format from it). `None` when Pelican refuses to
/// import the file: its import throws, or the egg it would store breaks the models' validation
/// on save (a number as a default value, an author that is no email address, ...).
///
/// The check says "Up-to-date" exactly when this equals [`update_check_shape`] of the file,
/// keys and lists in order; `eggcat validate` names why it does not (codes `E080`-`E089`),
/// and the differential test holds both against the panel's own check.
pub fn own_export(file: &Value, yaml: bool) -> Option<Value> {
    let egg = pelican::import(file).ok()?;
    if !pelican_problems(&egg).is_empty() || numbers_as_text(file) {
        return None;
    }
    let export = pelican::export(&egg, "", Database::Sqlite);
    let shaped = if yaml {
        pelican::yaml_export(&export)
    } else {
        export
    };
    Some(update_check_shape(&shaped))
}

/// Whether a variable of `file` has a number where Pelican's models validate text
/// (`default_value`, `name`, `description`: `string`, checked on save): the import stores what
/// [`pelican::import`] reads as text, but the save refuses it (`parse` turns only booleans into
/// text). Pelican's own YAML export writes such numbers (docs/panels.md).
fn numbers_as_text(file: &Value) -> bool {
    file["variables"].as_array().into_iter().flatten().any(|v| {
        ["default_value", "name", "description"]
            .iter()
            .any(|k| v.get(k).is_some_and(Value::is_number))
    })
}

/// The hash Pelican's update check (`CheckEggUpdatesCommand::check`) computes for an egg whose
/// export is the JSON `file`: `md5(json_encode(json_decode(file, true) without exported_at))`,
/// lowercase hex. An unedited egg imported from one of eggcat's `pelican*.json` files exports
/// that file again (in its database's order), so this hash of the file is the panel's
/// `$localHash` for the egg: equal hashes, same version. `None` when `file` is not JSON.
pub fn update_check_md5(file: &[u8]) -> Option<String> {
    use md5::Digest;
    let text = std::str::from_utf8(file).ok()?;
    let value = php::json_decode(text)?;
    let encoded = php::json_encode(&update_check_shape(&value));
    let digest = md5::Md5::digest(encoded.as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// `file` as the update check hashes it: without `exported_at`, as `json_encode` sees a PHP
/// array (a map whose keys are 0, 1, ... is a list, so an empty map is an empty list).
pub fn update_check_shape(file: &Value) -> Value {
    let mut v = php::normalize(file);
    if let Some(map) = v.as_object_mut() {
        map.shift_remove("exported_at");
    }
    v
}

#[cfg(test)]
mod update_check_tests {
    /// The hash of a file with what PHP's `json_encode` escapes (`/`, non-ASCII, a surrogate
    /// pair, control characters) and its array model (`{}` and a `{"0":..}` map become lists),
    /// against the value `php -r` printed for it (PHP 8.2: `unset($d['exported_at'])`, then
    /// `md5(json_encode($d, JSON_THROW_ON_ERROR))`, as `CheckEggUpdatesCommand` does).
    /// The differential test holds the real files to Pelican's own command on every database.
    #[test]
    fn the_hash_is_phps() {
        let file = r#"{"_comment":"x","meta":{"version":"PLCN_v3","update_url":"https://e.x/a.json"},"exported_at":"2026","name":"Caf\u00e9 \ud83d\ude00 <b>&","config":{"files":"{}"},"tags":[],"features":{},"n":{"0":"a","1":"b"},"i":3,"t":true,"z":null,"e":"tab\there\/\u0001"}"#;
        assert_eq!(
            super::update_check_md5(file.as_bytes()).as_deref(),
            Some("564c4abd92375a766248d17ccb28cf32")
        );
        let without = file.replace(r#""exported_at":"2026","#, "");
        assert_eq!(
            super::update_check_md5(without.as_bytes()),
            super::update_check_md5(file.as_bytes()),
            "exported_at is left out"
        );
        assert_eq!(super::update_check_md5(b"{not json"), None);
    }
}
