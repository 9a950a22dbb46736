//! The documents eggcat publishes, field by field, in output order, and the problem documents
//! that answer for a file that is not there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::{Change, Database, Diagnostic, Severity};

/// Where an egg came from, and when it was first indexed with this content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "EggMeta"))]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The egg's slug (unique in the catalog).
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::SLUG)))]
    pub slug: String,
    /// The display name.
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub name: String,
    /// The first folder of the path; the repository name for a file at the root.
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub category: String,
    /// The source's label (`pelican`, `pterodactyl`, ...).
    pub source: String,
    /// Owner of the upstream repository.
    pub owner: String,
    /// Name of the upstream repository.
    pub repo: String,
    /// The upstream branch.
    pub branch: String,
    /// Path of the egg file inside the repository.
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub path: String,
    /// Where the upstream file can be downloaded.
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub raw_url: String,
    /// Unix time in milliseconds at which this content was first indexed.
    pub indexed_at: u64,
    /// `meta.version` of the egg (`PTDL_v2`, `PLCN_v3`, ...).
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^(PTDL|PLCN)_v[0-9]+$")))]
    pub format: String,
    /// Hex SHA-256 of the upstream file's bytes.
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^[0-9a-f]{64}$")))]
    pub sha256: String,
    /// The upstream commit at which the file was first read with its current content: kept
    /// while the file stays byte-identical (like `indexedAt`), so a commit elsewhere in the
    /// repository changes nothing of this egg's documents.
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(r"^[0-9a-f]{40}([0-9a-f]{24})?$"))
    )]
    pub commit: String,
    /// The UUID every import file of the egg carries, stable across rebuilds: upstream's when it
    /// is a UUID that no other egg of the catalog kept first, else derived from the source and
    /// path (UUIDv5).
    #[serde(default)]
    #[cfg_attr(
        feature = "schemars",
        schemars(pattern(
            r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
        ))
    )]
    pub uuid: String,
    /// The egg's import files for each panel, and whether the panel accepts them.
    #[serde(default)]
    pub import: Imports,
    /// What `eggcat validate` finds in the upstream file, with positions in it, sorted by
    /// position; plus the catalog-wide findings (`E017`: a uuid shared with other eggs).
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
    /// Every image the egg names (its runtime images, then its install container), with what
    /// its registry said of it.
    #[serde(default)]
    pub images: Vec<ImageInfo>,
    /// The platforms (`linux/amd64`, `linux/arm64`) the egg runs on: those one of its runtime
    /// images and its install container (when it has one) are both present for.
    #[serde(default)]
    #[cfg_attr(
        feature = "schemars",
        schemars(inner(pattern(crate::patterns::PLATFORM)))
    )]
    pub runs_on: Vec<String>,
    /// Every URL the egg's install script fetches (`curl`, `wget`, `git clone`, …), in script
    /// order, with what its host said of it (issue 38). Absent when the script fetches none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<DownloadInfo>,
}

/// One element of `meta.downloads`: a URL the install script fetches and what its host said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DownloadInfo {
    /// The URL as the script builds it: its own constants expanded, every other variable
    /// written `${NAME}`.
    pub url: String,
    /// `fixed` (checkable as written) or `variable` (built from variables).
    pub kind: DownloadKind,
    /// The variables a `variable` URL is built from, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<String>,
    /// The URL asked: the URL itself when fixed; for a variable one, its form with the egg
    /// variables' defaults, when those alone make it fixed. Absent when nothing can be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<String>,
    /// The 1-based line of the install script that fetches it.
    pub line: usize,
    /// What its host said (`unknown` when nothing can be asked).
    pub status: ImageStatus,
    /// When the host first gave this answer (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub since: Option<String>,
    /// Why it is missing or unknown (or how it was asked), one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Whether a download can be checked as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DownloadKind {
    /// No variable in it.
    Fixed,
    /// Built from variables.
    Variable,
}

