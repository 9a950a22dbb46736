//! Pelican's import and export of an egg, step by step as the panel's code does them
//! (`app/Services/Eggs/Sharing/EggImporterService.php` `parse`, `fromParsed`, `fillFromParsed`;
//! `EggExporterService.php` `handle`, `yamlExport`; the models' casts and the database columns),
//! so that eggcat's `pelican.yaml` and `pelican.json` are what the panel itself would export
//! after importing the upstream egg. docs/panels.md lists every rule with its source.

use serde_json::{Map, Value, json};

use crate::icon;
use crate::php::{self, is_empty, json_decode, json_encode_pretty, map, normalize};
use crate::{Database, ExportOrder, ImportError};

/// Pelican's current export format (`Egg::EXPORT_VERSION`).
pub const EXPORT_VERSION: &str = "PLCN_v3";

/// The `_comment` of every Pelican export.
pub const COMMENT: &str = "DO NOT EDIT: FILE GENERATED AUTOMATICALLY BY PANEL";

/// `EggImporterService::UPGRADE_VARIABLES`, applied in this order to `config.files`.
pub const UPGRADE_VARIABLES: &[(&str, &str)] = &[
    (
        "server.build.env.SERVER_IP",
        "server.allocations.default.ip",
    ),
    ("server.build.default.ip", "server.allocations.default.ip"),
    (
        "server.build.env.SERVER_PORT",
        "server.allocations.default.port",
    ),
    (
        "server.build.default.port",
        "server.allocations.default.port",
    ),
    (
        "server.build.env.SERVER_MEMORY",
        "server.build.memory_limit",
    ),
    ("server.build.memory", "server.build.memory_limit"),
    ("server.build.env.", "server.environment."),
    ("server.build.environment.", "server.environment."),
];

/// The columns of `egg_variables` in table order on SQLite, Pelican's default database, minus
/// the four the exporter drops (`id`, `egg_id`, `created_at`, `updated_at`): the 2016 table
/// (`service_variables`: name, description, env_variable, default_value, user_viewable,
/// user_editable, regex renamed `rules`), then `sort`, which
/// `2024_04_20_214441_add_egg_var_sort.php` adds `->after('egg_id')`: MySQL and MariaDB honour
/// `after`, SQLite appends the column last (Laravel's SQLite grammar has no `after`; the
/// differential test reads the table back with `PRAGMA table_info`). The exporter writes each
/// variable's fields in this order (`$eggVariable->toArray()`), and the update check's `md5`
/// sees it. docs/panels.md says what a MySQL panel sees.
pub const VARIABLE_FIELDS: &[&str] = &[
    "name",
    "description",
    "env_variable",
    "default_value",
    "user_viewable",
    "user_editable",
    "rules",
    "sort",
];

/// An egg as Pelican holds it after an import: every attribute as the model reads it back
/// from the database (casts applied).
#[derive(Debug, Clone, PartialEq)]
pub struct Egg {
    pub update_url: Value,
    pub name: Value,
    pub author: Value,
    pub uuid: Value,
    pub description: Value,
    /// The icon as the exporter writes it (`data:{mime};base64,...`), when one was stored.
    pub icon: Option<String>,
    pub tags: Value,
    pub features: Value,
    pub docker_images: Value,
    /// Already filtered of empty values, as the exporter lists them.
    pub file_denylist: Vec<Value>,
    pub startup_commands: Value,
    pub config_files: Value,
    pub config_startup: Value,
    pub config_logs: Value,
    pub config_stop: Value,
    pub script: Value,
    pub container: Value,
    pub entrypoint: Value,
    /// Each variable's exported fields, in [`VARIABLE_FIELDS`] order, in insertion order.
    pub variables: Vec<Map<String, Value>>,
}

/// Imports `file` (the egg as the panel parsed it: `json_decode($text, true)` or
/// `Yaml::parse`) as Pelican does; `Err` with the reason where the panel's import throws.
pub fn import(file: &Value) -> Result<Egg, ImportError> {
    let parsed = parse(file, Reserved::Rename)?;
    from_parsed(&parsed)
}

