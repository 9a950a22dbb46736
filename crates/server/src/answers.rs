//! The JSON `eggcat serve` answers beside the snapshot's files: `_status.json` with
//! `lastRebuild` once a rebuild has failed, `/healthz` and `/readyz`. What this server process
//! saw, never part of a snapshot; the published documents are `eggcat-wire`'s. docs/api.md
//! describes each; the tests generate their OpenAPI schemas from these types
//! (`openapi/compose.rs`), so a `schemars` attribute (for the tests only) says what the doc
//! comment, written for Rust readers, would not.

use eggcat_wire::Report;
use serde::{Deserialize, Serialize};

/// `api/v1/_status.json` as `eggcat serve` answers it: the published [`Report`], with
/// `lastRebuild` after its members once a rebuild has failed (the snapshot on disk never holds
/// it: it says what this server process saw).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(
    test,
    schemars(
        rename = "BuildReport",
        description = "`_status.json`: what the build of the catalog being served did. As published, without `lastRebuild`; the server adds `lastRebuild` after a failed rebuild."
    )
)]
pub struct ServedReport {
    /// The published report, member for member.
    #[serde(flatten)]
    pub report: Report,
    /// The last rebuild, when it failed.
    #[serde(
        rename = "lastRebuild",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_rebuild: Option<LastRebuild>,
}

/// `lastRebuild` of the served status: a rebuild failed, and the last good catalog is served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct LastRebuild {
    /// Always `failed` (a successful rebuild publishes a new report without this member).
    pub outcome: RebuildOutcome,
    /// When the rebuild failed (RFC 3339, UTC).
    #[cfg_attr(test, schemars(extend("format" = "date-time")))]
    pub at: String,
    /// Why it failed.
    pub error: String,
}

/// What a rebuild that `lastRebuild` reports did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RebuildOutcome {
    /// It failed; nothing was published.
    Failed,
}

/// `/healthz`: the process answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Health {
    /// Always `ok`.
    pub status: HealthStatus,
}

/// `status` of `Health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    /// The process answers.
    Ok,
}

/// `/readyz` when a catalog is served (before, the answer is a `503`
/// [`eggcat_wire::ProblemDocument`]).
/// Always `200` then: a degraded server still serves what it has, and should keep its traffic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(
    test,
    schemars(
        description = "`/readyz` when a catalog is served (before, the answer is a `503` problem). Always `200` then: a degraded server still serves what it has, and should keep its traffic."
    )
)]
pub struct Ready {
    /// `ready`, or `degraded` when [`Ready::problems`] is not empty.
    #[cfg_attr(
        test,
        schemars(description = "`ready`, or `degraded` when `problems` is not empty.")
    )]
    pub status: ReadyStatus,
    /// The id of the snapshot being served ([`Report::build_id`]).
    #[cfg_attr(
        test,
        schemars(description = "The id of the snapshot being served (its `buildId`).")
    )]
    pub build: String,
    /// Eggs in the catalog.
    pub eggs: usize,
    /// What needs an operator's attention, when the status is `degraded` (left out when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<ReadyProblem>,
}

/// `status` of `Ready`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ReadyStatus {
    /// A catalog is served, whole.
    Ready,
    /// A catalog is served, but something is wrong (see `problems`).
    Degraded,
}

/// One thing wrong with a server that still serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ReadyProblem {
    /// What kind of problem.
    pub code: ReadyProblemCode,
    /// It in words (the damaged files, the rebuild's error).
    pub detail: String,
}

/// `code` of `ReadyProblem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReadyProblemCode {
    /// Files of the snapshot on disk did not match its manifest when it was loaded: they are
    /// not served (404) until a rebuild writes them again.
    SnapshotDamaged,
    /// The last rebuild failed (an unwritable or full `data_dir`, ...): the catalog served is
    /// the last good one.
    RebuildFailed,
}
