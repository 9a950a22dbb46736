//! One egg's import files (`pelican.yaml`, `pelican.json` and MariaDB's `pelican-mariadb.json`,
//! `pterodactyl.json` under `api/v1/eggs/{slug}/`) and what `meta.import` says
//! of them. The conversions and the panels'
//! import rules live in `eggcat_panels`; this module places the files and names their URLs.

use eggcat_panels::{Database, PerDatabase};
use serde_json::Value;

use crate::paths::{self, import};
use crate::reuse::{Inputs, Key, Reuse};
use crate::rfc3339;
use crate::wire::{DatabaseFiles, Imports, PanelImport, UpdateCheckMd5};

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
    /// The egg's `meta.import` in the previous snapshot, if it had the egg.
    pub(crate) previous: Option<&'a Imports>,
}

impl EggToConvert<'_> {
    /// The name of the egg's import files as one output of [`Reuse`].
    fn output(&self) -> String {
        format!("import files of {}", self.slug)
    }

    /// The key of what its import files are made from (besides the derivation).
    fn key(&self, base_url: &str) -> Key {
        Inputs::new("import files")
            .part("egg sha256", self.sha256.as_bytes())
            .part("slug", self.slug.as_bytes())
            .part("uuid", self.uuid.as_bytes())
            .value("indexed at", &self.indexed_at)
            .part("base url", base_url.as_bytes())
            .key()
    }
}

/// The import files of `e`: the previous snapshot's where they stand (made from the same inputs,
/// [`Reuse`]), else converted anew.
pub(crate) fn convert(e: &EggToConvert<'_>, base_url: &str, reuse: &Reuse<'_>) -> EggImports {
    let stands = reuse.stands(&e.output(), &e.key(base_url));
    stands
        .then(|| previous(e, reuse))
        .flatten()
        .unwrap_or_else(|| import_files(e.egg, e.slug, e.uuid, base_url, &atom_time(e.indexed_at)))
}

/// The previous snapshot's import files of `e`, which stand, when its `meta.import` names them
/// and they can all be read; `None` means convert again.
fn previous(e: &EggToConvert<'_>, reuse: &Reuse<'_>) -> Option<EggImports> {
    let import = e.previous?;
    let pelican = &import.pelican;
    let mut names = Vec::with_capacity(5);
    names.extend(pelican.yaml.as_ref().map(|_| import::PELICAN_YAML));
    names.extend(
        import
            .pterodactyl
            .json
            .as_ref()
            .map(|_| import::PTERODACTYL_JSON),
    );
    if pelican.databases.is_some() {
        names.extend(Database::WITH_FILES.map(|db| db.pelican_json_name()));
    }
    let mut files = Vec::with_capacity(names.len());
    for name in names {
        let path = paths::egg_file(e.slug, name);
        let bytes = reuse.read(&path)?;
        files.push((path, bytes));
    }
    Some(EggImports {
        meta: import.clone(),
        files,
    })
}

/// `exported_at` of the import files: when this content was first indexed, in the form the
/// panels write it (Carbon's `toAtomString`, `2026-01-01T00:00:00+00:00`). It changes only with
/// the content, so unchanged eggs keep byte-identical files. An older version's file takes the
/// date of its commit in the same form ([`version_file`]).
pub(crate) fn atom_time(ms: u64) -> String {
    let full = rfc3339(ms);
    format!("{}+00:00", &full[..19])
}

/// What eggcat would have published of `egg` (an upstream egg, parsed, at some version) for
/// Pelican: the hashes Pelican's update check computes for the eggs imported from its
/// `pelican.json` files ([`eggcat_panels::update_check_md5`]), per database order, and the
/// bytes of `pelican.json` (SQLite's order), with the identity and URLs `slug` and `uuid` give
/// them under `base_url` and `exported_at` as given. `None` when eggcat writes no such file or
/// Pelican refuses it (not importable). History documents carry the hashes of each version and
/// publish the file of each older one: one conversion gives both.
pub(crate) fn version_file(
    egg: &Value,
    (slug, uuid): (&str, &str),
    base_url: &str,
    exported_at: &str,
) -> Option<(UpdateCheckMd5, Vec<u8>)> {
    let url = |name: &str| format!("{base_url}/{}", paths::egg_file(slug, name));
    let json_urls = PerDatabase::from_fn(|db| url(db.pelican_json_name()));
    let (yaml_url, ptdl_url) = (url(import::PELICAN_YAML), url(import::PTERODACTYL_JSON));
    let target = eggcat_panels::Target {
        uuid,
        pelican_yaml_url: &yaml_url,
        pelican_json_urls: PerDatabase::from_fn(|db| json_urls.get(db).as_str()),
        pterodactyl_url: &ptdl_url,
        exported_at,
    };
    let mut v = eggcat_panels::variants(egg, &target);
    if !v.pelican.importable {
        return None;
    }
    let md5 = |db: Database| eggcat_panels::update_check_md5(v.pelican_json.get(db).as_ref()?);
    let hashes = UpdateCheckMd5 {
        sqlite: md5(Database::Sqlite)?,
        mariadb: md5(Database::MariaDb)?,
        postgresql: md5(Database::PostgreSql)?,
    };
    Some((hashes, v.pelican_json.sqlite.take()?))
}

/// The update-check hashes of the `pelican.json` files `made` holds for the egg at `slug`:
/// what [`update_check_md5`] gives for the same egg, read from the files the build publishes
/// (converted now or reused), so that the history's newest version costs no second conversion.
pub(crate) fn published_md5(made: &EggImports, slug: &str) -> Option<UpdateCheckMd5> {
    if !made.meta.pelican.importable {
        return None;
    }
    let md5 = |db: Database| {
        let path = paths::egg_file(slug, db.own_file().pelican_json_name());
        let (_, bytes) = made.files.iter().find(|(p, _)| *p == path)?;
        eggcat_panels::update_check_md5(bytes)
    };
    Some(UpdateCheckMd5 {
        sqlite: md5(Database::Sqlite)?,
        mariadb: md5(Database::MariaDb)?,
        postgresql: md5(Database::PostgreSql)?,
    })
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
    .map(|db, bytes| {
        let url = json_urls.get(db).clone();
        if db.own_file() == db {
            place(db.pelican_json_name(), bytes, url)
        } else {
            // A database that imports another's file (PostgreSQL, SQLite's): its URL, no file.
            bytes.map(|_| url)
        }
    });
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
