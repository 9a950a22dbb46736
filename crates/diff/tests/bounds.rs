//! Bad and huge input stays bounded and clear: files that are not eggs are refused with the
//! parser's reason, any JSON value diffs without a panic, and a huge install script gives exact
//! counts, a diff cut at `MAX_DIFF_LINES` with a note, and lines cut at `MAX_LINE_CHARS`.

use std::time::Instant;

use eggcat_diff::{Kind, LoadError, MAX_DIFF_LINES, MAX_FILE_BYTES, MAX_LINE_CHARS, diff, load};
use serde_json::{Value, json};

fn egg_with_script(script: &str) -> Value {
    json!({"meta": {"version": "PTDL_v2"}, "name": "x", "scripts": {"installation": {"script": script}}})
}

fn script_change(old: &str, new: &str) -> eggcat_diff::ScriptDiff {
    let changes = diff(&egg_with_script(old), &egg_with_script(new));
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0].kind, Kind::InstallScriptChanged);
    changes[0].script.clone().expect("a script diff")
}

#[test]
fn files_that_are_not_eggs_are_refused_with_the_reason() {
    let junk: Vec<u8> = (0..4096u64)
        .map(|i| (i * 2_654_435_761 % 251) as u8)
        .collect();
    let e = load("junk.json", &junk).unwrap_err();
    assert!(matches!(e, LoadError::Parse(_)), "{e}");
    assert!(e.to_string().contains("not valid UTF-8"), "{e}");
    assert_eq!(
        load("a.json", b"{\"name\": 1").unwrap_err().to_string(),
        "invalid JSON: EOF while parsing an object at line 1 column 10"
    );
    assert_eq!(
        load("a.yaml", b"- 1\n- 2\n").unwrap_err().to_string(),
        "not an egg: document is an array, not an object"
    );
    assert_eq!(
        load("a.json", br#"{"meta": {"version": "PTDL_v2"}}"#)
            .unwrap_err()
            .to_string(),
        "not an egg: no name: `name` is missing, not a string, or blank"
    );
    let big = vec![b' '; usize::try_from(MAX_FILE_BYTES).expect("fits") + 1];
    assert!(matches!(load("a.json", &big), Err(LoadError::TooLarge(_))));
}

#[test]
fn a_file_without_a_known_extension_is_sniffed() {
    let egg = br#"{"meta": {"version": "PTDL_v2"}, "name": "x"}"#;
    assert!(load("egg", egg).is_ok());
    assert!(load("egg", b"meta:\n  version: PLCN_v3\nname: x\n").is_ok());
}

#[test]
fn any_value_diffs_without_a_panic() {
    let odd = [
        json!(null),
        json!(1),
        json!([1, 2]),
        json!("text"),
        json!({"meta": {"version": "PTDL_v2"}, "name": "x"}),
        json!({"name": {"a": 1}, "docker_images": 5, "startup_commands": [], "startup": {"a": 1},
            "config": {"files": "not json", "startup": "[1,2", "logs": 7, "stop": ["a"]},
            "variables": "none", "features": {"a": [1]}, "file_denylist": "x"}),
        json!({"variables": [1, null, {"env_variable": ["A"]}, {"rules": {"0": "a"}},
                {"env_variable": "X", "name": "first"}, {"env_variable": "X", "name": "second"}],
            "config": {"files": {"f": "not a map", "g": {"find": "not a map"}}}}),
    ];
    for a in &odd {
        for b in &odd {
            let changes = diff(a, b);
            if a == b {
                assert!(changes.is_empty(), "{a} vs itself: {changes:#?}");
            }
        }
    }
}

#[test]
fn a_script_diff_counts_lines_and_shows_hunks_with_context() {
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 2\n", "line two\n")
        .replace("line 15\n", "line 15\nline 15b\n");
    let d = script_change(&old, &new);
    assert_eq!((d.added, d.removed), (2, 1));
    assert_eq!(
        d.unified,
        "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+line two\n line 3\n line 4\n line 5\n\
         @@ -13,6 +13,7 @@\n line 13\n line 14\n line 15\n+line 15b\n line 16\n line 17\n line 18\n"
    );
    assert_eq!(d.note, None);
    // An added script counts all its lines.
    let d = script_change("", "a\nb");
    assert_eq!((d.added, d.removed), (2, 0));
    assert_eq!(d.unified, "@@ -0,0 +1,2 @@\n+a\n+b\n");
}

#[test]
fn a_huge_rewritten_script_is_bounded() {
    let old: String = (0..150_000).map(|i| format!("echo old {i}\n")).collect();
    let new: String = (0..150_000).map(|i| format!("echo new {i}\n")).collect();
    let started = Instant::now();
    let d = script_change(&old, &new);
    let took = started.elapsed();
    assert_eq!((d.added, d.removed), (150_000, 150_000));
    assert_eq!(d.unified.lines().count(), MAX_DIFF_LINES);
    let note = d.note.expect("a note says what was cut");
    assert!(note.contains("too many lines"), "{note}");
    assert!(note.contains("more lines of diff not shown"), "{note}");
    // Generous: the point is that nothing is quadratic (a table of 150 000² cells would take
    // minutes and gigabytes).
    assert!(took.as_secs() < 20, "took {took:?}");
}

#[test]
fn a_large_script_with_scattered_changes_is_aligned_exactly() {
    let old: Vec<String> = (0..1500).map(|i| format!("step {i}")).collect();
    let mut new = old.clone();
    for i in (0..1500).step_by(100) {
        new[i] = format!("step {i} changed");
    }
    let d = script_change(&old.join("\n"), &new.join("\n"));
    assert_eq!((d.added, d.removed), (15, 15));
    assert_eq!(d.note, None);
}

#[test]
fn a_very_long_line_is_cut_in_the_diff() {
    let long = "a".repeat(MAX_LINE_CHARS * 10);
    let d = script_change("echo\n", &format!("echo\n{long}\n"));
    let shown = d
        .unified
        .lines()
        .find(|l| l.starts_with('+'))
        .expect("the added line");
    assert_eq!(shown.chars().count(), 1 + MAX_LINE_CHARS + 1);
    assert!(shown.ends_with('…'));
}
