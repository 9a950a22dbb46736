//! The diagnostic: what one check found in one file, where, and how to fix it. The type itself is
//! a wire type (`eggcat_wire::Diagnostic`, published in each egg's document and printed by
//! `eggcat validate --format json`); here are its counts and its order.

pub use eggcat_wire::{Diagnostic, Severity};

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
