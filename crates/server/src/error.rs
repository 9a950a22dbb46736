//! Why the server cannot start or cannot serve a published tree. A snapshot refused by
//! [`App::install`](crate::App::install) leaves the catalog being served as it was, so the
//! caller can say which document is at fault and keep going.

use eggcat_wire::paths;

/// Why the server refuses its settings or a snapshot.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// `cache_control` is not a valid header value.
    #[error(
        "invalid cache_control {0:?}: an HTTP header value is visible ASCII and spaces, without \
         line breaks"
    )]
    CacheControl(String),
    /// The tree has no status document ([`paths::STATUS`]), which dates every response.
    #[error("no status document")]
    NoStatus,
    /// The status document is not the catalog's report.
    #[error("status document: {0}")]
    Status(serde_json::Error),
    /// The status document's `finishedAt` is not an RFC 3339 date.
    #[error("status document: finishedAt: {0}")]
    FinishedAt(humantime::TimestampError),
    /// The list of removed eggs ([`paths::REMOVED`]) does not parse.
    #[error("{path}: {0}", path = paths::REMOVED)]
    Removed(serde_json::Error),
    /// A file of the tree cannot be read.
    #[error(transparent)]
    Read(#[from] eggcat_store::StoreError),
}
