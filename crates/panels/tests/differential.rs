//! eggcat's import files against the panels' own PHP, on every egg of the real corpus
//! (`../shared/upstream`): the proof behind `docs/panels.md`.
//!
//! For each egg the test writes the upstream file and eggcat's `pelican.yaml`, `pelican.json`
//! and `pterodactyl.json`, and one PHP process (`tests/php/differential.php`, on the panels' code
//! in `../shared/panels-src` at pinned commits) runs, on an SQLite database whose tables
//! Pelican's own migrations make, each egg in a transaction rolled back after it:
//! - Pelican's `EggImporterService` on the upstream file, on Pelican's own YAML and JSON export
//!   of the egg it made (its round trip), and on eggcat's two files: the eggs it stores;
//! - Pelican's `CheckEggUpdatesCommand` on the egg imported from each eggcat file, its update
//!   URL answered by that same file: "Up-to-date"; and on the egg imported from the upstream
//!   file, its own `update_url` answered by itself, against `eggcat validate`'s update-check
//!   warnings (`differential/update_check.rs`);
//! - Pterodactyl's `EggImporterService` (with its parser and its models' validation) on
//!   `pterodactyl.json`;
//! - Laravel's validator on every variable's default value against its rules.
//!
//! Then it compares: the egg stored from eggcat's file equals the egg stored from the upstream
//! file, field by field, except where Pelican's own round trip changes the field the same way
//! (the accepted differences, counted per field); `uuid` and `update_url` are what eggcat
//! promises; eggcat's `importable` verdicts agree with the panels; eggcat's rule verdicts
//! (E034 and its neighbours) agree with Laravel's. It prints the agreement counts, and fails
//! naming the egg, the field and both values on any mismatch.
//!
//! Meanwhile, on every database Pelican supports, each configuration in its own real database
//! with every egg kept (`differential/databases.rs`, `tests/php/databases.php`): eggcat's file for
//! that database imported, checked, updated and imported again, the check after each step.

#[path = "differential/databases.rs"]
mod databases;
#[path = "differential/laravel13.rs"]
mod laravel13;
#[path = "differential/pins.rs"]
mod pins;
mod support;
#[path = "differential/update_check.rs"]
mod update_check;
#[path = "differential/versions.rs"]
mod versions;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use support::{CorpusEgg, corpus, eggs, target, with};

const PHP_PACKAGES: &[&str] = &[
    "Symfony/Component/Yaml",
    "Symfony/Component/Console",
    "Illuminate/Support",
    "Illuminate/Database",
    "Illuminate/Events",
    "Illuminate/Validation",
    "Illuminate/Console",
    "Illuminate/Http",
    "Egulias/EmailValidator",
];

/// What eggcat published for one egg, and the files the PHP side reads.
struct Published {
    egg: CorpusEgg,
    variants: eggcat_panels::Variants,
    /// `eggcat validate` on the upstream file.
    diagnostics: Vec<eggcat_validate::Diagnostic>,
}

