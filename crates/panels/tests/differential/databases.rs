//! Pelican's update check on every database it supports, every egg kept in the tables (issue
//! 26): for each configuration an admin's panel has, a real database (SQLite in memory; MariaDB
//! and PostgreSQL servers the test starts, see `support/db.rs`), its tables made by Pelican's own
//! migrations, and `tests/php/databases.php` importing every corpus egg from eggcat's file for
//! that database, in corpus order, then running the real update check on each, after import,
//! after `ANALYZE`, after the admin's "Update" (`fromUrl`) and after a re-import (the last two
//! not on PostgreSQL's language collation, [`Config::updates`]).
//!
//! What it shows per configuration: the variables' columns and indexes, the plan of the query
//! the exporter loads an egg's variables with, the counts of "Up-to-date", every egg that reads
//! otherwise with where its export and the file differ, and that the egg Pelican stores from the
//! file equals the one it stores from the upstream file (on SQLite, by the per-egg test).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use eggcat_panels::Database;
use serde_json::{Value, json};

use crate::support::db::{self, Server};
use crate::versions::Older;
use crate::{Published, laravel13};

/// A database as an admin's panel has it.
pub(crate) struct Config {
    /// How the figures name it.
    pub(crate) name: &'static str,
    pub(crate) db: Database,
    /// The `egg_id` index of the old mysql-schema.sql (see databases.php).
    pub(crate) dump_index: bool,
    /// Whether the database gathers statistics (a step of its own, `analyze`): MariaDB's InnoDB
    /// recalculates them as rows change, PostgreSQL's autovacuum analyzes (off in the test, so
    /// that the steps before it are without statistics); SQLite never does unless told, and
    /// Pelican does not tell it.
    pub(crate) analyze: bool,
    /// PostgreSQL's `CREATE DATABASE` options (the collation), or nothing.
    pub(crate) create: &'static str,
    /// Every `sample`th corpus egg: 1 for the whole corpus (a large panel), more for a panel
    /// of a few dozen eggs, whose small tables the planner reads otherwise.
    pub(crate) sample: usize,
}

/// The configurations, each its own database.
pub(crate) const CONFIGS: &[Config] = &[
    Config {
        name: "SQLite",
        db: Database::Sqlite,
        dump_index: false,
        analyze: false,
        create: "",
        sample: 1,
    },
    Config {
        name: "MariaDB",
        db: Database::MariaDb,
        dump_index: false,
        analyze: true,
        create: "",
        sample: 1,
    },
    Config {
        name: "MariaDB, installed from mysql-schema.sql",
        db: Database::MariaDb,
        dump_index: true,
        analyze: true,
        create: "",
        sample: 1,
    },
    Config {
        name: "PostgreSQL, C.UTF-8",
        db: Database::PostgreSql,
        dump_index: false,
        analyze: true,
        create: "template template0 locale 'C.UTF-8'",
        sample: 1,
    },
    // Most panels hold a few dozen eggs: with statistics, PostgreSQL reads such small tables
    // in physical order (a sequential scan), where an updated row has moved.
    Config {
        name: "PostgreSQL, C.UTF-8, a panel of every 20th egg",
        db: Database::PostgreSql,
        dump_index: false,
        analyze: true,
        create: "template template0 locale 'C.UTF-8'",
        sample: 20,
    },
    // A language collation: the one a Debian server gets from `pg_createcluster` in an English
    // environment (and the official Docker image's), glibc's, compiled here from Debian's locale
    // data (the machine has only C.UTF-8). ICU's en-US (`locale_provider icu icu_locale
    // 'en-US'`), which PostgreSQL 15 uses only when asked, was measured once on the corpus of
    // 2026-11: 165 eggs not up to date against glibc's 167, 161 of them the same (ICU puts `_`
    // and `[` before letters where glibc ignores them at first); it is not run, for time.
    Config {
        name: "PostgreSQL, en_US.UTF-8 (glibc)",
        db: Database::PostgreSql,
        dump_index: false,
        analyze: true,
        create: "template template0 locale 'en_US.UTF-8'",
        sample: 1,
    },
];

impl Config {
    /// Whether the eggs stored here are compared with those stored from upstream: on one
    /// configuration per database (the others store the same rows in the same tables, in
    /// another order, which the comparison sets aside). On PostgreSQL the language collation's,
    /// the run with the fewest steps (reading every stored egg back costs seconds).
    fn compares_stored(&self) -> bool {
        !self.dump_index
            && self.sample == 1
            && (self.db != Database::PostgreSql || self.create.contains("en_US"))
    }

