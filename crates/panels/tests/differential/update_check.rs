//! `eggcat validate`'s update-check warnings (codes `E080`-`E089`) against Pelican's own update
//! check on the upstream file (issue 26, section 3): on SQLite, Pelican's default database,
//! each upstream file imported as it is, its own `meta.update_url` answered by the file's own
//! bytes (upstream has not changed), for every file whose `update_url` has an extension the
//! panel takes. The warning must come exactly on the eggs the check reads "Found update" for.
//!
//! The corpus has only some of the causes (E082, E084, E085 and the catch-all E089), so
//! validate's own cases of each code (`crates/validate/tests/data/E08x-*`, each file warned with
//! that code alone) go through the same check ([`cases_agree`]): every one must read "Found
//! update".

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::{Published, Report, outcome};

/// Compares, counts into `report`, and returns the lines that name each egg the check finds
/// out of date, with where the panel's export and the file differ and validate's codes.
pub(crate) fn warnings_agree(
    report: &mut Report,
    published: &[Published],
    results: &BTreeMap<&str, &Value>,
) -> Vec<String> {
    let mut lines = Vec::new();
    for p in published {
        let rel = p.egg.rel.as_str();
        let check = &results[rel]["pelican"]["self_check"];
        if check.is_null() {
            continue;
        }
        let verdict = match outcome(check) {
            Ok(Value::String(line)) => line.clone(),
            other => {
                report.mismatches.push(format!(
                    "{rel}: the upstream file's own update check: {other:?}"
                ));
                continue;
            }
        };
        report.count("self checked");
        let found = !verdict.ends_with(": Up-to-date");
        let codes: Vec<&str> = p
            .diagnostics
            .iter()
            .filter(|d| d.code.starts_with("E08"))
            .map(|d| d.code.as_str())
            .collect();
        if found {
            report.count("self found update");
            lines.push(format!("    {rel}: {verdict} | validate: {codes:?}"));
        }
        if found != codes.is_empty() {
            report.count("self agrees");
        } else {
            report.mismatches.push(format!(
                "{rel}: the upstream file's own update check says `{verdict}`, eggcat validate's update-check warnings: {codes:?}"
            ));
        }
    }
    lines
}

/// One file of validate's update-check cases.
pub(crate) struct Case {
    /// `validate-data/<case>/<file>`, as the report names it.
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) format: &'static str,
    /// The code the case is about (its folder's first word).
    pub(crate) code: String,
}

/// validate's cases of the update-check warnings whose file sets an `update_url` the panel
/// takes (E086 is about a URL it does not take), JSON and YAML.
pub(crate) fn cases() -> Vec<Case> {
    let data = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../validate/tests/data"
    ));
    let mut dirs: Vec<_> = std::fs::read_dir(&data)
        .expect("validate's test data")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|d| d.starts_with("E08") && !d.starts_with("E086"))
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for dir in dirs {
        for (file, format) in [("egg.json", "json"), ("egg.yaml", "yaml")] {
            let path = data.join(&dir).join(file);
            if path.is_file() {
                out.push(Case {
                    name: format!("validate-data/{dir}/{file}"),
                    code: dir.split('-').next().unwrap_or("").to_owned(),
                    path,
                    format,
                });
            }
        }
    }
    assert!(
        out.len() >= 12,
        "validate's update-check cases: {} files",
        out.len()
    );
    out
}

/// Each case's file warned with its code by `eggcat validate`, and read "Found update" by
/// Pelican's check (`checks`, what `differential.php` returned for them); lines for the report.
pub(crate) fn cases_agree(
    report: &mut crate::Report,
    cases: &[Case],
    checks: &[Value],
) -> Vec<String> {
    let by_name: BTreeMap<&str, &Value> = checks
        .iter()
        .filter_map(|c| Some((c["name"].as_str()?, &c["check"])))
        .collect();
    let mut lines = Vec::new();
    for case in cases {
        let bytes = std::fs::read(&case.path).unwrap();
        let codes: Vec<String> = eggcat_validate::check_file(&case.name, &bytes)
            .into_iter()
            .filter(|d| d.code.starts_with("E08"))
            .map(|d| d.code)
            .collect();
        let verdict = match by_name.get(case.name.as_str()).map(|c| outcome(c)) {
            Some(Ok(Value::String(line))) => line.clone(),
            other => {
                report.mismatches.push(format!(
                    "{}: Pelican's update check on validate's case: {other:?}",
                    case.name
                ));
                continue;
            }
        };
        report.count("validate cases checked");
        lines.push(format!(
            "    {}: {verdict} | validate: {codes:?}",
            case.name
        ));
        if !verdict.ends_with(": Up-to-date") && codes == [case.code.clone()] {
            report.count("validate cases agree");
        } else {
            report.mismatches.push(format!(
                "{}: Pelican's update check says `{verdict}`, eggcat validate's update-check warnings: {codes:?} (expected {} alone)",
                case.name, case.code
            ));
        }
    }
    lines
}
