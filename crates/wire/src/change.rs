//! One change between two eggs and the install script's line diff: wire types. `eggcat diff
//! --format json` prints them and each version of an egg's history document publishes them, so
//! their fields only ever gain optional ones. `eggcat-diff` finds them (docs/diff.md lists every
//! kind, which ones are breaking, and why).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What kind of change; the part of the egg is in the name, the details in [`Change::path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(
        rename = "ChangeKind",
        description = "What kind of change; the part of the egg is in the name, the details in `path` (docs/diff.md lists every kind)."
    )
)]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(
        rename = "EggChange",
        description = "One change between two versions of an egg (`eggcat diff --format json` prints the same); its fields only ever gain optional ones."
    )
)]
pub struct Change {
    #[cfg_attr(
        feature = "schemars",
        schemars(description = "What kind of change (docs/diff.md lists each).")
    )]
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
    #[cfg_attr(
        feature = "schemars",
        schemars(description = "For `install_script_changed`: the line diff.")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptDiff>,
}

/// The install script's line diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScriptDiff {
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The unified diff (`@@ -a,b +c,d @@` hunks, three lines of context), at most
    /// `eggcat_diff::MAX_DIFF_LINES` lines.
    #[cfg_attr(
        feature = "schemars",
        schemars(
            description = "The unified diff (`@@ -a,b +c,d @@` hunks, three lines of context), at most 400 lines."
        )
    )]
    pub unified: String,
    /// Why the diff is shorter or coarser than it could be, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
