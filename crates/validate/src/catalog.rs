//! The checks that need every egg at once, run by the catalog build: one uuid shared by
//! several eggs. Pelican's importer finds the egg to overwrite by its uuid, so importing the
//! second egg replaces the first one on a panel that has both.

use std::collections::BTreeMap;

use eggcat_egg::SyntaxKind;

use crate::span::locate;
use crate::vocab::{Code, Diagnostic};

/// The code of the one catalog-wide check: several eggs share one uuid. Findings of this code
/// are the catalog's, not the file's: they change when another egg changes.
pub const SHARED_UUID: &str = Code::SharedUuid.as_str();

/// One egg of the catalog, as the build knows it.
#[derive(Debug, Clone, Copy)]
pub struct CatalogEgg<'a> {
    /// Where the egg comes from, as shown to people (`source/path/egg-x.json`).
    pub path: &'a str,
    /// Its `uuid`, when it has one.
    pub uuid: Option<&'a str>,
    /// Its source text, to place the diagnostic on the `uuid` value; `None` leaves it unplaced.
    pub text: Option<&'a str>,
}

/// The cross-catalog diagnostics, one list per egg of `eggs` (same order; most are empty).
/// Two eggs with one uuid each get an `E017` naming the others; uuids are compared ignoring
/// case, as MySQL's default collation does.
pub fn check_catalog(eggs: &[CatalogEgg<'_>]) -> Vec<Vec<Diagnostic>> {
    let mut by_uuid: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, egg) in eggs.iter().enumerate() {
        if let Some(u) = egg.uuid.filter(|u| !u.trim().is_empty()) {
            by_uuid.entry(u.trim().to_lowercase()).or_default().push(i);
        }
    }
    let mut out = vec![Vec::new(); eggs.len()];
    for (uuid, holders) in by_uuid.into_iter().filter(|(_, h)| h.len() > 1) {
        for &i in &holders {
            let mut others: Vec<&str> = holders
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| eggs[j].path)
                .collect();
            others.sort_unstable();
            let span = eggs[i].text.and_then(|text| {
                let syntax = SyntaxKind::from_file_name(eggs[i].path).unwrap_or(SyntaxKind::Json);
                locate(text, syntax, &["/uuid"])
                    .get("/uuid")
                    .map(|l| l.value)
            });
            out[i].push(Diagnostic {
                code: SHARED_UUID.to_owned(),
                severity: Code::SharedUuid.severity(),
                message: format!("uuid `{uuid}` is also the uuid of {}", others.join(", ")),
                pointer: "/uuid".to_owned(),
                line: span.map(|s| s.line),
                column: span.map(|s| s.column),
                end_line: span.map(|s| s.end_line),
                end_column: span.map(|s| s.end_column),
                help: Some("Pelican updates the egg with the same uuid: importing one replaces the other; give each egg its own".to_owned()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_uuids_are_reported_on_every_holder() {
        let text = "{\n  \"uuid\": \"A\"\n}";
        let eggs = [
            CatalogEgg {
                path: "b/egg-1.json",
                uuid: Some("a"),
                text: Some(text),
            },
            CatalogEgg {
                path: "a/egg-2.json",
                uuid: Some("A"),
                text: None,
            },
            CatalogEgg {
                path: "c/egg-3.json",
                uuid: Some("b"),
                text: None,
            },
            CatalogEgg {
                path: "d/egg-4.json",
                uuid: None,
                text: None,
            },
        ];
        let out = check_catalog(&eggs);
        assert_eq!(
            out[0][0].message,
            "uuid `a` is also the uuid of a/egg-2.json"
        );
        assert_eq!((out[0][0].line, out[0][0].column), (Some(2), Some(11)));
        assert_eq!(
            out[1][0].message,
            "uuid `a` is also the uuid of b/egg-1.json"
        );
        assert!(out[2].is_empty() && out[3].is_empty());
    }
}
