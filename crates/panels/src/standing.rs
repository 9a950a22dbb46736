//! Where a panel's egg stands against the catalog's versions of it (issue 37, `eggcat panel
//! status`): up to date, behind (which version it has), edited locally (what differs from the
//! version it came from, field by field: what Pelican's Update would throw away), behind and
//! edited, or the same egg in another order (a database that returns the variables, or their
//! keys, in another order than the file: up to date in substance, though Pelican's own check
//! says "Found update").
//!
//! Pure: it compares the panel's export (`GET /api/application/eggs/{id}/export?format=json`,
//! decoded) with the versions of the catalog egg it comes from, newest first, each with the hash
//! `history.json` publishes for the panel's database ([`crate::update_check_md5`]) and, where the
//! caller has it, that version's import file (the base of a merge). Finding the egg, reading the
//! panel and the catalog is the caller's.

use std::collections::BTreeMap;

use serde_json::Value;

/// One version of the catalog egg, newest first.
#[derive(Debug, Clone, Default)]
pub struct VersionFile {
    /// `pelicanUpdateCheckMd5` for the panel's database; `None` where the version has none.
    pub md5: Option<String>,
    /// The version's import file for the panel's database, decoded, when the caller has it.
    pub file: Option<Value>,
}

/// One field where the panel's egg differs from the version it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldEdit {
    /// The field: a top-level key (`tags`, `docker_images`, `config.stop`, ...) or
    /// `variables.ENV.field` (`variables.SERVER_JARFILE.default_value`); a variable the panel
    /// added or removed is `variables.ENV`.
    pub field: String,
    /// Its value in the version, `None` where the version has no such field.
    pub base: Option<Value>,
    /// Its value on the panel, `None` where the panel has none.
    pub panel: Option<Value>,
}

/// Where a panel's egg stands. Version numbers index the versions given, newest first (0 is
/// the current one).
#[derive(Debug, Clone, PartialEq)]
pub enum Standing {
    /// The panel exports the current file: Pelican's check says "Up-to-date".
    UpToDate,
    /// The panel exports the file of an older version, unedited.
    Behind { has: usize },
    /// The panel's egg is the current version with local edits.
    EditedLocally { edits: Vec<FieldEdit> },
    /// The panel's egg is an older version (`base`, the nearest) with local edits.
    BehindAndEdited { base: usize, edits: Vec<FieldEdit> },
    /// The panel's egg is version `has` in substance, its variables or their keys in another
    /// order (`reason` says which and what restores it); `has` 0 is up to date in substance.
    OtherOrder { has: usize, reason: String },
    /// Nothing to compare with: no version has a hash or a file.
    Unknown { why: String },
}

/// Which catalog egg and file a panel's egg was imported from, read from its `meta.update_url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromCatalog {
    pub slug: String,
    /// The file: `pelican.json` (SQLite's order, which PostgreSQL shares),
    /// `pelican-mariadb.json`, the former `pelican-postgresql.json` (now a redirect to
    /// `pelican.json`), or `pelican.yaml`.
    pub file: String,
}

/// The catalog egg an `update_url` points to, when it points into the catalog at `base_url`
/// (no trailing slash): `{base_url}/api/v1/eggs/{slug}/{file}` with one of the Pelican import
/// files. `None` for any other URL (another catalog, upstream's raw file, none): `status` then
/// matches by `uuid`.
pub fn from_catalog(update_url: &str, base_url: &str) -> Option<FromCatalog> {
    let rest = update_url
        .strip_prefix(base_url.trim_end_matches('/'))?
        .strip_prefix('/')?
        .strip_prefix(eggcat_wire::paths::EGGS_DIR)?
        .strip_prefix('/')?;
    let (slug, file) = rest.split_once('/')?;
    let files = [
        "pelican.json",
        "pelican-mariadb.json",
        "pelican-postgresql.json",
        "pelican.yaml",
    ];
    let valid_slug = !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    (valid_slug && files.contains(&file)).then(|| FromCatalog {
        slug: slug.to_owned(),
        file: file.to_owned(),
    })
}

