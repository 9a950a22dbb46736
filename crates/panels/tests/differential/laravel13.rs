//! The tables made through `tests/php/schema_bridge.php` (Laravel 13's schema semantics on
//! Debian's Laravel 8) against the tables Laravel 13 itself makes from the same migrations
//! (`tests/php/laravel13_compare.php`), on each database, when `EGGCAT_LARAVEL_SRC` names the
//! `src` folder of a laravel/framework checkout at Pelican's version (13.26.1). CI has none
//! (no network), so there the comparison is named as not made; the bridge's tables are held by
//! the expected columns and indexes in databases.rs either way.

use std::path::Path;
use std::process::Child;

use eggcat_panels::Database;
use serde_json::Value;

use crate::databases::{Outcome, php};

/// Laravel 13 on a new database of each kind (`database` makes it), when asked.
pub(crate) fn start(
    panels_src: &Path,
    mut database: impl FnMut(Database) -> Option<Value>,
) -> Vec<(Database, Child)> {
    let Ok(src) = std::env::var("EGGCAT_LARAVEL_SRC") else {
        return Vec::new();
    };
    Database::ALL
        .into_iter()
        .filter_map(|db| {
            let connection = database(db)?;
            let child = php("laravel13_compare.php", panels_src, &connection)
                .env("EGGCAT_LARAVEL_SRC", &src)
                .spawn()
                .expect("php runs");
            Some((db, child))
        })
        .collect()
}

/// Each run's tables.
pub(crate) fn finish(runs: Vec<(Database, Child)>) -> Vec<(Database, Value)> {
    // Every run waited for first, so that none is left running when one failed.
    let waited: Vec<_> = runs
        .into_iter()
        .map(|(db, child)| (db, child.wait_with_output().unwrap()))
        .collect();
    waited
        .into_iter()
        .map(|(db, out)| {
            assert!(
                out.status.success(),
                "Laravel 13's migrations failed on {db:?}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let tables = serde_json::from_slice(&out.stdout).expect("laravel13_compare.php's JSON");
            (db, tables)
        })
        .collect()
}

/// The line saying whether the bridge's tables equal Laravel 13's, and the mismatches where not
/// (compared with the configurations made by the migrations alone).
pub(crate) fn compare(
    outcomes: &[Outcome],
    laravel13: &[(Database, Value)],
) -> (String, Vec<String>) {
    if laravel13.is_empty() {
        return (
            "tables not compared with Laravel 13 itself (EGGCAT_LARAVEL_SRC is not set)".to_owned(),
            Vec::new(),
        );
    }
    let mut equal = Vec::new();
    let mut mismatches = Vec::new();
    for (db, theirs) in laravel13 {
        // The configuration whose tables the migrations alone made (PostgreSQL's C.UTF-8, the
        // collation Laravel 13's database gets here too).
        let ours = outcomes.iter().find(|o| {
            o.config.db == *db
                && !o.config.dump_index
                && (*db != Database::PostgreSql || o.config.create.contains("'C.UTF-8'"))
        });
        let Some(ours) = ours else { continue };
        if ours.out["tables"] == theirs["tables"] {
            equal.push(ours.config.name);
        } else {
            mismatches.push(format!(
                "{}: the tables differ from Laravel 13's own:\nbridge: {:#}\nLaravel 13: {:#}",
                ours.config.name, ours.out["tables"], theirs["tables"]
            ));
        }
    }
    (
        format!(
            "tables equal to Laravel 13's own (eggs, egg_variables: columns, indexes, foreign keys): {}",
            equal.join(", ")
        ),
        mismatches,
    )
}
