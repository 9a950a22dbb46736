//! `{{NAME}}` placeholders, as the startup commands and `config.files` write them, and the
//! names a placeholder may name: the egg's variables and what the panel, Wings or the image
//! provide. Shared by the startup and config checks; reports nothing itself.
//!
//! What a placeholder may name. In a startup command, `{{NAME}}` is replaced by the panel
//! (`StartupCommandService`: the egg's variables, SERVER_MEMORY, SERVER_IP, SERVER_PORT) and,
//! for the rest, by the image's entrypoint, which turns `{{X}}` into `${X}` and expands it from
//! the container's environment: Wings sets TZ, STARTUP, SERVER_MEMORY, SERVER_IP, SERVER_PORT,
//! P_SERVER_LOCATION, P_SERVER_UUID, P_SERVER_ALLOCATION_LIMIT; the yolks images add
//! INTERNAL_IP, and every image has HOME and USER.

use serde_json::{Map, Value};

/// Variables the panel, Wings or the image provide.
const PROVIDED: &[&str] = &[
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

/// The names a placeholder of one egg may name.
#[derive(Debug, Clone)]
pub(crate) struct Known {
    /// The egg's env_variable names.
    variables: Vec<String>,
}

impl Known {
    /// The names known in `doc`: its variables' env_variable names, and [`PROVIDED`].
    pub(crate) fn of(doc: &Map<String, Value>) -> Known {
        let variables = match doc.get("variables") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| {
                    v.get("env_variable")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect(),
            _ => Vec::new(),
        };
        Known { variables }
    }

    /// Whether `name` is a variable of the egg or one that is provided.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.variables.iter().any(|v| v == name) || PROVIDED.contains(&name)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_read_as_written() {
        assert_eq!(
            placeholders("java {{ SERVER_JARFILE }} {{}} {{A{{B}} -jar {{C}} {{D"),
            [("SERVER_JARFILE", "{{ SERVER_JARFILE }}"), ("C", "{{C}}")]
        );
    }

    #[test]
    fn known_names_are_the_variables_and_the_provided_ones() {
        let doc = serde_json::json!({"variables": [{"env_variable": "JAR"}, {"name": "x"}]});
        let known = Known::of(doc.as_object().expect("an object"));
        assert!(known.contains("JAR") && known.contains("SERVER_PORT"));
        assert!(!known.contains("OTHER") && !known.contains("jar"));
    }
}