/// Where the egg the panel exports as `export` stands against `versions` (newest first).
pub fn standing(export: &Value, versions: &[VersionFile]) -> Standing {
    let hash = crate::update_check_md5(export.to_string().as_bytes());
    if let Some(at) = versions
        .iter()
        .position(|v| v.md5.is_some() && v.md5 == hash)
    {
        return if at == 0 {
            Standing::UpToDate
        } else {
            Standing::Behind { has: at }
        };
    }
    let files: Vec<(usize, &Value)> = versions
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some((i, v.file.as_ref()?)))
        .collect();
    if files.is_empty() {
        return Standing::Unknown {
            why: if versions.iter().any(|v| v.md5.is_some()) {
                "the panel's egg matches no version's hash, and no version's file is at hand to compare it with".to_owned()
            } else {
                "the catalog has no version of this egg to compare with".to_owned()
            },
        };
    }
    let panel = canonical(export);
    if let Some(&(has, file)) = files.iter().find(|(_, f)| canonical(f) == panel) {
        return Standing::OtherOrder {
            has,
            reason: order_reason(export, file),
        };
    }
    // The version the panel's egg came from: the nearest, by the fields that differ (the
    // newest of equals).
    let (base, edits) = files
        .iter()
        .map(|&(i, f)| (i, edits(f, export)))
        .min_by_key(|(i, e)| (e.len(), *i))
        .expect("a version with a file");
    if base == 0 {
        Standing::EditedLocally { edits }
    } else {
        Standing::BehindAndEdited { base, edits }
    }
}

