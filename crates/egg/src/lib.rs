//! The egg formats: a faithful parse of an upstream egg file and a typed view of the few fields
//! the catalog needs. No IO.
//!
//! An egg is a JSON or YAML document written by a Pterodactyl or Pelican panel. The catalog
//! republishes it as an open JSON object, so parsing must be faithful (same keys in the same
//! order, same values), must refuse what it cannot represent (byte-order marks, invalid UTF-8,
//! nesting deeper than [`MAX_JSON_DEPTH`] or [`MAX_YAML_DEPTH`], YAML alias bombs), and must treat
//! duplicate keys the way the panel that imports the egg does (see `faithful.rs`).
//! [`parse_with_spans`] also gives where each node is in the text ([`Spans`], `spans.rs`), which
//! validate places its diagnostics with: the positions come from here, with the parser's own
//! options and line counting, so no other crate reads an egg's text.

mod downloads;
mod faithful;
mod images;
pub mod panel;
mod shell;
mod spans;
mod spans_json;
mod spans_yaml;
mod syntax;
mod view;

pub use downloads::{Download, DownloadKind, downloads, script_downloads};
pub use faithful::{ParseError, Parsed, parse, parse_with_spans, spans};
pub use images::{ImageRole, ImageUse, docker_images, images};
pub use spans::{Located, Span, Spans, push_token};
pub use spans_yaml::lf_position;
pub use syntax::{MAX_JSON_DEPTH, MAX_YAML_DEPTH, MAX_YAML_KEY_CHARS, MAX_YAML_NODES, SyntaxKind};
pub use view::{EggInfo, ShapeError, inspect};
