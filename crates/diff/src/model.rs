//! An egg read into the terms a panel admin uses, with every format-only difference taken out:
//! PTDL's `startup` string and PLCN's `startup_commands` map, `images` lists and
//! `docker_images` maps, `config` sections as JSON text or as nested data, rules as `|` text or
//! as a list, key order, CRLF line ends, and PHP's view of arrays (an empty `{}` is an empty
//! `[]`). The reading is lenient: a missing or ill-typed field reads as empty, so any JSON value
//! gives a model and the diff never fails (`eggcat validate` is the place for complaints).

use eggcat_panels::{pelican, php};
use eggcat_validate::split_rules;
use serde_json::{Map, Value};

/// One egg, normalized. Lists that are sets to the panel (features, denylist, tags) are sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Model {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) author: String,
    pub(crate) uuid: String,
    pub(crate) update_url: String,
    pub(crate) icon: String,
    pub(crate) tags: Vec<String>,
    pub(crate) features: Vec<String>,
    /// Docker images: (label, image reference), in file order.
    pub(crate) images: Vec<(String, String)>,
    /// Startup commands: (name, command); the name is `None` for PTDL's single `startup`.
    pub(crate) startup: Vec<(Option<String>, String)>,
    pub(crate) stop: String,
    /// `config.files` decoded: a map of file name to its parser and replacements.
    pub(crate) config_files: Map<String, Value>,
    /// `config.startup` decoded.
    pub(crate) config_startup: Map<String, Value>,
    /// `config.logs` decoded (deprecated by both panels, still carried).
    pub(crate) config_logs: Value,
    pub(crate) container: String,
    pub(crate) entrypoint: String,
    pub(crate) script: String,
    pub(crate) denylist: Vec<String>,
    pub(crate) variables: Vec<Variable>,
}

/// One variable, normalized.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Variable {
    pub(crate) env: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) default: String,
    /// The rules as written, split as Laravel splits a rules string (`eggcat-validate`'s
    /// grammar), empty pieces dropped (Laravel skips them), in file order.
    pub(crate) rules: Vec<String>,
    pub(crate) viewable: bool,
    pub(crate) editable: bool,
}

impl Variable {
    /// Everything but `env_variable` equal: a variable renamed and nothing else.
    pub(crate) fn same_but_env(&self, other: &Variable) -> bool {
        Variable {
            env: String::new(),
            ..self.clone()
        } == Variable {
            env: String::new(),
            ..other.clone()
        }
    }
}

/// Reads `egg` (any format, as parsed by `eggcat_egg::parse`) into its [`Model`].
pub(crate) fn read(egg: &Value) -> Model {
    let egg = php::normalize(egg);
    let get = |path: &str| -> &Value { at(&egg, path) };
    let config = |key: &str| decoded(get(&format!("config.{key}")));
    Model {
        name: text(get("name")),
        description: text(get("description")),
        author: text(get("author")),
        uuid: text(get("uuid")),
        update_url: text(get("meta.update_url")),
        // PLCN_v1/v2 carried the icon as `image` when it is a data URL (Pelican's importer).
        icon: match (get("icon"), get("image")) {
            (Value::String(s), _) => s.clone(),
            (_, Value::String(s)) if s.starts_with("data:") => s.clone(),
            _ => String::new(),
        },
        tags: set(get("tags")),
        features: set(get("features")),
        images: images(&egg),
        startup: startup(&egg),
        stop: text(get("config.stop")),
        // Pelican's importer upgrades the old placeholder names in `config.files`; Wings reads
        // both, so the spelling is not a change.
        config_files: match config("files") {
            Value::Object(m) => upgraded(m),
            _ => Map::new(),
        },
        config_startup: match config("startup") {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        config_logs: match config("logs") {
            v if php::is_empty(&v) => Value::Null,
            v => v,
        },
        container: text(get("scripts.installation.container")),
        entrypoint: text(get("scripts.installation.entrypoint")),
        script: text(get("scripts.installation.script")),
        denylist: set(get("file_denylist")),
        variables: match get("variables") {
            Value::Array(list) => upserted(list.iter().filter_map(variable)),
            _ => Vec::new(),
        },
    }
}

/// The value at a dotted path, or null.
fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.')
        .try_fold(v, |cur, key| cur.as_object().and_then(|m| m.get(key)))
        .unwrap_or(&Value::Null)
}

/// A scalar as text, the way the panel stores it in a text column, CRLF read as LF.
pub(crate) fn text(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        other => serde_json::to_string(other).expect("a JSON value serializes"),
    };
    lf(&s)
}

/// CRLF (and a lone CR) read as LF: Windows line ends are not a change.
pub(crate) fn lf(s: &str) -> String {
    if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s.to_owned()
    }
}

