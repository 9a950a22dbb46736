//! The startup command(s): present, not empty, distinct (PLCN), and every `{{NAME}}`
//! placeholder naming a variable of the egg or one the panel, Wings or the image provide
//! (`placeholder.rs` says which).

use serde_json::{Map, Value};

use crate::placeholder::{Known, placeholders};
use crate::span::child;
use crate::vocab::{Code, Family, Finding, missing, wrong_type};

/// Checks the startup command(s) of `doc`; returns their texts, which the unused-variable
/// check searches.
pub(crate) fn check_startup(
    doc: &Map<String, Value>,
    fam: Family,
    known: &Known,
    out: &mut Vec<Finding>,
) -> Vec<String> {
    let mut texts = Vec::new();
    for (pointer, command) in startup_commands(doc, fam, out) {
        for (name, written) in placeholders(&command) {
            if !known.contains(name) {
                out.push(
                    Finding::new(Code::UnknownStartupPlaceholder, &pointer, format!("startup placeholder `{{{{{name}}}}}` names no variable of the egg and none the panel provides"))
                        .help("declare a variable with this env_variable or fix the spelling, unless the image's entrypoint sets it")
                        .needle(written),
                );
            }
        }
        texts.push(command);
    }
    texts
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
                            Code::MissingField,
                            &p,
                            format!("startup command `{k}` is empty"),
                        )),
                        Value::String(s) => {
                            if let Some(other) = seen.get(s.as_str()) {
                                out.push(Finding::new(Code::DuplicateStartupCommand, &p, format!("startup command `{k}` is the same as `{other}`; Pelican requires distinct commands")));
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
                Code::MissingField,
                "/startup_commands",
                "`startup_commands` is empty; Pelican requires at least one",
            )),
            v => out.push(wrong_type("/startup_commands", "an object of commands", v)),
        }
        return commands;
    }
    match doc.get("startup") {
        Some(Value::String(s)) if s.trim().is_empty() => out.push(Finding::new(
            Code::MissingField,
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
