//! The panels' facts, in one place: the rules both panels apply to an egg on import, shared by
//! the import-file checks and conversions (`eggcat-panels`) and `eggcat validate`
//! (`eggcat-validate`): the `email` rule ([`is_email`]), UUIDs ([`is_uuid`]), the length limits,
//! reserved variable names, `alpha_dash`, and the fields Pelican validates as text.
//!
//! Sources: Pelican `app/Models/EggVariable.php` (`RESERVED_ENV_NAMES`, `getRules`), Pterodactyl's
//! `app/Models/EggVariable.php` (`RESERVED_ENV_NAMES`), Laravel's
//! `alpha_dash` rule (`/\A[\pL\pM\pN_-]+\z/u`).

mod email;

pub use email::{CASES as EMAIL_CASES, is_email};

/// Pterodactyl's limit for a name, an env variable, an image or `config.stop` (its
/// `$validationRules`: `max:191`, the MySQL index length of its 2017 schema).
pub const PTERODACTYL_MAX: usize = 191;

/// The largest egg file Pterodactyl's import form takes (`EggImportFormRequest`: `max:1000`,
/// kilobytes).
pub const PTERODACTYL_MAX_FILE_BYTES: usize = 1000 * 1024;

/// Pelican's limit for the same fields (`max:255`, `between:1,255`).
pub const PELICAN_MAX: usize = 255;

/// Whether `s` is a UUID in the canonical 8-4-4-4-12 hexadecimal form (either case): what the
/// panels generate and both panels' `uuid` column (`size:36`) holds.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The text a PHP pattern anchored with `$` (no `D` modifier) sees as the whole subject: `$`
/// also matches before one final line break.
fn before_final_newline(s: &str) -> &str {
    s.strip_suffix('\n').unwrap_or(s)
}

/// PHP's `\w` without the `u` modifier: ASCII letters, digits and `_`.
fn is_php_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Pterodactyl's env variable rule `regex:/^[\w]{1,191}$/`, as PHP matches it.
pub fn is_pterodactyl_env_name(s: &str) -> bool {
    let s = before_final_newline(s);
    (1..=PTERODACTYL_MAX).contains(&s.len()) && s.chars().all(is_php_word_char)
}

/// Pterodactyl's `docker_images.*` rule `regex:/^[\w#\.\/\- ]*\|?~?[\w\.\/\-:@ ]*$/`, as PHP
/// matches it.
pub fn is_pterodactyl_image(s: &str) -> bool {
    let s = before_final_newline(s);
    let first = |c: char| is_php_word_char(c) || matches!(c, '#' | '.' | '/' | '-' | ' ');
    let second = |c: char| is_php_word_char(c) || matches!(c, '.' | '/' | '-' | ':' | '@' | ' ');
    // The first part is greedy over its class; backtracking can only hand characters of both
    // classes to the second part, so trying every split point is exact.
    (0..=s.len()).filter(|&i| s.is_char_boundary(i)).any(|i| {
        let (a, rest) = s.split_at(i);
        let rest = rest.strip_prefix('|').unwrap_or(rest);
        let rest = rest.strip_prefix('~').unwrap_or(rest);
        a.chars().all(first) && rest.chars().all(second)
    })
}

/// Laravel's `boolean` rule (`user_viewable`, `user_editable` in both panels): `true`, `false`,
/// `0`, `1`, `"0"`, `"1"`, compared strictly.
pub fn is_laravel_boolean(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Bool(_) => true,
        Value::Number(n) => n.as_u64().is_some_and(|n| n <= 1),
        Value::String(s) => s == "0" || s == "1",
        _ => false,
    }
}

/// Characters, as Laravel's `max` and `between` count a string (`mb_strlen`).
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Variable names the panels reserve for themselves (Pelican `EggVariable::RESERVED_ENV_NAMES`).
/// Pelican's importer renames such a variable with a `SERVER_` prefix; its validation refuses
/// them.
pub const RESERVED_ENV_NAMES: &[&str] = &[
    "P_SERVER_UUID",
    "P_SERVER_ALLOCATION_LIMIT",
    "SERVER_MEMORY",
    "SERVER_IP",
    "SERVER_PORT",
    "ENV",
    "HOME",
    "USER",
    "STARTUP",
    "MODIFIED_STARTUP",
    "SERVER_UUID",
    "UUID",
    "INTERNAL_IP",
    "HOSTNAME",
    "TERM",
    "LANG",
    "PWD",
    "TZ",
    "TIMEZONE",
];

