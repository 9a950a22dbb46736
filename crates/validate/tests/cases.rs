//! One case per check: `tests/data/<code>-<name>/egg.json` and `egg.yaml`, each with its
//! expected human output (`*.human`) and JSON lines (`*.jsonl`) next to it. Re-bless with
//! `EGGCAT_BLESS=1 cargo test -p eggcat-validate --test cases`.

use std::path::{Path, PathBuf};

use eggcat_validate::{Code, check_file, render_human, render_json};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(data())
        .expect("tests/data exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Compares `actual` with the file at `path`, or writes it when blessing.
fn golden(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if std::env::var_os("EGGCAT_BLESS").is_some() {
        std::fs::write(path, actual).expect("expected file writable");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected != actual {
        failures.push(format!(
            "{} differs (re-bless with EGGCAT_BLESS=1 if intended)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        ));
    }
}

#[test]
fn every_case_matches_its_expected_output() {
    let mut failures = Vec::new();
    for dir in case_dirs() {
        let case = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 name")
            .to_owned();
        let mut codes_seen = Vec::new();
        for input in ["egg.json", "egg.yaml"] {
            let path = dir.join(input);
            let bytes = std::fs::read(&path).expect("case input readable");
            let shown = format!("{case}/{input}");
            let diags = check_file(&shown, &bytes);
            codes_seen.extend(diags.iter().map(|d| d.code.clone()));
            let human = render_human(&shown, &String::from_utf8_lossy(&bytes), &diags, false);
            golden(&dir.join(format!("{input}.human")), &human, &mut failures);
            golden(
                &dir.join(format!("{input}.jsonl")),
                &render_json(&shown, &diags),
                &mut failures,
            );
            // Every diagnostic of a parsed file has a real position.
            for d in &diags {
                if d.code != Code::TooManyDiagnostics.as_str() {
                    assert!(
                        d.line.is_some() && d.column.is_some(),
                        "{shown}: {d:?} has no position"
                    );
                }
            }
        }
        if case.starts_with("clean") {
            assert!(
                codes_seen.is_empty(),
                "{case} should be clean, got {codes_seen:?}"
            );
        } else {
            let code = &case[..4];
            assert!(
                codes_seen.iter().any(|c| c == code),
                "{case} does not produce {code}: {codes_seen:?}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_check_has_a_case() {
    let cases: Vec<String> = case_dirs()
        .iter()
        .filter_map(|d| d.file_name()?.to_str().map(str::to_owned))
        .collect();
    for &code in Code::ALL {
        // E008 (a file over 1000 KB) and E009 (over 200 diagnostics) are tested by
        // `hostile.rs` and `codes.rs`, which generate their inputs; E017 needs several eggs
        // (`check_catalog`, tested in `catalog.rs` and `codes.rs`); E062 and E063 need a
        // registry's answers (`check_registry_answers`, tested in `registry.rs`, `codes.rs`
        // and, against a real registry, the cli's `it::images`); E064 and E065 need a host's
        // answers (`check_download_answers`, tested in `registry.rs` and the cli's
        // `it::downloads`).
        if matches!(
            code,
            Code::OverPterodactylSize
                | Code::TooManyDiagnostics
                | Code::SharedUuid
                | Code::ImageMissing
                | Code::ImageUnchecked
                | Code::DownloadMissing
                | Code::DownloadUnchecked
        ) {
            continue;
        }
        assert!(
            cases.iter().any(|c| c.starts_with(code.as_str())),
            "no test case under tests/data for {code}"
        );
    }
}

/// The catalog parses each egg once and hands the parse to `check_parsed`: for every case file
/// that parses, that gives exactly what `check_text` gives from the bytes alone.
#[test]
fn checking_a_parse_the_caller_made_gives_the_same_diagnostics() {
    use eggcat_egg::{SyntaxKind, parse_with_spans};
    let mut compared = 0;
    for dir in case_dirs() {
        for (name, syntax) in [
            ("egg.json", SyntaxKind::Json),
            ("egg.yaml", SyntaxKind::Yaml),
        ] {
            let Ok(bytes) = std::fs::read(dir.join(name)) else {
                continue;
            };
            let Ok((parsed, spans)) = parse_with_spans(&bytes, syntax) else {
                continue;
            };
            assert_eq!(
                eggcat_validate::check_parsed(&bytes, syntax, &parsed, &spans),
                eggcat_validate::check_text(&bytes, syntax),
                "{}",
                dir.join(name).display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 90, "only {compared} case files parsed");
}