/// A list (or map of values) of scalars as a sorted set of texts, empty entries dropped.
fn set(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = match v {
        Value::Array(items) => items.iter().map(text).collect(),
        Value::Object(m) => m.values().map(text).collect(),
        Value::Null => Vec::new(),
        other => vec![text(other)],
    };
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

/// `docker_images` (PTDL_v2, PLCN: `eggcat_egg::docker_images`, the one reading of the field),
/// or PTDL_v1's `images` list or single `image`.
fn images(egg: &Value) -> Vec<(String, String)> {
    let docker_images = || {
        eggcat_egg::docker_images(egg)
            .into_iter()
            .filter_map(|used| match used.role {
                eggcat_egg::ImageRole::Runtime(label) => Some((lf(&label), lf(&used.image))),
                eggcat_egg::ImageRole::Install => None,
            })
    };
    match (
        at(egg, "docker_images"),
        at(egg, "images"),
        at(egg, "image"),
    ) {
        (Value::Object(_), _, _) => docker_images().collect(),
        // PTDL_v1's `images` map: its values, each its own label (Pelican's `convertLegacy`).
        (_, Value::Object(m), _) => m
            .values()
            .map(|v| (text(v), text(v)))
            .filter(|(_, i)| !i.is_empty())
            .collect(),
        (Value::Array(_), _, _) => docker_images().filter(|(_, i)| !i.is_empty()).collect(),
        (_, Value::Array(list), _) => list
            .iter()
            .map(|v| (text(v), text(v)))
            .filter(|(_, i)| !i.is_empty())
            .collect(),
        (_, _, Value::String(i)) if !i.is_empty() && !i.starts_with("data:") => {
            vec![(lf(i), lf(i))]
        }
        _ => Vec::new(),
    }
}

/// `startup_commands` (PLCN) or `startup` (PTDL).
fn startup(egg: &Value) -> Vec<(Option<String>, String)> {
    match (at(egg, "startup_commands"), at(egg, "startup")) {
        (Value::Object(m), _) => m.iter().map(|(k, v)| (Some(lf(k)), text(v))).collect(),
        (Value::Array(list), _) if !list.is_empty() => list
            .iter()
            .enumerate()
            .map(|(i, v)| (Some(i.to_string()), text(v)))
            .collect(),
        (_, Value::Null) => Vec::new(),
        (_, v) => vec![(None, text(v))],
    }
}

/// A `config` section: JSON text decoded (as the panel does), nested data kept; strings in it
/// read with LF line ends; PHP's array model applied.
fn decoded(v: &Value) -> Value {
    let value = match v {
        Value::String(s) => php::json_decode(s).unwrap_or_else(|| Value::String(s.clone())),
        other => other.clone(),
    };
    strings_lf(&php::normalize(&value))
}

fn strings_lf(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(lf(s)),
        Value::Array(items) => Value::Array(items.iter().map(strings_lf).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (lf(k), strings_lf(v))).collect()),
        other => other.clone(),
    }
}

/// `config.files` with every placeholder in one spelling: Pelican's importer upgrades the old
/// names (`server.build.env.X` to `server.environment.X`, ...), and both panels read
/// `{{env.X}}` as the variable X too (`EggConfigurationService::matchAndReplaceKeys`).
fn upgraded(files: Map<String, Value>) -> Map<String, Value> {
    fn walk(v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(
                pelican::upgrade_variables(&s).replace("{{env.", "{{server.environment."),
            ),
            Value::Array(items) => Value::Array(items.into_iter().map(walk).collect()),
            Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, walk(v))).collect()),
            other => other,
        }
    }
    files.into_iter().map(|(k, v)| (k, walk(v))).collect()
}

/// The variables with one entry per `env_variable`: a later variable of the same name replaces
/// the earlier one in its place, as the panels' import upserts by `env_variable`.
fn upserted(vars: impl Iterator<Item = Variable>) -> Vec<Variable> {
    let mut out: Vec<Variable> = Vec::new();
    for v in vars {
        match out.iter_mut().find(|x| x.env == v.env) {
            Some(earlier) => *earlier = v,
            None => out.push(v),
        }
    }
    out
}

/// One variable; `None` for an entry that is not a map (nothing to match it by).
fn variable(v: &Value) -> Option<Variable> {
    let m = v.as_object()?;
    let field = |k: &str| m.get(k).unwrap_or(&Value::Null);
    let rules: Vec<String> = match field("rules") {
        Value::Array(items) => items.iter().map(text).collect(),
        Value::Object(m) => m.values().map(text).collect(),
        other => split_rules(&text(other))
            .into_iter()
            .map(str::to_owned)
            .collect(),
    };
    Some(Variable {
        env: text(field("env_variable")),
        name: text(field("name")),
        description: text(field("description")),
        default: text(field("default_value")),
        rules: rules
            .into_iter()
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty())
            .collect(),
        viewable: flag(field("user_viewable")),
        editable: flag(field("user_editable")),
    })
}

/// A flag the way PHP casts it to a boolean column: missing, 0, "0", "" and false are false.
fn flag(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !(s.is_empty() || s == "0"),
        Value::Null => false,
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}