/// Variable names Pterodactyl reserves (its `EggVariable::RESERVED_ENV_NAMES`); its validation
/// refuses them, and it renames nothing.
pub const PTERODACTYL_RESERVED_ENV_NAMES: &[&str] = &[
    "SERVER_MEMORY",
    "SERVER_IP",
    "SERVER_PORT",
    "ENV",
    "HOME",
    "USER",
    "STARTUP",
    "SERVER_UUID",
    "UUID",
];

/// Whether `name` is reserved (compared as written: Pelican upper-cases before comparing, so
/// callers that follow Pelican pass the upper-cased name).
pub fn is_reserved_env_name(name: &str) -> bool {
    RESERVED_ENV_NAMES.contains(&name)
}

/// Laravel's `alpha_dash`: one or more letters, marks, numbers, `_` or `-` (Unicode-aware).
/// Rust's `char::is_alphanumeric` stands in for `\pL\pM\pN`; marks are included through
/// `is_alphabetic` for the combining marks that are alphabetic.
pub fn is_alpha_dash(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// The columns of Pterodactyl's `egg_variables` a variable of an egg file may set (its
/// `EggImporterService` `forceCreate`s each variable as the file has it, and
/// `EggVariableObserver` drops only `field_type`; another field fails the import with an unknown
/// column).
pub const PTERODACTYL_VARIABLE_COLUMNS: &[&str] = &[
    "id",
    "egg_id",
    "name",
    "description",
    "env_variable",
    "default_value",
    "user_viewable",
    "user_editable",
    "rules",
    "created_at",
    "updated_at",
    "field_type",
];

/// Whether a variable field is a column of Pelican's `egg_variables` (its importer unsets
/// `field_type` and writes every other field into the table): Pterodactyl's columns and the
/// `sort` Pelican added (`2024_04_20_214441_add_egg_var_sort.php`).
pub fn is_pelican_variable_column(field: &str) -> bool {
    field == "sort" || PTERODACTYL_VARIABLE_COLUMNS.contains(&field)
}

/// Pelican's egg fields validated as text (`app/Models/Egg.php` `$validationRules`: `string`),
/// as export paths, with whether null passes (`nullable`).
pub const PELICAN_EGG_TEXT_FIELDS: &[(&str, bool)] = &[
    ("name", false),
    ("author", false),
    ("uuid", false),
    ("description", true),
    ("meta.update_url", true),
    ("config.stop", true),
];

/// Pelican's egg fields whose every member is validated as text (`docker_images.*`,
/// `startup_commands.*`, `file_denylist.*`: `string`).
pub const PELICAN_EGG_TEXT_LISTS: &[&str] = &["docker_images", "startup_commands", "file_denylist"];

/// Pelican's variable fields validated as text (`app/Models/EggVariable.php` `getRules`), with
/// whether null passes. `rules.*` is text too.
pub const PELICAN_VARIABLE_TEXT_FIELDS: &[(&str, bool)] = &[
    ("name", false),
    ("description", false),
    ("default_value", false),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// What PHP's `preg_match` answers (php 8.2, checked by hand): ASCII `\w`, and `$` before a
    /// final line break.
    #[test]
    fn pterodactyl_patterns_as_php_matches_them() {
        assert!(is_pterodactyl_env_name("A_B1"));
        assert!(is_pterodactyl_env_name("ABC\n"));
        assert!(!is_pterodactyl_env_name("ÄBC"));
        assert!(!is_pterodactyl_env_name("ab-c"));
        assert!(!is_pterodactyl_env_name(""));
        assert!(is_pterodactyl_image("ghcr.io/pterodactyl/yolks:java_21"));
        assert!(is_pterodactyl_image("quay.io/x/y|~ghcr.io/x/y:2"));
        assert!(!is_pterodactyl_image("ghcr.io/é:1"));
        for ok in [
            "ghcr.io/parkervcp/yolks:java_21",
            "Java 21|ghcr.io/parkervcp/yolks:java_21",
            "quay.io/x/y@sha256:abc",
        ] {
            assert!(is_pterodactyl_image(ok), "{ok}");
        }
        assert!(!is_pterodactyl_image("bad\"image"));
        assert!(!is_pterodactyl_image("a:b|c"));
    }

    #[test]
    fn reserved_and_alpha_dash() {
        assert!(is_reserved_env_name("SERVER_PORT"));
        assert!(!is_reserved_env_name("SERVER_JARFILE"));
        assert!(is_alpha_dash("SERVER_JARFILE"));
        assert!(is_alpha_dash("max-players_2"));
        assert!(!is_alpha_dash(""));
        assert!(!is_alpha_dash("A B"));
        assert!(!is_alpha_dash("A.B"));
    }
}
