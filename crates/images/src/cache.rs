//! What the registries said, kept in `data_dir/images.json` between builds: each reference's
//! last answer with when it was given first (`since`) and last (`checkedAt`), the platforms of
//! each manifest digest already read (so an unchanged digest is never fetched again), and the
//! registries that asked to be left alone until a time (`Retry-After`).
//!
//! The file is a cache: one that is missing or does not parse is an empty cache (everything is
//! asked again), and one that cannot be written is logged and costs only the next build's
//! requests. It is written whole beside its place and renamed over it, so a build killed while
//! writing it leaves the previous one.

use std::collections::BTreeMap;
use std::path::Path;

use eggcat_wire::ImageFinding;
use eggcat_wire::ImageStatus;
use serde::{Deserialize, Serialize};

use crate::ImagesError;
use crate::manifest;

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Cache {
    /// Each normalized reference's last answer.
    #[serde(default)]
    pub(crate) references: BTreeMap<String, Entry>,
    /// The platforms of each manifest digest already read.
    #[serde(default)]
    pub(crate) digests: BTreeMap<String, Vec<String>>,
    /// Registries and download hosts (host and port) not to ask before a time (Unix ms).
    #[serde(default)]
    pub(crate) wait_until: BTreeMap<String, u64>,
    /// Each install-script download URL's last answer (issue 38).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) downloads: BTreeMap<String, Entry>,
}

/// One reference's last answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Entry {
    pub(crate) status: ImageStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) digest: Option<String>,
    #[serde(default)]
    pub(crate) platforms: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) detail: Option<String>,
    /// When this answer was first given (Unix ms).
    pub(crate) since: u64,
    /// When the registry was last asked (Unix ms).
    pub(crate) checked_at: u64,
}

impl Entry {
    /// Whether the answer still holds at `now_ms` without asking again: a definite answer
    /// (present with its platforms known, or missing) younger than `ttl_ms`. An unknown answer,
    /// or a present one whose platforms could not be read, is asked again at the next build.
    pub(crate) fn fresh(&self, now_ms: u64, ttl_ms: u64) -> bool {
        let definite = match self.status {
            ImageStatus::Present => !self.platforms.is_empty(),
            ImageStatus::Missing => true,
            ImageStatus::Unknown => false,
        };
        definite && now_ms.saturating_sub(self.checked_at) < ttl_ms
    }

    /// Whether a download's answer still holds at `now_ms`: present or missing, younger than
    /// `ttl_ms`.
    pub(crate) fn fresh_download(&self, now_ms: u64, ttl_ms: u64) -> bool {
        self.status != ImageStatus::Unknown && now_ms.saturating_sub(self.checked_at) < ttl_ms
    }

    /// The finding the build is given. The file is read back as it is found, so what the
    /// published contract does not allow (a digest or platform an older eggcat kept, or an
    /// edited file) is dropped here as the registry's answers are when read.
    pub(crate) fn finding(&self) -> ImageFinding {
        ImageFinding {
            status: self.status,
            digest: self.digest.clone().filter(|d| manifest::is_sha256(d)),
            platforms: self
                .platforms
                .iter()
                .filter(|p| manifest::is_platform(p))
                .cloned()
                .collect(),
            since_ms: Some(self.since),
            detail: self.detail.clone(),
        }
    }

    /// Whether `other` gives the same answer (the `detail` of an unknown one aside: a timeout
    /// then a `503` are the same "could not tell").
    pub(crate) fn same_answer(&self, other: &Entry) -> bool {
        self.status == other.status
            && self.digest == other.digest
            && self.platforms == other.platforms
            && (self.status == ImageStatus::Unknown || self.detail == other.detail)
    }
}

