//! Install-script downloads in the catalog (issue 38): what each egg's script fetches
//! (`eggcat_egg::downloads`), what their hosts said of each URL that can be asked (an input of
//! the build, as the images' findings: `eggcat-images` asks, the pipeline hands the findings in
//! through [`crate::BuildContext::downloads`]), and what the documents show of it: each egg's
//! `meta.downloads` and the report's `downloads`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::images::ImageFinding;
use crate::rfc3339;
use crate::wire::{DownloadInfo, DownloadKind, DownloadsReport, ImageStatus, MissingDownload};

/// What the hosts said, by URL asked.
pub type DownloadFindings = BTreeMap<String, ImageFinding>;

/// The URLs of the egg's install downloads that can be asked (fixed ones, and variable ones
/// the egg's defaults make fixed), `http(s)` only, sorted, each once.
pub fn urls(egg: &Value) -> Vec<String> {
    let set: BTreeSet<String> = eggcat_egg::downloads(egg)
        .iter()
        .filter_map(|d| d.checkable())
        .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        .map(str::to_owned)
        .collect();
    set.into_iter().collect()
}

/// `meta.downloads` of an egg.
pub(crate) fn meta_downloads(egg: &Value, findings: &DownloadFindings) -> Vec<DownloadInfo> {
    eggcat_egg::downloads(egg)
        .into_iter()
        .map(|d| {
            let checked = d
                .checkable()
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
                .map(str::to_owned);
            let mut info = DownloadInfo {
                kind: match d.kind {
                    eggcat_egg::DownloadKind::Fixed => DownloadKind::Fixed,
                    eggcat_egg::DownloadKind::Variable => DownloadKind::Variable,
                },
                url: d.url,
                variables: d.variables,
                checked: checked.clone(),
                line: d.line,
                status: ImageStatus::Unknown,
                since: None,
                detail: None,
            };
            match checked.as_ref().and_then(|u| findings.get(u)) {
                Some(f) => {
                    info.status = f.status;
                    info.since = f.since_ms.map(rfc3339);
                    info.detail.clone_from(&f.detail);
                }
                None if checked.is_some() => info.detail = Some("not checked yet".to_owned()),
                None => {
                    info.detail = Some(format!(
                        "not checkable: built from {}",
                        info.variables
                            .iter()
                            .map(|v| format!("`{v}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            if checked.is_some() && info.kind == DownloadKind::Variable {
                let with = "asked with the egg's default values";
                info.detail = Some(match info.detail.take() {
                    Some(d) => format!("{with}; {d}"),
                    None => with.to_owned(),
                });
            }
            info
        })
        .collect()
}

/// The report's `downloads`, from every egg's `meta.downloads` by slug.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    urls: BTreeMap<String, Seen>,
    not_checkable: BTreeSet<String>,
}

#[derive(Debug)]
struct Seen {
    status: ImageStatus,
    since: Option<String>,
    detail: Option<String>,
    eggs: BTreeSet<String>,
}

impl Tally {
    /// Counts the downloads of the egg `slug`.
    pub(crate) fn add(&mut self, slug: &str, downloads: &[DownloadInfo]) {
        for d in downloads {
            let Some(url) = &d.checked else {
                self.not_checkable.insert(d.url.clone());
                continue;
            };
            let seen = self.urls.entry(url.clone()).or_insert_with(|| Seen {
                status: d.status,
                since: d.since.clone(),
                detail: d.detail.clone(),
                eggs: BTreeSet::new(),
            });
            seen.eggs.insert(slug.to_owned());
        }
    }

    /// The report's `downloads`.
    pub(crate) fn report(self) -> DownloadsReport {
        let mut report = DownloadsReport {
            not_checkable: self.not_checkable.len(),
            ..DownloadsReport::default()
        };
        for (url, seen) in self.urls {
            match seen.status {
                ImageStatus::Present => report.present += 1,
                ImageStatus::Unknown => report.unknown += 1,
                ImageStatus::Missing => {
                    report.missing += 1;
                    report.missing_downloads.push(MissingDownload {
                        url,
                        since: seen.since,
                        detail: seen.detail,
                        eggs: seen.eggs.into_iter().collect(),
                    });
                }
            }
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_download_gets_its_finding_and_defaults_are_said() {
        let egg = json!({
            "variables": [{"env_variable": "REPO", "default_value": "o/r"}],
            "scripts": {"installation": {"script": "curl -o a https://h.example/a.zip\ncurl -o r \"https://api.github.com/repos/${REPO}/releases/latest\"\nV=$(date)\ncurl -o b https://h.example/$V.zip\n"}},
        });
        let gone = "https://h.example/a.zip".to_owned();
        let findings: DownloadFindings = [(
            gone.clone(),
            ImageFinding {
                status: ImageStatus::Missing,
                digest: None,
                platforms: Vec::new(),
                since_ms: Some(1_767_225_600_000),
                detail: Some("the host answered 404".into()),
            },
        )]
        .into_iter()
        .collect();
        let infos = meta_downloads(&egg, &findings);
        assert_eq!(infos.len(), 3);
        assert_eq!(infos[0].status, ImageStatus::Missing);
        assert_eq!(infos[0].since.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        assert_eq!(
            infos[1].checked.as_deref(),
            Some("https://api.github.com/repos/o/r/releases/latest")
        );
        assert_eq!(
            infos[1].detail.as_deref(),
            Some("asked with the egg's default values; not checked yet")
        );
        assert_eq!(infos[2].checked, None);
        assert_eq!(
            infos[2].detail.as_deref(),
            Some("not checkable: built from `V`")
        );
        assert_eq!(urls(&egg).len(), 2);
        let mut tally = Tally::default();
        tally.add("b", &infos);
        tally.add("a", &infos);
        let report = tally.report();
        assert_eq!(
            (
                report.present,
                report.missing,
                report.unknown,
                report.not_checkable
            ),
            (0, 1, 1, 1)
        );
        assert_eq!(report.missing_downloads[0].eggs, ["a", "b"]);
    }
}
