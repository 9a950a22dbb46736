//! What the panels' corpus tests share: the real corpus (`../shared/upstream`) and whether a
//! test may run without it, the eggs in it, and the import-file target each egg gets.

#![allow(dead_code, unreachable_pub)] // each test binary uses its own part of this module

pub mod db;
pub mod pelican_api;

use std::path::{Path, PathBuf};

use eggcat_panels::{Database, Target};
use serde_json::Value;

/// A `php` command for the panels' own code, with room for the whole corpus in one process.
/// (OPcache's JIT, off in the CLI, was tried for the differential test's budget of 120 s: its
/// PHP CPU time did not change.)
pub fn php() -> std::process::Command {
    let mut cmd = std::process::Command::new("php");
    cmd.args(["-d", "memory_limit=1G"]);
    cmd
}

/// Sends `cmd`'s standard output and error to `{out}.stdout` and `{out}.stderr` ([`logged`]
/// reads them back). A pipe the test reads only when the run ends fills at 64 KiB (a few
/// hundred eggs' progress lines) and stops the run until then: the differential test's
/// database runs stood still that way until the per-egg run ended, and the test took 125 s
/// where it now takes 95 s.
pub fn log_to_files(cmd: &mut std::process::Command, out: &Path) {
    let file = |ext: &str| std::fs::File::create(out.with_extension(ext)).expect("a log file");
    cmd.stdout(file("stdout")).stderr(file("stderr"));
}

/// What a run [`log_to_files`] wrote: its standard output and error.
pub fn logged(out: &Path) -> (String, String) {
    let read = |ext: &str| std::fs::read_to_string(out.with_extension(ext)).unwrap_or_default();
    (read("stdout"), read("stderr"))
}

// The real corpus (`../shared/upstream`) or a skip with one line, a failure under
// `EGGCAT_CORPUS=require`; and the one line of a skipped test.
pub use eggcat_testkit::{corpus, skip_test};

/// One egg file of the corpus.
#[derive(Debug, Clone)]
pub struct CorpusEgg {
    /// Path inside the corpus (`owner/repo/...`).
    pub rel: String,
    pub path: PathBuf,
    pub syntax: eggcat_egg::SyntaxKind,
    /// The file as eggcat parses it.
    pub value: Value,
}

/// Every egg file of the corpus that eggcat indexes, sorted by path.
pub fn eggs(dir: &Path) -> Vec<CorpusEgg> {
    let mut out: Vec<CorpusEgg> = eggcat_testkit::egg_files(dir)
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let syntax = eggcat_egg::SyntaxKind::from_file_name(&name)?;
            let parsed = eggcat_egg::parse(&std::fs::read(&path).unwrap(), syntax).ok()?;
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            Some(CorpusEgg {
                rel,
                path,
                syntax,
                value: parsed.value,
            })
        })
        .collect();
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// The uuid and the import-file URLs (`pelican.yaml`, SQLite's `pelican.json`,
/// `pterodactyl.json`, then the JSON files a panel on MariaDB and on PostgreSQL imports) the egg
/// at `rel` gets, as the catalog names them.
pub fn target(rel: &str) -> (String, [String; 5]) {
    // A slug-like name: the catalog's slugs are lowercase letters, digits and `-`.
    let slug: String = rel
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let base = format!("https://eggcat.example/api/v1/eggs/{slug}");
    (
        eggcat_panels::stable_uuid(rel),
        [
            format!("{base}/pelican.yaml"),
            format!("{base}/pelican.json"),
            format!("{base}/pterodactyl.json"),
            format!("{base}/{}", Database::MariaDb.pelican_json_name()),
            // SQLite's `pelican.json`: PostgreSQL imports it (its export order is SQLite's).
            format!("{base}/{}", Database::PostgreSql.pelican_json_name()),
        ],
    )
}

/// Runs `f` with the egg's [`Target`].
pub fn with<T>(rel: &str, f: impl FnOnce(&Target<'_>) -> T) -> T {
    let (uuid, [y, j, p, m, g]) = target(rel);
    f(&Target {
        uuid: &uuid,
        pelican_yaml_url: &y,
        pelican_json_urls: eggcat_panels::PerDatabase {
            sqlite: &j,
            mariadb: &m,
            postgresql: &g,
        },
        pterodactyl_url: &p,
        exported_at: "2026-01-01T00:00:00+00:00",
    })
}

/// Whether the panels' PHP can run here (Debian's php-cli with the Symfony YAML and Laravel
/// packages `.ci/install` installs). With `EGGCAT_PHP=require` a missing package fails the test;
/// otherwise the test is skipped with one line.
pub fn php_ready(needs: &[&str]) -> bool {
    let php = std::process::Command::new("php")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing: Vec<&str> = needs
        .iter()
        .copied()
        .filter(|p| !Path::new(&format!("/usr/share/php/{p}/autoload.php")).exists())
        .collect();
    if php && missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var("EGGCAT_PHP").as_deref() != Ok("require"),
        "EGGCAT_PHP=require but php-cli or {missing:?} is missing (bash .ci/install installs them)"
    );
    skip_test(&format!(
        "needs php-cli and the PHP packages {missing:?} (bash .ci/install installs them)"
    ));
    false
}
