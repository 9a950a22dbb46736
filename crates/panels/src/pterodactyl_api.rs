//! What Pterodactyl's application API shows of an egg, and how it compares with a catalog's
//! `pterodactyl.json` (issue 37 section 6, `eggcat panel status` on a Pterodactyl panel).
//!
//! Pterodactyl's API has no export and no `update_url` (`EggTransformer` does not return it),
//! and its Import Egg gives every egg a new uuid, so a panel's egg is found by its name and
//! author (as Pterodactyl's own `EggSeeder` finds the egg a seed file updates) and compared
//! with the file in what the API returns: [`from_file`] is what the panel's API returns of an
//! egg Pterodactyl's importer made from a file (`EggParserService::fillFromParsed`, the models'
//! casts, `EggTransformer::transform`, `EggVariableTransformer`), [`from_api`] the same fields
//! of an egg as the API returned it, and [`differences`] the fields where they differ.
//!
//! Compared ([`COMPARED`]): `name`, `author`, `description`, `docker_images`, `startup`,
//! `config.files`, `config.startup`, `config.logs`, `config.stop`, `config.file_denylist`,
//! `script.install`, `script.entry`, `script.container`, and each variable (by `env_variable`)
//! with its `name`, `description`, `default_value`, `user_viewable`, `user_editable` and
//! `rules`. Not compared: what the API does not return (`features`, `update_url`,
//! `force_outgoing_ip`), what the import makes anew (`uuid`, the ids, the nest, the times),
//! `docker_image` (the first of `docker_images`), `script.privileged` (no file sets it: the
//! column's default) and the order of the variables (the database's). An egg that copies
//! another's configuration or install script (`config.extends`, `script.extends`) is compared
//! with what it copies, as Pterodactyl's exporter writes it (the `config` and `script`
//! includes).
//!
//! Pure: reading the panel and the catalog is `eggcat-panel`'s.

use serde_json::{Map, Value, json};

use crate::php;
use crate::standing::FieldEdit;

/// The fields compared, as [`differences`] names them (`variables.ENV.FIELD` for each variable).
pub const COMPARED: [&str; 14] = [
    "name",
    "author",
    "description",
    "docker_images",
    "startup",
    "config.files",
    "config.startup",
    "config.logs",
    "config.stop",
    "config.file_denylist",
    "script.install",
    "script.entry",
    "script.container",
    "variables",
];

/// Each variable's fields compared, after `env_variable`.
pub const VARIABLE_FIELDS: [&str; 6] = [
    "name",
    "description",
    "default_value",
    "user_viewable",
    "user_editable",
    "rules",
];

/// What Pterodactyl's API returns, in the compared fields, of an egg its Import Egg (or Update
/// Egg) made from `file` (a PTDL_v2 file, decoded): the `config.*` texts decoded as
/// `EggTransformer` decodes them (`json_decode(..., true)`; empty files as `{}`), the file
/// denylist without its empty entries (`fillFromParsed`, keys kept as PHP keeps them), the
/// variables' flags as the model's `bool` casts read them.
pub fn from_file(file: &Value) -> Value {
    let decode = |v: &Value| match v {
        Value::String(s) => php::json_decode(s).unwrap_or_else(|| v.clone()),
        other => other.clone(),
    };
    let files = decode(&file["config"]["files"]);
    let files = if php::is_empty(&files) {
        json!({})
    } else {
        files
    };
    let denylist = match &file["file_denylist"] {
        Value::Array(items) => kept(items.iter().enumerate().map(|(i, v)| (i.to_string(), v))),
        Value::Object(map) => kept(map.iter().map(|(k, v)| (k.clone(), v))),
        _ => json!([]),
    };
    let install = &file["scripts"]["installation"];
    let variables: Vec<Value> = file["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            json!({
                "env_variable": v["env_variable"],
                "name": v["name"],
                "description": v["description"],
                "default_value": v["default_value"],
                "user_viewable": php_bool(&v["user_viewable"]),
                "user_editable": php_bool(&v["user_editable"]),
                "rules": v["rules"],
            })
        })
        .collect();
    shape(Fields {
        name: &file["name"],
        author: &file["author"],
        description: &file["description"],
        docker_images: &file["docker_images"],
        startup: &file["startup"],
        config: [
            files,
            decode(&file["config"]["startup"]),
            decode(&file["config"]["logs"]),
            file["config"]["stop"].clone(),
            denylist,
        ],
        script: [
            install["script"].clone(),
            install["entrypoint"].clone(),
            install["container"].clone(),
        ],
        variables,
    })
}

