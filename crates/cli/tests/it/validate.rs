//! `eggcat validate` end to end: exit codes 0, 1 and 2, the three formats, `--deny warnings`,
//! a folder walk that skips dot-folders, and a file named on the command line.

use std::path::Path;
use std::process::{Command, Output};

fn validate(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .arg("validate")
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("eggcat runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The clean egg of the validate crate's test data, and variants of it.
fn clean_egg() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../validate/tests/data/clean/egg.json"
    );
    std::fs::read_to_string(path).expect("the validate crate's clean case exists")
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let clean = clean_egg();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write("games/paper/egg-paper.json", &clean);
    // A warning only: the entrypoint does not match the bash shebang.
    write(
        "games/ash/egg-ash.json",
        &clean.replace("\"entrypoint\": \"bash\"", "\"entrypoint\": \"ash\""),
    );
    // Templates under a dot-folder are not eggs of the repository.
    write(".github/templates/egg-template.json", "{ not even json");
    // Not an egg file name: skipped by the walk.
    write("games/paper/notes.json", "{ not even json");
    dir
}

#[test]
fn a_folder_with_only_warnings_exits_0_and_skips_dot_folders() {
    let dir = folder();
    let o = validate(dir.path(), &[]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "warning[E072]: the script's shebang asks for `bash` but the entrypoint `ash` runs it"
        ),
        "{out}"
    );
    assert!(out.contains("--> ./games/ash/egg-ash.json:30:27"), "{out}");
    assert!(
        !out.contains("template") && !out.contains("notes.json"),
        "{out}"
    );
    assert!(out.ends_with("1 warning in 2 files\n"), "{out}");
    assert!(
        !out.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn deny_warnings_turns_warnings_into_exit_1() {
    let dir = folder();
    let o = validate(dir.path(), &["--deny", "warnings", "games"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
}

#[test]
fn errors_exit_1_and_a_named_file_is_always_checked() {
    let dir = folder();
    // Not an egg file name and under a dot-folder, but named: checked.
    let o = validate(
        dir.path(),
        &[
            ".github/templates/egg-template.json",
            "games/paper/notes.json",
        ],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("error[E003]: invalid JSON"), "{out}");
    assert!(out.ends_with("2 errors in 2 files\n"), "{out}");
}

#[test]
fn json_format_prints_one_object_per_diagnostic() {
    let dir = folder();
    let o = validate(dir.path(), &["--format", "json", "games"]);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["path"], "games/ash/egg-ash.json");
    assert_eq!(lines[0]["code"], "E072");
    assert_eq!(lines[0]["severity"], "warning");
    assert_eq!(lines[0]["pointer"], "/scripts/installation/entrypoint");
    assert_eq!(
        (lines[0]["line"].as_u64(), lines[0]["column"].as_u64()),
        (Some(30), Some(27))
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr).trim(),
        "1 warning in 2 files"
    );
}

#[test]
fn github_format_prints_workflow_commands() {
    let dir = folder();
    let o = validate(
        dir.path(),
        &["--format", "github", "games/ash/egg-ash.json"],
    );
    let out = stdout(&o);
    assert!(
        out.starts_with("::warning file=games/ash/egg-ash.json,line=30,col=27,endLine=30,endColumn=31,title=E072 warning::the script's shebang"),
        "{out}"
    );
    assert!(out.contains("%0Ahelp: "), "{out}");
}

#[test]
fn usage_and_io_errors_exit_2() {
    let dir = folder();
    assert_eq!(
        validate(dir.path(), &["no/such/file.json"]).status.code(),
        Some(2)
    );
    assert_eq!(
        validate(dir.path(), &["--format", "xml"]).status.code(),
        Some(2)
    );
    let help = validate(dir.path(), &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("Exit status: 0 no errors"));
}

#[test]
fn color_always_paints_the_header() {
    let dir = folder();
    let o = validate(dir.path(), &["--color", "always", "games/ash"]);
    assert!(
        stdout(&o).contains("\x1b[1;33mwarning[E072]"),
        "{}",
        stdout(&o)
    );
}
