//! The typed view of an egg: the two fields the catalog requires, checked.

use serde_json::Value;

/// What the catalog reads from a parsed egg.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EggInfo {
    /// `name`, as written upstream (not yet normalized).
    pub name: String,
    /// `meta.version`, e.g. `PTDL_v2` or `PLCN_v3`.
    pub format: String,
}

/// Why a parsed document is not an egg.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The top level is an array, a string, ...
    #[error("document is {0}, not an object")]
    NotAnObject(&'static str),
    /// `meta.version` is missing or not a string.
    #[error("no format version: `meta.version` is missing or not a string")]
    NoFormat,
    /// `meta.version` is a string but not `PTDL_vN` or `PLCN_vN`.
    #[error("unknown format version `{0}` (expected PTDL_vN or PLCN_vN)")]
    UnknownFormat(String),
    /// `name` is missing, not a string, or blank.
    #[error("no name: `name` is missing, not a string, or blank")]
    NoName,
}

/// Checks that `doc` is an egg and returns its name and format version.
pub fn inspect(doc: &Value) -> Result<EggInfo, ShapeError> {
    let object = doc.as_object().ok_or(ShapeError::NotAnObject(kind(doc)))?;
    let format = object
        .get("meta")
        .and_then(|m| m.get("version"))
        .and_then(Value::as_str)
        .ok_or(ShapeError::NoFormat)?;
    if !is_known_format(format) {
        return Err(ShapeError::UnknownFormat(format.to_owned()));
    }
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or(ShapeError::NoName)?;
    Ok(EggInfo {
        name: name.to_owned(),
        format: format.to_owned(),
    })
}

/// `PTDL_vN` (Pterodactyl) or `PLCN_vN` (Pelican), N a decimal number without sign.
fn is_known_format(format: &str) -> bool {
    ["PTDL_v", "PLCN_v"].iter().any(|prefix| {
        format
            .strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_both_families() {
        let info = inspect(&json!({"meta": {"version": "PLCN_v3"}, "name": " Paper "})).unwrap();
        assert_eq!(info.format, "PLCN_v3");
        assert_eq!(info.name, " Paper ");
        assert!(inspect(&json!({"meta": {"version": "PTDL_v2"}, "name": "x"})).is_ok());
    }

    #[test]
    fn refuses_what_is_not_an_egg() {
        assert_eq!(
            inspect(&json!([1])),
            Err(ShapeError::NotAnObject("an array"))
        );
        assert_eq!(inspect(&json!({"name": "x"})), Err(ShapeError::NoFormat));
        assert_eq!(
            inspect(&json!({"meta": {"version": 2}, "name": "x"})),
            Err(ShapeError::NoFormat)
        );
        for bad in ["PTDL_v", "PTDL_vx", "ptdl_v2", "PTDL_v2 ", "EGG_v1"] {
            assert_eq!(
                inspect(&json!({"meta": {"version": bad}, "name": "x"})),
                Err(ShapeError::UnknownFormat(bad.into()))
            );
        }
        for name in [json!(null), json!(""), json!("  \n"), json!(3)] {
            assert_eq!(
                inspect(&json!({"meta": {"version": "PTDL_v2"}, "name": name})),
                Err(ShapeError::NoName)
            );
        }
    }
}