/// [`import`] without Pelican's renaming of the variables it reserves (`HOSTNAME` ->
/// `SERVER_HOSTNAME`, the startup commands rewritten to match): the egg `pterodactyl.json` is
/// made from, since Pterodactyl reserves other names and renames none.
pub fn import_keeping_names(file: &Value) -> Result<Egg, ImportError> {
    let parsed = parse(file, Reserved::Keep)?;
    from_parsed(&parsed)
}

/// `EggImporterService::parse` after the text is parsed: the conversion to PLCN_v3.
/// What `parse` does with the variables Pelican reserves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reserved {
    Rename,
    Keep,
}

fn parse(file: &Value, reserved: Reserved) -> Result<Map<String, Value>, ImportError> {
    let Value::Object(file) = normalize(file) else {
        return Err(ImportError::NotAMap);
    };
    let mut p = file;
    let version = p
        .get("meta")
        .and_then(|m| m.get("version"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    match version.as_str() {
        "PTDL_v1" => {
            convert_legacy(&mut p);
            convert_to_v3(&mut p)?;
        }
        "PTDL_v2" | "PLCN_v1" | "PLCN_v2" => convert_to_v3(&mut p)?,
        EXPORT_VERSION => {}
        other => return Err(ImportError::UnknownFormat(other.to_owned())),
    }
    if let Some(Value::Object(config)) = p.get_mut("config") {
        for (key, value) in config.iter_mut() {
            if value.is_object() || value.is_array() {
                *value = Value::String(json_encode_compact(value));
            }
            if key == "files"
                && let Value::String(text) = value
            {
                *text = upgrade_variables(text);
            }
        }
    }
    if let Some(Value::Object(install)) =
        p.get_mut("scripts").and_then(|s| s.get_mut("installation"))
    {
        for value in install.values_mut() {
            if value.is_object() || value.is_array() {
                *value = Value::String(json_encode_compact(value));
            }
        }
    }
    let variables = match p.get("variables") {
        Some(Value::Array(vars)) => vars.clone(),
        Some(_) => return Err(ImportError::VariablesNotAList),
        None => return Err(ImportError::NoVariables),
    };
    let mut vars = Vec::with_capacity(variables.len());
    for (i, v) in variables.into_iter().enumerate() {
        let Value::Object(mut v) = v else {
            return Err(ImportError::VariableNotAMap { index: i });
        };
        if let Some(Value::Bool(b)) = v.get("default_value") {
            let text = if *b { "true" } else { "false" };
            v.insert("default_value".into(), json!(text));
        }
        let env = match v.get("env_variable") {
            Some(Value::String(s)) => s.to_uppercase_php(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(ImportError::NoEnvVariable { index: i }),
        };
        vars.push((env, v));
    }
    // The boolean defaults, now text, are written back whatever follows (`array_map` over
    // `$parsed['variables']`); the upper-cased names only when a name is reserved (below).
    p.insert(
        "variables".into(),
        Value::Array(vars.iter().map(|(_, v)| Value::Object(v.clone())).collect()),
    );
    let forbidden: Vec<String> = vars
        .iter()
        .filter(|(env, _)| eggcat_egg::panel::is_reserved_env_name(env))
        .map(|(env, _)| env.clone())
        .collect();
    if !forbidden.is_empty() && reserved == Reserved::Rename {
        let (mut allowed, renamed): (Vec<_>, Vec<_>) = vars
            .into_iter()
            .partition(|(env, _)| !eggcat_egg::panel::is_reserved_env_name(env));
        allowed.extend(
            renamed
                .into_iter()
                .map(|(env, v)| (format!("SERVER_{env}"), v)),
        );
        let list = allowed
            .into_iter()
            .map(|(env, mut v)| {
                v.insert("env_variable".into(), Value::String(env));
                Value::Object(v)
            })
            .collect();
        p.insert("variables".into(), Value::Array(list));
        if let Some(Value::Object(commands)) = p.get_mut("startup_commands") {
            for command in commands.values_mut() {
                if let Value::String(text) = command {
                    *text = prefix_words(text, &forbidden);
                }
            }
        }
    }
    if let Some(Value::String(image)) = p.get("image")
        && image.starts_with("data:")
    {
        let image = image.clone();
        p.insert("icon".into(), Value::String(image));
        p.shift_remove("image");
    }
    Ok(p)
}

/// `strtoupper`: ASCII letters only (PHP 8 is locale-insensitive here).
trait PhpUpper {
    fn to_uppercase_php(&self) -> String;
}

impl PhpUpper for String {
    fn to_uppercase_php(&self) -> String {
        self.to_ascii_uppercase()
    }
}

/// `preg_replace('/\b(A|B)\b/', 'SERVER_$1', $text)`.
fn prefix_words(text: &str, names: &[String]) -> String {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let at_boundary = i == 0 || !word(bytes[i - 1]);
        let hit = at_boundary
            .then(|| {
                names.iter().find(|n| {
                    let end = i + n.len();
                    text[i..].starts_with(n.as_str()) && (end == bytes.len() || !word(bytes[end]))
                })
            })
            .flatten();
        match hit {
            Some(name) => {
                out.push_str("SERVER_");
                out.push_str(name);
                i += name.len();
            }
            None => {
                let c = text[i..].chars().next().expect("i is on a char boundary");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// `str_replace(array_keys(UPGRADE_VARIABLES), array_values(UPGRADE_VARIABLES), $text)`.
pub fn upgrade_variables(text: &str) -> String {
    UPGRADE_VARIABLES
        .iter()
        .fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
}

/// `convertLegacy`: PTDL_v1's `image`/`images` become the `docker_images` map.
fn convert_legacy(p: &mut Map<String, Value>) {
    let images: Vec<Value> = match p.get("images") {
        Some(Value::Array(list)) => list.clone(),
        Some(Value::Object(m)) => m.values().cloned().collect(),
        _ => vec![
            p.get("image")
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or(json!("nil")),
        ],
    };
    p.shift_remove("images");
    p.shift_remove("image");
    p.shift_remove("field_type");
    let mut docker = Map::new();
    for image in images {
        let key = php_string(&image).unwrap_or_default();
        docker.insert(key, image);
    }
    p.insert("docker_images".into(), Value::Object(docker));
}

/// `convertToV3`: the `startup` string becomes `startup_commands: {Default: ...}`.
fn convert_to_v3(p: &mut Map<String, Value>) -> Result<(), ImportError> {
    let startup = p.shift_remove("startup").ok_or(ImportError::NoStartup)?;
    p.insert("startup_commands".into(), json!({ "Default": startup }));
    Ok(())
}

/// `json_encode($value, JSON_UNESCAPED_SLASHES)` of a PHP array.
fn json_encode_compact(v: &Value) -> String {
    serde_json::to_string(&normalize(v)).expect("a JSON value serializes")
}

/// A scalar as PHP turns it into a string for a text column; `None` for arrays.
fn php_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            _ => n.to_string(),
        }),
        Value::Bool(true) => Some("1".to_owned()),
        Value::Bool(false) => Some(String::new()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

/// A text column as read back: scalars as strings, null kept.
fn text_column(v: Option<&Value>) -> Value {
    match v {
        None | Some(Value::Null) => Value::Null,
        Some(v) => php_string(v).map(Value::String).unwrap_or(Value::Null),
    }
}

/// An `array` cast column as read back: the value through `json_encode`/`json_decode`.
fn array_column(v: Option<&Value>) -> Value {
    v.map(normalize).unwrap_or(Value::Null)
}

/// `config_*`: `json_encode(json_decode($text), JSON_PRETTY_PRINT)`.
fn config_column(v: Option<&Value>) -> Value {
    let decoded = match v {
        Some(Value::String(text)) => json_decode(text).unwrap_or(Value::Null),
        Some(Value::Number(n)) => Value::Number(n.clone()),
        _ => Value::Null,
    };
    Value::String(json_encode_pretty(&decoded))
}

/// `fromParsed` and `fillFromParsed`, then the egg as read back from the database.
fn from_parsed(p: &Map<String, Value>) -> Result<Egg, ImportError> {
    let get = |path: &str| -> Option<&Value> {
        let mut cur = p.get(path.split('.').next()?)?;
        for part in path.split('.').skip(1) {
            cur = cur.as_object()?.get(part)?;
        }
        Some(cur)
    };
    for column in ["name", "author"] {
        if get(column).is_none_or(Value::is_null) {
            return Err(ImportError::NoColumn(column));
        }
    }
    let icon = get("icon").and_then(Value::as_str).and_then(icon::stored);
    let file_denylist = match get("file_denylist") {
        Some(Value::Array(list)) => list.clone(),
        Some(Value::Object(m)) => m.values().cloned().collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other.clone()],
    };
    let mut variables: Vec<Map<String, Value>> = Vec::new();
    let list = p
        .get("variables")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, v) in list.iter().enumerate() {
        let v = v.as_object().expect("parse checked every variable");
        let stored = variable(i, v)?;
        let env = stored["env_variable"].clone();
        match variables.iter_mut().find(|x| x["env_variable"] == env) {
            // updateOrCreate by env_variable: a second variable of one name updates the first.
            Some(existing) => {
                for (k, val) in stored {
                    if v.contains_key(&k) || k == "rules" {
                        existing.insert(k, val);
                    }
                }
            }
            None => variables.push(stored),
        }
    }
    let mut names: Vec<&Value> = variables.iter().map(|v| &v["name"]).collect();
    names.sort_by_key(|n| n.to_string());
    if let Some(twin) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(ImportError::DuplicateVariableName(twin[0].clone()));
    }
    Ok(Egg {
        update_url: text_column(get("meta.update_url")),
        name: text_column(get("name")),
        author: text_column(get("author")),
        uuid: text_column(get("uuid")),
        description: text_column(get("description")),
        icon,
        tags: match get("tags") {
            None => json!([]),
            some => array_column(some),
        },
        features: array_column(get("features")),
        docker_images: array_column(get("docker_images")),
        file_denylist: file_denylist.into_iter().filter(|v| !is_empty(v)).collect(),
        startup_commands: array_column(get("startup_commands")),
        config_files: config_column(get("config.files")),
        config_startup: config_column(get("config.startup")),
        config_logs: config_column(get("config.logs")),
        config_stop: text_column(get("config.stop")),
        script: text_column(get("scripts.installation.script")),
        container: text_column(get("scripts.installation.container")),
        entrypoint: text_column(get("scripts.installation.entrypoint")),
        variables,
    })
}

/// One variable as stored and read back, fields in column order.
fn variable(i: usize, v: &Map<String, Value>) -> Result<Map<String, Value>, ImportError> {
    if let Some(unknown) = v
        .keys()
        .find(|k| !eggcat_egg::panel::is_pelican_variable_column(k))
    {
        return Err(ImportError::NoSuchColumn {
            index: i,
            field: unknown.clone(),
        });
    }
    let rules = match v.get("rules") {
        None => return Err(ImportError::NoRules { index: i }),
        Some(r @ (Value::Array(_) | Value::Object(_))) => normalize(r),
        Some(other) => {
            let text = php_string(other).unwrap_or_default();
            Value::Array(text.split('|').map(|s| json!(s)).collect())
        }
    };
    let required_text = |field: &'static str| -> Result<Value, ImportError> {
        match v.get(field) {
            None | Some(Value::Null) => Err(ImportError::NoVariableColumn { index: i, field }),
            Some(x) => php_string(x)
                .map(Value::String)
                .ok_or(ImportError::NotText { index: i, field }),
        }
    };
    let flag = |field: &'static str| -> Result<Value, ImportError> {
        match v.get(field) {
            None => Ok(json!(false)),
            Some(Value::Null) => Err(ImportError::NullFlag { index: i, field }),
            // `EggVariable::$validationRules`: `boolean`, checked on save.
            Some(x) if !eggcat_egg::panel::is_laravel_boolean(x) => Err(ImportError::NotBoolean {
                index: i,
                field,
                value: x.clone(),
            }),
            Some(Value::Bool(b)) => Ok(json!(*b)),
            Some(Value::Number(n)) => Ok(json!(n.as_u64() == Some(1))),
            // The one Laravel boolean left: the text "0" or "1".
            Some(x) => Ok(json!(x.as_str() == Some("1"))),
        }
    };
    let sort = match v.get("sort") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Bool(b)) => json!(u8::from(*b)),
        Some(Value::String(s)) if s.parse::<i64>().is_ok() => {
            json!(s.parse::<i64>().unwrap_or_default())
        }
        Some(other) => other.clone(),
    };
    Ok(map(vec![
        ("name", required_text("name")?),
        ("description", required_text("description")?),
        (
            "env_variable",
            php_string(&v["env_variable"]).map_or(Value::Null, Value::String),
        ),
        ("default_value", required_text("default_value")?),
        ("user_viewable", flag("user_viewable")?),
        ("user_editable", flag("user_editable")?),
        ("rules", rules),
        ("sort", sort),
    ])
    .as_object()
    .cloned()
    .expect("map() builds an object"))
}