/// One element of `meta.images`: an image the egg names and what its registry said of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ImageInfo {
    /// The reference as the egg writes it.
    pub image: String,
    /// What the egg uses it for.
    #[serde(rename = "use")]
    pub role: ImageRole,
    /// For a runtime image, the label an admin picks it by (its `docker_images` key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The reference normalized as Docker reads it (`docker.io/library/alpine:latest`); null
    /// when it is not a valid reference.
    pub reference: Option<String>,
    /// What the registry said.
    pub status: ImageStatus,
    /// The manifest's digest, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^sha256:[0-9a-f]{64}$")))]
    pub digest: Option<String>,
    /// The platforms (`os/architecture[/variant]`) the image offers, sorted; empty unless present.
    #[cfg_attr(
        feature = "schemars",
        schemars(inner(pattern(crate::patterns::PLATFORM)))
    )]
    pub platforms: Vec<String>,
    /// When the registry first gave this answer (RFC 3339, UTC); kept while later checks give the
    /// same one. Absent when the image was never checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub since: Option<String>,
    /// Why the image is missing or unknown, one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What an egg uses an image for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ImageRole {
    /// One of `docker_images`: servers run in it.
    Runtime,
    /// `scripts.installation.container`: the install script runs in it.
    Install,
}

/// What an image's registry said of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ImageStatus {
    /// The registry has the manifest.
    Present,
    /// The registry says the name or the tag does not exist.
    Missing,
    /// No answer that tells (not checked yet, checks off, timeout, server error, rate limit,
    /// refused): never taken for missing.
    Unknown,
}

impl ImageStatus {
    /// `present`, `missing` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageStatus::Present => "present",
            ImageStatus::Missing => "missing",
            ImageStatus::Unknown => "unknown",
        }
    }
}

/// `meta.import`: one entry per panel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Imports {
    /// Pelican: `pelican.yaml` and `pelican.json` (PLCN_v3).
    pub pelican: PanelImport,
    /// Pterodactyl: `pterodactyl.json` (PTDL_v2).
    pub pterodactyl: PanelImport,
}

/// The import files of an egg for one panel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PanelImport {
    /// Absolute URL of the YAML import file (Pelican only); absent when none could be written,
    /// and always for Pterodactyl.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub yaml: Option<String>,
    /// Absolute URL of the JSON import file, or null when none could be written.
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub json: Option<String>,
    /// Whether the panel's own import rules accept the file.
    pub importable: bool,
    /// Why the panel would refuse it (empty when importable).
    pub problems: Vec<String>,
    /// What the conversion for this panel could not carry (extra startup commands, the icon..).
    pub losses: Vec<String>,
    /// Pelican only, with `json`: the JSON import file for each database the panel may run on,
    /// each in the order that database's export writes (docs/panels.md). `sqlite` and
    /// `postgresql` are `json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub databases: Option<DatabaseFiles>,
    /// Pelican only, with `yaml`: whether Pelican's update check can ever find `pelican.yaml`
    /// up to date (false where its YAML export writes a text of the egg as a number, which its
    /// own import refuses; `pelican.json` has no such limit).
    #[serde(
        default,
        rename = "yamlUpToDate",
        skip_serializing_if = "Option::is_none"
    )]
    pub yaml_up_to_date: Option<bool>,
}

/// `meta.import.pelican.databases`: absolute URLs of an egg's JSON import file per database.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct DatabaseFiles {
    /// SQLite (Pelican's default): `pelican.json`.
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub sqlite: String,
    /// MariaDB, and MySQL (untested): `pelican-mariadb.json`.
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub mariadb: String,
    /// PostgreSQL: `pelican.json`, the same URL as `sqlite` (its export order is SQLite's).
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub postgresql: String,
}

impl DatabaseFiles {
    /// The URL for `db`.
    pub fn get(&self, db: Database) -> &str {
        match db {
            Database::Sqlite => &self.sqlite,
            Database::MariaDb => &self.mariadb,
            Database::PostgreSql => &self.postgresql,
        }
    }
}

/// `api/v1/eggs/<slug>.json`.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "EggDetail"))]
pub struct EggDocument {
    /// The upstream egg, faithful, as compact JSON.
    #[cfg_attr(feature = "schemars", schemars(with = "serde_json::Value", extend("$ref" = "#/components/schemas/Egg")))]
    pub egg: Box<RawValue>,
    /// Where it came from.
    pub meta: Meta,
    /// The README of the egg's folder, or null.
    pub readme: Option<String>,
}