/// The compared fields of an egg as the API returned it (`attributes` of `GET
/// /api/application/nests/{nest}/eggs?include=variables,config,script`), or why they cannot be
/// had (no variables: the `variables` include did not come back).
pub fn from_api(attributes: &Value) -> Result<Value, String> {
    let relationships = &attributes["relationships"];
    let included = |name: &str| -> Option<&Value> {
        let r = &relationships[name];
        (r["object"] != "null_resource" && r["attributes"].is_object()).then(|| &r["attributes"])
    };
    let config = &attributes["config"];
    // An egg that copies another's configuration: what it copies (`includeConfig`).
    let inherited = (!config["extends"].is_null())
        .then(|| included("config"))
        .flatten();
    let own_or = |field: &str| inherited.map_or(&config[field], |c| &c[field]).clone();
    let script = &attributes["script"];
    let copied = (!script["extends"].is_null())
        .then(|| included("script"))
        .flatten();
    let variables = match &relationships["variables"] {
        Value::Object(list) if list.get("object") == Some(&json!("list")) => list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| {
                let a = &item["attributes"];
                json!({
                    "env_variable": a["env_variable"],
                    "name": a["name"],
                    "description": a["description"],
                    "default_value": a["default_value"],
                    "user_viewable": a["user_viewable"],
                    "user_editable": a["user_editable"],
                    "rules": a["rules"],
                })
            })
            .collect(),
        _ => {
            return Err(
                "the panel did not return the egg's variables (the `variables` include)".to_owned(),
            );
        }
    };
    Ok(shape(Fields {
        name: &attributes["name"],
        author: &attributes["author"],
        description: &attributes["description"],
        docker_images: &attributes["docker_images"],
        startup: &attributes["startup"],
        config: [
            own_or("files"),
            own_or("startup"),
            own_or("logs"),
            own_or("stop"),
            config["file_denylist"].clone(),
        ],
        script: [
            copied.map_or(&script["install"], |s| &s["install"]).clone(),
            copied.map_or(&script["entry"], |s| &s["entry"]).clone(),
            copied
                .map_or(&script["container"], |s| &s["container"])
                .clone(),
        ],
        variables,
    }))
}

/// The fields where the panel's egg (`panel`, from [`from_api`]) differs from the catalog's
/// file (`catalog`, from [`from_file`]), in [`COMPARED`]'s order, variables by `env_variable`
/// (sorted), each with both values (`base` is the catalog's). Values are compared as PHP holds
/// them (an empty map is an empty list); the order of the variables aside.
pub fn differences(catalog: &Value, panel: &Value) -> Vec<FieldEdit> {
    let (catalog, panel) = (php::normalize(catalog), php::normalize(panel));
    let mut out = Vec::new();
    let mut field = |name: String, c: Option<&Value>, p: Option<&Value>| {
        if c != p {
            out.push(FieldEdit {
                field: name,
                base: c.cloned(),
                panel: p.cloned(),
            });
        }
    };
    for name in COMPARED {
        if name == "variables" {
            continue;
        }
        let at =
            |v: &Value| -> Option<Value> { name.split('.').try_fold(v, |v, k| v.get(k)).cloned() };
        field(name.to_owned(), at(&catalog).as_ref(), at(&panel).as_ref());
    }
    let by_env = |v: &Value| -> std::collections::BTreeMap<String, Value> {
        v["variables"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| {
                let env = x["env_variable"]
                    .as_str()
                    .map_or_else(|| x["env_variable"].to_string(), str::to_owned);
                (env, x.clone())
            })
            .collect()
    };
    let (c, p) = (by_env(&catalog), by_env(&panel));
    let mut envs: Vec<&String> = c.keys().chain(p.keys()).collect();
    envs.sort();
    envs.dedup();
    for env in envs {
        match (c.get(env), p.get(env)) {
            (Some(cv), Some(pv)) => {
                for f in VARIABLE_FIELDS {
                    field(format!("variables.{env}.{f}"), cv.get(f), pv.get(f));
                }
            }
            (cv, pv) => field(format!("variables.{env}"), cv, pv),
        }
    }
    out
}

