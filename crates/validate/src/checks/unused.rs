//! Variables nothing references: an env_variable that appears in neither the startup
//! commands, the `config.files` JSON nor the install script, and that no runtime or yolks
//! image reads by itself (a note: the application may read it from the environment).

use serde_json::{Map, Value};

use crate::span::child;
use crate::vocab::{Code, Finding};

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

/// Reports each variable of `doc` whose env_variable no text of `texts` mentions.
pub(crate) fn check_unused(doc: &Map<String, Value>, texts: &[String], out: &mut Vec<Finding>) {
    let Some(Value::Array(items)) = doc.get("variables") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let Some(Value::String(env)) = item.get("env_variable") else {
            continue;
        };
        if !READ_BY_IMAGES.contains(&env.as_str()) && !texts.iter().any(|t| mentions(t, env)) {
            out.push(
                Finding::new(Code::UnusedVariable, child(&child("/variables", &i.to_string()), "env_variable"), format!("variable `{env}` is used by neither the startup command, the config files nor the install script"))
                    .help("the image may read it from the environment; if nothing does, remove it"),
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_mentioned_as_whole_words() {
        assert!(mentions("java -jar {{SERVER_JARFILE}}", "SERVER_JARFILE"));
        assert!(mentions("echo $PORT ${PORT}", "PORT"));
        assert!(!mentions("{{SERVER_PORT}} {{PORT_2}}", "PORT"));
    }
}