/// One element of `api/v1/eggs/_index.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "EggListItem"))]
pub struct IndexItem {
    /// See [`Meta::slug`].
    #[cfg_attr(
        feature = "schemars",
        schemars(
            pattern(crate::patterns::SLUG),
            description = "Unique in the catalog; the path segment of the egg document."
        )
    )]
    pub slug: String,
    /// See [`Meta::name`].
    #[cfg_attr(
        feature = "schemars",
        schemars(length(min = 1), description = "The display name.")
    )]
    pub name: String,
    /// See [`Meta::category`].
    #[cfg_attr(
        feature = "schemars",
        schemars(
            length(min = 1),
            description = "The first folder of the egg's path; the repository name for a file at the root."
        )
    )]
    pub category: String,
    /// See [`Meta::repo`].
    #[cfg_attr(
        feature = "schemars",
        schemars(description = "Name of the upstream repository.")
    )]
    pub repo: String,
    /// See [`Meta::source`].
    #[cfg_attr(
        feature = "schemars",
        schemars(description = "The source's label (`pelican`, `pterodactyl`, ...).")
    )]
    pub source: String,
}

/// `api/v1/_status.json`: what the build did. (`Default` is the report of no build, which the
/// pages show for a tree without one.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Always [`crate::INTERFACE_VERSION`].
    #[cfg_attr(feature = "schemars", schemars(extend("const" = crate::INTERFACE_VERSION), description = "The interface version the documents follow."))]
    pub interface_version: String,
    /// Identifies this build (and its snapshot folder).
    #[cfg_attr(feature = "schemars", schemars(extend("examples" = ["20261121T101258.569Z"])))]
    pub build_id: String,
    /// When the build started (RFC 3339, UTC).
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub started_at: String,
    /// When the documents were complete (RFC 3339, UTC). This is the `Last-Modified` of every
    /// document of the snapshot.
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub finished_at: String,
    /// Eggs in the catalog.
    pub eggs: usize,
    /// One entry per configured source, in configuration order.
    pub sources: Vec<SourceReport>,
    /// Every file that looks like an egg but is not indexed, by source then path.
    pub skipped: Vec<SourceProblem>,
    /// Everything else a maintainer should look at, by source then path.
    pub warnings: Vec<SourceProblem>,
    /// How many diagnostics the checks found in the catalog's eggs.
    #[serde(default)]
    pub diagnostics: DiagnosticCounts,
    /// What the registries said of the catalog's images.
    #[serde(default)]
    pub images: ImagesReport,
    /// What the hosts said of the catalog's install-script downloads (issue 38).
    #[serde(default)]
    pub downloads: DownloadsReport,
}

/// `downloads` of the report: the catalog's distinct checked download URLs by status, and the
/// missing ones with the eggs that fetch them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DownloadsReport {
    /// URLs whose host has them.
    pub present: usize,
    /// URLs whose host says they do not exist (`404`, `410`).
    pub missing: usize,
    /// URLs without an answer that tells.
    pub unknown: usize,
    /// Download URLs built from variables that no default makes checkable (not asked).
    pub not_checkable: usize,
    /// Each missing URL, sorted, with the eggs that fetch it.
    pub missing_downloads: Vec<MissingDownload>,
}

/// One missing download of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct MissingDownload {
    /// The URL asked.
    pub url: String,
    /// When the host first said so (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub since: Option<String>,
    /// The host's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The slugs of the eggs that fetch it, sorted.
    #[cfg_attr(feature = "schemars", schemars(inner(pattern(crate::patterns::SLUG))))]
    pub eggs: Vec<String>,
}

/// `images` of the report: the catalog's distinct image references by status, and the missing
/// ones with the eggs that name them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImagesReport {
    /// References the registries have.
    pub present: usize,
    /// References the registries say do not exist.
    pub missing: usize,
    /// References without an answer that tells (see [`ImageStatus::Unknown`]).
    #[cfg_attr(
        feature = "schemars",
        schemars(description = "References without an answer that tells (see `ImageStatus`).")
    )]
    pub unknown: usize,
    /// Each missing reference, sorted, with the eggs that name it.
    pub missing_images: Vec<MissingImage>,
}

/// One missing image of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct MissingImage {
    /// The normalized reference.
    pub reference: String,
    /// When the registry first said so (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub since: Option<String>,
    /// The registry's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The slugs of the eggs that name it, sorted.
    #[cfg_attr(feature = "schemars", schemars(inner(pattern(crate::patterns::SLUG))))]
    pub eggs: Vec<String>,
}

