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

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use load::{LoadError, MAX_FILE_BYTES, load};
pub use render::{Summary, render_human};
pub use script::{MAX_DIFF_LINES, MAX_LINE_CHARS, ScriptDiff};
pub use shown::SHORT as SHOWN_CHARS;

/// What kind of change; the part of the egg is in the name, the details in [`Change::path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    NameChanged,
    DescriptionChanged,
    AuthorChanged,
    UuidChanged,
    UpdateUrlChanged,
    IconChanged,
    TagAdded,
    TagRemoved,
    ImageAdded,
    ImageRemoved,
    /// Same label, another image reference.
    ImageChanged,
    /// Same image reference, another label.
    ImageRenamed,
    StartupAdded,
    StartupRemoved,
    StartupChanged,
    StartupRenamed,
    StopChanged,
    /// `config.startup.done`: the console text that tells the panel the server is up.
    ReadyTextChanged,
    /// Another key of `config.startup` (`userInteraction`, `strip_ansi`, ...).
    StartupConfigChanged,
    LogsChanged,
    ConfigFileAdded,
    ConfigFileRemoved,
    /// A file-level key of a config file (its `parser`, ...).
    ConfigFileChanged,
    ConfigKeyAdded,
    ConfigKeyRemoved,
    ConfigKeyChanged,
    InstallContainerChanged,
    InstallEntrypointChanged,
    InstallScriptChanged,
    FeatureAdded,
    FeatureRemoved,
    DenylistAdded,
    DenylistRemoved,
    VariableAdded,
    VariableRemoved,
    /// Same variable in every field but `env_variable`.
    VariableRenamed,
    /// One field of a variable (the last element of the path: `name`, `description`,
    /// `default_value`, `rules`, `user_viewable`, `user_editable`).
    VariableChanged,
}

/// One change between two eggs. A wire type: `eggcat diff --format json` prints it and the
/// catalog's history will publish it, so its fields only ever gain optional ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub kind: Kind,
    /// What changed, as keys from the egg's top: e.g. `["docker_images", "Java 21"]`,
    /// `["config", "files", "server.properties", "server-port"]`,
    /// `["variables", "SERVER_JARFILE", "default_value"]` (variables by `env_variable`).
    pub path: Vec<String>,
    /// The value before (absent for an addition). Texts with LF line ends; config values and
    /// rules as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The value after (absent for a removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// Whether the change can break servers made from the old egg (docs/diff.md).
    pub breaking: bool,
    /// Why it can break them, one sentence; absent when `breaking` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The change in plain words, one line, for an admin.
    pub text: String,
    /// For [`Kind::InstallScriptChanged`]: the line diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptDiff>,
}

impl Change {
    /// A change that breaks nothing; its text is written from the other fields.
    pub(crate) fn new(kind: Kind, path: &[&str], old: Option<Value>, new: Option<Value>) -> Self {
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

    /// The same change, marked as able to break servers, with the reason.
    pub(crate) fn breaking(mut self, why: impl Into<String>) -> Self {
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
