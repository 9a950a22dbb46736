//! The real corpus (`../shared/upstream`, beside the checkout) for the tests that need it. A
//! plain clone has no `../shared`, so such a test is skipped with one line on stderr naming it;
//! in strict mode (`EGGCAT_CORPUS=require`, which CI's `.ci/run` sets) a missing corpus fails the
//! test instead, so that a run without the corpus can never pass for one that covered it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The whole corpus, `../shared/upstream`, or `None` when the test is skipped.
pub fn corpus() -> Option<PathBuf> {
    present(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream"))
}

/// The corpus's `pelican-eggs` folder (its ten repositories), or `None` when the test is skipped.
pub fn pelican_eggs() -> Option<PathBuf> {
    present(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream/pelican-eggs"))
}

/// Whether the strict mode `var` names is on: `var=require` turns a skip into a failure; unset
/// (or empty) it is off; any other value is a mistake the test refuses rather than guesses at.
pub fn strict(var: &str) -> bool {
    match std::env::var(var) {
        Ok(v) if v == "require" => true,
        Ok(v) if !v.is_empty() => panic!("{var} is `{v}`: set it to `require` or unset it"),
        _ => false,
    }
}

/// Says, on one line, that the running test is skipped and why. Written to stderr directly: the
/// test harness captures `eprintln!` of a passing test, and a skip nobody sees would pass for
/// coverage.
pub fn skip_test(why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = std::io::stderr()
        .lock()
        .write_all(skip_line(&test, why).as_bytes());
}

/// Every egg file under `dir`, as the catalog names them (`egg-` in the name, a JSON or YAML
/// extension in any case), folders whose name starts with `.` left out; in path order, each
/// folder's entries sorted by name.
pub fn egg_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable")
        .flatten()
        .collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if path.is_dir() && !name.starts_with('.') {
            walk(&path, out);
        } else if name.contains("egg-") && is_json_or_yaml(&name) {
            out.push(path);
        }
    }
}

/// The extensions `eggcat_egg::SyntaxKind::from_file_name` knows.
fn is_json_or_yaml(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        ["json", "yaml", "yml"]
            .iter()
            .any(|x| ext.eq_ignore_ascii_case(x))
    })
}

/// `dir` when it is a folder; otherwise a skip, or a failure in strict mode. The mode is read
/// first, so that a wrong `EGGCAT_CORPUS` fails even where the corpus is present.
fn present(dir: PathBuf) -> Option<PathBuf> {
    decide(dir, strict("EGGCAT_CORPUS"))
}

fn decide(dir: PathBuf, strict: bool) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !strict,
        "EGGCAT_CORPUS=require but the real corpus is missing: {} is not a folder",
        dir.display()
    );
    skip_test(CORPUS_MISSING);
    None
}

const CORPUS_MISSING: &str = "needs ../shared/upstream (the real corpus)";

fn skip_line(test: &str, why: &str) -> String {
    format!("skipped: {test}: {why}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_corpus_is_used_in_either_mode() {
        let tmp = tempfile::tempdir().unwrap();
        for strict in [false, true] {
            assert_eq!(
                decide(tmp.path().to_path_buf(), strict),
                Some(tmp.path().to_path_buf())
            );
        }
    }

    #[test]
    fn a_missing_corpus_is_a_skip_with_one_line() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(decide(tmp.path().join("upstream"), false), None);
        assert_eq!(
            skip_line("spans::every_corpus_egg", CORPUS_MISSING),
            "skipped: spans::every_corpus_egg: needs ../shared/upstream (the real corpus)\n"
        );
    }

    #[test]
    #[should_panic(expected = "EGGCAT_CORPUS=require but the real corpus is missing: ")]
    fn a_missing_corpus_fails_in_strict_mode() {
        let tmp = tempfile::tempdir().unwrap();
        decide(tmp.path().join("upstream"), true);
    }

    #[test]
    fn egg_files_are_the_catalogs_in_path_order() {
        let tmp = tempfile::tempdir().unwrap();
        for f in [
            "b/egg-b.yml",
            "a/egg-a.json",
            "a-c/egg-c.YAML",
            "a/README.md",
            "a/egg-notes.txt",
            ".github/egg-request.yml",
        ] {
            let path = tmp.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found: Vec<_> = egg_files(tmp.path())
            .iter()
            .map(|p| p.strip_prefix(tmp.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(found, ["a/egg-a.json", "a-c/egg-c.YAML", "b/egg-b.yml"]);
    }
}
