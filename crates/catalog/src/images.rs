//! Container images in the catalog: what the registries said of each image reference (an input
//! of the build: `eggcat-images` asks, the pipeline hands its findings in through
//! [`crate::BuildContext::images`]) and what the documents show of it: each egg's
//! `meta.images` and `meta.runsOn`, and the report's `images`.
//!
//! The build stays a function of its inputs: the same findings give the same documents, and a
//! finding that changes (a tag deleted upstream of the registry, with no commit to the egg's
//! repository) changes the documents and pages of the eggs that name it, through the same reuse
//! rules as any other input (an egg page is reused only while its egg document is unchanged).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::rfc3339;
use crate::wire::{ImageInfo, ImageRole, ImageStatus, ImagesReport, MissingImage};
use eggcat_egg::ImageRole as Role;
pub use eggcat_wire::{ImageFinding, ImageFindings, ImageReference};

/// The normalized references of every valid image the egg names, sorted, each once.
pub fn references(egg: &Value) -> Vec<String> {
    let set: BTreeSet<String> = eggcat_egg::images(egg)
        .iter()
        .filter_map(|u| ImageReference::parse(&u.image).ok())
        .map(|r| r.to_string())
        .collect();
    set.into_iter().collect()
}

/// `meta.images` and `meta.runsOn` of an egg.
pub(crate) fn meta_images(egg: &Value, findings: &ImageFindings) -> (Vec<ImageInfo>, Vec<String>) {
    let images: Vec<ImageInfo> = eggcat_egg::images(egg)
        .into_iter()
        .map(|used| info(used, findings))
        .collect();
    let runs_on = runs_on(&images);
    (images, runs_on)
}

fn info(used: eggcat_egg::ImageUse, findings: &ImageFindings) -> ImageInfo {
    let (role, label) = match used.role {
        Role::Runtime(label) => (ImageRole::Runtime, Some(label)),
        Role::Install => (ImageRole::Install, None),
    };
    let mut info = ImageInfo {
        image: used.image,
        role,
        label,
        reference: None,
        status: ImageStatus::Unknown,
        digest: None,
        platforms: Vec::new(),
        since: None,
        detail: None,
    };
    match ImageReference::parse(&info.image) {
        Err(why) => info.detail = Some(format!("not a valid image reference: {why}")),
        Ok(reference) => {
            let reference = reference.to_string();
            match findings.get(&reference) {
                Some(f) => {
                    info.status = f.status;
                    info.digest.clone_from(&f.digest);
                    info.platforms.clone_from(&f.platforms);
                    info.since = f.since_ms.map(rfc3339);
                    info.detail.clone_from(&f.detail);
                }
                None => info.detail = Some("not checked yet".to_owned()),
            }
            info.reference = Some(reference);
        }
    }
    info
}

/// The platforms one runtime image and the install container are both present for; variants of
/// `arm64` are its one variant (`v8`), so `linux/arm64/v8` counts as `linux/arm64`.
fn runs_on(images: &[ImageInfo]) -> Vec<String> {
    let offered = |i: &ImageInfo| -> BTreeSet<String> {
        if i.status != ImageStatus::Present {
            return BTreeSet::new();
        }
        i.platforms.iter().map(|p| platform_key(p)).collect()
    };
    let mut runtime = BTreeSet::new();
    let mut install: Option<BTreeSet<String>> = None;
    for i in images {
        match i.role {
            ImageRole::Runtime => runtime.extend(offered(i)),
            ImageRole::Install => install = Some(offered(i)),
        }
    }
    match install {
        Some(install) => runtime.intersection(&install).cloned().collect(),
        None => runtime.into_iter().collect(),
    }
}

/// `linux/arm64/v8` as `linux/arm64`; every other platform as written.
fn platform_key(platform: &str) -> String {
    platform
        .strip_suffix("/v8")
        .filter(|p| p.ends_with("/arm64"))
        .unwrap_or(platform)
        .to_owned()
}

/// The report's `images`, from every egg's `meta.images` by slug.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Each valid reference with what its eggs show of it and the eggs.
    references: BTreeMap<String, Seen>,
}

/// One reference as the report counts it: the finding every egg naming it shows, and the eggs.
#[derive(Debug)]
struct Seen {
    status: ImageStatus,
    since: Option<String>,
    detail: Option<String>,
    eggs: BTreeSet<String>,
}

