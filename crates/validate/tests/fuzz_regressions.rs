//! The inputs the fuzz target `validate` (fuzz/fuzz_targets/validate.rs) found failing, kept as
//! regression tests: each file of tests/fuzz/validate/ is one input in the target's own shape
//! (the first byte picks the file name, the rest is the file), named after the bug it pinned,
//! and must give diagnostics whose spans lie inside the file.

use eggcat_validate::check_file;

/// The target's check: every span starts and ends at a position of the file (a character, or
/// just after a line's last one), the end not before the start.
fn spans_inside(name: &str, file: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(file);
    let lines: Vec<usize> = text.split('\n').map(|l| l.chars().count()).collect();
    let inside = |line: u32, column: u32| {
        (line as usize)
            .checked_sub(1)
            .and_then(|i| lines.get(i))
            .is_some_and(|&len| column >= 1 && column as usize <= len + 1)
    };
    for d in check_file(name, file) {
        let (Some(l), Some(c), Some(el), Some(ec)) = (d.line, d.column, d.end_line, d.end_column)
        else {
            continue;
        };
        if !inside(l, c) || !inside(el, ec) || (l, c) > (el, ec) {
            return Err(format!("{d:?}"));
        }
    }
    Ok(())
}

#[test]
fn fuzz_inputs_give_spans_inside_the_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/validate");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/fuzz/validate is committed") {
        let path = entry.expect("a readable entry").path();
        let data = std::fs::read(&path).expect("a readable file");
        let Some((&pick, file)) = data.split_first() else {
            continue;
        };
        let name = ["egg.json", "egg.yaml", "egg"][usize::from(pick % 3)];
        if let Err(d) = spans_inside(name, file) {
            panic!("{}: span outside the file: {d}", path.display());
        }
        seen += 1;
    }
    assert!(
        seen >= 2,
        "the regression inputs are missing from {}",
        dir.display()
    );
}

/// A test egg of tests/data with one line break turned into a lone `\r`.
fn with_lone_cr(case: &str, line_end: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(case)
        .join("egg.yaml");
    let text = std::fs::read_to_string(&path).expect("a committed test egg");
    assert!(
        text.contains(line_end),
        "{line_end:?} is in {}",
        path.display()
    );
    text.replacen(line_end, &line_end.replace('\n', "\r"), 1)
}

/// Found by the fuzz target: YAML reads a lone `\r` as a line break, the rest of eggcat (the
/// excerpt, the line an annotation names) reads it as a character of its line. Every position
/// after one was a line late, and past the file's end near its bottom. Positions count `\n`.
#[test]
fn a_lone_carriage_return_is_not_a_line_break_in_positions() {
    // In a block scalar: the finding on a later key.
    let text = with_lone_cr("E030-unknown-rule", "      cd /mnt/server\n");
    let diags = check_file("egg.yaml", text.as_bytes());
    let d = diags
        .iter()
        .find(|d| d.code == "E030")
        .expect("the unknown rule is found");
    assert_eq!(
        (d.line, d.column, d.end_column),
        (Some(56), Some(19), Some(24))
    );
    let line = text.split('\n').nth(55).expect("line 56");
    assert_eq!(line.chars().skip(18).take(5).collect::<String>(), "strng");
    spans_inside("egg.yaml", text.as_bytes()).expect("spans inside the file");

    // Before a parse error: its position, and the position its message names.
    let text = with_lone_cr("E004-duplicate-yaml-key", "  update_url: null\n");
    let diags = check_file("egg.yaml", text.as_bytes());
    let d = diags
        .iter()
        .find(|d| d.code == "E004")
        .expect("the duplicate key is found");
    assert_eq!((d.line, d.column), (Some(6), Some(1)), "{d:?}");
    assert!(d.message.contains("at line 6, column 1"), "{}", d.message);
}
