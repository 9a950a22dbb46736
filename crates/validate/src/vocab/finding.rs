//! What a check produces and what every check reads the same way: the [`Finding`] (a code, a
//! sentence and a JSON pointer; positions come later, from the source), the egg's [`Family`]
//! (which panels judge it), the findings of a missing field or of a field of the wrong type,
//! and plain lookups in the parsed egg.
//!
//! Which panel judges: a PTDL egg is imported by Pterodactyl and by Pelican, so it must satisfy
//! both (the stricter rule wins); a PLCN egg is imported by Pelican only.

use serde_json::{Map, Value};

use super::code::Code;
use crate::span::child;

/// One finding before it has a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub(crate) code: Code,
    pub(crate) message: String,
    pub(crate) pointer: String,
    /// Underline the member's key rather than its value (a bad name, a missing child).
    pub(crate) on_key: bool,
    pub(crate) help: Option<String>,
    /// A position known without the span mapper (parse errors): 1-based line and column.
    pub(crate) at: Option<(u32, u32)>,
    /// Text inside the value to underline instead of the whole value (a placeholder inside a
    /// command, one rule of a rules string), when it appears there as written.
    pub(crate) needle: Option<String>,
}

impl Finding {
    pub(crate) fn new(
        code: Code,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            code,
            message: message.into(),
            pointer: pointer.into(),
            on_key: false,
            help: None,
            at: None,
            needle: None,
        }
    }

    pub(crate) fn needle(mut self, needle: impl Into<String>) -> Finding {
        self.needle = Some(needle.into());
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn on_key(mut self) -> Finding {
        self.on_key = true;
        self
    }
}

/// Which panels import the egg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `PTDL_v1`, `PTDL_v2`: Pterodactyl and Pelican.
    Ptdl,
    /// `PLCN_v1` to `PLCN_v3`: Pelican only.
    Plcn,
}

/// The formats the panels import (Pelican `EggImporterService::parse`, Pterodactyl
/// `EggParserService`).
pub(crate) fn family(format: &str) -> Option<Family> {
    match format {
        "PTDL_v1" | "PTDL_v2" => Some(Family::Ptdl),
        "PLCN_v1" | "PLCN_v2" | "PLCN_v3" => Some(Family::Plcn),
        _ => None,
    }
}

/// A field of the wrong type.
pub(crate) fn wrong_type(pointer: &str, expected: &str, found: &Value) -> Finding {
    Finding::new(
        Code::WrongType,
        pointer,
        format!(
            "`{}` is {}, not {expected}",
            last_token(pointer),
            kind(found)
        ),
    )
}

/// A required field that is missing.
pub(crate) fn missing(parent: &str, key: &str, why: &str) -> Finding {
    Finding::new(
        Code::MissingField,
        child(parent, key),
        format!("`{key}` is missing; {why}"),
    )
}

fn last_token(pointer: &str) -> String {
    pointer
        .rsplit('/')
        .next()
        .unwrap_or(pointer)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// "a string", "null", ... for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The value at `pointer` (plain keys only) in an object.
pub(crate) fn at<'a>(doc: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let mut parts = pointer.trim_start_matches('/').split('/');
    let first = doc.get(parts.next()?)?;
    parts.try_fold(first, |v, k| v.get(k))
}
