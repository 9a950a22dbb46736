//! From a file's name and bytes to an egg to diff, or one clear reason why not: too large, not
//! JSON or YAML, not an egg. The same parser and egg rule as the catalog (`eggcat_egg::parse`,
//! `eggcat_egg::inspect`), so a file the catalog skips is refused here for the same reason.

use eggcat_egg::{ParseError, ShapeError, SyntaxKind, inspect, parse};
use serde_json::Value;

/// The largest egg file read: the catalog's own limit (16 MiB).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file cannot be diffed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Over [`MAX_FILE_BYTES`].
    #[error("file is {0} bytes, over the 16 MiB an egg file may have")]
    TooLarge(u64),
    /// Not JSON or YAML (or binary junk). The message is the parser's, whole (not a source,
    /// so a chain of errors does not print it twice).
    #[error("{0}")]
    Parse(ParseError),
    /// JSON or YAML, but not an egg.
    #[error("not an egg: {0}")]
    NotAnEgg(ShapeError),
}

/// The egg in `bytes`; `name` picks the syntax by its extension (`.json`, `.yaml`, `.yml`),
/// and any other name is read as JSON when it starts with `{`, else as YAML.
pub fn load(name: &str, bytes: &[u8]) -> Result<Value, LoadError> {
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge(size));
    }
    let syntax = SyntaxKind::from_file_name(name).unwrap_or_else(|| {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => SyntaxKind::Json,
            _ => SyntaxKind::Yaml,
        }
    });
    let value = parse(bytes, syntax).map_err(LoadError::Parse)?.value;
    inspect(&value).map_err(LoadError::NotAnEgg)?;
    Ok(value)
}