    /// Whether the `changed` step (databases.php) runs: where the plan may read an egg's
    /// variables in an order an update can change, physical order (PostgreSQL) or the primary
    /// key's within the `egg_id` index (the old dump's MariaDB); SQLite and MariaDB otherwise
    /// read through a unique index on a column the update leaves as it is. On PostgreSQL, on
    /// the small panel only, where the plan with statistics is the sequential scan an update
    /// moves rows under: on a catalog's worth the plan with statistics is the index scan, and
    /// before statistics the import step already shows physical order at work (the step on the
    /// whole corpus, 200 more imports, was measured once: 66 of 100 eggs stayed up to date; the
    /// test has a budget of 120 s on two cores).
    fn changes(&self) -> bool {
        self.dump_index || (self.db == Database::PostgreSql && self.sample > 1)
    }

    /// Whether the `update` and `reimport` steps run after `analyze`. Not on PostgreSQL's
    /// language collation: there the order after `ANALYZE` is the index's under that
    /// collation, which an Update or a re-import (they rewrite only changed rows, as the
    /// `C.UTF-8` configurations show) cannot change (1,240 imports the test's budget of 120 s
    /// on two cores is better without).
    fn updates(&self) -> bool {
        !self.create.contains("en_US")
    }

    /// Whether the `versions` step runs (older versions of a seeded sample, issue 37): once per
    /// database, on its panel of the whole corpus in its plain configuration (for PostgreSQL
    /// `C.UTF-8`, whose plan after `ANALYZE` reads the file's order).
    fn checks_versions(&self) -> bool {
        !self.dump_index && self.sample == 1 && !self.create.contains("en_US")
    }
}

