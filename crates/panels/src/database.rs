//! The database a Pelican panel runs on, and what it decides in the panel's export: the order of
//! each variable's keys (the table's column order) and the order of the variables (the plan the
//! database picks for `$egg->variables`, a relation with no `orderBy`).
//!
//! Pelican's update check compares `md5(json_encode(...))` of its own export with the remote
//! file, so both orders count, and one file cannot be up to date on every database. eggcat
//! writes one `pelican.json` per order: SQLite's, which PostgreSQL shares, and MariaDB's
//! ([`Database::pelican_json_name`], [`Database::own_file`]); the differential
//! test (`tests/differential.rs`) imports each into the real server, with the tables Pelican's
//! own migrations make, and runs the real update check on it. docs/panels.md has the figures.

use std::cmp::Ordering;

use serde_json::{Map, Value};

pub use eggcat_wire::Database;

/// What each [`Database`] decides of Pelican's export: the order of a variable's keys and of
/// the variables.
pub trait ExportOrder {
    /// One variable's exported fields in this database's column order.
    fn variable_fields(self, variable: &Map<String, Value>) -> Map<String, Value>;

    /// The order this database returns an egg's variables in.
    fn variable_order(self, a: &Map<String, Value>, b: &Map<String, Value>) -> Ordering;
}

impl ExportOrder for Database {
    /// One variable's exported fields in this database's column order. The fields come in
    /// [`crate::pelican::VARIABLE_FIELDS`] order (SQLite's); `2024_04_20_214441_add_egg_var_sort`
    /// adds `sort` `->after('egg_id')`, which MariaDB and MySQL honour (so `sort` comes first of
    /// the exported fields) and Laravel's SQLite and PostgreSQL grammars ignore (`sort` last).
    fn variable_fields(self, variable: &Map<String, Value>) -> Map<String, Value> {
        match self {
            Database::Sqlite | Database::PostgreSql => variable.clone(),
            Database::MariaDb => {
                let mut out = Map::with_capacity(variable.len());
                if let Some(sort) = variable.get("sort") {
                    out.insert("sort".to_owned(), sort.clone());
                }
                for (k, v) in variable {
                    if k != "sort" {
                        out.insert(k.clone(), v.clone());
                    }
                }
                out
            }
        }
    }

    /// The order this database returns an egg's variables in, on a fresh import of a file whose
    /// variables already come in this order (so insertion order agrees with every plan the
    /// differential test saw):
    /// - SQLite answers from the unique index on (`egg_id`, `name`): by name, bytewise (the
    ///   `BINARY` collation);
    /// - MariaDB from the unique index on (`egg_id`, `env_variable`) (the migrations drop and
    ///   re-add the foreign key's own index), so by `env_variable` in `utf8mb4_unicode_ci`; with
    ///   one egg in the table, or the old dump's `egg_id` index, in insertion order;
    /// - PostgreSQL in physical order (a bitmap heap scan, or a sequential scan) or, from a few
    ///   hundred eggs after `ANALYZE`, through the (`egg_id`, `name`) index in the database's
    ///   collation. By name, bytewise, matches physical order on a fresh import and the index
    ///   under the `C` collations; docs/panels.md shows where a language collation differs.
    fn variable_order(self, a: &Map<String, Value>, b: &Map<String, Value>) -> Ordering {
        let text = |v: &Map<String, Value>, k: &str| -> String {
            v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
        };
        match self {
            Database::Sqlite | Database::PostgreSql => {
                text(a, "name").as_bytes().cmp(text(b, "name").as_bytes())
            }
            Database::MariaDb => unicode_ci_cmp(&text(a, "env_variable"), &text(b, "env_variable")),
        }
    }
}

/// The same value for each [`Database`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerDatabase<T> {
    pub sqlite: T,
    pub mariadb: T,
    pub postgresql: T,
}

impl<T> PerDatabase<T> {
    /// Builds one value per database with `f`.
    pub fn from_fn(mut f: impl FnMut(Database) -> T) -> PerDatabase<T> {
        PerDatabase {
            sqlite: f(Database::Sqlite),
            mariadb: f(Database::MariaDb),
            postgresql: f(Database::PostgreSql),
        }
    }

    /// The value for `db`.
    pub fn get(&self, db: Database) -> &T {
        match db {
            Database::Sqlite => &self.sqlite,
            Database::MariaDb => &self.mariadb,
            Database::PostgreSql => &self.postgresql,
        }
    }

