//! The table of checks: every code `eggcat validate` can report, with its severity and a
//! one-line summary. `--help`, `docs/validate.md` and the catalog's counts all read it; a
//! finding is built from its code, so a code's severity lives here and nowhere else.

use crate::Severity;
use crate::Severity::{Error, Note, Warning};

/// One check: its code, severity and what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckInfo {
    /// `E001` ...
    pub code: &'static str,
    /// The severity every diagnostic of this code has.
    pub severity: Severity,
    /// What the check finds, in a few words.
    pub summary: &'static str,
}

const fn check(code: &'static str, severity: Severity, summary: &'static str) -> CheckInfo {
    CheckInfo {
        code,
        severity,
        summary,
    }
}

/// Every check, by code.
pub const CHECKS: &[CheckInfo] = &[
    check("E001", Error, "file starts with a byte-order mark"),
    check("E002", Error, "file is not valid UTF-8"),
    check("E003", Error, "JSON or YAML syntax error"),
    check("E004", Error, "duplicate key in YAML"),
    check(
        "E005",
        Warning,
        "duplicate key in JSON (the last value wins)",
    ),
    check(
        "E006",
        Error,
        "document nested too deep or too large (alias bomb)",
    ),
    check("E007", Error, "document is not an object"),
    check(
        "E008",
        Warning,
        "PTDL file larger than Pterodactyl's 1000 KB import limit",
    ),
    check(
        "E009",
        Note,
        "too many diagnostics in one file: the rest are left out",
    ),
    check("E010", Error, "no format version (`meta.version`)"),
    check("E011", Error, "format version no panel imports"),
    check(
        "E012",
        Error,
        "name missing, blank, not a string or too long",
    ),
    check("E013", Error, "required field missing or empty"),
    check("E014", Error, "field of the wrong type"),
    check("E015", Error, "author is not an email address"),
    check("E016", Warning, "uuid is not a UUID"),
    check("E017", Warning, "several eggs share one uuid"),
    check("E020", Error, "env_variable is not a valid name"),
    check(
        "E021",
        Error,
        "env_variable reserved by Pterodactyl (refused on import)",
    ),
    check(
        "E022",
        Warning,
        "env_variable reserved by Pelican (renamed on import)",
    ),
    check("E023", Error, "env_variable used by two variables"),
    check(
        "E024",
        Error,
        "name used by two variables (Pelican refuses the egg)",
    ),
    check(
        "E025",
        Error,
        "variable field that is no column of the panel's table",
    ),
    check("E030", Error, "unknown validation rule"),
    check("E031", Error, "validation rule missing its arguments"),
    check("E032", Error, "regex rule that does not compile"),
    check(
        "E033",
        Note,
        "regex rule uses PCRE features that are not checked",
    ),
    check("E034", Warning, "default_value breaks its own rules"),
    check(
        "E035",
        Note,
        "required variable with an empty default_value",
    ),
    check(
        "E036",
        Warning,
        "rule argument that Laravel ignores or misreads",
    ),
    check(
        "E040",
        Warning,
        "startup placeholder that names no variable",
    ),
    check("E041", Note, "variable that nothing references"),
    check("E042", Error, "two startup commands are the same"),
    check("E050", Error, "config JSON text that does not parse"),
    check("E051", Warning, "config.files entry with an unknown parser"),
    check(
        "E052",
        Warning,
        "config.files placeholder that names nothing",
    ),
    check("E053", Warning, "config.startup without `done`"),
    check("E060", Error, "no docker image"),
    check("E061", Error, "docker image that is not a valid reference"),
    check("E070", Error, "install script without a container"),
    check("E071", Error, "install script without an entrypoint"),
    check(
        "E072",
        Warning,
        "install script's shebang does not match its entrypoint",
    ),
];

/// The check of `code`. Panics on a code missing from [`CHECKS`]: codes are constants of this
/// crate, and a test walks them all.
pub fn check_info(code: &str) -> &'static CheckInfo {
    CHECKS
        .iter()
        .find(|c| c.code == code)
        .unwrap_or_else(|| panic!("check {code} is not in CHECKS"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        for pair in CHECKS.windows(2) {
            assert!(pair[0].code < pair[1].code, "{:?}", pair);
        }
    }
}