#[test]
fn import_files_agree_with_the_panels_own_code_on_every_corpus_egg() {
    let Some(dir) = corpus() else { return };
    if !support::php_ready(PHP_PACKAGES) {
        return;
    }
    let panels_src = dir.join("../panels-src");
    assert!(
        panels_src.join("pelican/app/Services").is_dir(),
        "{} is missing: the panels' source comes with ../shared",
        panels_src.display()
    );
    assert_pinned(&panels_src);
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4);
    // eggcat's files and validate's findings, on every core (a debug build takes seconds).
    let mut all = eggs(&dir);
    all.extend(own_cases());
    let published: Vec<Published> = std::thread::scope(|scope| {
        let parts: Vec<_> = all
            .chunks(all.len().div_ceil(workers).max(1))
            .map(|part| scope.spawn(|| part.iter().map(publish).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("publishing a share of the eggs"))
            .collect()
    });
    // The real databases, every egg kept (issue 26), first: a server or driver missing under
    // EGGCAT_PHP=require fails here, before any PHP process is left running.
    // Older versions of a seeded sample, for the published update-check hash (issue 37).
    let made = Instant::now();
    let older = versions::older(&published, workers);
    let _ = writeln!(
        std::io::stderr().lock(),
        "older versions of a seeded sample: {} made in {:.1} s",
        older.len(),
        made.elapsed().as_secs_f64()
    );
    let started_dbs = databases::start(tmp.path(), &published, &older, &panels_src);
    // One PHP process per core, each on a share of the eggs and their variables' rules (and
    // the first on validate's update-check cases).
    let cases = update_check::cases();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/php/differential.php");
    let runs: Vec<_> = (0..workers)
        .map(|w| {
            let jobs = write_jobs(tmp.path(), &published, &cases, w, workers);
            let out = tmp.path().join(format!("out-{w}.json"));
            let mut cmd = support::php();
            support::log_to_files(&mut cmd, &out);
            let child = cmd
                .arg(&script)
                .arg(&jobs)
                .arg(&out)
                .env("EGGCAT_PANELS_SRC", &panels_src)
                .spawn()
                .expect("php runs");
            (child, out)
        })
        .collect();
    let mut result =
        json!({"eggs": [], "rules": [], "emails": [], "self_checks": [], "seconds": 0.0});
    for (mut child, out) in runs {
        let status = child.wait().unwrap();
        let (stdout, stderr) = support::logged(&out);
        let last_egg = stderr.lines().rfind(|l| l.starts_with("egg: "));
        let messages: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("egg: ")).collect();
        assert!(
            status.success(),
            "the panels' PHP crashed on {}:\n{stdout}\n{}",
            last_egg.unwrap_or("egg: (before the first egg)"),
            messages.join("\n")
        );
        let part: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        for key in ["eggs", "rules", "emails", "self_checks"] {
            let list = part[key].as_array().cloned().unwrap_or_default();
            result[key].as_array_mut().unwrap().extend(list);
        }
        let seconds = result["seconds"]
            .as_f64()
            .unwrap()
            .max(part["seconds"].as_f64().unwrap());
        result["seconds"] = json!(seconds);
    }
    let mut report = compare(&published, &cases, &result);
    let db_skipped = started_dbs.skipped.clone();
    let db_setup = started_dbs.setup;
    let finished = databases::finish(started_dbs);
    let per_egg: BTreeMap<&str, &Value> = result["eggs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r))
        .collect();
    let mut db_lines = vec![format!(
        "Pelican on each database, every egg kept (servers up in {db_setup:.1} s; their CPU: {}):",
        finished.server_cpu.join(", ")
    )];
    for why in &db_skipped {
        support::skip_test(why);
    }
    for outcome in &finished.outcomes {
        let (lines, mismatches) =
            databases::report(outcome, &published, &older, &per_egg, &mut report.accepted);
        db_lines.extend(lines);
        report.mismatches.extend(mismatches);
    }
    let (line, mismatches) = laravel13::compare(&finished.outcomes, &finished.laravel13);
    db_lines.push(line);
    report.mismatches.extend(mismatches);
    let _ = writeln!(std::io::stderr().lock(), "{}", db_lines.join("\n"));
    // Written to stderr directly: the test harness hides `eprintln!` of a passing test, and
    // these counts are the test's figures.
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        report.summary(started.elapsed().as_secs_f64(), &result)
    );
    assert!(
        report.mismatches.is_empty(),
        "{} mismatches with the panels' own code:\n{}",
        report.mismatches.len(),
        report.mismatches.join("\n")
    );
}

/// The panels' source is the one at the commits docs/panels.md names, file for file
/// (`differential/pins.rs`). Apart from the PHP run, so that it is checked wherever `../shared`
/// is, PHP installed or not.
#[test]
fn the_panels_source_is_at_the_pinned_commits() {
    let Some(dir) = corpus() else { return };
    assert_pinned(&dir.join("../panels-src"));
}

fn assert_pinned(panels_src: &Path) {
    let problems = pins::mismatches(panels_src);
    assert!(
        problems.is_empty(),
        "{} is not the panels' source at the pinned commits (differential/panels-src.txt):\n{}",
        panels_src.display(),
        problems.join("\n")
    );
}

/// The test's own eggs (`tests/differential/eggs/`), after the corpus's: cases the corpus lacks,
/// each named `eggcat-tests/<file>` as if it were one more repository's.
/// - `egg-no-docker-images.json`: no `docker_images` key at all; eggcat marks it not importable
///   and Pelican refuses it (`docker_images: validation.required`), so the database steps must
///   not import it (each counts the agreement instead).
fn own_cases() -> Vec<CorpusEgg> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/eggs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the test's own eggs")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let syntax = eggcat_egg::SyntaxKind::from_file_name(&name).expect("an egg file name");
            let value = eggcat_egg::parse(&std::fs::read(&path).unwrap(), syntax)
                .expect("the test's own egg parses")
                .value;
            CorpusEgg {
                rel: format!("eggcat-tests/{name}"),
                path,
                syntax,
                value,
            }
        })
        .collect()
}

