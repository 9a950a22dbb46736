//! The table of checks: every code `eggcat validate` can report, with its severity and a
//! one-line summary, as one enum. A finding is built from a [`Code`], so a check cannot emit a
//! code that is not in this table, a code's severity lives here and nowhere else, and every
//! lookup is a `match` the compiler proves total. `--help` prints the table, `docs/validate.md`
//! documents each row (a test in `tests/codes.rs` holds the two equal, and shows every code
//! emitted by some check).

use super::diagnostic::Severity;

/// Declares [`Code`] from one line per check: the variant, its code, its severity, its summary.
/// A macro so that each code is written once and [`Code::ALL`] cannot miss a variant.
macro_rules! codes {
    ($($variant:ident = $code:literal, $severity:ident, $summary:literal;)*) => {
        /// One check, named for what it finds; [`Code::as_str`] is its code (`E021`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(
                #[doc = concat!("`", $code, "` (", stringify!($severity), "): ", $summary, ".")]
                $variant,
            )*
        }

        impl Code {
            /// Every check, in code order.
            pub const ALL: &[Code] = &[$(Code::$variant),*];

            /// The code as reported and documented: `E` and three digits.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $code,)*
                }
            }

            /// The severity every diagnostic of this code has.
            pub const fn severity(self) -> Severity {
                match self {
                    $(Code::$variant => Severity::$severity,)*
                }
            }

            /// What the check finds, in a few words (the `--help` line).
            pub const fn summary(self) -> &'static str {
                match self {
                    $(Code::$variant => $summary,)*
                }
            }
        }
    };
}

codes! {
    ByteOrderMark = "E001", Error, "file starts with a byte-order mark";
    InvalidUtf8 = "E002", Error, "file is not valid UTF-8";
    Syntax = "E003", Error, "JSON or YAML syntax error";
    DuplicateYamlKey = "E004", Error, "duplicate key in YAML";
    DuplicateJsonKey = "E005", Warning, "duplicate key in JSON (the last value wins)";
    TooDeepOrLarge = "E006", Error, "document nested too deep or too large (alias bomb)";
    NotAnObject = "E007", Error, "document is not an object";
    OverPterodactylSize = "E008", Warning,
        "PTDL file larger than Pterodactyl's 1000 KB import limit";
    TooManyDiagnostics = "E009", Note,
        "too many diagnostics in one file: the rest are left out";
    NoFormatVersion = "E010", Error, "no format version (`meta.version`)";
    UnknownFormatVersion = "E011", Error, "format version no panel imports";
    BadName = "E012", Error, "name missing, blank, not a string or too long";
    MissingField = "E013", Error, "required field missing or empty";
    WrongType = "E014", Error, "field of the wrong type";
    AuthorNotEmail = "E015", Error, "author is not an email address";
    MalformedUuid = "E016", Warning, "uuid is not a UUID";
    SharedUuid = "E017", Warning, "several eggs share one uuid";
    DenylistText = "E018", Warning,
        "file_denylist that is a text (both panels read it as a list of one)";
    InvalidEnvName = "E020", Error, "env_variable is not a valid name";
    ReservedByPterodactyl = "E021", Error,
        "env_variable reserved by Pterodactyl (refused on import)";
    ReservedByPelican = "E022", Warning, "env_variable reserved by Pelican (renamed on import)";
    DuplicateEnvVariable = "E023", Error, "env_variable used by two variables";
    DuplicateVariableName = "E024", Error, "name used by two variables (Pelican refuses the egg)";
    NoSuchColumn = "E025", Error, "variable field that is no column of the panel's table";
    UnknownRule = "E030", Error, "unknown validation rule";
    RuleMissingArguments = "E031", Error, "validation rule missing its arguments";
    BadRegex = "E032", Error, "regex rule that does not compile";
    UncheckedRegex = "E033", Note, "regex rule eggcat cannot judge values against";
    DefaultBreaksRules = "E034", Warning, "default_value breaks its own rules";
    EmptyRequiredDefault = "E035", Note, "required variable with an empty default_value";
    MisreadRuleArgument = "E036", Warning, "rule argument that Laravel ignores or misreads";
    UnknownStartupPlaceholder = "E040", Warning, "startup placeholder that names no variable";
    UnusedVariable = "E041", Note, "variable that nothing references";
    DuplicateStartupCommand = "E042", Error, "two startup commands are the same";
    ConfigNotJson = "E050", Error, "config JSON text that does not parse";
    UnknownConfigParser = "E051", Warning, "config.files entry with an unknown parser";
    UnknownConfigPlaceholder = "E052", Warning, "config.files placeholder that names nothing";
    StartupWithoutDone = "E053", Warning, "config.startup without `done`";
    NoDockerImage = "E060", Error, "no docker image";
    BadImageReference = "E061", Error, "docker image that is not a valid reference";
    ImageMissing = "E062", Error, "docker image its registry says does not exist (--images)";
    ImageUnchecked = "E063", Note, "docker image its registry could not be asked about (--images)";
    DownloadMissing = "E064", Error,
        "install-script download its host says does not exist (--downloads)";
    DownloadUnchecked = "E065", Note,
        "install-script download its host could not be asked about (--downloads)";
    InstallWithoutContainer = "E070", Error, "install script without a container";
    InstallWithoutEntrypoint = "E071", Error, "install script without an entrypoint";
    ShebangMismatch = "E072", Warning, "install script's shebang does not match its entrypoint";
    UpdateCheckRename = "E080", Warning,
        "update_url set, and Pelican renames an env_variable on import";
    UpdateCheckPlaceholder = "E081", Warning,
        "update_url set, and Pelican upgrades a legacy `server.build.*` placeholder";
    UpdateCheckDefault = "E082", Warning,
        "update_url set, and Pelican exports a default value in another form";
    UpdateCheckDenylist = "E083", Warning,
        "update_url set, and Pelican drops an empty `file_denylist` entry";
    UpdateCheckIcon = "E084", Warning, "update_url set, and Pelican drops or moves the icon";
    UpdateCheckOrder = "E085", Warning,
        "update_url set, and the variables are not in the order Pelican exports them";
    UpdateUrlFormat = "E086", Warning,
        "update_url whose file extension does not match the file";
    NotPelicanExport = "E089", Warning,
        "update_url set, and the file is not what Pelican exports for it";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_well_formed() {
        for pair in Code::ALL.windows(2) {
            assert!(pair[0].as_str() < pair[1].as_str(), "{pair:?}");
        }
        for code in Code::ALL {
            let text = code.as_str();
            assert!(
                text.len() == 4
                    && text.starts_with('E')
                    && text[1..].bytes().all(|b| b.is_ascii_digit()),
                "{text}"
            );
        }
    }
}
