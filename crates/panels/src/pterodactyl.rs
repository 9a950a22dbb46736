//! `pterodactyl.json`: the egg as Pterodactyl's exporter writes it (PTDL_v2,
//! `app/Services/Eggs/Sharing/EggExporterService.php`), made from the egg as Pelican holds it
//! after import, so that both panels get the same egg. PLCN-only parts are carried where
//! PTDL_v2 has room for them and named in the losses where it has not.

use serde_json::{Value, json};

use eggcat_egg::panel::{PTERODACTYL_MAX, chars};

use crate::ImportError;
use crate::checks::{self, values};
use crate::pelican::{self, Egg};
use crate::php::map;

/// The `_comment` of every Pterodactyl export.
pub const COMMENT: &str =
    "DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PTERODACTYL PANEL - PTERODACTYL.IO";

/// The largest file Pterodactyl's import form takes (`max:1000`, kilobytes).
pub const MAX_FILE_BYTES: usize = eggcat_egg::panel::PTERODACTYL_MAX_FILE_BYTES;

/// Pelican's placeholders renamed back to Pterodactyl's (the inverse of
/// [`pelican::UPGRADE_VARIABLES`]).
const DOWNGRADE_VARIABLES: &[(&str, &str)] = &[
    ("server.allocations.default.ip", "server.build.default.ip"),
    (
        "server.allocations.default.port",
        "server.build.default.port",
    ),
    ("server.build.memory_limit", "server.build.memory"),
    ("server.environment.", "server.build.env."),
];