/// eggcat's files for `egg` and `eggcat validate` on its upstream file.
fn publish(egg: &CorpusEgg) -> Published {
    let variants = with(&egg.rel, |t| eggcat_panels::variants(&egg.value, t));
    let bytes = std::fs::read(&egg.path).unwrap();
    let diagnostics = eggcat_validate::check_file(&egg.rel, &bytes);
    Published {
        egg: egg.clone(),
        variants,
        diagnostics,
    }
}

/// Writes the files of worker `w`'s share of the eggs (of `workers`) and its job list; returns
/// the job list's path.
fn write_jobs(
    tmp: &Path,
    published: &[Published],
    cases: &[update_check::Case],
    w: usize,
    workers: usize,
) -> std::path::PathBuf {
    let mut jobs = Vec::new();
    let mut rules = Vec::new();
    for (i, p) in published
        .iter()
        .enumerate()
        .filter(|(i, _)| i % workers == w)
    {
        let write = |ext: &str, bytes: &Option<Vec<u8>>| {
            bytes.as_ref().map(|b| {
                let path = tmp.join(format!("{i:04}.{ext}"));
                std::fs::write(&path, b).unwrap();
                path
            })
        };
        jobs.push(json!({
            "name": p.egg.rel,
            "upstream": p.egg.path,
            "upstream_format": if p.egg.syntax == eggcat_egg::SyntaxKind::Yaml { "yaml" } else { "json" },
            "yaml": write("yaml", &p.variants.pelican_yaml),
            "json": write("json", &p.variants.pelican_json.sqlite),
            "pterodactyl": write("ptdl.json", &p.variants.pterodactyl_json),
            // Pterodactyl imports only JSON PTDL files: the upstream too, when it is one.
            "pterodactyl_upstream": p.egg.syntax == eggcat_egg::SyntaxKind::Json && is_ptdl(&p.egg.value),
        }));
        for (env, default, rule_list) in variable_rules(&p.egg.value) {
            rules.push(
                json!({"name": p.egg.rel, "env": env, "default": default, "rules": rule_list}),
            );
        }
    }
    // Every author of the worker's eggs, and (first worker) the listed hard cases.
    let mut emails: Vec<&str> = published
        .iter()
        .enumerate()
        .filter(|(i, _)| i % workers == w)
        .filter_map(|(_, p)| p.egg.value["author"].as_str())
        .collect();
    let mut self_checks = Vec::new();
    if w == 0 {
        emails.extend(eggcat_egg::panel::EMAIL_CASES.iter().map(|(a, _)| *a));
        self_checks = cases
            .iter()
            .map(|c| json!({"name": c.name, "file": c.path, "format": c.format}))
            .collect();
    }
    let path = tmp.join(format!("jobs-{w}.json"));
    let body = json!({"eggs": jobs, "rules": rules, "emails": emails, "self_checks": self_checks});
    std::fs::write(&path, serde_json::to_vec(&body).unwrap()).unwrap();
    path
}

fn is_ptdl(egg: &Value) -> bool {
    egg["meta"]["version"]
        .as_str()
        .is_some_and(|v| v.starts_with("PTDL"))
}

/// Each variable's env name, default value as the panel stores it (text; a boolean as Pelican's
/// importer words it) and rules as a list.
fn variable_rules(egg: &Value) -> Vec<(String, Value, Vec<Value>)> {
    let Some(vars) = egg["variables"].as_array() else {
        return Vec::new();
    };
    vars.iter()
        .filter_map(|v| {
            let env = v["env_variable"].as_str()?.to_owned();
            let default = match &v["default_value"] {
                Value::Bool(b) => json!(if *b { "true" } else { "false" }),
                Value::Number(n) => json!(n.to_string()),
                Value::String(s) => json!(s),
                _ => return None,
            };
            let rules = match &v["rules"] {
                Value::String(s) => s.split('|').map(|r| json!(r)).collect(),
                Value::Array(a) if a.iter().all(Value::is_string) => a.clone(),
                // Symfony YAML writes an empty list as `{  }`.
                Value::Object(m) if m.is_empty() => Vec::new(),
                _ => return None,
            };
            Some((env, default, rules))
        })
        .collect()
}

