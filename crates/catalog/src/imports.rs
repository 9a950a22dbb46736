//! One egg's import files (`pelican.yaml`, `pelican.json` and the other databases'
//! `pelican-*.json`, `pterodactyl.json` under `api/v1/eggs/{slug}/`) and what `meta.import` says
//! of them. The conversions and the panels'
//! import rules live in `eggcat_panels`; this module places the files and names their URLs.

use eggcat_panels::{Database, PerDatabase};
use serde_json::Value;

use crate::PreviousFiles;
use crate::paths::{self, import};
use crate::rfc3339;
use crate::stages::Derived;
use crate::wire::{DatabaseFiles, Imports, PanelImport};

/// The import files of one egg, by published path, and its `meta.import`.
#[derive(Debug)]
pub(crate) struct EggImports {
    pub(crate) meta: Imports,
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

/// One egg to convert, with what its inputs are.
#[derive(Debug)]
pub(crate) struct EggToConvert<'a> {
    /// The upstream egg, parsed.
    pub(crate) egg: &'a Value,
    pub(crate) slug: &'a str,
    pub(crate) uuid: &'a str,
    /// Of the upstream file: with `slug`, `uuid` and `indexed_at`, all the conversion depends on.
    pub(crate) sha256: &'a str,
    pub(crate) indexed_at: u64,
    /// What the previous snapshot derived for this slug, if it was made the same way.
    pub(crate) previous: Option<&'a Derived>,
}

/// The import files of `e`: the previous snapshot's where its inputs are unchanged, else
/// converted anew.
pub(crate) fn convert(
    e: &EggToConvert<'_>,
    base_url: &str,
    previous_files: PreviousFiles<'_>,
) -> EggImports {
    reuse(e, base_url, previous_files)
        .unwrap_or_else(|| import_files(e.egg, e.slug, e.uuid, base_url, &atom_time(e.indexed_at)))
}

/// The previous snapshot's import files of `e`, when they were made from the same inputs and can
/// all be read; `None` means convert again.
fn reuse(e: &EggToConvert<'_>, base_url: &str, read: PreviousFiles<'_>) -> Option<EggImports> {
    let d = e.previous?;
    if (d.sha256.as_str(), d.uuid.as_str(), d.indexed_at) != (e.sha256, e.uuid, e.indexed_at) {
        return None;
    }
    let pelican = &d.import.pelican;
    // A snapshot made before the per-database files has `json` without `databases`.
    if pelican.json.is_some() != pelican.databases.is_some() {
        return None;
    }
    let mut named = vec![
        (pelican.yaml.as_deref(), import::PELICAN_YAML),
        (
            d.import.pterodactyl.json.as_deref(),
            import::PTERODACTYL_JSON,
        ),
    ];
    if let Some(dbs) = &pelican.databases {
        named.extend(Database::ALL.map(|db| (Some(dbs.get(db)), db.pelican_json_name())));
    }
    let mut files = Vec::with_capacity(named.len());
    for (url, name) in named {
        if let Some(url) = url {
            let path = paths::egg_file(e.slug, name);
            if *url != format!("{base_url}/{path}") {
                return None;
            }
            let bytes = read(&path)?;
            files.push((path, bytes));
        }
    }
    Some(EggImports {
        meta: d.import.clone(),
        files,
    })
}

/// `exported_at` of the import files: when this content was first indexed, in the form the
/// panels write it (Carbon's `toAtomString`, `2026-01-01T00:00:00+00:00`). It changes only with
/// the content, so unchanged eggs keep byte-identical files.
fn atom_time(ms: u64) -> String {
    let full = rfc3339(ms);
    format!("{}+00:00", &full[..19])
}

/// Converts `egg` (the upstream egg, parsed) for both panels. `base_url` has no trailing slash;
/// `exported_at` is the `exported_at` the files carry (the panels' update check ignores it).
fn import_files(
    egg: &Value,
    slug: &str,
    uuid: &str,
    base_url: &str,
    exported_at: &str,
) -> EggImports {
    let url = |name: &str| format!("{base_url}/{}", paths::egg_file(slug, name));
    let (yaml_url, ptdl_url) = (url(import::PELICAN_YAML), url(import::PTERODACTYL_JSON));
    let json_urls = PerDatabase::from_fn(|db| url(db.pelican_json_name()));
    let target = eggcat_panels::Target {
        uuid,
        pelican_yaml_url: &yaml_url,
        pelican_json_urls: PerDatabase::from_fn(|db| json_urls.get(db).as_str()),
        pterodactyl_url: &ptdl_url,
        exported_at,
    };
    let v = eggcat_panels::variants(egg, &target);
    let mut files = Vec::with_capacity(5);
    let mut place = |name: &str, bytes: Option<Vec<u8>>, url: String| {
        bytes.map(|b| {
            files.push((paths::egg_file(slug, name), b));
            url
        })
    };
    let yaml_up_to_date = v.pelican_yaml.is_some().then_some(v.yaml_up_to_date);
    let yaml = place(import::PELICAN_YAML, v.pelican_yaml, yaml_url);
    // Each database's file, or none: one that did not settle is a problem of `pelican`.
    let all_settled = v.pelican_json.iter().all(|(_, bytes)| bytes.is_some());
    let json = (if all_settled {
        v.pelican_json
    } else {
        PerDatabase::default()
    })
    .map(|db, bytes| place(db.pelican_json_name(), bytes, json_urls.get(db).clone()));
    let databases = match json {
        PerDatabase {
            sqlite: Some(sqlite),
            mariadb: Some(mariadb),
            postgresql: Some(postgresql),
        } => Some(DatabaseFiles {
            sqlite,
            mariadb,
            postgresql,
        }),
        _ => None,
    };
    let pelican = PanelImport {
        yaml,
        json: databases.as_ref().map(|d| d.sqlite.clone()),
        importable: v.pelican.importable,
        problems: v.pelican.problems,
        losses: v.pelican.losses,
        databases,
        yaml_up_to_date,
    };
    let pterodactyl = PanelImport {
        yaml: None,
        json: place(import::PTERODACTYL_JSON, v.pterodactyl_json, ptdl_url),
        importable: v.pterodactyl.importable,
        problems: v.pterodactyl.problems,
        losses: v.pterodactyl.losses,
        databases: None,
        yaml_up_to_date: None,
    };
    EggImports {
        meta: Imports {
            pelican,
            pterodactyl,
        },
        files,
    }
}
