//! `eggcat diff OLD NEW` end to end, through the real binary: the human and JSON outputs, exit
//! 0 normally, 1 with `--breaking` when a change can break servers, and 2 with one clear line
//! for a missing file, binary junk, or a file that is not an egg.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn eggcat_diff(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eggcat"))
        .arg("diff")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("eggcat runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../diff/tests/data")
        .join(name)
}

/// A folder with the PTDL fixture (`old.json`), the same egg as PLCN YAML (`same.yaml`), a
/// version with a harmless change (`renamed.json`) and one with a breaking one (`new.json`).
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let old = std::fs::read_to_string(fixture("paper.ptdl.json")).expect("fixture");
    std::fs::write(dir.path().join("old.json"), &old).expect("write");
    std::fs::copy(fixture("paper.plcn.yaml"), dir.path().join("same.yaml")).expect("copy");
    std::fs::write(
        dir.path().join("renamed.json"),
        old.replace("\"name\": \"Paper\"", "\"name\": \"Paper MC\""),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("new.json"),
        old.replace("\"stop\": \"stop\"", "\"stop\": \"^C\"")
            .replace("java -Xms128M", "java -Xms256M"),
    )
    .expect("write");
    dir
}

#[test]
fn the_same_egg_in_two_formats_has_no_changes() {
    let dir = folder();
    let o = eggcat_diff(dir.path(), &["old.json", "same.yaml", "--breaking"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "no changes (the eggs may still differ in format)\n"
    );
}

#[test]
fn human_output_marks_breaking_changes_and_exit_1_needs_breaking() {
    let dir = folder();
    let o = eggcat_diff(dir.path(), &["old.json", "new.json"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(
        out.starts_with("! startup command `Default` changed from `java -Xms128M"),
        "{out}"
    );
    assert!(
        out.contains("! stop command changed from `stop` to `^C`\n"),
        "{out}"
    );
    assert!(out.contains("    can break servers: "), "{out}");
    assert!(
        out.ends_with("\n2 changes, 2 can break existing servers\n"),
        "{out}"
    );
    let o = eggcat_diff(dir.path(), &["--breaking", "old.json", "new.json"]);
    assert_eq!(o.status.code(), Some(1));
    // A change that breaks nothing keeps exit 0 with --breaking.
    let o = eggcat_diff(dir.path(), &["--breaking", "old.json", "renamed.json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout),
        "  name changed from `Paper` to `Paper MC`\n\n1 change, none can break existing servers\n"
    );
}

#[test]
fn json_output_has_the_counts_and_the_changes() {
    let dir = folder();
    let o = eggcat_diff(dir.path(), &["old.json", "new.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["changes"], 2);
    assert_eq!(doc["breaking"], 2);
    assert_eq!(doc["list"][0]["kind"], "startup_changed");
    assert_eq!(
        doc["list"][0]["path"],
        serde_json::json!(["startup_commands", "Default"])
    );
    assert_eq!(doc["list"][1]["kind"], "stop_changed");
    assert_eq!(doc["list"][1]["old"], "stop");
    assert_eq!(doc["list"][1]["new"], "^C");
    assert_eq!(doc["list"][1]["breaking"], true);
}

#[test]
fn unreadable_and_bad_files_exit_2_with_one_line() {
    let dir = folder();
    std::fs::write(dir.path().join("junk.json"), [0xff, 0xfe, 0x00, 0x9c, 0x42]).expect("write");
    std::fs::write(dir.path().join("list.yaml"), "- 1\n- 2\n").expect("write");
    std::fs::write(dir.path().join("broken.json"), "{\"name\": ").expect("write");
    // Sparse: 17 MiB on paper, refused by its size before a byte is read.
    std::fs::File::create(dir.path().join("huge.json"))
        .and_then(|f| f.set_len(17 * 1024 * 1024))
        .expect("sparse file");
    let cases = [
        (
            "missing.json",
            "eggcat: error: cannot read missing.json: No such file or directory (os error 2)\n",
        ),
        (
            "junk.json",
            "eggcat: error: junk.json cannot be diffed: file is not valid UTF-8 (first bad byte at offset 0)\n",
        ),
        (
            "list.yaml",
            "eggcat: error: list.yaml cannot be diffed: not an egg: document is an array, not an object\n",
        ),
        (
            "broken.json",
            "eggcat: error: broken.json cannot be diffed: invalid JSON: EOF while parsing a value at line 1 column 9\n",
        ),
        (
            "huge.json",
            "eggcat: error: huge.json: file is 17825792 bytes, over the 16 MiB an egg file may have\n",
        ),
    ];
    for (file, message) in cases {
        for args in [["old.json", file], [file, "old.json"]] {
            let o = eggcat_diff(dir.path(), &args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert_eq!(text(&o.stderr), message, "{args:?}");
            assert!(o.stdout.is_empty());
        }
    }
}
