//! The diagnostic: what one check found in one file, where, and how to fix it. This is a wire
//! type: the catalog publishes it in each egg's document (`meta.diagnostics`) and
//! `eggcat validate --format json` prints it, so its fields are documented one by one in
//! `docs/validate.md` and only ever gain optional fields.

use serde::{Deserialize, Serialize};

/// How bad a finding is, judged against the panels that import the egg's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// The check's code, e.g. `E021`: [`Code::as_str`](crate::Code::as_str) of one [`crate::Code`].
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
    pub line: Option<u32>,
    /// Column of the start of the span.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub column: Option<u32>,
    /// Line of the end of the span.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_line: Option<u32>,
    /// Column just after the span's last character.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_column: Option<u32>,
    /// How to fix it, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub help: Option<String>,
}

/// Counts of diagnostics by severity, for summary lines and exit codes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
    /// Number of notes.
    pub notes: usize,
}

impl Summary {
    /// Adds every diagnostic of `diags`.
    pub fn add(&mut self, diags: &[Diagnostic]) {
        for d in diags {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Note => self.notes += 1,
            }
        }
    }

    /// "3 errors, 1 warning, 2 notes in 2 files"; kinds with a zero count are left out, and an
    /// all-zero summary reads "no problems in N files".
    pub fn line(&self, files: usize) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let parts: Vec<String> = [
            (self.errors, "error"),
            (self.warnings, "warning"),
            (self.notes, "note"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| plural(*n, w))
        .collect();
        let what = if parts.is_empty() {
            "no problems".to_owned()
        } else {
            parts.join(", ")
        };
        format!("{what} in {}", plural(files, "file"))
    }
}

/// Sort key: position first (diagnostics without one come first, they concern the whole
/// file), then code and message, so output is byte-identical for the same input.
pub(crate) fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        (a.line, a.column, &a.code, &a.pointer, &a.message)
            .cmp(&(b.line, b.column, &b.code, &b.pointer, &b.message))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_pluralizes_and_skips_zero_counts() {
        let mut s = Summary::default();
        assert_eq!(s.line(1), "no problems in 1 file");
        s.errors = 3;
        s.warnings = 1;
        assert_eq!(s.line(2), "3 errors, 1 warning in 2 files");
    }
}
