//! The crate's layers, read from its sources: the vocabulary (`src/vocab/`) and the grammars
//! the checks share import no check; each check (`src/checks/<name>.rs`) imports the
//! vocabulary and the grammars, never another check; only the dispatcher (`src/checks/mod.rs`)
//! knows every check. A `use` that breaks this fails here with the file and the line.

use std::path::{Path, PathBuf};

/// The modules below the checks: what a check may import.
const BELOW_THE_CHECKS: &[&str] = &[
    "vocab",
    "span",
    "rules",
    "php_regex",
    "default_value",
    "placeholder",
    "reference",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// Every `crate::<module>` and `super::<name>` a file names, with its line number; `super::*`
/// (a test module importing its own file) is not a reference to another module.
fn references(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).expect("source readable");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for prefix in ["crate::", "super::"] {
            for (i, _) in code.match_indices(prefix) {
                let rest = &code[i + prefix.len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push((n + 1, format!("{prefix}{name}")));
                }
            }
        }
    }
    out
}

#[test]
fn checks_import_the_vocabulary_and_the_grammars_not_each_other() {
    let mut checks = 0;
    for file in rust_files(&src().join("checks")) {
        if file.ends_with("mod.rs") {
            continue;
        }
        checks += 1;
        for (line, name) in references(&file) {
            let allowed = name
                .strip_prefix("crate::")
                .is_some_and(|m| BELOW_THE_CHECKS.contains(&m));
            assert!(
                allowed,
                "{}:{line}: a check uses `{name}`; checks share only the vocabulary and the grammars",
                file.display()
            );
        }
    }
    assert!(checks >= 7, "the checks were not found under src/checks");
}

#[test]
fn the_vocabulary_and_the_grammars_import_no_check() {
    let mut files = rust_files(&src().join("vocab"));
    for module in BELOW_THE_CHECKS.iter().filter(|m| **m != "vocab") {
        files.push(src().join(format!("{module}.rs")));
    }
    for file in files {
        for (line, name) in references(&file) {
            let below = name
                .strip_prefix("crate::")
                .is_none_or(|m| BELOW_THE_CHECKS.contains(&m));
            assert!(
                below,
                "{}:{line}: `{name}` is above the checks' shared layer",
                file.display()
            );
        }
    }
}