/// The PTDL_v2 structure of `egg`, and what it could not carry.
pub fn export(egg: &Egg, update_url: &str, exported_at: &str) -> (Value, Vec<String>) {
    let mut losses = Vec::new();
    let commands: Vec<(String, Value)> = match &egg.startup_commands {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v.clone()))
            .collect(),
        _ => Vec::new(),
    };
    let chosen = commands
        .iter()
        .position(|(k, _)| k == "Default")
        .or((!commands.is_empty()).then_some(0));
    let startup = chosen.map_or(Value::Null, |i| commands[i].1.clone());
    if let Some(i) = chosen
        && commands[i].0 != "Default"
    {
        losses.push(format!(
            "the startup command's name `{}` (a panel converting this file back names it `Default`)",
            commands[i].0
        ));
    }
    for (i, (name, _)) in commands.iter().enumerate() {
        if Some(i) != chosen {
            losses.push(format!(
                "the startup command `{name}` (Pterodactyl has one startup command; this file carries `{}`)",
                commands[chosen.unwrap_or(0)].0
            ));
        }
    }
    if egg.icon.is_some() {
        losses.push("the icon (Pterodactyl has no egg icons)".to_owned());
    }
    if values(&egg.tags).is_some_and(|t| !t.is_empty()) {
        losses.push("the tags (Pterodactyl has no egg tags)".to_owned());
    }
    if egg.variables.iter().any(|v| !v["sort"].is_null()) {
        losses.push(
            "the variables' `sort` numbers (Pterodactyl lists variables in file order)".to_owned(),
        );
    }
    for v in &egg.variables {
        if values(&v["rules"]).is_some_and(|r| r.is_empty()) {
            losses.push(format!(
                "the empty `rules` of variable `{}` (PTDL_v2 writes rules as `|`-separated text, and an empty text reads back as one empty rule)",
                v["env_variable"].as_str().unwrap_or("")
            ));
        }
    }
    let downgrade = |v: &Value| match v {
        Value::String(s) => Value::String(
            DOWNGRADE_VARIABLES
                .iter()
                .fold(s.clone(), |t, (from, to)| t.replace(from, to)),
        ),
        other => other.clone(),
    };
    let variables: Vec<Value> = egg
        .variables
        .iter()
        .map(|v| {
            let rules = match values(&v["rules"]) {
                Some(list) => json!(
                    list.iter()
                        .map(|r| r.as_str().map_or_else(|| r.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                None => v["rules"].clone(),
            };
            map(vec![
                ("name", v["name"].clone()),
                ("description", v["description"].clone()),
                ("env_variable", v["env_variable"].clone()),
                ("default_value", v["default_value"].clone()),
                ("user_viewable", v["user_viewable"].clone()),
                ("user_editable", v["user_editable"].clone()),
                ("rules", rules),
                ("field_type", json!("text")),
            ])
        })
        .collect();
    let value = map(vec![
        ("_comment", json!(COMMENT)),
        (
            "meta",
            map(vec![
                ("version", json!("PTDL_v2")),
                ("update_url", json!(update_url)),
            ]),
        ),
        ("exported_at", json!(exported_at)),
        ("name", egg.name.clone()),
        ("author", egg.author.clone()),
        // Not in Pterodactyl's own exports: Pterodactyl ignores it (every import gets a new
        // UUID), Pelican keeps it, so the egg stays one egg there too.
        ("uuid", egg.uuid.clone()),
        ("description", egg.description.clone()),
        ("features", egg.features.clone()),
        ("docker_images", egg.docker_images.clone()),
        ("file_denylist", Value::Array(egg.file_denylist.clone())),
        ("startup", startup),
        ("config", pelican::config(egg, downgrade(&egg.config_files))),
        ("scripts", pelican::scripts(egg)),
        ("variables", Value::Array(variables)),
    ]);
    (value, losses)
}

/// Why Pterodactyl's import would refuse `file` (its PTDL_v2 structure) of `size` bytes.
pub fn problems(file: &Value, size: usize) -> Vec<String> {
    let mut p = Vec::new();
    if size > MAX_FILE_BYTES {
        p.push(format!(
            "the file is {size} bytes, over the import form's limit of 1000 KB"
        ));
    }
    let field = |name: &str| file.get(name).unwrap_or(&Value::Null);
    checks::text(&mut p, "the name", field("name"), PTERODACTYL_MAX);
    checks::author(&mut p, field("author"));
    match values(field("docker_images")) {
        Some(images) if !images.is_empty() => {
            for image in images {
                match image.as_str() {
                    Some("") => p.push("a docker image is empty".to_owned()),
                    Some(i) if chars(i) > PTERODACTYL_MAX => p.push(format!(
                        "the docker image `{i}` is over {PTERODACTYL_MAX} characters"
                    )),
                    Some(i) if !eggcat_egg::panel::is_pterodactyl_image(i) => p.push(format!(
                        "the docker image `{i}` does not match Pterodactyl's image pattern"
                    )),
                    Some(_) => {}
                    None => p.push("a docker image is not text".to_owned()),
                }
            }
        }
        _ => p.push("the egg has no docker image".to_owned()),
    }
    match field("startup") {
        Value::String(s) if !s.is_empty() => {}
        _ => p.push("the egg has no startup command".to_owned()),
    }
    let stop = &file["config"]["stop"];
    checks::text(
        &mut p,
        "the stop command (`config.stop`)",
        stop,
        PTERODACTYL_MAX,
    );
    for v in file["variables"].as_array().into_iter().flatten() {
        let env = v["env_variable"].as_str().unwrap_or("");
        let what = format!("variable `{env}`");
        checks::text(
            &mut p,
            &format!("the name of {what}"),
            &v["name"],
            PTERODACTYL_MAX,
        );
        if !eggcat_egg::panel::is_pterodactyl_env_name(env) {
            p.push(format!(
                "the env variable `{env}` is not 1 to {PTERODACTYL_MAX} letters, digits or `_`"
            ));
        }
        if eggcat_egg::panel::PTERODACTYL_RESERVED_ENV_NAMES.contains(&env) {
            p.push(format!(
                "the env variable `{env}` is reserved by Pterodactyl"
            ));
        }
        match &v["rules"] {
            Value::String(r) if !r.is_empty() => {}
            _ => p.push(format!("{what} has no rules (Pterodactyl requires them)")),
        }
    }
    p
}

/// Pelican's import of a pterodactyl.json and its export (for the round-trip checks).
pub fn back_to_pelican(file: &Value) -> Result<Egg, ImportError> {
    pelican::import(file)
}
