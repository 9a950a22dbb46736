//! Why Pelican's import of an egg throws, as eggcat reproduces it (`EggImporterService::parse`
//! and `fromParsed`, the database's columns, `EggVariable::$validationRules`). One variant per
//! refusal, carrying what it names, so that a caller can tell a format the panel does not know
//! from a variable it cannot store; the messages are the sentences the catalog publishes
//! ("Pelican cannot import this egg: ...").

use serde_json::Value;

/// Why the panel's import throws.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The file's top level is not a map (`parse` reads fields from it).
    #[error("the file is not a map of fields")]
    NotAMap,
    /// `meta.version` names no format Pelican imports.
    #[error(
        "Pelican does not recognize the format `{0}` (it imports PTDL_v1, PTDL_v2, PLCN_v1, PLCN_v2 and PLCN_v3)"
    )]
    UnknownFormat(String),
    /// A PTDL or older PLCN egg without the `startup` that `convertToV3` reads.
    #[error("the egg has no `startup` command (Pelican's conversion reads it)")]
    NoStartup,
    /// `variables` is there but not a list.
    #[error("`variables` is not a list")]
    VariablesNotAList,
    /// `variables` is missing.
    #[error("the egg has no `variables` list")]
    NoVariables,
    /// `name` or `author` is missing or null: the column cannot be empty.
    #[error("the egg has no `{0}` (the database column cannot be empty)")]
    NoColumn(&'static str),
    /// Two variables with one name, after the import merged those of one env_variable: the
    /// unique index on (`egg_id`, `name`) refuses the second.
    #[error("two variables are named {0} (the panel's database allows one name per egg)")]
    DuplicateVariableName(Value),
    /// A variable that is not a map of fields.
    #[error("variable {index} is not a map of fields")]
    VariableNotAMap {
        /// The variable's position in the file.
        index: usize,
    },
    /// A variable without an `env_variable` (a string or a number).
    #[error("variable {index} has no `env_variable`")]
    NoEnvVariable {
        /// The variable's position in the file.
        index: usize,
    },
    /// A variable field that is no column of the variables' table.
    #[error(
        "variable {index} has the field `{field}`, which is no column of the panel's variables"
    )]
    NoSuchColumn {
        /// The variable's position in the file.
        index: usize,
        /// The field.
        field: String,
    },
    /// A variable without `rules`.
    #[error("variable {index} has no `rules`")]
    NoRules {
        /// The variable's position in the file.
        index: usize,
    },
    /// A variable's text column (`name`, `description`, `default_value`) missing or null.
    #[error("variable {index} has no `{field}` (the database column cannot be empty)")]
    NoVariableColumn {
        /// The variable's position in the file.
        index: usize,
        /// The column.
        field: &'static str,
    },
    /// A variable's text column holding a list or a map.
    #[error("variable {index}: `{field}` is not text")]
    NotText {
        /// The variable's position in the file.
        index: usize,
        /// The column.
        field: &'static str,
    },
    /// `user_viewable` or `user_editable` null: the column cannot be empty.
    #[error("variable {index}: `{field}` is null (the database column cannot be empty)")]
    NullFlag {
        /// The variable's position in the file.
        index: usize,
        /// The column.
        field: &'static str,
    },
    /// `user_viewable` or `user_editable` that Laravel's `boolean` rule refuses.
    #[error(
        "variable {index}: `{field}` is {value}, which Pelican's `boolean` rule refuses (true, false, 0, 1)"
    )]
    NotBoolean {
        /// The variable's position in the file.
        index: usize,
        /// The column.
        field: &'static str,
        /// The value as the file has it.
        value: Value,
    },
}