impl Tally {
    /// Counts the images of the egg `slug`.
    pub(crate) fn add(&mut self, slug: &str, images: &[ImageInfo]) {
        for i in images {
            let Some(reference) = &i.reference else {
                continue;
            };
            let seen = self
                .references
                .entry(reference.clone())
                .or_insert_with(|| Seen {
                    status: i.status,
                    since: i.since.clone(),
                    detail: i.detail.clone(),
                    eggs: BTreeSet::new(),
                });
            seen.eggs.insert(slug.to_owned());
        }
    }

    /// The report's `images`.
    pub(crate) fn report(self) -> ImagesReport {
        let mut report = ImagesReport::default();
        for (reference, seen) in self.references {
            match seen.status {
                ImageStatus::Present => report.present += 1,
                ImageStatus::Unknown => report.unknown += 1,
                ImageStatus::Missing => {
                    report.missing += 1;
                    report.missing_images.push(MissingImage {
                        reference,
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

    fn found(status: ImageStatus, platforms: &[&str]) -> ImageFinding {
        ImageFinding {
            status,
            digest: (status == ImageStatus::Present).then(|| "sha256:ab".to_owned()),
            platforms: platforms.iter().map(|p| (*p).to_owned()).collect(),
            since_ms: Some(1_767_225_600_000),
            detail: (status != ImageStatus::Present).then(|| "why".to_owned()),
        }
    }

    #[test]
    fn each_image_gets_its_finding_and_the_egg_runs_where_a_variant_and_the_installer_do() {
        let egg = json!({
            "meta": {"version": "PTDL_v2"},
            "docker_images": {"Java 17": "ghcr.io/p/y:java_17", "Java 21": "ghcr.io/p/y:java_21", "bad": "Bad"},
            "scripts": {"installation": {"container": "alpine"}},
        });
        let findings: ImageFindings = [
            (
                "ghcr.io/p/y:java_17",
                found(ImageStatus::Present, &["linux/amd64"]),
            ),
            (
                "ghcr.io/p/y:java_21",
                found(ImageStatus::Present, &["linux/amd64", "linux/arm64/v8"]),
            ),
            (
                "docker.io/library/alpine:latest",
                found(
                    ImageStatus::Present,
                    &["linux/amd64", "linux/arm/v7", "linux/arm64"],
                ),
            ),
        ]
        .into_iter()
        .map(|(r, f)| (r.to_owned(), f))
        .collect();
        let (images, runs_on) = meta_images(&egg, &findings);
        assert_eq!(runs_on, ["linux/amd64", "linux/arm64"]);
        assert_eq!(images.len(), 4);
        assert_eq!(images[0].label.as_deref(), Some("Java 17"));
        assert_eq!(images[0].since.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        assert_eq!(images[2].reference, None);
        assert_eq!(images[2].status, ImageStatus::Unknown);
        assert_eq!(images[3].role, ImageRole::Install);
        assert_eq!(
            images[3].reference.as_deref(),
            Some("docker.io/library/alpine:latest")
        );
        assert_eq!(references(&egg).len(), 3, "the valid ones, each once");

        // The installer only on amd64: the egg runs on amd64 alone. A missing installer: nowhere.
        let mut findings = findings;
        findings.insert(
            "docker.io/library/alpine:latest".into(),
            found(ImageStatus::Present, &["linux/amd64"]),
        );
        assert_eq!(meta_images(&egg, &findings).1, ["linux/amd64"]);
        findings.insert(
            "docker.io/library/alpine:latest".into(),
            found(ImageStatus::Missing, &[]),
        );
        let (images, runs_on) = meta_images(&egg, &findings);
        assert!(runs_on.is_empty());

        let mut tally = Tally::default();
        tally.add("b-egg", &images);
        tally.add("a-egg", &images);
        let report = tally.report();
        assert_eq!((report.present, report.missing, report.unknown), (2, 1, 0));
        assert_eq!(report.missing_images[0].eggs, ["a-egg", "b-egg"]);
    }

    #[test]
    fn an_image_without_a_finding_is_unknown_never_missing() {
        let egg = json!({"docker_images": {"a": "ghcr.io/x/y:1"}});
        let (images, runs_on) = meta_images(&egg, &ImageFindings::new());
        assert_eq!(images[0].status, ImageStatus::Unknown);
        assert_eq!(images[0].detail.as_deref(), Some("not checked yet"));
        assert!(runs_on.is_empty());
    }
}
