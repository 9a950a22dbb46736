//! The egg formats: a faithful parse of an upstream egg file and a typed view of the few fields
//! the catalog needs. No IO.
//!
//! An egg is a JSON or YAML document written by a Pterodactyl or Pelican panel. The catalog
//! republishes it as an open JSON object, so parsing must be faithful (same keys in the same
//! order, same values) and must refuse what a faithful copy cannot represent: duplicate keys
//! (which one would be "the" value?), byte-order marks and invalid UTF-8, nesting deeper than
//! [`MAX_JSON_DEPTH`] or [`MAX_YAML_DEPTH`], YAML alias bombs.

mod faithful;
mod view;

pub use faithful::{MAX_JSON_DEPTH, MAX_YAML_DEPTH, ParseError, SyntaxKind, parse};
pub use view::{EggInfo, ShapeError, inspect};