#[derive(Default)]
struct Report {
    mismatches: Vec<String>,
    /// Counters, by name (printed in order).
    counts: BTreeMap<&'static str, usize>,
    /// Fields where eggcat's stored egg differs from the upstream's exactly as Pelican's own
    /// round trip does, with how many eggs.
    accepted: BTreeMap<String, usize>,
    /// The upstream files whose own update check reads "Found update" (update_check.rs).
    self_checks: Vec<String>,
}

impl Report {
    fn count(&mut self, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
    }

    fn summary(&self, seconds: f64, result: &Value) -> String {
        let c = |k: &str| self.counts.get(k).copied().unwrap_or(0);
        let mut s = format!(
            "panels' own code on the corpus ({seconds:.1} s, PHP {:.1} s):\n\
             - Pelican stores the same egg from eggcat's pelican.yaml: {}/{}; from pelican.json: {}/{}\n\
             - Pelican's update check Up-to-date: pelican.json {}/{}; pelican.yaml {}/{}, and Found update where eggcat says it must be: {}\n\
             - Pelican import verdict agrees: {}/{} (upstream file refused by Pelican, eggcat's files imported: {})\n\
             - Pterodactyl import verdict agrees: {}/{}; stored core kept: {}/{}\n\
             - rule verdicts agree with Laravel's validator: {}/{} (not judged by eggcat: {})\n\
             - `email` verdicts (every author and the hard cases) agree with Laravel's: {}/{}\n\
             - eggcat validate on the upstream file: an error wherever a panel refuses it, none on {}/{} eggs the panels import ({} with errors the imports do not see)\n\
             - the upstream file's own update check (SQLite, its update_url answered by itself): Found update {} of {}; eggcat validate warns (E08x) exactly there: {}/{}; on validate's own cases of each code, Found update with that code alone: {}/{}\n",
            result["seconds"].as_f64().unwrap_or(0.0),
            c("yaml same"),
            c("yaml compared"),
            c("json same"),
            c("json compared"),
            c("json up to date"),
            c("json checked"),
            c("yaml up to date"),
            c("yaml checked"),
            c("yaml found update, as eggcat says"),
            c("pelican verdict agrees"),
            c("eggs"),
            c("upstream refused, eggcat's files import"),
            c("pterodactyl verdict agrees"),
            c("pterodactyl compared"),
            c("pterodactyl core kept"),
            c("pterodactyl imported"),
            c("rules agree"),
            c("rules compared"),
            c("rules not judged"),
            c("emails agree"),
            c("emails compared"),
            c("validate agrees"),
            c("validate compared"),
            c("validate errors the imports do not see"),
            c("self found update"),
            c("self checked"),
            c("self agrees"),
            c("self checked"),
            c("validate cases agree"),
            c("validate cases checked"),
        );
        s.push_str(&self.self_checks.join("\n"));
        s.push('\n');
        s.push_str("accepted differences (fields Pelican's own round trip changes, and validate errors no import sees):\n");
        for (field, n) in &self.accepted {
            s.push_str(&format!("  {field}: {n} eggs\n"));
        }
        s
    }
}

fn compare(published: &[Published], cases: &[update_check::Case], result: &Value) -> Report {
    let mut report = Report::default();
    let results: BTreeMap<&str, &Value> = result["eggs"]
        .as_array()
        .expect("one result per egg")
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r))
        .collect();
    assert_eq!(results.len(), published.len());
    for p in published {
        let r = results[p.egg.rel.as_str()];
        report.count("eggs");
        // A PHP error that is not the panel refusing the egg is never an answer.
        for crash in crashes(r) {
            report
                .mismatches
                .push(format!("{}: the panels' PHP crashed: {crash}", p.egg.rel));
        }
        pelican(&mut report, p, &r["pelican"]);
        if let Some(ptero) = r.get("pterodactyl") {
            pterodactyl(&mut report, p, ptero);
        }
    }
    rules(&mut report, published, result["rules"].as_array().unwrap());
    validate_agrees(&mut report, published, &results);
    report.self_checks = update_check::warnings_agree(&mut report, published, &results);
    let checks = result["self_checks"].as_array().unwrap();
    let lines = update_check::cases_agree(&mut report, cases, checks);
    report.self_checks.extend(lines);
    for pair in result["emails"].as_array().unwrap() {
        let (address, laravel) = (pair[0].as_str().unwrap(), pair[1].as_bool().unwrap());
        report.count("emails compared");
        if eggcat_egg::panel::is_email(address) == laravel {
            report.count("emails agree");
        } else {
            report.mismatches.push(format!(
                "email `{address}`: Laravel's `email` rule says {laravel}, eggcat's is_email the opposite"
            ));
        }
    }
    report
}