/// `diagnostics` of the report: counts over every egg of the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticCounts {
    /// Diagnostics of severity `error`.
    pub errors: usize,
    /// Diagnostics of severity `warning`.
    pub warnings: usize,
    /// Diagnostics of severity `note`.
    pub notes: usize,
    /// Per code (`E021`), how many diagnostics.
    #[cfg_attr(feature = "schemars", schemars(extend("additionalProperties" = {"type": "integer", "minimum": 1})))]
    pub by_code: BTreeMap<String, usize>,
    /// Per source (`owner/repo`), per code, how many diagnostics.
    #[cfg_attr(feature = "schemars", schemars(extend("additionalProperties" = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}})))]
    pub by_source: BTreeMap<String, BTreeMap<String, usize>>,
}

impl DiagnosticCounts {
    /// Counts `diagnostics` of an egg of `source`.
    pub fn add(&mut self, source: &str, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Note => self.notes += 1,
            }
            *self.by_code.entry(d.code.clone()).or_default() += 1;
            *self
                .by_source
                .entry(source.to_owned())
                .or_default()
                .entry(d.code.clone())
                .or_default() += 1;
        }
    }
}

/// The outcome for one source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourceReport {
    /// The configured URL or path.
    pub url: String,
    /// The label (`source` of its eggs).
    pub label: String,
    /// Owner of the upstream repository.
    pub owner: String,
    /// Name of the upstream repository.
    pub repo: String,
    /// The branch read, when known.
    pub branch: Option<String>,
    /// The commit its eggs come from, when it has any.
    pub commit: Option<String>,
    /// `ok` or `failed`.
    pub status: SourceStatus,
    /// Whether the source was fetched and parsed anew (false when its tip commit was unchanged,
    /// or when its previous eggs were kept).
    pub changed: bool,
    /// Eggs of this source in the catalog.
    pub eggs: usize,
    /// Why the source failed, when it did.
    pub error: Option<String>,
    /// Whether the eggs of the previous build were kept because this one failed.
    pub kept_previous: bool,
}

/// Whether a source gave its eggs in this build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    /// Fetched (or unchanged) and scanned.
    Ok,
    /// Fetch failed, or the source suddenly had no eggs.
    Failed,
}

/// A file of one source and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SourceProblem {
    /// `owner/repo` of the source.
    pub source: String,
    /// Path inside the repository.
    pub path: String,
    /// What is wrong, for a maintainer.
    pub message: String,
}

/// A file and what is wrong with it, within one source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Path inside the repository.
    pub path: String,
    /// What is wrong, for a maintainer.
    pub message: String,
}

/// `state.json` beside the published tree of a snapshot (not published): what the next build
/// needs to reuse this one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// One entry per source that has eggs or a known commit.
    pub sources: Vec<SourceState>,
    /// Every slug that was in an earlier catalog and is not in this one, by slug. A slug that
    /// comes back leaves the list.
    #[serde(default)]
    pub removed: Vec<Removed>,
    /// What derived this snapshot's import files and pages from its eggs
    /// (`eggcat_catalog::BuildContext::derivation`); empty when absent. A later build reuses
    /// those files only under the same derivation.
    #[serde(default)]
    pub derivation: String,
    /// The derivation and the configured sources of the build that made this snapshot, when
    /// every source of it was fetched or unchanged (none failed); empty when absent. A rebuild
    /// with the same inputs whose sources are all unchanged upstream publishes nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inputs: String,
    /// The key of what each output a later build may reuse was made from, by the output's name
    /// (`eggcat_catalog::reuse`); empty when absent (a later build then makes every output anew).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reuse: BTreeMap<String, Key>,
}

/// One element of `api/v1/eggs/_removed.json`: a slug that answers `410 Gone`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "RemovedEgg"))]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    /// The slug that is gone.
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::SLUG)))]
    pub slug: String,
    /// When the first build without it finished (RFC 3339, UTC).
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub removed_at: String,
    /// `owner/repo` of the source it came from.
    pub source: String,
    /// Its path in that repository.
    pub path: String,
}

impl Removed {
    /// The `detail` of the `410 Gone` problem document for this slug, wherever it is served
    /// (`eggcat serve`, the static-host rules). It does not say why the slug went (the file was
    /// deleted or renamed upstream, the source left the configuration, or the slug changed): the
    /// catalog knows only that it is no longer published.
    pub fn detail(slug: &str, removed_at: &str, path: &str, source: &str) -> String {
        format!(
            "the egg `{slug}` is no longer in the catalog (since {removed_at}); it came from `{path}` of {source}"
        )
    }
}

