//! `eggcat validate`'s update-check warnings (codes `E080`-`E089`) against Pelican's own update
//! check on the upstream file (issue 26, section 3): on SQLite, Pelican's default database,
//! each upstream file imported as it is, its own `meta.update_url` answered by the file's own
//! bytes (upstream has not changed), for every file whose `update_url` has an extension the
//! panel takes. The warning must come exactly on the eggs the check reads "Found update" for.

use std::collections::BTreeMap;

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