/// Every `crash` outcome anywhere in one egg's results.
fn crashes(v: &Value) -> Vec<String> {
    match v {
        Value::Object(m) => m
            .iter()
            .flat_map(|(k, x)| match (k.as_str(), x) {
                ("crash", Value::String(why)) => vec![why.clone()],
                _ => crashes(x),
            })
            .collect(),
        Value::Array(a) => a.iter().flat_map(crashes).collect(),
        _ => Vec::new(),
    }
}

/// The outcome of one PHP step: `Ok(value)`, or `Err` with the panel's refusal or crash.
fn outcome(v: &Value) -> Result<&Value, String> {
    match (v.get("ok"), v.get("refused"), v.get("crash")) {
        (Some(ok), _, _) => Ok(ok),
        (_, Some(why), _) => Err(format!("refused: {}", why.as_str().unwrap_or_default())),
        (_, _, Some(why)) => Err(format!("crash: {}", why.as_str().unwrap_or_default())),
        _ => Err("no outcome".to_owned()),
    }
}

fn pelican(report: &mut Report, p: &Published, r: &Value) {
    let rel = &p.egg.rel;
    let (uuid, [yaml_url, json_url, ..]) = target(rel);
    let upstream = outcome(&r["upstream"]);
    let eggcat_says = p.variants.pelican.importable;
    let imported = |key: &str| r.get(key).map(outcome);
    let panel_says = [imported("eggcat_yaml"), imported("eggcat_json")]
        .iter()
        .all(|o| matches!(o, Some(Ok(_))));
    if eggcat_says == panel_says {
        report.count("pelican verdict agrees");
    } else {
        report.mismatches.push(format!(
            "{rel}: Pelican import: eggcat says importable={eggcat_says} ({}), the panel: upstream {:?}, pelican.yaml {:?}, pelican.json {:?}",
            p.variants.pelican.problems.join("; "),
            upstream.as_ref().err(),
            imported("eggcat_yaml").and_then(|o| o.err()),
            imported("eggcat_json").and_then(|o| o.err()),
        ));
    }
    for (format, _) in [("yaml", &yaml_url), ("json", &json_url)] {
        if matches!(imported(&format!("eggcat_{format}")), Some(Ok(_))) {
            check_verdict(report, p, r, format);
        }
    }
    let Ok(upstream) = upstream else {
        if panel_says {
            // Pelican refuses the upstream file itself (a number where it wants text, written
            // by its own YAML export); eggcat's files import. Nothing stored to compare with.
            report.count("upstream refused, eggcat's files import");
        }
        return;
    };
    for (format, url) in [("yaml", &yaml_url), ("json", &json_url)] {
        let (Some(Ok(ours)), Ok(roundtrip)) = (
            imported(&format!("eggcat_{format}")),
            outcome(&r[format!("roundtrip_{format}")]),
        ) else {
            report.mismatches.push(format!(
                "{rel}: pelican.{format}: nothing to compare: eggcat's file {:?}, Pelican's round trip {:?}",
                imported(&format!("eggcat_{format}")).and_then(|o| o.err()),
                outcome(&r[format!("roundtrip_{format}")]).err()
            ));
            continue;
        };
        report.count(if format == "yaml" {
            "yaml compared"
        } else {
            "json compared"
        });
        let diffs = stored_differences(ours, upstream, roundtrip, &uuid, url, &mut report.accepted);
        if diffs.is_empty() {
            report.count(if format == "yaml" {
                "yaml same"
            } else {
                "json same"
            });
        }
        for d in diffs {
            report
                .mismatches
                .push(format!("{rel}: pelican.{format} stored: {d}"));
        }
    }
}