/// Which of several candidates (catalog eggs with the egg's name and author) a panel's egg is,
/// from its [`differences`] with each.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice<'a> {
    /// The nearest candidate (fewest differing fields). `by_content`: nearer than another
    /// candidate, which its content ruled out. `same_as`: candidates as near that are the same
    /// egg in every compared field (their differences are the same), such as a Pelican egg and
    /// its Pterodactyl twin upstream.
    One {
        slug: &'a str,
        differs: Vec<FieldEdit>,
        by_content: bool,
        same_as: Vec<&'a str>,
    },
    /// Candidates as near as each other that differ from each other: which one the egg came
    /// from cannot be told. Every candidate, nearest first, with its differences.
    Ambiguous(Vec<(&'a str, Vec<FieldEdit>)>),
}

/// The candidate a panel's egg is, given its differences with each (`(slug, differences)`, at
/// least one): the nearest, when the nearest are one egg; else ambiguous.
pub fn choose<'a>(mut candidates: Vec<(&'a str, Vec<FieldEdit>)>) -> Choice<'a> {
    candidates.sort_by(|a, b| (a.1.len(), a.0).cmp(&(b.1.len(), b.0)));
    let nearest = candidates.first().map_or(0, |c| c.1.len());
    let ties: Vec<&(&str, Vec<FieldEdit>)> = candidates
        .iter()
        .take_while(|c| c.1.len() == nearest)
        .collect();
    if ties.iter().all(|c| c.1 == ties[0].1) {
        let same_as = ties[1..].iter().map(|c| c.0).collect();
        let by_content = candidates.len() > ties.len();
        let (slug, differs) = candidates.swap_remove(0);
        Choice::One {
            slug,
            differs,
            by_content,
            same_as,
        }
    } else {
        Choice::Ambiguous(candidates)
    }
}

/// The names the catalog's index may give an egg whose `name` is `name`: the display name
/// (whitespace runs made one space, trimmed; docs/catalog-format.md, "Display name"), and that
/// name with ` (Pterodactyl)` (the twin of a Pelican egg in a file named for Pterodactyl).
pub fn index_names(name: &str) -> [String; 2] {
    let display = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let twin = format!("{display} (Pterodactyl)");
    [display, twin]
}

struct Fields<'a> {
    name: &'a Value,
    author: &'a Value,
    description: &'a Value,
    docker_images: &'a Value,
    startup: &'a Value,
    /// files, startup, logs, stop, file_denylist
    config: [Value; 5],
    /// install, entry, container
    script: [Value; 3],
    variables: Vec<Value>,
}

fn shape(f: Fields<'_>) -> Value {
    let [files, startup, logs, stop, file_denylist] = f.config;
    let [install, entry, container] = f.script;
    json!({
        "name": f.name,
        "author": f.author,
        "description": f.description,
        "docker_images": f.docker_images,
        "startup": f.startup,
        "config": {"files": files, "startup": startup, "logs": logs, "stop": stop,
                   "file_denylist": file_denylist},
        "script": {"install": install, "entry": entry, "container": container},
        "variables": f.variables,
    })
}

/// `Collection::filter(fn ($v) => !empty($v))` on the file denylist, keys kept: a list when
/// they are still 0..n-1, else a map (what the `array` cast stores and the API returns).
fn kept<'a>(items: impl Iterator<Item = (String, &'a Value)>) -> Value {
    let map: Map<String, Value> = items
        .filter(|(_, v)| !php::is_empty(v))
        .map(|(k, v)| (k, v.clone()))
        .collect();
    php::normalize(&Value::Object(map))
}