/// The exporter's `$struct` for `egg`, with `exported_at` as given, as a panel on `db` writes it.
pub fn export(egg: &Egg, exported_at: &str, db: Database) -> Value {
    map(vec![
        ("_comment", json!(COMMENT)),
        (
            "meta",
            map(vec![
                ("version", json!(EXPORT_VERSION)),
                ("update_url", egg.update_url.clone()),
            ]),
        ),
        ("exported_at", json!(exported_at)),
        ("name", egg.name.clone()),
        ("author", egg.author.clone()),
        ("uuid", egg.uuid.clone()),
        ("description", egg.description.clone()),
        ("icon", egg.icon.clone().map_or(Value::Null, Value::String)),
        ("tags", egg.tags.clone()),
        ("features", egg.features.clone()),
        ("docker_images", egg.docker_images.clone()),
        ("file_denylist", Value::Array(egg.file_denylist.clone())),
        ("startup_commands", egg.startup_commands.clone()),
        ("config", config(egg, egg.config_files.clone())),
        ("scripts", scripts(egg)),
        (
            "variables",
            Value::Array(read_order(&egg.variables, db).map(Value::Object).collect()),
        ),
    ])
}

/// The variables in the order the exporter reads them back (`$egg->variables`, a relation with
/// no `orderBy`), each with its fields in the table's column order: both are the database's
/// ([`ExportOrder::variable_order`], [`ExportOrder::variable_fields`]). The differential test shows the
/// plans and the orders on the real servers.
fn read_order(
    variables: &[Map<String, Value>],
    db: Database,
) -> impl Iterator<Item = Map<String, Value>> {
    let mut sorted: Vec<&Map<String, Value>> = variables.iter().collect();
    sorted.sort_by(|a, b| db.variable_order(a, b));
    sorted.into_iter().map(move |v| db.variable_fields(v))
}

