//! The install-script download extraction measured on the real corpus (issue 38): against the
//! hand-labelled sample (`tests/data/downloads/labels.txt`: 55 scripts, the URLs each really
//! fetches, written by reading the script), precision and recall each at least 95 %; and the
//! corpus's counts of each kind, printed for bench/README.md.

use std::collections::BTreeSet;
use std::path::Path;

use eggcat_egg::{DownloadKind, SyntaxKind, downloads, parse};
use serde_json::Value;

fn egg(path: &Path) -> Option<Value> {
    let bytes = std::fs::read(path).expect("readable");
    let syntax = SyntaxKind::from_file_name(&path.to_string_lossy())?;
    parse(&bytes, syntax).ok().map(|p| p.value)
}

fn kind(k: DownloadKind) -> &'static str {
    match k {
        DownloadKind::Fixed => "fixed",
        DownloadKind::Variable => "variable",
    }
}

/// Found, wrong and missed URLs of a labelled sample, with what went wrong.
struct Score {
    scripts: usize,
    found: usize,
    wrong: usize,
    missed: usize,
    notes: Vec<String>,
}

impl Score {
    fn precision(&self) -> f64 {
        self.found as f64 / (self.found + self.wrong) as f64
    }
    fn recall(&self) -> f64 {
        self.found as f64 / (self.found + self.missed) as f64
    }
    fn line(&self, name: &str) -> String {
        format!(
            "{name}: {} scripts, {} labelled URLs, {} found, {} wrong, {} missed: precision {:.1} %, recall {:.1} %",
            self.scripts,
            self.found + self.missed,
            self.found,
            self.wrong,
            self.missed,
            self.precision() * 100.0,
            self.recall() * 100.0
        )
    }
}

fn score(corpus: &Path, labels: &str) -> Score {
    let mut expected: Vec<(String, BTreeSet<String>)> = Vec::new();
    for line in labels.lines().filter(|l| !l.starts_with('#')) {
        if let Some(path) = line.strip_prefix("== ") {
            expected.push((path.to_owned(), BTreeSet::new()));
        } else if !line.trim().is_empty() {
            expected
                .last_mut()
                .expect("a path first")
                .1
                .insert(line.to_owned());
        }
    }
    let mut s = Score {
        scripts: expected.len(),
        found: 0,
        wrong: 0,
        missed: 0,
        notes: Vec::new(),
    };
    for (path, want) in &expected {
        let doc = egg(&corpus.join(path)).unwrap_or_else(|| panic!("{path} parses"));
        let got: BTreeSet<String> = downloads(&doc)
            .into_iter()
            .map(|d| format!("{} {}", kind(d.kind), d.url))
            .collect();
        s.found += got.intersection(want).count();
        for extra in got.difference(want) {
            s.wrong += 1;
            s.notes.push(format!("{path}: not fetched: {extra}"));
        }
        for missed in want.difference(&got) {
            s.missed += 1;
            s.notes.push(format!("{path}: missed: {missed}"));
        }
    }
    s
}

#[test]
fn the_labelled_samples_are_found_with_precision_and_recall_of_95_percent() {
    let Some(corpus) = eggcat_testkit::corpus() else {
        return;
    };
    let tuned = score(&corpus, include_str!("data/downloads/labels.txt"));
    let held_out = score(&corpus, include_str!("data/downloads/held-out.txt"));
    let all = Score {
        scripts: tuned.scripts + held_out.scripts,
        found: tuned.found + held_out.found,
        wrong: tuned.wrong + held_out.wrong,
        missed: tuned.missed + held_out.missed,
        notes: tuned.notes.iter().chain(&held_out.notes).cloned().collect(),
    };
    eprintln!("downloads {}", tuned.line("sample"));
    eprintln!("downloads {}", held_out.line("held-out sample"));
    eprintln!("downloads {}", all.line("both"));
    for n in &all.notes {
        eprintln!("  {n}");
    }
    assert!(tuned.scripts >= 50, "{} labelled scripts", tuned.scripts);
    for (name, s) in [("sample", &tuned), ("held-out", &held_out), ("both", &all)] {
        assert!(
            s.precision() >= 0.95 && s.recall() >= 0.95,
            "{}\n{:#?}",
            s.line(name),
            s.notes
        );
    }
}

#[test]
fn every_corpus_script_is_read_and_the_kinds_are_counted() {
    let Some(corpus) = eggcat_testkit::corpus() else {
        return;
    };
    let (mut eggs, mut scripts, mut with_fixed) = (0, 0, 0);
    let (mut fixed, mut variable, mut by_default) = (0, 0, 0);
    let mut distinct_fixed = BTreeSet::new();
    let mut distinct_checkable = BTreeSet::new();
    let mut by_variable = std::collections::BTreeMap::<String, usize>::new();
    for path in eggcat_testkit::egg_files(&corpus) {
        let Some(doc) = egg(&path) else { continue };
        eggs += 1;
        if doc
            .pointer("/scripts/installation/script")
            .and_then(Value::as_str)
            .is_none()
        {
            continue;
        }
        scripts += 1;
        let found = downloads(&doc);
        if found.iter().any(|d| d.kind == DownloadKind::Fixed) {
            with_fixed += 1;
        }
        for d in &found {
            match d.kind {
                DownloadKind::Fixed => {
                    fixed += 1;
                    distinct_fixed.insert(d.url.clone());
                }
                DownloadKind::Variable => {
                    variable += 1;
                    for v in &d.variables {
                        *by_variable.entry(v.clone()).or_default() += 1;
                    }
                    if d.with_defaults.is_some() {
                        by_default += 1;
                    }
                }
            }
            if let Some(u) = d.checkable() {
                distinct_checkable.insert(u.to_owned());
            }
        }
    }
    let mut top: Vec<_> = by_variable.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(8);
    eprintln!(
        "downloads corpus: {eggs} eggs, {scripts} install scripts, {with_fixed} fetch a fixed URL; \
         {fixed} fixed ({} distinct), {variable} built from variables ({by_default} fixed by the egg's defaults); \
         {} distinct URLs to check; most used variables: {top:?}",
        distinct_fixed.len(),
        distinct_checkable.len()
    );
    assert!(scripts >= 600, "{scripts} scripts");
    assert!(with_fixed * 2 > scripts, "most scripts fetch a fixed URL");
}

/// Prints every download of the corpus (`EGGCAT_DOWNLOADS_DUMP=1`), for reading by eye.
#[test]
fn dump_when_asked() {
    if std::env::var_os("EGGCAT_DOWNLOADS_DUMP").is_none() {
        return;
    }
    let Some(corpus) = eggcat_testkit::corpus() else {
        return;
    };
    for path in eggcat_testkit::egg_files(&corpus) {
        let Some(doc) = egg(&path) else { continue };
        for d in downloads(&doc) {
            eprintln!(
                "{}\t{}\t{}\t{:?}",
                path.display(),
                kind(d.kind),
                d.url,
                d.with_defaults
            );
        }
    }
}