impl Cache {
    /// Reads `file`; a missing or unreadable file is an empty cache.
    pub(crate) fn load(file: &Path) -> Cache {
        match std::fs::read(file) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(file = %file.display(), error = %e, "image cache unreadable: asking the registries again");
                Cache::default()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Cache::default(),
            Err(e) => {
                tracing::warn!(file = %file.display(), error = %e, "image cache unreadable: asking the registries again");
                Cache::default()
            }
        }
    }

    /// Writes the cache to `file`, through a temporary file renamed over it.
    pub(crate) fn save(&self, file: &Path) -> Result<(), ImagesError> {
        let bytes = serde_json::to_vec(self).expect("the cache serializes");
        let tmp = file.with_extension(format!("json.tmp-{}", std::process::id()));
        let failed = |path: &Path| {
            let path = path.display().to_string();
            move |source| ImagesError::Cache { path, source }
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(failed(dir))?;
        }
        std::fs::write(&tmp, bytes).map_err(failed(&tmp))?;
        std::fs::rename(&tmp, file).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            failed(file)(e)
        })
    }

    /// Keeps what `references` (the catalog's) and their digests need, and the waits not over.
    pub(crate) fn retain(&mut self, references: &[String], now_ms: u64) {
        self.references
            .retain(|r, _| references.binary_search(r).is_ok());
        let used: std::collections::BTreeSet<&String> = self
            .references
            .values()
            .filter_map(|e| e.digest.as_ref())
            .collect();
        self.digests.retain(|d, _| used.contains(d));
        self.wait_until.retain(|_, until| *until > now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: ImageStatus, checked_at: u64) -> Entry {
        Entry {
            status,
            digest: Some("sha256:a".into()),
            platforms: vec!["linux/amd64".into()],
            detail: None,
            since: 1,
            checked_at,
        }
    }

    #[test]
    fn definite_answers_hold_for_the_ttl_and_unknown_ones_not_at_all() {
        assert!(entry(ImageStatus::Present, 1000).fresh(1999, 1000));
        assert!(!entry(ImageStatus::Present, 1000).fresh(2000, 1000));
        assert!(entry(ImageStatus::Missing, 1000).fresh(1500, 1000));
        assert!(!entry(ImageStatus::Unknown, 1000).fresh(1000, 1000));
        let mut no_platforms = entry(ImageStatus::Present, 1000);
        no_platforms.platforms.clear();
        assert!(!no_platforms.fresh(1000, 1000));
    }

    #[test]
    fn a_digest_or_platform_outside_the_published_patterns_never_leaves_the_file() {
        let sha = format!("sha256:{}", "0a".repeat(32));
        let mut odd = entry(ImageStatus::Present, 1000);
        odd.digest = Some(format!("sha256:{}", "0A".repeat(32)));
        odd.platforms = vec![
            "linux/amd64".into(),
            "linux/arm64/v8".into(),
            "Linux/amd64".into(),
            "linux/arm64/v8/x".into(),
            "linux".into(),
            "linux/<script>".into(),
        ];
        let finding = odd.finding();
        assert_eq!(finding.digest, None);
        assert_eq!(finding.platforms, ["linux/amd64", "linux/arm64/v8"]);
        odd.digest = Some(sha.clone());
        assert_eq!(odd.finding().digest, Some(sha));
    }

    #[test]
    fn the_file_round_trips_and_keeps_only_what_the_catalog_names() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("images.json");
        assert_eq!(Cache::load(&file), Cache::default(), "no file: empty");
        let mut cache = Cache::default();
        cache
            .references
            .insert("a".into(), entry(ImageStatus::Present, 5));
        cache
            .references
            .insert("b".into(), entry(ImageStatus::Missing, 5));
        cache
            .digests
            .insert("sha256:a".into(), vec!["linux/amd64".into()]);
        cache.digests.insert("sha256:old".into(), vec![]);
        cache.wait_until.insert("r1".into(), 10);
        cache.wait_until.insert("r2".into(), 100);
        cache.retain(&["a".to_owned()], 50);
        assert_eq!(cache.references.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(cache.digests.keys().collect::<Vec<_>>(), ["sha256:a"]);
        assert_eq!(cache.wait_until.keys().collect::<Vec<_>>(), ["r2"]);
        cache.save(&file).unwrap();
        assert_eq!(Cache::load(&file), cache);
        std::fs::write(&file, b"{oops").unwrap();
        assert_eq!(Cache::load(&file), Cache::default(), "damaged: empty");
    }
}