/// The update check's verdict on the egg imported from eggcat's file in `format`: Up-to-date,
/// or Found update exactly where eggcat says so.
fn check_verdict(report: &mut Report, p: &Published, r: &Value, format: &str) {
    let rel = &p.egg.rel;
    report.count(if format == "yaml" {
        "yaml checked"
    } else {
        "json checked"
    });
    // eggcat says so when Pelican's own YAML export cannot match a file Pelican imports.
    let expect_found = format == "yaml"
        && p.variants
            .pelican
            .losses
            .iter()
            .any(|l| l.starts_with("pelican.yaml: Pelican's update check"));
    match outcome(&r[format!("check_{format}")]) {
        Ok(Value::String(line)) if line.ends_with(": Up-to-date") && !expect_found => {
            report.count(if format == "yaml" {
                "yaml up to date"
            } else {
                "json up to date"
            })
        }
        Ok(Value::String(line))
            if line.contains(": Found update")
                && line.ends_with("[only texts the YAML export writes as numbers]")
                && expect_found =>
        {
            report.count("yaml found update, as eggcat says")
        }
        other => report.mismatches.push(format!(
            "{rel}: pelican.{format}: the update check says {other:?}{}",
            if expect_found {
                " (eggcat says it reads Found update)"
            } else {
                ""
            }
        )),
    }
}

/// The fields where `ours` (stored from eggcat's file) differs from `upstream` (stored from
/// the upstream file) other than as Pelican's own round trip (`roundtrip`) changes them.
fn stored_differences(
    ours: &Value,
    upstream: &Value,
    roundtrip: &Value,
    uuid: &str,
    url: &str,
    accepted: &mut BTreeMap<String, usize>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut field = |diffs: &mut Vec<String>, name: String, o: &Value, u: &Value, rt: &Value| {
        if o == u {
            return;
        }
        if o == rt {
            *accepted.entry(name).or_default() += 1;
            return;
        }
        diffs.push(format!(
            "`{name}`: eggcat {o}, upstream {u}, Pelican's round trip {rt}"
        ));
    };
    let keys: Vec<&String> = ours.as_object().unwrap().keys().collect();
    for key in keys {
        let (o, u, rt) = (&ours[key], &upstream[key], &roundtrip[key]);
        match key.as_str() {
            "uuid" => {
                if o != uuid {
                    diffs.push(format!("`uuid` is {o}, eggcat promises {uuid}"));
                }
            }
            "update_url" => {
                if o != url {
                    diffs.push(format!("`update_url` is {o}, eggcat promises {url}"));
                }
            }
            "icon_files" => {
                let files = |v: &Value| {
                    let mut f: Vec<String> = v
                        .as_object()
                        .map(|m| m.values().map(Value::to_string).collect())
                        .unwrap_or_default();
                    f.sort();
                    json!(f)
                };
                field(&mut diffs, key.clone(), &files(o), &files(u), &files(rt));
            }
            "variables" => {
                let by_env = |v: &Value| -> BTreeMap<String, Value> {
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .map(|x| {
                            (
                                x["env_variable"].as_str().unwrap_or("").to_owned(),
                                x.clone(),
                            )
                        })
                        .collect()
                };
                let (o, u, rt) = (by_env(o), by_env(u), by_env(rt));
                let envs = |m: &BTreeMap<String, Value>| m.keys().cloned().collect::<Vec<_>>();
                if envs(&o) != envs(&u) {
                    diffs.push(format!(
                        "variables: eggcat {:?}, upstream {:?}",
                        envs(&o),
                        envs(&u)
                    ));
                    continue;
                }
                for (env, ov) in &o {
                    for (k, val) in ov.as_object().unwrap() {
                        field(
                            &mut diffs,
                            format!("variables.{k}"),
                            val,
                            &u[env][k],
                            &rt.get(env).map_or(Value::Null, |r| r[k].clone()),
                        );
                    }
                }
            }
            _ => field(&mut diffs, key.clone(), o, u, rt),
        }
    }
    diffs
}

fn pterodactyl(report: &mut Report, p: &Published, r: &Value) {
    let rel = &p.egg.rel;
    report.count("pterodactyl compared");
    let stored = outcome(r);
    let eggcat_says = p.variants.pterodactyl.importable;
    if eggcat_says == stored.is_ok() {
        report.count("pterodactyl verdict agrees");
    } else {
        report.mismatches.push(format!(
            "{rel}: Pterodactyl import: eggcat says importable={eggcat_says} ({}), the panel: {:?}",
            p.variants.pterodactyl.problems.join("; "),
            stored.as_ref().err()
        ));
    }
    let Ok(stored) = stored else { return };
    report.count("pterodactyl imported");
    let before = report.mismatches.len();
    for d in pterodactyl_core_differences(&p.egg.value, stored, &p.variants.pterodactyl.losses) {
        report
            .mismatches
            .push(format!("{rel}: pterodactyl.json stored: {d}"));
    }
    if report.mismatches.len() == before {
        report.count("pterodactyl core kept");
    }
}

