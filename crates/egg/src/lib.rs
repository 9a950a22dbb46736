//! The egg formats: a faithful parse of an upstream egg file and a typed view of the few fields
//! the catalog needs. No IO.
//!
//! An egg is a JSON or YAML document written by a Pterodactyl or Pelican panel. The catalog
//! republishes it as an open JSON object, so parsing must be faithful (same keys in the same
//! order, same values), must refuse what it cannot represent (byte-order marks, invalid UTF-8,
//! nesting deeper than [`MAX_JSON_DEPTH`] or [`MAX_YAML_DEPTH`], YAML alias bombs), and must treat
//! duplicate keys the way the panel that imports the egg does (see `faithful.rs`).

mod faithful;
mod images;
pub mod panel;
mod view;

pub use faithful::{
    MAX_JSON_DEPTH, MAX_YAML_DEPTH, MAX_YAML_KEY_CHARS, MAX_YAML_NODES, ParseError, Parsed,
    SyntaxKind, parse,
};
pub use images::{ImageRole, ImageUse, images};
pub use view::{EggInfo, ShapeError, inspect};
