//! What changed between two eggs, in the terms a panel admin uses, and whether each change can
//! break servers already made from the old egg. No IO.
//!
//! [`diff`] takes two eggs as `eggcat_egg::parse` gives them (any format: PTDL_v1/v2 or
//! PLCN_v1..v3, JSON or YAML) and returns the list of [`Change`]s, in a fixed order (identity,
//! images, startup, config, install, features, denylist, variables; keys sorted within each), so
//! the same two eggs always give the same list. Format-only differences are read away first
//! (`model.rs`); each concern has its file (`general.rs`, `config.rs`, `script.rs`,
//! `variables.rs`), and `render.rs` puts changes in plain words. docs/diff.md lists every kind,
//! which ones are breaking, and why.

mod config;
mod general;
mod load;
mod model;
mod render;
mod script;
mod shown;
mod variables;

use serde_json::Value;

pub use load::{LoadError, MAX_FILE_BYTES, load};
pub use render::{Summary, render_human};
pub use script::{MAX_DIFF_LINES, MAX_LINE_CHARS};
pub use shown::SHORT as SHOWN_CHARS;

pub use eggcat_wire::{Change, Kind, ScriptDiff};

/// How the diff makes a [`Change`] (the type is the wire's).
pub(crate) trait Make {
    /// A change that breaks nothing; its text is written from the other fields.
    fn new(kind: Kind, path: &[&str], old: Option<Value>, new: Option<Value>) -> Self;

    /// The same change, marked as able to break servers, with the reason.
    fn breaking(self, why: impl Into<String>) -> Self;
}

impl Make for Change {
    fn new(kind: Kind, path: &[&str], old: Option<Value>, new: Option<Value>) -> Self {
        let mut c = Change {
            kind,
            path: path.iter().map(|s| (*s).to_owned()).collect(),
            old,
            new,
            breaking: false,
            why: None,
            text: String::new(),
            script: None,
        };
        c.text = render::describe(&c);
        c
    }

    fn breaking(mut self, why: impl Into<String>) -> Self {
        self.breaking = true;
        self.why = Some(why.into());
        self
    }
}

/// The changes from `old` to `new` (two eggs as parsed; any JSON value is accepted and what is
/// not egg-shaped reads as empty). Empty when the eggs differ only in format.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    diff_prepared(&prepare(old), &prepare(new))
}

/// An egg read into the diff's terms once, for diffing it against several others (the web
/// catalog compares each egg with every other egg for the same game): reading is most of the
/// cost of a diff.
#[derive(Debug, Clone)]
pub struct Prepared(model::Model);

/// `egg` (as [`diff`] takes it) read for [`diff_prepared`].
pub fn prepare(egg: &Value) -> Prepared {
    Prepared(model::read(egg))
}

/// The changes from `old` to `new`: the same list as [`diff`] of the two eggs.
pub fn diff_prepared(old: &Prepared, new: &Prepared) -> Vec<Change> {
    let (a, b) = (&old.0, &new.0);
    let mut out = Vec::new();
    general::identity(a, b, &mut out);
    general::images(a, b, &mut out);
    general::startup(a, b, &mut out);
    config::changes(a, b, &mut out);
    script::install(a, b, &mut out);
    general::lists(a, b, &mut out);
    variables::changes(a, b, &mut out);
    out
}

/// The unified line diff of two texts, as the install script's (`script`): the egg page shows
/// a long changed text (a description, a multi-line default) this way.
pub fn text_diff(old: &str, new: &str) -> ScriptDiff {
    script::line_diff(old, new)
}

/// Whether any change in `changes` can break servers.
pub fn any_breaking(changes: &[Change]) -> bool {
    changes.iter().any(|c| c.breaking)
}