/// What a snapshot remembers of one source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceState {
    /// The source's identity in the configuration (its URL and configured branch).
    pub key: String,
    /// The branch the eggs were read from.
    pub branch: String,
    /// The commit the eggs were read at.
    pub commit: String,
    /// Slugs of its eggs in this snapshot (their documents hold the rest).
    pub eggs: Vec<String>,
    /// Files skipped at that commit.
    pub skipped: Vec<Problem>,
    /// Warnings at that commit.
    pub warnings: Vec<Problem>,
    /// The normalized image references its eggs name, sorted: what the next build asks the
    /// registries about before deciding that nothing changed. Absent in older snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<String>>,
    /// The download URLs its eggs' install scripts fetch that can be asked, sorted: what the
    /// next build asks their hosts about before deciding that nothing changed. Absent in
    /// older snapshots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downloads: Option<Vec<String>>,
}

/// `api/v1/eggs/{slug}/history.json`: the egg's versions from upstream git, newest first, each
/// with the changes from the version before it. Derived only from the upstream repository (the
/// branch's first-parent history, as deep as the source's history was fetched), so the same
/// upstream gives the same document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "EggHistory"))]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The egg's slug.
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::SLUG)))]
    pub slug: String,
    /// `owner/repo` of the upstream repository.
    pub source: String,
    /// The branch the history follows.
    pub branch: String,
    /// Path of the egg file at the newest version.
    pub path: String,
    /// Whether `versions` reaches back to the commit that added the file. False when the file
    /// is older than the history eggcat reads (the newest `history_depth` commits of the
    /// branch), when versions were cut at [`History`]'s limit, or when there is no history at
    /// all.
    #[cfg_attr(
        feature = "schemars",
        schemars(
            description = "Whether `versions` reaches back to the commit that added the file. False when the file is older than the history eggcat reads (the newest `history_depth` commits of the branch, `since`), when versions were cut at 100, or when there is no history at all."
        )
    )]
    pub complete: bool,
    /// Why the history is partial or missing, one sentence; absent when it is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// When the file is older than the history eggcat reads: the commit just before the
    /// commits read. The file was last changed there or earlier; the oldest version listed, if
    /// any, is compared with the file as it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
    /// Newest first.
    #[cfg_attr(
        feature = "schemars",
        schemars(length(max = 100), description = "Newest first, at most 100.")
    )]
    pub versions: Vec<Version>,
}

/// `since` of a [`History`]: the newest commit of the branch whose changes eggcat does not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(
        rename = "HistorySince",
        description = "`since` of a history: the newest commit of the branch whose changes eggcat does not read."
    )
)]
pub struct Since {
    /// The commit's full id.
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::COMMIT)))]
    pub commit: String,
    /// Its committer date, RFC 3339 UTC.
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub date: String,
}

