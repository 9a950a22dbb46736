//! Egg diagnostics for maintainers: every check `eggcat validate` and the catalog build run on an
//! egg file, each with a code, a severity, a precise message and the position of the offending
//! key or value in the JSON or YAML source, plus renderers (human, JSON lines, GitHub Actions).
//!
//! The crate does no IO. [`check_file`] takes a file's name and bytes and returns its
//! diagnostics, sorted; [`check_catalog`] runs the checks that need every egg at once (one uuid
//! shared by several eggs). Parsing goes through `eggcat_egg::parse_with_spans`, the catalog's own
//! parser, so a file is refused here exactly when the catalog refuses it, and every diagnostic
//! is placed where that parse found its node. `docs/validate.md` lists every check with its
//! reasons.

mod catalog;
mod checks;
mod default_value;
mod file;
mod php_regex;
mod placeholder;
mod reference;
mod registry;
mod render;
mod rules;
mod span;
mod vocab;

pub use catalog::{CatalogEgg, SHARED_UUID, check_catalog};
pub use eggcat_wire::ImageReference;
pub use file::{MAX_DIAGNOSTICS, check_file, check_parsed, check_text};
pub use php_regex::{Compiled, PhpRegex, PhpRegexError, PregMatch, parse_php_regex};
pub use registry::{RegistryAnswer, check_download_answers, check_registry_answers};
pub use render::{render_github, render_human, render_json};
pub use rules::{Rule, RuleError, measures_numbers, parse_rule, read_rule, split_rules};
pub use span::{Located, Span, locate};
pub use vocab::{Code, Diagnostic, Severity, Summary};