/// The servers and the PHP runs under way.
pub(crate) struct Started {
    // Stopped (dropped) after the runs are read, and before their folder goes.
    servers: Vec<Server>,
    _scratch: tempfile::TempDir,
    runs: Vec<(&'static Config, Child, PathBuf)>,
    /// Laravel 13's own migrations, when a checkout of it is at hand (laravel13.rs).
    laravel13: Vec<(Database, Child)>,
    /// Configurations skipped, each with why.
    pub(crate) skipped: Vec<String>,
    /// Seconds to make and start the servers.
    pub(crate) setup: f64,
}

impl Drop for Started {
    /// A run not waited for (the test failed before [`finish`]) is stopped with the servers.
    fn drop(&mut self) {
        let children = self.runs.iter_mut().map(|r| &mut r.1);
        for child in children.chain(self.laravel13.iter_mut().map(|r| &mut r.1)) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One configuration's figures (databases.php's OUT).
pub(crate) struct Outcome {
    pub(crate) config: &'static Config,
    pub(crate) out: Value,
}

/// Starts the servers the configurations need (init in parallel, then each server from this
/// thread, which must outlive them) and one PHP process per configuration.
pub(crate) fn start(
    tmp: &Path,
    published: &[Published],
    older: &[Older],
    panels_src: &Path,
) -> Started {
    let began = Instant::now();
    let required = std::env::var("EGGCAT_PHP").as_deref() == Ok("require");
    let mut skipped = Vec::new();
    let mut usable = |programs: &[&str], php: &str, what: &str| match db::missing(programs, php) {
        None => true,
        Some(why) => {
            assert!(!required, "EGGCAT_PHP=require but {what} {why}");
            skipped.push(format!("{what}: {why}"));
            false
        }
    };
    let mariadb = usable(db::MARIADB_PROGRAMS, "pdo_mysql", "MariaDB");
    let postgres = usable(db::POSTGRES_PROGRAMS, "pdo_pgsql", "PostgreSQL");
    let scratch = db::server_dir();
    let dir = scratch.path();
    db::init(dir, mariadb, postgres);
    let locales = postgres.then(|| db::compile_locale(dir)).flatten();
    let mut servers = Vec::new();
    let my = mariadb.then(|| db::start_mariadb(dir));
    let pg = postgres.then(|| db::start_postgres(dir, locales.as_deref()));
    let mut runs = Vec::new();
    for (i, config) in CONFIGS.iter().enumerate() {
        if config.create.contains("en_US") && locales.is_none() {
            assert!(
                !required,
                "EGGCAT_PHP=require but localedef or Debian's locale data (package locales) is missing"
            );
            skipped.push(format!(
                "{}: needs localedef and the locales package",
                config.name
            ));
            continue;
        }
        let Some(connection) = database(config.db, &format!("panel{i}"), config.create, &my, &pg)
        else {
            continue;
        };
        let jobs = write_jobs(tmp, published, older, config, i);
        let out = tmp.join(format!("db-{i}.json"));
        let mut cmd = php("databases.php", panels_src, &connection);
        crate::support::log_to_files(&mut cmd, &out);
        let child = cmd.arg(&jobs).arg(&out).spawn().expect("php runs");
        runs.push((config, child, out));
    }
    let laravel13 = laravel13::start(panels_src, |db| database(db, "laravel13", "", &my, &pg));
    servers.extend(my);
    servers.extend(pg);
    Started {
        servers,
        _scratch: scratch,
        runs,
        laravel13,
        skipped,
        setup: began.elapsed().as_secs_f64(),
    }
}

/// A new database `name` on `db`'s server (with PostgreSQL's `create` options), as
/// `boot.php`'s EGGCAT_DB names it; None when that server is not there. SQLite's is in memory.
fn database(
    db: Database,
    name: &str,
    create: &str,
    mariadb: &Option<Server>,
    postgres: &Option<Server>,
) -> Option<Value> {
    match db {
        Database::Sqlite => Some(json!({"driver": "sqlite"})),
        Database::MariaDb => {
            let server = mariadb.as_ref()?;
            server.sql(&format!("create database {name}"));
            Some(json!({"driver": "mysql", "socket": server.socket, "database": name}))
        }
        Database::PostgreSql => {
            let server = postgres.as_ref()?;
            server.sql(&format!("create database {name} {create}"));
            Some(json!({"driver": "pgsql", "socket": server.socket, "database": name}))
        }
    }
}

/// `php tests/php/{script}` on the database `connection` names, its output captured.
pub(crate) fn php(script: &str, panels_src: &Path, connection: &Value) -> Command {
    let mut cmd = crate::support::php();
    cmd.arg(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/php")
            .join(script),
    )
    .env("EGGCAT_PANELS_SRC", panels_src)
    .env("EGGCAT_DB", connection.to_string())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd
}

/// The eggs of `config`'s panel, in corpus order, with their index: every `sample`th.
fn sampled<'a>(
    published: &'a [Published],
    config: &Config,
) -> impl Iterator<Item = (usize, &'a Published)> {
    published
        .iter()
        .enumerate()
        .filter(move |(n, _)| n % config.sample == 0)
}

/// Whether an egg goes into the panel: eggcat's file for `db` is written and eggcat says Pelican
/// imports it. A file written but marked not importable (an egg with no `docker_images`) is one
/// Pelican refuses: the per-egg run holds that verdict to Pelican's, and [`report`] counts the
/// agreement; importing it here would count Pelican's refusal as a mismatch on every database.
fn imported(p: &Published, db: Database) -> Option<&Vec<u8>> {
    let bytes = p.variants.pelican_json.get(db).as_ref()?;
    p.variants.pelican.importable.then_some(bytes)
}

/// Writes eggcat's file for `config`'s database of every egg that has one Pelican imports
/// ([`imported`]), and the job list.
fn write_jobs(
    tmp: &Path,
    published: &[Published],
    older: &[Older],
    config: &Config,
    i: usize,
) -> PathBuf {
    let files = tmp.join(format!("db-{i}"));
    std::fs::create_dir_all(&files).unwrap();
    let eggs: Vec<Value> = sampled(published, config)
        .filter_map(|(n, p)| {
            let bytes = imported(p, config.db)?;
            let file = files.join(format!("{n:04}.json"));
            std::fs::write(&file, bytes).unwrap();
            Some(json!({"name": p.egg.rel, "file": file, "url": url(&p.egg.rel, config.db)}))
        })
        .collect();
    let versions: Vec<Value> = older
        .iter()
        .enumerate()
        .filter(|_| config.checks_versions())
        .map(|(n, o)| {
            let file = files.join(format!("older-{n:04}.json"));
            std::fs::write(&file, o.files.get(config.db)).unwrap();
            json!({"name": o.name, "file": file, "url": url(&o.name, config.db)})
        })
        .collect();
    let jobs = tmp.join(format!("db-{i}-jobs.json"));
    let body = json!({
        "versions": versions,
        "dump_index": config.dump_index,
        "analyze": config.analyze,
        "store": config.compares_stored(),
        "change": config.changes(),
        "update": config.updates(),
        "add": config.dump_index,
        "eggs": eggs,
    });
    std::fs::write(&jobs, body.to_string()).unwrap();
    jobs
}

/// The URL eggcat serves `db`'s file of the egg at `rel` at (its `meta.update_url`).
pub(crate) fn url(rel: &str, db: Database) -> String {
    let (_, urls) = crate::target(rel);
    match db {
        Database::Sqlite => urls[1].clone(),
        Database::MariaDb => urls[3].clone(),
        Database::PostgreSql => urls[4].clone(),
    }
}

/// What the runs found: each configuration's figures, each server's CPU seconds (read before
/// it stops), and Laravel 13's own tables per database, when compared.
pub(crate) struct Finished {
    pub(crate) outcomes: Vec<Outcome>,
    pub(crate) server_cpu: Vec<String>,
    pub(crate) laravel13: Vec<(Database, Value)>,
}

/// Waits for every run; fails naming the egg a PHP process died on.
pub(crate) fn finish(mut started: Started) -> Finished {
    // Every run waited for first, so that none is left running when one failed.
    let waited: Vec<_> = std::mem::take(&mut started.runs)
        .into_iter()
        .map(|(config, mut child, out)| (config, child.wait().unwrap(), out))
        .collect();
    let mut outcomes = Vec::new();
    for (config, status, out) in waited {
        let (stdout, stderr) = crate::support::logged(&out);
        let last_egg = stderr.lines().rfind(|l| l.starts_with("egg: "));
        let messages: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("egg: ")).collect();
        assert!(
            status.success(),
            "the panels' PHP crashed on {} ({}):\n{stdout}\n{}",
            config.name,
            last_egg.unwrap_or("egg: (before the first egg)"),
            messages.join("\n")
        );
        let out: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        outcomes.push(Outcome { config, out });
    }
    let laravel13 = laravel13::finish(std::mem::take(&mut started.laravel13));
    let server_cpu = started
        .servers
        .iter()
        .map(|s| format!("{} {:.1} s", s.name(), s.cpu_seconds()))
        .collect();
    Finished {
        outcomes,
        server_cpu,
        laravel13,
    }
}