/// `v` as the update check hashes it ([`crate::update_check_shape`]), with every map's keys
/// sorted and the variables sorted by `env_variable`: what is the same egg whatever order a
/// database returns.
fn canonical(v: &Value) -> Value {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let map: BTreeMap<&String, Value> = m.iter().map(|(k, x)| (k, sorted(x))).collect();
                Value::Object(map.into_iter().map(|(k, x)| (k.clone(), x)).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut v = sorted(&crate::update_check_shape(v));
    if let Some(vars) = v.get_mut("variables").and_then(Value::as_array_mut) {
        vars.sort_by(|a, b| env(a).cmp(env(b)));
    }
    v
}

fn env(v: &Value) -> &str {
    v["env_variable"].as_str().unwrap_or("")
}

/// Why two files that are one egg in substance read "Found update" in Pelican's check.
fn order_reason(panel: &Value, file: &Value) -> String {
    let names = |v: &Value| -> Vec<String> {
        v["variables"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| env(x).to_owned())
            .collect()
    };
    if names(panel) != names(file) {
        "the panel's database returns the variables in another order than the file (PostgreSQL reads rows in their physical order; `CLUSTER egg_variables USING egg_variables_egg_id_name_unique;` puts them back), and Pelican's update check compares whole files, order included: same egg".to_owned()
    } else {
        "the panel exports the keys in another order than the file (a variable's `sort` before or after its other fields: the file of another database, MariaDB's or SQLite's, or an old export), and Pelican's update check compares whole files, order included: same egg; importing the file for the panel's database once puts it right".to_owned()
    }
}

/// The fields where `panel` differs from `base`, top-level keys and each variable's fields
/// (variables by `env_variable`), order aside; `exported_at` aside.
pub fn edits(base: &Value, panel: &Value) -> Vec<FieldEdit> {
    let (base, panel) = (canonical(base), canonical(panel));
    let mut out = Vec::new();
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut all = keys(&base);
    all.extend(keys(&panel));
    all.sort();
    all.dedup();
    for key in all {
        let (b, p) = (base.get(&key), panel.get(&key));
        if b == p {
            continue;
        }
        match key.as_str() {
            "variables" => variable_edits(b, p, &mut out),
            "config" | "meta" => {
                for (sub, b, p) in pairs(b, p) {
                    if b != p {
                        out.push(FieldEdit {
                            field: format!("{key}.{sub}"),
                            base: b,
                            panel: p,
                        });
                    }
                }
            }
            _ => out.push(FieldEdit {
                field: key,
                base: b.cloned(),
                panel: p.cloned(),
            }),
        }
    }
    out
}

/// The keys of two maps, each with its value on either side.
fn pairs(a: Option<&Value>, b: Option<&Value>) -> Vec<(String, Option<Value>, Option<Value>)> {
    let empty = serde_json::Map::new();
    let (a, b) = (
        a.and_then(Value::as_object).unwrap_or(&empty),
        b.and_then(Value::as_object).unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|k| (k.clone(), a.get(k).cloned(), b.get(k).cloned()))
        .collect()
}

fn variable_edits(base: Option<&Value>, panel: Option<&Value>, out: &mut Vec<FieldEdit>) {
    let by_env = |v: Option<&Value>| -> BTreeMap<String, Value> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|x| (env(x).to_owned(), x.clone()))
            .collect()
    };
    let (base, panel) = (by_env(base), by_env(panel));
    let mut envs: Vec<&String> = base.keys().chain(panel.keys()).collect();
    envs.sort();
    envs.dedup();
    for name in envs {
        match (base.get(name), panel.get(name)) {
            (Some(b), Some(p)) => {
                for (field, b, p) in pairs(Some(b), Some(p)) {
                    if b != p {
                        out.push(FieldEdit {
                            field: format!("variables.{name}.{field}"),
                            base: b,
                            panel: p,
                        });
                    }
                }
            }
            (b, p) => out.push(FieldEdit {
                field: format!("variables.{name}"),
                base: b.cloned(),
                panel: p.cloned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// An export of version `n` of an egg, in SQLite's order.
    fn file(n: u32) -> Value {
        json!({
            "_comment": "DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PANEL",
            "meta": {"version": "PLCN_v3", "update_url": "https://eggs.example/api/v1/eggs/x/pelican.json"},
            "exported_at": format!("2026-0{n}-01T00:00:00+00:00"),
            "name": "Game", "author": "a@b.c", "uuid": "8f0c3a9e-6a47-4a52-9b8e-0c1f2d3e4f50",
            "description": format!("version {n}"), "icon": null, "tags": [], "features": [],
            "docker_images": {"Java 21": "ghcr.io/x/java:21"}, "file_denylist": [],
            "startup_commands": {"Default": "./run"},
            "config": {"files": "{}", "startup": "{}", "logs": "{}", "stop": "stop"},
            "scripts": {"installation": {"script": "echo", "container": "debian", "entrypoint": "bash"}},
            "variables": [
                {"name": "A jar", "description": "", "env_variable": "Z_JAR", "default_value": "server.jar",
                 "user_viewable": true, "user_editable": true, "rules": ["required", "string"], "sort": 1},
                {"name": "B port", "description": "", "env_variable": "A_PORT", "default_value": "1",
                 "user_viewable": true, "user_editable": true, "rules": ["required", "string"], "sort": 2}
            ]
        })
    }

    fn versions(files: &[Value], with_files: bool) -> Vec<VersionFile> {
        files
            .iter()
            .map(|f| VersionFile {
                md5: crate::update_check_md5(f.to_string().as_bytes()),
                file: with_files.then(|| f.clone()),
            })
            .collect()
    }

    #[test]
    fn the_update_url_names_the_catalog_egg() {
        let base = "https://eggs.example.org";
        let at = |url: &str| from_catalog(url, base).map(|f| (f.slug, f.file));
        assert_eq!(
            at("https://eggs.example.org/api/v1/eggs/minecraft-paper/pelican-mariadb.json"),
            Some((
                "minecraft-paper".to_owned(),
                "pelican-mariadb.json".to_owned()
            ))
        );
        assert_eq!(
            from_catalog(
                "https://eggs.example.org/api/v1/eggs/a-b/pelican.json",
                "https://eggs.example.org/"
            )
            .map(|f| f.slug),
            Some("a-b".to_owned())
        );
        for other in [
            "https://other.example.org/api/v1/eggs/minecraft-paper/pelican.json",
            "https://eggs.example.org.evil/api/v1/eggs/minecraft-paper/pelican.json",
            "https://eggs.example.org/api/v1/eggs/minecraft-paper/pterodactyl.json",
            "https://eggs.example.org/api/v1/eggs/Minecraft/pelican.json",
            "https://eggs.example.org/api/v1/eggs/a/b/pelican.json",
            "https://raw.githubusercontent.com/pelican-eggs/minecraft/main/egg-paper.json",
            "",
        ] {
            assert_eq!(at(other), None, "{other}");
        }
    }

    #[test]
    fn the_hash_tells_the_version() {
        let (v3, v2, v1) = (file(3), file(2), file(1));
        let versions = versions(&[v3.clone(), v2.clone(), v1.clone()], false);
        let mut export = v3.clone();
        export["exported_at"] = json!("2027-01-01T00:00:00+00:00");
        assert_eq!(standing(&export, &versions), Standing::UpToDate);
        assert_eq!(standing(&v1, &versions), Standing::Behind { has: 2 });
        let mut edited = v2.clone();
        edited["tags"] = json!(["modrinth_plugins"]);
        assert!(matches!(
            standing(&edited, &versions),
            Standing::Unknown { .. }
        ));
    }

    #[test]
    fn another_row_order_is_the_same_egg() {
        let (v2, v1) = (file(2), file(1));
        let versions = versions(&[v2.clone(), v1.clone()], true);
        let mut swapped = v2.clone();
        swapped["variables"].as_array_mut().unwrap().reverse();
        let Standing::OtherOrder { has: 0, reason } = standing(&swapped, &versions) else {
            panic!("{:?}", standing(&swapped, &versions))
        };
        assert!(reason.contains("CLUSTER"), "{reason}");
        // MariaDB's key order (`sort` first) on an older version.
        let mut keys = v1.clone();
        for var in keys["variables"].as_array_mut().unwrap() {
            let sort = var.as_object_mut().unwrap().shift_remove("sort").unwrap();
            var.as_object_mut()
                .unwrap()
                .shift_insert(0, "sort".to_owned(), sort);
        }
        let Standing::OtherOrder { has: 1, reason } = standing(&keys, &versions) else {
            panic!("{:?}", standing(&keys, &versions))
        };
        assert!(reason.contains("keys in another order"), "{reason}");
    }

    #[test]
    fn edits_are_told_field_by_field_from_the_nearest_version() {
        let (v2, v1) = (file(2), file(1));
        let versions = versions(&[v2.clone(), v1.clone()], true);
        let mut edited = v2.clone();
        edited["tags"] = json!(["modrinth_plugins"]);
        edited["variables"][0]["default_value"] = json!("paper.jar");
        assert_eq!(
            standing(&edited, &versions),
            Standing::EditedLocally {
                edits: vec![
                    FieldEdit {
                        field: "tags".to_owned(),
                        base: Some(json!([])),
                        panel: Some(json!(["modrinth_plugins"])),
                    },
                    FieldEdit {
                        field: "variables.Z_JAR.default_value".to_owned(),
                        base: Some(json!("server.jar")),
                        panel: Some(json!("paper.jar")),
                    },
                ]
            }
        );
        let mut old = v1.clone();
        old["docker_images"]["Java 17"] = json!("ghcr.io/x/java:17");
        old["variables"].as_array_mut().unwrap().pop();
        let Standing::BehindAndEdited { base: 1, edits } = standing(&old, &versions) else {
            panic!("{:?}", standing(&old, &versions))
        };
        let fields: Vec<&str> = edits.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["docker_images", "variables.A_PORT"]);
        assert_eq!(edits[1].panel, None, "the panel removed the variable");
    }
}
