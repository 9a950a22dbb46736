//! The diagnostic: what one check found in one file, where, and how to fix it. A wire type: the
//! catalog publishes it in each egg's document (`meta.diagnostics`) and `eggcat validate --format
//! json` prints it, so its fields are documented one by one in `docs/validate.md` and only ever
//! gain optional fields. The checks that make it live in `eggcat-validate`.

use serde::{Deserialize, Serialize};

/// How bad a finding is, judged against the panels that import the egg's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A panel refuses the egg, or a server made from it cannot work.
    Error,
    /// The egg imports but very likely misbehaves.
    Warning,
    /// Worth knowing; nothing is known to break.
    Note,
}

impl Severity {
    /// The lowercase word, as serialized and printed (`error`, `warning`, `note`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One finding. Positions are 1-based; columns count characters (Unicode scalar values), not
/// bytes. The span runs from (`line`, `column`) to (`endLine`, `endColumn`), the end exclusive
/// (the position just after the last character), as in SARIF and LSP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// The check's code, e.g. `E021` (`eggcat_validate::Code`).
    #[cfg_attr(
        feature = "schemars",
        schemars(
            pattern(r"^E[0-9]{3}$"),
            extend("examples" = ["E017"]),
            description = "The check's code, e.g. `E021` (docs/validate.md lists each)."
        )
    )]
    pub code: String,
    /// The check's severity.
    pub severity: Severity,
    /// One sentence, lowercase start, no trailing period.
    pub message: String,
    /// RFC 6901 JSON pointer to the key or value at fault in the parsed egg (`""`: the whole
    /// file). For a missing key, the pointer it would have.
    pub pointer: String,
    /// Line of the start of the span, when the file parsed far enough to place it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub line: Option<u32>,
    /// Column of the start of the span.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub column: Option<u32>,
    /// Line of the end of the span.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub end_line: Option<u32>,
    /// Column just after the span's last character.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[cfg_attr(feature = "schemars", schemars(range(min = 1)))]
    pub end_column: Option<u32>,
    /// How to fix it, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub help: Option<String>,
}
