//! The database a Pelican panel runs on, as far as the published tree names it: the
//! `pelican.json` it imports (`api/v1/eggs/{slug}/pelican.json` or `pelican-mariadb.json`), its
//! compat index, and its key in `meta.import.pelican.databases`. What each database decides of
//! the export (the variables' key and row order) is `eggcat-panels`'
//! (`eggcat_panels::ExportOrder`).

/// A database Pelican supports (`DatabaseSettingsCommand`, the installer's database step).
/// MySQL 8 is not packaged by Debian, so not tested here: its `after` puts `sort` first as
/// MariaDB's does, and docs/panels.md says what is known of the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Database {
    /// Pelican's default (`config/database.php`) and its installer's recommended choice.
    Sqlite,
    /// MariaDB (and MySQL, untested) with Pelican's `utf8mb4_unicode_ci` collation.
    MariaDb,
    /// PostgreSQL.
    PostgreSql,
}

impl Database {
    /// Every database, in the order pages and indexes list them.
    pub const ALL: [Database; 3] = [Database::Sqlite, Database::MariaDb, Database::PostgreSql];

    /// The databases with a `pelican.json` of their own, one per export order; a panel on any
    /// other imports one of theirs ([`Database::own_file`]).
    pub const WITH_FILES: [Database; 2] = [Database::Sqlite, Database::MariaDb];

    /// The database whose file a panel on this one imports: PostgreSQL's export order on a
    /// fresh import is SQLite's (`sort` last, the variables by name, byte by byte;
    /// docs/panels.md), so it imports SQLite's `pelican.json`. Its own file of earlier eggcats,
    /// `pelican-postgresql.json`, redirects there ([`crate::paths::moved`]).
    pub fn own_file(self) -> Database {
        match self {
            Database::PostgreSql => Database::Sqlite,
            db => db,
        }
    }

    /// The file name of the `pelican.json` a panel on this database imports, under
    /// `api/v1/eggs/{slug}/`. SQLite keeps the name the catalog always had.
    pub fn pelican_json_name(self) -> &'static str {
        match self.own_file() {
            Database::MariaDb => "pelican-mariadb.json",
            _ => "pelican.json",
        }
    }

    /// A short lowercase key (`sqlite`, `mariadb`, `postgresql`): the members of
    /// `meta.import.pelican.databases`, the values of the egg page's choice.
    pub fn key(self) -> &'static str {
        match self {
            Database::Sqlite => "sqlite",
            Database::MariaDb => "mariadb",
            Database::PostgreSql => "postgresql",
        }
    }

    /// How a person names it.
    pub fn label(self) -> &'static str {
        match self {
            Database::Sqlite => "SQLite",
            Database::MariaDb => "MariaDB or MySQL",
            Database::PostgreSql => "PostgreSQL",
        }
    }
}
