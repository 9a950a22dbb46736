//! Golden files: the bundled demo catalog, built with a fixed clock, compared byte for byte with
//! `tests/data/demo/`. Re-bless with `EGGCAT_BLESS=1 cargo test -p eggcat --test it golden`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::*;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Where the expected documents live.
fn expected_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/demo")
}

#[test]
fn demo_catalog_matches_the_golden_files() {
    let root = repo_root();
    let source = demo_source();
    let tmp = tempfile::tempdir().unwrap();
    let out = try_build_with(
        &tmp.path().join("data"),
        vec![source],
        &Clock::new(1_767_225_600_000),
        demo_limits(),
    )
    .expect("the demo builds");
    // The checkout's location is the one thing that differs between machines.
    let here = format!("file://{}", root.join("demo/upstream.bundle").display());
    let actual: BTreeMap<String, String> = out
        .snapshot
        .files
        .iter()
        .map(|(path, bytes)| {
            (
                path.clone(),
                String::from_utf8(bytes.clone())
                    .unwrap()
                    .replace(&here, "file://<demo>"),
            )
        })
        .collect();

    let dir = expected_dir();
    if std::env::var_os("EGGCAT_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in &actual {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
    }
    let mut expected = BTreeMap::new();
    collect(&dir, &dir, &mut expected);
    assert_eq!(
        actual.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "the set of documents changed (re-bless with EGGCAT_BLESS=1 if intended)"
    );
    for (path, text) in &actual {
        if text != &expected[path] {
            panic!(
                "{path} differs from its golden file (re-bless with EGGCAT_BLESS=1 if intended)\n{}",
                first_difference(&expected[path], text)
            );
        }
    }
    assert_eq!(out.report.eggs, 8);
    assert_eq!(out.report.skipped.len(), 1, "the issue template is skipped");
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let path = e.unwrap().path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// Where two texts part, with some context, for a readable failure.
fn first_difference(expected: &str, actual: &str) -> String {
    let at = expected
        .bytes()
        .zip(actual.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    let from = at.saturating_sub(80);
    let window = |s: &str| s.get(from..(at + 80).min(s.len())).unwrap_or("").to_owned();
    format!(
        "at byte {at}:\nexpected: …{}…\n  actual: …{}…",
        window(expected),
        window(actual)
    )
}