/// `config` of both panels' exports (same keys, same order), with `files` as given.
pub fn config(egg: &Egg, files: Value) -> Value {
    map(vec![
        ("files", files),
        ("startup", egg.config_startup.clone()),
        ("logs", egg.config_logs.clone()),
        ("stop", egg.config_stop.clone()),
    ])
}

/// `scripts` of both panels' exports.
pub fn scripts(egg: &Egg) -> Value {
    map(vec![(
        "installation",
        map(vec![
            ("script", egg.script.clone()),
            ("container", egg.container.clone()),
            ("entrypoint", egg.entrypoint.clone()),
        ]),
    )])
}

/// `EggExporterService::yamlExport`: JSON text becomes data (recursively), CRLF becomes LF, and
/// a `description` over 80 bytes or with a line break is word-wrapped at 100.
pub fn yaml_export(v: &Value) -> Value {
    match v {
        Value::String(s) => match json_decode(s) {
            Some(decoded) => yaml_export(&normalize(&decoded)),
            None => Value::String(s.replace("\r\n", "\n")),
        },
        Value::Array(items) => Value::Array(items.iter().map(yaml_export).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, val)| {
                    let out = match val {
                        Value::String(s)
                            if k.eq_ignore_ascii_case("description")
                                && (s.contains('\n') || s.len() > 80) =>
                        {
                            Value::String(php::wordwrap(s, 100))
                        }
                        other => yaml_export(other),
                    };
                    (k.clone(), out)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Where the YAML export (`yaml_export`) turned a text that Pelican's models validate as a
/// string into something else, the text again, so that Pelican can import the file; returns
/// the texts put back, each named by its place (`MAX_USERS` default `50`).
///
/// `yamlExport` decodes every text that is valid JSON, so a `default_value` of `100` is written
/// as the number 100, and Pelican's own import of that file fails: `EggVariable::getRules` has
/// `default_value: string`, checked on save (`ValidationObserver`), and `parse` turns only
/// booleans back into text. Pelican's update check compares with its own export, numbers
/// included, so a file with the text put back reads "Found update" there; `pelican.json`
/// has neither problem (docs/panels.md).
pub fn keep_validated_text(export: &Value, yaml: &mut Value) -> Vec<String> {
    let mut kept = Vec::new();
    let mut keep = |place: String, from: &Value, to: &mut Value, nullable: bool, bool_ok: bool| {
        let refused = match to {
            Value::String(_) => false,
            Value::Null => !nullable,
            Value::Bool(_) => !bool_ok,
            _ => true,
        };
        if refused && let Value::String(text) = from {
            kept.push(format!("{place} `{text}`"));
            *to = from.clone();
        }
    };
    for (field, nullable) in eggcat_egg::panel::PELICAN_EGG_TEXT_FIELDS {
        let path: Vec<&str> = field.split('.').collect();
        if let (Some(from), Some(to)) = (at(export, &path), at_mut(yaml, &path)) {
            keep(format!("`{field}`"), from, to, *nullable, false);
        }
    }
    for list in eggcat_egg::panel::PELICAN_EGG_TEXT_LISTS {
        if let (Some(from), Some(to)) = (export.get(*list), yaml.get_mut(*list)) {
            for (key, to) in members_mut(to) {
                if let Some(from) = member(from, &key) {
                    keep(format!("`{list}.{key}`"), from, to, false, false);
                }
            }
        }
    }
    let (Some(Value::Array(from)), Some(Value::Array(to))) =
        (export.get("variables"), yaml.get_mut("variables"))
    else {
        return kept;
    };
    for (from, to) in from.iter().zip(to.iter_mut()) {
        let env = from["env_variable"].as_str().unwrap_or("").to_owned();
        for (field, nullable) in eggcat_egg::panel::PELICAN_VARIABLE_TEXT_FIELDS {
            if let (Some(f), Some(t)) = (from.get(*field), to.get_mut(*field)) {
                // `parse` turns a boolean default into 'true'/'false' before the save.
                let place = format!("the {} of `{env}`", field.replace('_', " "));
                keep(place, f, t, *nullable, *field == "default_value");
            }
        }
        if let (Some(f), Some(t)) = (from.get("rules"), to.get_mut("rules")) {
            for (key, t) in members_mut(t) {
                if let Some(f) = member(f, &key) {
                    keep(format!("a rule of `{env}`"), f, t, false, false);
                }
            }
        }
    }
    kept
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn at_mut<'a>(v: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| v.get_mut(*k))
}

/// The members of a list or map with their keys (list indexes as text).
fn members_mut(v: &mut Value) -> Vec<(String, &mut Value)> {
    match v {
        Value::Array(a) => a
            .iter_mut()
            .enumerate()
            .map(|(i, x)| (i.to_string(), x))
            .collect(),
        Value::Object(m) => m.iter_mut().map(|(k, x)| (k.clone(), x)).collect(),
        _ => Vec::new(),
    }
}

fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Array(a) => key.parse::<usize>().ok().and_then(|i| a.get(i)),
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_are_prefixed_in_the_commands_too() {
        assert_eq!(
            prefix_words("java -Xmx{{SERVER_MEMORY}} {{TZ}} TZX", &["TZ".to_owned()]),
            "java -Xmx{{SERVER_MEMORY}} {{SERVER_TZ}} TZX"
        );
    }

    #[test]
    fn refusals_are_told_apart_and_keep_their_sentences() {
        let refusal = |file: Value| import(&file).expect_err("the panel throws");
        assert_eq!(refusal(json!([1])), ImportError::NotAMap);
        assert_eq!(
            refusal(json!({"meta": {"version": "PTDL_v3"}})).to_string(),
            "Pelican does not recognize the format `PTDL_v3` (it imports PTDL_v1, PTDL_v2, PLCN_v1, PLCN_v2 and PLCN_v3)"
        );
        let variable = json!({
            "meta": {"version": "PLCN_v3"}, "name": "n", "author": "a@example.com",
            "variables": [{"name": "A", "description": "", "env_variable": "A",
                "default_value": "", "rules": "", "user_viewable": 2}],
        });
        assert_eq!(
            refusal(variable).to_string(),
            "variable 0: `user_viewable` is 2, which Pelican's `boolean` rule refuses (true, false, 0, 1)"
        );
    }

    #[test]
    fn placeholders_upgraded_in_order() {
        assert_eq!(
            upgrade_variables("{{server.build.env.SERVER_PORT}} {{server.build.env.X}}"),
            "{{server.allocations.default.port}} {{server.environment.X}}"
        );
    }
}