/// One upstream commit that changed the egg's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schemars", schemars(rename = "EggVersion"))]
#[serde(rename_all = "camelCase")]
pub struct Version {
    /// The commit's full id.
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::COMMIT)))]
    pub commit: String,
    /// The commit's committer date, RFC 3339 UTC.
    #[cfg_attr(feature = "schemars", schemars(extend("format" = "date-time")))]
    pub date: String,
    /// The commit message's first line.
    pub subject: String,
    /// The commit on the upstream host's web site, when the host is known (GitHub, GitLab,
    /// Codeberg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub url: Option<String>,
    /// Path of the egg file in this commit (the old path for `removed`).
    pub path: String,
    /// What the commit did to the file.
    pub event: VersionEvent,
    /// For `renamed`: the path before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    /// Hex SHA-256 of the file in this commit; absent for `removed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^[0-9a-f]{64}$")))]
    pub sha256: Option<String>,
    /// Why the file in this commit is not an egg eggcat can read (not JSON or YAML, binary,
    /// too large, not egg-shaped); its changes are then empty, and the next newer version is
    /// compared with the last version that could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The commit of the version `changes` are counted from; absent when there is none (the
    /// file's first version, `earliest`, a version that cannot be read, or `removed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(pattern(crate::patterns::COMMIT)))]
    pub compared_with: Option<String>,
    /// Whether any change can break servers made from the earlier version.
    pub breaking: bool,
    /// The changes, in `eggcat diff`'s terms (docs/diff.md). Empty for a change of format only.
    pub changes: Vec<Change>,
    /// Per database order, the hash Pelican's update check computes for an egg imported,
    /// unedited, from the `pelican.json` eggcat would have published at this version (the egg's
    /// identity and URLs as they are now): `md5` of PHP's `json_encode` of the decoded file
    /// without `exported_at`. The same hash from a panel's export of an egg says the panel has
    /// this version. Absent where eggcat would have published no file Pelican imports (a
    /// version that cannot be read, `removed`, an egg Pelican refuses), and in documents of
    /// eggcat before issue 37.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pelican_update_check_md5: Option<UpdateCheckMd5>,
    /// Absolute URL of the `pelican.json` (SQLite's order) whose hash `sqlite` of
    /// `pelicanUpdateCheckMd5` is: for the version whose file is the egg's current one, the
    /// egg's `pelican.json`; for an older one, its own file under `versions/{sha256}/` (the
    /// `sha256` of the upstream file: versions of the same content share it), the same bytes
    /// `pelican.json` had at that version but `exported_at`. The base of a three-way merge.
    /// Absent where `pelicanUpdateCheckMd5` is, and where a document kept from an earlier build
    /// names a file that build's snapshot could not give back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schemars", schemars(url))]
    pub pelican_json: Option<String>,
}

/// `pelicanUpdateCheckMd5` of a version: per database order, lowercase hex MD5 (docs/panels.md,
/// "Which version does a panel have").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct UpdateCheckMd5 {
    /// SQLite (Pelican's default), of `pelican.json`.
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^[0-9a-f]{32}$")))]
    pub sqlite: String,
    /// MariaDB and MySQL, of `pelican-mariadb.json`.
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^[0-9a-f]{32}$")))]
    pub mariadb: String,
    /// PostgreSQL, of `pelican.json` (its export order is SQLite's): equal to `sqlite`.
    #[cfg_attr(feature = "schemars", schemars(pattern(r"^[0-9a-f]{32}$")))]
    pub postgresql: String,
}

/// What a commit did to an egg's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum VersionEvent {
    /// The commit added the file: its first version.
    Added,
    /// The commit changed the file.
    Changed,
    /// The commit moved the file (and may have changed it).
    Renamed,
    /// The commit deleted the file (a later commit added it back).
    Removed,
    /// The commit added the file back after an earlier commit deleted it.
    Restored,
    /// Only in history documents of eggcat before issue 25, which may be kept for an egg whose
    /// source failed since: the oldest commit fetched, shown as a version though its own change
    /// was not read. Never written now: such a file is older than the history read (`since`).
    Earliest,
}

/// An error answer of `eggcat serve` and of the static-host rules of `eggcat-publish`: RFC 9457
/// problem details (`application/problem+json`), with a removed egg's [`Removed`] members after
/// the standard ones for `410 Gone`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(
        description = "RFC 9457 problem details (`application/problem+json`), as `eggcat serve` and the static-host rules of `eggcat publish` answer errors; for `410 Gone`, the removed egg's members (as in `_removed.json`) after the standard ones."
    )
)]
pub struct ProblemDocument {
    /// Always `about:blank`: the status code says what kind of problem it is.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schemars", schemars(extend("const" = "about:blank")))]
    pub kind: String,
    /// The status phrase (`Not Found`, ...).
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What exactly was wrong with this request.
    pub detail: String,
    /// The request path as sent. A static host cannot put the request path here: its `410`
    /// names the egg's API path, and its other problems leave `instance` out (it is optional in
    /// RFC 9457; the OpenAPI, which describes `eggcat serve`, requires it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// For `410 Gone`: the removed egg, as in `_removed.json`.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub gone: Option<Removed>,
}

/// The key of what an output of a build was made from (`state.json` `reuse`): 32 hex digits,
/// made by `eggcat_catalog::reuse::Inputs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Key(String);

impl Key {
    /// The key of a digest (its bytes in hex): `eggcat_catalog::reuse::Inputs` makes them.
    pub fn from_digest(digest: &[u8]) -> Key {
        Key(crate::hex(digest))
    }

    /// Its hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