    /// The value for `db`, to change.
    pub fn get_mut(&mut self, db: Database) -> &mut T {
        match db {
            Database::Sqlite => &mut self.sqlite,
            Database::MariaDb => &mut self.mariadb,
            Database::PostgreSql => &mut self.postgresql,
        }
    }

    /// Each value with its database, in [`Database::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Database, &T)> {
        Database::ALL.into_iter().map(move |db| (db, self.get(db)))
    }

    /// Each value turned into another.
    pub fn map<U>(self, mut f: impl FnMut(Database, T) -> U) -> PerDatabase<U> {
        PerDatabase {
            sqlite: f(Database::Sqlite, self.sqlite),
            mariadb: f(Database::MariaDb, self.mariadb),
            postgresql: f(Database::PostgreSql, self.postgresql),
        }
    }
}

/// Compares two texts as MariaDB's `utf8mb4_unicode_ci` does (UCA 4.0.0 primary weights, PAD
/// SPACE), for the characters an `env_variable` may hold (Laravel's `alpha_dash`): `_` before
/// `-`, both before digits, digits before letters, letters without case. A text that is a
/// prefix of the other comes first. Other characters are compared by their lowercase form
/// after every ASCII letter: an approximation, named in docs/panels.md (no corpus egg has one).
pub fn unicode_ci_cmp(a: &str, b: &str) -> Ordering {
    let key = |s: &str| -> Vec<u32> {
        s.trim_end_matches(' ')
            .chars()
            .map(|c| match c {
                '_' => 1,
                '-' => 2,
                '0'..='9' => 10 + (c as u32 - '0' as u32),
                'a'..='z' | 'A'..='Z' => 100 + (c.to_ascii_lowercase() as u32 - 'a' as u32),
                other => 1_000 + other.to_lowercase().next().map_or(other as u32, u32::from),
            })
            .collect()
    };
    key(a).cmp(&key(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A database that imports another's file exports in that one's order: the same keys, the
    /// same variables' order, on names whose bytewise and case-insensitive orders differ.
    #[test]
    fn a_database_sharing_a_file_exports_in_its_order() {
        let v = |name: &str, env: &str| {
            json!({"name": name, "env_variable": env, "rules": "", "sort": 1})
                .as_object()
                .unwrap()
                .clone()
        };
        let vars = [v("b", "A_1"), v("B", "a-2"), v("_x", "Z"), v("a", "b")];
        for db in Database::ALL {
            let own = db.own_file();
            for a in &vars {
                let keys =
                    |d: Database| -> Vec<String> { d.variable_fields(a).keys().cloned().collect() };
                assert_eq!(keys(db), keys(own), "{db:?}");
                for b in &vars {
                    assert_eq!(db.variable_order(a, b), own.variable_order(a, b), "{db:?}");
                }
            }
        }
        assert_eq!(Database::PostgreSql.own_file(), Database::Sqlite);
    }

    #[test]
    fn unicode_ci_orders_underscore_hyphen_digits_letters_without_case() {
        let mut names = vec!["b", "A_2", "A-1", "a1", "A", "a_", "Ab", "aB_"];
        names.sort_by(|a, b| unicode_ci_cmp(a, b));
        assert_eq!(names, ["A", "a_", "A_2", "A-1", "a1", "Ab", "aB_", "b"]);
    }

    #[test]
    fn mariadb_puts_sort_first_and_orders_by_env_variable() {
        let v = |name: &str, env: &str| {
            json!({"name": name, "env_variable": env, "sort": 1})
                .as_object()
                .cloned()
                .unwrap()
        };
        let fields: Vec<String> = Database::MariaDb
            .variable_fields(&v("x", "Y"))
            .keys()
            .cloned()
            .collect();
        assert_eq!(fields, ["sort", "name", "env_variable"]);
        let (a, b) = (v("a", "ZED"), v("b", "alpha"));
        assert_eq!(Database::Sqlite.variable_order(&a, &b), Ordering::Less);
        assert_eq!(Database::MariaDb.variable_order(&a, &b), Ordering::Greater);
        // Bytewise, `Z` comes before `a`; without case, after.
        let (c, d) = (v("Zoo", "Z"), v("apple", "A"));
        assert_eq!(Database::PostgreSql.variable_order(&c, &d), Ordering::Less);
    }
}
