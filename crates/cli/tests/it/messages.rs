//! The words of the `eggcat` binary, run as a user runs it: counts with the right noun for 0, 1
//! and 2, the build report named by its full path, config errors at the right line with "did you
//! mean", suggestions for mistyped sub-commands, options and validation rules, and help text that
//! stands without the repository's docs.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::egg_json;

fn eggcat(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .args(args)
        .current_dir(dir)
        .env_remove("EGGCAT_LOG")
        .output()
        .expect("eggcat runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A plain-folder upstream under `root/name` with `n` eggs, `n` files skipped (they do not
/// parse) and `n` warnings (duplicate JSON keys, which the panel reads as the last value).
fn upstream(root: &Path, name: &str, n: usize) {
    std::fs::create_dir_all(root.join(name)).expect("mkdir");
    for i in 0..n {
        let egg = egg_json(&format!("Egg {i}")).replacen(
            "\"name\":",
            "\"name\": \"first\",\n    \"name\":",
            1,
        );
        write(&root.join(format!("{name}/games/g{i}/egg-g{i}.json")), &egg);
        write(
            &root.join(format!("{name}/bad/b{i}/egg-b{i}.json")),
            "{ nope",
        );
    }
}

/// `eggcat build` of one folder source `name` with `n` of everything; (stdout, stderr).
fn build_counting(n: usize) -> (String, String) {
    let tmp = tempfile::tempdir().expect("temp dir");
    upstream(tmp.path(), "up", n);
    write(
        &tmp.path().join("eggcat.toml"),
        "data_dir = \"data\"\n[images]\nenabled = false\n[[source]]\nurl = \"up\"\nowner = \"o\"\nrepo = \"r\"\n",
    );
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (text(&out.stdout), text(&out.stderr))
}

#[test]
fn build_counts_say_one_egg_and_two_eggs() {
    for (n, summary, source, progress) in [
        (
            0,
            "built 0 eggs (0 skipped files, 0 warnings) as ",
            "   0 eggs  ok",
            "0 eggs parsed, 0 files skipped",
        ),
        (
            1,
            "built 1 egg (1 skipped file, 1 warning) as ",
            "   1 egg   ok",
            "1 egg parsed, 1 file skipped",
        ),
        (
            2,
            "built 2 eggs (2 skipped files, 2 warnings) as ",
            "   2 eggs  ok",
            "2 eggs parsed, 2 files skipped",
        ),
    ] {
        let (stdout, stderr) = build_counting(n);
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(lines[0].starts_with(summary), "{n}: {stdout}");
        assert!(lines[1].starts_with("  o/r "), "{n}: {stdout}");
        assert!(lines[1].ends_with(source), "{n}: {stdout}");
        // Not on a terminal, the progress is one log line per source.
        assert!(stderr.contains(progress), "{n}: {stderr}");
    }
}

#[test]
fn the_build_names_its_report_by_its_full_path() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().canonicalize().expect("temp dir exists");
    upstream(&root, "up", 1);
    write(
        &root.join("conf/eggcat.toml"),
        "data_dir = \"../data\"\n[images]\nenabled = false\n[[source]]\nurl = \"../up\"\nowner = \"o\"\n",
    );
    // Relative paths, as a user types them: the report's path is printed whole all the same.
    let out = eggcat(&root, &["build", "--config", "conf/eggcat.toml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().expect("a summary");
    let path = last
        .strip_prefix("build report (sources, skipped files, warnings): ")
        .unwrap_or_else(|| panic!("{stdout}"));
    let current = eggcat_store::Store::new(root.join("data"))
        .current_dir()
        .expect("a current snapshot");
    assert_eq!(
        Path::new(path),
        current
            .canonicalize()
            .expect("it exists")
            .join("api/v1/_status.json")
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("the report is there")).expect("JSON");
    assert_eq!(report["eggs"], 1);

    // With --out, the report of the published tree, which is what a static host serves.
    let out = eggcat(
        &root,
        &["build", "--config", "conf/eggcat.toml", "--out", "site"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let want = format!(
        "build report (sources, skipped files, warnings): {}",
        root.join("site/api/v1/_status.json").display()
    );
    assert_eq!(stdout.lines().last(), Some(want.as_str()), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "wrote the published tree to {}",
            root.join("site").display()
        )),
        "{stdout}"
    );
}

/// `eggcat build --config eggcat.toml` with `config` as the file; its one-line error.
fn config_error(config: &str) -> String {
    let tmp = tempfile::tempdir().expect("temp dir");
    write(&tmp.path().join("eggcat.toml"), config);
    let out = eggcat(tmp.path(), &["build", "--config", "eggcat.toml"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr.trim_end().to_owned()
}

// Regression: an unknown key on line 7 was reported at line 6 (the lines before it were
// counted, not the line breaks).
#[test]
fn a_config_error_names_its_line_and_the_key_that_was_meant() {
    let config = "data_dir = \"data\"\n\n# the eggs\n[[source]]\nurl = \"up\"\nowner = \"o\"\nlable = \"x\"\n";
    assert_eq!(config.lines().nth(6), Some("lable = \"x\""));
    let e = config_error(config);
    assert_eq!(
        e,
        "eggcat: error: invalid config eggcat.toml:7:1: unknown key `lable`; did you mean `label`?"
    );

    // Top-level keys and `[publish]` keys too; the first line is line 1; the column counts
    // characters from 1.
    let e = config_error("refesh = \"3h\"\n");
    assert_eq!(
        e,
        "eggcat: error: invalid config eggcat.toml:1:1: unknown key `refesh`; did you mean `refresh`?"
    );
    let e = config_error("listen = \"127.0.0.1:1\"\n[publish]\n  urll = \"s3://b\"\n");
    assert_eq!(
        e,
        "eggcat: error: invalid config eggcat.toml:3:3: unknown key `urll`; did you mean `url`?"
    );

    // Nothing close: the known keys, and no guess.
    let e = config_error("\nzzzzzz = 1\n");
    assert!(
        e.starts_with(
            "eggcat: error: invalid config eggcat.toml:2:1: unknown key `zzzzzz` (the keys here: \
             `data_dir`, `listen`,"
        ),
        "{e}"
    );
    assert!(!e.contains("did you mean"), "{e}");
    // A value error points at the value.
    let e = config_error("listen = \"x\"\n\nrefresh = 3\n");
    assert_eq!(
        e,
        "eggcat: error: invalid config eggcat.toml:3:11: invalid type: integer `3`, expected a string"
    );
}

#[test]
fn mistyped_sub_commands_and_options_get_a_suggestion() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (args, tip) in [
        (&["biuld"][..], "tip: a similar subcommand exists: 'build'"),
        (
            &["valdiate"],
            "tip: a similar subcommand exists: 'validate'",
        ),
        (
            &["build", "--confg", "x"],
            "tip: a similar argument exists: '--config'",
        ),
    ] {
        let out = eggcat(tmp.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(tip), "{args:?}: {stderr}");
    }
}

#[test]
fn an_unknown_validation_rule_names_the_rule_it_is_likely_a_typo_of() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The validate crate's clean egg, with one rule mistyped.
    let clean = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../validate/tests/data/clean/egg.json"
    ))
    .expect("the validate crate's clean case exists");
    let egg = clean.replace("nullable|string|max:60", "nullable|strin|max:60");
    assert_ne!(egg, clean);
    write(&tmp.path().join("egg-typo.json"), &egg);
    let out = eggcat(
        tmp.path(),
        &["validate", "--color", "never", "egg-typo.json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("error[E030]: unknown validation rule `strin`: did you mean `string`?"),
        "{stdout}"
    );
}

#[test]
fn help_stands_without_the_repository() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for args in [
        &["--help"][..],
        &["-h"],
        &["build", "--help"],
        &["serve", "--help"],
        &["validate", "--help"],
        &["validate", "-h"],
        &["publish", "--help"],
    ] {
        let out = eggcat(tmp.path(), args);
        assert!(out.status.success(), "{args:?}");
        let help = text(&out.stdout);
        // A user with only the binary has no docs/ folder to read.
        assert!(!help.contains("docs/"), "{args:?} points at docs/:\n{help}");
        assert!(!help.contains(".md"), "{args:?} points at a file:\n{help}");
    }
    // `validate --help` lists every check, with its severity, from the checks' own table.
    let help = text(&eggcat(tmp.path(), &["validate", "--help"]).stdout);
    for c in eggcat_validate::Code::ALL {
        let line = format!(
            "  {}  {:<7}  {}",
            c.as_str(),
            c.severity().as_str(),
            c.summary()
        );
        assert!(help.contains(&line), "{line:?} missing from:\n{help}");
    }
    // `-h` says where the full list is.
    let short = text(&eggcat(tmp.path(), &["validate", "-h"]).stdout);
    assert!(
        short.contains("`eggcat validate --help` lists every check"),
        "{short}"
    );
}