/// Where the egg Pterodactyl stores from `pterodactyl.json` lost the upstream's core (name,
/// images, default startup, config, install script, variables' defaults and rules) beyond the
/// losses eggcat names.
fn pterodactyl_core_differences(
    upstream: &Value,
    stored: &Value,
    losses: &[String],
) -> Vec<String> {
    let mut diffs = Vec::new();
    let same = |diffs: &mut Vec<String>, what: &str, want: Value, got: &Value| {
        if &want != got {
            diffs.push(format!("`{what}`: stored {got}, upstream {want}"));
        }
    };
    same(
        &mut diffs,
        "name",
        upstream["name"].clone(),
        &stored["name"],
    );
    let images = |v: &Value| -> Value {
        let mut list: Vec<String> = match v {
            Value::Object(m) => m
                .values()
                .map(|x| x.as_str().unwrap_or_default().to_owned())
                .collect(),
            Value::Array(a) => a
                .iter()
                .map(|x| x.as_str().unwrap_or_default().to_owned())
                .collect(),
            Value::String(s) => vec![s.clone()],
            _ => Vec::new(),
        };
        list.sort();
        json!(list)
    };
    let up_images = upstream
        .get("docker_images")
        .or(upstream.get("images"))
        .or(upstream.get("image"))
        .unwrap_or(&Value::Null);
    same(
        &mut diffs,
        "docker_images",
        images(up_images),
        &images(&stored["docker_images"]),
    );
    let startup = match (&upstream["startup"], &upstream["startup_commands"]) {
        (Value::String(s), _) => json!(s),
        (_, Value::Object(m)) => m
            .get("Default")
            .or(m.values().next())
            .cloned()
            .unwrap_or(Value::Null),
        _ => Value::Null,
    };
    same(&mut diffs, "startup", startup, &stored["startup"]);
    let script = &upstream["scripts"]["installation"]["script"];
    same(
        &mut diffs,
        "script_install",
        script.clone(),
        &stored["script_install"],
    );
    let as_data = |v: &Value| match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        other => eggcat_panels::php::normalize(other),
    };
    // The config files, placeholders compared in Pelican's words (eggcat writes Pterodactyl's
    // back; a PLCN upstream has Pelican's), as data.
    let files_data = |v: &Value| -> Value {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        serde_json::from_str(&eggcat_panels::pelican::upgrade_variables(&text))
            .unwrap_or(Value::Null)
    };
    same(
        &mut diffs,
        "config.files",
        eggcat_panels::php::normalize(&files_data(&upstream["config"]["files"])),
        &eggcat_panels::php::normalize(&files_data(&stored["config_files"])),
    );
    same(
        &mut diffs,
        "config.stop",
        upstream["config"]["stop"].clone(),
        &stored["config_stop"],
    );
    for key in ["startup", "logs"] {
        same(
            &mut diffs,
            &format!("config.{key}"),
            as_data(&upstream["config"][key]),
            &as_data(&stored[&format!("config_{key}")]),
        );
    }
    let by_env: BTreeMap<String, &Value> = stored["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| (v["env_variable"].as_str().unwrap_or("").to_owned(), v))
        .collect();
    for (env, default, rules) in variable_rules(upstream) {
        if losses
            .iter()
            .any(|l| l.contains(&format!("`{env}` (merged")))
        {
            continue;
        }
        let Some(v) = by_env.get(&env) else {
            diffs.push(format!("variable `{env}` is missing"));
            continue;
        };
        same(
            &mut diffs,
            &format!("{env}.default_value"),
            default,
            &v["default_value"],
        );
        let joined = rules
            .iter()
            .map(|r| r.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("|");
        if !(joined.is_empty() && losses.iter().any(|l| l.contains("empty `rules`"))) {
            same(
                &mut diffs,
                &format!("{env}.rules"),
                json!(joined),
                &v["rules"],
            );
        }
    }
    diffs
}

/// The errors `eggcat validate` reports on files both panels import, each for a reason no
/// import shows (docs/validate.md): E023, two variables with one env name (both panels import
/// the egg; the second variable can never be set on a server); E061 on an image reference with
/// spaces around it (both panels store it as written; Docker refuses it when Wings pulls it).
/// Each is a code and a part of its message.
const ERRORS_NO_IMPORT_SEES: &[(&str, &str)] = &[("E023", ""), ("E061", "it has spaces around it")];

/// Whether `error` (a code, a space, the message) is one of [`ERRORS_NO_IMPORT_SEES`].
fn no_import_sees(error: &str) -> bool {
    ERRORS_NO_IMPORT_SEES
        .iter()
        .any(|(code, words)| error.starts_with(code) && error.contains(words))
}

/// `eggcat validate` on the upstream file against the panels' own import of it: where a panel
/// refuses the file, validate reports an error; where validate reports none, Pelican imports the
/// file, and Pterodactyl does too when it is a JSON PTDL egg. (eggcat's own files are another
/// matter: they repair what they can, and `meta.import` says whether each panel takes them.)
fn validate_agrees(report: &mut Report, published: &[Published], results: &BTreeMap<&str, &Value>) {
    for p in published {
        let r = results[p.egg.rel.as_str()];
        let errors: Vec<String> = p
            .diagnostics
            .iter()
            .filter(|d| d.severity == eggcat_validate::Severity::Error)
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        let mut refusals = Vec::new();
        if let Err(why) = outcome(&r["pelican"]["upstream"]) {
            refusals.push(format!("Pelican {why}"));
        }
        if let Some(Err(why)) = r.get("pterodactyl_upstream").map(outcome) {
            refusals.push(format!("Pterodactyl {why}"));
        }
        report.count("validate compared");
        if refusals.is_empty() == errors.is_empty() {
            report.count("validate agrees");
        } else if errors.is_empty() {
            report.mismatches.push(format!(
                "{}: eggcat validate reports no error, but {}",
                p.egg.rel,
                refusals.join("; ")
            ));
        } else if errors.iter().all(|e| no_import_sees(e)) {
            // An error no panel's import sees, named: counted, and listed in the summary.
            report.count("validate errors the imports do not see");
            *report
                .accepted
                .entry(format!(
                    "validate error on an egg both panels import: {}",
                    &errors[0][..4]
                ))
                .or_default() += 1;
        } else {
            report.mismatches.push(format!(
                "{}: eggcat validate reports errors both panels' imports accept: {}",
                p.egg.rel,
                errors.join("; ")
            ));
        }
    }
}

fn rules(report: &mut Report, published: &[Published], verdicts: &[Value]) {
    // eggcat's verdict per (egg, variable): the codes `eggcat validate` reports under it.
    let mut codes: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for p in published {
        let diags = &p.diagnostics;
        let vars = p.egg.value["variables"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for d in diags {
            let Some(rest) = d.pointer.strip_prefix("/variables/") else {
                continue;
            };
            let Some(i) = rest.split('/').next().and_then(|i| i.parse::<usize>().ok()) else {
                continue;
            };
            let env = vars
                .get(i)
                .and_then(|v| v["env_variable"].as_str())
                .unwrap_or("")
                .to_owned();
            codes
                .entry((p.egg.rel.clone(), env))
                .or_default()
                .push(d.code.clone());
        }
    }
    for v in verdicts {
        let key = (
            v["name"].as_str().unwrap().to_owned(),
            v["env"].as_str().unwrap().to_owned(),
        );
        let ours = codes.get(&key).cloned().unwrap_or_default();
        let has = |c: &[&str]| ours.iter().any(|x| c.contains(&x.as_str()));
        report.count("rules compared");
        if has(&["E033"]) {
            report.count("rules not judged");
            continue;
        }
        let eggcat = if has(&["E030", "E031", "E032"]) {
            "throws"
        } else if has(&["E034", "E035"]) {
            "fail"
        } else {
            "pass"
        };
        let laravel = v["verdict"].as_str().unwrap();
        if eggcat == laravel {
            report.count("rules agree");
        } else {
            report.mismatches.push(format!(
                "{}: variable `{}`: Laravel's validator says {laravel} {}, eggcat says {eggcat} ({ours:?})",
                key.0,
                key.1,
                v.get("message").map(Value::to_string).unwrap_or_default()
            ));
        }
    }
}
