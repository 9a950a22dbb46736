//! `eggcat_validate::check_file` on arbitrary bytes: no panic, and every diagnostic's span lies
//! inside the file: lines from 1 to the file's last line, columns from 1 to one past the line's
//! last character (the position just after it, where "unexpected end" points), the end not
//! before the start.
//!
//! The first byte picks the file name (`egg.json`, `egg.yaml`, or a name whose syntax is guessed
//! from the content), the rest is the file.
#![no_main]

use eggcat_validate::check_file;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let name = match pick % 3 {
        0 => "egg.json",
        1 => "egg.yaml",
        _ => "egg",
    };
    let diags = check_file(name, file);
    // Columns count characters; a file that is not UTF-8 is measured as the lossy decoding
    // shows it (each bad sequence one character).
    let text = String::from_utf8_lossy(file);
    let lines: Vec<usize> = text.split('\n').map(|l| l.chars().count()).collect();
    let inside = |line: u32, column: u32| -> bool {
        let Some(len) = (line as usize).checked_sub(1).and_then(|i| lines.get(i)) else {
            return false;
        };
        column >= 1 && column as usize <= len + 1
    };
    for d in &diags {
        let (Some(line), Some(column), Some(end_line), Some(end_column)) =
            (d.line, d.column, d.end_line, d.end_column)
        else {
            assert!(
                d.line.is_none() && d.column.is_none() && d.end_line.is_none(),
                "a diagnostic with part of a span: {d:?}"
            );
            continue;
        };
        assert!(inside(line, column), "start outside the file: {d:?}");
        assert!(inside(end_line, end_column), "end outside the file: {d:?}");
        assert!(
            (line, column) <= (end_line, end_column),
            "end before start: {d:?}"
        );
    }
});