/// A value as the model's `bool` cast reads it back (PHP's `(bool)` of what was stored).
fn php_bool(v: &Value) -> Value {
    Value::Bool(!php::is_empty(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Value {
        json!({
            "_comment": "x", "meta": {"version": "PTDL_v2", "update_url": "https://eggs.example/api/v1/eggs/a/pterodactyl.json"},
            "exported_at": "2026-01-01T00:00:00+00:00", "name": "Game", "author": "a@b.c",
            "uuid": "8f0c3a9e-6a47-4a52-9b8e-0c1f2d3e4f50", "description": "d", "features": null,
            "docker_images": {"Java 21": "ghcr.io/x/java:21"}, "file_denylist": ["", "a.txt"],
            "startup": "./run",
            "config": {"files": "{}", "startup": "{\"done\": \"ready\"}", "logs": "{}", "stop": "stop"},
            "scripts": {"installation": {"script": "echo\r\nhi", "container": "debian", "entrypoint": "bash"}},
            "variables": [
                {"name": "Jar", "description": "", "env_variable": "JAR", "default_value": "server.jar",
                 "user_viewable": true, "user_editable": 1, "rules": "required|string", "field_type": "text"}
            ]
        })
    }

    /// What the API returned for `file()` imported on the loopback panel (ptero_api.php).
    fn api() -> Value {
        json!({
            "id": 3, "uuid": "0d3b...", "name": "Game", "nest": 1, "author": "a@b.c", "description": "d",
            "docker_image": "ghcr.io/x/java:21", "docker_images": {"Java 21": "ghcr.io/x/java:21"},
            "config": {"files": {}, "startup": {"done": "ready"}, "stop": "stop", "logs": [],
                       "file_denylist": {"1": "a.txt"}, "extends": null},
            "startup": "./run",
            "script": {"privileged": true, "install": "echo\r\nhi", "entry": "bash", "container": "debian", "extends": null},
            "created_at": "2026-01-01T00:00:00+00:00", "updated_at": "2026-01-01T00:00:00+00:00",
            "relationships": {
                "config": {"object": "null_resource", "attributes": null},
                "script": {"object": "null_resource", "attributes": null},
                "variables": {"object": "list", "data": [{"object": "egg_variable", "attributes": {
                    "id": 9, "egg_id": 3, "name": "Jar", "description": "", "env_variable": "JAR",
                    "default_value": "server.jar", "user_viewable": true, "user_editable": true,
                    "rules": "required|string", "created_at": "x", "updated_at": "x"}}]}
            }
        })
    }

    #[test]
    fn an_imported_file_reads_back_the_same() {
        let panel = from_api(&api()).unwrap();
        assert_eq!(differences(&from_file(&file()), &panel), []);
        // The denylist keeps its PHP keys: `["", "a.txt"]` is `{"1": "a.txt"}`.
        assert_eq!(
            from_file(&file())["config"]["file_denylist"],
            json!({"1": "a.txt"})
        );
    }

    #[test]
    fn each_difference_is_named() {
        let mut a = api();
        a["description"] = json!("edited");
        a["config"]["stop"] = json!("^C");
        a["relationships"]["variables"]["data"][0]["attributes"]["rules"] =
            json!("required|string|max:20");
        a["relationships"]["variables"]["data"]
            .as_array_mut()
            .unwrap()
            .push(json!({"object": "egg_variable", "attributes": {"env_variable": "NEW", "name": "New"}}));
        let d = differences(&from_file(&file()), &from_api(&a).unwrap());
        let fields: Vec<&str> = d.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "description",
                "config.stop",
                "variables.JAR.rules",
                "variables.NEW"
            ]
        );
        assert_eq!(d[0].base, Some(json!("d")));
        assert_eq!(d[0].panel, Some(json!("edited")));
        assert_eq!(d[3].base, None);
    }

    #[test]
    fn an_egg_that_copies_another_is_compared_with_what_it_copies() {
        let mut a = api();
        a["script"] = json!({"privileged": true, "install": null, "entry": "ash", "container": "alpine:3.4", "extends": 1});
        a["relationships"]["script"] = json!({"object": null, "attributes":
            {"privileged": true, "install": "echo\r\nhi", "entry": "bash", "container": "debian"}});
        assert_eq!(differences(&from_file(&file()), &from_api(&a).unwrap()), []);
        let mut none = api();
        none["relationships"]["variables"] = json!({"object": "null_resource", "attributes": null});
        assert!(from_api(&none).is_err());
    }

    #[test]
    fn the_nearest_candidate_is_the_egg_and_twins_are_one() {
        let edit = |f: &str, c: &str, p: &str| FieldEdit {
            field: f.to_owned(),
            base: Some(json!(c)),
            panel: Some(json!(p)),
        };
        // One candidate: that one, however far.
        let one = choose(vec![("a", vec![edit("startup", "x", "y")])]);
        assert!(matches!(
            one,
            Choice::One {
                slug: "a",
                by_content: false,
                ..
            }
        ));
        // The nearer of two that differ: by content.
        let near = choose(vec![
            (
                "b",
                vec![edit("startup", "x", "y"), edit("description", "1", "2")],
            ),
            ("a", vec![edit("description", "3", "2")]),
        ]);
        assert!(matches!(
            near,
            Choice::One {
                slug: "a",
                by_content: true,
                ..
            }
        ));
        // Twins (the same differences): the first, the other named.
        let twins = choose(vec![
            ("b", vec![edit("startup", "x", "y")]),
            ("a", vec![edit("startup", "x", "y")]),
        ]);
        let Choice::One {
            slug: "a",
            same_as,
            by_content: false,
            ..
        } = twins
        else {
            panic!("{twins:?}")
        };
        assert_eq!(same_as, ["b"]);
        // As near, different: ambiguous, nearest first.
        let amb = choose(vec![
            ("a", vec![edit("startup", "x", "y")]),
            ("b", vec![edit("description", "1", "2")]),
            (
                "c",
                vec![edit("startup", "x", "y"), edit("description", "1", "2")],
            ),
        ]);
        let Choice::Ambiguous(list) = amb else {
            panic!("{amb:?}")
        };
        assert_eq!(
            list.iter().map(|c| c.0).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn the_index_names_an_egg_by_its_display_name() {
        assert_eq!(
            index_names("  Paper\t 1.20 "),
            [
                "Paper 1.20".to_owned(),
                "Paper 1.20 (Pterodactyl)".to_owned()
            ]
        );
    }
}
