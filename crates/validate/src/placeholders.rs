//! The startup command(s): placeholders that name something, distinct commands; and the
//! variables that nothing uses. `config` has its own file, `config.rs`.
//!
//! What a placeholder may name. In a startup command, `{{NAME}}` is replaced by the panel
//! (`StartupCommandService`: the egg's variables, SERVER_MEMORY, SERVER_IP, SERVER_PORT) and,
//! for the rest, by the image's entrypoint, which turns `{{X}}` into `${X}` and expands it from
//! the container's environment: Wings sets TZ, STARTUP, SERVER_MEMORY, SERVER_IP, SERVER_PORT,
//! P_SERVER_LOCATION, P_SERVER_UUID, P_SERVER_ALLOCATION_LIMIT; the yolks images add
//! INTERNAL_IP, and every image has HOME and USER.

use serde_json::{Map, Value};

use crate::egg::{Family, Finding, missing, wrong_type};
use crate::span::child;

/// Variables the panel, Wings or the image provide.
pub(crate) const PROVIDED: &[&str] = &[
    "SERVER_MEMORY",
    "SERVER_IP",
    "SERVER_PORT",
    "P_SERVER_LOCATION",
    "P_SERVER_UUID",
    "P_SERVER_ALLOCATION_LIMIT",
    "TZ",
    "STARTUP",
    "INTERNAL_IP",
    "HOME",
    "USER",
];

/// Wings' configuration file parsers (`parser/parser.go`).
/// Variables read by the runtime or by the yolks images' entrypoints rather than by anything
/// in the egg, so never "unused".
const READ_BY_IMAGES: &[&str] = &[
    "AUTO_UPDATE",
    "VALIDATE",
    "WINEDEBUG",
    "WINEARCH",
    "WINEPATH",
    "WINETRICKS_RUN",
    "XVFB",
    "LD_LIBRARY_PATH",
    "DOTNET_BUNDLE_EXTRACT_BASE_DIR",
    "NODE_ENV",
    "STEAMCMD_ATTEMPTS",
];

pub(crate) fn check_startup_and_config(
    doc: &Map<String, Value>,
    fam: Family,
    out: &mut Vec<Finding>,
) {
    let vars = env_names(doc);
    let known = |name: &str| vars.iter().any(|v| v == name) || PROVIDED.contains(&name);
    // Every text that can name a variable, for the "unused" check.
    let mut texts: Vec<String> = Vec::new();
    for (pointer, command) in startup_commands(doc, fam, out) {
        for (name, written) in placeholders(&command) {
            if !known(name) {
                out.push(
                    Finding::new("E040", &pointer, format!("startup placeholder `{{{{{name}}}}}` names no variable of the egg and none the panel provides"))
                        .help("declare a variable with this env_variable or fix the spelling, unless the image's entrypoint sets it")
                        .needle(written),
                );
            }
        }
        texts.push(command);
    }
    if let Some(config) = crate::config::check_config(doc, fam, out) {
        crate::config::check_files(&config, &known, out);
        texts.push(config.files_text);
    }
    if let Some(Value::String(s)) = crate::install::at(doc, "/scripts/installation/script") {
        texts.push(s.clone());
    }
    if let Some(Value::Array(items)) = doc.get("variables") {
        for (i, item) in items.iter().enumerate() {
            let Some(Value::String(env)) = item.get("env_variable") else {
                continue;
            };
            if !READ_BY_IMAGES.contains(&env.as_str()) && !texts.iter().any(|t| mentions(t, env)) {
                out.push(
                    Finding::new("E041", child(&child("/variables", &i.to_string()), "env_variable"), format!("variable `{env}` is used by neither the startup command, the config files nor the install script"))
                        .help("the image may read it from the environment; if nothing does, remove it"),
                );
            }
        }
    }
}

/// The egg's env_variable names.
fn env_names(doc: &Map<String, Value>) -> Vec<String> {
    match doc.get("variables") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| {
                v.get("env_variable")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The startup command(s) with their pointers; reports a missing or malformed one.
fn startup_commands(
    doc: &Map<String, Value>,
    fam: Family,
    out: &mut Vec<Finding>,
) -> Vec<(String, String)> {
    let mut commands = Vec::new();
    if fam == Family::Plcn
        && let Some(v) = doc.get("startup_commands")
    {
        match v {
            Value::Object(map) if !map.is_empty() => {
                // Command text -> the first command's name; a map, so that a hostile egg with
                // thousands of commands stays linear.
                let mut seen: std::collections::HashMap<&str, &str> =
                    std::collections::HashMap::new();
                for (k, c) in map {
                    let p = child("/startup_commands", k);
                    match c {
                        Value::String(s) if s.trim().is_empty() => out.push(Finding::new(
                            "E013",
                            &p,
                            format!("startup command `{k}` is empty"),
                        )),
                        Value::String(s) => {
                            if let Some(other) = seen.get(s.as_str()) {
                                out.push(Finding::new("E042", &p, format!("startup command `{k}` is the same as `{other}`; Pelican requires distinct commands")));
                            } else {
                                seen.insert(s, k);
                            }
                            commands.push((p, s.clone()));
                        }
                        v => out.push(wrong_type(&p, "a string", v)),
                    }
                }
            }
            Value::Object(_) => out.push(Finding::new(
                "E013",
                "/startup_commands",
                "`startup_commands` is empty; Pelican requires at least one",
            )),
            v => out.push(wrong_type("/startup_commands", "an object of commands", v)),
        }
        return commands;
    }
    match doc.get("startup") {
        Some(Value::String(s)) if s.trim().is_empty() => out.push(Finding::new(
            "E013",
            "/startup",
            "the startup command is empty",
        )),
        Some(Value::String(s)) => commands.push(("/startup".to_owned(), s.clone())),
        None | Some(Value::Null) => {
            let key = if fam == Family::Plcn {
                "startup_commands"
            } else {
                "startup"
            };
            out.push(missing("", key, "the egg has no startup command"));
        }
        Some(v) => out.push(wrong_type("/startup", "a string", v)),
    }
    commands
}

/// `{{NAME}}` placeholders of a text: (the name between the braces, trimmed; the placeholder
/// as written, braces included).
pub(crate) fn placeholders(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else { break };
        let name = after[..j].trim();
        if !name.is_empty() && !name.contains("{{") {
            out.push((name, &rest[i..i + 2 + j + 2]));
        }
        rest = &after[j + 2..];
    }
    out
}

/// Whether `text` mentions `name` as a whole word (`{{NAME}}`, `$NAME`, `${NAME}`, `env.NAME`).
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}