/// One configuration's figures, as lines for the summary, and what is wrong, as mismatches:
/// a crash, a file Pelican refuses on this database, an egg stored otherwise than from upstream.
/// Which verdicts must read "Up-to-date" is [`must_be_up_to_date`]'s to say.
pub(crate) fn report(
    outcome: &Outcome,
    published: &[Published],
    older: &[Older],
    per_egg: &std::collections::BTreeMap<&str, &Value>,
    accepted: &mut std::collections::BTreeMap<String, usize>,
) -> (Vec<String>, Vec<String>) {
    let (config, out) = (outcome.config, &outcome.out);
    let mut lines = vec![format!(
        "{} ({:.1} s, PHP's CPU {:.1} s): {} migrations; egg_variables columns: {}; indexes: {}",
        config.name,
        out["seconds"].as_f64().unwrap_or(0.0),
        out["cpu_seconds"].as_f64().unwrap_or(0.0),
        out["migrations"],
        join(&out["columns"]),
        join(&out["indexes"]),
    )];
    let mut mismatches = unexpected(config, out);
    // The eggs left out of the panel (eggcat's file written, but not importable): Pelican's own
    // import of that file, in the per-egg run, must refuse it too.
    let (mut left_out, mut agree) = (0, 0);
    for (_, p) in sampled(published, config) {
        if p.variants.pelican_json.get(config.db).is_none() || imported(p, config.db).is_some() {
            continue;
        }
        let rel = p.egg.rel.as_str();
        left_out += 1;
        match crate::outcome(&per_egg[rel]["pelican"]["eggcat_json"]) {
            Err(why) if why.starts_with("refused") => agree += 1,
            other => mismatches.push(format!(
                "{}: {rel}: left out as not importable, but Pelican's per-egg import of pelican.json: {other:?}",
                config.name
            )),
        }
    }
    if left_out > 0 {
        lines.push(format!(
            "  not imported, as eggcat says (not importable) and Pelican's per-egg import agrees (refused): {agree}/{left_out}"
        ));
    }
    let (mut same, mut compared) = (0, 0);
    for p in published {
        let rel = p.egg.rel.as_str();
        let Some(stored) = out["stored"].get(rel) else {
            continue;
        };
        let Some(ours) = stored.get("ok") else {
            mismatches.push(format!("{}: {rel}: not imported: {stored}", config.name));
            continue;
        };
        let r = &per_egg[rel]["pelican"];
        let (Some(upstream), Some(roundtrip)) =
            (r["upstream"].get("ok"), r["roundtrip_json"].get("ok"))
        else {
            continue;
        };
        compared += 1;
        let (uuid, _) = crate::target(rel);
        let diffs = crate::stored_differences(
            ours,
            upstream,
            roundtrip,
            &uuid,
            &url(rel, config.db),
            accepted,
        );
        if diffs.is_empty() {
            same += 1;
        }
        for d in diffs {
            mismatches.push(format!("{}: {rel}: stored: {d}", config.name));
        }
    }
    lines.push(if config.compares_stored() {
        format!(
            "  the egg stored from the file equals the one stored from upstream: {same}/{compared}"
        )
    } else {
        "  the eggs stored: as on this database's first configuration (same rows and tables)"
            .to_owned()
    });
    // Each egg that does not read Up-to-date, once, with the steps where it does not.
    let mut stale: std::collections::BTreeMap<&str, (Vec<&str>, &Value)> = Default::default();
    for step in out["steps"].as_array().into_iter().flatten() {
        let name = step["step"].as_str().unwrap_or("");
        let verdicts = step["verdicts"].as_object().expect("verdicts");
        // An Update or re-import Pelican refused leaves the egg as it was, which may still read
        // Up-to-date: the refusal itself is the failure.
        for rel in step["refused"].as_array().into_iter().flatten() {
            mismatches.push(format!(
                "{}: {}: Pelican refused the import in step {name}",
                config.name,
                rel.as_str().unwrap_or("")
            ));
        }
        // Eggs to which upstream added a variable (first in the file) in this step: on the old
        // dump's index the panel appends its row and reads it last, so the check must say
        // "Found update" (docs/panels.md says so; this shows it).
        let added: Vec<&str> = step["added"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut up = 0;
        for (rel, v) in verdicts {
            let fresh = v["ok"]
                .as_str()
                .is_some_and(|s| s.ends_with(": Up-to-date"));
            if added.contains(&rel.as_str()) {
                let read_last = join(&v["plan"]).contains("key=service_variables_egg_id_foreign");
                if fresh || !read_last {
                    mismatches.push(format!(
                        "{}: {rel}: after {name} with a variable added upstream: expected Found update through the egg_id index: {v}",
                        config.name
                    ));
                }
            }
            if fresh {
                up += 1;
                continue;
            }
            stale.entry(rel).or_insert((Vec::new(), v)).0.push(name);
            if let Some(why) = must_be_up_to_date(config, v)
                && !added.contains(&rel.as_str())
            {
                mismatches.push(format!("{}: {rel}: after {name}: {why}: {v}", config.name));
            }
        }
        let with_added = if added.is_empty() {
            String::new()
        } else {
            format!(
                " ({} of them with a variable added upstream, which must read Found update)",
                added.len()
            )
        };
        lines.push(format!(
            "  {name}: Up-to-date {up}/{}{with_added} ({:.1} s); plan of `{}` ({} variables): {}",
            verdicts.len(),
            step["seconds"].as_f64().unwrap_or(0.0),
            step["query"].as_str().unwrap_or(""),
            step["variables"],
            join(&step["plan"]),
        ));
    }
    let (hash_lines, hash_mismatches) = hashes(config, out, published, older);
    lines.extend(hash_lines);
    mismatches.extend(hash_mismatches);
    if !stale.is_empty() {
        lines.push(format!("  not Up-to-date ({} eggs), with the steps, the first check's verdict and that egg's plan:", stale.len()));
    }
    for (rel, (steps, v)) in stale {
        let verdict = v
            .get("ok")
            .or(v.get("refused"))
            .or(v.get("crash"))
            .unwrap_or(v);
        let physical = match &v["physical"] {
            Value::Null => String::new(),
            p => format!(
                " | rows at {} ({})",
                p["ctids"].as_str().unwrap_or(""),
                if p["as_inserted"] == true {
                    "as inserted"
                } else {
                    "not as inserted"
                }
            ),
        };
        lines.push(format!(
            "    {rel} [{}]: {} | {}{physical}",
            steps.join(", "),
            verdict.as_str().unwrap_or(""),
            join(&v["plan"])
        ));
    }
    (lines, mismatches)
}

/// The hash eggcat publishes for each version (`pelicanUpdateCheckMd5` in `history.json`, made
/// by [`eggcat_panels::update_check_md5`] from the file, as the catalog makes it) against the
/// two hashes Pelican's update check computed (`check_hashes.php`): the file's (`remote`) must
/// be the published one on every check; the panel's export's (`local`) must be too wherever
/// the check reads "Up-to-date" (where it does not, the verdict is the failure, reported with
/// the database's reason where there is one). On the current versions at every step but
/// `changed` (which serves other files), and on the older versions.
fn hashes(
    config: &Config,
    out: &Value,
    published: &[Published],
    older: &[Older],
) -> (Vec<String>, Vec<String>) {
    let mut mismatches = Vec::new();
    let current: std::collections::BTreeMap<&str, Option<String>> = published
        .iter()
        .map(|p| {
            let file = p.variants.pelican_json.get(config.db).as_ref();
            (
                p.egg.rel.as_str(),
                file.and_then(|f| eggcat_panels::update_check_md5(f)),
            )
        })
        .collect();
    let compare = |mismatches: &mut Vec<String>,
                   what: &str,
                   rel: &str,
                   v: &Value,
                   published: Option<&str>|
     -> (bool, bool) {
        let md5 = &v["md5"];
        let (local, remote) = (md5["local"].as_str(), md5["remote"].as_str());
        if remote.is_none() || remote != published {
            mismatches.push(format!(
                "{}: {rel}: {what}: the update check's hash of the file is {remote:?}, eggcat publishes {published:?}",
                config.name
            ));
            return (false, false);
        }
        (true, local == published)
    };
    let (mut checked, mut file_same, mut export_same) = (0, 0, 0);
    for step in out["steps"].as_array().into_iter().flatten() {
        if step["step"] == "changed" {
            continue;
        }
        for (rel, v) in step["verdicts"].as_object().into_iter().flatten() {
            if v.get("ok").is_none() {
                continue;
            }
            checked += 1;
            let published = current.get(rel.as_str()).cloned().flatten();
            let (file, export) = compare(
                &mut mismatches,
                step["step"].as_str().unwrap_or(""),
                rel,
                v,
                published.as_deref(),
            );
            file_same += usize::from(file);
            export_same += usize::from(export);
        }
    }
    let mut lines = vec![format!(
        "  the update check's hashes against eggcat's published hash, current versions, every check: of the file {file_same}/{checked}, of the panel's export {export_same}/{checked}"
    )];
    if !config.checks_versions() {
        return (lines, mismatches);
    }
    let verdicts = &out["versions"]["verdicts"];
    let (mut file_same, mut export_same) = (0, 0);
    let mut by_change: std::collections::BTreeMap<&str, usize> = Default::default();
    for o in older {
        let v = &verdicts[&o.name];
        let Some(check) = v.get("ok") else {
            mismatches.push(format!(
                "{}: {}: older version ({}): Pelican refused it: {v}",
                config.name, o.name, o.change
            ));
            continue;
        };
        *by_change.entry(o.change).or_default() += 1;
        let what = format!("older version ({})", o.change);
        let (file, export) = compare(
            &mut mismatches,
            &what,
            &o.name,
            check,
            Some(o.md5.get(config.db)),
        );
        file_same += usize::from(file);
        export_same += usize::from(export);
        let fresh = check["ok"]
            .as_str()
            .is_some_and(|s| s.ends_with(": Up-to-date"));
        if !fresh || !export {
            mismatches.push(format!(
                "{}: {}: {what}: not Up-to-date after importing it: {check}",
                config.name, o.name
            ));
        }
    }
    lines.push(format!(
        "  older versions ({} eggs, seeded; changed since: {}; {:.1} s): the update check's hash of the file equals eggcat's published hash {file_same}/{}, of the panel's export {export_same}/{}",
        older.len(),
        by_change
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        out["versions"]["seconds"].as_f64().unwrap_or(0.0),
        older.len(),
        older.len()
    ));
    (lines, mismatches)
}

/// What the configuration's tables and plans must be (Pelican's migrations at the pinned
/// commit, on Debian 12's servers), as `tables.php` words them: the variables' columns by name
/// in table order, the indexes, and a word of the plan of the exporter's query before and after
/// the database has statistics (for the egg with the most variables).
fn expected(config: &Config) -> (Vec<&'static str>, Vec<&'static str>, [&'static str; 2]) {
    let sqlite_order = vec![
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
        "sort",
    ];
    let uniques = [
        "egg_variables_egg_id_env_variable_unique unique (egg_id,env_variable)",
        "egg_variables_egg_id_name_unique unique (egg_id,name)",
    ];
    match config.db {
        Database::Sqlite => {
            let plan = "USING INDEX egg_variables_egg_id_name_unique";
            (sqlite_order, uniques.to_vec(), [plan, plan])
        }
        Database::MariaDb => {
            // `sort` `->after('egg_id')`.
            let mut columns = sqlite_order;
            columns.pop();
            columns.insert(2, "sort");
            let mut indexes = vec!["PRIMARY unique (id)"];
            indexes.extend(uniques);
            let plan = if config.dump_index {
                indexes.push("service_variables_egg_id_foreign (egg_id)");
                "key=service_variables_egg_id_foreign"
            } else {
                "key=egg_variables_egg_id_env_variable_unique"
            };
            (columns, indexes, [plan, plan])
        }
        Database::PostgreSql => {
            let mut indexes = uniques.to_vec();
            indexes.push("service_variables_pkey unique (id)");
            let name_index = "Index Scan using egg_variables_egg_id_name_unique";
            let plans = if config.sample == 1 {
                ["Bitmap Heap Scan on egg_variables", name_index]
            } else {
                [name_index, "Seq Scan on egg_variables"]
            };
            (sqlite_order, indexes, plans)
        }
    }
}

/// Where the tables or the plans are not [`expected`].
fn unexpected(config: &Config, out: &Value) -> Vec<String> {
    let (columns, indexes, plans) = expected(config);
    let names: Vec<&str> = out["columns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str()?.split(' ').next())
        .collect();
    let mut wrong = Vec::new();
    if names != columns {
        wrong.push(format!(
            "egg_variables columns {names:?}, expected {columns:?}"
        ));
    }
    if out["indexes"] != json!(indexes) {
        wrong.push(format!(
            "egg_variables indexes {}, expected {indexes:?}",
            out["indexes"]
        ));
    }
    for step in out["steps"].as_array().into_iter().flatten() {
        // The steps before `analyze` are without statistics.
        let after = step["step"] != "import" && step["step"] != "changed";
        let plan = join(&step["plan"]);
        if !plan.contains(plans[usize::from(after)]) {
            wrong.push(format!(
                "plan after {}: {plan}, expected {}",
                step["step"],
                plans[usize::from(after)]
            ));
        }
    }
    wrong
        .into_iter()
        .map(|w| format!("{}: {w}", config.name))
        .collect()
}

/// Why a verdict other than "Up-to-date" is wrong on `config`, or None where the database
/// cannot promise it (docs/panels.md), which is on PostgreSQL only:
/// - read in physical order (a bitmap heap scan, or a sequential scan of a small panel's
///   table) where a row lies before rows inserted ahead of it: it went to free space on an
///   earlier page, which the rows of eggs imported before decide, or an update wrote it anew
///   (the `changed` step): no file can know;
/// - read through the (`egg_id`, `name`) index under a language collation, whose order differs
///   from the C order the file has: one file cannot have every collation's order.
///
/// A crash, or any other plan, is wrong everywhere.
fn must_be_up_to_date(config: &Config, verdict: &Value) -> Option<String> {
    if verdict.get("ok").is_none() {
        return Some("the update check failed".to_owned());
    }
    let plan = join(&verdict["plan"]);
    let physical = (plan.contains("Bitmap Heap Scan") || plan.contains("Seq Scan"))
        && verdict["physical"]["as_inserted"] == false;
    let language = config.db == Database::PostgreSql
        && !config.create.contains("'C.UTF-8'")
        && plan.contains("Index Scan using egg_variables_egg_id_name_unique");
    if config.db == Database::PostgreSql && (physical || language) {
        return None;
    }
    Some("not up to date".to_owned())
}

fn join(list: &Value) -> String {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .collect::<Vec<_>>()
        .join(", ")
}
